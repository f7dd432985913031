"""One judgement of status for every front end.

Both the supplement reader and the LaTeX extractor produce a camspec-shaped value per key
(the prose extractor writes `{"text": ...}` for a mention that pins nothing down). This module
decides, key by key, whether that value is reported, partial, missing or not applicable, following
the per-key table of the corpus README: reported when every required slot is known, partial when
something is said but a slot is open, missing when nothing is said.
"""
from __future__ import annotations

from camlint.core import vocab
from camlint.core import items, methods
from camlint.core.item import Status
from camlint.core.values import location_point, method_name

MISSING, NOT_APPLICABLE, PARTIAL, REPORTED = Status.MISSING, Status.NOT_APPLICABLE, Status.PARTIAL, Status.REPORTED


def open_slots(key: str, value: object) -> list[str]:
    """The required slots of a partial value that are still open."""
    if value is None or not isinstance(value, (str, dict)) or vocab.is_placeholder(value):
        return []
    required = items.item(key).required
    if isinstance(value, dict) and set(value) <= {"text", "note"}:
        return list(required)
    flags = items.item(key).filled(value)
    return [name for name, ok in zip(required, flags) if not ok]


def status_of(key: str, value: object) -> Status:
    """Status of one key from its camspec-shaped value (context-free part of the judgement)."""
    item = items.item(key)
    if value is None or vocab.is_placeholder(value):
        return MISSING
    if vocab.is_not_applicable(value):
        return NOT_APPLICABLE
    if isinstance(value, (bool, list)):
        return REPORTED if item.multiple else PARTIAL
    if isinstance(value, dict) and set(value) <= {"text", "note"}:
        return PARTIAL      # said something, pinned nothing down
    return REPORTED if all(item.filled(value)) else PARTIAL


def statuses(values: dict[str, object], *, prefix_tokens: bool | None = None,
             spatial_map: bool = False) -> dict[str, Status]:
    """Statuses of every registered key, with the rules that tie keys together.

    - heads applies only when the location is an attention matrix (F2, cross-attention);
    - target does not apply to a class-agnostic method (EigenCAM, plain rollout) that states none;
    - tokens does not apply to a model without prefix tokens (Swin) that states nothing about them;
    - `spatial_map`: the map is taken at a convolutional stage of a hybrid (its ResNet stem, a
      CoAtNet conv stage), a natively spatial map: no tokens, no reshape, no place inside a
      transformer block (and no heads), unless the paper says something about them.
    """
    out = {k: status_of(k, values.get(k)) for k in items.names()}
    if location_point(values.get("location")) not in vocab.ATTENTION_LOCATIONS:
        out["heads"] = NOT_APPLICABLE
    if _class_agnostic(values) and out["target"] == MISSING:
        out["target"] = NOT_APPLICABLE
    if prefix_tokens is False and out["tokens"] == MISSING:
        out["tokens"] = NOT_APPLICABLE
    for key in ("tokens", "reshape", "location") if spatial_map else ():
        if out[key] == MISSING:
            out[key] = NOT_APPLICABLE
    return out


def _class_agnostic(values: dict[str, object]) -> bool:
    """The map differentiates no score: a class-agnostic method, or a gradient-free weighting
    (the projection on the first principal component) under a method whose own rule is not that
    weighting (EigenGrad-CAM weights the same projection by gradients)."""
    name = method_name(values.get("method"))
    if name in vocab.CLASS_AGNOSTIC_METHODS:
        return True
    weighting = values.get("weighting")
    return isinstance(weighting, str) and weighting in methods.GRADIENT_FREE_WEIGHTINGS \
        and methods.method_rule(name).weighting != weighting

