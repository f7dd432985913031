"""Dispatch a document to its front end (PDF, archive, Markdown, text) and run the rules.

Each front end reads its input into the LaTeX front end's document model (camlint.inputs.model)
and goes through the same analysis, so every extraction improvement applies to every input.
"""
from __future__ import annotations

from pathlib import Path

from camlint.core.errors import InputError
from camlint.extract import _cam_method_pattern
from camlint.extract.vocab import vocabulary
from camlint.core.wording import low
from camlint.inputs.kinds import front_end_of
from camlint.inputs.latex.source import decode
from camlint.inputs.markdown import MAX_BYTES
from camlint.inputs.readers import analyze, paginate
from camlint.inputs.textfile import read_limited
from camlint.rules.engine import report_of


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
    return bool(_cam_method_pattern(vocabulary()).search(low(text)))


def _text_of(path: Path, kind: str) -> str:
    if kind == "pdf":
        from camlint.inputs.pdf import normalize
        from camlint.inputs.pdflayout import MAX_PDF_BYTES, read_pages

        return "\n".join(normalize(ln.text) for p in read_pages(read_limited(path, MAX_PDF_BYTES)) for ln in p.lines)
    return decode(read_limited(path, MAX_BYTES))


def check_document(path: Path, display: str, *, spec: Path | None = None, config=None, main: str | None = None):
    """Read `path` with its front end and run the rules (a DocumentReport)."""
    kind = front_end_of(path)
    if kind == "archive":
        from camlint.inputs.archive import check_archive

        try:
            return check_archive(path, display, spec=spec, config=config, main=main)
        except ValueError as exc:          # not a regular file, over the size limit
            raise InputError(str(exc), display) from None
    analysis = analyze(path, display, kind, spec=spec)
    return paginate(report_of(analysis, config), analysis)


