"""PDF pages -> text lines in reading order, each with its page, position, size and font.

pdfium (pypdfium2) gives the text of a page with a line break wherever the text moves to a new
line; per line only a few characters are asked for their box, size and font, so a 12-page paper
costs a few thousand calls into pdfium, not one per character.
"""
from __future__ import annotations

import ctypes
import re
from collections import Counter
from dataclasses import astuple, dataclass

MAX_PAGES = 400
MAX_PDF_BYTES = 64 * 1024 * 1024
# pdfium marks a hyphen at a line end with U+FFFE and leaves out the line break after it
_LINE = re.compile(r"[^\r\n\ufffe\x02]*[\ufffe\x02]|[^\r\n\ufffe\x02]+")
_BOLD = re.compile(r"bold|bx|[-+,]bd|medi|semibold|demi|black|heavy|cmb\d", re.I)
_MONO = re.compile(r"cmtt|sftt|mono|courier|code|consol|inconsolata|typewriter|txtt|lmtt", re.I)


@dataclass(frozen=True)
class Heading:
    """A line that reads and looks like a heading."""
    level: int           # 1 section, 2 subsection, ...
    appendix: bool       # numbered as an appendix (A, B.1) or titled so
    title: str


@dataclass
class Line:
    page: int            # 1-based
    text: str
    x0: float
    x1: float
    y: float             # baseline, from the page bottom
    size: float
    font: int            # pdfium font handle: same handle, same font
    bold: bool
    mono: bool
    order: int = 0       # position in the page's content stream
    column: str = "span"  # left | right | span
    kind: str = "body"   # body | running | pagenum | footnote | caption | heading | code
    line_on_page: int = 0
    heading: Heading | None = None   # for heading lines


@dataclass
class Page:
    number: int
    width: float
    height: float
    lines: list


class PdfReadError(Exception):
    """The file is not a PDF pdfium can open (damaged, encrypted, not a PDF)."""


def read_pages(data: bytes) -> list[Page]:
    """The pages' lines, read by pdfium in a child process with a memory and a time limit (a few
    KB of nested form XObjects can expand to millions of characters inside pdfium)."""
    import pypdfium2.raw  # noqa: F401 - imported before the fork, never under another thread's import lock

    from camlint.safety.sandbox import Contained, contained

    try:
        pages = contained(_read_pages_here, data, memory=PDF_MEMORY + 32 * len(data),
                          seconds=PDF_SECONDS + len(data) / 100_000, errors=(PdfReadError,))
    except Contained as exc:
        raise PdfReadError(f"{exc}: refused (a PDF whose pages expand without bound?)") from None
    return [Page(n, w, h, [Line(*fields) for fields in lines]) for n, w, h, lines in pages]


PDF_MEMORY = 1 << 30     # bytes beyond the process's own size, plus 32 per byte of the file
PDF_SECONDS = 60         # plus a second per 100 KB of the file
MAX_PAGE_CHARS = 200_000  # a dense page has 5,000: more is drawn by repeated forms, not typeset
MAX_TEXT_CHARS = 4_000_000   # the whole document


