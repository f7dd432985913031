"""Codes that moved into another rule (CAM207 -> CAM602 degenerate-map), redirected the way ruff
redirects renamed rules: selectors and suppressions naming the old code still apply to the new
rule, with a warning, and `camlint explain OLD` says where it went."""
from __future__ import annotations

import json

from conftest import doc_of, invoke, run_cli, write_project

# A degenerate map, not an inconsistency: the last block of a [CLS]/distillation-pooled DeiT, at
# the block output, both prefix tokens dropped, so every patch-token gradient is exactly zero.
DEIT = r"""\documentclass{article}
\begin{document}
\title{Where the distilled transformer looks}
\maketitle
\begin{abstract}
We explain a distilled DeiT-B with Grad-CAM++.
\end{abstract}
\section{Explanation procedure}
%s
We explain deit_base_distilled_patch16_224 (timm) with Grad-CAM++. Activations are taken at the
block output (F6) of the last of its 12 blocks; the class and distillation tokens are discarded
before the 196 patch tokens are reshaped to a 14 x 14 grid.
\end{document}
"""


def _codes(doc) -> list[str]:
    return [f["code"] for f in doc["findings"]]


def test_a_degenerate_map_predicted_from_the_architecture_is_cam602_not_a_consistency_finding(tmp_path):
    doc = doc_of(write_project(tmp_path, {"main.tex": DEIT % ""}))
    found = [f for f in doc["findings"] if f["code"] == "CAM602"]
    assert len(found) == 1 and found[0]["name"] == "degenerate-map" and found[0]["line"] == 11
    assert "exactly zero" in found[0]["message"]
    assert not [c for c in _codes(doc) if c.startswith("CAM2")]


def test_a_suppression_naming_the_old_code_still_applies_with_a_note(tmp_path):
    doc = doc_of(write_project(tmp_path, {"main.tex": DEIT % "% camlint: disable=CAM207 -- maps from block 10"}))
    assert [(s["code"], s["suppressed"]) for s in doc["suppressed"]] == [("CAM602", "maps from block 10")]
    notes = [f for f in doc["findings"] if f["code"] == "CAM010"]
    assert len(notes) == 1 and notes[0]["line"] == 9 and notes[0]["severity"] == "warning"
    assert "CAM207" in notes[0]["message"] and "now CAM602 (degenerate-map)" in notes[0]["message"]
    assert "CAM006" not in _codes(doc)            # it did suppress something


def test_a_suppression_by_the_old_name_and_by_the_new_code(tmp_path):
    by_name = doc_of(write_project(tmp_path / "a", {"main.tex": DEIT % "% camlint: disable=zero-gradient-location -- x"}))
    assert [s["code"] for s in by_name["suppressed"]] == ["CAM602"] and "CAM010" in _codes(by_name)
    new = doc_of(write_project(tmp_path / "b", {"main.tex": DEIT % "% camlint: disable=CAM602 -- x"}))
    assert [s["code"] for s in new["suppressed"]] == ["CAM602"] and "CAM010" not in _codes(new)


def test_config_selectors_naming_the_old_code_apply_to_the_new_one_with_a_warning(tmp_path):
    main = write_project(tmp_path, {"main.tex": DEIT % "", ".camlint.toml": 'ignore = ["CAM207"]\n'
                                    '[severity]\nzero-gradient-location = "warning"\n'})
    proc = run_cli("check", main, "--format", "json")
    doc = json.loads(proc.stdout)["documents"][0]
    assert "CAM602" not in _codes(doc)
    assert "camlint: warning:" in proc.stderr and ".camlint.toml: ignore: 'CAM207' names CAM207, which is now " \
        "CAM602 (degenerate-map)" in proc.stderr
    (tmp_path / ".camlint.toml").write_text('[severity]\nCAM207 = "warning"\n')
    proc = run_cli("check", main, "--format", "json")
    found = [f for f in json.loads(proc.stdout)["documents"][0]["findings"] if f["code"] == "CAM602"]
    assert [f["severity"] for f in found] == ["warning"] and "severity: 'CAM207'" in proc.stderr


def test_command_line_selectors_naming_the_old_code(tmp_path):
    main = write_project(tmp_path, {"main.tex": DEIT % ""})
    proc = run_cli("check", main, "--format", "json", "--select", "CAM207")
    assert [f["code"] for f in json.loads(proc.stdout)["documents"][0]["findings"]] == ["CAM602"]
    assert proc.stderr.count("--select: 'CAM207' names CAM207") == 1
    # a prefix names today's codes only: CAM2 no longer selects the moved rule
    proc = run_cli("check", main, "--format", "json", "--select", "CAM2")
    assert json.loads(proc.stdout)["documents"][0]["findings"] == [] and "warning" not in proc.stderr


def test_explain_says_where_the_old_code_went():
    out = invoke("explain", "CAM207").output
    assert out.startswith("# CAM207 zero-gradient-location: now CAM602 degenerate-map")
    assert "\n# CAM602 degenerate-map\n" in out
    assert invoke("explain", "zero-gradient-location").output == out
    assert invoke("explain", "CAM208").output.startswith("# CAM208 ")     # other codes unchanged
