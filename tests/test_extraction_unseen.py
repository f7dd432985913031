"""Classes of writing met on manuscripts camlint was not tuned on (issue 12, heldout3): each test
is a small manuscript of new sentences, in a few voices, checked end to end through `camlint check`
(real pylatexenc parses). One test per class of writing, never per sentence."""
from __future__ import annotations

import pytest
import yaml

from conftest import doc_of, run_cli, write_project

PREAMBLE = "\\documentclass{article}\n\\begin{document}\n"


def _doc(tmp_path, body: str, files: dict | None = None, preamble: str = "") -> dict:
    text = "\\documentclass{article}\n" + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"
    return doc_of(write_project(tmp_path, {"main.tex": text, **(files or {})}))


def _entry(doc: dict, key: str) -> dict:
    return doc["checklist"][key]


# -- scope ----------------------------------------------------------------------------------------

FILLER = "\n\n".join(f"Paragraph {i} of this section discusses the clinical motivation in general terms."
                     for i in range(5))


@pytest.mark.parametrize("heading, body, key, value", [
    ("Which block.", "After a small sweep we settled on the tenth block of the encoder.", "layer", {"block": 9}),
    ("Special tokens", "The encoder prepends one class token, and we strip it before anything else.",
     "tokens", {"drop": ["cls"]}),
    ("Grid layout.", "What remains is laid out as a 16×16 arrangement, in raster order.", "reshape",
     {"grid": [16, 16], "order": "row_major"}),
])
def test_run_in_heading_naming_an_ingredient_puts_its_paragraph_in_cam_scope(tmp_path, heading, body, key, value):
    # a long section that mentions Grad-CAM (not "small", not titled for it): only the run-in
    # heading says what the paragraph is about
    doc = _doc(tmp_path, rf"""\section{{Model}}
We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on chest radiographs.
\section{{Where the decisions come from}}
We compute Grad-CAM maps for every test image.

{FILLER}

\paragraph{{{heading}}} {body}
""")
    entry = _entry(doc, key)
    assert entry["status"] == "reported", entry
    assert entry["value"] == value


def test_run_in_heading_about_something_else_stays_out_of_scope(tmp_path):
    doc = _doc(tmp_path, rf"""\section{{Model}}
We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on chest radiographs.
\section{{Where the decisions come from}}
We compute Grad-CAM maps for every test image.

{FILLER}

\paragraph{{Training data.}} The tenth block of the encoder was frozen during fine-tuning.
""")
    assert _entry(doc, "layer")["status"] == "missing"


def test_steps_of_a_list_in_a_cam_section_are_steps_of_the_map(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
The classifier is a DeiT-S (deit_small_patch16_224.fb_in1k).
\section{Gradient-weighted attention}
The explanation proceeds in three steps:
\begin{enumerate}
\item take the attention of the last block and its gradient;
\item multiply them element by element and average over heads;
\item rescale to [0,1] by subtracting the minimum and dividing by the range, then resize bicubically to the input.
\end{enumerate}
""")
    entry = _entry(doc, "postprocess")
    assert entry["value"] == {"normalize": "minmax", "upsample": "bicubic"}, entry


# -- own procedure versus others' -----------------------------------------------------------------

@pytest.mark.parametrize("title", ["Limitations and future work", "Outlook", "Future directions"])
def test_a_protocol_planned_for_future_work_is_not_cam_on_transformer(tmp_path, title):
    doc = _doc(tmp_path, rf"""\section{{Introduction}}
Saliency for transformers has been studied with Grad-CAM on ViTs by several groups~\cite{{a,b}}.
\section{{Method}}
We train a Swin-T on dermoscopy images and explain it with occlusion sensitivity only.
\section{{{title}}}
Next, we would like a class-specific method. The planned setting is Grad-CAM on
\texttt{{layers[-1].blocks[-1].norm1}}, the logit of the predicted class, min-max normalisation and
bilinear upsampling, through pytorch-grad-cam 1.5.4; none of this has been run.
""")
    assert doc["uses_cam_on_transformer"] is False
    assert set(e["status"] for e in doc["checklist"].values()) == {"not_applicable"}


def test_introduction_in_first_person_still_says_the_paper_applies_the_method(tmp_path):
    doc = _doc(tmp_path, r"""\section{Introduction}
In this paper we apply Grad-CAM to a ViT-S/16 that grades retinal scans.
\section{Setup}
The ViT-S/16 starts from vit_small_patch16_224.augreg_in21k_ft_in1k.
""")
    assert doc["uses_cam_on_transformer"] is True


# -- LaTeX as people write it ---------------------------------------------------------------------

def test_macro_defined_in_an_included_file_is_read_before_the_prefilter(tmp_path):
    # the section says nothing CAM-like in its raw text: only the macro's meaning does
    doc = _doc(tmp_path, r"""\section{Model}
Our network is a DeiT-S initialised from deit_small_patch16_224.fb_in1k.
\section{Procedure}
The \ourexpl{} is read at the \where, at the output of the block.

For the \ourexpl{} the score is the raw logit of the ground-truth class.
""", files={"defs.tex": "\\newcommand{\\ourexpl}{LayerCAM map\\xspace}\n\\def\\where{eleventh block}\n"},
        preamble="\\usepackage{xspace}\n\\input{defs}\n")
    assert doc["uses_cam_on_transformer"] is True
    assert _entry(doc, "method")["value"] == "layercam"
    assert _entry(doc, "layer")["value"] == {"block": 10}
    assert _entry(doc, "location")["value"] == "F6"
    assert _entry(doc, "target")["value"] == {"kind": "logit", "class": "ground_truth"}


def test_a_user_def_overrides_a_builtin_symbol_name(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
We fine-tune a ViT-S/16 (vit_small_patch16_224.augreg_in21k_ft_in1k).
\section{Saliency}
Grad-CAM maps are taken at the last block of the \ast, on its \tok patch tokens.
""", preamble="\\def\\ast{ViT-S/16 encoder}\n\\def\\tok{196}\n")
    layer = _entry(doc, "layer")
    assert layer["status"] == "reported", layer
    assert "ViT-S/16 encoder" in " ".join(e["text"] for e in layer["evidence"])


