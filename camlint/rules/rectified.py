"""A camspec that says no rectification while the text clips the map's negative values (CAM210).

The text's clipping often gives no placement ("negative values are clipped to zero after
projection"), so the relu item reads it as vague and CAM210's value-by-value comparison has
nothing to hold against the camspec's `relu: none`; yet any clipping contradicts "none".
"""
from __future__ import annotations

import re

from camlint.rules import facts as F
from camlint.rules.base import Hit

# the words clip, clamp or zero the negative part; a bare "ReLU" may be the MLP's activation
_CLIPS = re.compile(r"\b(?:clip|clamp|zero|negative|positive|threshold)\w*|\bmax\s*\(")


def _spec_says_none(a):
    for src in a.specs:
        value = src.data.get("relu")
        if value is not None and F.canonical_single("relu", value) == frozenset({"none"}):
            return src
    return None


def clipped_against_none(a):
    """The first own, in-scope sentence that rectifies the map, where a camspec says `relu: none`."""
    src = _spec_says_none(a) if a.prose is not None and a.uses_cam else None
    prose = F.canonical_single("relu", a.prose.values.get("relu")) if src is not None else None
    if src is None or (prose and prose != frozenset({"none"})):
        return                                       # a placed rectification: CAM210 compares it
    mentions = a.prose.mentions.get("relu", [])
    said_none = {id(m.sentence) for m in mentions if m.value == "none"}
    for m in mentions:
        s = m.sentence
        if m.value == "none" or id(s) in said_none or not _CLIPS.search(m.text.lower()) \
                or not (a.prose.scope.in_scope(s) and a.prose.scope.attribution.own(s)):
            continue
        file, line, col = m.position()
        s_line, _ = src.position(("relu",))
        yield Hit(f"relu: the text rectifies the map ('{m.text}'), the camspec at {src.file}:{s_line} says none",
                  file, line, col)
        return
