"""One .tex file: decoded text, comment masking and the blocks LaTeX does not parse.

Masking replaces every character that is not text (comments, \\iffalse...\\fi, comment
environments) by a space and keeps newlines, so offsets in the masked text are offsets in the
file: every later position maps straight back to a line and column.
"""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILE_BYTES = 8 * 1024 * 1024

VERBATIM_ENVS = {"verbatim", "verbatim*", "Verbatim", "BVerbatim", "LVerbatim", "lstlisting",
                 "minted", "alltt", "camspec", "spverbatim"}
_VERB_DEF = re.compile(r"\\(?:DefineVerbatimEnvironment|lstnewenvironment|newminted)\s*\{([^}]+)\}"
                       r"|\\newenvironment\s*\{([^}]+)\}\s*\{\s*\\(?:verbatim|Verbatim|begin\{verbatim\})")
_BEGIN = re.compile(r"\\begin\s*\{([^}]+)\}")
_IFFALSE = re.compile(r"\\iffalse\b|\\if0\b")
_IF_ANY = re.compile(r"\\if[a-zA-Z@]*\b|\\fi\b")


@dataclass
class Comment:
    text: str          # without the leading %
    line: int
    col: int           # column of the %


@dataclass
class RawBlock:
    """A verbatim-like environment: its content is code, not LaTeX."""
    env: str
    begin: int         # offset of \\begin
    start: int         # offset of the content
    end: int           # offset of \\end (or of the end of file when unclosed)
    closed: bool = True


@dataclass
class SourceFile:
    path: Path
    display: str
    text: str
    masked: str = ""
    comments: list[Comment] = field(default_factory=list)
    raw_blocks: list[RawBlock] = field(default_factory=list)
    line_starts: list[int] = field(default_factory=list)

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.line_starts, offset) - 1
        return i + 1, offset - self.line_starts[i] + 1

    def line_text(self, line: int) -> str:
        if not 1 <= line <= len(self.line_starts):
            return ""
        start = self.line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start: end if end >= 0 else len(self.text)]

    @property
    def n_lines(self) -> int:
        return len(self.line_starts)


def decode(raw: bytes) -> str:
    """UTF-8 (BOM allowed), UTF-16 with a BOM, else latin-1; CRLF and CR become LF."""
    import codecs

    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = raw.decode("utf-16", errors="replace")
    else:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def verbatim_envs_defined(text: str) -> set[str]:
    return {(m.group(1) or m.group(2)).strip() for m in _VERB_DEF.finditer(text)}


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "


def mask(src: SourceFile, verbatim: set[str]) -> None:
    """Fill src.masked, src.comments and src.raw_blocks (one left-to-right scan)."""
    text = src.text
    chars = list(text)
    n = len(text)
    i = 0
    line_starts = src.line_starts
    while i < n:
        c = text[i]
        if c == "\\":
            if text.startswith("\\begin", i):
                m = _BEGIN.match(text, i)
                if m:
                    env = m.group(1).strip()
                    if env in verbatim or env == "comment":
                        end_tag = f"\\end{{{env}}}"
                        j = text.find(end_tag, m.end())
                        closed = j >= 0
                        j = j if closed else n
                        if env == "comment":
                            _blank(chars, i, j + (len(end_tag) if closed else 0))
                        else:
                            src.raw_blocks.append(RawBlock(env, i, m.end(), j, closed))
                        i = j + (len(end_tag) if closed else 0)
                        continue
            if text.startswith("\\verb", i) and i + 5 < n and not text[i + 5].isalpha():
                k = i + 5 + (1 if text[i + 5] == "*" else 0)
                if k < n:
                    delim = text[k]
                    j = text.find(delim, k + 1)
                    nl = text.find("\n", k + 1)
                    if j >= 0 and (nl < 0 or j < nl):
                        i = j + 1
                        continue
            m = _IFFALSE.match(text, i)
            if m:
                j, depth = m.end(), 1
                for mm in _IF_ANY.finditer(text, m.end()):
                    depth += -1 if mm.group(0) == "\\fi" else 1
                    if depth == 0:
                        j = mm.end()
                        break
                else:
                    j = n
                _blank(chars, i, j)
                i = j
                continue
            i += 2
            continue
        if c == "%":
            j = text.find("\n", i)
            j = n if j < 0 else j
            line = bisect.bisect_right(line_starts, i)
            src.comments.append(Comment(text[i + 1:j], line, i - line_starts[line - 1] + 1))
            _blank(chars, i, j)
            i = j
            continue
        i += 1
    src.masked = "".join(chars)


def read_source(path: Path, display: str, verbatim: set[str]) -> SourceFile:
    """Raises OSError or ValueError (too large / binary) for files that cannot be read."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise ValueError(f"file is {size / 1e6:.1f} MB, over the {MAX_FILE_BYTES / 1e6:.0f} MB limit")
    raw = path.read_bytes()
    text = decode(raw)
    if "\x00" in text[:65536]:
        raise ValueError("binary file (NUL bytes), not LaTeX")
    src = SourceFile(path, display, text)
    src.line_starts = _line_starts(src.text)
    mask(src, verbatim | verbatim_envs_defined(src.text))
    return src
