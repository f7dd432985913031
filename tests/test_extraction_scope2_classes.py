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


CNN_WITH_A_TRANSFORMER_NAME = r"""\title{PollenFormer: Counting Pollen Types in Honey Micrographs}
\begin{abstract}
We present PollenFormer, a small network for pollen type classification, and use Grad-CAM to check what it attends to.
\end{abstract}
\section{Introduction}
Pollen analysis of honey is slow; vision transformers need more data than apiaries provide.
\section{Methods}
\subsection{Network}
Despite its name, PollenFormer is a purely convolutional network: five stages of 3x3 convolutions
with batch normalisation, followed by global average pooling and a linear classifier.
\subsection{Grad-CAM}
Grad-CAM was computed on the output of the fifth stage with the logit of the predicted type.
Maps are bilinearly upsampled to the input size.
\section{Results}
PollenFormer reaches 91.0\% accuracy, against 87.5\% for a fine-tuned DeiT-S.
\section{Conclusion}
A convolutional design beats a fine-tuned DeiT-S on small pollen sets, and its Grad-CAM maps follow the pollen walls.
"""


def test_despite_its_name_a_convolutional_model_is_a_cnn_for_the_whole_paper(tmp_path):
    """The paper's own model is a CNN whatever its name; the transformer is only an accuracy
    comparator: a Grad-CAM section naming no model explains the paper's own (convolutional) model."""
    doc = lint_tex(tmp_path, CNN_WITH_A_TRANSFORMER_NAME)
    assert doc["uses_cam_on_transformer"] is False


def test_a_transformer_the_paper_presents_keeps_its_unnamed_grad_cam_section(tmp_path):
    """The same layout where the paper's own model is a transformer: the maps are the transformer's."""
    text = CNN_WITH_A_TRANSFORMER_NAME.replace(
        "Despite its name, PollenFormer is a purely convolutional network: five stages of 3x3 convolutions\n"
        "with batch normalisation, followed by global average pooling and a linear classifier.",
        "PollenFormer is a ViT-S/16 fine-tuned on 4,000 micrographs.").replace(
        "the output of the fifth stage", "the output of the last block").replace(
        "against 87.5\\% for a fine-tuned DeiT-S", "against 87.5\\% for a ResNet-50").replace(
        "A convolutional design beats a fine-tuned DeiT-S", "Our transformer beats a ResNet-50")
    doc = lint_tex(tmp_path, text)
    assert doc["uses_cam_on_transformer"] is True


def test_a_model_named_only_as_an_accuracy_comparator_is_not_the_section_model(tmp_path):
    """The only CNN of the results section is an accuracy comparator ("compared with 79.3% for a
    ResNet-34"); the Grad-CAM heatmaps of that section are the paper's transformer's."""
    doc = lint_tex(tmp_path, r"""\section{Model}
We fine-tune a Swin-T on 2,300 photographs of roof tiles for 40 epochs.
\section{Results}
Top-1 accuracy reached 88.7\%, compared with 79.3\% for a ResNet-34 trained on the same photographs.
Grad-CAM heatmaps showed that the model focused on the cracked glaze rather than on the moss.
""")
    assert doc["uses_cam_on_transformer"] is True


def test_as_defined_in_the_original_paper_is_the_authors_own_use_of_a_standard_definition(tmp_path):
    """"as described in the original paper" adopts the standard definition for the authors' own
    maps; it does not report another paper's settings (unlike "in the original paper, the
    weights were ...")."""
    doc = lint_tex(tmp_path, r"""\section{Model}
We fine-tune a DeiT-S on 5,100 images of corroded rebar.
\section{Grad-CAM}
We apply Grad-CAM to the output of the last block of the DeiT-S for the predicted class.
The channel weights are taken as described in the original paper, the spatial mean of the gradients.
""")
    assert item_of(doc, "weighting")[0] == "reported"
