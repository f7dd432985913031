"""Where a finding points and what its hint says (issue 12, item 7): a missing item is reported
at the paper's CAM method section, where the author has to write it (not the title, the abstract
or a related-work mention of Grad-CAM), and its hint speaks of the paper's own model."""
from __future__ import annotations

from conftest import FIXTURES, doc_of, invoke, write_project

SWIN = FIXTURES / "pointing" / "swin_stages" / "main.tex"
VITL = FIXTURES / "pointing" / "vitl14_336" / "main.tex"


def _line_of(path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _hints(doc) -> dict[str, str]:
    return {f["code"]: f["hint"] for f in doc["findings"] if f["code"].startswith("CAM1")}


def test_missing_items_point_at_the_cam_method_section_not_title_abstract_or_related_work():
    doc = doc_of(SWIN)
    missing = [f for f in doc["findings"] if f["code"].startswith("CAM1") and f["severity"] == "error"]
    assert {f["code"] for f in missing} >= {"CAM104", "CAM108", "CAM111"}
    method_line = _line_of(SWIN, "We compute Grad-CAM maps for every test photograph")
    assert {(f["line"], f["section"]) for f in missing} == {(method_line, "Explaining the classifier")}


def test_a_method_section_in_an_included_file_is_where_findings_point():
    doc = doc_of(VITL)
    missing = [f for f in doc["findings"] if f["severity"] == "error" and f["code"].startswith("CAM1")]
    method = VITL.parent / "sections" / "method.tex"
    assert missing and all(f["file"].endswith("sections/method.tex") for f in missing)
    assert {f["line"] for f in missing} == {_line_of(method, "Saliency maps are computed with Grad-CAM")}


def test_the_procedure_section_is_the_one_holding_the_settings_not_an_essay_on_heatmaps(tmp_path):
    main = write_project(tmp_path, {"main.tex": r"""\documentclass{article}
\begin{document}
\section{Reading the classifier}
To see where the classifier looks we rely on Grad-CAM on our ViT-B/16, taken at the last block,
for the predicted class.
\section{What sort of evidence is a heatmap?}
A heatmap is not a record of where a connoisseur looked; it is a construction.
\end{document}
"""})
    doc = doc_of(main)
    lines = {f["line"] for f in doc["findings"] if f["code"].startswith("CAM1") and f["severity"] == "error"}
    assert lines == {4}


def test_a_markdown_paper_points_at_its_method_heading_section(tmp_path):
    path = tmp_path / "paper.md"
    path.write_text("# Grad-CAM for plankton\n\nWe explain a ViT-B/16 with Grad-CAM.\n\n## Related work\n\n"
                    "Grad-CAM on ViTs is often taken at blocks[-1].norm1.\n\n## Method\n\n"
                    "Grad-CAM maps are computed at the last block for the predicted class.\n")
    doc = doc_of(path)
    lines = {f["line"] for f in doc["findings"] if f["code"].startswith("CAM1") and f["severity"] == "error"}
    assert lines == {11}


def test_swin_hints_speak_of_stages_and_the_stage_map():
    hints = _hints(doc_of(SWIN))
    for code, hint in hints.items():
        assert "[CLS]" not in hint and "blocks[-1]" not in hint and "14 x 14" not in hint, (code, hint)
    assert "layers[3].blocks[1].norm1" in hints["CAM104"] and "7 x 7 at stage 4" in hints["CAM104"]
    assert "49 positions of the stage's 7 x 7 map" in hints["CAM108"]
    assert "stage's 7 x 7 map" in hints["CAM111"] and "224 x 224" in hints["CAM111"]


def test_vit_large_at_336_hints_use_its_grid_depth_and_heads():
    hints = _hints(doc_of(VITL))
    assert "24 blocks" in hints["CAM103"] and "blocks[23]" in hints["CAM103"]
    assert "blocks[23].norm1" in hints["CAM104"] and "(16 heads)" in hints["CAM104"]
    assert "577 tokens at 336 px" in hints["CAM106"]
    assert "336 px / patch 14 = 24 x 24 (576 patch tokens)" in hints["CAM107"]
    assert all("14 x 14" not in h and "blocks[11]" not in h and "197" not in h for h in hints.values())


def test_hints_in_the_text_output_too():
    out = invoke("check", str(VITL), "--format", "text").output
    assert "blocks[23].norm1" in " ".join(out.split()) and "24 x 24" in out


def _one(tmp_path, sentence: str) -> dict[str, str]:
    body = f"\\documentclass{{article}}\n\\begin{{document}}\n\\section{{Method}}\n{sentence}\n\\end{{document}}\n"
    return _hints(doc_of(write_project(tmp_path, {"main.tex": body})))


def test_distilled_deit_hints_name_the_distillation_token(tmp_path):
    hints = _one(tmp_path, r"We explain \texttt{deit\_base\_distilled\_patch16\_224} with Grad-CAM for the "
                           "predicted class.")
    assert "198 tokens" in hints["CAM106"] and "[CLS] and the distillation token" in hints["CAM106"]


def test_dinov2_with_registers_hints_name_the_register_tokens_and_its_grid(tmp_path):
    hints = _one(tmp_path, r"We use the DINOv2 ViT-S/14 with registers released by Meta at $224\times224$ "
                           "pixels and explain a linear probe with Grad-CAM for the predicted class.")
    assert "[CLS] and the 4 register tokens" in hints["CAM106"] and "261 tokens" in hints["CAM106"]
    assert "224 px / patch 14 = 16 x 16" in hints["CAM107"]


def test_a_huggingface_model_gets_huggingface_module_names(tmp_path):
    hints = _one(tmp_path, r"We fine-tune \texttt{google/vit-base-patch16-224} from the HuggingFace hub and "
                           "explain it with Grad-CAM for the predicted class.")
    assert "vit.encoder.layer.11.layernorm_before" in hints["CAM104"]
    assert "blocks[" not in hints["CAM104"] and "vit.encoder.layer.11" in hints["CAM103"]


def test_a_text_without_headings_points_at_the_paragraph_that_describes_the_maps(tmp_path):
    path = tmp_path / "paper.txt"
    path.write_text("Grad-CAM for ViT-based plankton classification\n\n"
                    "We classify plankton with a ViT-B/16 and explain it with Grad-CAM.\n\n"
                    "We collected 10,000 images from three cruises.\n\n"
                    "Maps are computed with Grad-CAM at the last block of the ViT-B/16,\n"
                    "for the predicted class; the [CLS] token is dropped before the reshape.\n")
    doc = doc_of(path)
    lines = {f["line"] for f in doc["findings"] if f["code"].startswith("CAM1") and f["severity"] == "error"}
    assert lines == {7}
