"""The Markdown and plain-text front end (README.md, supplement.md, notes.txt).

Headings are sections (`#` levels, setext underlines; in plain text numbered or underlined
lines), paragraphs, list items and table rows are text units, fenced code is code evidence, and
a ```camspec fenced block is read like the LaTeX camspec environment. Positions are the file's
own lines and columns.
"""
from __future__ import annotations

import re
from pathlib import Path

from camlint.checklist.analysis import Analysis
from camlint.inputs.model import ModelBuilder, Piece
from camlint.inputs.textfile import read_limited

MAX_BYTES = 8 * 1024 * 1024
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+.-]*)")
_ATX = re.compile(r" {0,3}(#{1,6})\s+")      # the title is what follows, less a closing run of #
_SETEXT = re.compile(r"^ {0,3}(=+|-+)\s*$")
_NUMBERED = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+([A-Z][^.!?]{0,80})$")
_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
# possessive (*+): adjacent \s* runs backtracked against each other (quadratic in a line's spaces)
_TABLE_RULE = re.compile(r"^\s*+\|?\s*+:?-{2,}+:?\s*+(?:\|\s*+:?-{2,}+:?\s*+)*+\|?\s*+$")
_EMPHASIS = re.compile(r"\*\*|`")


def analyze_markdown(path: Path, display: str, spec: Path | None = None, plain: bool = False,
                     data: bytes | None = None) -> Analysis:
    from camlint.inputs.latex.analyze import analyze_units
    from camlint.inputs.latex.source import decode

    text = decode(data if data is not None else read_limited(path, MAX_BYTES))
    if "\x00" in text[:65536]:
        raise ValueError("binary file (NUL bytes), not text")
    # comments keep their newlines so every later line keeps its number
    text = _blank_comments(text)
    lines = text.split("\n")
    b = ModelBuilder(path, display, lines)
    _Reader(b, lines, plain).read()
    project, doc = b.finish(path.resolve().parent if path is not None else Path.cwd())
    return analyze_units(project, doc, {}, display, spec, kind="text" if plain else "markdown")


def _blank_comments(text: str) -> str:
    """Each closed <!-- ... --> as spaces (its newlines kept). One pass: the lazy regex this
    replaces rescanned to the end of the file from every unclosed `<!--` (quadratic)."""
    out, pos = [], 0
    while (start := text.find("<!--", pos)) >= 0:
        end = text.find("-->", start + 4)
        if end < 0:
            break                   # an unclosed comment hides nothing: the rest is read as text
        out += [text[pos:start], re.sub(r"[^\n]", " ", text[start:end + 3])]
        pos = end + 3
    return "".join(out) + text[pos:]


class _Reader:
    def __init__(self, b: ModelBuilder, lines: list[str], plain: bool):
        self.b, self.lines, self.plain = b, lines, plain
        self.pieces: list[Piece] = []
        self.kind = "text"
        atx = [len(m.group(1)) for ln in lines if (m := _ATX.match(ln))]
        # one `# Title` above `##` sections: the title, and `##` are the sections
        self.shift = 1 if not plain and atx.count(1) == 1 and any(n > 1 for n in atx) else 0

    def read(self) -> None:
        i, n = 0, len(self.lines)
        while i < n:
            line = self.lines[i]
            fence = _FENCE.match(line)
            if fence:
                i = self._code(i, fence)
                continue
            heading = self._heading(i)
            if heading:
                self.flush()
                level, title, used = heading
                if level == 0:
                    self.b.unit("title", [Piece(i + 1, 0, title)])
                else:
                    self.b.heading(i + 1, title, level, appendix=title.lower().startswith(("appendix", "supplement")))
                i += used
                continue
            if not line.strip():
                self.flush()
            elif not self.plain and line.lstrip().startswith("|"):
                self.flush()
                if not _TABLE_RULE.match(line):
                    self.b.unit("row", [Piece(i + 1, 0, _plain(line).replace("|", " | "))])
            else:
                self._text(i, line)
            i += 1
        self.flush()

    def _heading(self, i: int) -> tuple[int, str, int] | None:
        line = self.lines[i]
        nxt = self.lines[i + 1] if i + 1 < len(self.lines) else ""
        if not self.plain:
            m = _ATX.match(line)
            if m:
                title = line[m.end():].rstrip().rstrip("#")      # not a regex: `(.*?)\s*#*\s*$` was cubic
                return len(m.group(1)) - self.shift, _plain(title).strip(), 1
        if line.strip() and not self.pieces and _SETEXT.match(nxt) and len(nxt.strip()) >= 3:
            return (1 if nxt.strip()[0] == "=" else 2), line.strip(), 2
        if self.plain and not self.pieces and (not nxt.strip() or len(line) < 60):
            m = _NUMBERED.match(line.strip())
            if m:
                return m.group(1).count(".") + 1, m.group(2).strip(), 1
        return None

    def _text(self, i: int, line: str) -> None:
        quote = _QUOTE.match(line)
        start = quote.end() if quote else 0
        item = _ITEM.match(line, start)
        if item:
            self.flush()
            self.kind = "item"
            start = item.end()
        self.pieces.append(Piece(i + 1, start, _plain(line[start:])))

    def _code(self, i: int, fence: re.Match) -> int:
        """A fenced block: its content lines are a code unit (a camspec block when tagged so)."""
        self.flush()
        mark, info = fence.group(1), fence.group(2).lower()
        j = i + 1
        while j < len(self.lines) and not self.lines[j].lstrip().startswith(mark):
            j += 1
        if j > i + 1:
            self.b.code(i + 2, j, "camspec" if info == "camspec" else "")
        return j + 1

    def flush(self) -> None:
        if self.pieces:
            self.b.unit(self.kind, self.pieces)
        self.pieces, self.kind = [], "text"


def _plain(text: str) -> str:
    """Markup characters blanked (same length, so columns stay exact); identifiers kept as written."""
    return _EMPHASIS.sub(lambda m: " " * len(m.group(0)), text)
