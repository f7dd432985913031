"""Comparison tables: a column of the paper's own settings next to columns of others'.

"Setting | Smith et al. [cite] | Ours" heads a table that states two procedures; only the own
column describes the paper's maps. Every row of such a table is read as its first cell and the
own cell ("Layer | block 11"), so the cited work's values never fill the checklist.
"""
from __future__ import annotations

import re
from typing import Iterable, Iterator

from camlint.extract.vocab import vocabulary
from camlint.inputs.latex.units import Sentence

_CELL = re.compile(r"[^|]+")


def _cells(text: str) -> list[re.Match]:
    return list(_CELL.finditer(text))


def _own_column(header: Sentence) -> int | None:
    """Index of the own column in a header row that also has a column of someone else's."""
    v = vocabulary()
    cells = [c.group(0).lower() for c in _cells(header.text)]
    own = [i for i, c in enumerate(cells) if i and v.phrases["own_column"].search(c)]
    others = [i for i, c in enumerate(cells) if i and v.phrases["others_column"].search(c)]
    return own[0] if len(own) == 1 and others and own[0] not in others else None


def _own_cells(s: Sentence, column: int) -> Sentence:
    cells = _cells(s.text)
    if len(cells) <= column:
        return s
    key, own = cells[0], cells[column]
    text = key.group(0) + "|" + own.group(0)
    offsets = list(range(s.start + key.start(), s.start + key.end())) + [s.start + own.start()] + \
        list(range(s.start + own.start(), s.start + own.end()))
    return Sentence(s.unit, s.start, s.end, text, offsets)


def own_columns(sentences: Iterable[Sentence]) -> Iterator[Sentence]:
    """The sentences, with the rows of comparison tables cut to their own column."""
    column, previous = None, None
    for s in sentences:
        if s.unit.kind != "row":
            column, previous = None, s
            yield s
            continue
        if previous is None or previous.unit.kind != "row" or previous.unit.float_env != s.unit.float_env:
            column = _own_column(s)     # the first row of a table is its header
            previous = s
            yield s
            continue
        previous = s
        yield _own_cells(s, column) if column is not None else s
