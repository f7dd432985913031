"""Hostile YAML: python tags, billion laughs, huge files, deep nesting: a clear error, bounded."""
from __future__ import annotations

import time
import tracemalloc

import pytest

from camlint.safety.yamlsafe import MAX_BYTES, YAMLInputError, load_file, loads
from conftest import run_cli

LAUGHS = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefgh", "bcdefghi"))


@pytest.mark.parametrize("text, line, words", [
    ("model: !!python/object/apply:os.system ['echo pwned']\n", 1, "not allowed"),
    ("a: 1\nb: !!python/name:builtins.eval ''\n", 2, "not allowed"),
    ("a: !custom 3\n", 1, "not allowed"),
    ("x: *undefined\n", 1, "unknown alias"),
    ("a: [1, 2\nb: 3\n", 2, "syntax"),
    ("a: 1\n---\nb: 2\n", 2, "one YAML document"),
])
def test_refused_with_line(text, line, words):
    with pytest.raises(YAMLInputError) as err:
        loads(text)
    assert err.value.line == line
    assert words in err.value.message


def test_python_tag_is_never_constructed(tmp_path):
    marker = tmp_path / "pwned"
    with pytest.raises(YAMLInputError):
        loads(f"a: !!python/object/apply:os.system ['touch {marker}']\n")
    assert not marker.exists()


def test_billion_laughs_stops_in_bounded_time_and_memory():
    tracemalloc.start()
    t0 = time.perf_counter()
    with pytest.raises(YAMLInputError) as err:
        loads(LAUGHS)
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert "expands to more than" in err.value.message
    assert elapsed < 5 and peak < 200 * 2**20


def test_deep_nesting_is_refused_not_a_recursion_error():
    with pytest.raises(YAMLInputError) as err:
        loads("a: " + "[" * 50_000 + "]" * 50_000)
    assert "nesting deeper" in err.value.message


def test_huge_file_refused_before_reading(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as fh:
        fh.truncate(50 * 1024 * 1024)
    t0 = time.perf_counter()
    with pytest.raises(YAMLInputError) as err:
        load_file(big)
    assert time.perf_counter() - t0 < 1
    assert "limit" in err.value.message and big.stat().st_size > MAX_BYTES


def test_positions_of_nested_values():
    loaded = loads("model:\n  arch: vit\nlayer: {block: 3}\ninputs:\n  - image: a.png\n")
    assert loaded.position(("model", "arch")) == (2, 3)
    assert loaded.position(("layer", "block")) == (3, 9)
    assert loaded.position(("inputs", 0, "image")) == (5, 5)


def test_yaml_11_booleans_and_dates_stay_readable():
    data = loads("relu: no\nd: 2024-01-02\n").data
    assert data == {"relu": False, "d": "2024-01-02"}


@pytest.mark.parametrize("name, text", [
    ("tags.yaml", "model: !!python/object/apply:os.system ['ls']\n"),
    ("laughs.yaml", LAUGHS),
    ("deep.yaml", "a: " + "[" * 10_000 + "]" * 10_000 + "\n"),
])
def test_cli_exit_2_with_file_and_line(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    proc = run_cli("check", path)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr + proc.stdout
    assert f"{name}:" in proc.stdout + proc.stderr
