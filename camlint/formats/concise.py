"""One line per finding: `path:line:col: CODE message` (for editors and grep)."""
from __future__ import annotations


def render(reports, errors=(), **_) -> str:
    lines = [f"{e.where() or e.file}: error: {e.message}" for e in errors]
    for rep in reports:
        for f in rep.findings:
            lines.append(f"{_where(f)}: {f.code} [{f.severity}] {f.message}")
    return "\n".join(lines) + ("\n" if lines else "")


def _where(f) -> str:
    """`file:line:col`, or `main.pdf page 2 line 14` in a PDF (a line counted on its page)."""
    from camlint.rules.findings import location

    return location(f) if f.page else f"{f.file}:{f.line}:{f.col}"
