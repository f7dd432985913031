"""Consistency findings (CAM2xx) on classes of writing from unseen manuscripts (issue 12): a
finding only where the statements cannot both hold, whatever way the author counts or words them."""
from __future__ import annotations

from conftest import doc_of, write_project

PREAMBLE = "\\documentclass{article}\n\\begin{document}\n"


def _codes(tmp_path, body: str) -> set[str]:
    doc = doc_of(write_project(tmp_path, {"main.tex": PREAMBLE + body + "\n\\end{document}\n"}))
    return {f["code"] for f in doc["findings"] if f["code"].startswith("CAM2")}


def test_block_k_of_n_read_from_zero_agrees_with_the_last_block(tmp_path):
    # "layer 23 of 24" is the last layer counted from zero (the taxonomy's "index 11 of 12"):
    # one reading agrees with "the final layer", so the two statements do not conflict
    codes = _codes(tmp_path, r"""\section{Relevance maps}
Our classifier is a ViT-L/16 from timm (\texttt{vit\_large\_patch16\_224}) tuned on pollen slides.
Grad-CAM maps are computed on the activations of the final encoder layer of the ViT-L/16.
\begin{tabular}{ll}
Hooked layer & layer 23 of 24 \\
\end{tabular}
""")
    assert "CAM211" not in codes


def test_block_k_of_n_conflicts_only_when_both_readings_do(tmp_path):
    # "layer 20 of 24" is index 20 or 19 — neither is the final layer (index 23)
    codes = _codes(tmp_path, r"""\section{Relevance maps}
Our classifier is a ViT-L/16 from timm (\texttt{vit\_large\_patch16\_224}) tuned on pollen slides.
Grad-CAM maps are computed on the activations of the final encoder layer of the ViT-L/16.
\begin{tabular}{ll}
Hooked layer & layer 20 of 24 \\
\end{tabular}
""")
    assert "CAM211" in codes


def test_a_count_that_names_itself_the_last_is_not_beyond_the_depth(tmp_path):
    # "layer 24 (the last of twenty-four)" counts from one; a bare "layer 25" does not exist either way
    good = _codes(tmp_path, r"""\section{Relevance maps}
We explain a ViT-L/16 (\texttt{vit\_large\_patch16\_224}) fine-tuned on pollen slides.
The Grad-CAM hook reads the residual output of layer 24 (the last of twenty-four) of the encoder.
""")
    assert "CAM203" not in good
    bad = _codes(tmp_path / "bad", r"""\section{Relevance maps}
We explain a ViT-L/16 (\texttt{vit\_large\_patch16\_224}) fine-tuned on pollen slides.
The Grad-CAM hook reads the residual output of layer 25 of the encoder.
""")
    assert "CAM203" in bad


def test_softmax_attention_weights_are_the_location_not_the_target(tmp_path):
    # the explained score is a retrieval similarity; "softmax-normalised attention probabilities"
    # describe the matrix the gradient is taken at, not a second kind of target
    codes = _codes(tmp_path, r"""\section{Relevance maps}
We explain an OpenCLIP ViT-B/16 (\texttt{laion2b\_s34b\_b88k}) used for sketch retrieval.
The differentiated score is the cosine similarity between the sketch and photo embeddings.
We take $\partial s/\partial P$, where $P$ are the post-softmax attention probabilities of the last
block, multiply it with $P$ elementwise, clamp at zero and average over the twelve heads.
""")
    assert "CAM208" not in codes
    bad = _codes(tmp_path / "bad", r"""\section{Relevance maps}
We explain an OpenCLIP ViT-B/16 (\texttt{laion2b\_s34b\_b88k}) used for sketch retrieval.
The differentiated score is the cosine similarity between the sketch and photo embeddings.
For the figures, the gradient of the softmax probability of the matching photo is used instead.
""")
    assert "CAM208" in bad


HYBRID_MODEL = r"""\section{Network}
Defects are classified by a hybrid R50+ViT-B/16 (\texttt{vit\_base\_r50\_s16\_224} from timm,
ImageNet-21k weights), fine-tuned on our wafer images at $224\times224$.
"""


def test_a_map_at_the_convolutional_stem_of_a_hybrid_needs_no_tokens_reshape_or_location(tmp_path):
    doc = doc_of(write_project(tmp_path, {"main.tex": PREAMBLE + HYBRID_MODEL + r"""
\section{Saliency}
Grad-CAM is computed on the last stage of the ResNet-50 stem of the hybrid, before tokenisation.
We differentiate the logit of the predicted defect class, average the gradients per channel and
apply a ReLU after the weighted sum; maps are min-max scaled and bilinearly upsampled.
\end{document}
"""}))
    assert doc["uses_cam_on_transformer"] is True
    status = {k: v["status"] for k, v in doc["checklist"].items()}
    assert {status[k] for k in ("tokens", "reshape", "location", "heads")} == {"not_applicable"}, status


