"""How a paper counts its blocks: the 0-based indices one layer mention can mean.

CAM203 (block beyond the depth) and CAM211 (two statements of the block) read counts the same
way: a count ("block 11", "block 11 of 12") may be from zero (the taxonomy's "index 11 of 12" is
the last block) or from one, unless the paper or the words right after it say which.
"""
from __future__ import annotations

import re

# "block 11 of 12", "block 12 (the last of 12)": the words right after a counted block
_OF_DEPTH = re.compile(r"^\s*,?\s*\(?\s*(?:i\.?e\.?,?\s+)?(?:the\s+)?(?:(last|final)\s+)?(?:of|out of)\s+(\d+)\b")


def _one_based(a, s) -> bool:
    """The sentence, or any sentence of the paper's own, says it counts from one."""
    from camlint.extract.vocab import vocabulary

    rx = vocabulary().one_based
    memo = a.prose.memo
    if "one_based" not in memo:          # once per document, not once per mention
        memo["one_based"] = any(rx.search(t.low) for t in a.prose.sentences if a.prose.scope.in_scope(t))
    return bool(rx.search(s.low)) or memo["one_based"]


def readings(a, m, depth: int) -> frozenset[int] | None:
    """The 0-based block indices one layer mention can mean. A count ("block 11", "block 11 of
    12") is read both from zero and from one (the taxonomy's "index 11 of 12" is the last block,
    a count from one makes it the penultimate), unless the paper says it counts from one, an
    index is out of range one way, or the words after it say it is the last ("(last of 12)")."""
    v = m.value
    if isinstance(v, int) and not isinstance(v, bool):
        return frozenset({v + depth if v < 0 else v}) if -depth <= v < depth else None
    if not (isinstance(v, dict) and set(v) - {"ordinal"} == {"block"} and isinstance(v["block"], int)):
        return None                                  # ranges, stages, several blocks: not compared
    n = v["block"]
    if n < 0:
        return frozenset({n + depth})
    if m.data.get("of_total"):        # "layer 11 of 12": read from one, or from zero as in the
        return frozenset(b for b in (n, n + 1) if b < depth) or None   # taxonomy's "index 11 of 12"
    if not m.data.get("counted"):
        return frozenset({n}) if n < depth else None
    if _one_based(a, m.sentence):
        return frozenset({n - 1}) if 0 < n <= depth else None
    both = frozenset(b for b in (n, n - 1) if 0 <= b < depth)
    after = _OF_DEPTH.match(m.sentence.low[m.end:])
    if after and after.group(1) and int(after.group(2)) == depth and depth - 1 in both:
        return frozenset({depth - 1})
    return both or None


def count_pinned(a, m, depth: int) -> bool:
    """A counted block whose own words say how it counts: "block 12 of 12", "block 12 (last of
    twelve)", "the last block, block 12", or a paper that says it counts from one."""
    after = _OF_DEPTH.match(m.sentence.low[m.end:])
    if (after and int(after.group(2)) == depth) or _one_based(a, m.sentence):
        return True
    n = m.value.get("block") if isinstance(m.value, dict) else None
    others = [readings(a, o, depth) for o in a.prose.mentions.get("layer", [])
              if o.sentence is m.sentence and o is not m and not o.data.get("counted")]
    return isinstance(n, int) and any(r and n - 1 in r for r in others)
