"""Readings of camspec-shaped values of one checklist key (blocks, grid, tokens, kinds...).

Shared by the status judgement, the items' comparisons and the rules; torch-free, vocabulary only.
"""
from __future__ import annotations

from camlint.core import vocab

KIND_CONFLICTS = ({"logit", "softmax"}, {"logit", "log_softmax"}, {"softmax", "log_softmax"},
                  {"loss", "logit"}, {"loss", "softmax"}, {"similarity", "softmax"})


def is_concrete(value) -> bool:
    return value is not None and not vocab.is_placeholder(value) and not vocab.is_not_applicable(value) \
        and not (isinstance(value, dict) and set(value) <= {"text", "note"})


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


def blocks(value, depth: int | None) -> list[int] | None:
    """Block indices of a layer value, 0-based when the depth is known (-1 -> depth - 1)."""
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("block"), int) and not isinstance(value.get("block"), bool) and "stage" not in value:
        raw = [value["block"]]
    elif isinstance(value.get("blocks"), list):
        raw = [b for b in value["blocks"] if isinstance(b, int) and not isinstance(b, bool)]
    else:
        ints = [v for k, v in value.items() if isinstance(v, int) and not isinstance(v, bool) and k != "stage"]
        raw = ints[:1] if "stage" not in value else []
    if not raw:
        return None
    return [b + depth if (depth and b < 0) else b for b in raw]


def grid(value) -> tuple[int, int] | None:
    g = value.get("grid") if isinstance(value, dict) else None
    if isinstance(g, list) and len(g) == 2 and all(isinstance(x, int) for x in g):
        return g[0], g[1]
    return None


def dropped(value) -> list[str] | None:
    """Canonical names of dropped prefix tokens; [] when kept; None when not stated."""
    if not isinstance(value, dict) or not isinstance(value.get("drop"), list):
        return None
    return [vocab.canonical("tokens.drop", d).value or str(d) for d in value["drop"]]


def kind(value) -> str | None:
    k = value.get("kind") if isinstance(value, dict) else value if isinstance(value, str) else None
    return vocab.canonical("target.kind", k).value if is_concrete(k) else None


def target_class(value) -> str | None:
    c = value.get("class") if isinstance(value, dict) else None
    if not is_concrete(c):
        return None
    canon = vocab.canonical("target.class", c)
    return canon.value if canon.exact or (canon.value and isinstance(c, str) and len(c) > 3) else str(c).lower()


def kinds_conflict(a: str, b: str) -> bool:
    return {a, b} in KIND_CONFLICTS


def point(value) -> str | None:
    return location_point(value) if is_concrete(value) else None


def method(value) -> str | None:
    return method_name(value) if is_concrete(value) else None


def canonical_single(slot: str, value) -> object:
    """relu / weighting / heads / method as comparable canonical values (a set for relu lists)."""
    if not is_concrete(value):
        return None
    if slot == "relu":
        items = value if isinstance(value, list) else [value]
        return frozenset(vocab.canonical("relu", v).value for v in items)
    if slot == "heads":
        agg = value.get("aggregate") if isinstance(value, dict) else value
        return vocab.canonical("heads.aggregate", agg).value if is_concrete(agg) else None
    if slot == "method":
        return method_name(value)
    return vocab.canonical(slot, value).value
