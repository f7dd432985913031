"""Classes of writing met on manuscripts camlint was not tuned on (issue 12, heldout8, second half):
each test is a small manuscript of our own sentences, in two phrasings per class, checked end to end
through `camlint check` (real pylatexenc parses). One test per class of writing, never per sentence."""
from __future__ import annotations

import pytest

from conftest import item_of, lint_tex

MODEL = "We fine-tune a ViT-S/16 (vit_small_patch16_224.augreg_in21k) on leaf images."


# -- own procedure versus others': a response letter answers a quoted question in one paragraph ----

@pytest.mark.parametrize("answer", [
    r"\textbf{Answer:} The heatmaps are upsampled bilinearly to the input resolution and min-max normalised per image.",
    r"Reply to 1.2: we normalise every map to [0,1] by min-max scaling and resize it with bilinear interpolation.",
])
def test_the_answer_after_a_quoted_comment_is_the_authors_procedure(tmp_path, answer):
    doc = lint_tex(tmp_path, "\\section{Method}\n" + MODEL + "\nWe show Grad-CAM maps of the ViT-S/16.\n"
               "\\section*{Response to Referee 1}\n"
               "1.2 How were the heatmaps post-processed? Were they smoothed?\n" + answer + "\n")
    status, value = item_of(doc, "postprocess")
    assert status == "reported", doc["checklist"]["postprocess"]
    assert value["normalize"] == "minmax" and value["upsample"] == "bilinear", value


@pytest.mark.parametrize("question", [
    "Q1.1: Did the authors take the maps at the third block, averaged over heads? Response. We use the last block.",
    "Comment 4: The maps seem to come from the attention of the third block, averaged over heads.",
])
def test_the_quoted_comment_itself_states_no_setting(tmp_path, question):
    doc = lint_tex(tmp_path, "\\section{Method}\n" + MODEL + "\nWe show Grad-CAM maps of the ViT-S/16.\n"
               "\\section*{Reply to the reviewers}\n" + question + "\n")
    assert doc["checklist"]["heads"]["value"] is None or "mean" not in str(doc["checklist"]["heads"]["value"])
    layer = doc["checklist"]["layer"]["value"]
    assert layer is None or "3" not in str(layer), layer


# -- values in words: where the clamp acts, told by the verbs of the sentence ------------------------

def _attention_doc(tmp_path, sentence: str) -> dict:
    return lint_tex(tmp_path, "\\section{Model}\n" + MODEL + "\n\\section{Gradient-weighted attention maps}\n"
                "We explain the ViT-S/16 with Grad-CAM applied to the attention of its last block.\n"
                + sentence + "\n")


@pytest.mark.parametrize("sentence", [
    "For each head, the attention map is multiplied elementwise by its gradient and clamped at zero; "
    "the heads are then averaged.",
    "Each attention matrix is weighted by the gradient of the class score and then rectified, "
    "after which the twelve heads are averaged.",
])
def test_a_product_then_clamped_is_relu_on_products(tmp_path, sentence):
    assert item_of(_attention_doc(tmp_path, sentence), "relu") == ("reported", "on_products")


@pytest.mark.parametrize("sentence", [
    "The gradients are first clipped at zero and only then multiplied with the attention.",
    "Gradients were also thresholded at 0 before they weight the attention.",
])
def test_gradients_first_clamped_is_relu_on_gradients(tmp_path, sentence):
    assert item_of(_attention_doc(tmp_path, sentence), "relu") == ("reported", "on_gradients")


# -- numbers in words: a position restated in an apposition ------------------------------------------

@pytest.mark.parametrize("sentence", [
    r"Maps are computed from the attention of the last, i.e.\ twelfth, residual attention block.",
    "We read the activations of the final, that is the 12th, encoder layer.",
])
def test_a_position_restated_in_an_apposition_is_the_last_block(tmp_path, sentence):
    doc = lint_tex(tmp_path, "\\section{Model}\n" + MODEL + "\n\\section{Grad-CAM maps}\n"
               "We explain the ViT-S/16 with Grad-CAM. " + sentence + "\n")
    assert item_of(doc, "layer") == ("reported", {"block": -1}), doc["checklist"]["layer"]


# -- scope: a pronoun that refers back to the map ("These are ...") carries its post-processing ------

@pytest.mark.parametrize("sentence", [
    "These are min-max scaled per image and brought to 224 x 224 by bilinear interpolation.",
    "These were upsampled bilinearly to the 224 x 224 input and min-max normalised per image.",
])
def test_these_after_the_map_sentence_is_about_the_map(tmp_path, sentence):
    doc = lint_tex(tmp_path, "\\section{Model}\n" + MODEL + "\n\\section{Grad-CAM maps}\n"
               "We explain the ViT-S/16 with Grad-CAM; the maps are read at the output of its last block. "
               + sentence + "\n")
    status, value = item_of(doc, "postprocess")
    assert status == "reported", doc["checklist"]["postprocess"]
    assert value["normalize"] == "minmax" and value["upsample"] == "bilinear", value


# -- model: vision-transformer families beyond ViT/DeiT/Swin/BEiT, named with their size ----------

@pytest.mark.parametrize("model", ["a MobileViT-S", "a PVTv2-B2", "a MaxViT-T"])
def test_other_transformer_families_are_named_models_without_a_class_token(tmp_path, model):
    doc = lint_tex(tmp_path, f"\\section{{Method}}\nWe fine-tune {model} on leaf images. "
                             "Grad-CAM maps are computed at the last stage.\n")
    assert doc["uses_cam_on_transformer"] is True
    assert item_of(doc, "model")[0] == "partial"          # the architecture, no weights named
    assert item_of(doc, "tokens")[0] == "not_applicable"  # these models carry no [CLS] token
