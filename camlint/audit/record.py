"""One paper -> one JSON record (a line of the store), read exactly as `camlint check` reads it.

The audit applies every rule with no configuration: a paper's own camlint configuration or
suppression comments cannot take it out of a venue's audit.
"""
from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from camlint.audit.papers import Paper, confined_path, resolve_folder
from camlint.check import check_file
from camlint.core.errors import InputError
from camlint.core.keys import KEYS, REPORTED
from camlint.rules import citation
from camlint.rules.citation import ADAPTATION_KEYS

OK, UNREADABLE, ERROR, CRASHED, TIMEOUT = "ok", "unreadable", "error", "crashed", "timeout"
OUTCOMES = (OK, UNREADABLE, ERROR, CRASHED, TIMEOUT)
FAILED = (ERROR, CRASHED, TIMEOUT)          # camlint's fault or a hostile input; unreadable is the input's

# The audit's three groups (shared/taxonomy.md) and the rest, for papers using CAM on a transformer.
CNN_ONLY, LIBRARY_ONLY, JUSTIFIED, UNEXPLAINED = "cnn_only", "library_only", "justified", "unexplained"
CITATIONS = (CNN_ONLY, LIBRARY_ONLY, JUSTIFIED, UNEXPLAINED)
CITATION_LABELS = {
    CNN_ONLY: "cites only CNN Grad-CAM variants, no adaptation described",
    LIBRARY_ONLY: "points only to a code library, no adaptation described",
    JUSTIFIED: "describes its adaptation or cites a published one",
    UNEXPLAINED: "no adaptation described, no CNN paper or library cited",
}
CITES_ONLY_CNN, CODE_POINTER_ONLY = citation.CITES_ONLY_CNN_GRADCAM.code, citation.CODE_POINTER_ONLY.code


def base_record(paper: Paper) -> dict:
    return {"id": paper.id, "path": paper.display, "venue": paper.venue, "year": paper.year,
            "title": paper.title, "outcome": OK, "error": None, "document": None, "front_end": None,
            "uses_cam_on_transformer": None, "status": None, "citation": None, "presets": [],
            "findings": {}, "details": [], "seconds": 0.0}


def failed_record(paper: Paper, outcome: str, message: str, seconds: float = 0.0) -> dict:
    return {**base_record(paper), "outcome": outcome, "error": message, "seconds": round(seconds, 3)}


def citation_category(status: dict, codes, presets) -> str:
    """Which of the audit's groups a CAM-on-transformer paper falls in (CAM401/CAM402 decide a and b).

    Describing the adaptation (location, tokens or grid reported) or following a published one
    comes first, as in CAM401's own test; a paper that both cites the CNN paper and names a
    library counts as citing the CNN paper, its stated justification."""
    if presets or any(status.get(k) == REPORTED for k in ADAPTATION_KEYS):
        return JUSTIFIED
    if CITES_ONLY_CNN in codes:
        return CNN_ONLY
    if CODE_POINTER_ONLY in codes:
        return LIBRARY_ONLY
    return UNEXPLAINED


def document_fields(report) -> dict:
    """The part of a paper's record that comes from its document (what the result cache keeps)."""
    status = {k: report.checklist[k].status for k in KEYS}
    codes = Counter(f.code for f in report.findings)
    uses = bool(report.uses_cam_on_transformer)
    presets = list(getattr(report, "presets", []) or [])
    return {"document": report.path, "front_end": report.kind,
            "uses_cam_on_transformer": uses, "status": status,
            "citation": citation_category(status, codes, presets) if uses else None,
            "presets": presets if uses else [], "findings": dict(sorted(codes.items())),
            "details": [[f.code, f.severity, f.file, f.line, f.message] for f in report.findings]}


def record_of(paper: Paper, report, seconds: float) -> dict:
    return {**base_record(paper), **document_fields(report), "seconds": round(seconds, 3)}


def _checked(target: Path) -> dict:
    """The document fields of a paper (a document, or a folder resolved to its primary document):
    from the result cache when nothing in its folder changed."""
    from camlint.audit.resultcache import result_cache

    cache = result_cache()
    key = cache.key(target) if cache is not None else None
    fields = cache.get(target, key) if key is not None else None
    if fields is None:
        path = resolve_folder(target) if target.is_dir() else target
        fields = document_fields(check_file(path, config=None))
        if key is not None:
            cache.put(target, key, fields)
    return fields


def _confined(paper: Paper) -> Path:
    """The paper's path, checked again here: a folder swapped for a link out after the manifest
    was read is not followed."""
    path = Path(paper.path)
    if paper.root is not None and confined_path(path, Path(paper.root)) is None:
        raise InputError(f"lies outside {paper.root} (a link out); not read", paper.display)
    return path


def audit_paper(paper: Paper) -> dict:
    """Never raises: an unreadable input or a bug on this paper becomes the paper's record."""
    start = time.perf_counter()
    try:
        fields = _checked(_confined(paper))
    except InputError as exc:
        return failed_record(paper, UNREADABLE, str(exc), time.perf_counter() - start)
    except RecursionError:
        return failed_record(paper, ERROR, "RecursionError: nesting too deep", time.perf_counter() - start)
    except Exception as exc:  # noqa: BLE001 - one paper's bug must not stop a venue's audit
        return failed_record(paper, ERROR, f"{type(exc).__name__}: {exc}", time.perf_counter() - start)
    return {**base_record(paper), **fields, "seconds": round(time.perf_counter() - start, 3)}
