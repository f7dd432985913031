"""camspec blocks in a manuscript, linked supplements, --spec, and presets."""
from __future__ import annotations

from conftest import FIXTURES, check_json, doc_of, statuses, write_project

PAPER = r"""\documentclass{article}
\begin{document}
\section{Saliency maps}
We compute Grad-CAM maps of our ViT-B/16 at the last block.
\begin{camspec}
location: F1
target: {kind: logit, class: predicted}
layer: {block: eleven}
\end{camspec}
\end{document}
"""


def test_camspec_block_values_count_with_tex_positions(tmp_path):
    doc = doc_of(write_project(tmp_path, {"main.tex": PAPER}))
    assert doc["checklist"]["location"]["status"] == "reported"
    ev = doc["checklist"]["target"]["evidence"][0]
    assert (ev["file"].endswith("main.tex"), ev["line"]) == (True, 7)
    bad = [f for f in doc["findings"] if f["code"] == "CAM301"]
    assert [(f["line"], f["col"]) for f in bad] == [(8, 9)] and "'eleven'" in bad[0]["message"]
    # the prose still reports the layer, the malformed block value does not erase it
    assert doc["checklist"]["layer"]["status"] == "reported"


def test_spec_option_combines_manuscript_and_supplement(tmp_path):
    main = write_project(tmp_path, {"main.tex": PAPER.replace("layer: {block: eleven}\n", "")})
    supplement = FIXTURES / "specs" / "vit-b16-pgc-complete.yaml"
    code, data = check_json(main, "--spec", supplement)
    doc = data["documents"][0]
    assert set(statuses(doc).values()) <= {"reported", "not_applicable"}
    assert doc["checklist"]["implementation"]["evidence"][0]["file"].endswith("vit-b16-pgc-complete.yaml")
    assert doc["checklist"]["location"]["evidence"][0]["file"].endswith("main.tex")


def test_linked_supplement_comment():
    doc = doc_of(FIXTURES / "manuscripts" / "m07_camspec_link" / "main.tex")
    assert doc["checklist"]["weighting"]["status"] == "reported"
    assert doc["checklist"]["weighting"]["evidence"][0]["file"].endswith("supplement.yaml")


def test_spec_preset_fixes_its_keys(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("model: {arch: vit_base_patch16_224, weights: augreg2_in21k_ft_in1k}\n"
                    "method: {name: gradcam, preset: pytorch-grad-cam-vit}\n")
    doc = doc_of(spec)
    assert doc["checklist"]["location"]["value"] == "F1"
    assert doc["checklist"]["layer"]["status"] == "reported"
    assert doc["checklist"]["layer"]["evidence"][0]["line"] == 2


def test_unknown_preset_is_a_finding(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("method: {name: gradcam, preset: pytorch-gradcam-vit}\n")
    doc = doc_of(spec)
    assert any(f["code"] == "CAM306" and f["line"] == 1 for f in doc["findings"])
