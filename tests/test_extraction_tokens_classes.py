"""Classes of writing about the token-side keys (tokens, reshape, location, layer, heads) met on
manuscripts camlint was not tuned on (heldout11..14): each test is a small manuscript of our own
sentences, two phrasings per class, checked end to end through `camlint check`."""
from __future__ import annotations

import pytest

from conftest import item_of, lint_tex

MODEL = "We fine-tune a ViT-B/16 (vit_base_patch16_224.augreg_in21k) on retinal images."
DEIT = "We fine-tune deit_base_distilled_patch16_224 (timm, ImageNet-1k weights) on retinal images."
SWIN = "We fine-tune a Swin-T (swin_tiny_patch4_window7_224, ImageNet-1k weights) on retinal images."


def _doc(tmp_path, text: str, model: str = MODEL, where: str = " at its last block") -> dict:
    return lint_tex(tmp_path, "\\section{Model}\n" + model + "\n\\section{Grad-CAM maps}\n"
                    "We explain the classifier with Grad-CAM" + where + ".\n" + text + "\n")


# -- location: the sub-layer named with another determiner than "the" --------------------------

@pytest.mark.parametrize("sentence", [
    "The feature map is the output of its MLP sub-layer, taken before the residual addition.",
    "For every block we read the output of each feed-forward network as the activation.",
])
def test_the_output_of_its_mlp_is_f5(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence), "location") == ("reported", "F5")


# -- location: a hierarchical model's stage output is the output of its last block (F6) -----------

@pytest.mark.parametrize("sentence", [
    "The activations are the last-stage output of the backbone, of shape 7 x 7 x 768.",
    "We hook the stage-4 output, a 7 x 7 grid of 768-dimensional features.",
])
def test_a_stage_output_is_f6(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence, SWIN), "location") == ("reported", "F6")


# -- location: token features with no place inside the block are partial ----------------------

@pytest.mark.parametrize("sentence", [
    "We take the stage-3 token features as the activations.",
    "Inside the last block we use the patch embeddings as the activations.",
])
def test_token_features_without_a_point_in_the_block_are_partial(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence), "location")[0] == "partial"


# -- tokens: the class token said to be part of what is reshaped is kept ------------------------

@pytest.mark.parametrize("sentence", [
    "The whole sequence of 197 tokens, class token included, goes into the reshape.",
    "We keep every token, including the [CLS] token, when forming the feature map.",
])
def test_the_class_token_included_is_kept(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence), "tokens") == ("reported", {"drop": []})


# -- tokens: the prefix tokens named by position, their names in parentheses ---------------------

@pytest.mark.parametrize("sentence", [
    "Before the reshape we discard positions 0 and 1 (class, distillation) of the activations.",
    "We remove tokens 0 and 1 ([CLS] and [DIST]) from the activations and their gradients.",
])
def test_positions_zero_and_one_named_cls_and_dist_are_dropped(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence, DEIT), "tokens") == ("reported", {"drop": ["cls", "dist"]})


@pytest.mark.parametrize("sentence", [
    "Both the class token and the distillation token are discarded before the reshape.",
    "The class token and the distillation token were removed from the sequence of activations.",
])
def test_class_token_and_distillation_token_both_dropped(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence, DEIT), "tokens") == ("reported", {"drop": ["cls", "dist"]})


@pytest.mark.parametrize("sentence", [
    "In the reshape function we strip the leading ([CLS]) token from the activations.",
    "We drop the first ([CLS]) token and keep the 196 patch tokens.",
])
def test_the_first_token_named_in_parentheses_is_the_class_token(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence), "tokens") == ("reported", {"drop": ["cls"]})


# -- tokens: only implied (the patch part, tokens rearranged), nothing said of the others: partial --

@pytest.mark.parametrize("sentence", [
    "Only the patch part of the activation map is laid out on the 14 x 14 grid.",
    "The tokens were then rearranged into a 14 x 14 map following the patch positions.",
])
def test_tokens_only_implied_are_partial(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence), "tokens")[0] == "partial"


# -- heads: the head average written with a symbol for the count, or with an adverb -----------------

def _attention(tmp_path, sentence: str, where: str = "of the last block") -> dict:
    return _doc(tmp_path, f"The map is built from the post-softmax attention matrices {where}; "
                "each is multiplied elementwise by its gradient and rectified. " + sentence, where="")


