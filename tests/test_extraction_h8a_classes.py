"""Classes of writing met on manuscripts camlint was not tuned on (issue 12, heldout8, first half):
each test is a small manuscript of our own sentences, in at least two phrasings, checked end to end
through `camlint check` (real pylatexenc parses). One test per class of writing, never per sentence."""
from __future__ import annotations

import pytest

from conftest import item_of, lint_tex

MODEL = "We fine-tune a ViT-S/16 (vit_small_patch16_224.augreg_in21k) on histology tiles."


# -- scope: the paper's own CAM run, titled a baseline ---------------------------------------------

@pytest.mark.parametrize("title", ["Grad-CAM baseline", "A HiResCAM baseline for the ViT"])
def test_a_cam_baseline_section_is_the_papers_own_procedure(tmp_path, title):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{{title}}}\n"
                         "Maps are taken at the output of the eleventh block. "
                         "The 196 patch tokens are reshaped into a 14 x 14 grid.\n")
    assert doc["uses_cam_on_transformer"] is True
    assert doc["checklist"]["layer"]["status"] == "reported"
    assert item_of(doc, "reshape")[0] == "reported"


@pytest.mark.parametrize("title", ["ResNet-50 baseline", "Convolutional baseline"])
def test_a_cnn_baseline_section_still_does_not_fill_the_checklist(tmp_path, title):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\nWe apply Grad-CAM to the ViT.\n"
                         f"\\section{{{title}}}\nFor the ResNet-50, activations are reshaped into a 7 x 7 grid.\n")
    assert doc["checklist"]["reshape"]["status"] != "reported"


# -- LaTeX as people write it: the procedure printed as code ---------------------------------------

LISTINGS = [
    ("lstlisting", """acts = feats[0, 1:].reshape(14, 14, 384).permute(2, 0, 1)
grads = grad_out[0, 1:].reshape(14, 14, 384).permute(2, 0, 1)
alpha = grads.mean(dim=(1, 2))
sal = torch.relu((alpha[:, None, None] * acts).sum(0))
sal = (sal - sal.min()) / (sal.max() - sal.min() + 1e-6)
sal = F.interpolate(sal[None, None], size=(224, 224),
                    mode="bilinear", align_corners=False)"""),
    ("verbatim", """x = tok[:, 1:, :].reshape(b, 14, 14, -1)
weights = torch.mean(grad_tokens, dim=(1, 2))
heat = (weights * x).sum(-1).clamp(min=0)
heat = (heat - torch.min(heat)) / (torch.max(heat) - torch.min(heat))
heat = torch.nn.functional.interpolate(
    heat, scale_factor=16, mode="bicubic")"""),
]


@pytest.mark.parametrize("env,code", LISTINGS)
def test_settings_printed_as_code_are_read(tmp_path, env, code):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM}}\n"
                         f"Our complete Grad-CAM procedure:\n\\begin{{{env}}}\n{code}\n\\end{{{env}}}\n")
    assert item_of(doc, "reshape")[1]["grid"] == [14, 14]
    assert item_of(doc, "weighting") == ("reported", "gap_gradients")
    assert item_of(doc, "relu") == ("reported", "after_combination")
    status, value = item_of(doc, "postprocess")
    assert status == "reported" and value["normalize"] == "minmax"
    assert value["upsample"] in ("bilinear", "bicubic")


# -- values in words: Score-CAM's weight described, a class predicted "on" the input ---------------

@pytest.mark.parametrize("sentence", [
    "The weight of channel k is the class probability on the image masked by that channel.",
    "Each feature map's weight is the target logit obtained when the input is masked with the upsampled map.",
])
def test_score_cam_weight_described_per_channel(tmp_path, sentence):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Score-CAM}}\nWe apply Score-CAM. {sentence}\n")
    assert item_of(doc, "weighting") == ("reported", "scorecam")


@pytest.mark.parametrize("sentence", [
    "As target we use the softmax probability of the class predicted on the clean tile.",
    "A map was generated with Grad-CAM for the diagnosis predicted by the classifier.",
])
def test_the_predicted_class_in_a_participle(tmp_path, sentence):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\n{sentence}\n")
    assert doc["checklist"]["target"]["value"]["class"] == "predicted"


@pytest.mark.parametrize("sentence", [
    "We differentiate the raw tumour logit before the sigmoid.",
    "Gradients are taken of the pre-sigmoid defect score.",
])
def test_a_sigmoid_heads_logit_names_its_class(tmp_path, sentence):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\nWe use Grad-CAM. {sentence}\n")
    assert doc["checklist"]["target"]["value"]["class"] in ("tumour", "defect")


# -- numbers and grids: per-block maps averaged, written as a formula ------------------------------

@pytest.mark.parametrize("formula", [r"$M = \frac{1}{2}(M_{10}+M_{11})$", r"$M = (M_{9} + M_{10})/2$"])
def test_mean_of_block_maps_as_a_formula(tmp_path, formula):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\n"
                         f"Grad-CAM maps $M_b$ are taken at the last two blocks and combined as {formula}.\n")
    assert doc["checklist"]["layer"]["value"].get("combine") == "mean"


# -- postprocess in words; what "available on request" is about ------------------------------------

@pytest.mark.parametrize("sentence", [
    "Heatmaps were overlaid on the original photograph at its full resolution.",
    "Maps are displayed at full image resolution as a colour map.",
])
def test_full_resolution_display_is_a_vague_upsampling(tmp_path, sentence):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\nWe use Grad-CAM. {sentence}\n")
    assert doc["checklist"]["postprocess"]["status"] == "partial"


@pytest.mark.parametrize("sentence,status", [
    ("Data splits are available on request.", "missing"),
    ("The annotations are available upon reasonable request.", "missing"),
    ("Our code is available on request.", "partial"),
])
def test_on_request_names_code_only_when_the_clause_does(tmp_path, sentence, status):
    doc = lint_tex(tmp_path, f"\\section{{Model}}\n{MODEL}\n\\section{{Grad-CAM maps}}\nWe use Grad-CAM. {sentence}\n")
    assert doc["checklist"]["implementation"]["status"] == status
