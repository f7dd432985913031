"""One record per feature location inside a transformer block (shared/taxonomy.md, F1..F6).

Lint rules, the verify hooks and verify's diagnoses all read these records; nothing else lists
which locations exist, where they live in a model, or which of them carry no gradient.
Torch-free: linting imports this module.
"""
from __future__ import annotations

from dataclasses import dataclass

TOKENS = "tokens"          # a (B, N, C) token sequence: channels weighted, then reshaped to the grid
ATTENTION = "attention"    # (B, H, N, N) softmax attention matrices: one map per head


@dataclass(frozen=True)
class Tap:
    """Where a location is read: a submodule inside one block ("" is the block itself) and which of
    its tensors ("output", or "input": the first positional input)."""
    module: str
    tensor: str


@dataclass(frozen=True)
class Location:
    name: str
    kind: str                    # TOKENS or ATTENTION
    description: str
    timm_vit: Tap | None         # inside timm VisionTransformer.blocks[i] (None: not one tensor there)
    timm_swin: Tap | None        # inside timm SwinTransformer.layers[s].blocks[j]
    huggingface: Tap | None      # inside transformers ViTLayer (BLIP text layer for cross-attention)
    # In the last block of a [CLS]-pooled model the patch tokens reach the output only through
    # [CLS] here, so their gradient is exactly zero (shared/reference/engines.md section 1.2).
    cls_only_gradient: bool

    @property
    def is_attention(self) -> bool:
        return self.kind == ATTENTION


_RECORDS = (
    Location("F1", TOKENS, "output of the LayerNorm before attention (norm1)",
             Tap("norm1", "output"), Tap("norm1", "output"), Tap("layernorm_before", "output"), False),
    Location("F2", ATTENTION, "softmax attention matrices, one per head",
             Tap("attn.attn_drop", "output"),   # explicit attention path only (fused_attn off)
             Tap("attn.softmax", "output"),     # per window
             Tap("attention.attention", "attentions (output_attentions=True, eager attention)"), False),
    Location("F3", TOKENS, "attention sub-layer output (ambiguous: F3a or F3b)", None, None, None, True),
    Location("F3a", TOKENS, "heads concatenated, before the output projection",
             Tap("attn.proj", "input"), None, Tap("attention.output.dense", "input"), True),
    Location("F3b", TOKENS, "attention branch output, before the residual add",
             Tap("ls1", "output"),              # = attn output; after LayerScale where there is one
             None, Tap("attention.output", "output"), True),
    Location("mid_residual", TOKENS, "residual stream between attention and MLP",
             Tap("norm2", "input"), None, Tap("layernorm_after", "input"), True),
    Location("F4", TOKENS, "output of the LayerNorm before the MLP (norm2)",
             Tap("norm2", "output"), Tap("norm2", "output"), Tap("layernorm_after", "output"), True),
    Location("F5", TOKENS, "MLP output, before the residual add",
             Tap("mlp", "output"), Tap("mlp", "output"), Tap("output.dense", "output"), True),
    Location("F6", TOKENS, "block output (residual stream after the MLP)",
             Tap("", "output"), Tap("", "output"), Tap("", "output"), True),
    Location("cross_attention", ATTENTION, "text-to-image cross-attention of a vision-language model",
             None, None, Tap("crossattention.self", "attentions (output_attentions=True)"), False),
)

LOCATIONS: dict[str, Location] = {r.name: r for r in _RECORDS}
NAMES: tuple[str, ...] = tuple(LOCATIONS)
ATTENTION_LOCATIONS = frozenset(r.name for r in _RECORDS if r.is_attention)
ZERO_GRADIENT_LOCATIONS = frozenset(r.name for r in _RECORDS if r.cls_only_gradient)


def location(name: str) -> Location:
    """The record of a canonical location name; an unknown name is refused by name."""
    try:
        return LOCATIONS[name]
    except (KeyError, TypeError):
        raise ValueError(f"location: {name!r} is not a location (known: {', '.join(NAMES)})") from None


def timm_taps(family: str) -> dict[str, Tap]:
    """location name -> where it is read in a timm model of this family (vit or swin)."""
    field = {"vit": "timm_vit", "swin": "timm_swin"}[family]
    return {r.name: getattr(r, field) for r in _RECORDS if getattr(r, field) is not None}
