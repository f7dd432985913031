"""Inline suppressions in LaTeX comments and x-camlint-ignore in camspec files."""
from __future__ import annotations

from conftest import doc_of, write_project

HEAD = "\\documentclass{article}\\begin{document}\\section{Saliency maps}\n"


def _doc(tmp_path, body: str, extra: dict | None = None):
    return doc_of(write_project(tmp_path, {"main.tex": HEAD + body + "\n\\end{document}\n", **(extra or {})}))


def _codes(doc):
    return [f["code"] for f in doc["findings"]]


def test_disable_next_line_with_reason(tmp_path):
    doc = _doc(tmp_path, "% camlint: disable-next-line=CAM103 -- the block is given in Table 2\n"
                         "Grad-CAM maps of our ViT-B/16 at an intermediate layer.")
    assert "CAM103" not in _codes(doc)
    sup = doc["suppressed"]
    assert [(s["code"], s["suppressed"]) for s in sup] == [("CAM103", "the block is given in Table 2")]


def test_disable_region_until_enable_across_included_files(tmp_path):
    body = ("% camlint: disable=missing-target -- target in the supplement\n"
            "Grad-CAM maps of our ViT-B/16.\n\\input{part}\n% camlint: enable=CAM105\n")
    doc = _doc(tmp_path, body, {"part.tex": "The gradient is taken for the predicted class.\n"})
    assert "CAM105" not in _codes(doc)
    assert any(s["code"] == "CAM105" and s["file"].endswith("part.tex") for s in doc["suppressed"])


def test_enable_ends_the_region(tmp_path):
    body = ("% camlint: disable=CAM105 -- x\n% camlint: enable=CAM105\n"
            "Grad-CAM maps of our ViT-B/16 for the predicted class.")
    doc = _doc(tmp_path, body)
    assert "CAM105" in _codes(doc)
    assert "CAM006" in _codes(doc)      # the disable suppressed nothing


def test_unused_and_unknown_suppressions_are_reported(tmp_path):
    doc = _doc(tmp_path, "% camlint: disable-next-line=CAM103 -- not needed\n"
                         "Grad-CAM at the last block of our ViT-B/16.\n% camlint: disable=CAM999 -- typo\n")
    found = {f["code"]: f["line"] for f in doc["findings"]}
    assert found["CAM006"] == 2 and found["CAM007"] == 4


def test_x_camlint_ignore_in_a_spec(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("x-camlint-ignore: ['CAM110 -- signed maps by design', CAM112]\nmethod: gradcam\n")
    doc = doc_of(spec)
    codes = _codes(doc)
    assert "CAM110" not in codes and "CAM112" not in codes and "CAM103" in codes
    reasons = {s["code"]: s["suppressed"] for s in doc["suppressed"]}
    assert reasons["CAM110"] == "signed maps by design"


def test_text_output_shows_the_reason(tmp_path):
    from conftest import run_cli

    main = write_project(tmp_path, {"main.tex": HEAD + "% camlint: disable-next-line=CAM103 -- in the appendix\n"
                                    "Grad-CAM of our ViT-B/16 at an intermediate layer.\n\\end{document}\n"})
    out = run_cli(main).stdout
    assert "suppressed CAM103: in the appendix" in out
