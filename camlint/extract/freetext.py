"""Free-text values in a camspec block ("target: raw logit (pre-softmax), fixed class X") read
with the same vocabulary as the prose, so a spec written in words is judged like prose."""
from __future__ import annotations

from camlint.extract.mentions import _parse
from camlint.extract.vocab import vocabulary
from camlint.core.wording import low

SINGLE = ("location", "weighting", "relu")
SLOTTED = ("target", "tokens", "reshape", "heads", "postprocess")


def _found(key: str, text: str) -> dict[str, object]:
    """Per slot of `key`, the concrete value of the strongest entry that matches `text` (a code
    identifier beats words: "blocks[11] (the twelfth and last block)" is block 11); ties go to
    the entry listed first."""
    v, t = vocabulary(), low(text)
    best: dict[str, tuple[int, object]] = {}
    for entry in v.entries.get(key, ()):
        if entry.vague or entry.parse == "antecedent" or entry.strength <= best.get(entry.slot, (0, None))[0]:
            continue
        for rx in entry.patterns:
            m = rx.search(t)
            if not m:
                continue
            parsed = _parse(entry, m) if entry.parse else (entry.value, {})
            if parsed is not None and not (isinstance(parsed[0], dict) and "formula" in parsed[0]):
                best[entry.slot] = (entry.strength, parsed[0])
                break
    return {slot: value for slot, (_, value) in best.items()}


def structured(key: str, text: str) -> object | None:
    """A camspec-shaped value for a free-text spec value, or None when the words pin nothing."""
    if key == "model":
        v, t = vocabulary(), low(text)
        for rx in v.model["weights_ids"]:
            m = rx.search(t)
            if m:
                return {"arch": text.split(",")[0].strip(), "weights": text[m.start():m.end()]}
        return None
    found = _found(key, text)
    if not found:
        return None
    if key in SINGLE:
        return next(iter(found.values()))
    if key == "layer":
        where = found.get("where")
        return where if isinstance(where, dict) else ({"block": where} if where is not None else None)
    if key == "tokens" and "drop" in found:
        drop = found["drop"]
        return {"drop": [] if drop == "kept" else (drop if isinstance(drop, list) else [drop])}
    if key in SLOTTED:
        return found
    return None
