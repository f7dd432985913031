"""Normalisation before matching: one spelling for things people write many ways.

The vocabulary then needs one pattern per idea, not one per spelling:
- number words become digits ("one hundred and ninety-six" -> 196, "fourteen" -> 14), and ordinals
  past twelfth numbered ordinals ("twenty-third" -> 23rd; "first" .. "twelfth" stay words: the
  vocabulary reads them, and "first" or "second" are more often not counts);
- grids become `R×C` ("24-by-24", "14 by 14", "7 x 7", "14 X 14" -> 24×24, 14×14, 7×7);
- a two-cell table row becomes a sentence ("Removed tokens | [CLS] and distillation" ->
  "the [CLS] and distillation tokens are removed"; other rows "key: value");
- a compound written with a hyphen, as German and Dutch authors write it, becomes two words
  ("last Transformer-Block", "the CLS-Token" -> "Transformer Block", "CLS Token");
- hedges inside a statement go ("was, we think, averaged" -> "was averaged"; "appear to have
  been removed" -> "were removed");
- a reference typed by hand ("[21]", "[3, 7]") becomes "[cite]", as \\cite does;
- typographic variants become ASCII (unicode minus and hyphens, non-breaking spaces, curly quotes),
  and runs of white space one space (math and macros leave double spaces behind).

Every normalised character keeps the offset it came from, so evidence still points at the
author's line (Sentence.offsets).
"""
from __future__ import annotations

import re
from typing import Callable

from camlint.inputs.latex.units import Sentence

_UNITS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
          "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
VALUE = {w: i for i, w in enumerate(_UNITS)} | {w: 10 + i for i, w in enumerate(_TEENS)} | \
        {w: 20 + 10 * i for i, w in enumerate(_TENS)}

_U = "|".join(_UNITS[1:])
_BELOW_100 = rf"(?:(?:{'|'.join(_TENS)})(?:[- ](?:{_U}))?|{'|'.join(_TEENS)}|{_U})"
_NUMBER_WORDS = re.compile(rf"\b(?:(?:{_U})[- ]hundred(?:(?: and)? {_BELOW_100})?|{_BELOW_100})\b", re.I)
_ORD_UNITS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_ORD_TEENS = {"thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17,
              "eighteenth": 18, "nineteenth": 19}
