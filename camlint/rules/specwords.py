"""Short camspec words that the prose vocabulary does not read: "relu: after weighted sum",
"tokens: drop cls and dist tokens (first two)", "layer: blocks.9", "postprocess: none".

A camspec is written as a key and a short value, not as a sentence, so CAM210 and CAM211 read
such a value through the schema's own synonyms (camlint/core/vocab.py), never by a fuzzy match:
a word that is no synonym pins nothing.
"""
from __future__ import annotations

import re

from camlint.core import vocab

# keys whose whole value is one choice ("after weighted sum", "mean over heads")
_SINGLE = ("relu", "weighting", "heads", "location")
# "drop cls and dist tokens (first two)", "remove the class token", "discard cls, dist"
_DROP = re.compile(r"^(?:drop|discard|remove|exclude|strip)\s+(?:the\s+)?([\w\s,+&]+?)(?:\s+tokens?)?\s*(?:\(.*)?$")
# a module path, as named_modules() gives it: "blocks.9", "model.blocks.11 (last of 12)", "encoder.layer.10"
_MODULE = re.compile(r"^(?:[a-z_]+\.){0,3}?(?:blocks|layers?|resblocks)\.(\d{1,3})(?![\w.])")
_AND = re.compile(r"\s*(?:,|\+|&|\band\b)\s*(?:the\s+)?")


def _synonym(slot: str, text: str) -> str | None:
    """The canonical value `text` names exactly (its squashed form is a value or a synonym)."""
    table = {vocab.squash(a): a for a in vocab.CANONICAL.get(slot, ())}
    table.update({vocab.squash(k): v for k, v in vocab.SYNONYMS.get(slot, {}).items()})
    return table.get(vocab.squash(text))


def compact(key: str, text: str):
    """A camspec-shaped value for a short camspec phrase, or None when the words pin nothing."""
    t = text.strip().lower()
    if len(t) > 200:
        return None                                  # a camspec value, not a paragraph
    if key in _SINGLE:
        return _synonym(key, re.sub(r"\s*\(.*\)\s*$", "", t))   # "after weighted sum (ReLU)"
    if key == "postprocess" and t in ("none", "no", "raw"):
        return {"normalize": "none"}                 # nothing done to the map: not normalised
    if key == "layer":
        m = _MODULE.match(t)
        return {"block": int(m.group(1))} if m else None
    m = _DROP.match(t) if key == "tokens" else None
    if m:
        names = [_synonym("tokens.drop", re.sub(r"\s+tokens?$", "", part)) for part in _AND.split(m.group(1))]
        return {"drop": sorted(set(names))} if names and all(names) else None
    return None
