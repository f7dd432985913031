"""RunWalker (plain text read in runs) gives exactly pylatexenc's own nodes."""
from __future__ import annotations

import random

from pylatexenc import latexwalker as lw

from camlint.inputs.latex.convert import latex_context
from camlint.inputs.latex.walker import RunWalker

PIECES = list("ab \n\t\r{}[]$%\\&~-'`!?*#^_") + [
    "\n\n", "\u00a0", "\x1c", " \n ", "\r\n", "\\cite{x}", "\\begin{itemize}", "\\end{itemize}",
    "\\item", "\\frac12", "\\textbf", "\\foo ", "\\foo\n", "$$", "\\[", "\\]", "\\(", "\\)", "--",
    "``", "\\\\", "\\verb|x|", "%c\n", "\\begin{tabular}{ll}", "\\end{tabular}", "[a]", "\\section*{A}"]


def _dump(x):
    if isinstance(x, lw.LatexNode) or (hasattr(x, "__dict__") and not isinstance(x, type)):
        return type(x).__name__, tuple((k, _dump(v)) for k, v in sorted(vars(x).items())
                                       if k not in ("parsing_state", "parsed_context"))
    if isinstance(x, (list, tuple)):
        return tuple(_dump(i) for i in x)
    return x


def _nodes(cls, text: str):
    return _dump(cls(text, tolerant_parsing=True, latex_context=latex_context()).get_latex_nodes())


def test_prose_gives_the_same_nodes_with_fewer_character_tokens(monkeypatch):
    text = ("We apply Grad-CAM~\\cite{selvaraju} to the last block of a ViT-B/16 (``CLS'' token\n"
            "dropped); maps are $14\\times14$ --- upsampled.\n\n\\begin{itemize}\\item one\\end{itemize} % note\n")
    assert _nodes(RunWalker, text) == _nodes(lw.LatexWalker, text)
    calls = {}
    own = lw.LatexWalker.get_token

    def counted(self, *a, **k):   # pylatexenc's tokenizer: RunWalker calls it only off plain text
        calls[type(self)] = calls.get(type(self), 0) + 1
        return own(self, *a, **k)
    monkeypatch.setattr(lw.LatexWalker, "get_token", counted)
    _nodes(lw.LatexWalker, text), _nodes(RunWalker, text)
    assert calls[lw.LatexWalker] > len(text) / 2
    assert calls[RunWalker] < calls[lw.LatexWalker] / 3


def test_random_latex_gives_the_same_nodes():
    rng = random.Random(7)
    for _ in range(600):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 30)))
        assert _nodes(RunWalker, text) == _nodes(lw.LatexWalker, text), repr(text)
