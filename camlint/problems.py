"""Problems found while reading input, before any rule runs (schema errors, bad includes).

A loader cannot know rule metadata, so it records the rule code and the position; the rule of
that code (camlint.rules) turns it into a Finding.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    code: str
    message: str
    file: str
    line: int = 1
    col: int = 1
    hint: str | None = None
    item: str | None = None
