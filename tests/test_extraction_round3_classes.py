"""Classes of writing from a third round of fresh manuscripts (issue 12): hedged statements, a
size in pixels next to a grid, the first token sliced off, the heads as the owner of what is
averaged, an alternative turned down with its reason. Sentences written for the tests."""
from __future__ import annotations

from conftest import item_of, lint_tex

HEAD = r"""\section{Method}
We fine-tune a ViT-B/16 (\texttt{vit\_base\_patch16\_224.augreg\_in21k}) and explain it with Grad-CAM.
"""


def test_a_hedged_statement_reads_like_a_plain_one(tmp_path):
    doc = lint_tex(tmp_path, HEAD + "We weight the softmax attention of the last block by its gradient. "
                   "The contribution of the individual heads was, we think reasonably, averaged after this product.\n")
    assert item_of(doc, "heads")[0] == "reported"


def test_a_size_in_pixels_is_not_a_token_grid(tmp_path):
    doc = lint_tex(tmp_path, r"""\section{Method}
We fine-tune a Swin-T (\texttt{swin\_tiny\_patch4\_window7\_224}) on $224\times224$ chips and explain it with Grad-CAM
at the output of the last stage.
The stage-4 map is coarse: one cell covers $32\times32$ pixels, about 96\,m on the ground.
""")
    assert item_of(doc, "reshape")[1] != {"grid": [32, 32]}
    assert not any(f["code"] == "CAM202" for f in doc["findings"])


def test_the_first_token_sliced_off_is_the_class_token_dropped(tmp_path):
    doc = lint_tex(tmp_path, HEAD + "The first token ([CLS]) is sliced off and the remaining 196 tokens "
                   "are reshaped to $14\\times14$.\n")
    assert item_of(doc, "tokens")[0] == "reported"
    assert not any(f["code"] == "CAM201" for f in doc["findings"])


def test_an_alternative_turned_down_is_not_a_second_block(tmp_path):
    doc = lint_tex(tmp_path, HEAD + "The map is taken at the LayerNorm before attention of the penultimate block. "
                   "The last block was rejected because its patch tokens receive almost no gradient.\n")
    assert item_of(doc, "layer")[0] == "reported"
    assert not any(f["code"] == "CAM211" for f in doc["findings"])
