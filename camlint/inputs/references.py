"""Citations and reference lists as text shows them: `[3, 5-7]` and `(Selvaraju et al., 2017)`.

The LaTeX front end knows citation keys from \\cite; from text, a numeric citation's key is its
number and an author-year citation's key is `surname year`, the same key its reference-list
entry gets, so the citation rules and presets see what each citation points to.
"""
from __future__ import annotations

import re

from camlint.inputs.latex.units import Citation

_NUMERIC = re.compile(r"\[(\d{1,3}(?:\s*[,–-]\s*\d{1,3})*)\]")
_NAME = r"[A-Z][A-Za-z'’\u00c0-\u017f-]+"
_AUTHOR_YEAR = re.compile(rf"({_NAME})(?:\s+et\s+al\.?|\s+(?:and|&)\s+{_NAME})?(?:,\s*|\s+\()((?:19|20)\d{{2}})[a-z]?\b")
_ENTRY_NUMBER = re.compile(r"^\[(\d{1,3})\]\s*|^(\d{1,3})\.\s+(?=[A-Z])")
_YEAR = re.compile(r"\b(?:19|20)\d{2}\b")


def citations(text: str) -> list[Citation]:
    """Every citation in a unit's text, in order."""
    out = [Citation(m.start(), tuple(_numeric_keys(m.group(1)))) for m in _NUMERIC.finditer(text)]
    out += [Citation(m.start(), (f"{m.group(1)} {m.group(2)}".lower(),)) for m in _AUTHOR_YEAR.finditer(text)]
    return sorted(out, key=lambda c: (c.position, c.keys))


def _numeric_keys(group: str) -> list[str]:
    keys: list[str] = []
    for part in re.split(r"\s*,\s*", group):
        a, _, b = re.sub(r"\s*[–-]\s*", "-", part).partition("-")
        if b and a.isdigit() and b.isdigit() and 0 < int(b) - int(a) < 30:
            keys.extend(str(k) for k in range(int(a), int(b) + 1))
        elif a.strip():
            keys.append(a.strip())
    return keys


class ReferenceList:
    """Lines of a references section -> {key: entry text}.

    An entry starts with its number (`[3]`, `3.`), or, in author-year lists, at the left margin
    (continuation lines hang indented).
    """

    def __init__(self):
        self.entries: dict[str, str] = {}
        self.lines: list[str] = []
        self.number: str | None = None
        self.margin: dict[tuple, float] = {}

    def add(self, text: str, x0: float, where: tuple) -> None:
        text = text.strip()
        m = _ENTRY_NUMBER.match(text)
        margin = self.margin.setdefault(where, x0)
        self.margin[where] = min(margin, x0)
        if m:
            self.close()
            self.number = m.group(1) or m.group(2)
            text = text[m.end():]
        elif self.number is None and x0 <= margin + 2.0:
            self.close()
        self.lines.append(text)

    def close(self) -> None:
        if self.lines:
            entry = re.sub(r"([a-z])- ([a-z])", r"\1\2", " ".join(self.lines))[:400]
            key = self.number or _author_year_key(entry)
            if key:
                self.entries[key] = entry
        self.lines, self.number = [], None


def _author_year_key(entry: str) -> str | None:
    first = re.split(r",| and |(?<=[a-z]{2})\.\s", entry, maxsplit=1)[0].strip()
    words = re.findall(_NAME, first)
    years = _YEAR.findall(entry)
    if not words or not years:
        return None
    # `Selvaraju, R. R., ...` names the surname first; `Ramprasaath R. Selvaraju, ...` last
    surname = words[0] if "," in entry[:len(first) + 1] and len(first.split()) == 1 else words[-1]
    return f"{surname} {years[-1]}".lower()
