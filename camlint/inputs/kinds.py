"""Which front end reads a file, by its name; and the front ends' names in words."""
from __future__ import annotations

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
