"""Front ends for what reviewers and authors hold besides LaTeX sources: PDF, archives, Markdown, text.

Each reads its input into the LaTeX front end's document model (camlint.inputs.model) and goes
through the same analysis (camlint.inputs.latex.analyze.analyze_units), so every extraction
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


def discovered(path: Path) -> bool:
    """Folder mode: a PDF, archive, Markdown or text file worth checking (it mentions a CAM method).

    A PDF next to a main .tex of the same name is that manuscript's output and is skipped; an
    archive is a submission and always checked. Unreadable files are left to `check` to report.
    """
    kind = front_end_of(path)
    if kind is None or path.is_symlink() or not path.is_file():
        return False
    if kind == "archive":
        return True
    if kind == "pdf" and path.with_suffix(".tex").is_file():
        return False
    try:
        text = _text_of(path, kind)
    except Exception:   # noqa: BLE001 - a damaged file: let `check` give the clear message
        return True
    return mentions_cam_method(text)


def mentions_cam_method(text: str) -> bool:
    """The text names a CAM method (Grad-CAM, Score-CAM, ...; the vocabulary's method entries)."""
    from camlint.extract import _cam_method_pattern
    from camlint.extract.vocab import low, vocabulary

    return bool(_cam_method_pattern(vocabulary()).search(low(text)))


def _text_of(path: Path, kind: str) -> str:
    from camlint.inputs.textfile import read_limited

    if kind == "pdf":
        from camlint.inputs.pdf import normalize
        from camlint.inputs.pdflayout import MAX_PDF_BYTES, read_pages

        return "\n".join(normalize(ln.text) for p in read_pages(read_limited(path, MAX_PDF_BYTES)) for ln in p.lines)
    from camlint.inputs.markdown import MAX_BYTES
    from camlint.inputs.latex.source import decode

    return decode(read_limited(path, MAX_BYTES))


def describe(kind: str) -> str:
    """The front end that read a document, in words (`archive:latex` -> `LaTeX in an archive`)."""
    outer, _, inner = kind.partition(":")
    if outer == "archive":
        return f"{FRONT_END_NAMES.get(inner, inner)} in an archive"
    return FRONT_END_NAMES.get(kind, kind)


def check_document(path: Path, display: str, *, spec: Path | None = None, config=None, main: str | None = None):
    """Read `path` with its front end and run the rules (a DocumentReport)."""
    from camlint.rules.engine import report_of

    from camlint.core.errors import InputError

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
    from camlint.core.errors import InputError

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
