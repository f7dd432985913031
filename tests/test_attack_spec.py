"""Hostile camspec values: each test fails on the code before its fix."""
from __future__ import annotations

from conftest import invoke


def test_a_declared_file_name_with_a_nul_byte_is_a_finding_at_its_line(tmp_path):
    """YAML's "\\0" escape put a NUL into a path: Path.resolve raised ValueError, an internal error."""
    spec = tmp_path / "s.yaml"
    spec.write_text('camspec: 1\ninputs:\n  - {tensor: "x.npy\\0y"}\nartifacts:\n  - {input: x, map: "m\\0.npy"}\n')
    result = invoke("check", spec)
    assert result.exit_code == 1, result.output
    assert "s.yaml:3:" in result.output and "s.yaml:5:" in result.output
    assert "holds a NUL byte" in result.output and "internal error" not in result.output


def test_resolved_inside_places_a_nul_name_nowhere(tmp_path):
    from camlint.safety.paths import resolved_inside

    assert resolved_inside(tmp_path / "a\0b", tmp_path) is None
    assert resolved_inside(tmp_path / "a", tmp_path) == (tmp_path / "a").resolve()


class _Touch:
    """Unpickling this creates a file: the proof that a pickle ran."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        from pathlib import Path

        return (Path.touch, (Path(self.marker),))


def test_an_object_array_input_is_refused_at_its_line_and_never_unpickled(tmp_path):
    """The refusal named the spec but no line before; the pickle never runs (allow_pickle=False)."""
    import numpy as np
    import pytest

    pytest.importorskip("torch")
    from test_attack_budget import _small_spec

    spec = _small_spec(tmp_path, 2)
    marker = tmp_path / "pickle-ran"
    np.save(tmp_path / "x1.npy", np.array([_Touch(str(marker))], dtype=object), allow_pickle=True)
    result = invoke("verify", spec, "--device", "cpu")
    assert result.exit_code == 2 and not marker.exists()
    assert "spec.yaml:" in result.output and "inputs[1].tensor: input x1.npy: not a plain .npy array" in result.output


def test_a_merge_key_is_refused_in_words_at_its_line(tmp_path):
    """PyYAML's own 'could not determine a constructor' message, with its excerpt, was printed."""
    spec = tmp_path / "s.yaml"
    spec.write_text('camspec: 1\nmodel: &m {arch: vit_base_patch16_224}\nlayer: {<<: [*m, *m], block: -1}\n')
    result = invoke("check", spec)
    assert result.exit_code == 2
    assert "s.yaml:3:9: merge keys (<<) are not allowed" in result.output and "constructor" not in result.output
    quoted = tmp_path / "q.yaml"
    quoted.write_text('camspec: 1\n"<<": 1\n')
    assert "merge keys" not in invoke("check", quoted).output
