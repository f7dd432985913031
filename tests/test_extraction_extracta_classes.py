"""Classes of writing met on heldout15-21 for the keys model, method, layer, location, target and
implementation: each test is a small manuscript of our own sentences, in at least two phrasings,
checked end to end through `camlint check`. One test per class of writing, never per sentence."""
from __future__ import annotations

import pytest

from conftest import item_of, lint_tex

MODEL = "We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on our images."


def _cam(tmp_path, sentence: str, model: str = MODEL) -> dict:
    return lint_tex(tmp_path, f"\\section{{Model}}\n{model}\n\\section{{Grad-CAM maps}}\n"
                              f"We compute Grad-CAM maps at the last block of the ViT. {sentence}\n")


# -- target: the class named as the modifier of the score ("the melanoma logit") -------------------

@pytest.mark.parametrize("sentence", [
    "The gradient is taken of the melanoma logit.",
    "We backpropagate the sum of the building-class logits over all pixels predicted as building.",
    "Gradients flow from the pre-softmax lesion logits of every pixel segmented as lesion.",
])
def test_a_class_named_as_the_modifier_of_its_logit_is_the_class(tmp_path, sentence):
    status, value = item_of(_cam(tmp_path, sentence), "target")
    assert status == "reported", value
    assert value["kind"] == "logit"


# -- target: the class named after the word class, or without an article -------------------------

@pytest.mark.parametrize("sentence", [
    "The target is the raw logit of the class \\emph{cirrhosis}, also for negative scans.",
    "The gradient was computed with respect to the softmax probability of AMD class.",
    "Maps are computed with respect to the pre-softmax output for the background (negative) class.",
])
def test_a_class_named_after_the_word_class_is_the_class(tmp_path, sentence):
    status, value = item_of(_cam(tmp_path, sentence), "target")
    assert status == "reported", value


@pytest.mark.parametrize("sentence", [
    "The output corresponding to the effusion label was used as the target.",
    "We backpropagate the output associated with the fracture class.",
])
def test_an_output_tied_to_a_named_label_is_a_partial_target(tmp_path, sentence):
    status, value = item_of(_cam(tmp_path, sentence), "target")
    assert status == "partial", value
    assert value.get("class"), value


# -- target: an image-text similarity names its text as the class --------------------------------

CLIP = "We use the OpenAI CLIP ViT-B/16 image encoder (openai/clip-vit-base-patch16)."


@pytest.mark.parametrize("sentence", [
    "Given a caption $c$, the target is the cosine similarity between the normalised image and text embeddings.",
    "For a text prompt $p$ we differentiate the similarity between picture and sentence.",
])
def test_an_image_text_similarity_is_explained_for_its_text(tmp_path, sentence):
    status, value = item_of(_cam(tmp_path, sentence, CLIP), "target")
    assert status == "reported", value
    assert value["kind"] == "similarity"


# -- target: a generative model explains the token or answer it generated ------------------------

@pytest.mark.parametrize("sentence", [
    "We take as target the log-probability of the generated caption under the decoder.",
    "The gradient of the log-probability of $y_k$ given the preceding words is taken.",
])
def test_the_log_probability_of_the_generated_output_names_its_class(tmp_path, sentence):
    status, value = item_of(_cam(tmp_path, sentence), "target")
    assert status == "reported", value
    assert value["kind"] == "log_softmax"


# -- target: the predicted class in other words ---------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "The target is the raw logit of the top predicted species.",
    "We explain the logit of whatever bird the network ranks first.",
])
def test_the_predicted_class_in_other_words(tmp_path, sentence):
    status, value = item_of(_cam(tmp_path, sentence), "target")
    assert status == "reported", value
    assert value["class"] == "predicted"


