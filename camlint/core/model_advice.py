"""Completeness hints in the words of the paper's own model (issue 12, item 7).

A hint for a missing or partial item names the paper's model, its depth, its grid at the stated
input size, its prefix tokens and its module names (timm or HuggingFace form), or, for a
hierarchical model (Swin), its stages and the stage's spatial map. One table, HINTS, holds the
texts per item and model kind; `facts` fills their fields from the architecture (no torch).
"""
from __future__ import annotations

import re
from dataclasses import replace

from camlint.core.architectures import ArchInfo
from camlint.core.locations import LOCATIONS

# Model kinds: a ViT-like token sequence with [CLS], one without (average pooling; texts fall
# back to PLAIN), and a hierarchical model with stages (Swin).
PLAIN, POOLED, HIERARCHICAL = "plain", "pooled", "hierarchical"

HINTS: dict[str, dict[str, str]] = {
    "layer": {
        PLAIN: "Say which of the {depth} blocks of {model} the map is taken from: the last is {block} "
               "(index {last} counted from zero), the penultimate {penultimate}; for several blocks, list "
               "them and say how their maps are combined.",
        HIERARCHICAL: "Name the stage (1-{stages}) of {model} and the block within it, e.g. the last block "
                      "of stage {stages} ({block}); a Swin block index alone does not say which stage.",
    },
    "location": {
        PLAIN: "Name the point in {block}: {points}.{zero_note}",
        HIERARCHICAL: "Name the point in the Swin block {block}: {points}, or the stage output; each stage "
                      "keeps a (B, H, W, C) spatial map ({stage_grid} at stage {stages}).",
    },
    "tokens": {
        PLAIN: "{model} has {sequence} tokens at {size} px ({prefix}, then {cells} patch tokens): say what "
               "happens to {prefix} before the reshape (dropped, or kept and how), and whether gradients "
               "are read at the patch tokens or at {first_prefix}.",
        POOLED: "{model} has no [CLS] (average pooling) and {sequence} tokens at {size} px, {cells} of them "
                "patch tokens: say which tokens are dropped before the reshape ({prefix}).",
        HIERARCHICAL: "{model} has only spatial tokens (average pooling): say that all {stage_cells} "
                      "positions of the stage's {stage_grid} map are used.",
    },
    "reshape": {
        PLAIN: "Give the grid: {size} px / patch {patch} = {grid} ({cells} patch tokens) for {model}, "
               "and the token order (row-major).",
        HIERARCHICAL: "Swin stages are already spatial: give the stage's map ({size} px / {stride} = "
                      "{stage_grid} at stage {stages}) or say that no reshape is needed.",
    },
    "weighting": {
        PLAIN: "State the rule: mean gradient per channel over the {cells} patch tokens (Grad-CAM), "
               "gradient x activation elementwise (HiResCAM, LayerCAM), the {first_prefix} gradient, "
               "or the weights of the named variant.",
        POOLED: "State the rule: mean gradient per channel over the {cells} patch tokens (Grad-CAM), "
                "gradient x activation elementwise (HiResCAM, LayerCAM), or the weights of the named variant.",
        HIERARCHICAL: "State the rule: mean gradient per channel over the {stage_cells} positions of the "
                      "stage's {stage_grid} map (Grad-CAM), gradient x activation elementwise (HiResCAM, "
                      "LayerCAM), or the weights of the named variant.",
    },
    "heads": {
        PLAIN: "Say how the {heads} heads of {model} are combined (mean, max, sum, or heads as "
               "channels) and whether before or after the ReLU.",
        HIERARCHICAL: "Say how the heads of the stage's windowed attention are combined (mean, max, sum, "
                      "or heads as channels), how the windows are put back together, and whether before "
                      "or after the ReLU.",
    },
    "postprocess": {
        PLAIN: "Say how the {grid} map is normalised (per-image min-max, divided by the max, none) "
               "and upsampled to {size} x {size} (bilinear, bicubic, nearest).",
        HIERARCHICAL: "Say how the stage's {stage_grid} map is normalised (per-image min-max, divided by "
                      "the max, none) and upsampled to {size} x {size} (bilinear, bicubic, nearest).",
    },
}

# Module names of a block: how each naming calls the block (`{i}`: index; Swin: `{s}` stage,
# `{b}` block) and which tap of camlint.core.locations it uses inside the block.
BLOCKS = {
    ("timm", PLAIN): ("blocks[{i}]", "timm_vit"),
    ("timm", HIERARCHICAL): ("layers[{s}].blocks[{b}]", "timm_swin"),
    ("hf", PLAIN): ("{hf}.encoder.layer.{i}", "huggingface"),
    ("hf", HIERARCHICAL): ("swin.encoder.layers.{s}.blocks.{b}", "huggingface"),
}
# A paper that writes a HuggingFace hub id (not timm's) or HF module names uses HF names.
_HF_WORDS = re.compile(r"\b(?!timm/)[a-z][\w-]*/[a-z][\w.-]*-\w|\bencoder\.layers?\b|\blayernorm_(?:before|after)\b"
                       r"|\bhugging ?face\b|\btransformers library\b")
