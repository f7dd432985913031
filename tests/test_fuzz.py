"""Property tests: the loader, the extractor and the YAML reader never crash on any input."""
from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from camlint.extract import extract
from camlint.latex.project import load_project
from camlint.latex.units import ParseAll, build_units
from camlint.yamlsafe import YAMLInputError, loads

TOKENS = ["\\", "{", "}", "%", "$", "$$", "&", "\\\\", "~", "\n", "\n\n", " ", "[", "]", "#", "^", "_",
          "\\begin{itemize}", "\\end{itemize}", "\\begin{table}", "\\begin{tabular}{ll}", "\\end{tabular}",
          "\\section{Saliency maps}", "\\subsection{x}", "\\item", "\\caption{", "\\footnote{",
          "\\texttt{", "\\verb|", "\\iffalse", "\\fi", "\\begin{comment}", "\\end{comment}",
          "\\begin{camspec}", "\\end{camspec}", "\\input{", "\\newcommand{\\x}{", "\\x", "\\frac{",
          "\\cite{a,b}", "\\times", "14", "×", "Grad-CAM", "ViT-B/16", "last block", "norm1",
          "[CLS]", "logit", "predicted class", "bilinear", "min-max", "ReLU", "\\appendix", "é", "\t",
          "layer: {block: 11}\n", "blocks[-1].norm1"]

latex_text = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=8)), max_size=60).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(latex_text, latex_text)
def test_loader_and_extractor_never_crash(main_text, other_text):
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "main.tex").write_text(main_text + "\\input{other}", encoding="utf-8", errors="replace")
        (root / "other.tex").write_text(other_text, encoding="utf-8", errors="replace")
        try:
            project = load_project(root / "main.tex", "main.tex")
        except ValueError:      # a main file that is binary: the documented input error
            return
        doc = build_units(project, ParseAll())
        for unit in doc.units:
            for pos in (0, len(unit.text) // 2, max(len(unit.text) - 1, 0)):
                line, col = unit.line_col(pos)
                assert 1 <= line <= unit.file.n_lines and col >= 1
        result = extract(doc)
        assert isinstance(result.uses_cam, bool)
        for evs in result.evidence.values():
            for ev in evs or []:
                assert ev.line >= 1 and ev.col >= 1


yaml_text = st.lists(st.sampled_from(["a:", " b", "\n", "  ", "- ", "[", "]", "{", "}", ",", "&x ", "*x",
                                      "!!python/object:os.system", "!tag ", "'", '"', "#", ":", "---\n",
                                      "1", "no", "null", "~", "? ", "|", ">", "\t"]), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(yaml_text)
def test_yaml_reader_only_raises_its_own_error(text):
    try:
        loaded = loads(text)
    except YAMLInputError as exc:
        assert exc.line >= 1 and exc.col >= 1
    else:
        for line, col in loaded.positions.values():
            assert line >= 1 and col >= 1
