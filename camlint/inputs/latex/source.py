"""One .tex file: decoded text, comment masking and the blocks LaTeX does not parse.

Masking replaces every character that is not text (comments, \\iffalse...\\fi, comment
environments) by a space and keeps newlines, so offsets in the masked text are offsets in the
file: every later position maps straight back to a line and column.
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

from camlint.rules.base import Hit, Rule
from camlint.rules.input import MALFORMED_LATEX, MIXED_ENCODING
from camlint.safety.safeio import read_regular

MAX_FILE_BYTES = 8 * 1024 * 1024

VERBATIM_ENVS = {"verbatim", "verbatim*", "Verbatim", "BVerbatim", "LVerbatim", "lstlisting",
                 "minted", "alltt", "camspec", "spverbatim"}
# Argument classes exclude the opening brace: a scan never runs past the next occurrence of
# the pattern, so a file of 10k unclosed `\begin{x` is read in linear time.
_VERB_DEF = re.compile(r"\\(?:DefineVerbatimEnvironment|lstnewenvironment|newminted)\s*\{([^{}]+)\}"
                       r"|\\newenvironment\s*\{([^{}]+)\}\s*\{\s*\\(?:verbatim|Verbatim|begin\{verbatim\})")
_BEGIN = re.compile(r"\\begin\s*\{([^{}]+)\}")
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
    problems: list[Hit] = field(default_factory=list)   # found while reading and masking

    def line_col(self, offset: int) -> tuple[int, int]:
        i = bisect.bisect_right(self.line_starts, offset) - 1
        return i + 1, offset - self.line_starts[i] + 1

    def line_text(self, line: int) -> str:
        if not 1 <= line <= len(self.line_starts):
            return ""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else len(self.text)
        return self.text[start:end]

    def problem(self, rule: Rule, message: str, offset: int) -> None:
        line, col = self.line_col(offset)
        self.problems.append(rule.hit(message, self.display, line, col))

    @functools.cached_property
    def raw_begins(self) -> list[int]:
        return [b.begin for b in self.raw_blocks]

    @property
    def n_lines(self) -> int:
        return len(self.line_starts)


def decode_lines(raw: bytes) -> tuple[str, list[int], bool]:
    """Text, the lines that are not UTF-8, and whether other lines are non-ASCII UTF-8 (a file
    mixing two encodings). UTF-8 (BOM allowed) or UTF-16 with a BOM; a file
    that is not UTF-8 throughout is decoded line by line, each invalid line as latin-1 (one bad
    byte does not change how the rest of the file reads). CRLF and CR become LF."""
    import codecs

    latin1_lines: list[int] = []
    mixed = False
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = raw.decode("utf-16", errors="replace")
    else:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raw = raw[3:] if raw.startswith(codecs.BOM_UTF8) else raw
            lines = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
            out = []
            for number, line in enumerate(lines, 1):
                try:
                    out.append(line.decode("utf-8"))
                    mixed = mixed or not line.isascii()
                except UnicodeDecodeError:
                    out.append(line.decode("latin-1"))
                    latin1_lines.append(number)
            text = "\n".join(out)
    return text.replace("\r\n", "\n").replace("\r", "\n"), latin1_lines, mixed and bool(latin1_lines)


def decode(raw: bytes) -> str:
    """decode_lines without the line list (bibliographies, specs)."""
    return decode_lines(raw)[0]


def verbatim_envs_defined(text: str) -> set[str]:
    return {(m.group(1) or m.group(2)).strip() for m in _VERB_DEF.finditer(text)}


def _line_starts(text: str) -> list[int]:
    return [0] + [m.end() for m in re.finditer("\n", text)]


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "


_SPECIAL = re.compile(r"[\\%]")


def mask(src: SourceFile, verbatim: set[str]) -> None:
    """Fill src.masked, src.comments and src.raw_blocks (one left-to-right scan; every step
    moves forward and no search runs past the current line or the block it closes)."""
    text = src.text
    chars = list(text)
    n = len(text)
    line_starts = src.line_starts
    i = 0
    while i < n:
        m = _SPECIAL.search(text, i)
        if m is None:
            break
        i = m.start()
        if text[i] == "%":
            line = bisect.bisect_right(line_starts, i)
            j = line_starts[line] - 1 if line < len(line_starts) else n
            src.comments.append(Comment(text[i + 1:j], line, i - line_starts[line - 1] + 1))
            _blank(chars, i, j)
            i = j
            continue
        i = _mask_command(src, chars, i, verbatim)
    src.masked = "".join(chars)


def _mask_command(src: SourceFile, chars: list[str], i: int, verbatim: set[str]) -> int:
    """Mask what the command at text[i] == '\\' hides; the offset where scanning resumes."""
    text, n = src.text, len(src.text)
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
                return j + (len(end_tag) if closed else 0)
    if text.startswith("\\verb", i) and i + 5 < n and not text[i + 5].isalpha():
        k = i + 5 + (1 if text[i + 5] == "*" else 0)
        if k < n:
            line = bisect.bisect_right(src.line_starts, k)
            line_end = src.line_starts[line] - 1 if line < len(src.line_starts) else n
            j = text.find(text[k], k + 1, line_end)
            if j >= 0:
                return j + 1
    m = _IFFALSE.match(text, i)
    if m:
        j, depth = n, 1
        for mm in _IF_ANY.finditer(text, m.end()):
            depth += -1 if mm.group(0) == "\\fi" else 1
            if depth == 0:
                j = mm.end()
                break
        else:
            src.problem(MALFORMED_LATEX, f"{m.group(0)} opened here is never closed by \\fi: the rest of "
                                         "the file is skipped as LaTeX would skip it", i)
        _blank(chars, i, j)
        return j
    return i + 2


def read_source(path: Path, display: str, verbatim: set[str]) -> SourceFile:
    """Raises OSError or ValueError (not a regular file / too large / binary) for files that
    cannot be read."""
    raw = read_regular(path, MAX_FILE_BYTES)
    text, latin1_lines, mixed = decode_lines(raw)
    if "\x00" in text[:65536]:
        raise ValueError("binary file (NUL bytes), not LaTeX")
    src = SourceFile(path, display, text)
    src.line_starts = _line_starts(src.text)
    if mixed:   # a file wholly in latin-1 is one encoding; a mix is a damaged file
        first = latin1_lines[0]
        src.problem(MIXED_ENCODING, f"{len(latin1_lines)} line(s) are not valid UTF-8 (first: line {first}) "
                                    "in a file that is otherwise UTF-8; they were read as latin-1",
                    src.line_starts[first - 1] if first <= len(src.line_starts) else 0)
    mask(src, verbatim | verbatim_envs_defined(src.text))
    return src

