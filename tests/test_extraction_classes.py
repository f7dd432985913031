"""Classes of writing seen in manuscripts nobody tuned camlint to (issue 12): whole small
manuscripts, each written for one class, checked end to end through `camlint check`."""
from __future__ import annotations

from conftest import doc_of, statuses, write_project

PREAMBLE = "\\documentclass{article}\n\\begin{document}\n"


def _doc(tmp_path, body: str) -> dict:
    return doc_of(write_project(tmp_path, {"main.tex": PREAMBLE + body + "\n\\end{document}\n"}))


def test_gradcam_bound_to_the_cnn_by_section_and_nearest_model_is_not_cam_on_transformer(tmp_path):
    # Grad-CAM explains the CNN (its subsection is about the CNN only; in mixed sentences the
    # CNN is the model named next to it); the transformer gets occlusion. A user macro names both.
    doc = _doc(tmp_path, r"""\newcommand{\convnet}{Base-A}\newcommand{\tfnet}{ViT-Ours}
\section{Models}
\convnet{} is an EfficientNet-B0; \tfnet{} is a DeiT-S fine-tuned on the same crops.
\section{Explanations}
\subsection{\convnet}
For the CNN we run Grad-CAM on the last convolutional stage and differentiate the logit.
Weights are averaged gradients; the map is min-max normalised.
\subsection{\tfnet}
The transformer is explained by occlusion with 16-pixel grey squares.
\section{Results}
Occlusion maps of the transformer are more compact than the Grad-CAM maps of the CNN.
We explain the CNN with Grad-CAM and the transformer with occlusion throughout.
""")
    assert doc["uses_cam_on_transformer"] is False
    assert set(statuses(doc).values()) == {"not_applicable"}