@pytest.mark.parametrize("sentence", [
    "The H = 12 heads are then averaged.",
    "We finally take the mean over the h heads.",
])
def test_heads_averaged_with_a_symbolic_count(tmp_path, sentence):
    status, value = item_of(_attention(tmp_path, sentence), "heads")
    assert status == "reported" and value["aggregate"] == "mean", value


# -- layer: every block, combined by propagating relevance (rollout) --------------------------------

@pytest.mark.parametrize("sentence", [
    "Relevance is propagated through all L=12 blocks by multiplying the per-block maps.",
    "The per-block maps of all 12 blocks are propagated through the blocks as in attention flow.",
])
def test_relevance_propagated_through_all_blocks_is_rollout(tmp_path, sentence):
    status, value = item_of(_attention(tmp_path, sentence, "of every block"), "layer")
    assert status == "reported" and value == {"blocks": "all", "combine": "rollout"}, value


# -- reshape: a shape tuple after a permute, or with numeric leading dimensions --------------------

@pytest.mark.parametrize("sentence", [
    "The (B, H, W, C) stage output is permuted to (B, C, 7, 7) before the weighting.",
    "The hooked activations are reshaped to (1, 7, 7, 768) in row-major order.",
])
def test_a_shape_tuple_after_permute_or_with_a_batch_of_one(tmp_path, sentence):
    status, value = item_of(_doc(tmp_path, sentence, SWIN), "reshape")
    assert status == "reported" and value["grid"] == [7, 7], value


@pytest.mark.parametrize("sentence", [
    r"\begin{algorithm}\caption{Maps}\begin{algorithmic}\State $A \gets$ features with $H'=H/32=7$, $W'=W/32=7$\end{algorithmic}\end{algorithm}",
    "The features form a lattice with $H' = 224/32 = 7$, $W' = 224/32 = 7$.",
])
def test_grid_sides_given_as_equations(tmp_path, sentence):
    status, value = item_of(_doc(tmp_path, sentence, SWIN), "reshape")
    assert status == "reported" and value["grid"] == [7, 7], value


# -- settings tables: a table captioned as settings with a row naming the method holds the map's
#    settings in every row, also in rows that do not name the map --------------------------------

def _settings_table(caption: str, rows: str) -> str:
    return ("This note fixes one procedure for every group.\n\nIt replaces the earlier drafts.\n\n"
            "Groups may deviate only where the log says so.\n\nQuestions go to the imaging core.\n\n"
            "The note is reviewed every spring.\n\n"
            "\\begin{table}[h]\\caption{" + caption + "}\\begin{tabular}{ll}\\toprule\nItem & Value\\\\\\midrule\n"
            + rows + "\\bottomrule\\end{tabular}\\end{table}\n")


@pytest.mark.parametrize("caption, rows", [
    ("Agreed settings, version 3.", "Method & Grad-CAM\\\\\nModel & vit\\_small\\_patch16\\_224.augreg\\_in21k\\\\\n"
     "Prefix tokens & drop class token and 4 registers\\\\\nGrid & $16\\times16$, row-major\\\\\n"),
    ("Shared configuration.", "Explainer & LayerCAM\\\\\nModel & vit\\_small\\_patch16\\_224.augreg\\_in21k\\\\\n"
     "Non-spatial tokens & drop class token and 4 registers\\\\\nToken layout & $16\\times16$, row-major\\\\\n"),
])
def test_every_row_of_a_settings_table_with_a_method_row_is_read(tmp_path, caption, rows):
    doc = lint_tex(tmp_path, _settings_table(caption, rows))
    assert item_of(doc, "tokens") == ("reported", {"drop": ["cls", "registers"]})
    assert item_of(doc, "reshape")[0] == "reported"


# -- more ways of saying the same settings (second round of classes) -------------------------------

@pytest.mark.parametrize("sentence", [
    "The classification token is sliced away before the reshape.",
    "The [CLS] token is not part of the grid, which holds the 196 patch tokens.",
])
def test_class_token_sliced_away_or_not_part_of_the_grid(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence), "tokens") == ("reported", {"drop": ["cls"]})


@pytest.mark.parametrize("sentence", [
    "Before reshaping we drop index 0 (the class token) from the activations.",
    "The token at index 0 (the class token) is removed before reshaping.",
])
def test_a_token_index_is_not_a_block_index(tmp_path, sentence):
    doc = _doc(tmp_path, sentence, where="")
    assert doc["checklist"]["layer"]["value"] != {"block": 0}


