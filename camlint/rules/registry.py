"""The rule registry: an explicit list, module by module (a test checks that it is complete)."""
from __future__ import annotations

from camlint.rules import artifacts, citation, completeness, conflicts, consistency, input, spec, verify
from camlint.rules.base import Rule

_MODULES = (input, completeness, consistency, conflicts, spec, citation, artifacts, verify)

RULES: tuple[Rule, ...] = tuple(r for m in _MODULES for r in m.RULES)
BY_CODE: dict[str, Rule] = {r.code: r for r in RULES}
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}

# Codes that existed and were withdrawn; never reuse them (code -> why it was retired).
RETIRED: dict[str, str] = {}

# Codes whose concept moved into another rule (as ruff redirects renamed rules): old code ->
# (old name, new code, why). A selector or suppression naming the old code or name applies to
# the new rule, with a warning; `camlint explain OLD` says where it went. Never reuse them.
REDIRECTS: dict[str, tuple[str, str, str]] = {
    "CAM207": ("zero-gradient-location", "CAM602",
               "a [CLS]-pooled model's last-block map at F3a-F6 is not an inconsistency between statements: "
               "it is a degenerate map, which camlint check now predicts under the rule that camlint "
               "verify reports when it computes one"),
}

assert len(BY_CODE) == len(RULES), "duplicate rule code"
assert len(BY_NAME) == len(RULES), "duplicate rule name"
assert not set(RETIRED) & set(BY_CODE), "a retired code was reused"
assert not set(REDIRECTS) & (set(BY_CODE) | set(RETIRED)), "a redirected code was reused"
assert all(new in BY_CODE for _, new, _ in REDIRECTS.values()), "a redirect to an unknown rule"


def redirect(selector: str) -> tuple[str, Rule] | None:
    """(old code, the rule it now names) when `selector` is a redirected code or name."""
    s = selector.strip()
    for old, (name, new, _) in REDIRECTS.items():
        if s.upper() == old or s.lower() == name:
            return old, BY_CODE[new]
    return None

