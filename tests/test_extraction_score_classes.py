"""Classes of writing for the score-side keys (target, weighting, relu, postprocess) met on
manuscripts camlint was not tuned on (heldout11..14): each test is a small manuscript of our own
sentences, in two phrasings per class, checked end to end through `camlint check`."""
from __future__ import annotations

import pytest

from conftest import item_of, lint_tex

MODEL = "We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on our images."


def _doc(tmp_path, *sentences: str) -> dict:
    return lint_tex(tmp_path, "\\section{Method}\n" + MODEL + "\n" + "\n".join(sentences) + "\n")


# -- weighting: the mean of the gradient written with the paper's gradient symbol (G, g_k) -------

@pytest.mark.parametrize("formula", [
    r"We apply Grad-CAM to the last block. Let $G=\partial y_c/\partial A$. The channel weights are "
    r"$\alpha_k = \frac{1}{196}\sum_{i,j} G_{ijk}$.",
    r"We apply Grad-CAM to the last block with $G$ the gradient of $y_c$ and weights "
    r"$\alpha_k \gets \frac{1}{T'H'W'}\sum_{t,i,j} G_k^{tij}$.",
    r"We apply Grad-CAM to the last block. With $G$ the gradient, the weight of each channel is the "
    r"mean of $G$ over the patch tokens.",
])
def test_mean_of_the_gradient_symbol_is_the_channel_weight(tmp_path, formula):
    status, value = item_of(_doc(tmp_path, formula), "weighting")
    assert (status, value) == ("reported", "gap_gradients"), (status, value)


# -- weighting: a named variant and, in a relative clause, its rule --------------------------------

@pytest.mark.parametrize("sentence, expected", [
    ("We use LayerCAM on the last block, which multiplies each activation by its positive gradient.",
     "elementwise"),
    ("The maps of the last block come from LayerCAM, which multiplies every activation pointwise with "
     "its clipped gradient.", "elementwise"),
    ("Our maps come from XGrad-CAM on the last block, which normalises the gradient by the activation "
     "to obtain the weight of each channel.", "xgradcam"),
    ("The heatmaps are computed with XGrad-CAM on the last block: every gradient is scaled by the "
     "normalised activation before the channel weights are summed.", "xgradcam"),
])
def test_a_variant_described_by_its_rule(tmp_path, sentence, expected):
    status, value = item_of(_doc(tmp_path, sentence), "weighting")
    assert (status, value) == ("reported", expected), (status, value)


# -- target: the predicted or the annotated class named by the paper's own noun ---------------------

@pytest.mark.parametrize("sentence, cls", [
    ("We apply Grad-CAM to the last block. For the predicted surgical step we back-propagate its "
     "logit before the softmax.", "predicted"),
    ("We generated Grad-CAM heatmaps of the last block for the predicted view, using its raw logit.",
     "predicted"),
    ("We apply Grad-CAM to the last block; the target is the softmax probability of the annotated "
     "(ground-truth) cultivar.", "ground_truth"),
    ("We apply Grad-CAM to the last block. The explained score is the logit of the style chosen by "
     "the curator (the ground truth), not the predicted one.", "ground_truth"),
    ("We apply Grad-CAM to the last block. The target score is the logit of the class predicted by "
     "the sign-recognition model.", "predicted"),
    ("We computed Grad-CAM heatmaps of the last block for the annotated fault type, using its raw logit.",
     "ground_truth"),
])
def test_target_class_in_the_papers_words(tmp_path, sentence, cls):
    status, value = item_of(_doc(tmp_path, sentence), "target")
    assert status == "reported" and value.get("class") == cls, (status, value)


@pytest.mark.parametrize("sentence", [
    "We apply Grad-CAM to the last block and explain the sum of the pre-sigmoid tumour logits over the mask.",
    "We apply Grad-CAM to the last block; the gradient target is the crack logits before the sigmoid.",
])
def test_plural_pre_sigmoid_logits_name_the_explained_output(tmp_path, sentence):
    status, value = item_of(_doc(tmp_path, sentence), "target")
    assert status == "reported" and value.get("kind") == "logit" and value.get("class"), (status, value)


