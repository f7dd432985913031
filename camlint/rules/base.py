"""A rule is data (code, name, item, severity, rationale, examples, hint) plus one check.

Findings of input problems (a missing include, a schema error) are found by the loaders, which
cannot run a check: a loader records `RULE.hit(...)` in `Analysis.problems`, naming the rule
object itself, and a rule without a check reports the hits the loaders recorded for it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from camlint.core.severity import Severity
from camlint.rules.findings import Hit

if TYPE_CHECKING:   # annotations only: the analysis is what a check reads
    from camlint.checklist.analysis import Analysis


@dataclass(frozen=True)
class Rule:
    code: str              # stable: CAM + 3 digits, never reused
    name: str              # kebab-case, says what is wrong
    item: str | None       # checklist key, or None
    severity: Severity     # default: error | warning | info
    summary: str           # what it checks, one sentence
    rationale: str         # why it matters, tied to the taxonomy
    bad: str               # a manuscript (or spec) excerpt that fires the rule
    good: str              # the same excerpt, fixed
    hint: str              # how to fix: concrete choices
    # None: the loaders find its problems while reading (see Rule.hit)
    check: Callable[[Analysis], Iterable[Hit]] | None = None
    example_format: str = "latex"    # how the examples are read: latex | yaml
    # Rules whose findings this one replaces in a document where it fires (it says the same
    # thing more precisely); the engine applies it (camlint.rules.engine), not the checks.
    supersedes: tuple[Rule, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "severity", Severity(self.severity))   # ValueError on a typo

    def hit(self, message: str, file: str, line: int = 1, col: int = 1, hint: str | None = None) -> Hit:
        """A problem a loader found, for this rule to report."""
        return Hit(message, file, line, col, hint=hint, rule=self)

    def hits(self, analysis: Analysis) -> Iterable[Hit]:
        if self.check is None:
            return (h for h in analysis.problems if h.rule is self)
        return self.check(analysis)
