"""The JSON contract (README): stable keys that other tools and our benchmarks parse."""
from __future__ import annotations

import json
import re

from camlint import __version__


def payload(reports, errors=()) -> dict:
    out = {"camlint_version": __version__, "documents": [r.to_json() for r in reports]}
    if errors:
        out["errors"] = [e.to_json() for e in errors]
    return out


# json escapes C0 controls itself; C1 controls (a lone 0x9b starts a terminal sequence), DEL and
# bidirectional overrides are escaped too, so that `cat report.json` cannot drive a terminal
_UNSAFE = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def terminal_safe(text: str) -> str:
    """JSON text with the characters above escaped (every JSON output of camlint goes through it)."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def render(reports, errors=(), **_) -> str:
    return terminal_safe(json.dumps(payload(reports, errors), indent=2, ensure_ascii=False)) + "\n"
