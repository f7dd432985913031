"""The document model: what counts as text, and how LaTeX becomes readable sentences."""
from __future__ import annotations

from camlint.inputs.latex.project import load_project
from camlint.inputs.latex.document import ParseAll, build_units
from conftest import write_project


def _units(tmp_path, body: str, preamble: str = ""):
    main = write_project(tmp_path, {"main.tex": f"\\documentclass{{article}}\n{preamble}\n"
                                                f"\\begin{{document}}\n{body}\n\\end{{document}}\n"})
    return build_units(load_project(main, "main.tex"), ParseAll())


def _text(doc) -> str:
    return " || ".join(u.text for u in doc.units)


def test_comments_iffalse_and_comment_env_are_not_text(tmp_path):
    doc = _units(tmp_path, "visible % hidden1\n\\iffalse hidden2 \\fi\n\\begin{comment}\nhidden3\n"
                           "\\end{comment}\n50\\% kept")
    text = _text(doc)
    assert "visible" in text and "50% kept" in text
    assert not any(h in text for h in ("hidden1", "hidden2", "hidden3"))


def test_sections_appendix_and_roles(tmp_path):
    doc = _units(tmp_path, "\\section{Related Work}\nx\n\\section{Method}\n\\subsection{Saliency}\ny\n"
                           "\\appendix\n\\section{Details}\nz")
    roles = [(s.title, s.role) for s in doc.sections if s.title]
    assert roles == [("Related Work", "related"), ("Method", "method"), ("Saliency", "method"),
                     ("Details", "appendix")]


def test_captions_footnotes_table_rows_and_code(tmp_path):
    doc = _units(tmp_path, "A sentence\\footnote{In a footnote.} goes on.\n\n"
                           "\\begin{table}\\begin{tabular}{ll}Target & \\texttt{blocks[11].norm1} \\\\ "
                           "Grid & $14\\times14$ \\end{tabular}\\caption{Config.}\\end{table}\n\n"
                           "Inline \\verb|model.blocks[-1]| code.")
    kinds = {(u.kind, u.text.strip()) for u in doc.units}
    assert ("footnote", "In a footnote.") in kinds
    assert ("caption", "Config.") in kinds
    rows = [u.text for u in doc.units if u.kind == "row"]
    assert any("blocks[11].norm1" in r and "|" in r for r in rows)
    assert any("14×14" in r for r in rows)
    assert any("model.blocks[-1]" in u.text for u in doc.units)


def test_math_becomes_readable(tmp_path):
    doc = _units(tmp_path, "$\\alpha^c_k=\\frac{1}{Z}\\sum_i \\partial y^c/\\partial A^k_i$ and "
                           "$\\mathrm{ReLU}\\big(\\sum_k \\alpha_k A^k\\big)$ on $14\\times 14$.")
    text = _text(doc)
    assert "α^c_k=(1)/(Z)Σ_i ∂y^c/∂A^k_i" in text
    assert "ReLU(Σ_k α_k A^k)" in text and "14×14" in text


def test_simple_macros_are_expanded(tmp_path):
    doc = _units(tmp_path, "We use \\vit{} and \\cls.", preamble="\\newcommand{\\vit}{ViT-B/16}\n"
                 "\\newcommand{\\cls}{\\texttt{[CLS]}}\n\\newcommand{\\arg}[1]{#1}")
    assert "We use ViT-B/16 and [CLS]." in _text(doc)


def test_citations_are_kept_with_their_keys(tmp_path):
    doc = _units(tmp_path, "Grad-CAM~\\cite{selvaraju2017, other} works.")
    unit = next(u for u in doc.units if "Grad-CAM" in u.text)
    assert unit.cites and unit.cites[0].keys == ("selvaraju2017", "other")


def test_camspec_environment_is_a_code_unit(tmp_path):
    doc = _units(tmp_path, "\\begin{camspec}\nlayer: {block: 11} % not a comment\n\\end{camspec}")
    code = [u for u in doc.units if u.kind == "code"]
    assert len(code) == 1 and "% not a comment" in code[0].text


