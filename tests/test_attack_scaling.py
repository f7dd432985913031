"""Super-linear rules found by the attack pass of 5 Dec: each test fails on the code before its fix.

A manuscript of many short sections, each naming the block its maps come from
("\\section{S} Grad-CAM at layer 11."), cost 4 s at 15 KB and 34 s at 62 KB: CAM211 read every
sentence of the paper once per layer mention (does the paper count from one?) and compared every
statement with every earlier one."""
from __future__ import annotations

import time

import pytest

from camlint.inputs.latex.analyze import analyze_latex
from camlint.rules.conflicts import check_conflicting_block

HEAD = "\\documentclass{article}\n\\begin{document}\nWe use Grad-CAM on ViT-B/16.\n"


def _analysis(tmp_path, n: int):
    main = tmp_path / f"main{n}.tex"
    main.write_text(HEAD + "\\section{S}\nGrad-CAM layer 11.\n" * n + "\\end{document}\n")
    return analyze_latex(main, main.name, use_cache=False)


def _in_scope_calls(a, monkeypatch) -> int:
    calls = [0]
    scope = a.prose.scope
    real = type(scope).in_scope

    def counting(self, *args, **kw):
        calls[0] += 1
        return real(self, *args, **kw)

    monkeypatch.setattr(type(scope), "in_scope", counting)
    list(check_conflicting_block(a))
    monkeypatch.undo()
    return calls[0]


def test_the_one_based_question_is_asked_once_per_document(tmp_path, monkeypatch):
    small, large = _analysis(tmp_path, 150), _analysis(tmp_path, 600)
    assert len(large.prose.mentions["layer"]) >= 600
    growth = _in_scope_calls(large, monkeypatch) / max(1, _in_scope_calls(small, monkeypatch))
    assert growth < 6, growth            # 16 when every mention scanned every sentence


def test_agreeing_statements_are_compared_in_linear_time(tmp_path):
    def cost(a) -> float:
        t0 = time.process_time()
        assert list(check_conflicting_block(a)) == []
        return time.process_time() - t0

    small, large = _analysis(tmp_path, 500), _analysis(tmp_path, 2000)
    cost(small)                           # warm the vocabulary
    assert cost(large) < 8 * cost(small) + 0.3


def test_the_first_conflict_is_still_the_one_reported(tmp_path):
    main = tmp_path / "main.tex"
    main.write_text(HEAD + "\\section{A}\nGrad-CAM maps at blocks[11].\n"
                    + "\\section{B}\nGrad-CAM maps at blocks[11].\n" * 5
                    + "\\section{C}\nGrad-CAM maps at blocks[5].\n\\section{D}\nGrad-CAM maps at blocks[3].\n"
                    + "\\end{document}\n")
    (hit,) = check_conflicting_block(analyze_latex(main, "main.tex", use_cache=False))
    assert "blocks[5]" in hit.message and "main.tex:5" in hit.message and hit.line == 17, hit


def test_a_camspec_file_named_by_many_comments_is_read_once(tmp_path, monkeypatch):
    """200 `% camspec: s.yaml` comments naming one 400 KB spec parsed it 200 times (35 s)."""
    import camlint.inputs.latex.analyze as analyze

    (tmp_path / "s.yaml").write_text("camspec: 1\nlayer: {block: 11}\nx-note: a\n")
    (tmp_path / "sub").mkdir()
    main = tmp_path / "main.tex"
    main.write_text("\\documentclass{article}\n" + "% camspec: s.yaml\n" * 50 + "% camspec: sub/../s.yaml\n"
                    + "\\begin{document}\nGrad-CAM on ViT-B/16.\n\\end{document}\n")
    reads = []
    real = analyze.load_file
    monkeypatch.setattr(analyze, "load_file", lambda path, **kw: reads.append(path) or real(path, **kw))
    a = analyze_latex(main, "main.tex", use_cache=False)
    assert len(reads) == 1 and len(a.specs) == 1
    assert a.values.get("layer") == {"block": 11}


@pytest.mark.parametrize("unit", ["@a{", "\\bibitem[", "@a{x@b{", "\\addbibresource["])
def test_bibliography_patterns_scan_in_linear_time(unit):
    """A .bib of "@a{" repeated (240 KB) took 111 s: the key pattern ran from every entry start to
    the end of the file. \\bibitem labels and keys are bounded the same way."""
    from camlint.inputs.latex.bibliography import _BIBITEM, parse_bib
    from camlint.inputs.latex.project import _BIB

    def cost(n: int) -> float:
        t0 = time.process_time()
        parse_bib(unit * n)
        list(_BIBITEM.finditer(unit * n))
        list(_BIB.finditer(unit * n))
        return time.process_time() - t0

    cost(1000)
    assert cost(40_000) < 8 * cost(10_000) + 0.2
    assert parse_bib("@article{k1, title={A {ViT} study}}\n@misc{k:2,title=\"B\"}") == {"k1": "A ViT study", "k:2": "B"}


def test_a_blank_line_of_spaces_in_a_code_block_is_read_in_linear_time(tmp_path):
    """A 200 KB line of spaces in a listing took 190 s: the code-line pattern `[^\\n]*\\S[^\\n]*`
    backtracked over the whole line from each of its positions."""
    from camlint.inputs.markdown import analyze_markdown

    def cost(n: int) -> float:
        path = tmp_path / f"r{n}.md"
        path.write_text("# Method\n\nWe use Grad-CAM on ViT-B/16.\n\n```python\ncam = GradCAM(model)\n"
                        + " " * n + "\nupsample = 'bilinear'\n```\n")
        t0 = time.process_time()
        analyze_markdown(path, path.name)
        return time.process_time() - t0

    cost(1000)
    assert cost(40_000) < 8 * cost(10_000) + 0.3