def test_a_map_at_a_transformer_block_of_the_same_hybrid_still_needs_them(tmp_path):
    doc = doc_of(write_project(tmp_path, {"main.tex": PREAMBLE + HYBRID_MODEL + r"""
\section{Saliency}
Grad-CAM is computed on the last transformer block of the hybrid.
We differentiate the logit of the predicted defect class, average the gradients per channel and
apply a ReLU after the weighted sum; maps are min-max scaled and bilinearly upsampled.
\end{document}
"""}))
    status = {k: v["status"] for k, v in doc["checklist"].items()}
    assert status["tokens"] == "missing" and status["reshape"] == "missing", status


def _implementation(tmp_path, sentence: str) -> dict:
    doc = doc_of(write_project(tmp_path, {"main.tex": PREAMBLE + r"""\section{Explanations}
We explain a DeiT-S (\texttt{deit\_small\_patch16\_224}) with Grad-CAM at its last block.
""" + sentence + "\n\\end{document}\n"}))
    return doc["checklist"]["implementation"]


def test_an_archive_of_weights_or_data_is_not_the_implementation(tmp_path):
    weights = _implementation(tmp_path, "The fine-tuned weights and the test split are archived on "
                                        "Zenodo (doi:10.5281/zenodo.998877).")
    assert weights["status"] == "missing", weights
    code = _implementation(tmp_path / "code", "The scripts and the fine-tuned weights are archived on "
                                              "figshare (doi:10.6084/m9.figshare.998877).")
    assert code["status"] != "missing", code


def _item(tmp_path, body: str, key: str) -> dict:
    doc = doc_of(write_project(tmp_path, {"main.tex": PREAMBLE + body + "\n\\end{document}\n"}))
    return doc["checklist"][key]


def test_the_statement_not_the_aside_is_the_evidence_of_the_layer(tmp_path):
    # the block is stated on line 6; line 7 names the last block only in a reason
    layer = _item(tmp_path, r"""\section{Saliency}
We explain a DeiT-B (\texttt{deit\_base\_patch16\_224}) trained on herbarium sheets.
Grad-CAM maps were computed
at the ninth of the twelve blocks, counted from the input,
rather than at the top of the network, since the last block
mostly encodes the class decision.""", "layer")
    assert layer["evidence"][0]["line"] == 6, layer


def test_a_sentence_that_lists_the_modules_of_a_block_does_not_state_the_location(tmp_path):
    # lines 5-6 name four places inside the block (a glossary); line 9 says where the hook sits
    location = _item(tmp_path, r"""\section{Saliency}
We explain a DeiT-B (\texttt{deit\_base\_patch16\_224}) trained on herbarium sheets.
In every block, \texttt{norm1} precedes the attention, \texttt{attn.proj} projects its output,
\texttt{norm2} precedes the MLP and the block output is the residual stream after it.
Grad-CAM maps are computed on the last block.
The gradient hook sits on
\texttt{blocks[-1].norm2}.""", "location")
    assert location["value"] == "F4" and location["evidence"][0]["line"] == 9, location


# --- features taken at a block, stated against the camspec (CAM211) ---------------------------

def _camspec(layer: str) -> str:
    return "\\begin{camspec}\nmethod: Grad-CAM\nlayer: " + layer + "\n\\end{camspec}\n"


def test_features_read_at_a_counted_last_block_conflict_with_another_camspec_block(tmp_path):
    # the prose says the last of 24 blocks in words that speak of the features, not of "maps"
    first = _codes(tmp_path, r"""\section{Grad-CAM on the encoder}
Our model is a ViT-L/16 (\texttt{vit\_large\_patch16\_224}) fine-tuned on sonar tiles.
We read the token features at the output of the last encoder block (block 24 of 24).
""" + _camspec("blocks[17]"))
    assert "CAM211" in first
    second = _codes(tmp_path / "two", r"""\section{Grad-CAM on the encoder}
Our model is a ViT-L/16 (\texttt{vit\_large\_patch16\_224}) fine-tuned on sonar tiles.
We use the patch features produced by the final block (block 24 of 24) of the encoder.
""" + _camspec("blocks[12]"))
    assert "CAM211" in second
    agree = _codes(tmp_path / "agree", r"""\section{Grad-CAM on the encoder}
Our model is a ViT-L/16 (\texttt{vit\_large\_patch16\_224}) fine-tuned on sonar tiles.
We read the token features at the output of the last encoder block (block 24 of 24).
""" + _camspec("blocks[23]"))
    assert "CAM211" not in agree


