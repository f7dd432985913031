"""Consistency findings (CAM2xx) on classes of writing seen in the held-out sets 11-14: each test
pairs a statement that contradicts another (or the architecture) with a near twin that does not.
The sentences are new, written for these tests."""
from __future__ import annotations

from conftest import lint_tex


def _codes(tmp_path, body: str) -> set[str]:
    return {f["code"] for f in lint_tex(tmp_path, body)["findings"] if f["code"].startswith("CAM2")}


def _camspec(layer: str) -> str:
    return "\\begin{camspec}\nmethod: Grad-CAM\nlayer: " + layer + "\n\\end{camspec}\n"


# --- the shown maps compared across groups are still the shown maps (CAM211) ------------------

def test_maps_rescaled_for_comparison_across_groups_still_state_their_block(tmp_path):
    # "for comparison among hospitals" compares the paper's own maps between subsets of the data;
    # it is not a comparison with maps from another block or method
    bad = _codes(tmp_path, r"""\section{Saliency}
Our model is a ViT-B/16 (\texttt{vit\_base\_patch16\_224}) tuned on chest radiographs.
Grad-CAM maps are taken at the final encoder block (index 11) and rescaled for comparison among hospitals.
""" + _camspec("blocks[9]"))
    assert "CAM211" in bad
    good = _codes(tmp_path / "good", r"""\section{Saliency}
Our model is a ViT-B/16 (\texttt{vit\_base\_patch16\_224}) tuned on chest radiographs.
Grad-CAM maps are taken at the final encoder block (index 11) and rescaled for comparison among hospitals.
""" + _camspec("blocks[11]"))
    assert "CAM211" not in good


def test_a_comparison_across_blocks_is_still_a_sweep(tmp_path):
    codes = _codes(tmp_path, r"""\section{Saliency}
Our model is a ViT-B/16 (\texttt{vit\_base\_patch16\_224}) tuned on chest radiographs.
Grad-CAM maps at block 6 are shown for comparison across the deeper blocks.
""" + _camspec("blocks[11]"))
    assert "CAM211" not in codes


# --- a count said to be the whole sequence, prefix tokens included (CAM212) -------------------

VIT_S = r"""\section{Heatmaps}
We fine-tune a ViT-S/16 (\texttt{vit\_small\_patch16\_224}) on $224\times224$ crops of textile scans.
"""


def test_the_whole_sequence_with_its_class_token_does_not_fill_the_patch_grid(tmp_path):
    # "class token included" / "including the class token": the 197 are the full sequence, reshaped as is
    for i, words in enumerate(("Grad-CAM reads every one of the 197 tokens, the class token included, as "
                               "positions of a $14\\times14$ map.",
                               "The 197 token activations, including the class token, are folded into a "
                               "$14\\times14$ map for Grad-CAM.")):
        # read as "[CLS] kept" the conflict is CAM201 (kept class token, patch grid); read as a count, CAM212
        assert {"CAM201", "CAM212"} & _codes(tmp_path / str(i), VIT_S + words), words


def test_the_whole_sequence_before_the_class_token_is_dropped_fits(tmp_path):
    codes = _codes(tmp_path, VIT_S + "For Grad-CAM, all 197 tokens leave the last block; the class token is "
                   "then discarded and the rest are folded into a $14\\times14$ map.")
    assert "CAM212" not in codes


# --- a video's token volume against the length of its clip (CAM212) ---------------------------

VIDEO = r"""\section{Spatio-temporal maps}
We fine-tune a video transformer on {clip} of traffic footage at $224\times224$, patch size 16.
Grad-CAM is applied to the last block; the patch tokens are arranged as a {t}$\times$14$\times$14
volume over time, height and width.
"""


def _video(clip: str, t: int) -> str:
    return VIDEO.replace("{clip}", clip).replace("{t}", str(t))


def test_a_token_volume_with_more_time_positions_than_frames_is_flagged(tmp_path):
    assert "CAM212" in _codes(tmp_path, _video("clips of 4 frames", 12))
    assert "CAM212" in _codes(tmp_path / "b", _video("6-frame clips", 12))


