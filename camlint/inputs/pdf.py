"""The PDF front end: lines in reading order -> the LaTeX front end's document model.

Each PDF line becomes one line of a virtual source file, so every unit maps back to a line; the
report then says `main.pdf page N line L` (line L counted on page N, in reading order).
"""
from __future__ import annotations

import re
import unicodedata
from collections import Counter
from pathlib import Path

from camlint.checklist.analysis import Analysis
from camlint.inputs.model import ModelBuilder, Piece
from camlint.inputs.references import ReferenceList
from camlint.inputs.pdflayout import (MAX_PAGES, MAX_PDF_BYTES, Heading, Line, Page, PdfReadError, body_style,
                                      read_pages)
from camlint.inputs.textfile import read_limited
from camlint.core.keys import KEYS
from camlint.rules.input import UNREADABLE_INPUT

# TeX's OT1 fonts without a ToUnicode map give their ligatures as control codes 0x1B-0x1F
_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st",
              "\x1b": "ff", "\x1c": "fi", "\x1d": "fl", "\x1e": "ffi", "\x1f": "ffl", "\x10": '"',
              "\x11": '"', "\x15": "–", "\x16": "—", "\x19": "i", "\x1a": "j", "\x17": "",
              "\ufffe": "-", "\x02": "-", "\u00ad": "-", "−": "-", "∗": "*", "’": "'", "‘": "'",
              "“": '"', "”": '"', "\u00a0": " ", "\u2009": " ", "\u2002": " ", "\u2003": " ",
              "ˆ": "^", "˜": "~", "\x88": "•"}
_TRANSLATE = str.maketrans(_LIGATURES)
_ACCENT = re.compile(r"([´`¨ˆ˜ˇ˝˘¯˙])\s?([A-Za-zıȷ])")
_COMBINING = {"´": "\u0301", "`": "\u0300", "¨": "\u0308", "ˆ": "\u0302", "˜": "\u0303", "ˇ": "\u030c",
              "˝": "\u030b", "˘": "\u0306", "¯": "\u0304", "˙": "\u0307"}
_PAGENUM = re.compile(r"^(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,7})(?:\s*(?:/|of)\s*\d{1,4})?$", re.I)
_NUMBERED = re.compile(r"^(?:(?P<num>\d{1,2}(?:\.\d{1,2}){0,3})|(?P<app>[A-H](?:\.\d{1,2}){0,3}))\.?\s+"
                       r"(?P<title>[A-Z][^\n]{0,100})$")
_APPENDIX_TITLE = re.compile(r"^(?:appendix|appendices|supplementary material)(?:\s+([A-H])\b)?[\s.:—–-]*(.*)$", re.I)
_NAMED = {"abstract", "references", "bibliography", "acknowledgements", "acknowledgments", "acknowledgement",
          "acknowledgment", "introduction", "conclusion", "conclusions", "related work", "appendix",
          "appendices", "supplementary material", "limitations", "broader impact", "discussion"}
_CAPTION = re.compile(r"^(?P<env>figure|fig\.|table|tab\.|algorithm|listing)\s*(?:[A-Z]?\d{1,3}|[IVX]{1,5})"
                      r"(?:\.\d+)?\s*[:.|—–-]", re.I)
_INLINE_ABSTRACT = re.compile(r"^abstract\s*[.:—–-]\s*\S", re.I)
_FOOT_MARK = re.compile(r"^(?:\d{1,2}|[*∗†‡§¶])\s*\S")
_MARKER = re.compile(r"^(?:\d{1,2}|[*∗†‡§¶a-e])$")
_BULLET = re.compile(r"^[•◦▪‣∙·]\s*")
_END = re.compile(r"[.!?:]['\")\]]?$")
_COMPOUND_TAILS = {"based", "wise", "level", "specific", "trained", "aware", "free", "like", "scale",
                   "grained", "dependent", "independent", "agnostic", "driven", "guided", "art", "end",
                   "head", "token", "tokens", "patch", "class", "layer", "block", "map", "maps", "only",
                   "resolution", "step", "time", "type", "order", "style", "source", "domain", "label",
                   "attention", "activation", "weighted", "sized", "shot", "off", "up", "out", "in",
                   "max", "min", "major", "softmax", "norm", "processing", "hoc", "cam", "training"}
_SPEC_LINE = re.compile(r"^\s*(" + "|".join(KEYS) + r"|camspec)\s*:")
NO_TEXT_CHARS_PER_PAGE = 40   # fewer characters than this per page: a scan without a text layer


