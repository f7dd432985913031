"""Inline suppressions: `% camlint: disable=CAM105 -- reason` (to the end, or until enable),
`% camlint: disable-next-line=CAM105 -- reason`, `% camlint: enable=CAM105`, and in YAML
supplements an `x-camlint-ignore` list. Suppressions that match nothing are reported."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from camlint.config import matches
from camlint.findings import Finding

DIRECTIVE = re.compile(r"camlint:\s*(disable-next-line|disable|enable)\s*=\s*([A-Za-z0-9_,\- ]+?)"
                       r"\s*(?:--\s*(.*))?$")
UNUSED_CODE, UNKNOWN_CODE = "CAM006", "CAM007"


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
    m = DIRECTIVE.search(comment.strip())
    if not m:
        return None
    selectors = [s.strip() for s in m.group(2).split(",") if s.strip()]
    return Directive(m.group(1), selectors, (m.group(3) or "").strip(), file, line, col)


def parse_ignore_entry(entry: str, file: str, line: int, col: int) -> Directive:
    code, _, reason = str(entry).partition("--")
    return Directive("ignore", [s.strip() for s in code.split(",") if s.strip()], reason.strip(), file, line, col)


def _covers(d: Directive, f: Finding, analysis, rule) -> bool:
    if not any(matches(rule, s) for s in d.selectors):
        return False
    if d.kind == "ignore":
        return True
    if d.kind == "disable-next-line":
        return f.file == d.file and f.line == d.line + 1
    if d.kind != "disable":
        return False
    start = analysis.order(d.file, d.line)
    pos = analysis.order(f.file, f.line)
    if pos < start:
        return False
    for e in analysis.suppressions:   # an enable between the disable and the finding ends it
        if e.kind == "enable" and any(matches(rule, s) for s in e.selectors):
            if start < analysis.order(e.file, e.line) <= pos:
                return False
    return True


def apply(analysis, findings: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    from camlint.rules import BY_CODE, RULES

    kept, suppressed = [], []
    directives = [d for d in analysis.suppressions if d.kind != "enable"]
    for f in findings:
        rule = BY_CODE.get(f.code)
        hit = next((d for d in directives if rule is not None and _covers(d, f, analysis, rule)), None)
        if hit is None:
            kept.append(f)
        else:
            hit.used = True
            suppressed.append(replace(f, suppressed=hit.reason or "no reason given"))
    meta = []
    for d in analysis.suppressions:
        unknown = [s for s in d.selectors if not any(matches(r, s) for r in RULES)]
        if unknown:
            meta.append(_meta(UNKNOWN_CODE, f"suppression names unknown rule(s) {', '.join(unknown)}", d))
        elif d.kind != "enable" and not d.used:
            meta.append(_meta(UNUSED_CODE, f"suppression of {', '.join(d.selectors)} suppresses nothing", d))
    return kept + meta, suppressed


def _meta(code: str, message: str, d: Directive) -> Finding:
    from camlint.rules import BY_CODE

    rule = BY_CODE[code]
    return Finding(code, rule.name, None, rule.severity, message, rule.hint, d.file, d.line, d.col)