# --- a kept class token, its removal named only as the alternative (CAM212) --------------------

def test_a_kept_class_token_with_its_removal_named_as_the_alternative_does_not_fit_the_grid(tmp_path):
    intro = r"""\section{Grad-CAM}
We explain a DeiT-S (\texttt{deit\_small\_patch16\_224}) at $224\times224$ with Grad-CAM at its last block.
"""
    first = _codes(tmp_path, intro + "We keep the class token, since removing it blurred the maps, and "
                                      "the 197 tokens are reshaped to a $14\\times14$ grid.")
    assert "CAM212" in first or "CAM201" in first
    second = _codes(tmp_path / "two", intro + "The class token stays in the sequence, because removing it "
                                              "made the maps noisier, and the 197 tokens are reshaped to a "
                                              "$14\\times14$ grid.")
    assert "CAM212" in second or "CAM201" in second
    dropped = _codes(tmp_path / "dropped", intro + "The class token is dropped from the 197 tokens and "
                                                   "the rest are reshaped to a $14\\times14$ grid.")
    assert not {"CAM212", "CAM201"} & dropped


# --- a head aggregation named only in a comparison (CAM206) ------------------------------------

def _heads_doc(tmp_path, results: str, method: str = "") -> set[str]:
    return _codes(tmp_path, r"""\section{Grad-CAM}
We explain a DeiT-S (\texttt{deit\_small\_patch16\_224}) with Grad-CAM on \texttt{blocks[-1].norm1},
the LayerNorm before the attention; the class token is dropped before the reshape.
""" + method + "\n\\section{Results}\n" + results)


def test_heads_averaged_by_a_compared_method_say_nothing_of_the_own_location(tmp_path):
    assert "CAM206" not in _heads_doc(tmp_path, "Our Grad-CAM maps gain 3.2 mIoU points over head-averaged "
                                                "gradient-weighted attention.")
    assert "CAM206" not in _heads_doc(tmp_path / "two", "Attention maps averaged over the heads score "
                                                        "lower on deletion than our Grad-CAM maps.")
    assert "CAM206" in _heads_doc(tmp_path / "own", "", "The six heads are averaged for our maps.")


# --- a classifier that predicts: the model's task, not the class of the map (CAM209) ------------

def _class_doc(tmp_path, closing: str) -> set[str]:
    return _codes(tmp_path, r"""\section{Grad-CAM}
We explain a DeiT-S (\texttt{deit\_small\_patch16\_224}) with Grad-CAM at its last block.
The gradient is taken of the logit of the ground-truth class of each image.
\section{Conclusion}
\begin{enumerate}
\item Grad-CAM maps of the transformer highlight pits and grain boundaries.
\item """ + closing + "\n\\end{enumerate}")


def test_a_classifier_that_predicts_a_property_states_no_target_class(tmp_path):
    assert "CAM209" not in _class_doc(tmp_path, "A DeiT-S classifier predicts corrosion risk from "
                                                "optical micrographs.")
    assert "CAM209" not in _class_doc(tmp_path / "two", "Our classifier predicted pitting density from "
                                                        "the surface scans.")
    assert "CAM209" in _class_doc(tmp_path / "figure", "Figure 3 shows the maps for the predicted class.")


def test_a_spec_grid_is_checked_against_the_timm_keywords_that_change_the_layout(tmp_path):
    # vit_tiny_patch16_224 built with img_size 64 and patch_size 8 has an 8 x 8 grid, not 4 x 4
    spec = ("camspec: 1\nmodel:\n  arch: vit_tiny_patch16_224\n"
            "  kwargs: {img_size: 64, patch_size: 8, depth: 4, num_classes: 4}\n"
            "  input_size: [3, 64, 64]\nmethod: gradcam\nlayer: {block: -1}\nlocation: F1\n"
            "tokens: {drop: [cls]}\nreshape: {grid: [GRID], order: row_major}\n")
    codes = {}
    for grid in ("8, 8", "4, 4"):
        path = tmp_path / f"spec{grid[0]}.yaml"
        path.write_text(spec.replace("GRID", grid))
        codes[grid] = {f["code"] for f in doc_of(path)["findings"]}
    assert "CAM202" not in codes["8, 8"]
    assert "CAM202" in codes["4, 4"]
