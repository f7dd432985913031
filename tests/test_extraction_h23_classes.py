"""Classes of writing seen in held-out set 23 (sentences written here, not copied)."""
from __future__ import annotations

from conftest import item_of, lint_tex

VIT = ("\\section{Methods}\nWe trained a DeiT-B (timm deit\\_base\\_patch16\\_224, ImageNet-1k weights).\n"
       "Saliency maps were made with Grad-CAM from pytorch-grad-cam.\n")
SWIN = ("\\section{Methods}\nWe trained a Swin-T (timm swin\\_tiny\\_patch4\\_window7\\_224, ImageNet-1k "
        "weights).\nSaliency maps were made with Grad-CAM from pytorch-grad-cam.\n")


def test_likeness_to_a_cnn_does_not_make_the_reshape_a_cnns(tmp_path):
    # "so it can be plotted like a CNN map": a likeness, not a statement about a CNN
    doc = lint_tex(tmp_path, VIT + "The token sequence was folded into a 14x14 grid so that it can be "
                   "plotted like a CNN activation map.\n")
    assert item_of(doc, "reshape")[0] == "reported"


def test_tensor_shape_with_channels_gives_the_grid(tmp_path):
    # an activation's shape written H x W x C (or C x H x W) states the spatial grid
    doc = lint_tex(tmp_path, SWIN + "Maps are computed at the last stage output, which has shape "
                   "$7\\times 7\\times 768$.\n")
    assert item_of(doc, "reshape")[0] == "reported"
    doc = lint_tex(tmp_path / "b", SWIN + "The hooked features are of shape $768\\times7\\times7$.\n")
    assert item_of(doc, "reshape")[0] == "reported"


def test_tokens_reshaped_into_frames_of_patches(tmp_path):
    # "tokens rearranged into 8 frames of 14 x 14 patches": the grid of patch positions, not the patch size
    doc = lint_tex(tmp_path, VIT + "After the class token was dropped, the 8x196 remaining tokens were "
                   "rearranged into 8 frames of $14\\times14$ patches.\n")
    assert item_of(doc, "reshape")[0] == "reported"


def test_segmentation_variant_name_is_the_method_not_a_package(tmp_path):
    # "Seg-Grad-CAM" is hyphenated onto a word like pytorch-grad-cam, yet it names the method applied
    doc = lint_tex(tmp_path, "\\section{Method}\nWe fine-tune a SegFormer-B2 on our road scenes. "
                   "Following Seg-Grad-CAM~\\cite{x}, the gradient of the summed road logits is taken "
                   "at the last encoder stage and the 16 x 16 tokens are reshaped into a grid.\n")
    assert doc["uses_cam_on_transformer"] is True


def test_a_qualified_attention_branch_is_a_vague_location(tmp_path):
    # "the spatial-attention branch of block 10": a part of the block, not which tensor in it
    doc = lint_tex(tmp_path, VIT + "Gradients and activations come from the spatial-attention branch of "
                   "the tenth block.\n")
    assert item_of(doc, "location")[0] == "partial"
