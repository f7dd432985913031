"""One line per finding: `path:line:col: CODE message` (for editors and grep)."""
from __future__ import annotations


def render(reports, errors=(), **_) -> str:
    lines = [f"{e.where() or e.file}: error: {e.message}" for e in errors]
    for rep in reports:
        for f in rep.findings:
            lines.append(f"{f.file}:{f.line}:{f.col}: {f.code} [{f.severity}] {f.message}")
    return "\n".join(lines) + ("\n" if lines else "")
