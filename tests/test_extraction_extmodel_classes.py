"""Classes of writing about the model, the CAM variant and the code, met on manuscripts camlint was
not tuned on (heldout11..14): each test is a small manuscript of our own sentences, two phrasings
per class where the class allows, checked end to end through `camlint check`."""
from __future__ import annotations

import pytest

from conftest import item_of, lint_tex

CAM = ("\\section{Explanations}\nWe compute Grad-CAM maps at the last transformer block, "
       "taking the output of norm1.\n")


def _model(tmp_path, sentence: str):
    return item_of(lint_tex(tmp_path, "\\section{Classifier}\n" + sentence + "\n" + CAM), "model")


# -- a timm model name whose weights the sentence says come from timm: one release -----------------

@pytest.mark.parametrize("sentence", [
    r"The classifier is \texttt{vit\_small\_patch16\_224}, loaded with its pretrained weights from timm "
    r"and fine-tuned on our leaf images.",
    r"We initialise \texttt{swin\_small\_patch4\_window7\_224} with the pretrained weights shipped with timm "
    r"and train it for 40 epochs on the scans.",
    r"The backbone, \texttt{deit\_tiny\_patch16\_224} (timm, weights of the original authors), is fine-tuned.",
])
def test_a_timm_name_with_timm_weights_is_reported(tmp_path, sentence):
    status, value = _model(tmp_path, sentence)
    assert status == "reported", value
    assert "timm" in value["weights"], value


@pytest.mark.parametrize("sentence", [
    r"We build \texttt{vit\_small\_patch16\_224} with timm and train it from scratch on the scans.",
    r"The classifier is \texttt{vit\_small\_patch16\_224} from timm, randomly initialised, trained for 90 epochs.",
    r"We use a ViT-S/16 from timm with ImageNet-pretrained weights.",
])
def test_timm_without_its_weights_or_without_a_timm_name_stays_partial(tmp_path, sentence):
    status, value = _model(tmp_path, sentence)
    assert status == "partial", value


# -- a model-zoo checkpoint named after its backbone and its training data -------------------------

@pytest.mark.parametrize("sentence", [
    r"The segmenter is \texttt{upernet\_swin\_tiny\_patch4\_window7\_512x512\_160k\_ade20k} from the OpenMMLab zoo.",
    r"We evaluate the released \texttt{mask\_rcnn\_swin\_small\_patch4\_window7\_mstrain\_3x\_coco} detector.",
])
def test_a_zoo_checkpoint_named_with_its_data_is_reported(tmp_path, sentence):
    status, value = _model(tmp_path, sentence)
    assert status == "reported", value


# -- a hub id of any owner, given as the released weights -------------------------------------------

@pytest.mark.parametrize("sentence", [
    r"We use a ViT-B/16 with the public \texttt{PathoGroup/TileNet} weights and a linear head.",
    r"The encoder is a ViT-L/14 that starts from the Hugging Face \texttt{geolab/SatEnc} weights.",
])
def test_a_hub_id_said_to_be_the_public_weights_is_reported(tmp_path, sentence):
    status, value = _model(tmp_path, sentence)
    assert status == "reported", value
    assert "/" in value["weights"], value
