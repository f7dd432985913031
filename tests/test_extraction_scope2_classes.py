"""Scope classes (round scope2): which sections state the paper's own CAM procedure, and which
model a section's map belongs to. Manuscripts written for the tests."""
from __future__ import annotations

from conftest import item_of, lint_tex

NOTATION_PAPER = r"""\title{Gradient-Weighted Class Activation Maps for Token Sequences, Stated Exactly}
\begin{abstract}
We give an exact statement of Grad-CAM for a vision transformer and prove that it is scale invariant.
\end{abstract}
\maketitle
\section{Objects}
Let $g$ be a ViT-B/16 trained on Places365 with $N=196$ patch tokens and a class token at index 0.
\section{Construction}
Let $y$ be the logit of the predicted class, before the softmax.
Take the output $T$ of the LayerNorm before attention in the last block, and let $G=\partial y/\partial T$.
The weight of channel $k$ is the mean of $G$ over the patch tokens.
The class token is removed, and the remaining 196 tokens are reshaped to a $14\times14$ grid in row-major order.
\section{Invariance}
\begin{proposition}
$S$ does not change when $y$ is multiplied by a positive constant.
\end{proposition}
"""


def test_a_section_that_defines_the_map_is_the_cam_scope_whatever_its_title(tmp_path):
    """The method is named only in the title and abstract (the paper's contribution); the sections
    titled "Objects" and "Construction" define the map without naming it: they state its settings."""
    doc = lint_tex(tmp_path, NOTATION_PAPER)
    assert doc["uses_cam_on_transformer"] is True
    assert item_of(doc, "target")[0] == "reported"
    assert item_of(doc, "layer")[0] == "reported"
    assert item_of(doc, "tokens")[0] == "reported"
    assert item_of(doc, "reshape")[0] == "reported"