def test_unclosed_environment_and_stray_end_are_findings_but_text_is_read(tmp_path):
    doc = _units(tmp_path, "\\begin{itemize}\n\\item first {unbalanced\n\\end{enumerate}\nlater text")
    codes = [(p.code, p.line) for p in doc.problems]
    assert ("CAM004", 4) in codes        # \\begin{itemize} never closed
    assert ("CAM004", 6) in codes        # stray \\end{enumerate}
    assert ("CAM004", 5) in codes        # unbalanced brace
    assert "later text" in _text(doc) and "first" in _text(doc)


def test_macros_with_arguments_from_an_included_file(tmp_path):
    main = write_project(tmp_path, {
        "defs.tex": "\\newcommand{\\blk}[1]{block~#1}\n\\def\\grid#1#2{$#1\\times#2$}\n"
                    "\\DeclareRobustCommand{\\tok}{\\texttt{[CLS]}\\xspace}\n",
        "main.tex": "\\documentclass{article}\n\\input{defs}\n\\begin{document}\n"
                    "Maps come from \\blk{11}.\nThe \\tok token goes, the rest fills a \\grid{14}{14} grid.\n"
                    "\\end{document}\n"})
    doc = build_units(load_project(main, "main.tex"), ParseAll())
    text = _text(doc)
    assert "block 11" in text and "[CLS] token" in text and "14×14 grid" in text
    unit = next(u for u in doc.units if "14×14" in u.text)
    assert unit.line_col(unit.text.index("14×14"))[0] == 5     # evidence stays on the author's line


def test_nested_argument_macros_stay_bounded(tmp_path):
    body = "\\rep{" * 40 + "x" + "}" * 40
    doc = _units(tmp_path, body, preamble="\\newcommand{\\rep}[1]{#1#1#1#1}")
    assert sum(len(u.text) for u in doc.units) < 5000


def test_normalisation_keeps_evidence_lines(tmp_path):
    from camlint.extract.normalize import normalise

    doc = _units(tmp_path, "The one hundred and ninety-six tokens\nform a fourteen-by-fourteen grid.")
    sentence = normalise(next(iter(doc.sentences())))
    assert "196 tokens" in sentence.text and "14×14 grid" in sentence.text
    assert sentence.line_col(sentence.text.index("196"))[0] == 4
    assert sentence.line_col(sentence.text.index("14×14"))[0] == 5


def test_abbreviations_end_no_sentence(tmp_path):
    doc = _units(tmp_path, "Maps follow Selvaraju et al. Their method, cf. Fig. 3 and Eq. 2, is used. "
                           "No. 5 is last. Then we stop.")
    assert [s.text.strip() for s in doc.sentences()] == [
        "Maps follow Selvaraju et al. Their method, cf. Fig. 3 and Eq. 2, is used.", "No. 5 is last.",
        "Then we stop."]


def test_subsections_take_their_sections_framing_role(tmp_path):
    doc = _units(tmp_path, "\\begin{abstract}\nWe explain.\n\\end{abstract}\nAfter.\n"
                           "\\section{Background}\n\\subsection{Grad-CAM}\nx\n\\subsection{Notes}\ny\n"
                           "\\section{Experiments}\n\\subsection{Notes}\nz\n\\paragraph{Deep}\nw")
    roles = [(s.title, s.top_title, s.role) for s in doc.sections]
    assert roles == [("", "", "front"), ("Abstract", "Abstract", "abstract"), ("", "", "front"),
                     ("Background", "Background", "related"), ("Grad-CAM", "Background", "related"),
                     ("Notes", "Background", "related"), ("Experiments", "Experiments", "experiments"),
                     ("Notes", "Experiments", "experiments")]
    deep = next(u for u in doc.units if u.kind == "heading" and u.text == "Deep")
    assert deep.section.title == "Notes" and deep.section.top_title == "Experiments"
