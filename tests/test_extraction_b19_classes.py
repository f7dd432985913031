"""Classes of writing about tokens, reshape, weighting, heads, relu and postprocess met on
manuscripts camlint was not tuned on (heldout15..21): each test is a small manuscript of our own
sentences, two phrasings per class, checked end to end through `camlint check`."""
from __future__ import annotations

import pytest

from conftest import item_of, lint_tex

MODEL = "We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on leaf photographs."
DEIT = "We fine-tune deit_base_distilled_patch16_224 (timm, ImageNet-1k weights) on leaf photographs."


def _doc(tmp_path, text: str, model: str = MODEL, method: str = "Grad-CAM") -> dict:
    return lint_tex(tmp_path, "\\section{Model}\n" + model + "\n\\section{Saliency maps}\n"
                    "We explain the classifier with " + method + " at the output of its last block.\n"
                    + text + "\n")


def _attention(tmp_path, text: str) -> dict:
    return lint_tex(tmp_path, "\\section{Model}\n" + MODEL + "\n\\section{Gradient-weighted attention}\n"
                    "We explain the classifier with Grad-CAM applied to the softmax attention matrices "
                    "of its last block.\n" + text + "\n")


# -- weighting: the element-wise product told with an active verb, the adverb anywhere after it ---

@pytest.mark.parametrize("sentence", [
    "The method multiplies the gradient and the activation map element-wise and then sums the channels.",
    "For each token we multiply the gradients elementwise with the features before adding up the channels.",
])
def test_multiply_then_elementwise_later_in_the_clause_is_elementwise(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence, method="HiResCAM"), "weighting") == ("reported", "elementwise")


@pytest.mark.parametrize("sentence", [
    "It weights each activation entry by its own positive gradient.",
    "The method scales every feature value by the corresponding gradient.",
])
def test_each_activation_weighted_by_its_gradient_is_elementwise(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence, method="LayerCAM"), "weighting") == ("reported", "elementwise")


# -- weighting: a named variant's own weights, the weight word and the name apart -----------------

@pytest.mark.parametrize("sentence, value", [
    ("Grad-CAM++ was chosen, which weights the channels with a formula of positive gradients.", "gradcam++"),
    ("Our channel weights are those of XGrad-CAM, computed at the last block.", "xgradcam"),
])
def test_a_named_variant_said_to_give_the_weights(tmp_path, sentence, value):
    assert item_of(_doc(tmp_path, sentence), "weighting") == ("reported", value)


# -- weighting: the averaging of the gradients told with a pronoun or a long subject --------------

@pytest.mark.parametrize("sentence", [
    "We compute the gradient of the logit with respect to the tokens and average it over the 196 positions.",
    "Gradients of the logit of the top-scoring class are averaged over all patch tokens for each channel.",
])
def test_averaged_gradients_with_a_pronoun_or_long_subject(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence), "weighting") == ("reported", "gap_gradients")


# -- relu: the stage told by the step the rectification follows or precedes -----------------------

@pytest.mark.parametrize("sentence", [
    "The weighted activations are added over channels and then passed through a ReLU.",
    "The weighted sum over the channels is followed by a rectifier.",
])
def test_relu_after_the_channel_sum_in_other_words(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence), "relu") == ("reported", "after_combination")


@pytest.mark.parametrize("sentence", [
    "Each attention map is multiplied by its gradient; negative values are set to zero after the gradient product.",
    "Each attention map is multiplied by its gradient, and negatives are removed by clamping at zero before averaging.",
])
def test_relu_placed_against_the_product(tmp_path, sentence):
    assert item_of(_attention(tmp_path, sentence), "relu") == ("reported", "on_products")


@pytest.mark.parametrize("sentence", [
    "The heads are averaged before the ReLU.",
    "The twelve head maps are summed before any rectification.",
])
def test_combined_before_the_relu_is_after_combination(tmp_path, sentence):
    assert item_of(_attention(tmp_path, "Each attention map is multiplied element-wise by its gradient. " + sentence),
                   "relu") == ("reported", "after_combination")


@pytest.mark.parametrize("pair", [
    "The channels are weighted by their mean gradient and summed. Finally, a ReLU is applied.",
    "Each channel is scaled by its weight and everything is added. At the end a ReLU is used.",
])
def test_a_relu_in_the_step_after_the_sum(tmp_path, pair):
    assert item_of(_doc(tmp_path, pair), "relu") == ("reported", "after_combination")


def test_a_closing_relu_after_a_step_that_sums_nothing_stays_partial(tmp_path):
    doc = _doc(tmp_path, "The gradients are computed for the predicted class. Finally, a ReLU is applied.")
    assert item_of(doc, "relu")[0] == "partial"


# -- tokens: the class-token row of an attention map read over the patch columns ------------------

@pytest.mark.parametrize("sentence", [
    "The map is the row of the class token, restricted to the 196 patch columns.",
    "We read the [CLS] row over the patch keys only, which gives 196 values.",
])
def test_the_class_token_row_over_patch_columns_drops_its_column(tmp_path, sentence):
    assert item_of(_attention(tmp_path, sentence), "tokens") == ("reported", {"drop": ["cls"]})


# -- tokens: kept, with the tokens as subject or put first ---------------------------------------

