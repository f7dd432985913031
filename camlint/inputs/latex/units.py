"""The document model: text units (paragraphs, captions, footnotes, table rows, code blocks)
whose every character maps back to a file, line and column, the sections they sit in, and the
sentences read from them.

Every front end fills this model: LaTeX (camlint.inputs.latex.document), and PDF, Markdown and plain
text (camlint.inputs.model), so the same extraction, rules and judge read any input.
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from camlint.inputs.latex.source import RawBlock, SourceFile
from camlint.core.wording import low, vocabulary_data
from camlint.rules.findings import Hit

_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z(\[\\$\"`0-9])")
MAX_SENTENCE = 1500   # longer "sentences" (no punctuation) are read in windows


@dataclass
class Section:
    """The innermost section/subsection/subsubsection in effect (\\paragraph is part of it)."""
    index: int
    title: str
    top_title: str
    role: str
    file: str
    line: int


@dataclass(frozen=True)
class Citation:
    """A citation in a unit's text: where it stands and the keys it cites."""
    position: int
    keys: tuple[str, ...]


class RawSize(NamedTuple):
    """A statement of the network's input size found in raw text, before any parsing.
    (A named tuple: extraction reads it by position too.)"""
    priority: int      # lower: a more explicit phrasing
    side: int          # the input side in pixels
    section: int       # index of the section it stands in
    offset: int        # offset in the file's masked text


@dataclass
class Unit:
    kind: str                     # text | caption | footnote | row | item | heading | title | code
    file: SourceFile
    section: Section
    float_env: str = ""           # figure / table when inside one
    text: str = ""
    out: list[int] = field(default_factory=list)    # output offsets where a source run starts
    src: list[int] = field(default_factory=list)    # the source offsets of those runs
    exact: list[bool] = field(default_factory=list)
    cites: list[Citation] = field(default_factory=list)
    raw: RawBlock | None = None   # for code units

    @property
    def is_camspec(self) -> bool:
        """A camspec block: its YAML is read as a specification, not as sentences."""
        return self.kind == "code" and self.raw is not None and self.raw.env == "camspec"

    def src_offset(self, pos: int) -> int:
        i = bisect.bisect_right(self.out, pos) - 1
        if i < 0:
            return self.src[0] if self.src else 0
        return self.src[i] + (pos - self.out[i] if self.exact[i] else 0)

    def line_col(self, pos: int) -> tuple[int, int]:
        return self.file.line_col(self.src_offset(pos))


class UnitBuilder:
    """Accumulates one unit's text with its source mapping."""

    def __init__(self, unit: Unit):
        self.unit = unit
        self.parts: list[str] = []
        self.length = 0

    def add(self, text: str, src: int, exact: bool = False) -> None:
        if not text:
            return
        u = self.unit
        u.out.append(self.length)
        u.src.append(src)
        u.exact.append(exact)
        self.parts.append(text)
        self.length += len(text)

    def finish(self) -> Unit:
        self.unit.text = "".join(self.parts)
        return self.unit


@dataclass
class Sentence:
    unit: Unit
    start: int
    end: int
    text: str
    offsets: list[int] | None = None   # normalised text: offset in `text` -> offset in the unit's text

    def line_col(self, pos: int = 0) -> tuple[int, int]:
        if self.offsets is not None:
            return self.unit.line_col(self.offsets[min(max(pos, 0), len(self.offsets) - 1)] if self.offsets
                                      else self.start)
        return self.unit.line_col(self.start + pos)

    @property
    def section(self) -> Section:
        return self.unit.section

    @functools.cached_property
    def low(self) -> str:
        """The text in ASCII lower case (same offsets) for the vocabulary's patterns."""

        return low(self.text)

    def cites(self) -> tuple[str, ...]:
        return tuple(k for c in self.unit.cites if self.start <= c.position <= self.end for k in c.keys)


@dataclass
class DocumentText:
    units: list[Unit] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    problems: list[Hit] = field(default_factory=list)
    macros: dict[str, str] = field(default_factory=dict)
    raw_flags: dict[str, set[int]] = field(default_factory=dict)   # name -> sections whose raw text matched
    raw_sizes: list[RawSize] = field(default_factory=list)
    # (file, section, float env) of the floats a section about CAM refers to ("Table 2 lists the settings")
    pointed_floats: set[tuple[str, int, str]] = field(default_factory=set)

    def sentences(self):
        for u in self.units:
            yield from split_sentences(u)


@functools.lru_cache(maxsize=1)
def _abbreviation() -> re.Pattern:
    """A period after one of the vocabulary's abbreviations (e.g., Fig., et al.) ends no sentence."""

    words = "|".join(re.escape(w) for w in vocabulary_data()["abbreviations"])
    return re.compile(rf"(?:\b(?:{words})\.)$", re.I)


def split_sentences(unit: Unit) -> list[Sentence]:
    if unit.kind in ("row", "heading", "title", "code"):
        return [Sentence(unit, 0, len(unit.text), unit.text)] if unit.text.strip() else []
    out, start = [], 0
    abbreviation = _abbreviation()
    for m in _SENTENCE_END.finditer(unit.text):
        if abbreviation.search(unit.text[max(0, m.start() - 8): m.start()]):
            continue
        out.extend(_windows(unit, start, m.start()))
        start = m.end()
    out.extend(_windows(unit, start, len(unit.text)))
    return [s for s in out if s.text.strip()]


def _windows(unit: Unit, start: int, end: int) -> list[Sentence]:
    out = []
    while end - start > MAX_SENTENCE:
        cut = unit.text.rfind(" ", start + MAX_SENTENCE // 2, start + MAX_SENTENCE)
        cut = cut if cut > start else start + MAX_SENTENCE
        out.append(Sentence(unit, start, cut, unit.text[start:cut]))
        start = cut
    out.append(Sentence(unit, start, end, unit.text[start:end]))
    return out
