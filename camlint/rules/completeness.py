"""CAM101-CAM112: one completeness rule per checklist key (missing -> error, partial -> warning)."""
from __future__ import annotations

from camlint.core import items
from camlint.core.item import Item
from camlint.checklist.judge import open_slots
from camlint.core.keys import MISSING, PARTIAL
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
        hint = model_hint(item.key, a.arch)
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


def _rule(n: int, item: Item) -> Rule:
    advice = item.advice
    return Rule(code=f"CAM1{n:02d}", name=f"missing-{item.key}", item=item.key, severity="error",
                summary=f"The {item.key} item is missing (error) or only partly reported (warning).",
                rationale=advice.rationale, bad=advice.bad, good=advice.good, hint=advice.hint,
                check=_check_for(item))


# CAM1nn for the n-th key of the checklist, in the order of the item registry.
RULES = tuple(_rule(i + 1, item) for i, item in enumerate(items.items()))
