"""How serious a finding is: error, warning or info.

A str enum: a severity prints, compares and serialises (JSON, SARIF, TOML values) as its word,
so reports are unchanged, while a misspelt severity fails where it is written.
"""
from __future__ import annotations

from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """Higher is more serious (a --fail-on gate fails at its rank and above)."""
        return _RANK[self]


_RANK = {Severity.INFO: 1, Severity.WARNING: 2, Severity.ERROR: 3}

SEVERITIES: tuple[Severity, ...] = (Severity.ERROR, Severity.WARNING, Severity.INFO)
SEVERITY_RANK: dict[str, int] = dict(_RANK)