def test_a_token_volume_of_tubelets_or_frames_within_the_clip_fits(tmp_path):
    assert "CAM212" not in _codes(tmp_path, _video("clips of 12 frames", 12))
    assert "CAM212" not in _codes(tmp_path / "b", _video("24-frame clips", 12))
    # no clip length stated: nothing to hold the volume against
    assert "CAM212" not in _codes(tmp_path / "c", _video("short clips", 12))


def test_the_length_of_the_upsampled_map_is_the_clip_length(tmp_path):
    body = _video("short clips", 12) + ("Each map is trilinearly upsampled to "
                                                      "$6\\times224\\times224$ for display.")
    assert "CAM212" in _codes(tmp_path, body)


# --- a head count written as a symbol still says how heads are combined (CAM205) --------------

ATTN = r"""\section{Attention relevance}
We explain a DeiT-B (\texttt{deit\_base\_patch16\_224}) with Grad-CAM on the post-softmax attention
matrices of its last block, for the predicted logit.
"""


def test_heads_combined_over_a_symbolic_count_are_stated(tmp_path):
    for i, words in enumerate(("Per head the product is clamped at zero, and the $K=12$ heads are then averaged.",
                               "The clamped products are summed per head; we take the mean over the $m$ heads.")):
        assert "CAM205" not in _codes(tmp_path / str(i), ATTN + words), words


def test_heads_as_the_object_or_the_axis_of_the_aggregation_are_stated(tmp_path):
    # "we average the heads", "over the head dimension", "head-wise mean", "the maximum across heads"
    for i, words in enumerate(("After clamping, we average the attention heads of the last block.",
                               "The clamped products are averaged over the head dimension.",
                               "A head-wise mean turns the clamped products into one matrix.",
                               "Of the clamped products we keep the maximum across heads.",
                               "The mean is computed over heads once the products are clamped.",
                               "Each head is used as a separate channel of the feature map.")):
        assert "CAM205" not in _codes(tmp_path / str(i), ATTN + words), words


def test_attention_without_a_word_on_heads_is_still_flagged(tmp_path):
    assert "CAM205" in _codes(tmp_path, ATTN + "The product is clamped at zero and reshaped to $14\\times14$.")


# --- a kept class token outside the part that states the maps is not the paper's policy (CAM201)

def test_a_task_set_to_the_reader_does_not_keep_the_class_token(tmp_path):
    body = r"""\section{Grad-CAM on a ViT-B/16}
We explain \texttt{vit\_base\_patch16\_224} with Grad-CAM at the norm1 output of the last block.
The token activations are folded into a $14\times14$ map in raster order.
\section{Exercises}
\begin{enumerate}
\item Retain the class token and reshape the 197 token activations in your own implementation. Which error appears?
\end{enumerate}
"""
    assert "CAM201" not in _codes(tmp_path, body)
    stated = body.replace("in raster order.", "in raster order; we retain the class token in the sequence.")
    assert "CAM201" in _codes(tmp_path / "kept", stated)


# --- a camspec written in short words disagrees with the text on any key (CAM210) -------------

def _spec_doc(prose: str, spec: str) -> str:
    return (r"""\section{Saliency}
We explain a ViT-S/16 (\texttt{vit\_small\_patch16\_224}, ImageNet-21k weights) with Grad-CAM.
""" + prose + "\n\\begin{camspec}\nmethod: Grad-CAM\n" + spec + "\n\\end{camspec}\n")


def test_short_camspec_words_are_read_through_the_schema_synonyms(tmp_path):
    cases = [("The channel-weighted sum is left signed, with no rectification at all.", "relu: after sum"),
             ("We keep the class token in the sequence passed to the reshape.", "tokens: drop cls"),
             ("The 196 patch tokens are placed on the $14\\times14$ grid in column-major order.",
              "reshape: 196 tokens to 14 x 14, raster order"),
             ("Every map is rescaled to the unit interval by its minimum and maximum.", "postprocess: none")]
    for i, (prose, spec) in enumerate(cases):
        assert "CAM210" in _codes(tmp_path / str(i), _spec_doc(prose, spec)), spec


def test_short_camspec_words_that_agree_with_the_text_are_silent(tmp_path):
    cases = [("The channel-weighted sum is left signed, with no rectification at all.", "relu: none"),
             ("The class token and the distillation token are both discarded.", "tokens: drop cls and dist tokens"),
             ("The 196 patch tokens are placed on the $14\\times14$ grid in raster order.",
              "reshape: 196 tokens to 14 x 14, row-major"),
             # a word that is no synonym pins nothing: no guess at what "standard" means
             ("The channel-weighted sum is left signed, with no rectification at all.", "relu: standard")]
    for i, (prose, spec) in enumerate(cases):
        assert "CAM210" not in _codes(tmp_path / str(i), _spec_doc(prose, spec)), spec