@pytest.mark.parametrize("sentence", [
    "The class and distillation tokens were retained together with the 196 patch tokens.",
    "The class token we keep it with the patch tokens, since it holds global information.",
])
def test_kept_with_the_tokens_first(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence, DEIT), "tokens") == ("reported", {"drop": []})


# -- tokens: the leading tokens counted and named in parentheses, token 0 thrown away -------------

@pytest.mark.parametrize("sentence, drop", [
    ("We discard the two leading tokens (class and distillation) so that only patch tokens remain.", ["cls", "dist"]),
    ("The reshape transform throws away token 0 (the class token) before folding the rest.", ["cls"]),
])
def test_leading_tokens_named_in_parentheses(tmp_path, sentence, drop):
    assert item_of(_doc(tmp_path, sentence, DEIT), "tokens") == ("reported", {"drop": drop})


# -- reshape: the grid told with other words for arranging ---------------------------------------

@pytest.mark.parametrize("sentence", [
    "After removing the class token, the 196 tokens are reorganised in a matrix of 14 x 14.",
    "The remaining 196 tokens are put back into a square of 14 by 14.",
])
def test_grid_in_a_matrix_or_square(tmp_path, sentence):
    status, value = item_of(_doc(tmp_path, sentence), "reshape")
    assert status in ("reported", "partial") and value.get("grid") == [14, 14], value


# -- postprocess: not rescaled; divided by their maximum; min-max in a sentence that rectifies ----

@pytest.mark.parametrize("sentence", [
    "Maps are upsampled bilinearly to 224 x 224; we did not rescale their values.",
    "Maps are upsampled bilinearly to the input size, and we do not scale them in any way.",
])
def test_not_rescaled_is_no_normalisation(tmp_path, sentence):
    status, value = item_of(_doc(tmp_path, sentence), "postprocess")
    assert status == "reported" and value["normalize"] == "none", value


def test_divided_by_their_maximum(tmp_path):
    doc = _doc(tmp_path, "Maps are normalised by dividing by their maximum value and upsampled bilinearly.")
    assert item_of(doc, "postprocess") == ("reported", {"normalize": "max", "upsample": "bilinear"})


def test_min_max_in_the_sentence_that_rectifies(tmp_path):
    doc = _doc(tmp_path, "The gradient-weighted activation is rectified with a ReLU and min-max normalised per image.")
    status, value = item_of(doc, "postprocess")
    assert status == "partial" and value.get("normalize") == "minmax", value


def test_a_relu_after_a_sentence_the_splitter_did_not_end(tmp_path):
    doc = _doc(tmp_path, "Channel weights follow the Grad-CAM++ formula of Chattopadhay et al. "
                         "The result is passed through a ReLU.")
    assert item_of(doc, "relu") == ("reported", "after_combination")


# -- heads: "after the product" orders the clamp, not the head combination ------------------------

def test_clamped_after_the_product_says_nothing_of_heads(tmp_path):
    doc = _attention(tmp_path, "The map is the element-wise product of gradient and attention, "
                               "clamped at zero after the product.")
    assert item_of(doc, "heads")[0] == "missing"


# -- weighting: the gradients as the subject of weighting, with no rule --------------------------

def test_gradients_used_to_weight_the_channels_is_partial(tmp_path):
    assert item_of(_doc(tmp_path, "The gradients are used to weight the channels."), "weighting")[0] == "partial"


# -- scope: a likeness to a CNN does not make the sentence the CNN's ------------------------------

def test_a_likeness_to_a_cnn_keeps_the_sentence_own(tmp_path):
    doc = lint_tex(tmp_path, "\\section{Model}\n" + MODEL + "\n\\section{Saliency maps}\n"
                   "We explain the ViT-B/16 with Grad-CAM at the output of its last block.\n"
                   "Then all 196 tokens were reshaped into a 14 x 14 grid so that they look like "
                   "a CNN feature map with 768 channels.\n")
    assert item_of(doc, "reshape")[1].get("grid") == [14, 14]


# -- a checklist entry marked as not documented states nothing ------------------------------------

def test_an_entry_marked_not_documented_is_missing(tmp_path):
    doc = _doc(tmp_path, "\\begin{itemize}\n\\item Target: raw logit of the predicted class.\n"
                         "\\item Rectification: not documented by the software vendor.\n\\end{itemize}")
    assert item_of(doc, "relu")[0] == "missing"


@pytest.mark.parametrize("row, value", [
    ("Channel weights & Grad-CAM++ \\\\", "gradcam++"),
    ("Weighting & XGrad-CAM, activation-normalised \\\\", "xgradcam"),
])
def test_a_settings_row_naming_the_variant_for_the_weights(tmp_path, row, value):
    doc = lint_tex(tmp_path, "\\section{Model}\n" + MODEL + "\n\\section{Saliency maps}\n"
                   "We explain the classifier with Grad-CAM at its last block; Table~\\ref{tab:s} lists the settings.\n"
                   "\\begin{table}[h]\\caption{Settings of the explanations.}\\label{tab:s}\n\\begin{tabular}{ll}\n"
                   "Layer & last block \\\\\n" + row + "\n\\end{tabular}\\end{table}\n")
    assert item_of(doc, "weighting") == ("reported", value)
