"""Issue 10, reading side: the project root, regular files only, control characters, linear
scans, capped findings, wrong spec types, a tampered cache, skipped files, encodings,
blanket suppressions. Each test runs real files through the real CLI or check_file."""
from __future__ import annotations

import importlib.util
import json
import os
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, run_cli

HOSTILE = FIXTURES / "hostile"
HEAD = "\\documentclass{article}\n\\begin{document}\n\\section{Saliency maps}\n"
SECRET = "SECRET-TOKEN-7f3a"


def _json(proc) -> dict:
    return json.loads(proc.stdout)


def _outside_project(tmp_path: Path) -> Path:
    """paper/ next to secret/, whose main file quotes a secret and includes a sibling."""
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "main.tex").write_text(HEAD + f"Grad-CAM on our ViT-B/16. {SECRET}\n\\input{{other}}\n\\end{{document}}\n")
    (secret / "other.tex").write_text(f"{SECRET} in the other file.\n")
    paper = tmp_path / "paper"
    paper.mkdir()
    return paper


# -- point 4: the root is the folder the user named; only regular files are opened

def test_a_symlinked_main_file_does_not_move_the_root(tmp_path):
    paper = _outside_project(tmp_path)
    (paper / "main.tex").symlink_to(tmp_path / "secret" / "main.tex")
    proc = run_cli("check", paper / "main.tex", "--format", "json")
    assert proc.returncode == 2 and "outside its folder" in proc.stderr
    assert SECRET not in proc.stdout + proc.stderr


def test_check_dir_skips_a_symlinked_main_file_and_says_why(tmp_path):
    paper = _outside_project(tmp_path)
    (paper / "main.tex").symlink_to(tmp_path / "secret" / "main.tex")
    (paper / "camspec.yaml").symlink_to(tmp_path / "secret" / "main.tex")
    (paper / "real.tex").write_text(HEAD + "Grad-CAM on our ViT-B/16.\n\\end{document}\n")
    proc = run_cli("check", paper, "--format", "json")
    assert SECRET not in proc.stdout + proc.stderr
    assert [Path(d["path"]).name for d in _json(proc)["documents"]] == ["real.tex"]
    assert "skipped" in proc.stderr and "main.tex: a link to a file outside the folder" in proc.stderr
    assert "camspec.yaml: a link to a file outside the folder" in proc.stderr


def test_a_link_inside_the_folder_is_read_against_the_named_root(tmp_path):
    paper = tmp_path / "paper"
    (paper / "src").mkdir(parents=True)
    (paper / "src" / "main.tex").write_text(HEAD + "Grad-CAM on our ViT-B/16.\n\\input{part}\n\\end{document}\n")
    (paper / "part.tex").write_text("We use the last block.\n")
    (paper / "main.tex").symlink_to(paper / "src" / "main.tex")
    proc = run_cli("check", paper / "main.tex", "--format", "json")
    doc = _json(proc)["documents"][0]
    assert proc.returncode in (0, 1) and not any(f["code"] in ("CAM001", "CAM002") for f in doc["findings"])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_never_blocks(tmp_path):
    paper = tmp_path / "paper"
    paper.mkdir()
    os.mkfifo(paper / "pipe.tex")
    os.mkfifo(paper / "spec.yaml")
    (paper / "main.tex").write_text(HEAD + "Grad-CAM on our ViT-B/16.\n\\input{pipe}\n\\end{document}\n")
    t0 = time.perf_counter()
    direct = run_cli("check", paper / "pipe.tex")
    spec = run_cli("check", paper / "spec.yaml")
    included = run_cli("check", paper / "main.tex", "--format", "json")
    folder = run_cli("check", paper, "--format", "json")
    assert time.perf_counter() - t0 < 60
    assert direct.returncode == 2 and "FIFO" in direct.stderr
    assert spec.returncode == 2 and "FIFO" in spec.stderr
    cam005 = [f for f in _json(included)["documents"][0]["findings"] if f["code"] == "CAM005"]
    assert cam005 and "FIFO" in cam005[0]["message"] and cam005[0]["line"] == 5
    assert "pipe.tex: not a regular file" in folder.stderr and "spec.yaml: not a regular file" in folder.stderr


def test_a_link_to_dev_zero_is_refused(tmp_path):
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "zero.tex").symlink_to("/dev/zero")
    (paper / "main.tex").write_text(HEAD + "Grad-CAM on our ViT-B/16.\n\\input{zero}\n\\end{document}\n")
    t0 = time.perf_counter()
    doc = _json(run_cli("check", paper / "main.tex", "--format", "json"))["documents"][0]
    assert run_cli("check", paper / "zero.tex").returncode == 2
    assert time.perf_counter() - t0 < 30
    assert any(f["code"] == "CAM001" and "zero" in f["message"] for f in doc["findings"])


