"""Classes of writing met on a further set of unseen manuscripts (issue 12, heldout7): each test is
a small manuscript of new sentences, in at least two phrasings, checked end to end through
`camlint check` (real pylatexenc parses). One test per class of writing, never per sentence."""
from __future__ import annotations

import pytest

from conftest import lint_tex

MODEL = "We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on leaf photographs.\n"


def _cam_doc(tmp_path, sentences: str) -> dict:
    return lint_tex(tmp_path, "\\section{Model}\n" + MODEL + "\\section{Grad-CAM maps}\n"
                "We compute Grad-CAM maps of the ViT for every test image.\n" + sentences)


# -- LaTeX as people write it: a footnote carries the library's version ------------------------

@pytest.mark.parametrize("sentence, version", [
    (r"The maps come from the jacobgil pytorch-grad-cam library\footnote{Version 1.5.0, from PyPI.} on one GPU.",
     "1.5.0"),
    (r"We rely on pytorch-grad-cam\footnote{v1.4.6, installed with pip.} for the hooks.", "1.4.6"),
    (r"Maps are computed with pytorch-grad-cam\footnote{We used release 1.3.7 from PyPI.}.", "1.3.7"),
])
def test_a_footnote_that_opens_with_a_version_pins_the_library_named_before_it(tmp_path, sentence, version):
    entry = _cam_doc(tmp_path, sentence)["checklist"]["implementation"]
    assert entry["status"] == "reported", entry
    assert entry["value"] == {"library": "pytorch-grad-cam", "version": version}


def test_a_footnote_with_a_number_but_no_version_word_pins_nothing(tmp_path):
    entry = _cam_doc(tmp_path, r"We rely on pytorch-grad-cam\footnote{2.5 GB of memory per batch.} "
                               "for the hooks.")["checklist"]["implementation"]
    assert entry["status"] == "partial", entry


# -- scope: a run-in heading that names the method, a section titled about gradient attention ----

@pytest.mark.parametrize("heading", ["Gradient-weighted space-time attention.", "Gradient-weighted self-attention."])
def test_a_run_in_heading_naming_the_method_opens_a_paragraph_that_states_settings(tmp_path, heading):
    doc = lint_tex(tmp_path, rf"""\section{{Method}}
\paragraph{{Model.}} {MODEL}
\paragraph{{{heading}}} We take the softmax attention matrices of the penultimate block together with
their gradients with respect to the pre-softmax logit of the predicted class.
""")
    assert doc["uses_cam_on_transformer"] is True
    assert doc["checklist"]["layer"]["value"] == {"block": -2}, doc["checklist"]["layer"]
    assert doc["checklist"]["target"]["status"] == "reported", doc["checklist"]["target"]


@pytest.mark.parametrize("sibling", ["Setup", "Notation"])
def test_a_setup_or_notation_sibling_of_a_gradient_attention_subsection_is_in_scope(tmp_path, sibling):
    doc = lint_tex(tmp_path, rf"""\section{{Approach}}
\subsection{{{sibling}}}
{MODEL}Let $y_c$ denote the pre-softmax logit of the ground-truth class $c$.
\subsection{{Class-weighted gradient attention}}
We explain the ViT with gradient-weighted attention maps. The relevance of head $h$ is the element-wise product of its attention matrix in the last block
and its gradient, clamped at zero, then averaged over the heads.
""")
    entry = doc["checklist"]["target"]
    assert entry["status"] == "reported", entry
    assert entry["value"] == {"kind": "logit", "class": "ground_truth"}


# -- own procedure versus the compared methods on the same transformer --------------------------

