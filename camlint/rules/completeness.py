"""CAM101-CAM112: one completeness rule per checklist key (missing -> error, partial -> warning)."""
from __future__ import annotations

from camlint.core import items
from camlint.core.item import Item
from camlint.checklist.judge import open_slots
from camlint.core.keys import MISSING, PARTIAL
from camlint.rules import facts as F
from camlint.rules.base import Hit, Rule


def _short(value: object) -> str:
    from camlint.core.display import short_value

    return short_value(value, 70)


def _check_for(item: Item):
    def check(a):
        if not a.uses_cam:
            return
        status = a.statuses.get(item.key)
        value = a.values.get(item.key)
        hint = model_hint(item.key, a)
        if status == MISSING:
            file, line, col = a.anchor
            yield Hit(item.advice.missing, file, line, col, hint=hint)
        elif status == PARTIAL:
            file, line, col = a.where(item.key)
            gaps = open_slots(item.key, value)
            missing = f"; missing: {', '.join(gaps)}" if gaps else ""
            yield Hit(f"{item.advice.partial}{missing} (found: {_short(value)})", file, line, col,
                      severity="warning", hint=hint)
    return check


def model_hint(key: str, a) -> str | None:
    """A hint in the words of the paper's model (camlint.core.model_advice), else None."""
    from camlint.core.model_advice import model_hint as hint_for

    if a.arch is None:
        return None
    model = a.values.get("model")
    name = model.get("arch") if isinstance(model, dict) else model
    ev = [e.text for k in ("model", "layer", "location") for e in a.evidence.get(k) or []]
    words = " ".join([str(model), *ev])
    return hint_for(key, a.arch, name if isinstance(name, str) else "", words, F.grid(a.values.get("reshape")))


def _rule(n: int, item: Item) -> Rule:
    advice = item.advice
    return Rule(code=f"CAM1{n:02d}", name=f"missing-{item.key}", item=item.key, severity="error",
                summary=f"The {item.key} item is missing (error) or only partly reported (warning).",
                rationale=advice.rationale, bad=advice.bad, good=advice.good, hint=advice.hint,
                check=_check_for(item))


# CAM1nn for the n-th key of the checklist, in the order of the item registry.
RULES = tuple(_rule(i + 1, item) for i, item in enumerate(items.items()))
