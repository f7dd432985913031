"""The texts of each checklist key's completeness rule (CAM101-CAM1xx): message when the key is
missing, message when it is partial, why it matters, a bad and a good example, and the fix."""
from __future__ import annotations

from camlint.core.item import Advice

ADVICE = {
    "model": Advice(
        "the model and its exact weights are not stated",
        "the model is stated without its exact weights",
        "The same architecture with different weights gives different maps; 'ImageNet-pretrained' "
        "names several checkpoints (ImageNet-1k, ImageNet-21k, AugReg, DeiT...).",
        "We fine-tune a ViT-B/16 with ImageNet-pretrained weights.",
        "We fine-tune timm's vit_base_patch16_224.augreg2_in21k_ft_in1k on our data "
        "(checkpoint released with the code, SHA-256 9c41e0a7...).",
        "Name the architecture variant and the weights: a timm tag (vit_base_patch16_224."
        "augreg2_in21k_ft_in1k), a hub id, or the official release (e.g. DINO ViT-B/16), plus "
        "any fine-tuning and the released checkpoint."),
    "method": Advice(
        "the CAM variant is not named",
        "the CAM variant is described only vaguely",
        "Grad-CAM, Grad-CAM++, HiResCAM, LayerCAM, XGrad-CAM, Score-CAM, EigenCAM and "
        "gradient-weighted attention give different maps from the same activations.",
        "We show gradient-based saliency maps of the transformer.",
        "We show Grad-CAM maps of the transformer.",
        "Name the variant: Grad-CAM, Grad-CAM++, HiResCAM, LayerCAM, XGrad-CAM, Score-CAM, "
        "EigenCAM, or gradient-weighted attention (cite the paper that defines it)."),
    "layer": Advice(
        "the manuscript does not say which transformer block the map is taken from",
        "the block is not pinned down",
        "Maps from early and late blocks of a ViT differ completely (texture vs object); in the "
        "last block with a [CLS] head most locations carry zero patch gradient.",
        "We compute Grad-CAM maps at an intermediate layer.",
        "We compute Grad-CAM maps at the last transformer block (index 11 of 12, counted from "
        "zero).",
        "Say which block (e.g. the last of 12, index 11 counted from zero; or 'penultimate') and "
        "where in it: F1 the norm1 output ... F6 the block output. For several blocks, list them "
        "and say how the maps are combined (mean, sum, rollout)."),
    "location": Advice(
        "the manuscript does not say where inside the block the feature map is taken",
        "the location inside the block is ambiguous",
        "A transformer block has no single feature map: the LayerNorm output (F1), the attention "
        "matrix (F2), the attention output before or after its projection (F3a/F3b), the second "
        "LayerNorm (F4), the MLP output (F5) and the block output (F6) give different maps.",
        "Activations are taken from the attention of the last block.",
        "Activations are the output of the LayerNorm before the attention of the last block "
        "(model.blocks[-1].norm1, location F1).",
        "Name the point: F1 the norm1 output (blocks[-1].norm1), F2 the softmax attention "
        "matrix, F3a the attention output before the projection, F3b after it, F4 the norm2 "
        "output, F5 the MLP output, F6 the block output (residual stream), or cross-attention."),
    "target": Advice(
        "the differentiated score and its class are not stated",
        "the target is half-specified",
        "The gradient of the raw logit and of the softmax probability differ (the softmax couples "
        "all classes), and maps for the predicted and the ground-truth class differ on errors.",
        "The gradient is taken with respect to the class score.",
        "The gradient is taken of the raw (pre-softmax) logit of the predicted class.",
        "Say which scalar (raw pre-softmax logit, softmax probability, log-probability, "
        "image-text similarity, ITM score, a loss) and for which class (predicted, ground "
        "truth, or a fixed class)."),
    "tokens": Advice(
        "the manuscript does not say what happens to the [CLS] (and other non-patch) tokens",
        "the handling of the [CLS] token is only implied",
        "A ViT sequence holds a [CLS] token (and for DeiT a distillation token, for some models "
        "register tokens) that has no place in the image; 197 tokens cannot form a 14 x 14 grid.",
        "The patch tokens are reshaped into a grid.",
        "The [CLS] token and its gradient are discarded before the 196 patch tokens are "
        "reshaped.",
        "Say which tokens are dropped before the reshape ([CLS], distillation, register tokens), "
        "or that they are kept and how; and whether gradients are read at the patch tokens or "
        "at [CLS]."),
    "reshape": Advice(
        "the manuscript does not say how tokens are arranged into a grid",
        "the grid size is not stated",
        "The grid is input size / patch size (224/16 = 14); papers at other resolutions or patch "
        "sizes, and row- vs column-major order, change the map.",
        "The remaining tokens are reshaped to the patch grid.",
        "The 196 patch tokens are reshaped in raster (row-major) order to a 14 x 14 grid.",
        "Give the grid (e.g. 14 x 14 for 224 px input and patch 16; 24 x 24 at 384 px) and the "
        "token order (row-major / raster)."),
    "weighting": Advice(
        "the manuscript does not say how channels are weighted",
        "the channel weighting is described only vaguely",
        "Grad-CAM averages gradients per channel; HiResCAM and LayerCAM multiply gradient and "
        "activation elementwise; Grad-CAM++ uses second-order weights; some ViT adaptations use "
        "the [CLS] gradient. The rule decides what the map shows.",
        "Channels are weighted by the gradients.",
        "Each channel is weighted by its gradient averaged over the 196 patch tokens.",
        "State the rule: mean gradient per channel over the patch tokens (Grad-CAM), gradient x "
        "activation elementwise (HiResCAM, LayerCAM), the [CLS]-token gradient, or the weights "
        "of the named variant (Grad-CAM++, XGrad-CAM, Score-CAM)."),
    "heads": Advice(
        "the map is built from attention but the manuscript does not say how the heads are combined",
        "the head aggregation is mentioned without a rule",
        "Attention maps exist per head; mean, max, or heads-as-channels, before or after the "
        "ReLU, give different maps.",
        "We apply Grad-CAM to the attention matrices of the last block; the head maps are combined.",
        "We apply Grad-CAM to the attention matrices of the last block and average over the 12 heads.",
        "Say how heads are combined (mean, max, sum, or heads treated as channels) and whether "
        "before or after the ReLU."),
    "relu": Advice(
        "the manuscript does not say where (or whether) a ReLU is applied",
        "the rectification is mentioned without saying where",
        "A ReLU after the weighted sum, on the gradients, on the products, or none at all "
        "(signed maps) changes which regions appear.",
        "Negative values are suppressed.",
        "A ReLU is applied once, after the weighted sum over channels.",
        "Say where: after the weighted combination (Grad-CAM), on the gradients (LayerCAM, "
        "ALBEF), on the gradient x activation products, or not at all (signed map)."),
    "postprocess": Advice(
        "the manuscript does not say how maps are normalised and upsampled",
        "normalisation or upsampling is not fully stated",
        "Min-max per image vs per dataset, and bilinear vs nearest upsampling, change what a "
        "figure shows and every localisation metric computed on it.",
        "Maps are normalised and resized to the image.",
        "The 14 x 14 map is upsampled bilinearly to 224 x 224 and min-max normalised per image.",
        "Say how maps are normalised (per-image min-max, divided by the max, none) and upsampled "
        "(bilinear, bicubic, nearest; to which size)."),
    "implementation": Advice(
        "the manuscript does not say which code computed the maps",
        "the code is named without a version or released revision",
        "Libraries change defaults between versions (reshape, normalisation, targets); without "
        "a version or commit the maps cannot be recomputed.",
        "We implemented the maps ourselves with forward and backward hooks.",
        "Maps are computed with pytorch-grad-cam 1.5.4 (GradCAM class, our reshape\\_transform).",
        "Name the library and its version (e.g. pytorch-grad-cam 1.5.4, captum 0.8.0), or link "
        "the released code with a commit or tag."),
}