def test_declined_and_hypothetical_mentions_do_not_apply_the_method(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
We fine-tune a Swin-T on leaf photographs.
\section{Attribution}
Applying Grad-CAM to a windowed transformer involves choosing a stage and a token layout.
We considered Grad-CAM for the Swin-T as well, but left it out.
We attribute predictions with integrated gradients over 50 steps.
\section{Conclusion}
There was no need to commit to one adaptation of class activation maps.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_gradcam_on_the_transformer_next_to_a_cnn_baseline_still_counts(tmp_path):
    doc = _doc(tmp_path, r"""\section{Models}
We compare a ResNet-50 baseline with a ViT-B/16.
\section{Saliency}
We apply Grad-CAM to the ViT-B/16, while the ResNet-50 is only evaluated for accuracy.
""")
    assert doc["uses_cam_on_transformer"] is True


def test_multirow_settings_table_rows_continue_the_key_above(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
A ViT-S/16 classifies the tiles.
\section{Saliency configuration}
We compute Grad-CAM maps of the ViT.
\begin{table}[h]\caption{Saliency settings.}
\begin{tabular}{lll}
\multirow{2}{*}{Score} & kind & pre-softmax logit \\
                       & class & ground-truth class \\
\end{tabular}\end{table}
""")
    entry = doc["checklist"]["target"]
    assert entry["status"] == "reported", entry
    assert entry["value"] == {"kind": "logit", "class": "ground_truth"}


def test_no_class_token_stated_where_the_model_is_described(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
The volumetric encoder is a ViT with 8x8x8 patches; it has no class token, so every token is spatial.
\section{Saliency}
We apply Grad-CAM to the encoder's last block and reshape the 512 tokens to an 8x8x8 volume.
""")
    assert doc["checklist"]["tokens"]["status"] == "reported", doc["checklist"]["tokens"]


README_WITH_CODE = '''\
# Leaf-disease ViT: explainability notes

This repository fine-tunes `vit_small_patch16_224.augreg_in21k_ft_in1k` from timm on cassava leaves.

## Explainability

We explain each photograph with Grad-CAM from pytorch-grad-cam 1.5.0:

```python
def reshape_transform(t, height=14, width=14):
    t = t[:, 1:, :]                      # discard the [CLS] token
    return t.reshape(t.size(0), height, width, t.size(2)).permute(0, 3, 1, 2)

target_layers = [model.blocks[-1].norm1]
cam = GradCAM(model=model, target_layers=target_layers, reshape_transform=reshape_transform)
```

## Training

See `train.py`.
'''


def test_fenced_code_in_a_readme_is_code_evidence_at_its_own_line(tmp_path):
    # issue 15 item 3: nothing in the prose names the layer, the tensor or the [CLS] handling
    path = tmp_path / "README.md"
    path.write_text(README_WITH_CODE, encoding="utf-8")
    doc = doc_of(path)
    lines = README_WITH_CODE.splitlines()
    hooked = next(i for i, t in enumerate(lines, 1) if t.startswith("target_layers"))
    dropped = next(i for i, t in enumerate(lines, 1) if "discard the [CLS]" in t)
    checklist = doc["checklist"]
    assert checklist["layer"]["status"] == checklist["location"]["status"] == "reported"
    assert checklist["layer"]["value"] == {"block": -1} and checklist["location"]["value"] == "F1"
    assert checklist["location"]["evidence"][0]["line"] == hooked
    assert checklist["tokens"]["status"] == "reported"
    assert checklist["tokens"]["evidence"][0]["line"] == dropped


def test_a_method_left_to_future_work_is_not_applied(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
We fine-tune a BEiT-B on sorted recycling images.
\section{Explanations}
Predictions are explained with occlusion of 32-pixel squares.
Extending Grad-CAM to the BEiT-B is a matter for future work.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_an_appendix_the_cam_section_points_to_is_in_scope(tmp_path):
    body = r"""\section{Model}
We fine-tune a ViT-S/16 on bark photographs.
\section{Saliency}
We compute Grad-CAM maps of the ViT; the exact settings are given in the appendix.
\appendix
\section{Reproduction details}
\begin{tabular}{ll}
Hooked module & blocks[-2].norm1 \\
Dropped tokens & [CLS] \\
\end{tabular}
"""
    pointed = statuses(_doc(tmp_path / "a", body))
    assert pointed["layer"] == pointed["location"] == pointed["tokens"] == "reported", pointed
    # without the pointer the same appendix table is not taken for the CAM settings
    alone = statuses(_doc(tmp_path / "b", body.replace("; the exact settings are given in the appendix", "")))
    assert alone["tokens"] == "missing", alone


def test_gradcam_for_both_models_counts_for_the_transformer(tmp_path):
    doc = _doc(tmp_path, r"""\section{Models}
We train a DenseNet-121 and a Swin-S on the same fundus photographs.
\section{Explanations}
Grad-CAM maps are computed for both models: at the last dense block for the DenseNet-121 and
at the last stage for the Swin-S.
""")
    assert doc["uses_cam_on_transformer"] is True


def test_a_spec_value_with_code_and_words_reads_the_code(tmp_path):
    # "blocks[10] (the eleventh and last block)": the identifier, not the gloss, is the value;
    # the prose says the same block, so there is no text-versus-spec conflict (CAM210, CAM211 for the block)
    doc = _doc(tmp_path, r"""\section{Model}
We fine-tune a ViT-S/16 with 11 blocks on pollen micrographs.
\section{Saliency}
We compute Grad-CAM at block 10 (zero-based), on the logit of the predicted class.
\begin{camspec}
layer: blocks[10] (the eleventh and last block)
\end{camspec}
""")
    assert doc["checklist"]["layer"]["status"] == "reported"
    assert not [f for f in doc["findings"] if f["code"] in ("CAM210", "CAM211")], doc["findings"]


def test_an_aside_that_sets_a_cnn_or_another_method_apart_leaves_the_sentence_own(tmp_path):
    # "rather than ... the CNN", "contrary to rollout, we ...", "following common practice for
    # convolutional classifiers, we ...": the aside names what the paper does NOT do here.
    doc = _doc(tmp_path, r"""\section{Model}
We fine-tune a DeiT-S on radar chips; a ResNet-18 is the convolutional comparator.
\section{Saliency}
Following common practice for convolutional detectors, we compute Grad-CAM maps of the DeiT-S.
Channel weights are the mean gradients over positions, unlike the CNN variant we reproduce elsewhere.
Contrary to attention rollout, we keep the maps unnormalised.
The maps come from our own scripts instead of the toolbox used for the ResNet.
""")
    st = statuses(doc)
    assert doc["uses_cam_on_transformer"] is True
    assert st["weighting"] == "reported"
    assert st["postprocess"] == "partial"
    assert st["implementation"] == "partial"


def test_a_method_said_to_have_no_accepted_form_and_passed_over_is_not_applied(tmp_path):
    doc = _doc(tmp_path, r"""\section{Models}
A ViT-S/16 and a ResNet-50 classify the cores.
\section{Attribution}
For the ResNet-50 we compute Grad-CAM on \texttt{layer4}.
For the transformer, Grad-CAM has no agreed adaptation, so we opted to use other methods:
attention rollout over all blocks and occlusion with 32-pixel squares.
\section{Results}
Rollout maps of the ViT-S/16 are sharper than Grad-CAM maps of the ResNet-50.
""")
    assert doc["uses_cam_on_transformer"] is False


def test_an_exact_hub_id_of_an_unlisted_transformer_reports_the_model(tmp_path):
    # the architecture is known only through the id: the id names weights and architecture both
    doc = _doc(tmp_path, r"""\section{Model}
We start from the public checkpoint \texttt{contoso/formnet-base-finetuned-invoices}.
\section{Saliency}
Grad-CAM maps of the transformer are taken at the last block.
""")
    assert doc["uses_cam_on_transformer"] is True
    assert statuses(doc)["model"] == "reported"


def test_a_cnn_hub_id_does_not_report_the_transformer(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
Our classifier is a ViT-B/16.

The comparator is loaded as \texttt{timm/resnet50.a1-in1k-ft}.
\section{Saliency}
Grad-CAM maps of the transformer are taken at the last block.
""")
    assert statuses(doc)["model"] == "partial"


def test_a_class_statement_for_eigencam_is_no_target(tmp_path):
    # EigenCAM differentiates no score; saying the map ignores the predicted class states no target
    doc = _doc(tmp_path, r"""\section{Model}
A ViT-S/16 sorts parcels into six classes.
\section{Saliency}
We use EigenCAM on the last block; it back-propagates nothing, so the map is identical irrespective of the prediction.
""")
    assert statuses(doc)["target"] == "not_applicable"


def test_a_run_in_paragraph_heading_names_the_method_of_its_paragraph(tmp_path):
    doc = _doc(tmp_path, r"""\section{Model}
A DeiT-S classifies the parcels.
\section{Explanation methods}
\paragraph{Patch-level Grad-CAM on the DeiT-S (ours).} We hook \texttt{blocks[-1].norm1} and
differentiate the raw logit of the predicted class.
""")
    where = [e["line"] for e in doc["checklist"]["method"]["evidence"]]
    assert doc["checklist"]["method"]["status"] == "reported"
    assert 6 in where, where


def test_a_setting_said_not_to_arise_is_not_stated(tmp_path):
    # the head statement is taken back by what follows it in its clause: no heads value, so no
    # CAM206 for a head aggregation on a non-attention location
    doc = _doc(tmp_path, r"""\section{Saliency}
We apply Grad-CAM to a ViT-S/16 at the output of the last block, \texttt{blocks[11]}.
Only the block's token features are read: averaging over heads is not applicable here.
Summing across heads plays no role either, since no attention matrix is used.
""")
    assert doc["uses_cam_on_transformer"] is True
    assert statuses(doc)["heads"] == "not_applicable"
    assert not [f for f in doc["findings"] if f["code"] == "CAM206"]


# -- heldout4 classes: values described rather than named ------------------------------------------

MODEL = "\\section{Model}\nThe classifier is a ViT-B/16 (vit_base_patch16_224.augreg_in21k) fine-tuned on our crops.\n"


import pytest  # noqa: E402


@pytest.mark.parametrize("method, sentence, value", [
    ("LayerCAM", "Each activation is multiplied pointwise by its own gradient before the channel sum.",
     "elementwise"),
    ("LayerCAM", "As the method prescribes, every feature is weighted individually by the corresponding "
     "gradient.", "elementwise"),
    ("Score-CAM", "A channel's weight is the rise in the network's predicted probability when that "
     "channel, upsampled, masks the input image.", "scorecam"),
    ("Score-CAM", "I weight each channel by the gain in the model's softmax score that the masked image "
     "obtains.", "scorecam"),
    ("EigenCAM", "The map is the projection of the activations onto their first principal component.",
     "eigen"),
    ("EigenCAM", "We project the token features onto their dominant principal direction.", "eigen"),
    ("LayerCAM", "The positive gradient at every spatial position scales the activation found there.",
     "elementwise"),
    ("LayerCAM", "Instead of pooling, the gradient map multiplies the feature map entry by entry.", "elementwise"),
    ("Score-CAM", "Each channel, normalised to [0,1], masks the image and the resulting class score is its "
     "weight.", "scorecam"),
    ("Score-CAM", "Channel weights are the softmax probabilities of the masked copies of the image.", "scorecam"),
])
def test_a_weighting_described_in_words_is_reported(tmp_path, method, sentence, value):
    doc = _doc(tmp_path, MODEL + f"\\section{{Saliency}}\nMaps are {method} maps of the last block of the "
               "encoder.\n" + sentence + "\n")
    entry = doc["checklist"]["weighting"]
    assert entry["status"] == "reported", entry
    assert entry["value"] == value


@pytest.mark.parametrize("opening", [
    "LayerCAM~\\cite{jiang} was chosen because it keeps fine detail.",
    "HiResCAM \\cite{draelos} is used throughout, as it is faithful to the model.",
])
def test_a_cited_method_chosen_in_the_passive_is_the_papers_own(tmp_path, opening):
    doc = _doc(tmp_path, MODEL + "\\section{Activation maps}\n" + opening + "\n"
               "Following its definition, each activation is weighted elementwise by its own gradient.\n"
               "We read the output of the last block.\n"
               "\\begin{thebibliography}{9}\\bibitem{jiang} P. Jiang. LayerCAM.\\bibitem{draelos} R. Draelos. "
               "HiResCAM.\\end{thebibliography}\n")
    assert doc["checklist"]["weighting"]["value"] == "elementwise"
    method = doc["checklist"]["method"]
    assert method["evidence"][0]["line"] == 6, method      # the opening sentence states the method


def test_a_cited_author_still_speaks_for_their_own_settings(tmp_path):
    doc = _doc(tmp_path, MODEL + "\\section{Activation maps}\nWe compute Grad-CAM on the last block.\n"
               "Chefer~\\cite{chefer} weights maps so that each activation is multiplied pointwise by its own "
               "gradient.\n")
    assert doc["checklist"]["weighting"]["status"] == "missing"


@pytest.mark.parametrize("sentence", [
    "Negative contributions are removed by a ReLU applied to this product, head by head.",
    "A rectifier acting on each product clears the negative entries before the heads are averaged.",
    "We then take the ReLU of the element-wise product, one head at a time.",
    "The product of each head's attention and its gradient is rectified before the heads are averaged.",
    "Negative entries of every gradient-attention product are clamped at zero.",
])
def test_a_relu_said_to_act_on_the_product_is_reported(tmp_path, sentence):
    # (not "on_gradients": "the product of attention and its gradient is rectified")
    doc = _doc(tmp_path, MODEL + "\\section{Gradient-weighted attention}\n"
               "We multiply the attention matrix of the last block element by element with its gradient.\n"
               + sentence + "\n")
    entry = doc["checklist"]["relu"]
    assert entry["status"] == "reported", entry
    assert entry["value"] == "on_products"


@pytest.mark.parametrize("sentence", [
    "We explain the official DINOv2 ViT-S/14, kept frozen, with a linear probe on top.",
    "The backbone is the publicly released OpenAI CLIP ViT-B/16, used without any fine-tuning.",
    "Features come from the torch.hub entry dinov2_vitl14_reg, which we do not train.",
    "I rely on the image tower of ViT-L/14@336px exactly as distributed.",
    "The model is the released SatMAE checkpoint for multispectral imagery.",
])
def test_a_named_official_release_is_a_reported_model(tmp_path, sentence):
    doc = _doc(tmp_path, "\\section{Model}\n" + sentence + "\n\\section{Grad-CAM}\n"
               "We compute Grad-CAM on the last block of the transformer.\n")
    entry = doc["checklist"]["model"]
    assert entry["status"] == "reported", entry


@pytest.mark.parametrize("sentence", [
    "We fine-tune a ViT-B/16 pretrained on ImageNet, released as part of this work.",
    "Our encoder is an MAE pretrained on our own scans.",
])
def test_an_architecture_with_generic_pretraining_stays_partial(tmp_path, sentence):
    doc = _doc(tmp_path, "\\section{Model}\n" + sentence + "\n\\section{Grad-CAM}\nWe compute Grad-CAM on "
               "the last block of the transformer.\n")
    assert doc["checklist"]["model"]["status"] == "partial"


@pytest.mark.parametrize("sentence", [
    "Maps are computed from the token representations of the final (twelfth) transformer block.",
    "We use token features from one of the late blocks, chosen on the validation split.",
    "Grad-CAM reads the patch embeddings at the deepest encoder layer.",
    "We take patch features at the twelfth block.",
])
def test_token_features_of_a_block_with_no_place_inside_it_are_a_partial_location(tmp_path, sentence):
    doc = _doc(tmp_path, MODEL + "\\section{Grad-CAM}\nWe compute Grad-CAM for the predicted class.\n"
               + sentence + "\n")
    entry = doc["checklist"]["location"]
    assert entry["status"] == "partial", entry


@pytest.mark.parametrize("sentence, status", [
    ("Code (tag v1.4.0): \\url{https://github.com/someone/heatvit}.", "reported"),
    ("Our scripts are public (release v2.0, https://gitlab.com/lab/vitmaps).", "reported"),
    ("All of this was done with my own Python scripts, which I share with anyone who asks.", "partial"),
    ("The maps come from an in-house extension of PySlowFast that is not public.", "partial"),
    ("We wrote a bespoke fork of the timm hooks for this study.", "partial"),
    ("I implemented the maps myself in a few hundred lines of PyTorch, not yet public.", "partial"),
])
def test_own_code_is_reported_when_pinned_and_partial_when_unreleased(tmp_path, sentence, status):
    doc = _doc(tmp_path, MODEL + "\\section{Grad-CAM}\nWe compute Grad-CAM on the last block.\n"
               + sentence + "\n")
    entry = doc["checklist"]["implementation"]
    assert entry["status"] == status, entry


def test_a_cited_method_used_as_a_comparison_is_not_the_papers_own(tmp_path):
    doc = _doc(tmp_path, MODEL + "\\section{Activation maps}\nWe compute Grad-CAM on the last block.\n"
               "LayerCAM~\\cite{jiang} is used as a comparison; in it each activation is multiplied pointwise by "
               "its own gradient.\n")
    assert doc["checklist"]["weighting"]["status"] == "missing"


def test_code_pinned_before_its_address_is_named_by_the_address(tmp_path):
    doc = _doc(tmp_path, MODEL + "\\section{Grad-CAM}\nWe compute Grad-CAM on the last block.\n"
               "Our code is released (commit 3fa9c2e): \\url{https://github.com/lab/tokencam}.\n")
    assert doc["checklist"]["implementation"]["value"] == {"library": "github.com/lab/tokencam",
                                                           "commit": "3fa9c2e"}


# -- heldout5 classes: values in words, new voices ---------------------------------------------------

def _cl(doc: dict, key: str) -> dict:
    return doc["checklist"][key]


def test_a_timm_name_with_the_timm_version_and_a_labs_release_name_the_weights(tmp_path):
    for model, weights in [
            ("(\\texttt{vit\\_small\\_patch16\\_224} as distributed with timm 0.9.16)", "timm 0.9.16"),
            ("(\\texttt{beitv2\\_base\\_patch16\\_224}, the default weights of timm v1.0.3)", "timm v1.0.3"),
            ("Meta DINOv2 ViT-B/14 with no further training", "DINOv2 ViT-B/14")]:
        doc = _doc(tmp_path, rf"""\section{{Method}}
The backbone is a vision transformer {model}, fine-tuned on the parcels.
Grad-CAM is computed at the last block's norm1 for the predicted logit.
""")
        assert _cl(doc, "model")["status"] == "reported", (model, _cl(doc, "model"))
        assert weights in _cl(doc, "model")["value"]["weights"]


def test_percentile_clipping_and_a_maximum_rescale_are_reported_postprocessing(tmp_path):
    for sentence, norm in [
            ("Each map is clamped to its 2nd and 98th percentiles and upsampled bilinearly to $224\\times224$.",
             "percentile"),
            ("Values of each map under the 10th percentile are set to zero; the map is then upsampled bicubically to the crop size.",
             "percentile"),
            ("The map is rescaled to [0,1] by its maximum and resized with bilinear interpolation to the input.",
             "max")]:
        doc = _doc(tmp_path, rf"""\section{{Saliency}}
We compute Grad-CAM for the ViT-B/16 at the last block.
{sentence}
""")
        assert _cl(doc, "postprocess")["status"] == "reported", (sentence, _cl(doc, "postprocess"))
        assert _cl(doc, "postprocess")["value"]["normalize"] == norm


def test_a_video_map_called_a_volume_is_post_processed(tmp_path):
    doc = _doc(tmp_path, r"""\section{Saliency}
We compute Grad-CAM for the TimeSformer-B at its last block, one map per tubelet.
Each volume is divided by its maximum and upsampled trilinearly to $8\times224\times224$.
""")
    assert _cl(doc, "postprocess")["status"] == "reported", _cl(doc, "postprocess")


def test_the_last_of_a_named_models_blocks_and_a_long_grid_named_after_its_sides(tmp_path):
    doc = _doc(tmp_path, r"""\section{Saliency}
For the AST we compute Grad-CAM on the output of the last of AST-S's twelve blocks.
The class token is dropped and the 600 patch tokens are placed on the $6\times100$ frequency-by-time grid.
""")
    assert _cl(doc, "layer")["value"] == {"block": -1}, _cl(doc, "layer")
    assert _cl(doc, "reshape")["value"]["grid"] == [6, 100], _cl(doc, "reshape")


def test_a_repository_pinned_to_a_commit_names_the_code(tmp_path):
    doc = _doc(tmp_path, r"""\section{Saliency}
We compute Grad-CAM for the ViT-B/16 at the last block.
The maps come from our fork of the GeoSeg codebase at commit 9f2c41e, with no other change.
""")
    assert _cl(doc, "implementation")["status"] == "reported", _cl(doc, "implementation")
    assert _cl(doc, "implementation")["value"]["commit"] == "9f2c41e"


def test_a_normalised_activation_inside_the_weighting_is_not_map_normalisation(tmp_path):
    doc = _doc(tmp_path, r"""\section{Saliency}
We compute XGrad-CAM maps for the DeiT-S at the last block: each gradient is weighted by the
normalised activation of its channel.
""")
    assert _cl(doc, "postprocess")["status"] == "missing", _cl(doc, "postprocess")


def test_a_class_given_as_the_argmax_is_the_predicted_class_and_only_upsampled_is_no_normalisation(tmp_path):
    doc = _doc(tmp_path, r"""\section{Saliency}
We compute Grad-CAM for the ViT-S/16 at the last block. The target is the logit of class $c = \arg\max f(x)$.
The resulting map is only upsampled, bilinearly, to the input size.
""")
    assert _cl(doc, "target")["value"].get("class") == "predicted", _cl(doc, "target")
    assert _cl(doc, "postprocess")["value"].get("normalize") == "none", _cl(doc, "postprocess")