def test_a_sentence_giving_the_sequence_and_the_patch_count_fits(tmp_path):
    # "197 tokens including the class token ... only the 196 patch tokens": both counts are given
    codes = _codes(tmp_path, VIT_S + "For Grad-CAM the encoder returns 197 tokens including the class token, "
                   "and only the 196 patch tokens are laid on a $14\\times14$ grid.")
    assert "CAM212" not in codes


def test_the_method_s_original_formulation_is_not_another_map(tmp_path):
    # "as in the original Grad-CAM++ formulation" names where the weights come from; the sentence
    # still states the block of the paper's own maps
    body = r"""\section{Saliency}
Our model is a ViT-B/16 (\texttt{vit\_base\_patch16\_224}) tuned on leaf images.
Grad-CAM++ maps are computed at the penultimate block, with the second-order weights of the original
Grad-CAM++ formulation.
"""
    assert "CAM211" in _codes(tmp_path, body + _camspec("blocks[11]"))
    assert "CAM211" not in _codes(tmp_path / "good", body + _camspec("blocks[10]"))


def test_a_camspec_block_given_as_a_module_path_is_compared_with_the_text(tmp_path):
    # "layer: blocks.8" is the module path named_modules() gives; the text says the last block
    body = r"""\section{Saliency}
Our model is a ViT-B/16 (\texttt{vit\_base\_patch16\_224}) tuned on leaf images.
Grad-CAM maps are computed at the last block of the encoder.
"""
    assert "CAM211" in _codes(tmp_path, body + _camspec("blocks.8"))
    assert "CAM211" not in _codes(tmp_path / "good", body + _camspec("model.blocks.11 (the last one)"))


# --- a prefix token kept, then the whole sequence reshaped to the patch grid (CAM201) ---------
# The two statements stand in neighbouring sentences the items may not both read ("the class
# token we leave it with the others", "reorganised in a matrix of ..."): the rule reads both.

DEIT_S = r"""\section{Explanations}
The network is a DeiT-S (\texttt{deit\_small\_patch16\_224}) trained on $224\times224$ leaf photographs.
Grad-CAM is computed on the token activations of the last encoder block.
"""


def test_a_kept_class_token_then_the_tokens_put_in_a_matrix_is_flagged(tmp_path):
    codes = _codes(tmp_path, DEIT_S + "The class token we retain it next to the patch tokens, since it "
                   "summarises the whole leaf.\nSubsequently the tokens were reorganised in a matrix of "
                   "$14\\times14$ following the patch order.\n")
    assert "CAM201" in codes


def test_kept_prefix_tokens_and_the_resulting_sequence_in_one_sentence_are_flagged(tmp_path):
    codes = _codes(tmp_path, DEIT_S + "We preserved the class and distillation tokens along with the "
                   "patch tokens, and the resulting sequence was then folded into a $14\\times14$ map.\n")
    assert "CAM201" in codes


def test_all_counted_tokens_after_a_kept_class_token_are_flagged(tmp_path):
    codes = _codes(tmp_path, DEIT_S + "I keep the CLS token in, as it carries the global context.\n"
                   "Afterwards all 197 tokens are rearranged into a $14 \\times 14$ grid.\n")
    assert "CAM201" in codes


def test_the_patch_tokens_reshaped_after_a_kept_class_token_fit(tmp_path):
    # the [CLS] token kept for the classifier; only the patch tokens fill the grid
    codes = _codes(tmp_path, DEIT_S + "The class token is kept for the classification head.\n"
                   "The patch tokens are rearranged into a $14\\times14$ grid.\n")
    assert "CAM201" not in codes


def test_a_class_token_dropped_between_keeping_and_reshaping_fits(tmp_path):
    codes = _codes(tmp_path, DEIT_S + "The class token is retained through the backward pass.\n"
                   "Before the reshape the class and distillation tokens are removed, and the tokens "
                   "are then rearranged into a $14\\times14$ grid.\n")
    assert "CAM201" not in codes


