"""Turn a project into text units (paragraphs, captions, footnotes, table rows, code blocks)
whose every character maps back to a file, line and column.

Only paragraphs that may matter are parsed (the `relevant` predicate, a cheap regex over the
raw chunk): a full pylatexenc parse of a 1 MB project takes seconds, most of it on text that
says nothing about CAM.
"""
from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from typing import Callable

from pylatexenc import latexwalker as lw

from camlint.latex import mathtext as M
from camlint.latex.project import Project
from camlint.latex.source import RawBlock, SourceFile
from camlint.findings import MAX_PER_RULE_AND_FILE
from camlint.problems import Problem

# the optional argument excludes '[': a scan stops at the next `\section[` (linear time)
_HEADING = re.compile(r"\\(part|chapter|section|subsection|subsubsection|paragraph|subparagraph)"
                      r"\*?\s*(?:\[[^\]\[]*\])?\s*\{")
_BRACE_TOKENS = re.compile(r"\\.|[{}]", re.S)
MAX_TITLE_CHARS = 1000
_APPENDIX = re.compile(r"\\appendix\b|\\begin\s*\{appendices\}")
_ABSTRACT = re.compile(r"\\begin\s*\{abstract\}|\\end\s*\{abstract\}")
_BLANK_LINES = re.compile(r"\n[ \t]*\n\s*")
_NEWCOMMAND = re.compile(r"\\(?:(?:re)?newcommand|providecommand|DeclareRobustCommand)\*?\s*\{?\s*\\([A-Za-z@]+)\s*\}?"
                         r"\s*(?:\[\s*(\d)\s*\])?\s*(?:\[[^\]]*\]\s*)?\{"
                         r"|\\def\s*\\([A-Za-z@]+)\s*((?:#\d)*)\s*\{")
