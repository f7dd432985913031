"""A prefix token kept in one sentence and the whole sequence reshaped to a grid in the same
sentence or one just after it, in the same paragraph (CAM201).

The tokens and reshape items hold one value each and may miss either statement ("the class
token we keep it together with patch tokens", "the tokens were reorganized in a matrix of
14 x 14"), so the two sentences are read here themselves: the keeping sentence names the prefix
token and a keep verb, and the reshaping sentence's subject is the unqualified sequence ("the
tokens", "all 197 tokens", "the resulting sequence"), not "the patch tokens" or "the remaining
tokens".
"""
from __future__ import annotations

import re

from camlint.rules import facts as F
from camlint.rules.base import Hit

_PREFIX = r"(?:\[?cls\]?|class|classification|distillation|dist)"
# "kept the class token", "the class and distillation tokens were retained", "the class token
# we keep it"; not "kept aside / apart / out / separately / for the classifier"
_KEEP = re.compile(
    rf"\b(?:keep|kept|keeps|keeping|retain\w*|preserv\w*)\s+(?:both\s+)?(?:the\s+)?{_PREFIX}\b[^.;]{{0,30}}?\btokens?\b"
    rf"|\b{_PREFIX}\s+(?:and\s+(?:the\s+)?{_PREFIX}\s+)?tokens?\b[^.;,]{{0,25}}?\b(?:keep|kept|retain\w*|preserv\w*)\b")
_NOT_IN_SEQUENCE = re.compile(r"^\s*(?:\w+\s+){0,2}?(?:aside|apart|out|separately|for (?:the )?(?:classif|predict|head))")
_NEGATED = re.compile(r"\b(?:not|never|no longer|without|rather than|instead of|n't)\b[^.;]{0,25}$")
# the subject of the reshape is the whole sequence, unqualified; the verb, then a grid
_SUBJECT = r"(?:all\s+(?:of\s+)?(?:the\s+)?|the\s+(?:resulting\s+|whole\s+|full\s+|entire\s+|complete\s+)?)(?:\d{2,4}\s+)?(?:tokens|token sequence|sequence)"
_VERB = r"(?:reshap|reorgani[sz]|rearrang|arrang|fold|unflatten)\w*"
_GRID = r"[^.;]{0,40}?\b(\d{1,3})\s*[×x]\s*(\d{1,3})\b"
_WHOLE_RESHAPED = re.compile(
    rf"\b{_SUBJECT}\s+(?:(?:is|are|was|were|gets?|got|being|then)\s+){{0,2}}{_VERB}\s+(?:in|into|to|as){_GRID}"
    rf"|\b{_VERB}\s+{_SUBJECT}\s+(?:in|into|to|as){_GRID}")
# a drop of a prefix token between the two statements (or in the reshaping one) undoes the keep
_DROPS = re.compile(rf"\b(?:discard|drop|remov|exclud|omit|strip|slic|delet|except|minus|other than|apart from)\w*"
                    rf"[^.;]{{0,40}}\b(?:{_PREFIX}|first|leading)\b|\b{_PREFIX}\s+tokens?\b[^.;]{{0,30}}?"
                    rf"\b(?:discarded|dropped|removed|excluded|omitted|stripped)\b")
_NEAR = 2      # the reshaping sentence is at most this many sentences after the keeping one


def _kept_names(low: str) -> dict[str, int] | None:
    for m in _KEEP.finditer(low):
        if _NEGATED.search(low[max(0, m.start() - 40):m.start()]) or _NOT_IN_SEQUENCE.match(low[m.end():m.end() + 40]):
            continue
        said = m.group(0)
        names = {"cls": int(bool(re.search(r"\[?cls\]?|class", said))),
                 "dist": int(bool(re.search(r"distill|\bdist\b", said)))}
        return {k: n for k, n in names.items() if n} or None
    return None


def kept_outside_sequence(after: str) -> bool:
    """The words after a keep say where the token is kept, outside the sequence."""
    return bool(_NOT_IN_SEQUENCE.match(after))


def _paragraphs(a):
    """The paper's own sentences outside the related work and references, paragraph by paragraph."""
    out: dict[int, list] = {}
    for s in a.prose.sentences:
        if s.unit.kind == "text" and s.section.role not in ("related", "references"):
            out.setdefault(id(s.unit), []).append(s)
    return out.values()


def kept_then_reshaped(a):
    """(keeping sentence, reshaping sentence, grid, kept names) of the first such pair."""
    scope = a.prose.scope
    for sentences in _paragraphs(a):
        for i, k in enumerate(sentences):
            names = _kept_names(k.low)
            if names and scope.in_scope(k) and scope.attribution.own(k):
                found = _reshaped_after(sentences[i:i + _NEAR + 1])
                if found:
                    return k, found[0], found[1], names
    return None


def _reshaped_after(sentences):
    """The first sentence (from the keeping one on) that reshapes the whole sequence, unless a
    prefix token is dropped on the way."""
    for j, g in enumerate(sentences):
        m = _WHOLE_RESHAPED.search(g.low)
        before = g.low[:m.start()] if m else g.low
        if _DROPS.search(before if j == 0 else g.low):
            return None
        if m and int(m.group(m.lastindex - 1)) == int(m.group(m.lastindex)):
            return g, (int(m.group(m.lastindex - 1)), int(m.group(m.lastindex)))
    return None


def kept_then_reshaped_hits(a, prefix_names: dict[str, str]):
    """The two statements read from the sentences, where the items do not hold both."""
    if not a.uses_cam or a.prose is None or F.no_cls_name(a):
        return                                       # no [CLS] to keep: CAM204 says so
    found = kept_then_reshaped(a)
    if found:
        k, s, (r, c), kept = found
        names = " and ".join(prefix_names[n] for n in kept)
        k_line, _ = k.line_col(0)
        line, col = s.line_col(0)
        yield Hit(f"the {names} token{'s are' if len(kept) > 1 else ' is'} kept (line {k_line}), yet the "
                  f"whole sequence is reshaped to a {r} x {c} grid: {r * c + len(kept)} tokens do not fill "
                  f"{r} x {c} = {r * c} cells", s.unit.file.display, line, col)
