"""GitLab Code Quality report (JSON array of issues)."""
from __future__ import annotations

import json

from camlint.formats.sarif import fingerprint, fingerprinted

SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def render(reports, errors=(), **_) -> str:
    issues = [{
        "description": f"{f.code} {f.message}",
        "check_name": f"{f.code} {f.name}",
        "fingerprint": print_,
        "severity": SEVERITY[f.severity],
        "categories": ["Documentation"],
        "location": {"path": f.file, "lines": {"begin": max(f.line, 1)}},
    } for _, f, print_ in fingerprinted(reports)]
    for e in errors:
        issues.append({"description": e.message, "check_name": "camlint input", "severity": "blocker",
                       "fingerprint": fingerprint(type("E", (), {"code": "INPUT", "item": None, "section": "",
                                                                 "file": e.file})(), 0),
                       "location": {"path": e.file, "lines": {"begin": max(e.line, 1)}}})
    return json.dumps(issues, indent=2) + "\n"