@pytest.mark.parametrize("sentence, dropped", [
    ("The encoder prepends a class token and a distillation token. Both are discarded before the reshape.",
     ["cls", "dist"]),
    ("Position zero holds the class token; it is removed, and the rest is reshaped.", ["cls"]),
    ("Four register tokens follow the patches. They are then dropped before the reshape.", ["registers"]),
])
def test_a_pronoun_that_refers_back_to_prefix_tokens_states_their_removal(tmp_path, sentence, dropped):
    doc = _doc(tmp_path, rf"""\section{{Model}}
We fine-tune a DeiT-B (deit_base_distilled_patch16_224.fb_in1k).
\section{{Grad-CAM}}
{sentence}
""")
    entry = _entry(doc, "tokens")
    assert entry["status"] == "reported", entry
    assert entry["value"]["drop"] == dropped


def test_a_pronoun_with_no_token_before_it_states_nothing(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
We fine-tune a DeiT-B (deit_base_distilled_patch16_224.fb_in1k).
\section{Grad-CAM}
Each image is first cropped around the lesion. It is then discarded if the crop is too small.
""")
    assert _entry(doc, "tokens")["status"] != "reported"


# -- numbers and grids ----------------------------------------------------------------------------

def test_a_long_grid_named_after_a_parenthesis_and_a_sum_over_blocks(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
The Audio Spectrogram Transformer (AST) starts from the official audioset_10_10_0.4593.pth checkpoint.
\section{Gradient-weighted attention}
We take blocks 9 to 12 (one-based), and sum the four per-block vectors across layers.
The patch scores are folded back into the $12 \times 101$ (frequency by time) token layout.
""")
    assert _entry(doc, "layer")["value"] == {"blocks": [8, 9, 10, 11], "combine": "sum"}
    assert _entry(doc, "reshape")["value"]["grid"] == [12, 101]


# -- values in words ------------------------------------------------------------------------------

@pytest.mark.parametrize("sentence", [
    "We form the elementwise product of the attention and its gradient and clamp it at zero.",
    "The Hadamard products are computed per head, and we clip them at 0 before averaging.",
])
def test_clamping_the_products_at_zero_is_a_relu_on_the_products(tmp_path, sentence):
    doc = _doc(tmp_path, rf"""\section{{Model}}
A ViT-B/16 (vit_base_patch16_224.augreg_in21k) is fine-tuned on aerial tiles.
\section{{Gradient-weighted attention}}
{sentence}
""")
    assert _entry(doc, "relu")["value"] == "on_products"