_POINTS = ("F1", "F2", "F3a", "F3b", "F4", "F5", "F6")


def model_hint(key: str, arch: ArchInfo | None, name: str = "", words: str = "",
               grid: tuple[int, int] | None = None) -> str | None:
    """The hint for `key` in the words of `arch` (None: the rule's general hint applies).
    `name`: the model as the paper names it; `words`: what the paper says about its model and
    layers (a HuggingFace hub id or module names make the hint use HuggingFace names); `grid`:
    the grid the paper states, which tells the input size where the paper gives none."""
    texts = HINTS.get(key)
    if arch is None or texts is None:
        return None
    kind = kind_of(arch)
    if grid and not arch.size_known and grid[0] == grid[1]:
        arch = replace(arch, img_size=grid[0] * arch.patch * (8 if kind == HIERARCHICAL else 1))
    fields = facts(arch, PLAIN if kind == POOLED else kind, "hf" if _HF_WORDS.search(words.lower()) else "timm")
    fields["model"] = name or fields["model"]
    return texts.get(kind, texts[PLAIN]).format_map(fields)


def kind_of(arch: ArchInfo) -> str:
    return HIERARCHICAL if arch.family == "swin" else PLAIN if arch.has_cls else POOLED


def facts(arch: ArchInfo, kind: str, naming: str) -> dict[str, object]:
    """The fields HINTS may use, for one architecture (PLAIN or HIERARCHICAL) at its stated (or
    default) input size."""
    side = arch.img_size // arch.patch
    n_prefix = arch.num_prefix_tokens
    prefix = _prefix_names(arch)
    out = {"model": _display(arch), "depth": arch.depth, "last": arch.depth - 1, "heads": arch.heads or "the",
           "size": arch.img_size, "patch": arch.patch, "grid": f"{side} x {side}", "cells": side * side,
           "sequence": side * side + n_prefix, "prefix": " and ".join(prefix) or "none",
           "first_prefix": prefix[0] if prefix else "a pooled token", "zero_note": ""}
    if kind == HIERARCHICAL:
        stages = len(arch.stage_depths) or 4
        stride = arch.patch * 2 ** (stages - 1)
        g = arch.img_size // stride
        out.update(stages=stages, stride=stride, stage_grid=f"{g} x {g}", stage_cells=g * g)
        where = {"s": stages - 1, "b": (arch.stage_depths[-1] if arch.stage_depths else 2) - 1}
    else:
        where = {"i": arch.depth - 1}
        if arch.global_pool == "token":
            pooled = " and ".join(p for p in prefix if "register" not in p)
            out["zero_note"] = (f" In the last block of this token-pooled model F3a-F6 give all-zero maps (the "
                                f"patch tokens reach the logit only through {pooled}): take F1 there, or an "
                                "earlier block.")
    pattern, tap_field = BLOCKS[(naming, kind)]
    hf = {"deit": "deit", "beit": "beit"}.get(arch.family, "vit")
    out["block"] = pattern.format(hf=hf, **where)
    out["penultimate"] = pattern.format(hf=hf, i=arch.depth - 2, s=0, b=0)
    out["points"] = _points(out["block"], tap_field, arch.heads)
    return out


def _points(block: str, tap_field: str, heads: int) -> str:
    """"F1 blocks[11].norm1, F2 blocks[11].attn.attn_drop (12 heads), ...": the model's own names."""
    out = []
    for name in _POINTS:
        tap = getattr(LOCATIONS[name], tap_field)
        if tap is None:
            continue
        module = f"{block}.{tap.module}" if tap.module else block
        side = " input" if tap.tensor == "input" else ""
        extra = f" ({heads} heads)" if LOCATIONS[name].is_attention and heads else ""
        out.append(f"{name} {module}{side}{extra}")
    return ", ".join(out)


def _prefix_names(arch: ArchInfo) -> list[str]:
    names = ["[CLS]"] if arch.has_cls else []
    if "distill" in arch.name.lower():
        names.append("the distillation token")
    registers = arch.num_prefix_tokens - len(names)
    if registers > 0:
        names.append(f"the {registers} register tokens")
    return names


def _display(arch: ArchInfo) -> str:
    return arch.name if any(c.isupper() for c in arch.name) or "_" in arch.name else arch.name.upper()
