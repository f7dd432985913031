"""What each citation key points to: .bib titles and \\bibitem text (for citation rules and presets)."""
from __future__ import annotations

import re

from camlint.inputs.latex.project import Project
from camlint.safety.safeio import read_regular
from camlint.inputs.latex.source import decode

MAX_BIB_BYTES = 4 * 1024 * 1024
# A key holds no brace: `[^,\s]+` ran from every "@a{" of "@a{@a{@a{..." to the end of the file
# (a 240 KB .bib took 111 s); a label and a key are bounded for the same reason.
_ENTRY = re.compile(r"@(\w+)\s*\{\s*([^,\s{}]+)\s*,", re.I)
_TITLE = re.compile(r"\btitle\s*=\s*", re.I)
_BIBITEM = re.compile(r"\\bibitem\s*(?:\[[^\]]{0,500}\])?\s*\{([^}]{1,500})\}")
_END_BIB = re.compile(r"\\end\s*\{thebibliography\}")


def _braced_value(text: str, start: int) -> str:
    """The value after `title =`: {...} (nested), "..." or a bare word."""
    if start >= len(text):
        return ""
    c = text[start]
    if c == "{":
        depth, i = 0, start
        while i < len(text):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    return text[start + 1:i]
            i += 1
        return text[start + 1:]
    if c == '"':
        end = text.find('"', start + 1)
        return text[start + 1:end if end > 0 else None]
    m = re.match(r"[\w.:-]+", text[start:])
    return m.group(0) if m else ""


def _clean(text: str) -> str:
    text = re.sub(r"\\[a-zA-Z]+\s*|\\.|[{}]", "", text.replace("~", " "))
    return " ".join(text.split())


def parse_bib(text: str) -> dict[str, str]:
    out = {}
    entries = list(_ENTRY.finditer(text))
    for i, m in enumerate(entries):
        body = text[m.end(): entries[i + 1].start() if i + 1 < len(entries) else len(text)]
        t = _TITLE.search(body)
        out[m.group(2)] = _clean(_braced_value(body, t.end())) if t else ""
    return out


def bibliography(project: Project) -> dict[str, str]:
    """citation key -> title (from .bib) or the \\bibitem's text."""
    refs: dict[str, str] = {}
    for path in project.bib_files:
        try:
            refs.update(parse_bib(decode(read_regular(path, MAX_BIB_BYTES, "bibliography"))))
        except (OSError, ValueError):
            continue
    for f in project.files:
        items = list(_BIBITEM.finditer(f.masked))
        for i, m in enumerate(items):
            stop = items[i + 1].start() if i + 1 < len(items) else len(f.masked)
            end = _END_BIB.search(f.masked, m.end(), stop)
            refs[m.group(1).strip()] = _clean(f.masked[m.end(): end.start() if end else stop])[:400]
    return refs

