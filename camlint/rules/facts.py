"""Readings of camspec-shaped values that several rules share (blocks, grid, tokens, kinds)."""
from __future__ import annotations

# Readings of one key's value live with the items (camlint/core/values.py); rules read them here too.
from camlint.core.values import (  # noqa: F401
    blocks, canonical_single, dropped, grid, is_concrete, kind, kinds_conflict, method, point, target_class)
from camlint.core.locations import ATTENTION_LOCATIONS, ZERO_GRADIENT_LOCATIONS  # noqa: F401 (rules read F.*)
from camlint.core.methods import CLASS_AGNOSTIC_METHODS, Relu  # noqa: F401 (rules read F.*)
from camlint.checklist.judge import location_point, method_name  # noqa: F401

ATTENTION = ATTENTION_LOCATIONS
# weightings that read each patch token's own gradient (none enters through [CLS])
ELEMENTWISE = frozenset({"elementwise", "gradient_only"})


def is_last_block(value, depth: int | None) -> bool:
    b = blocks(value, depth)
    return bool(b) and len(b) == 1 and (b[0] == -1 or (depth is not None and b[0] == depth - 1))


def blocks_compared(a) -> bool:
    """CAM211 weighs each statement of the block in the text (and the camspec's) one by one where
    the depth is known; CAM210 then leaves the block to it."""
    return a.prose is not None and a.arch is not None and bool(a.arch.depth) and a.arch.family != "swin"


def weights_disagree(a) -> bool:
    """The model's weights id names another family than the architecture read from its name
    ("ViT-B/16" from a results table, weights swinv2_tiny_window8_256): which model the maps come
    from is unsure, so no count or grid is held against it."""
    from camlint.core.architectures import architecture_of_weights

    model = a.values.get("model")
    weights = model.get("weights") if isinstance(model, dict) else None
    if a.arch is None or not isinstance(weights, str):
        return False
    alt = architecture_of_weights(weights)
    return alt is not None and alt.family != a.arch.family


def no_cls_name(a) -> str | None:
    """The name of the model where it has no [CLS] token: from its geometry where camlint knows
    the architecture, else from a hierarchical or hybrid family its name or weights id names
    (MobileViT, PVT, MaxViT: spatial maps per stage, no class token)."""
    from camlint.core.architectures import has_prefix_tokens

    if a.arch is not None:
        return None if a.arch.has_cls else a.arch.name
    model = a.values.get("model")
    names = [n for n in ((model.get("arch"), model.get("weights")) if isinstance(model, dict) else (model,))
             if isinstance(n, str)]
    return names[0] if names and has_prefix_tokens(None, names) is False else None