def test_a_class_token_not_kept_then_the_tokens_reshaped_fit(tmp_path):
    codes = _codes(tmp_path, DEIT_S + "We do not keep the class token or the distillation token.\n"
                   "The tokens are rearranged into a $14\\times14$ grid.\n")
    assert "CAM201" not in codes


# --- a block that is not the setting of the shown maps (CAM211) -------------------------------
# the other side of a comparison, the block that receives the tapped features, a block named
# again after it was avoided; and the outcome an alternative block gave

VIT_B = r"""\section{Saliency}
Our model is a ViT-B/16 (\texttt{vit\_base\_patch16\_224}) tuned on wafer images; Grad-CAM explains
its predictions.
"""


def test_another_method_s_block_across_against_is_not_a_statement(tmp_path):
    codes = _codes(tmp_path, VIT_B + "Grad-CAM maps are computed at block 9 (\\texttt{blocks[9]}).\n"
                   "The maps reach a pointing score of 0.71, against 0.52 for the mean head attention of "
                   "the last layer.\n" + _camspec("blocks[9]"))
    assert "CAM211" not in codes


def test_the_block_that_receives_the_features_is_not_the_tapped_block(tmp_path):
    codes = _codes(tmp_path, VIT_B + "The hook sits on \\texttt{blocks[10]}, the penultimate block.\n"
                   "Thus the map explains the activations exactly as they are fed into the final block.\n")
    assert "CAM211" not in codes


def test_a_block_named_again_after_it_was_avoided_is_still_avoided(tmp_path):
    codes = _codes(tmp_path, VIT_B + "The hook sits on \\texttt{blocks[10]}, the penultimate block.\n"
                   "We refrain from hooking the last block because in our runs the last block pools its "
                   "gradients into the class token.\n")
    assert "CAM211" not in codes


def test_what_an_alternative_block_gave_does_not_hide_the_setting(tmp_path):
    # one sentence gives the block of the figures and the outcome of the rejected block: the
    # setting is still compared with the camspec
    bad = _codes(tmp_path, VIT_B + "For every figure the Grad-CAM maps were taken on \\texttt{blocks[-2]}; "
                 "blocks[-1] gave flat maps on small wafers.\n" + _camspec("blocks[-1]"))
    assert "CAM211" in bad
    good = _codes(tmp_path / "good", VIT_B + "For every figure the Grad-CAM maps were taken on "
                  "\\texttt{blocks[-2]}; blocks[-1] gave flat maps on small wafers.\n" + _camspec("blocks[-2]"))
    assert "CAM211" not in good


# --- heads averaged by another explanation method are not the paper's own (CAM206) ------------

def test_heads_averaged_by_a_compared_rollout_are_not_a_head_rule_of_the_maps(tmp_path):
    body = VIT_B + ("Grad-CAM is read at the norm1 output of the last block (\\texttt{blocks[11].norm1}).\n"
                    "The rollout we benchmark uses identity residuals and heads averaged, as its authors do.\n")
    assert "CAM206" not in _codes(tmp_path, body)


def test_heads_averaged_for_the_grad_cam_maps_at_norm1_are_still_flagged(tmp_path):
    body = VIT_B + ("Grad-CAM is read at the norm1 output of the last block (\\texttt{blocks[11].norm1}).\n"
                    "For the Grad-CAM maps the heads are averaged.\n")
    assert "CAM206" in _codes(tmp_path, body)


# --- a grid held against an architecture that the weights id contradicts (CAM202) -------------

def _model_read(arch: str, weights: str, grid: int, size: int):
    from types import SimpleNamespace

    from camlint.core.architectures import architecture_of

    values = {"model": {"arch": arch, "weights": weights}, "reshape": {"grid": [grid, grid]}}
    return SimpleNamespace(values=values, arch=architecture_of({"model": arch}, size), uses_cam=True,
                           where=lambda key: ("main.tex", 1, 1))


def test_a_grid_is_not_held_against_a_name_the_weights_contradict():
    # the name read from a comparison table (ViT-B/16) while the weights are a SwinV2's: which
    # model the maps come from is unsure
    from camlint.rules.consistency import check_grid_matches_input

    assert not list(check_grid_matches_input(_model_read("ViT-B/16", "swinv2_tiny_window8_256.ms_in1k", 8, 256)))
    assert list(check_grid_matches_input(_model_read("ViT-B/16", "vit_base_patch16_224.augreg_in21k", 8, 256)))