def normalize(text: str, mono: bool = False) -> str:
    """Ligatures, pdfium's hyphen marks, quotes, minus signs and spacing accents, mapped."""
    text = text.translate(_TRANSLATE)
    if not mono and _ACCENT.search(text):
        text = _ACCENT.sub(lambda m: unicodedata.normalize(
            "NFC", m.group(2).replace("ı", "i").replace("ȷ", "j") + _COMBINING[m.group(1)]), text)
    return text


def analyze_pdf(path: Path, display: str, spec: Path | None = None, data: bytes | None = None) -> Analysis:
    from camlint.core.errors import InputError
    from camlint.inputs.latex.analyze import analyze_units

    if data is None:
        data = read_limited(path, MAX_PDF_BYTES)
    try:
        pages = read_pages(data)
    except PdfReadError as exc:
        raise InputError(f"not a readable PDF ({exc})", display) from None
    lines = [ln for p in pages for ln in p.lines]
    b, page_first = _layout(pages, display, path)
    project, doc = b.finish(path.resolve().parent if path is not None else Path.cwd())
    a = analyze_units(project, doc, b.bibliography, display, spec, kind="pdf")
    a.page_lines = page_first
    chars = sum(len(ln.text) for ln in lines)
    if chars < NO_TEXT_CHARS_PER_PAGE * max(len(pages), 1):
        a.problems.append(UNREADABLE_INPUT.hit(
            f"the PDF has no text layer ({chars} characters on {len(pages)} pages): probably "
            "a scan; nothing in it could be checked", display, 1, 1,
            hint="Run camlint on the LaTeX sources, or on a PDF exported with its text (not scanned)."))
    if len(pages) >= MAX_PAGES:
        a.problems.append(UNREADABLE_INPUT.hit(f"only the first {MAX_PAGES} pages were read", display, 1, 1))
    return a


def page_line(page_first: list[int], line: int) -> tuple[int, int]:
    """Virtual line -> (page, line on that page)."""
    import bisect

    i = bisect.bisect_right(page_first, line) - 1
    return (i + 1, line - page_first[i] + 1) if i >= 0 else (1, line)


def _layout(pages: list[Page], display: str, path: Path | None):
    body_size, fonts = body_style(pages)
    body_fonts = {f for f, _ in fonts.most_common(2)}
    for p in pages:
        for ln in p.lines:
            ln.text = normalize(ln.text, ln.mono)
    _classify(pages, body_size, body_fonts)
    _inline_code(pages)
    _indent_code(pages)
    texts, page_first = [], []
    for p in pages:
        page_first.append(len(texts) + 1)
        for ln in p.lines:
            texts.append(ln.text)
            ln.line_on_page = len(texts)           # virtual line number (1-based)
    b = ModelBuilder(path, display, texts)
    _Reader(b, body_size, _Words(texts)).read([ln for p in pages for ln in p.lines])
    return b, page_first


def _classify(pages: list[Page], body_size: float, body_fonts: set[int]) -> None:
    """Running heads, page numbers, captions, headings, footnotes and code, told apart."""
    repeated = Counter(re.sub(r"\d+", "#", ln.text.strip().lower()) for p in pages for ln in p.lines
                       if ln.y > p.height * 0.9 or ln.y < p.height * 0.08)
    for p in pages:
        for ln in p.lines:
            rel = ln.y / p.height if p.height else 0.5
            text = ln.text.strip()
            key = re.sub(r"\d+", "#", text.lower())
            if (rel < 0.1 or rel > 0.9) and _PAGENUM.match(text):
                ln.kind = "pagenum"
            elif len(text) <= 3 and ln.size < body_size * 0.8 and _MARKER.match(text):
                ln.kind = "marker"         # a raised footnote mark: its own line for pdfium
            elif (rel > 0.92 or rel < 0.06) and (repeated[key] >= 2 or ln.size < body_size * 0.95) \
                    and len(pages) > 1:
                ln.kind = "running"
            elif ln.mono:
                ln.kind = "code"
            elif _CAPTION.match(text):
                ln.kind = "caption"
            else:
                ln.heading = _heading_level(ln, body_size, body_fonts)
                ln.kind = "heading" if ln.heading else "body"
        _footnotes(p, body_size)


def _inline_code(pages: list[Page]) -> None:
    """A single typewriter line between lines of a paragraph is inline code (\\texttt), not a block."""
    lines = [ln for p in pages for ln in p.lines if ln.kind not in ("pagenum", "running", "marker")]
    for i, ln in enumerate(lines):
        if ln.kind != "code":
            continue
        before = lines[i - 1] if i else None
        after = lines[i + 1] if i + 1 < len(lines) else None
        if before is not None and after is not None and before.kind == "body" and after.kind == "body" \
                and not _END.search(before.text.rstrip()):
            ln.kind = "body"