@pytest.mark.parametrize("sentence", [
    "We apply Grad-CAM to the last block. One differentiates the attribution score for the painter in question.",
    "We apply Grad-CAM to the last block and differentiate the score of the species in question.",
])
def test_the_class_in_question_is_a_class_without_a_score_kind(tmp_path, sentence):
    status, _ = item_of(_doc(tmp_path, sentence), "target")
    assert status == "partial", status


# -- relu: the stage said by what is rectified ----------------------------------------------------

@pytest.mark.parametrize("sentence, expected", [
    ("We apply HiResCAM to the last block. The channel-summed map is rectified afterwards.",
     "after_combination"),
    ("We apply HiResCAM to the last block. The summed map is clamped at zero.", "after_combination"),
    ("We apply LayerCAM to the last block: the gradients are passed through a ReLU before the "
     "elementwise product, and no further rectification is applied to the summed map.", "on_gradients"),
    (r"We apply a gradient-weighted attention map, $\bar A = \mathbb{E}_h[(\nabla A \odot A)^{+}]$, "
     "on the last block.", "on_products"),
    (r"We apply gradient-weighted attention on the last block, "
     r"$\bar A^{(l)} = \mathbb{E}_h[(\nabla_{A^{(l)}} y_c \odot A^{(l)})^{+}]$.", "on_products"),
])
def test_relu_stage_from_what_is_rectified(tmp_path, sentence, expected):
    status, value = item_of(_doc(tmp_path, sentence), "relu")
    assert (status, value) == ("reported", expected), (status, value)


@pytest.mark.parametrize("sentence", [
    "We apply Grad-CAM to the last block. The negative values are eliminated and the map is shown.",
    "We apply LayerCAM to the last block, which weights every activation by its positive gradient. "
    "Negative evidence is suppressed in the final map.",
])
def test_relu_without_a_stage_is_partial(tmp_path, sentence):
    status, _ = item_of(_doc(tmp_path, sentence), "relu")
    assert status == "partial", status


def test_a_relu_row_beats_a_list_of_the_variants_weightings(tmp_path):
    doc = _doc(tmp_path, "We compare Grad-CAM and LayerCAM on the last block. Each uses its own weighting: "
               "mean gradient (Grad-CAM) and elementwise positive gradient times activation (LayerCAM).",
               "The ReLU is applied to the weighted sum of the channels.")
    assert item_of(doc, "relu") == ("reported", "after_combination")


# -- postprocess: normalisation and upsampling in other words ---------------------------------------

@pytest.mark.parametrize("sentence, expected", [
    ("The Grad-CAM maps of the last block are not normalised and not upsampled.",
     {"normalize": "none", "upsample": "none"}),
    ("For display, each Grad-CAM map of the last block is divided by its maximal absolute value and "
     "upsampled by bilinear interpolation.", {"normalize": "max_abs", "upsample": "bilinear"}),
    ("The Grad-CAM maps of the last block are, after division by their maximum value, brought to the "
     "input size by bicubic interpolation.", {"normalize": "max", "upsample": "bicubic"}),
])
def test_postprocess_in_other_words(tmp_path, sentence, expected):
    status, value = item_of(_doc(tmp_path, sentence), "postprocess")
    assert (status, value) == ("reported", expected), (status, value)


@pytest.mark.parametrize("sentence", [
    "We apply Grad-CAM to the last block. The resulting map is then brought to the resolution of the scan.",
    "We apply Grad-CAM to the last block. The resulting map is resampled to the 128×512 spectrogram resolution.",
    "We apply Grad-CAM to the last block. Maps were smoothed and scaled to the slide for display.",
])
def test_resizing_in_other_verbs_is_partial(tmp_path, sentence):
    status, _ = item_of(_doc(tmp_path, sentence), "postprocess")
    assert status == "partial", status


# -- target: not applicable where the weighting differentiates no score ------------------------------

@pytest.mark.parametrize("method, expected", [
    ("gradcam", "not_applicable"),      # the method misread from a library's name: the weighting decides
    (None, "not_applicable"),
    ("eigengradcam", "missing"),        # EigenGrad-CAM weights the projection by gradients: a target applies
])
def test_a_gradient_free_weighting_has_no_target(method, expected):
    from camlint.checklist.judge import statuses

    values = {"method": method, "weighting": "eigen"}
    assert statuses(values)["target"] == expected


# -- more ways of writing the same rules (the derivative, pooling, a token's own gradient) ----------

