"""Front ends for what reviewers and authors hold besides LaTeX sources: PDF, archives, Markdown, text.

Each reads its input into the LaTeX front end's document model (camlint.inputs.model) and goes
through the same analysis (camlint.latex.analyze.analyze_units), so every extraction
improvement applies to every input. This module only dispatches and stays light: the PDF
library is imported when a PDF is read, never for a LaTeX check.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

PDF_SUFFIXES = (".pdf",)
MARKDOWN_SUFFIXES = (".md", ".markdown")
TEXT_SUFFIXES = (".txt",)
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
FRONT_END_NAMES = {"latex": "LaTeX", "spec": "camspec", "pdf": "PDF", "markdown": "Markdown", "text": "plain text"}


def front_end_of(path: Path) -> str | None:
    """pdf | archive | markdown | text, or None for a type no front end here reads."""
    name = path.name.lower()
    if name.endswith(PDF_SUFFIXES):
        return "pdf"
    if name.endswith(ARCHIVE_SUFFIXES):
        return "archive"
    if name.endswith(MARKDOWN_SUFFIXES):
        return "markdown"
    if name.endswith(TEXT_SUFFIXES):
        return "text"
    return None


def describe(kind: str) -> str:
    """The front end that read a document, in words (`archive:latex` -> `LaTeX in an archive`)."""
    outer, _, inner = kind.partition(":")
    if outer == "archive":
        return f"{FRONT_END_NAMES.get(inner, inner)} in an archive"
    return FRONT_END_NAMES.get(kind, kind)


def check_document(path: Path, display: str, *, spec: Path | None = None, config=None, main: str | None = None):
    """Read `path` with its front end and run the rules (a DocumentReport)."""
    from camlint.engine import report_of

    from camlint.errors import InputError

    kind = front_end_of(path)
    if kind == "archive":
        from camlint.inputs.archive import check_archive

        try:
            return check_archive(path, display, spec=spec, config=config, main=main)
        except ValueError as exc:          # not a regular file, over the size limit
            raise InputError(str(exc), display) from None
    analysis = analyze(path, display, kind, spec=spec)
    return paginate(report_of(analysis, config), analysis)


def analyze(path: Path, display: str, kind: str, spec: Path | None = None, data: bytes | None = None):
    from camlint.errors import InputError

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