# --- an attention location whose heads are said to be combined "after" something, not how (CAM205)

def test_heads_combined_at_an_unstated_rule_are_flagged(tmp_path):
    # "rectified after the product" gives an order, no mean, max, sum or heads as channels
    words = "The gradient-attention product is rectified after the product and the [CLS] row is read out."
    assert "CAM205" in _codes(tmp_path, ATTN + words)
    stated = words + " The heads are then averaged."
    assert "CAM205" not in _codes(tmp_path / "stated", ATTN + stated)


# --- a statement for every shown map outside the CAM sections; another paper's quoted words (CAM211)

def test_a_results_statement_of_the_block_of_all_maps_is_compared_with_the_camspec(tmp_path):
    # a results paragraph that names no CAM method lies outside the CAM scope
    body = VIT_B + _camspec("blocks[-1]") + ("\\section{Results}\nThe last block spreads its mass over "
                                             "the background. All maps and scores in this section were "
                                             "therefore obtained at the penultimate block, \\texttt{blocks[-2]}.\n")
    assert "CAM211" in _codes(tmp_path, body)
    agree = body.replace("blocks[-1]", "blocks[-2]", 1)
    assert "CAM211" not in _codes(tmp_path / "agree", agree)


def test_another_paper_s_quoted_block_is_not_a_statement_of_this_one(tmp_path):
    body = VIT_B + ("The authors of the benchmark write that they ``compute Grad-CAM maps at the final "
                    "block of the encoder''. Our Grad-CAM maps are computed at block 9 "
                    "(\\texttt{blocks[9]}).\n" + _camspec("blocks[9]"))
    assert "CAM211" not in _codes(tmp_path, body)


# --- a hybrid or hierarchical model camlint has no geometry for still has no [CLS] (CAM204) ----

def test_a_class_token_removed_from_a_mobilevit_is_flagged(tmp_path):
    body = (r"""\section{Saliency}
We deploy MobileViT-XS (\texttt{apple/mobilevit-x-small}) on a phone camera and explain it with Grad-CAM
at its last transformer layer; the class token is dropped and the remaining tokens are folded back to
a $6\times6$ map.
""")
    assert "CAM204" in _codes(tmp_path, body)
    kept_quiet = body.replace("the class token is dropped and the remaining tokens are", "the tokens are")
    assert "CAM204" not in _codes(tmp_path / "quiet", kept_quiet)


# --- a model name without its patch size takes the patch from the weights id (CAM202) ---------

def test_the_patch_of_the_weights_id_fixes_the_grid_of_a_name_without_one(tmp_path):
    body = (r"""\section{Grad-CAM}
Our classifier is ViT-Base, loaded from \texttt{google/vit-base-patch32-384} and fine-tuned on
herbarium sheets resized to $384\times384$. Grad-CAM is taken at the last encoder layer; the class token
is dropped and the patch tokens are reshaped to a $24\times24$ grid.
""")
    assert "CAM202" in _codes(tmp_path, body)
    right = body.replace("24\\times24", "12\\times12")
    assert "CAM202" not in _codes(tmp_path / "right", right)


# --- a camspec with no rectification while the text clips negative values (CAM210) ------------

def _relu_doc(sentence: str, relu: str) -> str:
    return (VIT_B + "Grad-CAM maps are computed at the last block (\\texttt{blocks[11]}). " + sentence + "\n"
            "\\begin{camspec}\nmethod: Grad-CAM\nlayer: blocks[11]\nrelu: " + relu + "\n\\end{camspec}\n")


def test_clipping_without_a_placement_contradicts_a_camspec_without_relu(tmp_path):
    words = "Values below zero are clamped to zero before display."
    assert "CAM210" in _codes(tmp_path, _relu_doc(words, "none"))
    assert "CAM210" not in _codes(tmp_path / "agree", _relu_doc(words, "after_combination"))


def test_a_text_that_keeps_the_negative_values_agrees_with_no_relu(tmp_path):
    words = "No clamping is applied, so negative values remain in the map."
    assert "CAM210" not in _codes(tmp_path, _relu_doc(words, "none"))