@pytest.mark.parametrize("title", ["Baselines", "Compared methods"])
def test_settings_of_the_compared_methods_on_the_same_transformer_do_not_fill_the_checklist(tmp_path, title):
    doc = lint_tex(tmp_path, rf"""\section{{Method}}
\subsection{{Gradient-weighted attention}}
{MODEL}Our map multiplies the attention matrices of the last block by their gradients element-wise.
\subsection{{{title}}}
For LayerCAM and Grad-CAM++ on the same ViT we use pytorch-grad-cam 1.4.8, hooking blocks[-2].norm1.
""")
    assert doc["uses_cam_on_transformer"] is True
    assert doc["checklist"]["implementation"]["status"] == "missing", doc["checklist"]["implementation"]
    assert doc["checklist"]["location"]["value"] == "F2", doc["checklist"]["location"]
    assert doc["checklist"]["layer"]["value"] == {"block": -1}, doc["checklist"]["layer"]


@pytest.mark.parametrize("sentence, weighting", [
    (r"We apply LayerCAM \cite{jiang}, which multiplies every activation with the positive part of its own "
     "gradient.", "elementwise"),
    (r"We adopt XGrad-CAM \cite{fu}, whose channel weight sums the gradient multiplied by the normalised "
     "activation over positions.", "xgradcam"),
    (r"Our maps follow XGrad-CAM \cite{fu}, which weights each gradient by the normalised activation.",
     "xgradcam"),
])
def test_a_cited_method_the_authors_apply_keeps_the_clause_that_describes_it(tmp_path, sentence, weighting):
    entry = _cam_doc(tmp_path, sentence)["checklist"]["weighting"]
    assert entry["status"] == "reported", entry
    assert entry["value"] == weighting


def test_a_cited_method_the_authors_only_contrast_still_keeps_its_clause_apart(tmp_path):
    entry = _cam_doc(tmp_path, r"Unlike Jiang et al. \cite{jiang}, who multiply every activation with the "
                               "positive part of its own gradient, our maps are plain.")["checklist"]["weighting"]
    assert entry["status"] == "missing", entry


# -- values in words -----------------------------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "The encoder prepends an extra token that does not correspond to any patch; we discard this token.",
    "A learnable summary token, not tied to any image region, is added to every input; I set this token aside.",
    "The network prepends a learnable token that corresponds to no image patch; we remove it before reshaping.",
])
def test_the_class_token_described_in_words_and_removed(tmp_path, sentence):
    entry = _cam_doc(tmp_path, sentence)["checklist"]["tokens"]
    assert entry["status"] == "reported", entry
    assert entry["value"] == {"drop": ["cls"]}


@pytest.mark.parametrize("sentence", [
    "In the attention matrix, the [CLS] key is excluded before the 196 values form the map.",
    "The [CLS] column of every attention row is dropped before reshaping.",
])
def test_a_class_token_key_or_column_excluded_states_its_removal(tmp_path, sentence):
    entry = _cam_doc(tmp_path, sentence)["checklist"]["tokens"]
    assert entry["status"] == "reported", entry
    assert entry["value"] == {"drop": ["cls"]}


@pytest.mark.parametrize("sentence", [
    "Maps are bilinearly upsampled to 224x224; no further normalisation is applied.",
    "Each map is resized to the input with bilinear interpolation, without any additional normalization.",
    "Maps are upsampled bilinearly to the input size; we do not normalise them.",
    "Maps are upsampled bilinearly to the input size and left in their raw range.",
])
def test_no_further_normalisation_is_an_explicit_choice(tmp_path, sentence):
    entry = _cam_doc(tmp_path, sentence)["checklist"]["postprocess"]
    assert entry["status"] == "reported", entry
    assert entry["value"] == {"normalize": "none", "upsample": "bilinear"}


@pytest.mark.parametrize("sentence", [
    "The 14x14 grid is then upsampled bicubically to the input size, and min-max normalised.",
    "Finally the small lattice was enlarged by bicubic interpolation and min-max normalised.",
])
def test_the_grid_itself_upsampled_is_the_map_post_processing(tmp_path, sentence):
    entry = _cam_doc(tmp_path, sentence)["checklist"]["postprocess"]
    assert entry["value"] == {"normalize": "minmax", "upsample": "bicubic"}, entry


