"""JUnit XML: one test case per checklist key per document (failed when a finding flags it)."""
from __future__ import annotations

import xml.etree.ElementTree as ET

from camlint.display import short_value
from camlint.keys import KEYS, NOT_APPLICABLE


def render(reports, errors=(), **_) -> str:
    suites = ET.Element("testsuites", name="camlint")
    for rep in reports:
        by_key: dict[str, list] = {}
        for f in rep.findings:
            by_key.setdefault(f.item or "document", []).append(f)
        suite = ET.SubElement(suites, "testsuite", name=rep.path)
        failures = skipped = 0
        for key in [*KEYS, "document"]:
            case = ET.SubElement(suite, "testcase", classname=rep.path, name=key)
            entry = rep.checklist.get(key)
            findings = by_key.get(key, [])
            if findings:
                failures += 1
                first = findings[0]
                fail = ET.SubElement(case, "failure", message=f"{first.code} {first.message}", type=first.code)
                fail.text = "\n".join(f"{f.file}:{f.line}:{f.col}: {f.code} [{f.severity}] {f.message}\n"
                                      f"  hint: {f.hint}" for f in findings)
            elif entry is not None and entry.status == NOT_APPLICABLE:
                skipped += 1
                ET.SubElement(case, "skipped", message="not applicable")
            if entry is not None:
                out = ET.SubElement(case, "system-out")
                out.text = f"{entry.status}: {short_value(entry.value, 200)}"
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
