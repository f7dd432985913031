"""Loaders speak in rules: every input problem names a registered rule object; a rule that
supersedes another is applied by the engine; severities are an enum; one containment check;
one preset applier; check/latex.analyze and config/suppress do not import each other."""
from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest

from camlint.core.severity import Severity
from camlint.inputs.latex.analyze import analyze_latex
from camlint.core.presets import OPEN, apply_preset, find_preset
from camlint.rules.registry import BY_CODE, RULES
from camlint.safety.paths import LinkLoop, resolved_inside
from camlint.verify.spec import expand_preset
from conftest import ROOT, check_json, write_project


def _codes(path, *args):
    _, data = check_json(path, *args)
    return [f["code"] for f in data["documents"][0]["findings"]]


def _spec(tmp_path, text: str):
    p = tmp_path / "camspec.yaml"
    p.write_text("camspec: 1\nmodel: vit_base_patch16_224.augreg_in21k_ft_in1k\nmethod: gradcam\n" + text,
                 encoding="utf-8")
    return p


def test_attention_without_heads_supersedes_missing_heads_even_when_disabled(tmp_path):
    spec = _spec(tmp_path, "location: F2\n")
    assert "CAM205" in _codes(spec) and "CAM109" not in _codes(spec)
    # the precise rule switched off does not bring back the vague finding it replaces
    assert not {"CAM205", "CAM109"} & set(_codes(spec, "--ignore", "CAM205"))
    # where the precise rule does not fire, the completeness rule still reports heads
    partial = _spec(tmp_path, "location: F2\nheads: {note: combined somehow}\n")
    assert "CAM109" in _codes(partial) and "CAM205" not in _codes(partial)


def test_library_without_version_supersedes_partial_implementation(tmp_path):
    spec = _spec(tmp_path, "implementation: {library: pytorch-grad-cam}\n")
    codes = _codes(spec)
    assert "CAM403" in codes and "CAM112" not in codes
    assert [r.code for r in BY_CODE["CAM403"].supersedes] == ["CAM112"]


def test_every_loader_problem_names_a_registered_rule(tmp_path):
    main = write_project(tmp_path, {
        "main.tex": "\\input{missing}\n\\input{../outside}\n\\input{a}\n% camspec: specs/s.yaml\n"
                    "\\begin{camspec}\nlayer: {block: 11\n\\end{camspec}\n\\begin{itemize}\n",
        "a.tex": "\\input{main}\n",
        "specs/s.yaml": "method: {name: gradcam, preset: no-such-preset}\nrelu: [1, 2\n"})
    a = analyze_latex(main, "main.tex", use_cache=False)
    assert {h.code for h in a.problems} >= {"CAM001", "CAM002", "CAM003", "CAM004", "CAM305"}
    assert all(any(h.rule is r for r in RULES) for h in a.problems)
    spec = write_project(tmp_path / "s", {"camspec.yaml": "method: {name: gradcam, preset: nope}\nlayer: eleven\n"})
    assert {"CAM306", "CAM301"} <= set(_codes(spec.parent / "camspec.yaml"))


def test_a_misspelt_severity_fails_where_the_rule_is_written():
    with pytest.raises(ValueError):
        dataclasses.replace(BY_CODE["CAM001"], severity="eror")
    assert all(isinstance(r.severity, Severity) for r in RULES)
    assert f"{Severity.WARNING}" == "warning" and Severity("error").rank > Severity.WARNING.rank


def test_findings_carry_severity_words(tmp_path):
    _, data = check_json(_spec(tmp_path, "location: F2\n"))
    assert {f["severity"] for f in data["documents"][0]["findings"]} <= {"error", "warning", "info"}


def test_containment_follows_links_and_names_loops(tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "ok.yaml").write_text("a: 1\n")
    (tmp_path / "secret.yaml").write_text("a: 1\n")
    os.symlink(tmp_path / "secret.yaml", tmp_path / "in" / "link.yaml")
    os.symlink(tmp_path / "in" / "loop2", tmp_path / "in" / "loop1")
    os.symlink(tmp_path / "in" / "loop1", tmp_path / "in" / "loop2")
    root = tmp_path / "in"
    assert resolved_inside(root / "ok.yaml", root) == (root / "ok.yaml").resolve()
    assert resolved_inside(root / "link.yaml", root) is None
    assert resolved_inside(root / ".." / "secret.yaml", root) is None
    with pytest.raises(LinkLoop):
        resolved_inside(root / "loop1", root)


def test_a_linked_camspec_that_loops_is_unreadable_input(tmp_path):
    main = write_project(tmp_path, {"main.tex": "% camspec: loop1\nText.\n"})
    os.symlink(tmp_path / "loop2", tmp_path / "loop1")
    os.symlink(tmp_path / "loop1", tmp_path / "loop2")
    a = analyze_latex(main, "main.tex", use_cache=False)
    assert [(h.code, h.line) for h in a.problems] == [("CAM005", 1)]


def test_one_preset_applier_fills_open_keys_lint_and_verify_alike():
    preset = find_preset("pytorch-grad-cam-vit")
    stated = {"method": {"name": "gradcam", "preset": preset.name}, "postprocess": {"normalize": "max"}}
    lint = dict(stated)
    filled = apply_preset(preset, lint, OPEN)
    assert "postprocess" in filled and lint["postprocess"] == preset.fixes["postprocess"]
    assert lint["layer"] == {"block": -1} and "layer" in filled
    verify = expand_preset(stated)       # verify executes a stated (partial) value as stated
    assert verify["postprocess"] == {"normalize": "max"} and verify["layer"] == {"block": -1}
    assert verify["_preset"] == preset.name
    # a value of the wrong type is left for the spec checks to report, not judged
    assert expand_preset({**stated, "target": 5})["target"] == 5


@pytest.mark.parametrize("module, absent", [("camlint.inputs.latex.analyze", "camlint.check"),
                                            ("camlint.rules.suppress", "camlint.cli.config"),
                                            ("camlint.cli.config", "camlint.rules.suppress")])
def test_former_import_cycles_are_gone(module, absent):
    out = subprocess.run([sys.executable, "-c", f"import sys, {module}; print({absent!r} in sys.modules)"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.strip() == "False", out.stderr
