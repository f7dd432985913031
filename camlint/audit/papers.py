"""Which papers an audit covers: one primary document per paper, from folders, files or a manifest.

A folder whose own documents (as `camlint check` discovers them) include a `main.*`, or only one
manuscript, is one paper, read through that document: its \\subfile parts, chapters and
supplements are not counted again. A folder of several manuscripts with no `main.*` (a flat
folder of single-file papers or PDFs) holds one paper per document; a folder with none (a
venue's folder of submissions) is looked into, at any depth.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from camlint.check import display_path
from camlint.core.errors import InputError

MANIFEST_COLUMNS = ("path", "id", "venue", "year", "title")
MAX_MANIFEST_BYTES = 64 * 1024 * 1024


@dataclass(frozen=True)
class Paper:
    id: str                     # unique within a run: the resume key, the --truth label key
    path: str                   # absolute path of the primary document (or of a folder to resolve)
    display: str                # how the path is shown (relative to the working directory)
    venue: str | None = None
    year: int | str | None = None
    title: str | None = None
    root: str | None = None     # the folder the paper must lie in (checked again by the worker)


def _documents(folder: Path) -> list[Path]:
    from camlint.cli.discover import documents_in

    return documents_in(folder)


def _is_one_paper(direct: list[Path], papers_below: bool) -> bool:
    """A folder's own documents make one paper when one of them is `main.*`, or when only one is a
    manuscript and no sub-folder holds documents (a README beside paper folders is not their paper)."""
    from camlint.inputs.camspec import SPEC_SUFFIXES

    manuscripts = [d for d in direct if d.suffix.lower() not in SPEC_SUFFIXES]
    if any(d.stem.lower() == "main" for d in direct):
        return True
    return not papers_below and (len(manuscripts) == 1 or len(direct) == 1)


def paper_units(folder: Path, docs: list[Path]) -> list[tuple[Path, list[Path]]]:
    """(paper, its documents) under `folder`: a folder whose own documents make one paper is one
    paper with everything below it; otherwise each of its own documents is a paper (a flat folder
    of single-file manuscripts or PDFs) and each sub-folder is looked at the same way."""
    direct = sorted(d for d in docs if d.parent == folder)
    if direct and _is_one_paper(direct, len(direct) < len(docs)):
        return [(folder, docs)]
    out: list[tuple[Path, list[Path]]] = [(d, [d]) for d in direct]
    below: dict[Path, list[Path]] = {}
    for d in docs:
        if d.parent != folder:
            below.setdefault(folder / d.relative_to(folder).parts[0], []).append(d)
    for sub in sorted(below):
        out.extend(paper_units(sub, below[sub]))
    return out


def primary_document(unit: Path, docs: list[Path]) -> Path:
    """The document a paper is read through: a direct `main.*`, else the first manuscript, else the first."""
    from camlint.inputs.camspec import SPEC_SUFFIXES

    if unit.is_file():
        return unit
    direct = sorted(d for d in docs if d.parent == unit) or sorted(docs)
    mains = [d for d in direct if d.stem.lower() == "main"]
    manuscripts = [d for d in direct if d.suffix.lower() not in SPEC_SUFFIXES]
    return (mains or manuscripts or direct)[0]


def resolve_folder(folder: Path) -> Path:
    """A manifest row naming a folder: the primary document of its first paper."""
    docs = _documents(folder)
    if not docs:
        raise InputError("no manuscript or camspec file found in this folder", display_path(folder))
    unit, group = paper_units(folder, docs)[0]
    return primary_document(unit, group)


def papers_from_paths(paths: list[Path]) -> tuple[list[Paper], list[InputError]]:
    papers, errors = [], []
    for root in paths:
        if root.is_dir():
            docs = _documents(root)
            if not docs:
                errors.append(InputError("no manuscript or camspec file found", display_path(root)))
            for unit, group in paper_units(root, docs) if docs else []:
                rel = unit.relative_to(root).as_posix()
                papers.append(_paper(root.resolve().name if rel == "." else rel, primary_document(unit, group),
                                     root=str(root.resolve())))
        elif root.exists():
            papers.append(_paper(root.name, root))
        else:
            errors.append(InputError("no such file or folder", display_path(root)))
    return _unique(papers), errors


def _paper(pid: str, path: Path, **meta) -> Paper:
    return Paper(id=pid, path=str(path.resolve()), display=display_path(path), **meta)


def _unique(papers: list[Paper]) -> list[Paper]:
    """Ids from two roots may clash (two folders both called `dev`): suffix the later ones."""
    seen: dict[str, int] = {}
    out = []
    for p in papers:
        n = seen.get(p.id, 0)
        seen[p.id] = n + 1
        out.append(p if n == 0 else Paper(**{**p.__dict__, "id": f"{p.id}#{n + 1}"}))
    return out


def _cell(row: dict, name: str) -> str | None:
    value = (row.get(name) or "").strip()
    return value or None


def read_manifest(manifest: Path, root: Path | None = None) -> tuple[list[Paper], list[InputError]]:
    """CSV with a `path` column (relative to the manifest's folder) and any of id, venue, year, title.

    Rows are confined to `root` (default: the manifest's folder): a row whose path, every link
    followed, leaves it is an error at its line and is not audited; the other rows are."""
    shown = display_path(manifest)
    reader = csv.DictReader(io.StringIO(_manifest_text(manifest, shown), newline=""))
    try:
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
    except csv.Error as exc:
        raise InputError(f"not a CSV file: {exc}", shown, 1) from None
    if "path" not in header:
        raise InputError("the manifest needs a `path` column (optional: id, venue, year, title)", shown, 1)
    confine = (root or manifest.parent).resolve()
    papers, errors, seen = [], [], {}
    try:
        for raw in reader:
            try:
                papers.append(_manifest_row(raw, reader.line_num, manifest, shown, seen, confine))
            except RowOutside as exc:
                errors.append(exc)
    except csv.Error as exc:
        raise InputError(f"not a CSV file: {exc}", shown, reader.line_num) from None
    return papers, errors


def _manifest_text(manifest: Path, shown: str) -> str:
    from camlint.safety.safeio import read_regular

    try:
        return read_regular(manifest, MAX_MANIFEST_BYTES, "manifest").decode("utf-8-sig")   # never blocks on a FIFO
    except UnicodeDecodeError:
        raise InputError("manifest is not UTF-8 text", shown) from None
    except ValueError as exc:      # a FIFO, a device, a folder, or over the limit
        raise InputError(str(exc), shown) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", shown) from None


class RowOutside(InputError):
    """A manifest row naming a path outside the folder the audit is confined to (that row only)."""


def confined_path(path: Path, root: Path) -> Path | None:
    """`path` with every link followed when it lies in `root`, else None (a link loop too)."""
    from camlint.safety.paths import LinkLoop, resolved_inside

    try:
        return resolved_inside(path, root)
    except LinkLoop:
        return None


def _manifest_row(raw: dict, line: int, manifest: Path, shown: str, seen: dict, root: Path) -> Paper:
    row = {str(k).strip().lower(): v for k, v in raw.items() if k is not None and isinstance(v, str)}
    where = _cell(row, "path")
    if where is None:
        raise InputError("empty path", shown, line)
    pid = _cell(row, "id") or where
    if pid in seen:
        raise InputError(f"id {pid!r} already used on line {seen[pid]}", shown, line)
    seen[pid] = line
    if confined_path(manifest.parent / where, root) is None:
        raise RowOutside(f"path {where!r} lies outside {display_path(root)} (absolute, '..' or a link out, "
                         "or a link that loops); row not audited (--root DIR names a wider folder)", shown, line)
    year = _cell(row, "year")
    return _paper(pid, manifest.parent / where, venue=_cell(row, "venue"), root=str(root),
                  year=_year(year), title=_cell(row, "title"))


def _year(cell: str | None) -> int | str | None:
    """A year of ASCII digits as a number; other text as written (`²` and 5,000-digit years are
    digits to str.isdigit, and int() raised on them: an internal error)."""
    return int(cell) if cell and len(cell) <= 6 and cell.isascii() and cell.isdigit() else cell