@pytest.mark.parametrize("sentence, aggregate", [
    ("We average the twelve attention heads.", "mean"),
    ("Head maps are combined by summation.", "sum"),
    ("Each head is treated as a separate channel.", "as_channels"),
])
def test_head_aggregation_in_other_words(tmp_path, sentence, aggregate):
    status, value = item_of(_attention(tmp_path, sentence), "heads")
    assert status == "reported" and value["aggregate"] == aggregate, value


@pytest.mark.parametrize("sentence, point", [
    ("The feature map is the input to the MLP of the last block.", "F4"),
    ("We hook the attention softmax output of the final layer.", "F2"),
    ("We use the penultimate layer's output tokens as activations.", "F6"),
])
def test_location_in_other_words(tmp_path, sentence, point):
    assert item_of(_doc(tmp_path, sentence, where=""), "location") == ("reported", point)


@pytest.mark.parametrize("sentence", [
    "The 1568 patch tokens of a clip are reshaped to an 8 × 14 × 14 volume.",
    "The tokens form a 16 x 14 x 14 spatio-temporal grid (frames, rows, columns).",
])
def test_a_video_volume_gives_its_spatial_grid(tmp_path, sentence):
    status, value = item_of(_doc(tmp_path, sentence), "reshape")
    assert status == "reported" and value["grid"] == [14, 14], value


# -- the class token and the register tokens named together, and spec-style short forms ----------

REG = "We fine-tune vit_small_patch14_reg4_dinov2.lvd142m (DINOv2 with four registers) on retinal images."


@pytest.mark.parametrize("sentence", [
    "The class token and the four register tokens are discarded before reshaping.",
    "We drop the [CLS] and register tokens from the sequence.",
])
def test_class_and_register_tokens_dropped_together(tmp_path, sentence):
    assert item_of(_doc(tmp_path, sentence, REG), "tokens") == ("reported", {"drop": ["cls", "registers"]})


@pytest.mark.parametrize("text, value", [
    ("drop CLS", {"drop": ["cls"]}),
    ("CLS, DIST removed before the reshape", {"drop": ["cls", "dist"]}),
    ("[CLS] + 4 registers discarded", {"drop": ["cls", "registers"]}),
    ("strip leading token", {"drop": ["cls"]}),
    ("keep the full sequence", {"drop": []}),
    ("CLS retained", {"drop": []}),
])
def test_spec_values_in_short_words(text, value):
    from camlint.extract.freetext import structured
    assert structured("tokens", text) == value


# -- models without prefix tokens: nothing to drop, tokens not applicable ------------------------

def test_a_siglip_vit_has_no_class_token(tmp_path):
    model = "We fine-tune the SigLIP ViT-B/16 vision encoder (google/siglip-base-patch16-224) on retinal images."
    doc = _doc(tmp_path, "We take the last block output; the 14 x 14 map is used directly.", model)
    assert item_of(doc, "tokens")[0] == "not_applicable"


@pytest.mark.parametrize("name", ["DaViT-T", "CSWin-B", "UniFormer-S", "ViTDet-B", "siglip-so400m-patch14-384"])
def test_hierarchical_and_pooled_families_have_no_prefix_tokens(name):
    from camlint.core.architectures import has_prefix_tokens
    assert has_prefix_tokens(None, [name]) is False


# -- algorithm environments and formulas: the head mean as 1/H Σ_h, the [CLS] row and column ------

ALG = (r"\begin{algorithm}\caption{Gradient-weighted attention}\begin{algorithmic}"
       r"\State $A \gets$ post-softmax attention of block 11 \State {step} \end{algorithmic}\end{algorithm}")


@pytest.mark.parametrize("step", [
    r"$M \gets \frac{1}{H}\sum_{h=1}^{H} \mathrm{ReLU}(G_h \odot A_h)$",
    r"collapse the heads with a mean, then rectify",
])
def test_head_mean_in_an_algorithm(tmp_path, step):
    doc = _doc(tmp_path, ALG.replace("{step}", step), where="")
    status, value = item_of(doc, "heads")
    assert status == "reported" and value["aggregate"] == "mean", value


@pytest.mark.parametrize("step", [
    r"drop the first row and column of $M$, then reshape to $14\times14$",
    r"remove the leading row and column (the class token) before reshaping",
])
def test_dropping_the_first_row_and_column_drops_the_class_token(tmp_path, step):
    doc = _doc(tmp_path, ALG.replace("{step}", step), where="")
    assert item_of(doc, "tokens") == ("reported", {"drop": ["cls"]})