def test_a_logit_named_after_the_task_does_not_conflict_with_the_class(tmp_path):
    doc = lint_tex(tmp_path, "\\begin{abstract}We derive a signed variant of HiResCAM that propagates the "
                   "gradient of the fall logit through the ViT to its token grid.\\end{abstract}\n"
                   "\\section{Model}\n" + MODEL + "\n\\section{HiResCAM maps}\nWe compute HiResCAM at the last "
                   "block. The target of the explanation is the pre-sigmoid logit of the fallen-person class.\n")
    assert not [f for f in doc["findings"] if f["code"] == "CAM209"], doc["findings"]


# -- implementation: the authors' own code in other words (partial: no library, no release) -------

@pytest.mark.parametrize("sentence", [
    "Heatmaps are produced by an in-house Python module running on our cluster.",
    "All code is our own Rust port of the method.",
    "The implementation was realised by the authors in JAX 0.4.",
    "Everything was implemented in-house in TensorFlow.",
    "The map computation is a small script of our own.",
    "We implemented the maps in PyTorch 2.0 with a pair of hooks on the encoder.",
    "Our code builds on \\texttt{timm} and hooks the last block.",
    "A colleague from the physics department wrote the code we used.",
])
def test_own_code_in_other_words_is_a_partial_implementation(tmp_path, sentence):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\n"
                             f"We compute Grad-CAM maps at the last block of the ViT.\n"
                             f"\\section{{Deployment}}\n{sentence}\n")
    status, value = item_of(doc, "implementation")
    assert status == "partial", value


# -- implementation: a named code base pinned to a release, tag or commit ------------------------

@pytest.mark.parametrize("sentence", [
    "We use the BLIP code at commit 3f9a2c1 for all maps.",
    "This note documents the release \\texttt{heatkit 1.3.0} (git tag \\texttt{v1.3.0}) of our tool.",
])
def test_a_named_code_base_pinned_to_a_revision_is_reported(tmp_path, sentence):
    status, value = item_of(_cam(tmp_path, sentence), "implementation")
    assert status == "reported", value


# -- model: the weights named in other ways -------------------------------------------------------

def _model(tmp_path, sentence: str, title: str = "Model") -> dict:
    return lint_tex(tmp_path, f"\\section{{{title}}}\n{sentence}\n\\section{{Grad-CAM maps}}\n"
                              "We compute Grad-CAM maps at the last block of the transformer.\n")


@pytest.mark.parametrize("sentence", [
    # a timm name taken from timm (any token-based family, not only vit_/deit_)
    "We started from a DeiT-Tiny (the distilled one, deit_tiny_distilled_patch16_224 from the timm library) "
    "and retrained it on our scans.",
    "We use \\texttt{cait_s24_224} from timm (ImageNet-1k weights), fine-tuned for 20 epochs.",
    # the releasing authors of a family named after the weights
    "DeiT-S (\\texttt{deit_small_patch16_224}, ImageNet-1k weights from the DeiT authors), fine-tuned on X-rays.",
    # a family with one release per variant, named after the variant
    "Tiles are classified with a ViT-B/8 encoder initialised from self-supervised DINO weights.",
    # a hub id called a checkpoint
    "Our backbone is PlantCLIP (checkpoint \\texttt{greenlab/plant-clip} on the Hugging Face hub).",
])
def test_weights_named_in_other_ways_make_the_model_reported(tmp_path, sentence):
    status, value = item_of(_model(tmp_path, sentence), "model")
    assert status == "reported", value


@pytest.mark.parametrize("title", ["Reference model and regression test", "Reference configuration"])
def test_a_section_titled_reference_something_is_not_the_bibliography(tmp_path, title):
    doc = _model(tmp_path, "The regression test runs the default configuration on timm "
                           "\\texttt{vit_small_patch16_224.augreg_in21k_ft_in1k}.", title)
    assert item_of(doc, "model")[0] == "reported", doc["checklist"]["model"]


# -- layer: blocks named as a list of module names, or by apposition -----------------------------

