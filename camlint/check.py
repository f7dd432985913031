"""Check documents: pick the front end by file type, run the rules, collect reports."""
from __future__ import annotations

import errno
import os
from pathlib import Path

from camlint.rules.engine import report_of
from camlint.core.errors import InputError
from camlint.rules.findings import DocumentReport
from camlint.safety.paths import display_path, inside, utf8_name  # noqa: F401  (display_path: re-exported)
from camlint.inputs.camspec import SPEC_SUFFIXES, analyze_spec
from camlint.safety.yamlsafe import YAMLInputError

TEX_SUFFIXES = (".tex", ".ltx", ".latex")


def check_file(path: Path, *, spec: Path | None = None, config=None, display: str | None = None,
               main: str | None = None) -> DocumentReport:
    """`display`: the name to report (stdin); `main`: the main file inside an archive."""
    display = display or display_path(path)
    if not utf8_name(path):
        raise InputError("the file name is not UTF-8; not read (rename it)", display)
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise InputError("is a link that loops; not read", display) from None
    if not path.exists():
        raise InputError("no such file", display)
    if path.is_dir():
        raise InputError("is a folder (use camlint check DIR to check every document in it)", display)
    if not inside(path.resolve(), path.absolute().parent.resolve()):
        raise InputError("is a link to a file outside its folder; not read", display)
    suffix = path.suffix.lower()
    try:
        if suffix in SPEC_SUFFIXES:
            analysis = analyze_spec(path, display)
        elif suffix in TEX_SUFFIXES:
            from camlint.inputs.latex.analyze import analyze_latex  # keeps spec-only runs lighter

            analysis = analyze_latex(path, display, spec=spec)
        else:
            from camlint.inputs.frontends import check_document   # PDF, archives, Markdown, text
            from camlint.inputs.kinds import front_end_of

            if front_end_of(path) is None:
                raise InputError(f"unknown file type {suffix or '(none)'}: camlint reads .tex manuscripts, "
                                 ".yaml/.yml/.json camspec supplements, PDFs, .zip/.tar.gz/.tgz/.tar "
                                 "archives, Markdown and .txt", display)
            return check_document(path, display, spec=spec, config=config, main=main)
    except YAMLInputError as exc:
        raise InputError(exc.message, display, exc.line, exc.col) from None
    except PermissionError:
        raise InputError("permission denied", display) from None
    except IsADirectoryError:
        raise InputError("is a folder", display) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", display) from None
    return report_of(analysis, config)

