"""GitLab Code Quality report (JSON array of issues)."""
from __future__ import annotations

import json

from camlint.formats.sarif import fingerprint

SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def render(reports, errors=(), **_) -> str:
    issues, seen = [], {}
    for rep in reports:
        for f in rep.findings:
            base = (f.code, f.item, f.section, f.file)
            seen[base] = seen.get(base, -1) + 1
            issues.append({
                "description": f"{f.code} {f.message}",
                "check_name": f"{f.code} {f.name}",
                "fingerprint": fingerprint(f, seen[base]),
                "severity": SEVERITY[f.severity],
                "categories": ["Documentation"],
                "location": {"path": f.file, "lines": {"begin": max(f.line, 1)}},
            })
    for e in errors:
        issues.append({"description": e.message, "check_name": "camlint input", "severity": "blocker",
                       "fingerprint": fingerprint(type("E", (), {"code": "INPUT", "item": None, "section": "",
                                                                 "file": e.file})(), 0),
                       "location": {"path": e.file, "lines": {"begin": max(e.line, 1)}}})
    return json.dumps(issues, indent=2) + "\n"
