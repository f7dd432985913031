"""The rule registry: an explicit list, module by module (a test checks that it is complete)."""
from __future__ import annotations

from camlint.rules import artifacts, citation, completeness, consistency, input, spec, verify
from camlint.rules.base import Rule

_MODULES = (input, completeness, consistency, spec, citation, artifacts, verify)

RULES: tuple[Rule, ...] = tuple(r for m in _MODULES for r in m.RULES)
BY_CODE: dict[str, Rule] = {r.code: r for r in RULES}
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}

# Codes that existed and were withdrawn; never reuse them (code -> why it was retired).
RETIRED: dict[str, str] = {}

assert len(BY_CODE) == len(RULES), "duplicate rule code"
assert len(BY_NAME) == len(RULES), "duplicate rule name"
assert not set(RETIRED) & set(BY_CODE), "a retired code was reused"