_ORD_TENS = {"twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50}
_ORDINAL_WORDS = re.compile(rf"\b(?:(?:{'|'.join(_TENS)})[- ](?:{'|'.join(_ORD_UNITS)})|{'|'.join(_ORD_TEENS)}|"
                            rf"{'|'.join(_ORD_TENS)})\b", re.I)
_GRID = re.compile(r"(?<![\w.])(\d{1,4})\s*(?:-\s*by\s*-|\s+by\s+|[x×X*]|\s+[x×X*]\s+|\s*×\s*)\s*(\d{1,4})(?!\w|\.\d)")
_SPACES = re.compile(r"\s{2,}")
# hedges inside a statement ("was, we think reasonably, averaged"; "appear to have been removed"):
# the statement without them, so that a careful author's choices read like anyone else's
_HEDGE_ASIDE = re.compile(r",\s*(?:we|i)\s+(?:think|believe|assume|suppose|feel|hope|expect)(?:\s+\w+ly)?\s*,", re.I)
_HEDGE_VERB = re.compile(r"\b(?:appears?|seems?)\s+to\s+have\s+been\b", re.I)
# a reference typed by hand ("[21]", "[3, 7]", "[12-14]") is a citation like \cite's; not an interval
# ("[0, 1]") nor an index ("blocks[11]")
_TYPED_CITE = re.compile(r"(?<=[\s(:;,])\[(?!0\b)\d{1,3}(?:\s*[,\u2013-]\s*\d{1,3}){0,8}\](?![\w(])")
_COMPOUND = re.compile(r"\b(transformer|encoder|attention|cls|class|classification)-(blocks?|layers?|tokens?|heads?)\b", re.I)
# "the 12-th layer", "3-rd block": a hyphen written inside a numeric ordinal
_HYPHEN_ORDINAL = re.compile(r"(?<![\w.-])(\d{1,3})-(st|nd|rd|th)\b", re.I)
_WORD_DASH = re.compile(r"(?<=[A-Za-z])[–—](?=[A-Za-z])")    # "image--text" -> "image-text"
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


def _ordinal(m: re.Match) -> str:
    word = m.group(0).lower()
    if word in _ORD_TEENS or word in _ORD_TENS:
        n = _ORD_TEENS.get(word) or _ORD_TENS[word]
    else:
        tens, unit = re.split(r"[- ]", word)
        n = VALUE[tens] + _ORD_UNITS.index(unit) + 1
    return f"{n}{'st' if n % 10 == 1 and n != 11 else 'nd' if n % 10 == 2 and n != 12 else 'rd' if n % 10 == 3 and n != 13 else 'th'}"


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
    text = _WORD_DASH.sub("-", text)       # one character for one
    text = _COMPOUND.sub(lambda m: f"{m.group(1)} {m.group(2)}", text)    # one character for one
    text, offs = _sub(text, offs, _HEDGE_ASIDE, lambda m: "")
    text, offs = _sub(text, offs, _HEDGE_VERB,
                      lambda m: "was" if m.group(0).split()[0].lower() in ("appears", "seems") else "were")
    text, offs = _sub(text, offs, _HYPHEN_ORDINAL, lambda m: m.group(1) + m.group(2).lower())
    text, offs = _sub(text, offs, _ORDINAL_WORDS, _ordinal)     # before "twenty" becomes 20
    text, offs = _sub(text, offs, _NUMBER_WORDS, _number)
    text, offs = _sub(text, offs, _GRID, _grid)
    text, offs = _sub(text, offs, _TYPED_CITE, lambda m: "[cite]")
    return text, offs


# Setting names in the first cell of a key/value row, and the sentence that states the value.
ROW_TEMPLATES = (
    (re.compile(r"^(?:removed|dropped|discarded|excluded|deleted) tokens?$", re.I), "the {v} tokens are removed"),
    (re.compile(r"^(?:kept|retained) tokens?$", re.I), "the {v} tokens are kept"),
    (re.compile(r"^(?:token )?(?:grid|reshape|token layout)$", re.I), "the tokens are reshaped to {v} grid"),
    (re.compile(r"^(?:target |hooked )?(?:layer|block)s?$", re.I), "the map is taken at {v} block"),
    (re.compile(r"^(?:target|explained score|score)$", re.I), "the gradient target is the {v}"),
)
_CELL = re.compile(r"\s*\|\s*")


def _row_sentence(text: str, offs: list[int]) -> tuple[str, list[int]]:
    """A key/value table row as a sentence; offsets of the value cell are kept."""
    cells = [m for m in re.finditer(r"[^|]+", text) if m.group(0).strip()]
    if len(cells) < 2:
        return text, offs
    key, value = cells[0].group(0).strip(), cells[1]
    vstart = value.start() + len(value.group(0)) - len(value.group(0).lstrip())
    vtext = value.group(0).strip()
    if len(cells) > 2:   # "Tokens | CLS | removed before reshape": the value spans the other cells
        vtext = text[vstart:cells[-1].end()].rstrip()
        vtext, voffs = re.sub(r"\s*\|\s*", " ", vtext), None
        voffs = [offs[vstart]] * len(vtext)
        return f"{key}: {vtext}", [offs[vstart]] * (len(key) + 2) + voffs
    template = next((t for rx, t in ROW_TEMPLATES if rx.match(key)), None)
    if template is None:
        out = f"{key}: {vtext}"
        kstart = cells[0].start() + len(cells[0].group(0)) - len(cells[0].group(0).lstrip())
        return out, offs[kstart:kstart + len(key)] + [offs[vstart]] * 2 + offs[vstart:vstart + len(vtext)]
    before, after = template.split("{v}")
    new = before + vtext + after
    return new, [offs[vstart]] * len(before) + offs[vstart:vstart + len(vtext)] + [offs[vstart]] * len(after)


def normalise(s: Sentence, key_above: str | None = None) -> Sentence:
    """`key_above`: the first cell of the row above, for a row whose first cell is empty."""
    text, offs = s.text, [s.start + i for i in range(len(s.text))]
    if s.unit.kind == "row":
        if key_above and "|" in text and not text.split("|", 1)[0].strip():
            text, offs = key_above + text, [s.start] * len(key_above) + offs
        text, offs = _row_sentence(text, offs)
    text, offs = normalise_text(text, offs)
    if text == s.text:
        return s
    offs.append(s.end)   # the position just after the text
    return Sentence(s.unit, s.start, s.end, text, offs)


def normalise_all(sentences) -> list[Sentence]:
    """Normalise every sentence; a table row with an empty first cell continues the row above
    (\\multirow{2}{*}{Score} & type & ... \\ & class & ...), so it gets that row's first cell."""
    out, key_above, table = [], None, None
    for s in sentences:
        if s.unit.kind != "row":
            key_above = None
        else:
            here = (s.unit.file.display, s.section.index, s.unit.float_env)
            first = s.text.split("|", 1)[0].strip() if "|" in s.text else ""
            if here != table:
                key_above, table = None, here
            out.append(normalise(s, key_above))
            key_above = first or key_above
            continue
        out.append(normalise(s))
    return out
