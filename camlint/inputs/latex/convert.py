"""LaTeX -> text units: pylatexenc nodes turned into plain text that patterns can read, with
every run of text mapped back to its source offset (math and symbols by camlint.inputs.latex.mathtext).
"""
from __future__ import annotations

import functools
import re

from pylatexenc import latexwalker as lw

from camlint.inputs.latex import mathtext as M
from camlint.inputs.latex.source import SourceFile
from camlint.inputs.latex.units import Citation, Section, Unit, UnitBuilder
from camlint.inputs.latex.walker import RunWalker

ARITY_MARK = "#"   # macros with arguments are stored as "name#n" -> body with #1..#n
MAX_MACRO_CHARS = 500


EXPANSION_PER_CHAR = 4   # macros may make a chunk's text at most this many times its source, plus a body


class _Charged:
    """The paper's macros, every expansion charged to the chunk's budget: a 500-character \\def
    used 5,000 times (15 KB of source) made 2.4 MB of prose and 190 s of extraction. Past the
    budget a macro expands to nothing; the text stays linear in the source."""

    def __init__(self, macros: dict[str, str], budget: int):
        self.macros, self.left = macros, budget

    def __contains__(self, name) -> bool:
        return name in self.macros

    def __getitem__(self, name: str) -> str:
        return self.charged(self.macros[name])

    def charged(self, text: str) -> str:
        text = text[:max(0, self.left)]
        self.left -= len(text)
        return text


class _Converter:
    """pylatexenc nodes -> units (one builder per unit in progress)."""

    def __init__(self, file: SourceFile, section: Section, base: int, macros: dict[str, str], budget: int = 0):
        self.file, self.section, self.base = file, section, base
        self.macros = _Charged(macros, budget or EXPANSION_PER_CHAR * MAX_MACRO_CHARS)
        self.units: list[Unit] = []
        self.arity = {k.split(ARITY_MARK)[0]: int(k.split(ARITY_MARK)[1]) for k in macros if ARITY_MARK in k}
        self.float_env = ""
        self.in_table = False
        self.stack: list[UnitBuilder] = []

    # -- unit management
    def begin(self, kind: str) -> None:
        self.stack.append(UnitBuilder(Unit(kind, self.file, self.section, self.float_env)))

    def end(self) -> None:
        unit = self.stack.pop().finish()
        if unit.text.strip():
            self.units.append(unit)

    def break_unit(self, kind: str | None = None) -> None:
        kind = kind or self.stack[-1].unit.kind
        self.end()
        self.begin(kind)

    @property
    def b(self) -> UnitBuilder:
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
        self.b.add(self.macros.charged(text[:MAX_MACRO_CHARS]), self.base + n.pos)

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
            self.b.unit.cites.append(Citation(self.b.length - 2, keys))
        elif name in M.REFS:
            self.b.add("[ref]", pos)
        elif name in self.macros:
            # the paper's own \\def of a name wins over the built-in symbol (\\def\\ast{AST});
            # "\\tok token": the space after a macro name is eaten by TeX, \\xspace puts it back
            self.b.add(self.macros[name] + (" " if getattr(n, "macro_post_space", "") else ""), pos)
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
def latex_context():
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
    test_for_specials.first_chars = "".join(sorted(table))   # read by walker.RunWalker
    return test_for_specials


def _walk(chunk: str):
    walker = RunWalker(chunk, tolerant_parsing=True, latex_context=latex_context())
    nodes, _, _ = walker.get_latex_nodes()
    return nodes


def convert_chunk(chunk: str, file: SourceFile, section: Section, base: int,
                   macros: dict[str, str]) -> list[Unit]:
    conv = _Converter(file, section, base, macros, EXPANSION_PER_CHAR * (len(chunk) + MAX_MACRO_CHARS))
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
