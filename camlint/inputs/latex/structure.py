"""Pass 1 of reading a LaTeX project: the structure scan.

Sections (with the role their titles give them), the appendix, the abstract, code blocks and the
raw paragraph chunks between them, in reading order, found by regular expressions over the
masked text: nothing is parsed yet (camlint.inputs.latex.document decides which chunks to parse).
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass
from typing import Any, Callable

from camlint.inputs.latex import mathtext as M
from camlint.inputs.latex.braces import group_ends, unescaped
from camlint.inputs.latex.macros import expand_macro_body
from camlint.inputs.latex.project import Project
from camlint.inputs.latex.source import RawBlock, SourceFile
from camlint.core.wording import vocabulary_data
from camlint.inputs.latex.units import DocumentText, Section, Unit, UnitBuilder

# the optional argument excludes '[': a scan stops at the next `\section[` (linear time)
_HEADING = re.compile(r"\\(part|chapter|section|subsection|subsubsection|paragraph|subparagraph)"
                      r"\*?\s*(?:\[[^\]\[]*\])?\s*\{")
_APPENDIX = re.compile(r"\\appendix\b|\\begin\s*\{appendices\}")
_ABSTRACT = re.compile(r"\\begin\s*\{abstract\}|\\end\s*\{abstract\}")
_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")
MAX_TITLE_CHARS = 1000
MAX_CHUNK = 12_000   # pylatexenc slows down superlinearly on very long runs of text
# a subsection whose own title says little takes the role of the section that frames it
_PARENT_ROLES = ("related", "introduction", "conclusion", "appendix", "abstract")


@dataclass(frozen=True)
class Chunk:
    """A raw paragraph (a span of a file's masked text), not parsed yet."""
    file: SourceFile
    start: int
    end: int
    section: int      # index of the section it stands in


_BIBLIOGRAPHY_TITLE = re.compile(r"(?:[\d.]+\s*)?(?:references?|bibliography|works cited)(?:\s+(?:list|cited|and notes))?\W*")


@functools.lru_cache(maxsize=1)
def _role_words() -> tuple[tuple[str, tuple[str, ...]], ...]:

    return tuple((role, tuple(words)) for role, words in vocabulary_data()["section_roles"].items())


def role_of(title: str, appendix: bool) -> str:
    t = title.lower()
    for role, words in _role_words():
        # a bibliography's title is the word alone ("References", "Reference list"); "Reference
        # model and regression test" or "Reference configuration" is the paper's own content
        if role == "references" and not _BIBLIOGRAPHY_TITLE.fullmatch(t.strip()):
            continue
        if any(w in t for w in words):
            return "appendix" if appendix and role not in ("references", "acknowledgements") else role
    return "appendix" if appendix else "other"


class Outline:
    """The sections of a document as its headings open them (every front end uses one)."""

    def __init__(self, sections: list[Section], display: str):
        self.sections = sections
        self.current = Section(0, "", "", "front", display, 1)
        self.sections.append(self.current)
        self.top_title = ""
        self.top_level = 1    # 0 once a \chapter (or \part) frames the sections: they are its children
        self.appendix = False

    def heading(self, title: str, level: int, display: str, line: int, appendix: bool = False) -> Section:
        """Levels 1-3 open a section (as \\section..\\subsubsection do), deeper ones do not.
        Returns the section in effect after the heading."""
        self.appendix = self.appendix or appendix
        if level <= 1 and (level <= self.top_level or not self.top_title):
            self.top_title, self.top_level = title, level
        if level > 3:
            return self.current
        child = level > self.top_level
        own = role_of(title, self.appendix)
        role = role_of(self.top_title if child and own == "other" else title, self.appendix)
        if child and role in ("other", "method", "experiments"):
            parent = role_of(self.top_title, self.appendix)
            role = parent if parent in _PARENT_ROLES else role
        return self._open(title, self.top_title if child else title, role, display, line)

    def abstract(self, display: str, line: int, begins: bool = True) -> Section:
        """\\begin{abstract} opens the abstract; \\end{abstract} goes back to the front matter."""
        if begins:
            return self._open("Abstract", "Abstract", "abstract", display, line)
        return self._open("", "", "front", display, line)

    def _open(self, title: str, top_title: str, role: str, display: str, line: int) -> Section:
        self.current = Section(len(self.sections), title, top_title, role, display, line)
        self.sections.append(self.current)
        return self.current


@dataclass(frozen=True)
class _Event:
    """Something the scan stops at: `read(file, offset, found)` returns where the scan goes on."""
    offset: int
    read: Callable[[SourceFile, int, Any], int]
    found: Any            # the regex match, or the RawBlock of a code block


class _Scan:
    def __init__(self, doc: DocumentText, main_display: str):
        self.doc = doc
        self.outline = Outline(doc.sections, main_display)
        self.pending: list[Chunk | Unit] = []
        self.title_ends: dict[str, dict[int, int]] = {}   # per file, computed once (linear time)

    def segment(self, f: SourceFile, start: int, end: int) -> None:
        """Lines of one file, up to the next \\input or the end of this one."""
        if f.display not in self.title_ends:
            self.title_ends[f.display] = group_ends(f.masked, [m.end() for m in _HEADING.finditer(f.masked)])
        cursor = start
        for event in self._events(f, start, end):
            if event.offset < cursor:
                continue
            self._chunks(f, cursor, event.offset)
            cursor = event.read(f, event.offset, event.found)
        self._chunks(f, cursor, end)

    def _events(self, f: SourceFile, start: int, end: int) -> list[_Event]:
        text = f.masked
        events = [_Event(m.start(), self._heading, m) for m in _HEADING.finditer(text, start, end)]
        events += [_Event(m.start(), self._appendix, m) for m in _APPENDIX.finditer(text, start, end)]
        events += [_Event(m.start(), self._abstract, m) for m in _ABSTRACT.finditer(text, start, end)]
        first_block = bisect.bisect_left(f.raw_begins, start)
        events += [_Event(b.begin, self._code, b)
                   for b in f.raw_blocks[first_block:bisect.bisect_left(f.raw_begins, end)]]
        events.sort(key=lambda e: e.offset)
        return events

    def _chunks(self, f: SourceFile, start: int, end: int) -> None:
        self.pending.extend(raw_chunks(f, start, end, self.outline.current.index))

    def _unit(self, kind: str, f: SourceFile, text: str, src: int, exact: bool, raw: RawBlock | None = None):
        b = UnitBuilder(Unit(kind, f, self.outline.current, raw=raw))
        b.add(text, src, exact=exact)
        self.pending.append(b.finish())

    def _heading(self, f: SourceFile, pos: int, m: re.Match) -> int:
        title_text, after = _heading_title(f.masked, m, self.title_ends[f.display])
        title = expand_macro_body(title_text, self.doc.macros) if "\\" in title_text else title_text
        line, _ = f.line_col(pos)
        self.outline.heading(title, M.HEADINGS[m.group(1)], f.display, line)
        self._unit("heading", f, title, pos, exact=False)
        return after

    def _appendix(self, f: SourceFile, pos: int, m: re.Match) -> int:
        self.outline.appendix = True
        return m.end()

    def _abstract(self, f: SourceFile, pos: int, m: re.Match) -> int:
        line, _ = f.line_col(pos)
        self.outline.abstract(f.display, line, begins="begin" in m.group(0))
        return m.end()

    def _code(self, f: SourceFile, pos: int, block: RawBlock) -> int:
        """A raw (verbatim-like) block: one code unit."""
        self._unit("code", f, f.text[block.start:block.end], block.start, exact=True, raw=block)
        return block.end if not block.closed else block.end + len(f"\\end{{{block.env}}}")


def scan_structure(project: Project, doc: DocumentText) -> list[Chunk | Unit]:
    """Sections (into doc.sections), and the raw chunks, headings and code units, in reading order."""
    scan = _Scan(doc, project.main.display)
    files = {f.display: f for f in project.files}
    for display, first, last in project.segments:
        f = files[display]
        start = f.line_starts[first - 1] if first - 1 < len(f.line_starts) else len(f.text)
        end = f.line_starts[last] if last < len(f.line_starts) else len(f.text)
        scan.segment(f, start, end)
    return scan.pending


def _heading_title(text: str, m: re.Match, ends: dict[int, int]) -> tuple[str, int]:
    end = ends.get(m.end()) or group_ends(text, [m.end()])[m.end()]
    return " ".join(text[m.end(): min(end - 1, m.end() + MAX_TITLE_CHARS)].split()), end


def raw_chunks(f: SourceFile, start: int, end: int, section: int) -> list[Chunk]:
    """Paragraphs (blank-line separated), long ones cut at a space outside any brace group."""
    out = []
    text = f.masked
    pos = start
    for m in list(_BLANK_LINES.finditer(text, start, end)) + [None]:
        stop = m.start() if m else end
        if text[pos:stop].strip():
            out.extend(_split_long(f, pos, stop, section))
        if m:
            pos = m.end()
    return out


def _split_long(f: SourceFile, start: int, stop: int, section: int) -> list[Chunk]:
    if stop - start <= MAX_CHUNK:
        return [Chunk(f, start, stop, section)]
    out, text, pos = [], f.masked, start
    while stop - pos > MAX_CHUNK:
        cut, depth, limit = -1, 0, pos + MAX_CHUNK
        for i, c in unescaped(text, pos, limit):
            if c == "{":
                depth += 1
            elif c == "}":
                depth = max(0, depth - 1)
            elif c in " \n" and depth == 0 and i - pos > MAX_CHUNK // 2:
                cut = i
        cut = cut if cut > pos else limit
        out.append(Chunk(f, pos, cut, section))
        pos = cut
    out.append(Chunk(f, pos, stop, section))
    return out
