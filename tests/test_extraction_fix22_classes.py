"""Classes of writing first seen in heldout22 (sentences written for these tests)."""
from __future__ import annotations

from tests.conftest import item_of, lint_tex

_OWN = r"""\section{Method}
We introduce HALO, a gradient-weighted attention map for the ViT-B/16. HALO averages the attention
of blocks 10--12 and weights each head by its gradient share. We keep the [CLS] query row and drop
the [CLS] key column, then reshape the patch entries to $14\times14$.
\section{Experiments}
\paragraph{Setup.} The backbone is ViT-B/16 pretrained on ImageNet-21k.
"""


def test_run_in_baselines_paragraph_is_the_compared_methods(tmp_path):
    """A run-in "Baselines." heading: the settings under it are the compared methods' (here the
    library defaults of plain Grad-CAM), not those of the paper's own map."""
    body = _OWN + r"""\paragraph{Baselines.} For Grad-CAM we keep the defaults of \texttt{pytorch-grad-cam} 1.5.4
(final block, \texttt{norm1}, mean-gradient weights, ReLU after the weighted sum, min--max scaling).
For attention rollout we use all blocks with heads averaged.
"""
    doc = lint_tex(tmp_path, body)
    assert item_of(doc, "relu")[0] == "missing"
    assert item_of(doc, "postprocess")[0] == "missing"
    assert doc["checklist"]["location"]["evidence"][0]["line"] != 10



def test_hyphenated_numeric_ordinal_names_the_block(tmp_path):
    """"the 11-th block", "the 12-th encoder layer": a hyphen inside a numeric ordinal."""
    body = r"""\section{Method}
We fine-tune a ViT-B/16 to grade diabetic retinopathy.
\subsection{Visualization}
For interpretation, Grad-CAM is computed on the 11-th block of the encoder, and its gradient
is taken from the predicted grade.
"""
    doc = lint_tex(tmp_path, body)
    assert item_of(doc, "layer") == ("reported", {"block": 10})