@pytest.mark.parametrize("sentence", [
    "The explained score is the cosine similarity between the caption embedding and the image embedding.",
    "We differentiate the similarity score for the one text prompt shown to the annotators.",
])
def test_a_similarity_target_for_a_given_text_names_its_class(tmp_path, sentence):
    entry = _cam_doc(tmp_path, sentence)["checklist"]["target"]
    assert entry["status"] == "reported", entry


@pytest.mark.parametrize("sentence, status", [
    ("Each feature is weighted by how strongly the class score responds to it.", "partial"),
    ("The channels are weighted according to the sensitivity of the output logit.", "partial"),
])
def test_weighting_by_sensitivity_in_plain_words_is_said_but_not_pinned(tmp_path, sentence, status):
    assert _cam_doc(tmp_path, sentence)["checklist"]["weighting"]["status"] == status


@pytest.mark.parametrize("sentence", ["Only the positive evidence was kept.",
                                      "Only positive contributions were retained."])
def test_keeping_only_the_positive_part_in_the_past_tense_is_a_relu_without_stage(tmp_path, sentence):
    assert _cam_doc(tmp_path, sentence)["checklist"]["relu"]["status"] == "partial"


@pytest.mark.parametrize("sentence", [r"\item Reshape: patch tokens to a $14\times14$ grid.",
                                      r"\item We reshape the 196 patch tokens into a $14\times14$ grid."])
def test_reshaping_the_patch_tokens_implies_the_token_handling_only(tmp_path, sentence):
    doc = _cam_doc(tmp_path, "\\begin{itemize}\n" + sentence + "\n\\end{itemize}")
    assert doc["checklist"]["tokens"]["status"] == "partial", doc["checklist"]["tokens"]


@pytest.mark.parametrize("sentence", [
    "We use Swin-B (swin_base_patch4_window7_224) with the weights published by Microsoft.",
    "The ViT-B/16 weights are the ones distributed by Google with the original paper.",
])
def test_weights_published_by_the_lab_that_released_them_are_an_identifiable_release(tmp_path, sentence):
    doc = lint_tex(tmp_path, "\\section{Model}\n" + sentence + "\n\\section{Grad-CAM maps}\n"
               "We compute Grad-CAM maps of the transformer for every test image.\n")
    assert doc["checklist"]["model"]["status"] == "reported", doc["checklist"]["model"]


@pytest.mark.parametrize("sentence", ["All code was written by the authors in PyTorch 2.1.",
                                      "The map computation was implemented by us on top of timm."])
def test_code_written_by_the_authors_is_own_unreleased_code(tmp_path, sentence):
    entry = _cam_doc(tmp_path, sentence)["checklist"]["implementation"]
    assert entry["status"] == "partial", entry


def test_a_keyword_list_next_to_transformer_does_not_name_a_library(tmp_path):
    doc = lint_tex(tmp_path, "\\section{Model}\n" + MODEL + "\\section{Grad-CAM maps}\n"
               "We compute Grad-CAM maps of the ViT. Keywords: vision transformer explainability, leaves.\n")
    assert doc["checklist"]["implementation"]["status"] == "missing", doc["checklist"]["implementation"]


def test_the_papers_own_experiment_titled_as_a_single_baseline_stays_its_own(tmp_path):
    # "A library baseline": what the authors themselves ran, not methods they compare against
    doc = lint_tex(tmp_path, r"""\section{A library baseline}
To show what a default call produces, we fine-tuned a ViT-B/16 from the timm checkpoint
vit\_base\_patch16\_224.augreg2\_in21k\_ft\_in1k and computed Grad-CAM maps with pytorch-grad-cam 1.4.8.
""")
    assert doc["uses_cam_on_transformer"] is True
    assert doc["checklist"]["implementation"]["status"] == "reported", doc["checklist"]["implementation"]


def test_the_own_clause_after_a_contrasted_cited_method_is_read(tmp_path):
    entry = _cam_doc(tmp_path, r"Unlike XGrad-CAM \cite{fu}, which weights each gradient by the normalised "
                               "activation, we average the gradients over positions.")["checklist"]["weighting"]
    assert entry["status"] == "reported", entry
    assert entry["value"] == "gap_gradients"
