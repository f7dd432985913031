"""Normalisation before matching: one spelling for things people write many ways.

The vocabulary then needs one pattern per idea, not one per spelling:
- number words become digits ("one hundred and ninety-six" -> 196, "fourteen" -> 14);
- grids become `R×C` ("24-by-24", "14 by 14", "7 x 7", "14 X 14" -> 24×24, 14×14, 7×7);
- typographic variants become ASCII (unicode minus and hyphens, non-breaking spaces, curly quotes),
  and runs of white space one space (math and macros leave double spaces behind).

Every normalised character keeps the offset it came from, so evidence still points at the
author's line (Sentence.offsets).
"""
from __future__ import annotations

import re
from typing import Callable

from camlint.latex.units import Sentence

_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
VALUE = {w: i for i, w in enumerate(_UNITS)} | {w: 10 + i for i, w in enumerate(_TEENS)} | \
        {w: 20 + 10 * i for i, w in enumerate(_TENS)}

_U = "|".join(_UNITS[1:])
_BELOW_100 = rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{_U}))?|{'|'.join(_TEENS)}|{_U}|zero)"
_NUMBER_WORDS = re.compile(rf"\b(?:(?:{_U})[- ]hundred(?:(?: and)? {_BELOW_100})?|{_BELOW_100})\b", re.I)
_GRID = re.compile(r"(?<![\w.])(\d{1,4})\s*(?:-\s*by\s*-|\s+by\s+|[x×X*]|\s+[x×X*]\s+|\s*×\s*)\s*(\d{1,4})(?![\w.])")
_SPACES = re.compile(r"\s{2,}")
_CHARS = str.maketrans({"\u2212": "-", "\u2010": "-", "\u2011": "-", "\u00a0": " ", "\u202f": " ",
                        "\u2009": " ", "\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"',
                        "\u22c5": "·", "\u2217": "*"})


def number_value(words: str) -> int:
    """Value of a run of number words ("one hundred and ninety-six" -> 196)."""
    total, current = 0, 0
    for w in re.split(r"[- ]+", words.lower()):
        if w == "and":
            continue
        if w == "hundred":
            current = max(current, 1) * 100
        else:
            current += VALUE[w]
    return total + current


def _number(m: re.Match) -> str | None:
    word = m.group(0)
    if word.lower() == "one":
        return None     # "one of the blocks", "one head": a pronoun more often than a count
    return str(number_value(word))


def _grid(m: re.Match) -> str:
    return f"{m.group(1)}×{m.group(2)}"


def _sub(text: str, offs: list[int], rx: re.Pattern, fn: Callable[[re.Match], str | None]):
    """Replace matches; a replacement's characters all map to the match's first source offset."""
    out, new_offs, last = [], [], 0
    for m in rx.finditer(text):
        rep = fn(m)
        if rep is None:
            continue
        out.append(text[last:m.start()])
        new_offs.extend(offs[last:m.start()])
        out.append(rep)
        new_offs.extend([offs[m.start()]] * len(rep))
        last = m.end()
    if not out:
        return text, offs
    out.append(text[last:])
    new_offs.extend(offs[last:])
    return "".join(out), new_offs


def normalise_text(text: str, offsets: list[int] | None = None) -> tuple[str, list[int]]:
    offs = list(range(len(text))) if offsets is None else offsets
    text = text.translate(_CHARS)          # one character for one: offsets unchanged
    text, offs = _sub(text, offs, _SPACES, lambda m: " ")
    text, offs = _sub(text, offs, _NUMBER_WORDS, _number)
    text, offs = _sub(text, offs, _GRID, _grid)
    return text, offs


def normalise(s: Sentence) -> Sentence:
    text, offs = normalise_text(s.text, [s.start + i for i in range(len(s.text))])
    if text == s.text:
        return s
    offs.append(s.end)   # the position just after the text
    return Sentence(s.unit, s.start, s.end, text, offs)