def _indent_code(pages: list[Page]) -> None:
    """A code block's indentation is only a position in a PDF: give it back as spaces (YAML needs it)."""
    block: list[Line] = []
    for ln in [ln for p in pages for ln in p.lines] + [None]:
        if ln is not None and ln.kind == "code" and (not block or _continues(block[-1], ln, same_size=False)):
            block.append(ln)
            continue
        if len(block) > 1:
            left = min(b.x0 for b in block)
            widths = sorted((b.x1 - b.x0) / len(b.text) for b in block if len(b.text) > 3)
            width = widths[len(widths) // 2] if widths else 0
            for b in block:
                if width > 0:
                    b.text = " " * round((b.x0 - left) / width) + b.text
        block = [ln] if ln is not None and ln.kind == "code" else []


def _heading_level(ln: Line, body_size: float, body_fonts: set[int]) -> Heading | None:
    """The heading, when the line reads and looks like one."""
    text = ln.text.strip()
    if len(text) > 110 or len(text) < 3:
        return None
    distinct = ln.bold or ln.font not in body_fonts or ln.size > body_size * 1.08
    m = _NUMBERED.match(text)
    if m and distinct and not text.endswith(",") and len(m.group("title").split()) <= 14:
        num = m.group("num") or m.group("app")
        return Heading(num.count(".") + 1, m.group("app") is not None, m.group("title").strip())
    low = text.lower().strip(" .:")
    m = _APPENDIX_TITLE.match(text)
    if m and (distinct or low in _NAMED) and len(text.split()) <= 10:
        return Heading(1, True, text.strip())
    if low in _NAMED and (distinct or low in ("abstract", "references", "bibliography")):
        return Heading(1, False, text.strip(" .:"))
    return None


def _footnotes(p: Page, body_size: float) -> None:
    """Small lines starting with a marker, below every body line of their column."""
    for column in ("left", "right", "span"):
        col = [ln for ln in p.lines if ln.column == column]
        body_y = [ln.y for ln in col if ln.kind == "body" and abs(ln.size - body_size) < 0.6]
        if not body_y:
            continue
        floor, started = min(body_y), False
        for ln in col:
            if ln.kind != "body" or ln.y >= floor or ln.size >= body_size * 0.92 or ln.y > p.height * 0.4:
                continue
            started = started or bool(_FOOT_MARK.match(ln.text.strip()))
            if started:
                ln.kind = "footnote"


def _continues(p: Line | None, ln: Line, same_size: bool) -> bool:
    """ln is the next line of the block p ends (same column, one line further down)."""
    if p is None or p.page != ln.page or p.column != ln.column:
        return False
    close = 0 < p.y - ln.y < max(p.size, ln.size) * 1.8
    return close and (not same_size or abs(p.size - ln.size) < 0.6)


class _Words:
    """The paper's own words, to decide whether a line-end hyphen is part of the word."""

    def __init__(self, texts: list[str]):
        self.hyphenated, self.words = set(), set()
        broken = False          # the previous line ended in a hyphen: this one starts with a fragment
        for t in texts:
            words = re.findall(r"[A-Za-z]+-[A-Za-z]+|[A-Za-z]+", t)
            ends = t.endswith("-")
            for i, w in enumerate(words):
                if (i == 0 and broken) or (i == len(words) - 1 and ends):
                    continue
                if "-" in w:
                    self.hyphenated.add(tuple(w.lower().split("-")))
                elif len(w) > 1:
                    self.words.add(w.lower())
            broken = ends

    def keeps_hyphen(self, left: str, right: str) -> bool:
        left, right = left.lower(), right.lower()
        if (left, right) in self.hyphenated or right in _COMPOUND_TAILS:
            return True
        if left + right in self.words:
            return False
        # both halves are words of their own (skin-lesion, deletion-based): a compound
        return len(left) > 2 and left in self.words and right in self.words


class _Open:
    """A unit being read: its pieces, what joins them, its last line."""

    def __init__(self, kind: str = "text", float_env: str = ""):
        self.kind, self.float_env = kind, float_env
        self.pieces: list[Piece] = []
        self.joins: list[str] = []
        self.prev: Line | None = None


class _Reader:
    """Walks the classified lines in reading order and declares units on the builder.

    Captions and footnotes are read beside the running paragraph (`aside`), so a paragraph that
    goes on past a figure or a footnote at a column's foot stays one unit, as in LaTeX.
    """

    def __init__(self, b: ModelBuilder, body_size: float, words: _Words):
        self.b, self.body, self.words = b, body_size, words
        self.main, self.aside = _Open(), None
        self.in_refs = False
        self.refs = ReferenceList()
        self.code: list[Line] = []
        self.seen_heading = False

    def read(self, lines: list[Line]) -> None:
        for ln in lines:
            if ln.kind in ("pagenum", "running", "marker"):
                continue
            if ln.kind != "code" and self.code:
                self._flush_code()
            if ln.kind == "heading":
                self._heading(ln)
            elif ln.kind == "code":
                self.flush()
                if self.code and not _continues(self.code[-1], ln, same_size=False):
                    self._flush_code()     # another block (next page, or after a gap)
                self.code.append(ln)
            elif self.in_refs:
                self._reference(ln)
            elif ln.kind == "caption":
                self._close_aside()
                self.aside = _Open("caption", "table" if ln.text.strip().lower().startswith("tab") else "figure")
                self._add(self.aside, ln)
            elif ln.kind == "footnote":
                if self.aside is None or self.aside.kind != "footnote" or _FOOT_MARK.match(ln.text.strip()):
                    self._close_aside()
                    self.aside = _Open("footnote")
                self._add(self.aside, ln)
            else:
                self._body(ln)
        self._flush_code()
        self.flush()
        self._flush_ref()

    def _heading(self, ln: Line) -> None:
        self.flush()
        self._flush_ref()
        heading = ln.heading
        low = heading.title.lower()
        if low == "abstract":
            self.b.abstract(ln.line_on_page)
        else:
            self.b.heading(ln.line_on_page, heading.title, heading.level, heading.appendix)
        self.in_refs = self.b.section.role == "references" and low != "abstract"
        self.seen_heading = True

    def _body(self, ln: Line) -> None:
        text = ln.text.strip()
        if self.aside is not None:
            if _continues(self.aside.prev, ln, same_size=True):
                self._add(self.aside, ln)
                return
            self._close_aside()
        if _INLINE_ABSTRACT.match(text) and not self.seen_heading:
            self.flush()
            self.b.abstract(ln.line_on_page)
            self.seen_heading = True
        main = self.main
        if main.kind == "title" and main.prev is not None and abs(ln.size - main.prev.size) > 0.3:
            self.flush()
        elif main.pieces and self._paragraph_break(main.prev, ln):
            self.flush()
        if not self.seen_heading and ln.page == 1 and abs(ln.size - self.body) >= 0.6:
            if ln.size <= self.body * 1.2:
                return                     # authors and affiliations (\\author is not read either)
            if not self.main.pieces:
                self.main.kind = "title"
        if _BULLET.match(text):
            self.flush()
            self.main.kind = "item"
        self._add(self.main, ln)

    def _paragraph_break(self, p: Line | None, ln: Line) -> bool:
        if p is None:
            return False
        ended = bool(_END.search(p.text.rstrip()))
        if p.page == ln.page and p.column == ln.column:
            gap = p.y - ln.y
            if gap > max(p.size, ln.size) * 2.2 or gap < -2:
                return ended or gap > max(p.size, ln.size) * 4
            return ended and ln.x0 > p.x0 + self.body * 0.8
        return False

    def _add(self, unit: _Open, ln: Line) -> None:
        text = ln.text
        lead = len(text) - len(text.lstrip())
        text = text.strip()
        join = " "
        if unit.pieces:
            prev = unit.pieces[-1]
            m = re.search(r"([A-Za-z]+)-$", prev.text)
            first = re.match(r"[a-z]+", text)
            if m and first:
                if not self.words.keeps_hyphen(m.group(1), first.group(0)):
                    prev.text = prev.text[:-1]
                join = ""
        unit.pieces.append(Piece(ln.line_on_page, lead, text))
        unit.joins.append(join if len(unit.pieces) > 1 else "")
        unit.prev = ln

    def _emit(self, unit: _Open) -> None:
        if unit.pieces:
            self.b.unit(unit.kind, unit.pieces, unit.float_env, unit.joins)

    def _close_aside(self) -> None:
        if self.aside is not None:
            self._emit(self.aside)
            self.aside = None

    def flush(self) -> None:
        self._close_aside()
        self._emit(self.main)
        self.main = _Open()

    def _flush_code(self) -> None:
        if not self.code:
            return
        first, last = self.code[0].line_on_page, self.code[-1].line_on_page
        spec = sum(bool(_SPEC_LINE.match(ln.text)) for ln in self.code) >= 3
        self.b.code(first, last, "camspec" if spec else "")
        self.code = []

    def _reference(self, ln: Line) -> None:
        self.refs.add(ln.text, ln.x0, (ln.page, ln.column))

    def _flush_ref(self) -> None:
        self.refs.close()
        self.b.bibliography.update(self.refs.entries)