ARITY_MARK = "#"   # macros with arguments are stored as "name#n" -> body with #1..#n
MAX_MACRO_CHARS = 500
_BEGIN_END = re.compile(r"\\begin\s*\{([^{}]*)\}|\\end\s*\{([^{}]*)\}")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z(\[\\$\"`0-9])")
_ABBREV = re.compile(r"(?:\b(?:e\.g|i\.e|et al|etc|cf|vs|Fig|Figs|Eq|Eqs|Sec|Secs|Tab|Ref|Refs|"
                     r"App|Alg|No|approx|resp|w\.r\.t|viz|Dr|Prof|Mr|Ms|Jr|Inc|Ltd|Co)\.)$", re.I)

ROLE_WORDS = (
    ("abstract", ("abstract",)),
    ("related", ("related", "background", "prior work", "previous work", "literature", "preliminar")),
    ("introduction", ("introduction",)),
    ("conclusion", ("conclusion", "summary", "future work", "outlook", "concluding")),
    ("acknowledgements", ("acknowledg", "funding")),
    ("references", ("reference", "bibliography")),
    ("experiments", ("experiment", "setup", "evaluation", "result", "ablation", "analysis",
                     "benchmark", "discussion", "limitation", "study", "data", "implementation detail")),
    ("method", ("method", "approach", "model", "architecture", "saliency", "explain", "grad-cam",
                "cam", "activation", "heatmap", "interpret", "visuali", "implementation", "system",
                "classifier", "backbone", "specification", "framework", "proposed", "pipeline")),
)


def role_of(title: str, appendix: bool) -> str:
    t = title.lower()
    for role, words in ROLE_WORDS:
        if any(w in t for w in words):
            return "appendix" if appendix and role not in ("references", "acknowledgements") else role
    return "appendix" if appendix else "other"


@dataclass
class Section:
    """The innermost section/subsection/subsubsection in effect (\\paragraph is part of it)."""
    index: int
    title: str
    top_title: str
    role: str
    file: str
    line: int


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
    cites: list[tuple[int, tuple[str, ...]]] = field(default_factory=list)
    raw: RawBlock | None = None   # for code units

    def src_offset(self, pos: int) -> int:
        i = bisect.bisect_right(self.out, pos) - 1
        if i < 0:
            return self.src[0] if self.src else 0
        return self.src[i] + (pos - self.out[i] if self.exact[i] else 0)

    def line_col(self, pos: int) -> tuple[int, int]:
        return self.file.line_col(self.src_offset(pos))


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
        from camlint.extract.vocab import low

        return low(self.text)

    def cites(self) -> tuple[str, ...]:
        return tuple(k for p, keys in self.unit.cites if self.start <= p <= self.end for k in keys)


@dataclass
class DocumentText:
    units: list[Unit] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    macros: dict[str, str] = field(default_factory=dict)
    raw_flags: dict[str, set[int]] = field(default_factory=dict)   # name -> sections whose raw text matched
    raw_sizes: list = field(default_factory=list)   # (priority, input side, section, offset)

    def sentences(self):
        for u in self.units:
            yield from split_sentences(u)


MAX_SENTENCE = 1500   # longer "sentences" (no punctuation) are read in windows


def split_sentences(unit: Unit) -> list[Sentence]:
    if unit.kind in ("row", "heading", "title", "code"):
        return [Sentence(unit, 0, len(unit.text), unit.text)] if unit.text.strip() else []
    out, start = [], 0
    for m in _SENTENCE_END.finditer(unit.text):
        if _ABBREV.search(unit.text[max(0, m.start() - 8): m.start()]):
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


class _Builder:
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


class _Converter:
    """pylatexenc nodes -> units (one builder per unit in progress)."""

    def __init__(self, file: SourceFile, section: Section, base: int, macros: dict[str, str]):
        self.file, self.section, self.base, self.macros = file, section, base, macros
        self.units: list[Unit] = []
        self.arity = {k.split(ARITY_MARK)[0]: int(k.split(ARITY_MARK)[1]) for k in macros if ARITY_MARK in k}
        self.float_env = ""
        self.in_table = False
        self.stack: list[_Builder] = []

    # -- unit management
    def begin(self, kind: str) -> None:
        self.stack.append(_Builder(Unit(kind, self.file, self.section, self.float_env)))

    def end(self) -> None:
        unit = self.stack.pop().finish()
        if unit.text.strip():
            self.units.append(unit)

    def break_unit(self, kind: str | None = None) -> None:
        kind = kind or self.stack[-1].unit.kind
        self.end()
        self.begin(kind)

    @property
    def b(self) -> _Builder:
        return self.stack[-1]

    # -- nodes
    def nodes(self, nodes, math: bool = False) -> None:
        nodes = [n for n in nodes or () if n is not None]
        i = 0
        while i < len(nodes):
            n = nodes[i]
            arity = self.arity.get(n.macroname) if n.isNodeType(lw.LatexMacroNode) else None
            if arity:
                args, j = self._following_groups(nodes, i + 1, arity)
                if len(args) == arity:
                    self._expand(n, args, arity, math)
                    i = j
                    continue
            self.node(n, math)
            i += 1

    @staticmethod
    def _following_groups(nodes, j: int, arity: int):
        """The brace groups after a user macro with arguments (pylatexenc sees them as siblings)."""
        args = []
        while len(args) < arity and j < len(nodes):
            nj = nodes[j]
            if nj.isNodeType(lw.LatexCharsNode) and not nj.chars.strip():
                j += 1
            elif nj.isNodeType(lw.LatexGroupNode):
                args.append(nj)
                j += 1
            else:
                break
        return args, j

    def _expand(self, n, args, arity: int, math: bool) -> None:
        texts = []
        for a in args:
            self.begin("text")
            self.nodes(a.nodelist, math)
            texts.append(self.stack.pop().finish().text)
        body = self.macros[f"{n.macroname}{ARITY_MARK}{arity}"]
        text = re.sub(r"#([1-9])", lambda m: texts[int(m.group(1)) - 1] if int(m.group(1)) <= arity else "", body)
        # nested uses of a macro that repeats its argument would grow exponentially: cap each expansion
        self.b.add(text[:MAX_MACRO_CHARS], self.base + n.pos)

    def node(self, n, math: bool) -> None:
        pos = self.base + n.pos
        if n.isNodeType(lw.LatexCharsNode):
            text = n.chars.replace("\n", " ")
            if self.in_table and "&" in text:
                text = text.replace("&", "|")
            self.b.add(text, pos, exact=True)
        elif n.isNodeType(lw.LatexGroupNode):
            self.nodes(n.nodelist, math)
        elif n.isNodeType(lw.LatexMathNode):
            self.b.add(" ", pos)
            self.nodes(n.nodelist, True)
            self.b.add(" ", pos + max(n.len - 1, 0))
        elif n.isNodeType(lw.LatexSpecialsNode):
            s = n.specials_chars
            if s == "&":
                self.b.add(" | ", pos)
            else:
                self.b.add({"~": " ", "--": "–", "---": "—", "``": '"', "''": '"', "`": "'",
                            "!`": "¡", "?`": "¿"}.get(s, s), pos)
        elif n.isNodeType(lw.LatexMacroNode):
            self.macro(n, pos, math)
        elif n.isNodeType(lw.LatexEnvironmentNode):
            self.environment(n, pos, math)
        # comments are already masked

    def _args(self, n):
        argd = getattr(n, "nodeargd", None)
        return [a for a in (argd.argnlist if argd is not None and argd.argnlist else []) if a is not None]

    def macro(self, n, pos: int, math: bool) -> None:
        name = n.macroname
        args = self._args(n)
        if name in M.ROW_BREAKS:
            if self.in_table:
                self.break_unit("row")
            else:
                self.b.add(" ", pos)
        elif name in M.ITEMS:
            self.break_unit("item" if name != "bibitem" else self.b.unit.kind)
        elif name in M.HEADINGS:
            return  # headings are read by the structure scan
        elif name in M.SEPARATE_UNITS:
            kind = M.SEPARATE_UNITS[name]
            self.begin(kind)
            self.nodes(args[-1:], False)
            self.end()
        elif name in M.CITES:
            keys = tuple(k.strip() for a in args[-1:] for k in a.latex_verbatim().strip("{}").split(",") if k.strip())
            self.b.add(" [cite] ", pos)
            self.b.unit.cites.append((self.b.length - 2, keys))
        elif name in M.REFS:
            self.b.add("[ref]", pos)
        elif name in M.FRACTIONS and len(args) >= 2:
            self.b.add("(", pos)
            self.nodes([args[-2]], math)
            self.b.add(")/(", pos)
            self.nodes([args[-1]], math)
            self.b.add(")", pos)
        elif name == "sqrt":
            self.b.add("√(", pos)
            self.nodes(args[-1:], math)
            self.b.add(")", pos)
        elif name in M.SYMBOLS:
            sym = M.SYMBOLS[name]
            self.b.add(sym if math or len(sym) <= 1 else f" {sym} ", pos)
        elif name in M.SPACES:
            self.b.add(" ", pos)
        elif name in self.macros:
            # "\\tok token": the space after a macro name is eaten by TeX, \\xspace puts it back
            self.b.add(self.macros[name] + (" " if getattr(n, "macro_post_space", "") else ""), pos)
        elif name in M.TEXT_WRAPPERS:
            if name == "verb" and not args:   # pylatexenc keeps \verb content in verbatim_delimiters
                self.b.add(getattr(n, "verbatim_content", "") or "", pos)
            if name in ("href", "textcolor", "colorbox"):
                args = args[-1:]
            self.nodes(args[-1:] if name not in ("frac",) else args, math)
        elif name in M.SILENT:
            return
        else:
            self.nodes(args[-1:], math)   # unknown macro: keep its last argument's text

    def environment(self, n, pos: int, math: bool) -> None:
        env = n.environmentname
        if env in M.SKIP_ENVS:
            return
        if env in M.MATH_ENVS:
            self.b.add(" ", pos)
            self.nodes(n.nodelist, True)
            self.b.add(" ", pos)
            return
        if env in M.TABULAR_ENVS:
            outer = self.in_table
            self.in_table = True
            self.begin("row")
            self.nodes(n.nodelist, False)
            self.end()
            self.in_table = outer
            return
        if env in M.FLOAT_ENVS:
            outer = self.float_env
            self.float_env = env.rstrip("*")
            self.begin("text")
            self.nodes(n.nodelist, False)
            self.end()
            self.float_env = outer
            return
        if env in ("itemize", "enumerate", "description", "algorithmic", "compactitem", "enumerate*"):
            self.begin("item")
            self.nodes(n.nodelist, False)
            self.end()
            return
        self.nodes(n.nodelist, math)


# Argument specs pylatexenc 2.x does not know; without them a macro's braces become loose text.
_EXTRA_MACROS = {
    "caption": "*[{", "subcaption": "*[{", "footnotetext": "[{", "thanks": "{", "paragraph": "*[{",
    "subparagraph": "*[{", "bibliographystyle": "{", "addbibresource": "[{", "href": "{{",
    "SI": "[{{", "num": "[{", "si": "[{", "qty": "[{{", "unit": "[{", "ang": "[{",
    "multicolumn": "{{{", "multirow": "[{[{", "operatorname": "*{", "textsuperscript": "{",
    "textsubscript": "{", "citealp": "*[[{", "citealt": "*[[{", "citeauthor": "*[[{",
    "citeyear": "*[[{", "parencite": "*[[{", "textcite": "*[[{", "autocite": "*[[{",
    "footcite": "[[{", "Cref": "*{", "nameref": "{", "vref": "{", "Vref": "{",
    "setlength": "{{", "setcounter": "{{", "addtocounter": "{{", "newtheorem": "{[{[",
    "captionsetup": "[{", "graphicspath": "{", "hypersetup": "{", "lstinline": "[{", "mintinline": "{{",
    "code": "{", "hl": "{", "ul": "{", "enquote": "*{", "todo": "[{", "marginpar": "[{",
    "resizebox": "*{{{", "scalebox": "{[{", "makebox": "[[{", "parbox": "[[[{{", "raisebox": "{[[{",
    "colorbox": "[{{", "fbox": "{", "mbox": "{", "hbox": "{", "nicefrac": "[{{", "sfrac": "{{",
    "tfrac": "{{", "dfrac": "{{", "cfrac": "[{{", "boldsymbol": "{", "bm": "{", "mathscr": "{",
    "mathfrak": "{", "underbrace": "{", "overbrace": "{", "smash": "[{", "cmidrule": "[{",
    "rowcolor": "[{", "cellcolor": "[{", "color": "[{", "includegraphics": "*[[{", "ce": "{",
    "bibitem": "[{", "newblock": "", "STATE": "", "State": "", "Require": "", "Ensure": "",
    "ensuremath": "{", "textnormal": "{", "MakeUppercase": "{", "uppercase": "{", "texorpdfstring": "{{",
    "xspace": "", "intertext": "{", "lstset": "{", "sisetup": "{", "pagestyle": "{",
    "thispagestyle": "{", "numberwithin": "{{", "theoremstyle": "{", "stepcounter": "{",
    "refstepcounter": "{", "phantom": "{", "fontsize": "{{", "labelcref": "{", "autopageref": "{",
}


@functools.lru_cache(maxsize=1)
def _latex_context():
    from pylatexenc import macrospec

    db = lw.get_default_latex_context_db()
    db.add_context_category("camlint", prepend=True, macros=[
        macrospec.MacroSpec(name, spec) for name, spec in _EXTRA_MACROS.items()])
    db.test_for_specials = _specials_by_first_char(db)
    return db


def _specials_by_first_char(db):
    """db.test_for_specials with the same answer (the longest match; of equal lengths, the first in
    category order) that tries only the specials starting with the character at `pos`: pylatexenc
    tries them all, category by category, at every character, a quarter of a cold parse."""
    table: dict[str, list] = {}
    for cat in db.category_list:
        for chars, spec in db.d[cat]["specials"].items():
            if chars:
                table.setdefault(chars[0], []).append((chars, spec))

    def test_for_specials(s, pos, parsing_state=None):
        best, best_len = None, 0
        for chars, spec in table.get(s[pos:pos + 1], ()):
            if len(chars) > best_len and s.startswith(chars, pos):
                best, best_len = spec, len(chars)
        return best
    return test_for_specials


def _walk(chunk: str):
    walker = lw.LatexWalker(chunk, tolerant_parsing=True, latex_context=_latex_context())
    nodes, _, _ = walker.get_latex_nodes()
    return nodes


def _convert_chunk(chunk: str, file: SourceFile, section: Section, base: int,
                   macros: dict[str, str]) -> list[Unit]:
    conv = _Converter(file, section, base, macros)
    conv.begin("text")
    try:
        conv.nodes(_walk(chunk))
    except (lw.LatexWalkerError, RecursionError, IndexError, ValueError, AttributeError):
        # tolerant parsing still gave up: keep the chunk as plain text rather than lose it
        conv.stack = []
        conv.begin("text")
        conv.b.add(chunk.replace("\n", " "), base, exact=True)
    while conv.stack:
        conv.end()
    return conv.units


def expand_macro_body(body: str, macros: dict[str, str]) -> str:
    file = SourceFile(path=None, display="", text=body, masked=body, line_starts=[0])
    section = Section(0, "", "", "other", "", 1)
    units = _convert_chunk(body, file, section, 0, macros)
    return " ".join(u.text for u in units).strip()


def unescaped(text: str, start: int = 0, stop: int | None = None):
    """(index, character) of every character not escaped by a backslash (\\{ is no brace)."""
    i, n = start, len(text) if stop is None else stop
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        yield i, c
        i += 1


def group_ends(text: str, starts) -> dict[int, int]:
    """For each offset in `starts` (just after an opening '{'), the offset just after its
    closing '}' (len(text) when unclosed). One pass over the text, whatever the number of
    groups: asking per group would read the rest of the file once per unclosed group."""
    want = set(starts)
    ends = dict.fromkeys(want, len(text))
    stack: list[int] = []
    for m in _BRACE_TOKENS.finditer(text):
        c = m.group()
        if c == "{":
            stack.append(m.end())
        elif c == "}" and stack:
            opened = stack.pop()
            if opened in want:
                ends[opened] = m.end()
    return ends


def collect_macros(project: Project) -> dict[str, str]:
    """\\newcommand / \\renewcommand / \\DeclareRobustCommand / \\def macros, expanded to text.

    A macro with arguments is stored under "name#n"; its body keeps #1..#n for the arguments.
    """
    bodies: dict[str, str] = {}
    for f in project.files:
        found = list(_NEWCOMMAND.finditer(f.masked))
        ends = group_ends(f.masked, [m.end() for m in found])   # one linear pass for all bodies
        for m in found:
            end = ends[m.end()]
            if end - 1 - m.end() > MAX_MACRO_CHARS:   # longer bodies are skipped (never sliced)
                continue
            name = m.group(1) or m.group(3)
            nargs = int(m.group(2) or 0) if m.group(1) else len(m.group(4) or "") // 2
            bodies[f"{name}{ARITY_MARK}{nargs}" if nargs else name] = f.masked[m.end(): end - 1]
    macros: dict[str, str] = {}
    for name, body in bodies.items():
        if len(body) > MAX_MACRO_CHARS or ("#" in body and ARITY_MARK not in name):
            continue
        # expanding earlier macros inside a body can grow exponentially (\\def\\b{\\a\\a}...)
        macros[name] = expand_macro_body(body, macros)[:MAX_MACRO_CHARS]
    return macros


def _heading_title(text: str, m: re.Match, ends: dict[int, int]) -> tuple[str, int]:
    end = ends.get(m.end()) or group_ends(text, [m.end()])[m.end()]
    return " ".join(text[m.end(): min(end - 1, m.end() + MAX_TITLE_CHARS)].split()), end


def _without_raw_blocks(f: SourceFile) -> str:
    """The masked text with code blocks blanked (they are not LaTeX), built in one pass."""
    parts, pos = [], 0
    for b in f.raw_blocks:
        parts += [f.masked[pos:b.start], " " * (b.end - b.start)]
        pos = b.end
    parts.append(f.masked[pos:])
    return "".join(parts)


class _Capped:
    """Problems of one kind in one file: the first few listed, the rest counted in one more
    (300 KB of `}` must not make 300k findings)."""

    def __init__(self, f: SourceFile, out: list[Problem], what: str):
        self.f, self.out, self.what = f, out, what
        self.listed = self.more = self.first_more = 0

    def add(self, message: str, offset: int) -> None:
        if self.listed >= MAX_PER_RULE_AND_FILE - 1:
            self.more += 1
            self.first_more = self.first_more or offset
            return
        self.listed += 1
        line, col = self.f.line_col(offset)
        self.out.append(Problem("CAM004", message, self.f.display, line, col))

    def close(self) -> None:
        if self.more:
            line, col = self.f.line_col(self.first_more)
            self.out.append(Problem("CAM004", f"{self.more} more {self.what} problem(s) in this file from "
                                    "here, not listed one by one", self.f.display, line, col))


def structural_problems(f: SourceFile) -> list[Problem]:
    """Unbalanced braces and begin/end mismatches (the text is still read)."""
    problems: list[Problem] = []
    text = _without_raw_blocks(f)
    envs = _Capped(f, problems, "environment")
    for b in f.raw_blocks:   # code blocks are not LaTeX
        if not b.closed:
            envs.add(f"environment {b.env} opened here is never closed", b.begin)
    _environment_problems(text, envs)
    envs.close()
    braces = _Capped(f, problems, "brace")
    first_open, stack_depth = -1, 0
    for m in _BRACE_TOKENS.finditer(text):
        c = m.group()
        if c == "{":
            first_open = m.start() if stack_depth == 0 and first_open < 0 else first_open
            stack_depth += 1
        elif c == "}":
            if stack_depth:
                stack_depth -= 1
                first_open = -1 if stack_depth == 0 else first_open
            else:
                braces.add("closing brace } without an opening brace", m.start())
    if stack_depth:
        braces.add(f"{stack_depth} brace(s) opened here and never closed", first_open)
    braces.close()
    return problems


def _environment_problems(text: str, out: _Capped) -> None:
    stack: list[tuple[str, int]] = []
    open_count: dict[str, int] = {}   # env -> how many are on the stack (no scan per \\end)
    for m in _BEGIN_END.finditer(text):
        if m.group(1) is not None:
            stack.append((m.group(1), m.start()))
            open_count[m.group(1)] = open_count.get(m.group(1), 0) + 1
            continue
        env = m.group(2)
        if open_count.get(env):
            while stack[-1][0] != env:
                e, p = stack.pop()
                open_count[e] -= 1
                out.add(f"environment {e} opened here is not closed before \\end{{{env}}}", p)
            stack.pop()
            open_count[env] -= 1
        else:
            out.add(f"\\end{{{env}}} without a matching \\begin{{{env}}}", m.start())
    for e, p in stack:
        out.add(f"environment {e} opened here is never closed", p)


class ParseAll:
    """A relevance that parses every paragraph (tests, tools)."""

    def __call__(self, chunk: str, in_cam_section: bool) -> bool:
        return True

    def cam(self, raw: str) -> bool:
        return False

    def flags(self, raw: str) -> dict[str, list[int]]:
        return {}

    def sizes(self, raw: str) -> list:
        return []


def build_units(project: Project, relevant: Callable[[str, bool], bool], cache=None) -> DocumentText:
    """Units of every paragraph that may matter.

    `relevant(raw_chunk, in_cam_section)` decides which paragraphs are parsed: all paragraphs of
    a section that mentions CAM, elsewhere only those that name a model, a library, a method.
    """
    doc = DocumentText()
    doc.macros = cache.macros if cache is not None and getattr(cache, "macros", None) is not None \
        else collect_macros(project)
    for f in project.files:
        doc.problems.extend(structural_problems(f))
    pending = _structure(project, doc)        # pass 1: sections and raw chunks, nothing parsed
    _raw_flags(project, pending, relevant, doc)
    cam_sections = set(doc.raw_flags.get("cam", ()))
    cam_sections |= {s.index for s in doc.sections if s.title and relevant.cam(s.title)}
    if hasattr(relevant, "widen"):    # subsections that inherit the CAM scope of their section
        cam_sections = relevant.widen(doc.sections, cam_sections)
    for kind, item, sec in pending:           # pass 2: parse what matters
        if kind == "unit":
            doc.units.append(item)
            continue
        f, start, end = item
        chunk = f.masked[start:end]
        if relevant(chunk, sec in cam_sections):
            section = doc.sections[sec]
            if cache is not None:
                doc.units.extend(cache.units(f, start, chunk, section, doc.macros, _convert_chunk))
            else:
                doc.units.extend(_convert_chunk(chunk, f, section, start, doc.macros))
    return doc


def _raw_flags(project: Project, pending: list, relevant, doc: DocumentText) -> None:
    """Which sections mention CAM or a transformer in their raw text (one regex pass per file)."""
    chunks: dict[str, list[tuple[int, int, int]]] = {}
    for kind, item, sec in pending:
        if kind == "chunk":
            chunks.setdefault(item[0].display, []).append((item[1], item[2], sec))
    for f in project.files:
        spans = chunks.get(f.display, [])
        if not spans:
            continue
        starts = [a for a, _, _ in spans]

        def section_at(pos: int) -> int | None:
            i = bisect.bisect_right(starts, pos) - 1
            return spans[i][2] if i >= 0 and spans[i][0] <= pos < spans[i][1] else None

        for name, positions in relevant.flags(f.masked).items():
            for pos in positions:
                sec = section_at(pos)
                if sec is not None:
                    doc.raw_flags.setdefault(name, set()).add(sec)
        for pos, prio, size in relevant.sizes(f.masked):
            sec = section_at(pos)
            if sec is not None:
                doc.raw_sizes.append((prio, size, sec, pos))


def _structure(project: Project, doc: DocumentText) -> list:
    """Sections and the raw paragraph chunks between them, in reading order."""
    pending: list = []
    files = {f.display: f for f in project.files}
    section = Section(0, "", "", "front", project.main.display, 1)
    doc.sections.append(section)
    appendix = False
    top_title = ""
    title_ends: dict[str, dict[int, int]] = {}   # per file, computed once (linear time)
    for display, first, last in project.segments:
        f = files[display]
        if display not in title_ends:
            title_ends[display] = group_ends(f.masked, [m.end() for m in _HEADING.finditer(f.masked)])
        start = f.line_starts[first - 1] if first - 1 < len(f.line_starts) else len(f.text)
        end = f.line_starts[last] if last < len(f.line_starts) else len(f.text)
        text = f.masked
        events = []
        for m in _HEADING.finditer(text, start, end):
            events.append((m.start(), "heading", m))
        for m in _APPENDIX.finditer(text, start, end):
            events.append((m.start(), "appendix", m))
        for m in _ABSTRACT.finditer(text, start, end):
            events.append((m.start(), "abstract", m))
        first_block = bisect.bisect_left(f.raw_begins, start)
        for b in f.raw_blocks[first_block:bisect.bisect_left(f.raw_begins, end)]:
            events.append((b.begin, "raw", b))
        events.sort(key=lambda e: e[0])
        cursor = start
        for pos, kind, obj in events:
            if pos < cursor:
                continue
            pending.extend(("chunk", c, section.index) for c in _raw_chunks(f, cursor, pos))
            if kind == "heading":
                title_text, after = _heading_title(text, obj, title_ends[display])
                level = M.HEADINGS[obj.group(1)]
                title = expand_macro_body(title_text, doc.macros) if "\\" in title_text else title_text
                line, _ = f.line_col(pos)
                if level <= 1:
                    top_title = title
                if level <= 3:
                    section = Section(len(doc.sections), title, top_title if level > 1 else title,
                                      role_of(top_title if level > 1 and role_of(title, appendix) == "other"
                                              else title, appendix), display, line)
                    if level > 1 and section.role in ("other", "method", "experiments"):
                        parent_role = role_of(top_title, appendix)
                        if parent_role in ("related", "introduction", "conclusion", "appendix", "abstract"):
                            section.role = parent_role
                    doc.sections.append(section)
                unit = Unit("heading", f, section)
                b = _Builder(unit)
                b.add(title, pos)
                pending.append(("unit", b.finish(), section.index))
                cursor = after
            elif kind == "appendix":
                appendix = True
                cursor = obj.end()
            elif kind == "abstract":
                line, _ = f.line_col(pos)
                is_begin = "begin" in obj.group(0)
                section = Section(len(doc.sections), "Abstract" if is_begin else "",
                                  "Abstract" if is_begin else "", "abstract" if is_begin else "front",
                                  display, line)
                doc.sections.append(section)
                cursor = obj.end()
            else:  # raw (verbatim-like) block: a code unit
                unit = Unit("code", f, section, raw=obj)
                b = _Builder(unit)
                b.add(f.text[obj.start:obj.end], obj.start, exact=True)
                pending.append(("unit", b.finish(), section.index))
                cursor = obj.end if not obj.closed else obj.end + len(f"\\end{{{obj.env}}}")
        pending.extend(("chunk", c, section.index) for c in _raw_chunks(f, cursor, end))
    return pending


MAX_CHUNK = 12_000   # pylatexenc slows down superlinearly on very long runs of text


def _raw_chunks(f: SourceFile, start: int, end: int) -> list[tuple[SourceFile, int, int]]:
    """Paragraphs (blank-line separated), long ones cut at a space outside any brace group."""
    out = []
    text = f.masked
    pos = start
    for m in list(_BLANK_LINES.finditer(text, start, end)) + [None]:
        stop = m.start() if m else end
        if text[pos:stop].strip():
            out.extend(_split_long(f, pos, stop))
        if m:
            pos = m.end()
    return out


def _split_long(f: SourceFile, start: int, stop: int) -> list[tuple[SourceFile, int, int]]:
    if stop - start <= MAX_CHUNK:
        return [(f, start, stop)]
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
        out.append((f, pos, cut))
        pos = cut
    out.append((f, pos, stop))
    return out
