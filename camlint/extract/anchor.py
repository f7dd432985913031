"""Where document-level findings (a missing item) point: where the author has to write them.

The section that describes the CAM procedure is the own section that holds the most checklist
items' evidence (a CAM title breaks ties); a finding points at the first sentence of its prose
that names the method, else at the section's first sentence (prose before captions and tables). Without such evidence: the first method
mention in a section titled about CAM, then any own mention, then the first sentence in scope.
Never the title or the abstract, nor the introduction, related work or the conclusion, while an
own section says anything about the maps.
"""
from __future__ import annotations

from camlint.inputs.latex.units import Sentence

# sections where nobody writes the procedure (the abstract and the title's front matter included)
_NOT_HERE = frozenset({"abstract", "front", "introduction", "conclusion", "related", "references",
                       "acknowledgements"})
# an item the paper usually states outside its CAM section (the model: in its own section)
_NOT_PROCEDURE = frozenset({"model"})
_PROSE, _TABLES = frozenset({"text", "item", "footnote"}), frozenset({"row", "code"})


def anchor(method_mentions: list, evidence: dict, in_scope: list[Sentence], sentences: list[Sentence],
           cam_titles: set[int]) -> tuple | None:
    # A document without headings (a plain text, a bare LaTeX body) is one front section: there
    # the paragraph that holds most of the evidence stands for the section.
    sectioned = any(s.section.role != "front" for s in sentences)
    not_here = _NOT_HERE if sectioned else _NOT_HERE - {"front"}

    def own(s: Sentence) -> bool:
        return s.section.role not in not_here and s.unit.kind not in ("title", "heading")

    def group(s: Sentence) -> int:
        return s.section.index if sectioned else id(s.unit)

    mine = [s for s in in_scope if own(s)]
    home = _procedure_home(evidence, mine, group, cam_titles if sectioned else set())
    if home is not None:
        named = [m for m in method_mentions if group(m.sentence) == home and m.sentence.unit.kind in _PROSE]
        if named:
            return named[0].position()
        return _at_text(_first([s for s in mine if group(s) == home], lambda s: s))
    titled = [m for m in method_mentions if m.sentence.section.index in cam_titles and own(m.sentence)]
    if titled:
        return _first(titled, lambda m: m.sentence).position()
    ranked = [s for s in mine if s.section.index in cam_titles]
    if ranked:
        return _at_text(_first(ranked, lambda s: s))
    mentions = [m for m in method_mentions if own(m.sentence)] or method_mentions
    if mentions:
        return _first(mentions, lambda m: m.sentence).position()
    for s in mine + in_scope + sentences:
        return _at_text(s)
    return None


def _procedure_home(evidence: dict, own: list[Sentence], group, cam_titles: set[int]) -> int | None:
    """The own section (or paragraph, see `group`) holding the most items' evidence, or None."""
    where: dict[tuple[str, int], int] = {}
    for s in own:
        first, last = s.line_col(0)[0], s.line_col(max(len(s.text) - 1, 0))[0]
        for line in range(first, last + 1):
            where.setdefault((s.unit.file.display, line), group(s))
    items: dict[int, set[str]] = {}
    for key, found in evidence.items():
        if key in _NOT_PROCEDURE:
            continue
        for ev in found or ():
            home = where.get((ev.file, ev.line))
            if home is not None:
                items.setdefault(home, set()).add(key)
    if not items:
        return None
    order = {group(s): n for n, s in reversed(list(enumerate(own)))}
    return max(items, key=lambda h: (len(items[h]), h in cam_titles, -order.get(h, 0)))


def _first(things: list, sentence_of):
    """The first of `things` in reading order, prose before captions and table rows."""
    def rank(thing) -> int:
        kind = sentence_of(thing).unit.kind
        return 0 if kind in _PROSE else 1 if kind in _TABLES else 2
    best = min(rank(t) for t in things)
    return next(t for t in things if rank(t) == best)


def _at_text(s: Sentence) -> tuple:
    line, col = s.line_col(len(s.text) - len(s.text.lstrip()))
    return s.unit.file.display, line, col
