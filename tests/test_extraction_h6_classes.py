"""Classes of writing met on manuscripts camlint was not tuned on (issue 12, heldout6): each test is
a small manuscript of our own sentences, in at least two phrasings, checked end to end through
`camlint check` (real pylatexenc parses). One test per class of writing, never per sentence."""
from __future__ import annotations

import pytest

from conftest import item_of, lint_tex

MODEL = "We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on aerial scenes."


def _cam_doc(tmp_path, cam_text: str) -> dict:
    return lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\n{cam_text}\n")


# -- CAM detection: a variant with no canonical name, reviews, methods compared ---------------------

@pytest.mark.parametrize("sentence", [
    "We apply Ablation-CAM to the last block of the ViT-B/16 and show the maps for every test image.",
    "Explanations of the ViT-B/16 are AblationCAM maps taken at its final block.",
])
def test_ablation_cam_is_a_cam_method(tmp_path, sentence):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Explanations}}\n{sentence}\n")
    assert doc["uses_cam_on_transformer"] is True
    assert doc["checklist"]["method"]["status"] == "reported"


@pytest.mark.parametrize("sentence", [
    "Each channel weight is the drop in the class logit when that channel is set to zero.",
    "A channel's weight is the relative decrease of the target score observed when the channel is ablated.",
    "Channels are weighted by how much the logit falls when the channel is switched off.",
])
def test_ablation_cam_weight_described_in_words(tmp_path, sentence):
    doc = _cam_doc(tmp_path, f"We use Ablation-CAM at the last block. {sentence}")
    assert item_of(doc, "weighting") == ("reported", "method_rule")


@pytest.mark.parametrize("sentence", [
    "None of the included articles compares Grad-CAM with LayerCAM on one model, although our own "
    "reading of their code suggests that the choices differ.",
    "Few of the reviewed works state the Grad-CAM target, whereas we found the score in the code of "
    "only three.",
])
def test_a_review_whose_own_words_stand_in_another_clause_does_not_use_cam(tmp_path, sentence):
    doc = lint_tex(tmp_path, rf"""\title{{Saliency for Vision Transformers in Remote Sensing: a Review}}
\maketitle
\section{{Search}}
We searched two databases for papers that explain a ViT or a Swin model.
\section{{Findings}}
Grad-CAM is used by 21 of the 40 papers. {sentence}
""")
    assert doc["uses_cam_on_transformer"] is False


@pytest.mark.parametrize("comparison", [
    "Rollout and Grad-CAM are different quantities, so the comparison is indicative only.",
    "Grad-CAM and raw attention are not directly comparable, which limits this analysis.",
])
def test_methods_compared_by_name_do_not_apply_grad_cam_to_the_transformer(tmp_path, comparison):
    doc = lint_tex(tmp_path, rf"""\section{{Models}}
We train a ViT-B/16 and a ResNet-50 on the same crops.
\section{{Explanations}}
For the ResNet-50 we compute Grad-CAM on layer4. For the ViT-B/16 we use attention rollout over all blocks.
\section{{Discussion}}
{comparison} Still, the transformer's attention is spread more widely over the field.
""")
    assert doc["uses_cam_on_transformer"] is False


# -- scope: a Preliminaries section sets up the paper's own procedure --------------------------------

@pytest.mark.parametrize("title", ["Preliminaries", "Preliminaries and notation"])
def test_a_preliminaries_section_states_the_own_procedure(tmp_path, title):
    doc = lint_tex(tmp_path, rf"""\section{{{title}}}
\subsection{{Backbone}}
The backbone is a ViT-B/16 pretrained on ImageNet.
\subsection{{Grad-CAM on the tokens}}
We take as feature map the output of the last block, and the target is the raw logit of the predicted class.
""")
    assert item_of(doc, "layer") == ("reported", {"block": -1})
    assert doc["checklist"]["target"]["status"] == "reported"


# -- LaTeX as people write it: a sum with its limits ---------------------------------------------------

@pytest.mark.parametrize("formula", [
    r"$\alpha_k=\frac{1}{N}\sum_{i=1}^{N}\frac{\partial y^c}{\partial A^k_i}$",
    r"$w_c=\frac{1}{P}\sum_{p=1}^{P}\partial s/\partial F_{p,c}$",
    r"$\alpha_k = 1/N \sum_{i=1}^{N} \partial y / \partial A_i^k$",
])
def test_mean_gradient_written_as_a_sum_with_limits(tmp_path, formula):
    doc = _cam_doc(tmp_path, f"At the last block the channel weights are {formula}.")
    assert item_of(doc, "weighting") == ("reported", "gap_gradients")


# -- values in words: rectification, elementwise weights, tokens --------------------------------------

