"""Read a PDF, Markdown or text file into an Analysis; PDF positions back to page and line.

The PDF library is imported when a PDF is read, never for a LaTeX check.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from camlint.core.errors import InputError


def analyze(path: Path, display: str, kind: str, spec: Path | None = None, data: bytes | None = None):
    try:
        if kind == "pdf":
            from camlint.inputs.pdf import analyze_pdf

            return analyze_pdf(path, display, spec=spec, data=data)
        from camlint.inputs.markdown import analyze_markdown

        return analyze_markdown(path, display, spec=spec, plain=kind == "text", data=data)
    except ValueError as exc:
        raise InputError(str(exc), display) from None


def paginate(report, analysis):
    """PDFs: evidence and findings in the PDF say page N line L instead of a line of the whole text."""
    if not analysis.page_lines:
        return report
    from camlint.inputs.pdf import page_line

    def moved(item):
        if item.file != analysis.path:
            return item
        page, line = page_line(analysis.page_lines, item.line)
        return replace(item, page=page, line=line)

    for entry in report.checklist.values():
        entry.evidence = [moved(e) for e in entry.evidence]
    report.findings = [moved(f) for f in report.findings]
    report.suppressed = [moved(f) for f in report.suppressed]
    return report