@pytest.mark.parametrize("sentence", [
    "The feature channels are then weighted with these gradients.",
    "We weight the token features by their gradients and sum them.",
])
def test_weighting_with_the_gradients_in_words_is_said_but_not_pinned(tmp_path, sentence):
    doc = _doc(tmp_path, rf"""\section{{Model}}
A ViT-B/16 (vit_base_patch16_224.augreg_in21k) is fine-tuned on aerial tiles.
\section{{Grad-CAM}}
{sentence}
""")
    assert _entry(doc, "weighting")["status"] == "partial"


@pytest.mark.parametrize("sentence, target", [
    ("The score we explain is the ITM logit of the ``match'' class.", {"kind": "logit", "class": "match"}),
    ("The gradient of the predicted emotion is back-propagated from its logit.",
     {"kind": "logit", "class": "predicted"}),
])
def test_a_quoted_or_domain_named_class_is_the_target_class(tmp_path, sentence, target):
    doc = _doc(tmp_path, rf"""\section{{Model}}
We use BLIP with a ViT-B/16 image encoder (Salesforce/blip-itm-base-coco).
\section{{Grad-CAM}}
{sentence}
""")
    entry = _entry(doc, "target")
    assert entry["status"] == "reported", entry
    assert entry["value"] == target


@pytest.mark.parametrize("sentence, normalize", [
    ("Each map is divided by its own 99th percentile and clipped to [0,1], then upsampled bilinearly.",
     "percentile"),
    ("Maps are $z$-scored over the tissue pixels and resized bilinearly to the slide.", "z-score"),
])
def test_percentile_and_zscore_normalisation_are_reported_and_init_leaves_them_todo(tmp_path, sentence, normalize):
    paper = write_project(tmp_path, {"main.tex": PREAMBLE + rf"""\section{{Model}}
A ViT-S/16 (vit_small_patch16_224.augreg_in21k_ft_in1k) reads the tiles.
\section{{Grad-CAM maps}}
{sentence}
""" + "\n\\end{document}\n"})
    entry = _entry(doc_of(paper), "postprocess")
    assert entry["status"] == "reported", entry
    assert entry["value"] == {"normalize": normalize, "upsample": "bilinear"}
    # camspec has no value for it: init asks the author instead of writing one that does not validate
    proc = run_cli("init", paper)
    assert proc.returncode == 0, proc.stderr
    assert yaml.safe_load(proc.stdout)["postprocess"] == "TODO"


def test_clipping_an_input_image_at_a_percentile_is_not_the_maps_postprocess(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
A ViT-S/16 (vit_small_patch16_224.augreg_in21k_ft_in1k) reads the tiles.
\section{Grad-CAM maps}
Input images are clipped at the 99.5th percentile of their intensities before the encoder.
""")
    assert _entry(doc, "postprocess")["status"] == "missing"


def test_a_code_repository_address_is_not_the_models_weights(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
We fine-tune a ViT-Small pretrained on ImageNet.
\section{Grad-CAM}
Maps come from the package at \url{https://github.com/someone/vit-cam-tools}.
""")
    assert _entry(doc, "model")["status"] == "partial"


@pytest.mark.parametrize("sentence", [
    "Grad-CAM is implemented by ourselves with PyTorch hooks; the code will be made publicly available.",
    "The maps come from custom hooks on the HuggingFace model, written from scratch.",
])
def test_own_unreleased_code_in_words_is_a_partial_implementation(tmp_path, sentence):
    doc = _doc(tmp_path, rf"""\section{{Model}}
A ViT-B/16 (google/vit-base-patch16-224-in21k) is fine-tuned on faces.
\section{{Grad-CAM}}
{sentence}
""")
    assert _entry(doc, "implementation")["status"] == "partial"


# -- model aliases defined in prose ---------------------------------------------------------------

@pytest.mark.parametrize("definition, alias", [
    ("a DeiT-S (deit_small_patch16_224.fb_in1k); we refer to this model as DermNet-T below", "DermNet-T"),
    ("a Swin-T pretrained on ImageNet-22k (PathoSwin below)", "PathoSwin"),
    ("a BEiT-B, hereafter M1,", "M1"),
    ("a DINO ViT-S/8 that we denote as Enc-A", "Enc-A"),
])
def test_a_transformer_named_by_an_alias_is_explained_next_to_a_cnn_baseline(tmp_path, definition, alias):
    # the CAM sentences name only the alias; the CNN baseline is explained with Grad-CAM too
    doc = _doc(tmp_path, rf"""\section{{Models}}
We fine-tune {definition} on the crops. A ResNet-50 serves as the convolutional comparator.
\section{{Saliency}}
For {alias}, Grad-CAM is computed at the second-to-last block, at the output of the block.
For the ResNet-50 comparator, Grad-CAM is computed at layer4.
""")
    assert doc["uses_cam_on_transformer"] is True
    assert _entry(doc, "layer")["value"] == {"block": -2}


