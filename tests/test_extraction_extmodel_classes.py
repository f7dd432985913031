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
    r"The classifier is initialised from \texttt{vit\_small\_patch16\_224} and then fine-tuned on the slides.",
])
def test_a_timm_name_with_timm_weights_is_reported(tmp_path, sentence):
    status, value = _model(tmp_path, sentence)
    assert status == "reported", value
    assert "timm" in value["weights"], value


@pytest.mark.parametrize("sentence", [
    r"We build \texttt{vit\_small\_patch16\_224} with timm and train it from scratch on the scans.",
    r"The classifier is \texttt{vit\_small\_patch16\_224} from timm, randomly initialised, trained for 90 epochs.",
    r"We use a ViT-S/16 from timm with ImageNet-pretrained weights.",
    r"We start from \texttt{vit\_small\_patch16\_224} but re-initialise all its weights randomly.",
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


# -- who pretrained the weights, a paper's weights, the paper's own deposited weights, OpenCLIP tags --

@pytest.mark.parametrize("sentence", [
    "The backbone is a ViT-L/16 pretrained on ImageNet-21k by Google, fine-tuned on the slides.",
    "We fine-tune the Swin-S that Microsoft pretrained on ImageNet-22k.",
    "The encoder is a DeiT-S fine-tuned from the weights of Touvron et al. on our crops.",
    "We pretrain a ViT-S/16 with DINO on 300k tiles; the checkpoints are deposited on Zenodo.",
    "We use an OpenCLIP ViT-L/14 (datacomp_xl_s13b_b90k) without fine-tuning.",
])
def test_an_identified_weight_source_in_words_is_reported(tmp_path, sentence):
    status, value = _model(tmp_path, sentence)
    assert status == "reported", value


@pytest.mark.parametrize("sentence", [
    "The backbone is a ViT-L/16 pretrained on ImageNet by its authors, fine-tuned on the slides.",
    "We use a ViT-B/16 pretrained on ImageNet (Dosovitskiy et al.) and fine-tune it.",
    "We pretrain a ViT-S/16 with DINO on 300k tiles; the weights are available on request.",
])
def test_an_unidentified_weight_source_stays_partial(tmp_path, sentence):
    status, value = _model(tmp_path, sentence)
    assert status == "partial", value


# -- a transformer detector (DETR family) is a named model; its official release names the weights --

@pytest.mark.parametrize("sentence", [
    r"We use DETR-R101 from the official \texttt{facebookresearch/detr} release and fine-tune it on drone images.",
    r"The detector is Conditional DETR-R50, initialised from the published COCO checkpoint.",
])
def test_a_detr_family_detector_with_its_release_is_reported(tmp_path, sentence):
    doc = lint_tex(tmp_path, "\\section{Detector}\n" + sentence + "\n\\section{Explanations}\n"
                   "We compute Grad-CAM on the cross-attention of the last decoder layer of the transformer.\n")
    status, value = item_of(doc, "model")
    assert status == "reported", value
    assert "detr" in value["arch"].lower(), value


# -- method: a library's or a repository's name is not the variant ---------------------------------

MODEL = "We fine-tune \\texttt{vit\\_base\\_patch16\\_224.augreg\\_in21k} on the crops.\n"


@pytest.mark.parametrize("code", [
    r"The maps are computed with the \texttt{pytorch-grad-cam} package, version 1.5.0. "
    r"All other \texttt{pytorch-grad-cam} defaults are kept.",
    r"Code: \texttt{github.com/someone/shelf-gradcam}, commit \texttt{a1b2c3d}, which wraps the "
    r"\texttt{pytorch-grad-cam} library.",
])
def test_a_library_or_repository_name_does_not_name_the_method(tmp_path, code):
    doc = lint_tex(tmp_path, "\\section{Method}\n" + MODEL +
                   "We use ScoreCAM because it needs no gradients; the maps come from the last block.\n" + code +
                   "\n\\section{Outlook}\nLater releases may switch to Grad-CAM.\n")
    assert item_of(doc, "method")[1] == "scorecam", doc["checklist"]["method"]


def test_a_run_in_label_is_not_the_methods_evidence(tmp_path):
    doc = lint_tex(tmp_path, "\\section{Method}\n" + MODEL + "\\textbf{Patch HiResCAM.}\n"
                   "For each class we read the block output of the last block.\n"
                   "As in HiResCAM, the gradient multiplies the activation elementwise before the sum.\n")
    ev = doc["checklist"]["method"]["evidence"]
    assert ev and ev[0]["line"] == 7, ev


# -- implementation: code in words -------------------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "The maps are produced with an open-source saliency toolbox and a few lines of glue code.",
    "We rely on a third-party CAM package for the hooks.",
    "Heatmaps are rendered by our in-house visualisation engine.",
    "Scripts are available from the corresponding author upon reasonable request.",
    "Every map comes from a publicly available Grad-CAM implementation for ViTs.",
    "We compute the maps with the explainability toolbox of our lab.",
])
def test_unnamed_or_unreleased_code_is_partial(tmp_path, sentence):
    doc = lint_tex(tmp_path, "\\section{Grad-CAM}\n" + MODEL + "We compute Grad-CAM at the last block. "
                   + sentence + "\n")
    status, value = item_of(doc, "implementation")
    assert status == "partial", value


@pytest.mark.parametrize("sentence", [
    r"\begin{tabular}{ll}code & our repository, tag \texttt{v2.1-final} \\ \end{tabular}",
    "The Grad-CAM utility of MMPretrain (v1.1.0) is used with a hook on the last block.",
    "All maps are computed with version 1.4.8 of the pytorch-grad-cam package.",
    "We rely on release 0.7.0 of Captum for the hooks.",
])
def test_a_pinned_own_repository_a_toolbox_cam_utility_or_a_version_before_the_name_is_reported(tmp_path, sentence):
    doc = lint_tex(tmp_path, "\\section{Grad-CAM}\n" + MODEL + "We compute Grad-CAM at the last block.\n"
                   + sentence + "\n")
    status, value = item_of(doc, "implementation")
    assert status == "reported", value


# -- method: a variant's name written with a space or in words ---------------------------------------

@pytest.mark.parametrize("sentence, value", [
    ("Maps come from Grad CAM at the last block of the ViT.", "gradcam"),
    ("We use Eigen CAM on the last block of the ViT, so no class is needed.", "eigencam"),
    ("We rely on Grad-CAM plus plus at the last block of the ViT.", "gradcam++"),
    ("Score-weighted class activation mapping is computed at the last block of the ViT.", "scorecam"),
])
def test_a_variant_named_with_a_space_or_in_words_is_named(tmp_path, sentence, value):
    doc = lint_tex(tmp_path, "\\section{Method}\n" + MODEL + sentence + "\n")
    assert item_of(doc, "method") == ("reported", value), doc["checklist"]["method"]
