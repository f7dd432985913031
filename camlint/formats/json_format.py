"""The JSON contract (README): stable keys that other tools and our benchmarks parse."""
from __future__ import annotations

import json

from camlint import __version__


def payload(reports, errors=()) -> dict:
    out = {"camlint_version": __version__, "documents": [r.to_json() for r in reports]}
    if errors:
        out["errors"] = [e.to_json() for e in errors]
    return out


def render(reports, errors=(), **_) -> str:
    return json.dumps(payload(reports, errors), indent=2, ensure_ascii=False) + "\n"