@pytest.mark.parametrize("sentence,blocks", [
    ("We apply LayerCAM to the outputs of blocks.3, blocks.7 and blocks.11; the three maps are fused by "
     "an elementwise maximum.", [3, 7, 11]),
    ("Grad-CAM is applied to layers[4], layers[8] and layers[11], and the maps are combined by a pixel-wise max.",
     [4, 8, 11]),
])
def test_a_list_of_block_modules_is_the_layer(tmp_path, blocks, sentence):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\n{sentence}\n")
    status, value = item_of(doc, "layer")
    assert status == "reported", value
    assert value["blocks"] == blocks and value.get("combine") == "max", value


@pytest.mark.parametrize("sentence", [
    "We took the attention matrices of the block we consider most telling, namely the final one.",
    "Maps come from the layer that gave the sharpest maps, that is, the last one.",
])
def test_a_block_named_by_apposition_is_the_layer(tmp_path, sentence):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\n{sentence}\n")
    status, value = item_of(doc, "layer")
    assert status == "reported", value
    assert value["block"] == -1


@pytest.mark.parametrize("aside", [
    "as our collaborators advised that the very last layer gives noisy maps",
    "as earlier studies found that the final layer is too coarse",
])
def test_a_layer_named_in_a_reason_clause_is_not_the_setting(tmp_path, aside):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\n"
                             f"The Grad-CAM maps were taken from one of the later layers, {aside}.\n")
    assert item_of(doc, "layer")[0] == "partial", doc["checklist"]["layer"]


# -- location: the block output described by what it comes after -------------------------------

@pytest.mark.parametrize("sentence", [
    "Grad-CAM weights are applied to the token activations of the last block, taken after the block's "
    "residual connection and MLP.",
    "We hook the tokens of the final block after its MLP and residual addition.",
])
def test_the_tokens_after_the_mlp_and_residual_are_the_block_output(tmp_path, sentence):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\n{sentence}\n")
    assert item_of(doc, "location") == ("reported", "F6"), doc["checklist"]["location"]


# -- a notation-heavy paper: the procedure in sections titled Setting and Definition --------------

def test_a_notation_heavy_paper_states_layer_and_target_in_math(tmp_path):
    doc = lint_tex(tmp_path, "\\title{Gradient-weighted attention maps, formally}\n\\begin{abstract}We define "
                   "gradient-weighted attention for a pre-norm encoder.\\end{abstract}\n\\maketitle\n"
                   "\\section{Setting}\nLet $f$ be the official DINO ViT-B/16 release with a linear head.\n"
                   "\\section{Definition}\nLet $k^\\ast=\\arg\\max_k z_k(x)$ and $y=z_{k^\\ast}(x)$, the "
                   "pre-softmax logit. Fix $l=L$ (last block). The map is $M=[\\partial y/\\partial A \\odot A]_+$ "
                   "averaged over the heads; its [CLS] row over the 196 patch tokens is kept.\n")
    assert item_of(doc, "layer") == ("reported", {"block": -1}), doc["checklist"]["layer"]
    assert item_of(doc, "target")[0] == "reported", doc["checklist"]["target"]
    assert item_of(doc, "location")[0] != "reported", doc["checklist"]["location"]   # "pre-norm encoder" names none


@pytest.mark.parametrize("sentence", [
    "Overlays show Grad-CAM for the benign class.",
    "The heatmaps are computed for the pneumonia class in every case.",
])
def test_maps_shown_for_a_named_class_state_the_class_only(tmp_path, sentence):
    status, value = item_of(_cam(tmp_path, sentence), "target")
    assert status == "partial" and value.get("class"), value


def test_an_article_is_never_the_named_class(tmp_path):
    doc = _cam(tmp_path, "The target is the unnormalised logit of the class predicted by the linear probe.")
    assert item_of(doc, "target")[1].get("class") != "the", doc["checklist"]["target"]


@pytest.mark.parametrize("sentence", [
    "Target is the class of lesion which the model predict.",
    "The gradient is taken for the label that the network predict on each tile.",
])
def test_the_predicted_class_in_non_native_grammar(tmp_path, sentence):
    status, value = item_of(_cam(tmp_path, sentence), "target")
    assert value.get("class") == "predicted", value
