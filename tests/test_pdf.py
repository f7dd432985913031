"""The PDF front end on real PDFs (built with fpdf2 by fixtures/pdf/make_pdfs.py, no LaTeX)."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from conftest import FIXTURES, ROOT, check_json, doc_of, invoke, statuses

from camlint.inputs.pdf import analyze_pdf
from camlint.inputs.pdflayout import read_pages

PAPER = FIXTURES / "pdf" / "two_column.pdf"
SCANNED = FIXTURES / "pdf" / "scanned.pdf"


def _generator():
    spec = importlib.util.spec_from_file_location("make_pdfs", FIXTURES / "pdf" / "make_pdfs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def paper():
    return analyze_pdf(PAPER, "two_column.pdf")


def _sentences(a) -> list[str]:
    return [s.text for s in a.prose.sentences]


def test_two_columns_are_read_in_order_even_when_the_stream_interleaves_them(paper):
    # the fixture writes row by row (left, right, left, ...): stream order is not reading order
    text = " ".join(_sentences(paper))
    assert ("We compute Grad-CAM at the output of the LayerNorm before attention in the last block, "
            "i.e. target_layers = [model.blocks[-1].norm1].") in text
    assert text.index("The classifier is") < text.index("The [CLS] token") < text.index("version 1.5.4")


def test_line_end_hyphens_joined_and_compounds_kept(paper):
    text = " ".join(_sentences(paper))
    assert "the adaptation to the token sequence" in text
    assert "tool for convolutional networks" in text
    assert "We compare class-activation maps" in text          # a compound: the hyphen stays


def test_ligatures_minus_and_math_mapped(paper):
    text = " ".join(_sentences(paper))
    assert "fine-tuned on our data" in text and "ﬁ" not in text
    every_line = paper.prose.sentences[0].unit.file.text      # the virtual file: all lines, mapped
    assert "The flow of gradients is checked first." in every_line and "ﬂ" not in every_line
    assert "blocks[-1].norm1" in text                         # U+2212 minus -> '-'
    assert "∂y/∂A" in text and "∑ α ⊙ A" in text
    assert "14 × 14" in every_line and "14×14" in text       # the grid as printed; unified for matching


def test_identifiers_keep_underscores_latex_draws_as_rules(paper):
    # pdftotext prints `vit base patch16 224...` here: the underscores are drawn rules
    assert paper.values["model"]["weights"] == "vit_base_patch16_224.augreg2_in21k_ft_in1k"


def test_headings_make_the_same_sections_as_latex(paper):
    roles = {s.section.title: s.section.role for s in paper.prose.sentences}
    assert roles["Abstract"] == "abstract"
    assert roles["Introduction"] == "introduction"
    assert roles["Method"] == "method"
    assert roles["Experiments"] == "experiments"
    assert roles["Implementation details"] == "appendix"     # `A Implementation details`
    headings = [s.text for s in paper.prose.sentences if s.unit.kind == "heading"]
    assert headings == ["Introduction", "Method", "Experiments", "Conclusion", "References",
                        "Implementation details"]


def test_captions_footnotes_running_heads_and_page_numbers_told_apart(paper):
    kinds = {s.text: (s.unit.kind, s.unit.float_env) for s in paper.prose.sentences}
    assert kinds["Figure 1: Grad-CAM maps of the last block."] == ("caption", "figure")
    assert kinds["1 Code and weights: https://example.org/vit-cam."] == ("footnote", "")
    text = " ".join(kinds)
    assert "(preprint)" not in text                          # running head
    assert "Ada Lovelace" not in text                        # authors, as \author in LaTeX
    assert not any(t.strip() in ("1", "2") for t in kinds)   # page numbers


def test_references_become_the_bibliography_and_citations_point_into_it(paper):
    bib = paper.prose.bibliography
    assert bib["1"].startswith("R. R. Selvaraju et al. Grad-CAM: Visual explanations from deep networks")
    cited = [s for s in paper.prose.sentences if s.cites()]
    assert ("1", "2") in [s.cites() for s in cited]
    assert not any(s.section.role == "references" and s.unit.kind != "heading" for s in paper.prose.sentences)


def test_report_evidence_says_page_and_line_on_that_page():
    code, data = check_json(PAPER)
    doc = data["documents"][0]
    assert doc["kind"] == "pdf"
    assert statuses(doc)["implementation"] == "reported"
    pages = read_pages(PAPER.read_bytes())
    for key, said in (("implementation", "pytorch-grad-cam"), ("model", "vit_base_patch16_224"),
                      ("tokens", "[CLS]")):
        ev = doc["checklist"][key]["evidence"][0]
        assert ev["page"] == 1
        line = pages[ev["page"] - 1].lines[ev["line"] - 1].text     # line L of page N, reading order
        assert said in line, (key, ev, line)
    assert all("page" in f for f in doc["findings"] if f["file"].endswith(".pdf"))


def test_text_markdown_and_sarif_show_the_page(tmp_path):
    from fpdf import FPDF

    pdf = FPDF(unit="pt", format="A4")      # a short paper that leaves most items open: findings
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.text(72, 100, "1 Method")
    pdf.text(72, 120, "We explain our ViT-B/16 classifier with Grad-CAM on the last block.")
    pdf.output(str(tmp_path / "short.pdf"))
    text = invoke("check", tmp_path / "short.pdf", "--format", "concise").output
    assert "page 1 line" in text
    md = invoke("check", tmp_path / "short.pdf", "--format", "markdown").output
    assert "short.pdf page 1 line" in md or "page 1 line" in md
    sarif = json.loads(invoke("check", tmp_path / "short.pdf", "--format", "sarif").stdout)
    results = sarif["runs"][0]["results"]
    assert results and all(r["properties"]["page"] >= 1 for r in results)


def test_scanned_pdf_gets_a_clear_finding_not_an_empty_report():
    doc = doc_of(SCANNED)
    msgs = [f for f in doc["findings"] if f["code"] == "CAM005"]
    assert msgs and "no text layer" in msgs[0]["message"]


def test_a_pdf_built_now_with_core_fonts_reads_the_same(tmp_path):
    path = _generator().build_paper(tmp_path / "core.pdf", unicode_fonts=False)
    doc = doc_of(path)
    st = statuses(doc)
    assert st["model"] == st["layer"] == st["location"] == st["tokens"] == "reported"
    assert doc["checklist"]["model"]["value"]["weights"] == "vit_base_patch16_224.augreg2_in21k_ft_in1k"


def test_damaged_pdf_is_a_clear_input_error(tmp_path):
    bad = tmp_path / "broken.pdf"
    bad.write_bytes(b"%PDF-1.4\n this is not really a pdf")
    result = invoke("check", bad)
    assert result.exit_code == 2
    assert "broken.pdf" in result.output and "not a readable PDF" in result.output


def test_checking_latex_does_not_import_the_pdf_library():
    probe = ("import sys\nfrom camlint.cli.main import main\ntry:\n"
             f"    main(['check', {str(ROOT / 'examples' / 'paper' / 'main.tex')!r}], standalone_mode=False)\n"
             "except SystemExit:\n    pass\nprint('PDFIUM', 'pypdfium2' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "PDFIUM False"