def test_an_alias_of_the_cnn_stays_a_cnn(tmp_path):
    doc = _doc(tmp_path, r"""\section{Models}
We train an EfficientNet-B0, which we call LeafNet, and evaluate a ViT-B/16 only for accuracy.
\section{Saliency}
Grad-CAM maps of LeafNet are computed at its last stage.
""")
    assert doc["uses_cam_on_transformer"] is False


# -- numbers, ordinals and grids in words ---------------------------------------------------------

@pytest.mark.parametrize("sentence, layer", [
    ("The map is taken at the twenty-third block of the encoder.", {"block": 22}),
    ("We hook the third-from-last block.", {"block": -3}),
    ("Maps are read at the fourth block counted from the end.", {"block": -4}),
    ("The antepenultimate block is used throughout.", {"block": -3}),
    ("We settled on the block just before the last one.", {"block": -2}),
    ("We use the second-last encoder block.", {"block": -2}),
    ("Blocks 21-24 (counted from one) are averaged.", {"blocks": [20, 21, 22, 23], "combine": "mean"}),
])
def test_blocks_counted_in_words_and_from_the_end(tmp_path, sentence, layer):
    doc = _doc(tmp_path, rf"""\section{{Model}}
We fine-tune a ViT-L/16 (vit_large_patch16_224.augreg_in21k_ft_in1k) on satellite tiles.
\section{{Grad-CAM}}
{sentence}
""")
    entry = _entry(doc, "layer")
    assert entry["status"] == "reported", entry
    assert entry["value"] == layer


@pytest.mark.parametrize("sentence, grid", [
    ("The tokens are arranged in a sixteen-row, sixteen-column grid.", [16, 16]),
    ("The tokens form a square grid with sixteen cells per side.", [16, 16]),
    ("The 256 patch tokens are reshaped into a square map.", [16, 16]),
    ("The token sequence is folded into a (16, 12) grid.", [16, 12]),
    ("We reshape the tokens to H/16 x W/16 with H = W = 256.", [16, 16]),
])
def test_grids_given_by_rows_sides_tuples_counts_and_formulas(tmp_path, sentence, grid):
    doc = _doc(tmp_path, rf"""\section{{Model}}
We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on 256-pixel tiles.
\section{{Grad-CAM}}
{sentence}
""")
    entry = _entry(doc, "reshape")
    assert entry["status"] == "reported", entry
    assert entry["value"]["grid"] == grid


def test_a_token_count_that_is_not_a_square_gives_no_grid(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on 256-pixel tiles.
\section{Grad-CAM}
The 197 tokens are reshaped into a square map.
""")
    assert _entry(doc, "reshape")["status"] != "reported"


# -- more values in words (each a value of the taxonomy written without its usual name) ------------

@pytest.mark.parametrize("key, sentence, value", [
    ("relu", "Negative values in the final map are set to zero.", "after_combination"),
    ("relu", "The weighted sum is clamped from below at zero.", "after_combination"),
    ("relu", "Only positive evidence is kept after summing the channels.", "after_combination"),
    ("relu", "The resulting map is then passed through a ReLU.", "after_combination"),
    ("relu", "We do not rectify the map, so negative evidence remains visible.", "none"),
    ("target", "Gradients are taken of the pre-softmax score for the label predicted by the network.",
     {"kind": "logit", "class": "predicted"}),
    ("target", "We differentiate the class score (before softmax) of the top-1 prediction.",
     {"kind": "logit", "class": "predicted"}),
    ("target", "The target is the unnormalised output for the correct class.",
     {"kind": "logit", "class": "ground_truth"}),
    ("weighting", "We multiply each activation by its gradient before summing over channels.", "elementwise"),
    ("postprocess", "Maps are normalised to unit maximum and upsampled with nearest-neighbour interpolation.",
     {"normalize": "max", "upsample": "nearest"}),
    ("tokens", "The [CLS] position is skipped when the activations are reshaped.", {"drop": ["cls"]}),
    ("tokens", "The leading class embedding does not enter the map.", {"drop": ["cls"]}),
    ("location", "Activations are taken right after the attention's output projection.", "F3b"),
])
def test_values_written_in_words(tmp_path, key, sentence, value):
    doc = _doc(tmp_path, rf"""\section{{Model}}
We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k_ft_in1k) on satellite tiles.
\section{{Grad-CAM}}
{sentence}
""")
    entry = _entry(doc, key)
    assert entry["status"] == "reported", entry
    assert entry["value"] == value


def test_tokens_discarded_after_aggregation_state_no_relu(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k_ft_in1k) on satellite tiles.
\section{Grad-CAM}
The class token is discarded after aggregating the heads.
""")
    assert _entry(doc, "relu")["status"] == "missing"


