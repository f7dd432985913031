"""A rule is data (code, name, item, severity, rationale, examples, hint) plus one check."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

from camlint.analysis import Analysis


@dataclass(frozen=True)
class Hit:
    """What a check yields; the engine adds the rule's metadata to make a Finding."""
    message: str
    file: str
    line: int
    col: int = 1
    hint: str | None = None          # overrides the rule's hint when more specific
    severity: str | None = None      # overrides the rule's default (e.g. partial -> warning)


@dataclass(frozen=True)
class Rule:
    code: str              # stable: CAM + 3 digits, never reused
    name: str              # kebab-case, says what is wrong
    item: str | None       # checklist key, or None
    severity: str          # default: error | warning | info
    summary: str           # what it checks, one sentence
    rationale: str         # why it matters, tied to the taxonomy
    bad: str               # a manuscript (or spec) excerpt that fires the rule
    good: str              # the same excerpt, fixed
    hint: str              # how to fix: concrete choices
    check: Callable[[Analysis], Iterable[Hit]]
    example_format: str = "latex"    # how the examples are read: latex | yaml

    def __post_init__(self):
        assert self.severity in ("error", "warning", "info"), self.code


def from_problems(code: str):
    """Check for rules whose findings come from the loaders (schema errors, bad includes)."""
    def check(analysis: Analysis) -> Iterable[Hit]:
        for p in analysis.problems:
            if p.code == code:
                yield Hit(p.message, p.file, p.line, p.col, hint=p.hint)
    return check