def _read_pages_here(data: bytes) -> list:
    """read_pages' work, as JSON data: [number, width, height, [Line fields, ...]] per page."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as raw

    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise PdfReadError(str(exc)) from None
    try:
        pages, chars = [], 0
        for index in range(min(len(pdf), MAX_PAGES)):
            page = pdf[index]
            width, height = page.get_size()
            textpage = page.get_textpage()
            lines = order_lines(_lines_of(raw, textpage, index + 1, page.raw, width), width)
            pages.append([index + 1, width, height, [list(astuple(ln)) for ln in lines]])
            chars += sum(len(ln.text) for ln in lines)
            if chars > MAX_TEXT_CHARS:
                raise PdfReadError(f"more than {MAX_TEXT_CHARS:,} characters of text by page {index + 1} "
                                   "(a 400-page thesis has about 1.5 million): content drawn over and over?")
            textpage.close()
            page.close()
        return pages
    finally:
        pdf.close()


_SURROGATE = re.compile("[\ud800-\udfff]")


def _char(code: int) -> str:
    return " " if not code else chr(code) if code <= 0x10FFFF else "\ufffd"


def _lines_of(raw, textpage, page_no: int, page_raw=None, width: float = 0.0) -> list[Line]:
    n = min(textpage.count_chars(), MAX_PAGE_CHARS)
    if n <= 0:
        return []
    text = textpage.get_text_range(0, n)
    if len(text) != n:   # characters outside the BMP: fall back to one call per character
        text = "".join(_char(raw.FPDFText_GetUnicode(textpage.raw, i)) for i in range(n))
    # a font's ToUnicode map may name half a character (<D800>): no report could encode it
    text = _SURROGATE.sub("\ufffd", text)
    tp = textpage.raw
    if page_raw is not None:
        text = _drawn_underscores(raw, page_raw, tp, text)
    reader = _LineReader(raw, tp, text, page_no)
    out: list[Line] = []
    for m in _LINE.finditer(text):
        for s, e in _split_columns(reader, *_trimmed(text, m.start(), m.end()), width / 2):
            out.append(reader.line(s, e, len(out)))
    return out


def _trimmed(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    return s, e


COLUMN_GAP = 12.0   # points: a wider gap across the page middle separates two columns


def _split_columns(reader, s: int, e: int, mid: float) -> list[tuple[int, int]]:
    """pdfium joins a left-column and a right-column line on the same baseline when the PDF
    writes them one after the other; split them again at a wide gap across the middle."""
    if s >= e:
        return []
    if not mid or not (reader.left(s) < mid - 10 < mid + 10 < reader.right(e - 1)):
        return [(s, e)]
    if reader.char_at(mid, reader.middle_y(s)) >= 0:
        return [(s, e)]                # text runs through the page middle: one line
    text = reader.text
    lo, hi = s, e - 1                  # first character right of the gutter's left edge
    while lo < hi:
        m = (lo + hi) // 2
        if reader.left(m) < mid - 30:
            lo = m + 1
        else:
            hi = m
    for k in range(max(s + 1, lo - 3), min(e - 1, lo + 12)):
        if text[k] != " " or text[k - 1] == " " or text[k + 1] == " ":
            continue
        before, after = reader.right(k - 1), reader.left(k + 1)
        if after - before >= COLUMN_GAP and before < mid + 30 and after > mid - 30:
            return [_trimmed(text, s, k), *_split_columns(reader, *_trimmed(text, k + 1, e), mid)]
    return [(s, e)]


class _LineReader:
    """Asks pdfium about a few characters of each line: box, baseline, size, font."""

    def __init__(self, raw, tp, text: str, page_no: int):
        self.raw, self.tp, self.text, self.page_no = raw, tp, text, page_no
        self.names: dict[int, str] = {}
        self._box = [ctypes.c_double() for _ in range(4)]
        self._origin = (ctypes.c_double(), ctypes.c_double())
        self._buf = ctypes.create_string_buffer(128)

    def left(self, i: int) -> float:
        """The left edge of character i."""
        self.raw.FPDFText_GetCharBox(self.tp, i, *self._box)
        return self._box[0].value

    def right(self, i: int) -> float:
        """The right edge of character i."""
        self.raw.FPDFText_GetCharBox(self.tp, i, *self._box)
        return self._box[1].value

    def middle_y(self, i: int) -> float:
        """Half way up character i."""
        self.raw.FPDFText_GetCharBox(self.tp, i, *self._box)
        return (self._box[2].value + self._box[3].value) / 2

    def char_at(self, x: float, y: float) -> int:
        """Index of the character at (x, y), -1 where there is none (a gap)."""
        return self.raw.FPDFText_GetCharIndexAtPos(self.tp, x, y, 1.5, 1.5)

    def font(self, i: int) -> tuple[int, str]:
        raw = self.raw
        obj = raw.FPDFText_GetTextObject(self.tp, i)
        font = raw.FPDFTextObj_GetFont(obj) if obj else None
        handle = (ctypes.cast(font, ctypes.c_void_p).value or 0) if font else 0
        if handle not in self.names:
            got = raw.FPDFFont_GetBaseFontName(font, self._buf, 128) if font else 0
            self.names[handle] = self._buf.raw[:max(got - 1, 0)].decode("latin-1") if got else ""
        return handle, self.names[handle]

    def line(self, s: int, e: int, order: int) -> Line:
        text, raw = self.text, self.raw
        probe = (s + e) // 2
        while probe < e - 1 and text[probe].isspace():
            probe += 1
        x0, x1 = self.left(s), self.right(e - 1)
        raw.FPDFText_GetCharOrigin(self.tp, probe, *self._origin)
        size = raw.FPDFText_GetFontSize(self.tp, probe)
        handle, name = self.font(probe)
        mono = bool(_MONO.search(name)) and all(_MONO.search(self.font(i)[1]) for i in (s, e - 1))
        return Line(self.page_no, text[s:e], x0, x1, self._origin[1].value, round(size, 1), handle,
                    bool(_BOLD.search(name)), mono, order=order)


MAX_RULE_OBJECTS = 20_000   # page objects looked at for drawn underscores
MAX_RULES = 2_000           # more short rules than this: a drawing, not text


def _drawn_underscores(raw, page_raw, tp, text: str) -> str:
    """LaTeX draws `\\_` in roman fonts as a short rule, not a glyph: the text shows a space there.

    A space between two letters or digits with a short thin rule at its place on the line
    becomes `_` again, so `vit_base_patch16_224` keeps its underscores (pdftotext prints
    `vit base patch16 224`).
    """
    n = min(raw.FPDFPage_CountObjects(page_raw), MAX_RULE_OBJECTS)
    left, bottom, right, top = (ctypes.c_float() for _ in range(4))
    rules = []
    for i in range(n):
        obj = raw.FPDFPage_GetObject(page_raw, i)
        if raw.FPDFPageObj_GetType(obj) != raw.FPDF_PAGEOBJ_PATH:
            continue
        raw.FPDFPageObj_GetBounds(obj, left, bottom, right, top)
        if 1.0 <= right.value - left.value <= 8.0 and 0 < top.value - bottom.value <= 1.2:
            rules.append((left.value, right.value, bottom.value))
    if not rules or len(rules) > MAX_RULES:
        return text
    chars = list(text)
    box = [ctypes.c_double() for _ in range(4)]
    for k in range(1, len(text) - 1):
        if text[k] != " " or not (text[k - 1].isalnum() and text[k + 1].isalnum()):
            continue
        raw.FPDFText_GetCharBox(tp, k, *box)
        x, y = box[0].value, box[2].value
        if any(lo - 2.0 <= x <= hi and abs(y - base) <= 3.0 for lo, hi, base in rules):
            chars[k] = "_"
    return "".join(chars)


def order_lines(lines: list[Line], width: float) -> list[Line]:
    """Reading order: bands separated by full-width lines; in a band, left column then right."""
    mid = width / 2
    for ln in lines:
        if ln.x1 <= mid + 4 or (ln.mono and ln.x0 < mid * 0.5):   # overfull code stays in its column
            ln.column = "left"
        elif ln.x0 >= mid - 4:
            ln.column = "right"
        else:
            ln.column = "span"
    sides = Counter(ln.column for ln in lines)
    if sides["left"] < 5 or sides["right"] < 5:
        for ln in lines:
            ln.column = "span"
        return lines                       # one column: the content stream's order
    by_height = sorted(lines, key=lambda ln: (-ln.y, ln.order))
    out, band = [], []
    for ln in by_height:
        if ln.column == "span" and len(ln.text) > 3:
            out.extend(_band(band))
            band = []
            out.append(ln)
        else:
            band.append(ln)
    out.extend(_band(band))
    return out


def _band(lines: list[Line]) -> list[Line]:
    left = [ln for ln in lines if ln.column != "right"]
    right = [ln for ln in lines if ln.column == "right"]
    # inside a column keep the content stream's order (math and superscripts stay in place)
    return sorted(left, key=lambda ln: ln.order) + sorted(right, key=lambda ln: ln.order)


def body_style(pages: list[Page]) -> tuple[float, Counter]:
    """The body text's font size (the size most characters have) and its font handles."""
    sizes: Counter = Counter()
    fonts: Counter = Counter()
    for p in pages:
        for ln in p.lines:
            sizes[ln.size] += len(ln.text)
            fonts[ln.font] += len(ln.text)
    body = sizes.most_common(1)[0][0] if sizes else 10.0
    return body, fonts