def test_the_method_is_cited_where_the_paragraph_names_it_not_in_the_list_below(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
We fine-tune a Swin-T (swin_tiny_patch4_window7_224.ms_in1k) on endoscopy frames.
\section{Explanation settings}
For every test frame we compute a LayerCAM map with these choices:
\begin{enumerate}
\item the last block of the final stage, at its output;
\item weights as in LayerCAM, with positive gradients multiplied elementwise.
\end{enumerate}
""")
    entry = _entry(doc, "method")
    assert entry["value"] == "layercam"
    assert entry["evidence"][0]["line"] == 6, entry["evidence"]


@pytest.mark.parametrize("sentence", [
    "Score-CAM upsamples each channel to the input size and min-max normalises it so that it can serve as a mask.",
    "Every activation channel is resized bilinearly and used to mask the input before the forward pass.",
])
def test_score_cams_masking_step_is_not_the_maps_postprocess(tmp_path, sentence):
    doc = _doc(tmp_path, rf"""\section{{Model}}
We fine-tune a DeiT-S (deit_small_patch16_224.fb_in1k) on leaf images.
\section{{Score-CAM}}
{sentence}
""")
    assert _entry(doc, "postprocess")["status"] == "missing"


_LONG_EXPERIMENTS = "\n\n".join([
    "We evaluate on three datasets with the usual splits and report accuracy for each of them here.",
    "Training used AdamW for forty epochs with cosine decay and standard augmentation throughout.",
    "We also report the deletion metric and the pointing game for completeness on each dataset.",
    "Results are averaged over three seeds with the standard deviation shown in brackets.",
    "All runs used one GPU."])


@pytest.mark.parametrize("pointer, label", [
    (r"We compute Grad-CAM maps for all test images; Table~\ref{tab:cfg} lists every setting.", "tab:cfg"),
    (r"The saliency configuration is summarised in \cref{tab:sal,tab:data}.", "tab:sal"),
])
def test_a_settings_table_the_cam_section_refers_to_is_read_wherever_it_stands(tmp_path, pointer, label):
    doc = _doc(tmp_path, rf"""\section{{Model}}
We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on crops.
\section{{Grad-CAM}}
{pointer}
\section{{Experiments}}
{_LONG_EXPERIMENTS}
\begin{{table}}[t]\caption{{Configuration.}}\label{{{label}}}
\begin{{tabular}}{{ll}}
Block & last (index 11) \\
Hooked module & norm1 \\
Removed tokens & [CLS] \\
\end{{tabular}}\end{{table}}
""")
    assert _entry(doc, "layer")["value"] == {"block": 11}
    assert _entry(doc, "location")["value"] == "F1"
    assert _entry(doc, "tokens")["value"] == {"drop": ["cls"]}


def test_a_table_nobody_points_to_from_the_cam_section_is_not_read_as_settings(tmp_path):
    doc = _doc(tmp_path, rf"""\section{{Model}}
We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on crops.
\section{{Grad-CAM}}
We compute Grad-CAM maps for all test images.
\section{{Experiments}}
{_LONG_EXPERIMENTS} Table~\ref{{tab:other}} compares training recipes.
\begin{{table}}[t]\caption{{Training recipes.}}\label{{tab:other}}
\begin{{tabular}}{{ll}}
Block & last (index 11) \\
Removed tokens & [CLS] \\
\end{{tabular}}\end{{table}}
""")
    assert _entry(doc, "layer")["status"] == "missing"
