"""CAM101-CAM112: one completeness rule per checklist key (missing -> error, partial -> warning)."""
from __future__ import annotations

from dataclasses import dataclass

from camlint.judge import open_slots
from camlint.keys import MISSING, PARTIAL
from camlint.rules.base import Hit, Rule


@dataclass(frozen=True)
class _Item:
    key: str
    missing: str        # message when nothing is said
    partial: str        # message when it is said vaguely
    rationale: str
    bad: str
    good: str
    hint: str


def _short(value: object) -> str:
    from camlint.display import short_value

    return short_value(value, 70)


def _check_for(item: _Item):
    def check(a):
        if not a.uses_cam:
            return
        status = a.statuses.get(item.key)
        value = a.values.get(item.key)
        hint = model_hint(item.key, a.arch)
        if status == MISSING:
            file, line, col = a.anchor
            yield Hit(item.missing, file, line, col, hint=hint)
        elif status == PARTIAL:
            file, line, col = a.where(item.key)
            gaps = open_slots(item.key, value)
            missing = f"; missing: {', '.join(gaps)}" if gaps else ""
            yield Hit(f"{item.partial}{missing} (found: {_short(value)})", file, line, col,
                      severity="warning", hint=hint)
    return check


_SWIN_HINTS = {
    "layer": "Name the Swin stage (1-4) and the block within it, e.g. the last block of stage 4 "
             "(layers[-1].blocks[-1]).",
    "location": "Name the point in the Swin block: the norm1 output (layers[-1].blocks[-1].norm1), the "
                "windowed attention, or the block output; Swin keeps (B, H, W, C) maps per stage.",
    "reshape": "Swin stages are already spatial: give the stage's grid (input / (4 * 2^(stage-1)), e.g. "
               "7 x 7 at stage 4 for 224 px) or say that no reshape is needed.",
}


def model_hint(key: str, arch) -> str | None:
    """A hint that speaks of the paper's model (Swin stages, the model's own grid)."""
    if arch is None:
        return None
    if arch.family == "swin":
        return _SWIN_HINTS.get(key)
    if key == "reshape" and getattr(arch, "size_known", False) and arch.patch:
        g = arch.img_size // arch.patch
        return (f"Give the grid: {arch.img_size} px / patch {arch.patch} = {g} x {g} for {arch.name}, "
                "and the order (row-major).")
    return None


ITEMS = (
    _Item("model",
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
    _Item("method",
          "the CAM variant is not named",
          "the CAM variant is described only vaguely",
          "Grad-CAM, Grad-CAM++, HiResCAM, LayerCAM, XGrad-CAM, Score-CAM, EigenCAM and "
          "gradient-weighted attention give different maps from the same activations.",
          "We show gradient-based saliency maps of the transformer.",
          "We show Grad-CAM maps of the transformer.",
          "Name the variant: Grad-CAM, Grad-CAM++, HiResCAM, LayerCAM, XGrad-CAM, Score-CAM, "
          "EigenCAM, or gradient-weighted attention (cite the paper that defines it)."),
    _Item("layer",
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
    _Item("location",
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
    _Item("target",
          "the differentiated score and its class are not stated",
          "the target is half-specified",
          "The gradient of the raw logit and of the softmax probability differ (the softmax couples "
          "all classes), and maps for the predicted and the ground-truth class differ on errors.",
          "The gradient is taken with respect to the class score.",
          "The gradient is taken of the raw (pre-softmax) logit of the predicted class.",
          "Say which scalar (raw pre-softmax logit, softmax probability, log-probability, "
          "image-text similarity, ITM score, a loss) and for which class (predicted, ground "
          "truth, or a fixed class)."),
    _Item("tokens",
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
    _Item("reshape",
          "the manuscript does not say how tokens are arranged into a grid",
          "the grid size is not stated",
          "The grid is input size / patch size (224/16 = 14); papers at other resolutions or patch "
          "sizes, and row- vs column-major order, change the map.",
          "The remaining tokens are reshaped to the patch grid.",
          "The 196 patch tokens are reshaped in raster (row-major) order to a 14 x 14 grid.",
          "Give the grid (e.g. 14 x 14 for 224 px input and patch 16; 24 x 24 at 384 px) and the "
          "token order (row-major / raster)."),
    _Item("weighting",
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
    _Item("heads",
          "the map is built from attention but the manuscript does not say how the heads are combined",
          "the head aggregation is mentioned without a rule",
          "Attention maps exist per head; mean, max, or heads-as-channels, before or after the "
          "ReLU, give different maps.",
          "We apply Grad-CAM to the attention matrices of the last block; the head maps are combined.",
          "We apply Grad-CAM to the attention matrices of the last block and average over the 12 heads.",
          "Say how heads are combined (mean, max, sum, or heads treated as channels) and whether "
          "before or after the ReLU."),
    _Item("relu",
          "the manuscript does not say where (or whether) a ReLU is applied",
          "the rectification is mentioned without saying where",
          "A ReLU after the weighted sum, on the gradients, on the products, or none at all "
          "(signed maps) changes which regions appear.",
          "Negative values are suppressed.",
          "A ReLU is applied once, after the weighted sum over channels.",
          "Say where: after the weighted combination (Grad-CAM), on the gradients (LayerCAM, "
          "ALBEF), on the gradient x activation products, or not at all (signed map)."),
    _Item("postprocess",
          "the manuscript does not say how maps are normalised and upsampled",
          "normalisation or upsampling is not fully stated",
          "Min-max per image vs per dataset, and bilinear vs nearest upsampling, change what a "
          "figure shows and every localisation metric computed on it.",
          "Maps are normalised and resized to the image.",
          "The 14 x 14 map is upsampled bilinearly to 224 x 224 and min-max normalised per image.",
          "Say how maps are normalised (per-image min-max, divided by the max, none) and upsampled "
          "(bilinear, bicubic, nearest; to which size)."),
    _Item("implementation",
          "the manuscript does not say which code computed the maps",
          "the code is named without a version or released revision",
          "Libraries change defaults between versions (reshape, normalisation, targets); without "
          "a version or commit the maps cannot be recomputed.",
          "We implemented the maps ourselves with forward and backward hooks.",
          "Maps are computed with pytorch-grad-cam 1.5.4 (GradCAM class, our reshape\\_transform).",
          "Name the library and its version (e.g. pytorch-grad-cam 1.5.4, captum 0.8.0), or link "
          "the released code with a commit or tag."),
)


def _rule(n: int, item: _Item) -> Rule:
    return Rule(code=f"CAM1{n:02d}", name=f"missing-{item.key}", item=item.key, severity="error",
                summary=f"The {item.key} item is missing (error) or only partly reported (warning).",
                rationale=item.rationale, bad=item.bad, good=item.good, hint=item.hint,
                check=_check_for(item))


RULES = tuple(_rule(i + 1, item) for i, item in enumerate(ITEMS))