@pytest.mark.parametrize("sentence, expected", [
    ("We apply Grad-CAM to the last block. The importance of channel k is the average, over the 196 "
     "tokens, of the derivative of the logit with respect to that channel.", "gap_gradients"),
    ("We apply Grad-CAM to the last block, pooling the gradients over the token dimension to obtain "
     "one weight per channel.", "gap_gradients"),
    ("We apply HiResCAM to the last block, where each token's activation is scaled by its own gradient "
     "before summing the channels.", "elementwise"),
    ("We apply Score-CAM to the last block: each channel is weighted by the class probability of the "
     "input masked with that channel.", "scorecam"),
])
def test_weighting_rules_in_other_words(tmp_path, sentence, expected):
    assert item_of(_doc(tmp_path, sentence), "weighting") == ("reported", expected)


@pytest.mark.parametrize("sentence, expected", [
    ("We apply Grad-CAM to the last block. After summing the weighted channels we clamp the result at zero.",
     ("reported", "after_combination")),
    ("We apply Grad-CAM to the last block. Only positive contributions are shown.", ("partial", None)),
])
def test_relu_after_the_sum_in_other_words(tmp_path, sentence, expected):
    status, value = item_of(_doc(tmp_path, sentence), "relu")
    assert status == expected[0] and (expected[1] is None or value == expected[1]), (status, value)


def test_the_labelled_class_is_the_ground_truth(tmp_path):
    doc = _doc(tmp_path, "We apply Grad-CAM to the last block. Gradients are taken of the pre-softmax "
               "output of the labelled disease.")
    assert item_of(doc, "target") == ("reported", {"kind": "logit", "class": "ground_truth"})


@pytest.mark.parametrize("key, sentence, expected", [
    ("weighting", "We apply HiResCAM to the last block; instead of averaging, the gradient is multiplied "
     "with the activation at every token.", "elementwise"),
    ("weighting", "We apply XGrad-CAM to the last block; its weights sum the gradients times the "
     "activations normalised by the channel's total activation.", "xgradcam"),
    ("relu", "We apply Grad-CAM to the last block. The map is rectified after the channels are summed.",
     "after_combination"),
    ("relu", "We apply Grad-CAM to the last block. The final ReLU is omitted.", "none"),
    ("target", "We apply Grad-CAM to the last block. The gradient is taken of the posterior probability "
     "of the top prediction.", {"kind": "softmax", "class": "predicted"}),
    ("target", "We apply Grad-CAM to the last block; gradients flow from the logit of the class the "
     "dermatologists assigned.", {"kind": "logit", "class": "ground_truth"}),
    ("target", "We apply Grad-CAM to the last block; we explain the logit of the style given by the "
     "curators.", {"kind": "logit", "class": "ground_truth"}),
    ("postprocess", "We apply Grad-CAM to the last block. Maps are divided by their peak value and "
     "upsampled bilinearly.", {"normalize": "max", "upsample": "bilinear"}),
    ("postprocess", "We apply Grad-CAM to the last block. The maps are shown as raw 14×14 grids, neither "
     "normalised nor upsampled.", {"normalize": "none", "upsample": "none"}),
])
def test_second_phrasings_of_each_rule(tmp_path, key, sentence, expected):
    assert item_of(_doc(tmp_path, sentence), key) == ("reported", expected)


# -- the library's target objects and a class given by its index -----------------------------------

@pytest.mark.parametrize("sentence, expected", [
    (r"We apply Grad-CAM to the last block with \texttt{targets=[ClassifierOutputTarget(207)]}.",
     {"kind": "logit", "class": "207"}),
    (r"We apply Grad-CAM to the last block; the target is \texttt{ClassifierOutputSoftmaxTarget} of "
     "the predicted class.", {"kind": "softmax", "class": "predicted"}),
    ("We apply Grad-CAM to the last block and back-propagate the raw score of ImageNet class 954.",
     {"kind": "logit", "class": "954"}),
])
def test_library_targets_and_class_indices(tmp_path, sentence, expected):
    assert item_of(_doc(tmp_path, sentence), "target") == ("reported", expected)


def test_averaging_each_channels_gradient_map(tmp_path):
    doc = _doc(tmp_path, "We apply Grad-CAM to the last block. Channel importance is obtained by "
               "averaging the gradient map of each channel.")
    assert item_of(doc, "weighting") == ("reported", "gap_gradients")
