"""Rule selectors: ALL, a code prefix (CAM, CAM1, CAM10), a code (CAM105) or a name (missing-target).

One validator serves the configuration files and the command line. Precedence follows ruff:
within one layer the more specific selector wins (a code beats a prefix, a longer prefix a
shorter one, ALL loses to everything; an ignore wins a tie), and a layer that selects replaces
what the layers before it decided (the command line's --select replaces the file's selection).
"""
from __future__ import annotations

import difflib
import warnings
from dataclasses import dataclass

from camlint.core.errors import InputError

_EXACT = 100        # specificity of a full code or a rule name


class RuleRedirected(UserWarning):
    """A selector names a code that moved into another rule (the command line prints these)."""


def resolved(selector: str) -> str:
    """The selector itself, or the new code of a redirected code or name (CAM207 -> CAM602)."""
    from camlint.rules.registry import redirect

    moved = redirect(selector)
    return moved[1].code if moved else selector.strip()


def redirect_note(selector: str) -> str | None:
    """What to say about a selector that names a redirected code, else None."""
    from camlint.rules.registry import redirect

    moved = redirect(selector)
    if moved is None:
        return None
    old, rule = moved
    return f"{selector.strip()!r} names {old}, which is now {rule.code} ({rule.name}); write {rule.code}"


def matches(rule, selector: str) -> bool:
    s = resolved(selector)
    return (s.upper() == "ALL" or rule.code == s.upper() or rule.name == s.lower()
            or (s.upper().startswith("CAM") and rule.code.startswith(s.upper())))


def specificity(rule, selector: str) -> int:
    selector = resolved(selector)
    s = selector.strip().upper()
    if s == "ALL":
        return 0
    if s == rule.code or selector.strip().lower() == rule.name:
        return _EXACT
    return len(s)


def _candidates() -> list[str]:
    from camlint.rules.registry import RULES

    prefixes = {r.code[:n] for r in RULES for n in range(3, len(r.code))}
    return ["ALL", *sorted(prefixes), *(r.code for r in RULES), *(r.name for r in RULES)]


def check_selectors(selectors, where: str, setting: str) -> list[str]:
    """The selectors, stripped; InputError naming `where` and `setting` for one that matches no rule."""
    from camlint.rules.registry import RULES

    out = []
    for raw in selectors:
        if not isinstance(raw, str):
            raise InputError(f"{setting}: {raw!r} is not a rule selector (a code, prefix or name as a string)",
                             where)
        sel = raw.strip()
        if not sel or not any(matches(r, sel) for r in RULES):
            close = difflib.get_close_matches(sel.upper() if sel.upper().startswith("CAM") else sel.lower(),
                                              _candidates(), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else " (camlint rules lists them)"
            raise InputError(f"{setting}: selector {raw!r} matches no rule{hint}", where)
        if (note := redirect_note(sel)) is not None:
            warnings.warn(RuleRedirected(f"{where + ': ' if where else ''}{setting}: {note}"), stacklevel=2)
        out.append(sel)
    return out


def split_values(values) -> list[str]:
    """Command-line values: repeatable and comma-separated (--ignore CAM1,CAM2 --ignore CAM3)."""
    return [v.strip() for value in values for v in str(value).split(",") if v.strip()]


@dataclass(frozen=True)
class Layer:
    """One source of selection (a configuration file, then the command line)."""
    select: tuple | None = None      # None: keep what the layers before decided
    extend_select: tuple = ()
    ignore: tuple = ()

    def decide(self, rule, before: bool) -> bool:
        enabling = [*(self.select or ()), *self.extend_select]
        on = max((specificity(rule, s) for s in enabling if matches(rule, s)), default=-1)
        off = max((specificity(rule, s) for s in self.ignore if matches(rule, s)), default=-1)
        if off >= 0 and off >= on:
            return False
        if on >= 0:
            return True
        return False if self.select is not None else before


def enabled(rule, layers) -> bool:
    state = False
    for layer in layers:
        state = layer.decide(rule, state)
    return state


def most_specific(rule, mapping: dict):
    """The value of the most specific selector in `mapping` that matches `rule` (None: none does)."""
    best = max(((specificity(rule, s), v) for s, v in mapping.items() if matches(rule, s)),
               default=None, key=lambda t: t[0])
    return None if best is None else best[1]
