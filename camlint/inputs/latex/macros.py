"""The project's own macros (\\newcommand, \\def, ...), collected and expanded to text, so a
paper that writes \\method for Grad-CAM reads as Grad-CAM."""
from __future__ import annotations

import re

from camlint.inputs.latex.braces import group_ends
from camlint.inputs.latex.convert import ARITY_MARK, MAX_MACRO_CHARS, convert_chunk
from camlint.inputs.latex.project import Project
from camlint.inputs.latex.source import SourceFile
from camlint.inputs.latex.units import Section

_NEWCOMMAND = re.compile(r"\\(?:(?:re)?newcommand|providecommand|DeclareRobustCommand)\*?\s*\{?\s*\\([A-Za-z@]+)\s*\}?"
                         r"\s*(?:\[\s*(\d)\s*\])?\s*(?:\[[^\]]*\]\s*)?\{"
                         r"|\\def\s*\\([A-Za-z@]+)\s*((?:#\d)*)\s*\{")


def expand_macro_body(body: str, macros: dict[str, str]) -> str:
    """A macro body (or a heading title) as plain text, the macros known so far expanded."""
    file = SourceFile(path=None, display="", text=body, masked=body, line_starts=[0])
    section = Section(0, "", "", "other", "", 1)
    units = convert_chunk(body, file, section, 0, macros)
    return " ".join(u.text for u in units).strip()


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


def uses_of(macros: dict[str, str], says) -> re.Pattern | None:
    """Where raw text uses a macro whose expansion `says` something (\\hires for HiResCAM): the
    raw prefilters, which run before any parsing, then read what a macro means, not its name."""
    names = sorted({k.split(ARITY_MARK)[0] for k, body in macros.items() if body.strip() and says(body)},
                   key=len, reverse=True)
    if not names:
        return None
    return re.compile(r"\\(?:" + "|".join(map(re.escape, names)) + r")(?![A-Za-z@])")