@pytest.mark.parametrize("sentence", [
    "The weighted channels are summed and passed through a ReLU.",
    "The weighted activations are added up and then rectified.",
    "After the channel-wise summation a ReLU is applied.",
    "After the channel sum we apply a rectification.",
])
def test_relu_after_the_sum_in_words(tmp_path, sentence):
    doc = _cam_doc(tmp_path, f"We use Grad-CAM at the last block. {sentence}")
    assert item_of(doc, "relu") == ("reported", "after_combination")


@pytest.mark.parametrize("sentence", [
    r"Negative entries of $\nabla A\odot A$ are clamped to zero before the heads are averaged.",
    r"The map of each head is $\mathrm{ReLU}(\nabla A\odot A)$, averaged over the heads.",
])
def test_relu_on_a_product_written_with_odot(tmp_path, sentence):
    doc = _cam_doc(tmp_path, f"We apply gradient-weighted attention at the last block. {sentence}")
    assert item_of(doc, "relu") == ("reported", "on_products")


@pytest.mark.parametrize("sentence", [
    "The weights are obtained elementwise from the gradient.",
    "The gradient is multiplied with the activation at the same token, with no averaging.",
])
def test_elementwise_weighting_in_words(tmp_path, sentence):
    doc = _cam_doc(tmp_path, f"We use LayerCAM at the last block. {sentence}")
    assert item_of(doc, "weighting") == ("reported", "elementwise")


@pytest.mark.parametrize("sentence", [
    "From each row we threw away the [CLS] column before reshaping.",
    "The class token is added after the convolutional stem and plays no role in the map.",
])
def test_class_token_left_out_in_new_words(tmp_path, sentence):
    doc = _cam_doc(tmp_path, f"We use Grad-CAM at the last block. {sentence}")
    assert item_of(doc, "tokens") == ("reported", {"drop": ["cls"]})


@pytest.mark.parametrize("sentence", [
    "The hook sits on the attention probabilities, and we backpropagate the score of the predicted class.",
    "These are the attention probabilities; the gradient comes from the score of the predicted label.",
])
def test_attention_probabilities_are_no_target_kind(tmp_path, sentence):
    doc = _cam_doc(tmp_path, f"We use Grad-CAM at the last block. {sentence}")
    status, value = item_of(doc, "target")
    assert status == "partial" and value == {"class": "predicted"}


# -- own procedure: a method's name with its citation and a participle ---------------------------------

@pytest.mark.parametrize("sentence", [
    "Our explanation is Grad-CAM \\cite{sel} applied to the ViT-B/16 with the raw logit of the predicted class as the target.",
    "The maps are Grad-CAM \\cite{sel} computed on the ViT-B/16 from the raw logit of the predicted class.",
])
def test_a_cited_method_name_followed_by_a_participle_is_the_own_procedure(tmp_path, sentence):
    doc = _cam_doc(tmp_path, sentence)
    assert item_of(doc, "target") == ("reported", {"kind": "logit", "class": "predicted"})


# -- numbers and grids: a square grid written with roots of the token count ---------------------------

@pytest.mark.parametrize("sentence, side", [
    (r"The patch part is mapped to a $\sqrt{N}\times\sqrt{N}$ array with $\sqrt{N}=14$.", 14),
    (r"The scores are folded back onto the $\sqrt{N}\times\sqrt{N}$ lattice, where $N=256$.", 16),
])
def test_square_grid_written_with_roots(tmp_path, sentence, side):
    doc = _cam_doc(tmp_path, f"We use Grad-CAM at the last block. {sentence}")
    assert item_of(doc, "reshape") == ("reported", {"grid": [side, side]})


# -- implementation: the paper's own code stated outside the CAM section -------------------------------

@pytest.mark.parametrize("sentence", [
    "Our implementation is written in PyTorch and will be released upon publication.",
    "Our code will be made publicly available after acceptance.",
    "Code and trained weights will be released upon acceptance.",
])
def test_own_code_stated_in_the_conclusion_is_partial(tmp_path, sentence):
    doc = lint_tex(tmp_path, rf"""\section{{Model}}
{MODEL}
\section{{Grad-CAM maps}}
We use Grad-CAM at the last block.
\section{{Conclusion}}
The maps show where the classifier looks. {sentence}
""")
    assert doc["checklist"]["implementation"]["status"] == "partial"


def test_methods_named_together_in_the_transformer_section_still_apply_grad_cam(tmp_path):
    # the counterpart: no comparison, the section is about the transformer, a CNN baseline elsewhere
    doc = lint_tex(tmp_path, r"""\section{Models}
We train a ViT-B/16 and, as a baseline, a ResNet-50 on the same crops.
\section{Explaining the ViT-B/16}
Grad-CAM and rollout maps are computed at the last block for every test image.
\section{Baseline explanations}
For the ResNet-50 we compute Grad-CAM on layer4.
""")
    assert doc["uses_cam_on_transformer"] is True
