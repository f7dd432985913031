"""One judgement of status for every front end.

Both the supplement reader and the LaTeX extractor produce a camspec-shaped value per key
(the prose extractor writes `{"text": ...}` for a mention that pins nothing down). This module
decides, key by key, whether that value is reported, partial, missing or not applicable, following
the per-key table of the corpus README: reported when every required slot is known, partial when
something is said but a slot is open, missing when nothing is said.
"""
from __future__ import annotations

import re

from camlint import vocab
from camlint.keys import KEYS, MISSING, NOT_APPLICABLE, PARTIAL, REPORTED

_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(\.\d+)?\b|\b[0-9a-f]{7,40}\b", re.I)
_TIMM_TAG = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+$", re.I)
_GRID = re.compile(r"\d+\s*[x×*]\s*\d+")


def _known(value: object) -> bool:
    return value is not None and not vocab.is_placeholder(value)


def _model(v) -> list[bool]:
    if isinstance(v, str):
        return [True, bool(_TIMM_TAG.match(v.strip()))]
    return [_known(v.get("arch")), _known(v.get("weights"))]


def _method(v) -> list[bool]:
    if isinstance(v, str):
        return [True]
    return [_known(v.get("name")) or _known(v.get("preset"))]


def _layer(v) -> list[bool]:
    if isinstance(v, (int, str)) and not isinstance(v, bool):
        return [True]
    if "blocks" in v:
        blocks = v["blocks"]
        many = blocks == "all" or (isinstance(blocks, list) and len(blocks) > 1)
        return [_known(blocks), _known(v.get("combine")) or not many]
    if "block" in v or "stage" in v:
        return [_known(v.get("block", v.get("stage")))]
    # Hand-written forms ({text_encoder_layer: 7}): any index pins the layer down.
    return [any(isinstance(x, int) and not isinstance(x, bool) for x in v.values())]


def _location(v) -> list[bool]:
    if isinstance(v, dict):
        v = v.get("point", v.get("text"))
        if v is None:
            return [False]
    point = vocab.canonical("location", v).value
    return [point is not None and point != "F3"]


def _target(v) -> list[bool]:
    if isinstance(v, str):
        return [True, False]
    return [_known(v.get("kind")), _known(v.get("class"))]


def _tokens(v) -> list[bool]:
    if isinstance(v, str):
        return [True]
    return ["drop" in v or "keep" in v]


def _reshape(v) -> list[bool]:
    if isinstance(v, str):
        return [bool(_GRID.search(v)) or v == "auto"]
    return [_known(v.get("grid"))]


def _single(v) -> list[bool]:
    if isinstance(v, dict):
        return [any(_known(v.get(k)) for k in ("aggregate", "rule", "placement", "value"))]
    return [True]


def _postprocess(v) -> list[bool]:
    if isinstance(v, str):
        return [False, False]
    return [_known(v.get("normalize")), _known(v.get("upsample"))]


def _implementation(v) -> list[bool]:
    if isinstance(v, str):
        return [True, bool(_VERSION.search(v))]
    return [_known(v.get("library")), _known(v.get("version")) or _known(v.get("commit"))]


_REQUIRED = {
    "model": _model, "method": _method, "layer": _layer, "location": _location,
    "target": _target, "tokens": _tokens, "reshape": _reshape, "weighting": _single,
    "heads": _single, "relu": _single, "postprocess": _postprocess,
    "implementation": _implementation,
}


# Names of the slots _REQUIRED checks, in order (for messages: "no class").
SLOT_NAMES = {
    "model": ("architecture", "weights"), "method": ("variant name",),
    "layer": ("block index", "how the blocks are combined"), "location": ("which point (F3 is ambiguous: F3a before or F3b after the projection)",),
    "target": ("kind of score", "class"), "tokens": ("what is dropped or kept",),
    "reshape": ("grid size",), "weighting": ("combination rule",), "heads": ("aggregation rule",),
    "relu": ("placement",), "postprocess": ("normalisation", "upsampling"),
    "implementation": ("library", "version or commit"),
}


def open_slots(key: str, value: object) -> list[str]:
    """The required slots of a partial value that are still open."""
    if value is None or not isinstance(value, (str, dict)) or vocab.is_placeholder(value):
        return []
    if isinstance(value, dict) and set(value) <= {"text", "note"}:
        return list(SLOT_NAMES[key])
    flags = _REQUIRED[key](value)
    return [name for name, ok in zip(SLOT_NAMES[key], flags) if not ok]


def status_of(key: str, value: object) -> str:
    """Status of one key from its camspec-shaped value (context-free part of the judgement)."""
    if value is None or vocab.is_placeholder(value):
        return MISSING
    if vocab.is_not_applicable(value):
        return NOT_APPLICABLE
    if isinstance(value, bool) and key != "relu":
        return PARTIAL
    if isinstance(value, list) and key != "relu":
        return PARTIAL
    if isinstance(value, dict) and set(value) <= {"text", "note"}:
        return PARTIAL      # said something, pinned nothing down
    if isinstance(value, (bool, list)):
        return REPORTED
    slots = _REQUIRED[key](value)
    return REPORTED if all(slots) else PARTIAL


def location_point(value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("point")
    if value is None or vocab.is_placeholder(value) or vocab.is_not_applicable(value):
        return None
    return vocab.canonical("location", value).value


def method_name(value: object) -> str | None:
    if isinstance(value, dict):
        value = value.get("name")
    if not isinstance(value, str) or vocab.is_placeholder(value):
        return None
    return vocab.canonical("method", value).value


def statuses(values: dict[str, object], *, prefix_tokens: bool | None = None) -> dict[str, str]:
    """Statuses of all 12 keys, with the rules that tie keys together.

    - heads applies only when the location is an attention matrix (F2, cross-attention);
    - target does not apply to a class-agnostic method (EigenCAM, plain rollout) that states none;
    - tokens does not apply to a model without prefix tokens (Swin) that states nothing about them.
    """
    out = {k: status_of(k, values.get(k)) for k in KEYS}
    if location_point(values.get("location")) not in vocab.ATTENTION_LOCATIONS:
        out["heads"] = NOT_APPLICABLE
    if method_name(values.get("method")) in vocab.CLASS_AGNOSTIC_METHODS and out["target"] == MISSING:
        out["target"] = NOT_APPLICABLE
    if prefix_tokens is False and out["tokens"] == MISSING:
        out["tokens"] = NOT_APPLICABLE
    return out