def test_read_regular_refuses_devices_and_stops_at_the_limit(tmp_path):
    from camlint.safety.safeio import NotRegularFile, read_regular

    with pytest.raises(NotRegularFile):
        read_regular(Path("/dev/zero"), 1024)
    big = tmp_path / "big.tex"
    big.write_bytes(b"x" * 5000)
    with pytest.raises(ValueError, match="limit"):
        read_regular(big, 4096)
    assert read_regular(big, 4096, truncate=True) == b"x" * 4096
    assert read_regular(big, 5000) == b"x" * 5000


# -- point 5: no control sequence reaches a human-readable output

CONTROL = ("\x1b", "\x9b", "\x07", "\u202e")


@pytest.mark.parametrize("fmt", ["text", "concise", "markdown", "github", "junit"])
def test_escape_sequences_are_stripped_from_every_human_format(fmt, tmp_path):
    for folder in ("paper", "p\x1b[31maper"):     # the excerpts, then a file name with an escape too
        paper = tmp_path / folder
        paper.mkdir()
        main = paper / "main.tex"
        main.write_bytes((HOSTILE / "in_escapes.tex").read_bytes())
        summary = tmp_path / f"summary-{len(folder)}.md"
        proc = run_cli("check", main, "--format", fmt, env={"GITHUB_STEP_SUMMARY": str(summary)})
        out = proc.stdout + proc.stderr + (summary.read_text() if fmt == "github" else "")
        assert proc.returncode in (0, 1) and not any(c in out for c in CONTROL), repr(out[:300])
        assert "paper" in out     # the file name is still there, without its escape
        if fmt == "text" and folder == "paper":
            assert "at the last block" in out      # the source line is still quoted, cleaned


def test_printable_removes_whole_sequences_in_linear_time():
    from camlint.safety.sanitize import printable

    assert printable("a\x1b[31mred\x1b[0m \x1b]0;title\x07b\tc\nd\x85e\u202ef") == "ared b\tc def"
    t0 = time.perf_counter()
    printable("\x1b]" * 200_000)
    fast = time.perf_counter() - t0
    t0 = time.perf_counter()
    printable("\x1b]" * 800_000)
    assert time.perf_counter() - t0 < 8 * fast + 0.5


# -- point 6: every scan is linear (ratio to plain prose, one run)

