"""JUnit XML: one test case per checklist key per document.

A test case fails only for what fails the gate (findings at or above --fail-on); findings
below it are recorded in the case's output without failing it, so CI dashboards agree with
the exit status.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

from camlint.core.display import short_value
from camlint.rules.findings import SEVERITY_RANK
from camlint.core.keys import KEYS, NOT_APPLICABLE


def _line(f) -> str:
    return f"{_where(f)}: {f.code} [{f.severity}] {f.message}\n  hint: {f.hint}"


def _case(suite, rep, key: str, findings: list, fail_on: str) -> tuple[bool, bool]:
    """One test case; (failed, skipped)."""
    case = ET.SubElement(suite, "testcase", classname=rep.path, name=key)
    entry = rep.checklist.get(key)
    failing = [f for f in findings if SEVERITY_RANK[f.severity] >= SEVERITY_RANK[fail_on]]
    below = [f for f in findings if f not in failing]
    skipped = not findings and entry is not None and entry.status == NOT_APPLICABLE
    if failing:
        first = failing[0]
        fail = ET.SubElement(case, "failure", message=f"{first.code} {first.message}", type=first.code)
        fail.text = "\n".join(_line(f) for f in failing)
    elif skipped:
        ET.SubElement(case, "skipped", message="not applicable")
    out = [f"{entry.status}: {short_value(entry.value, 200)}"] if entry is not None else []
    if below:
        out.append(f"findings below --fail-on {fail_on} (not failing):")
        out += [_line(f) for f in below]
    if out:
        ET.SubElement(case, "system-out").text = "\n".join(out)
    return bool(failing), skipped


def render(reports, errors=(), *, fail_on=None, **_) -> str:
    """`fail_on`: the gate's severity, one for all or {document path: severity} (default error)."""
    suites = ET.Element("testsuites", name="camlint")
    for rep in reports:
        level = (fail_on.get(rep.path, "error") if isinstance(fail_on, dict) else fail_on) or "error"
        by_key: dict[str, list] = {}
        for f in rep.findings:
            by_key.setdefault(f.item or "document", []).append(f)
        suite = ET.SubElement(suites, "testsuite", name=rep.path)
        failures = skipped = 0
        for key in [*KEYS, "document"]:
            failed, skip = _case(suite, rep, key, by_key.get(key, []), level)
            failures += failed
            skipped += skip
        suite.set("tests", str(len(KEYS) + 1))
        suite.set("failures", str(failures))
        suite.set("skipped", str(skipped))
        suite.set("errors", "0")
    for e in errors:
        suite = ET.SubElement(suites, "testsuite", name=e.file or "input", tests="1", failures="0", errors="1")
        case = ET.SubElement(suite, "testcase", classname=e.file or "input", name="read")
        ET.SubElement(case, "error", message=e.message).text = str(e)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"


def _where(f) -> str:
    """`file:line:col`, or `main.pdf page 2 line 14` in a PDF (a line counted on its page)."""
    from camlint.rules.findings import location

    return location(f) if f.page else f"{f.file}:{f.line}:{f.col}"
