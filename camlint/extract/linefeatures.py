"""What the line ranker sees of a line: one featurisation for training and for linting.

A line of a manuscript is read with its neighbours and the title of the section it stands in:

    context = LineContext(line, before, after, title)
    terms = raw_terms(context)              # feature string -> count (word 1-2-grams, char 3-5-grams)
    vector = weigh(terms, idf)              # TF-IDF, each field L2-normalised and scaled

tools/train_line_ranker.py builds the training examples with exactly these functions (and
scikit-learn only fits the weights), camlint.extract.ranker scores lines with them at lint time,
so the two cannot drift apart. Pure Python: nothing here imports numpy or scikit-learn.
"""
from __future__ import annotations

import bisect
import math
import re
from collections import Counter
from typing import NamedTuple

from camlint.core.wording import low

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"\\?[a-z]+|0|[\[\]]")
MAX_CHARS = 400           # a line longer than this is read up to here (bounded cost per line)
CHAR_SIZES = (3, 4, 5)
# field -> weight of its L2-normalised part: the line itself counts most
FIELDS = {"w": 1.0, "c": 1.0, "n": 0.5, "t": 0.5}


class LineContext(NamedTuple):
    line: str
    before: str
    after: str
    title: str


def clean(text: str) -> str:
    """Lower case, every number as 0 (block 10 and block 11 read alike), spaces collapsed."""
    return _SPACES.sub(" ", _DIGITS.sub("0", low(text[:MAX_CHARS]))).strip()


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _word_grams(prefix: str, words: list[str], out: Counter) -> None:
    for i, w in enumerate(words):
        out[f"{prefix}:{w}"] += 1
        if i:
            out[f"{prefix}:{words[i - 1]} {w}"] += 1


def raw_terms(ctx: LineContext) -> Counter:
    """Feature string -> count. Fields: w (words of the line), c (characters of the line),
    n (words of the neighbouring lines), t (words of the section title)."""
    out: Counter = Counter()
    line = clean(ctx.line)
    _word_grams("w", _words(line), out)
    padded = f" {line} "
    for n in CHAR_SIZES:
        for i in range(len(padded) - n + 1):
            out["c:" + padded[i:i + n]] += 1
    _word_grams("n", _words(clean(ctx.before)) + ["|"] + _words(clean(ctx.after)), out)
    _word_grams("t", _words(clean(ctx.title)), out)
    return out


def weigh(terms: Counter, idf: dict[str, float]) -> dict[str, float]:
    """TF-IDF of the known features (sublinear term frequency), each field L2-normalised and
    scaled by its weight in FIELDS. Unknown features are dropped before normalising, as in training."""
    parts: dict[str, dict[str, float]] = {}
    for term, count in terms.items():
        w = idf.get(term)
        if w is not None:
            parts.setdefault(term[0], {})[term] = (1.0 + math.log(count)) * w
    out: dict[str, float] = {}
    for field, vec in parts.items():
        norm = math.sqrt(sum(v * v for v in vec.values()))
        scale = FIELDS[field] / norm
        out.update((t, v * scale) for t, v in vec.items())
    return out


def idf_of(doc_freq: Counter, n_lines: int) -> dict[str, float]:
    """Smoothed inverse document frequency (documents = lines), as scikit-learn computes it."""
    return {t: math.log((1 + n_lines) / (1 + df)) + 1.0 for t, df in doc_freq.items()}


class FileLines:
    """The non-blank lines of one file's masked text (comments blanked), each readable with its
    neighbours: the nearest non-blank line before and after it."""

    def __init__(self, masked: str):
        self.numbers: list[int] = []
        self.texts: list[str] = []
        for i, text in enumerate(masked.split("\n"), 1):
            if text.strip():
                self.numbers.append(i)
                self.texts.append(text)

    def context(self, number: int, title: str) -> LineContext | None:
        k = bisect.bisect_left(self.numbers, number)
        if k == len(self.numbers) or self.numbers[k] != number:
            return None
        before = self.texts[k - 1] if k else ""
        after = self.texts[k + 1] if k + 1 < len(self.texts) else ""
        return LineContext(self.texts[k], before, after, title)
