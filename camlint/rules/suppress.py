"""Inline suppressions: `% camlint: disable=CAM105 -- reason` (to the end, or until enable),
`% camlint: disable-next-line=CAM105 -- reason`, `% camlint: enable=CAM105`, and in YAML
supplements an `x-camlint-ignore` list. Suppressions that match nothing are reported."""
from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from camlint.rules.findings import Finding, cap_per_rule_and_file
from camlint.rules.registry import BY_CODE, RULES
from camlint.rules.base import Rule
from camlint.rules.input import (BLANKET_SUPPRESSION, REDIRECTED_SUPPRESSION, UNKNOWN_SUPPRESSION,
                                 UNUSED_SUPPRESSION)
from camlint.rules.input import RULES as INPUT_RULES
from camlint.rules.selectors import matches, redirect_note

# Parsed in two linear steps (the head, then a split at "--"): one regex over the whole comment
# backtracked quadratically on a 30 KB line of spaces.
_HEAD = re.compile(r"camlint:\s*(disable-next-line|disable|enable)\s*=")
_SELECTORS = re.compile(r"[A-Za-z0-9_,\- ]+")
BLANKET = ("ALL", "CAM")     # selectors that name every rule


@dataclass
class Directive:
    kind: str            # disable | disable-next-line | enable | ignore (whole file, YAML)
    selectors: list[str]
    reason: str
    file: str
    line: int
    col: int = 1
    used: bool = False


def parse_comment(comment: str, file: str, line: int, col: int) -> Directive | None:
    """A directive from the text of one comment (without the leading %)."""
    text = comment.strip()
    m = _HEAD.search(text)
    if not m:
        return None
    codes, _, reason = text[m.end():].partition("--")
    codes = codes.strip()
    if not codes or not _SELECTORS.fullmatch(codes):
        return None
    selectors = [s.strip() for s in codes.split(",") if s.strip()]
    return Directive(m.group(1), selectors, reason.strip(), file, line, col)


def parse_ignore_entry(entry: str, file: str, line: int, col: int) -> Directive:
    code, _, reason = str(entry).partition("--")
    return Directive("ignore", [s.strip() for s in code.split(",") if s.strip()], reason.strip(), file, line, col)


def selects(selector: str, rule) -> bool:
    """Whether a suppression's selector hides `rule`. ALL never hides an input finding (CAM0xx):
    a file camlint could not read in full is never silenced wholesale."""
    if selector.strip().upper() in BLANKET and rule in INPUT_RULES:
        return False
    return matches(rule, selector)


def _order_of(analysis):
    """analysis.order by bisection: a file's segments are disjoint and in line order."""
    per_file: dict[str, list[tuple[int, int, int]]] = {}
    base = 0
    for seg_file, first, last in analysis.segments:
        if first <= last:
            per_file.setdefault(seg_file, []).append((first, last, base))
        base += last - first + 1
    firsts = {f: [s[0] for s in segs] for f, segs in per_file.items()}

    def order(file: str, line: int) -> int:
        i = bisect.bisect_right(firsts.get(file, ()), line) - 1
        if i >= 0:
            first, last, seg_base = per_file[file][i]
            if line <= last:
                return seg_base + (line - first)
        return base + line   # not in any segment: after everything read

    return order


def _hits(analysis, findings: list[Finding], directives: list[Directive]) -> list[int | None]:
    """For each finding, the index of the first directive (in list order) that hides it, in one
    sweep per rule over the reading order (not findings x directives x enables)."""
    order = _order_of(analysis)
    enables = [e for e in analysis.suppressions if e.kind == "enable"]
    out: list[int | None] = [None] * len(findings)
    by_code: dict[str, list[int]] = {}
    for i, f in enumerate(findings):
        by_code.setdefault(f.code, []).append(i)
    for code, indices in by_code.items():
        rule = BY_CODE.get(code)
        if rule is None:
            continue
        mine = [(k, d) for k, d in enumerate(directives) if any(selects(s, rule) for s in d.selectors)]
        if not mine:
            continue
        ignore = min((k for k, d in mine if d.kind == "ignore"), default=None)
        next_line: dict = {}
        events = []
        for k, d in mine:
            if d.kind == "disable-next-line":
                next_line.setdefault((d.file, d.line + 1), k)
            elif d.kind == "disable":
                events.append((order(d.file, d.line), 1, k))
        events += [(order(e.file, e.line), 0, -1) for e in enables if any(matches(rule, s) for s in e.selectors)]
        events += [(order(findings[i].file, findings[i].line), 2, i) for i in indices]
        active = None
        for _, kind, k in sorted(events):
            if kind == 0:
                active = None                      # an enable ends every region open before it
            elif kind == 1:
                active = k if active is None else min(active, k)
            else:
                f = findings[k]
                found = [x for x in (ignore, active, next_line.get((f.file, f.line))) if x is not None]
                out[k] = min(found) if found else None
    return out


def apply(analysis, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    kept, suppressed = [], []
    directives = [d for d in analysis.suppressions if d.kind != "enable"]
    for f, k in zip(findings, _hits(analysis, findings, directives)):
        if k is None:
            kept.append(f)
        else:
            hit = directives[k]
            hit.used = True
            suppressed.append(replace(f, suppressed=hit.reason or "no reason given"))
    return kept + cap_per_rule_and_file(_meta_findings(analysis.suppressions)), suppressed


def _meta_findings(directives: list[Directive]):
    """Suppressions that name unknown rules or redirected codes, hide nothing, or hide everything
    without a reason."""
    known: dict[str, bool] = {}
    for d in directives:
        unknown = [s for s in d.selectors
                   if not known.setdefault(s, any(matches(r, s) for r in RULES))]
        if unknown:
            yield _meta(UNKNOWN_SUPPRESSION, f"suppression names unknown rule(s) {', '.join(unknown)}", d)
        elif d.kind != "enable" and not d.used:
            yield _meta(UNUSED_SUPPRESSION, f"suppression of {', '.join(d.selectors)} suppresses nothing", d)
        for note in filter(None, map(redirect_note, d.selectors)):
            yield _meta(REDIRECTED_SUPPRESSION, f"suppression {note}", d)
        if d.kind != "enable" and not d.reason and any(s.strip().upper() in BLANKET for s in d.selectors):
            yield _meta(BLANKET_SUPPRESSION, f"suppression of {', '.join(d.selectors)} gives no reason", d)


def _meta(rule: Rule, message: str, d: Directive) -> Finding:
    return Finding(rule.code, rule.name, None, rule.severity, message, rule.hint, d.file, d.line, d.col)