def _bench():
    spec = importlib.util.spec_from_file_location("hostile_scaling", ROOT / "bench" / "hostile_scaling.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_each_hostile_pattern_costs_linear_time_in_its_size():
    """The quadratic scans of issue 10 cost 4x per MB at 4x the size; a linear scan the same per MB.
    (Compared with itself, not with plain prose: prose got faster with the literal pre-tests, so a
    ratio to prose measures the vocabulary, not the scan.)"""
    bench = _bench()
    # a run-on sentence of method and model names is content, not markup: every word is extracted
    # (its bounded multiple is tests/test_attack_hostile.py's)
    scans = [name for name in bench.PATTERNS if not name.startswith("run-on")]
    small, large = bench.measure(32 * 1024, scans), bench.measure(128 * 1024, scans)
    growth = {name: large[name] / small[name] for name in scans}
    assert all(g < 2.0 for g in growth.values()), growth


# -- point 7: findings are capped per rule and file

def test_closing_braces_give_a_small_report(tmp_path):
    main = tmp_path / "main.tex"
    main.write_text(HEAD + "Grad-CAM on our ViT-B/16.\n" + "}" * 300_000 + "\n\\end{document}\n")
    proc = run_cli("check", main, "--format", "sarif")
    assert len(proc.stdout) < 500_000
    results = json.loads(proc.stdout)["runs"][0]["results"]
    cam004 = [r for r in results if r["ruleId"] == "CAM004"]
    assert len(cam004) <= 50
    assert any("299951 more" in r["message"]["text"] for r in cam004)


def test_cap_keeps_the_first_and_counts_the_rest():
    from camlint.rules.findings import Finding, cap_per_rule_and_file

    many = [Finding("CAM004", "malformed-latex", None, "warning", f"m{i}", "h", "a.tex", i, 1) for i in range(1, 121)]
    other = [Finding("CAM004", "malformed-latex", None, "warning", "x", "h", "b.tex", 1, 1)]
    out = cap_per_rule_and_file(many + other, limit=50)
    assert [f.message for f in out[:49]] == [f"m{i}" for i in range(1, 50)]
    assert out[49].message.startswith("71 more CAM004 findings in a.tex") and out[49].line == 50
    assert out[50:] == other


# -- point 9: wrong spec types, a tampered cache

WRONG = {"model: 5": "model must be a mapping", "layer: 2.5": "layer must be a mapping",
         "inputs: 5": "inputs must be a list"}


@pytest.mark.parametrize("line", list(WRONG), ids=list(WRONG))
def test_wrong_types_in_a_camspec_are_findings_everywhere(line, tmp_path):
    (tmp_path / "s.yaml").write_text(f"camspec: 1\nmethod: gradcam\n{line}\n")
    (tmp_path / "m.tex").write_text(HEAD + "Grad-CAM on our ViT-B/16.\n% camspec: s.yaml\n\\begin{camspec}\n"
                                    f"camspec: 1\n{line}\n\\end{{camspec}}\n\\end{{document}}\n")
    for args in (["s.yaml"], ["m.tex"], ["m.tex", "--spec", "s.yaml"]):
        proc = run_cli("check", *args, "--format", "json", cwd=tmp_path)
        assert proc.returncode == 1 and "internal error" not in proc.stderr, (args, proc.stderr)
        msgs = [f["message"] for d in _json(proc)["documents"] for f in d["findings"] if f["code"] == "CAM301"]
        assert any(WRONG[line] in m for m in msgs), (args, msgs)


@pytest.mark.parametrize("name", ["in_recursive_alias.yaml", "in_long_number.yaml"])
def test_recursive_aliases_and_huge_numbers_are_input_errors(name, tmp_path):
    proc = run_cli("check", HOSTILE / name, "--format", "json")
    assert proc.returncode == 2 and "internal error" not in proc.stderr
    err = _json(proc)["errors"][0]
    assert err["line"] == 3 and ("recursive" in err["message"] or "too long" in err["message"])
    main = tmp_path / "m.tex"
    main.write_text(HEAD + "Grad-CAM.\n\\begin{camspec}\n" + (HOSTILE / name).read_text() + "\\end{camspec}\n\\end{document}\n")
    doc = _json(run_cli("check", main, "--format", "json"))["documents"][0]
    assert any(f["code"] == "CAM305" and f["line"] == 8 for f in doc["findings"])


def test_a_tampered_cache_entry_does_not_change_the_report(tmp_path):
    from camlint.inputs.cache import _checksum

    paper = FIXTURES.parent / "examples" / "paper" / "main.tex"
    env = {"CAMLINT_CACHE_DIR": str(tmp_path)}
    cold = run_cli("check", paper, "--format", "json", env=env).stdout
    (cache,) = tmp_path.glob("parse-*.json")
    data = json.loads(cache.read_text())
    for stored in data["entries"].values():        # rewrite what the paper says, keep the shape
        for u in stored["units"]:
            u["text"] = u["text"].replace("ViT", "CNN").replace("Grad-CAM", "LIME")
    cache.write_text(json.dumps(data))
    assert run_cli("check", paper, "--format", "json", env=env).stdout == cold
    for key, stored in data["entries"].items():    # ... and re-signed without the user's key
        stored["sum"] = _checksum(b"guessed", key, stored["units"])
    cache.write_text(json.dumps(data))
    assert run_cli("check", paper, "--format", "json", env=env).stdout == cold
    for stored in data["entries"].values():        # wrong shapes
        stored["units"] = [{"kind": 5}] if len(stored["units"]) % 2 else "x"
    cache.write_text(json.dumps(data))
    assert run_cli("check", paper, "--format", "json", env=env).stdout == cold


# -- point 10: skipped files, encodings, blanket suppressions, \iffalse

def test_check_dir_reads_utf16_ltx_and_late_documentclass_and_reports_the_rest(tmp_path):
    (tmp_path / "u16.tex").write_bytes((HEAD + "Grad-CAM.\n\\end{document}\n").encode("utf-16"))
    (tmp_path / "a.ltx").write_text(HEAD + "Grad-CAM.\n\\end{document}\n")
    (tmp_path / "late.tex").write_text("%" + "x" * 70_000 + "\n" + HEAD + "Grad-CAM.\n\\end{document}\n")
    (tmp_path / "part.tex").write_text("Just a part.\n")
    (tmp_path / "flow.yaml").write_text("{camspec: 1, model: {name: vit}}\n")
    (tmp_path / "notes.yaml").write_text("title: notes\n")
    proc = run_cli("check", tmp_path, "--format", "json")
    names = sorted(Path(d["path"]).name for d in _json(proc)["documents"])
    assert {"u16.tex", "a.ltx", "late.tex"} <= set(names)
    assert "part.tex" not in proc.stderr     # terse formats list only unusual skips
    proc = run_cli("check", tmp_path, "--format", "text")
    skipped = {line.split("skipped ")[1].split(":")[0] for line in proc.stderr.splitlines() if "skipped" in line}
    assert {Path(p).name for p in skipped} | set(names) >= {"part.tex", "notes.yaml", "flow.yaml"}
    assert "part.tex: no \\documentclass" in proc.stderr


def test_one_bad_byte_does_not_turn_the_file_into_latin1():
    proc = run_cli("check", HOSTILE / "in_mixed_encoding.tex", "--format", "json")
    doc = _json(proc)["documents"][0]
    cam008 = [f for f in doc["findings"] if f["code"] == "CAM008"]
    assert len(cam008) == 1 and cam008[0]["line"] == 5 and "line 5" in cam008[0]["message"]
    from camlint.inputs.latex.source import decode_lines

    text, bad, mixed = decode_lines((HOSTILE / "in_mixed_encoding.tex").read_bytes())
    assert "Zürich" in text and "Café" in text and "Ångström" in text and bad == [5] and mixed
    assert decode_lines("Café\n".encode("latin-1"))[2] is False     # wholly latin-1: one encoding


def test_disable_all_without_a_reason_is_a_finding_and_hides_no_input_finding():
    doc = _json(run_cli("check", HOSTILE / "in_disable_all.tex", "--format", "json"))["documents"][0]
    codes = [f["code"] for f in doc["findings"]]
    assert "CAM009" in codes and "CAM002" in codes
    assert not any(s["code"].startswith("CAM0") for s in doc.get("suppressed", []))
    assert doc.get("suppressed")          # checklist findings are still hidden


def test_an_unclosed_iffalse_is_a_finding():
    doc = _json(run_cli("check", HOSTILE / "in_unclosed_iffalse.tex", "--format", "json"))["documents"][0]
    assert any(f["code"] == "CAM004" and f["line"] == 5 and "iffalse" in f["message"] for f in doc["findings"])


def test_a_30kb_suppression_comment_is_parsed_in_linear_time():
    from camlint.rules.suppress import parse_comment

    t0 = time.perf_counter()
    d = parse_comment(" camlint: disable=CAM103" + " " * 300_000 + "x!", "m.tex", 1, 1)
    assert d is None and time.perf_counter() - t0 < 1
    d = parse_comment(" camlint: disable=CAM103, missing-relu   -- given in -- the appendix", "m.tex", 1, 1)
    assert (d.kind, d.selectors, d.reason) == ("disable", ["CAM103", "missing-relu"], "given in -- the appendix")


# -- found by the hostile-input suite after the merge: links, FIFOs and raw controls elsewhere


def test_output_file_that_is_a_link_is_never_written_through(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "main.tex").write_text(HEAD + "Grad-CAM on our ViT-B/16.\n\\end{document}\n")
    (paper / "report.txt").symlink_to(outside)
    proc = run_cli("check", "main.tex", "-o", "report.txt", cwd=paper)
    assert proc.returncode == 2 and "link" in proc.stderr
    assert outside.read_text() == "keep me\n" and (paper / "report.txt").is_symlink()


def test_links_that_loop_are_input_errors_not_crashes(tmp_path):
    (tmp_path / "a.tex").symlink_to(tmp_path / "b.tex")
    (tmp_path / "b.tex").symlink_to(tmp_path / "a.tex")
    (tmp_path / "main.tex").write_text(HEAD + "Grad-CAM on our ViT-B/16.\n\\input{a}\n\\end{document}\n")
    included = run_cli("check", tmp_path / "main.tex", "--format", "json")
    assert included.returncode in (0, 1) and "internal error" not in included.stderr
    assert any(f["code"] == "CAM005" and "loops" in f["message"] for f in _json(included)["documents"][0]["findings"])
    direct = run_cli("check", tmp_path / "a.tex")
    assert direct.returncode == 2 and "loops" in direct.stderr and "internal error" not in direct.stderr


def test_a_configuration_fifo_never_blocks(tmp_path):
    os.mkfifo(tmp_path / "camlint.toml")
    (tmp_path / "main.tex").write_text(HEAD + "Grad-CAM on our ViT-B/16.\n\\end{document}\n")
    proc = run_cli("check", tmp_path / "main.tex", "--config", tmp_path / "camlint.toml")
    assert proc.returncode == 2 and "FIFO" in proc.stderr


def test_json_output_escapes_c1_controls_and_bidi_overrides(tmp_path):
    (tmp_path / "main.tex").write_text(HEAD + "Grad-CAM on our ViT-B/16 \u009b31m at the last block \u202e.\n"
                                       "\\end{document}\n", encoding="utf-8")
    proc = run_cli("check", tmp_path / "main.tex", "--format", "json")
    assert "\u009b" not in proc.stdout and "\u202e" not in proc.stdout
    assert "\\u009b" in proc.stdout                   # the evidence line is quoted, escaped
    assert json.loads(proc.stdout)["documents"]       # still valid JSON, the characters escaped
