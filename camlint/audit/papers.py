"""Which papers an audit covers: one primary document per paper, from folders, files or a manifest.

A folder that directly holds a document (as `camlint check` discovers them) is one paper; a
folder that does not (a venue's folder of submissions) holds one paper per such sub-folder, found
at any depth. Every other document of a paper's folder (\\subfile parts, included chapters) is
read through its primary document, which is `main.*` when there is one.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from camlint.check import display_path
from camlint.errors import InputError

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


def _documents(folder: Path) -> list[Path]:
    from camlint.discover import documents_in

    return documents_in(folder)


def _paper_folders(root: Path, docs: list[Path]) -> dict[Path, list[Path]]:
    """Paper folder (the shallowest folder under root that directly holds a document) -> its documents."""
    holders = {d.parent for d in docs}
    groups: dict[Path, list[Path]] = {}
    for d in docs:
        rel = d.parent.relative_to(root).parts
        chain = [root / Path(*rel[:i]) if i else root for i in range(len(rel) + 1)]
        folder = next(f for f in chain if f in holders)
        groups.setdefault(folder, []).append(d)
    return groups


def primary_document(folder: Path, docs: list[Path]) -> Path:
    """The document a paper is read through: a direct `main.*`, else the first direct one."""
    direct = sorted(d for d in docs if d.parent == folder) or sorted(docs)
    mains = [d for d in direct if d.stem.lower() == "main"]
    return (mains or direct)[0]


def resolve_folder(folder: Path) -> Path:
    """A manifest row naming a folder: the primary document of its shallowest paper."""
    docs = _documents(folder)
    if not docs:
        raise InputError("no manuscript or camspec file found in this folder", display_path(folder))
    groups = _paper_folders(folder, docs)
    top = min(groups, key=lambda f: (len(f.parts), str(f)))
    return primary_document(top, groups[top])


def papers_from_paths(paths: list[Path]) -> tuple[list[Paper], list[InputError]]:
    papers, errors = [], []
    for root in paths:
        if root.is_dir():
            docs = _documents(root)
            if not docs:
                errors.append(InputError("no manuscript or camspec file found", display_path(root)))
            for folder, group in sorted(_paper_folders(root, docs).items()):
                rel = folder.relative_to(root).as_posix()
                doc = primary_document(folder, group)
                papers.append(_paper(root.resolve().name if rel == "." else rel, doc))
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


def read_manifest(manifest: Path) -> list[Paper]:
    """CSV with a `path` column (relative to the manifest's folder) and any of id, venue, year, title."""
    shown = display_path(manifest)
    try:
        if manifest.stat().st_size > MAX_MANIFEST_BYTES:
            raise InputError(f"manifest larger than {MAX_MANIFEST_BYTES // 2**20} MiB", shown)
        text = manifest.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise InputError("manifest is not UTF-8 text", shown) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", shown) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
    except csv.Error as exc:
        raise InputError(f"not a CSV file: {exc}", shown, 1) from None
    if "path" not in header:
        raise InputError("the manifest needs a `path` column (optional: id, venue, year, title)", shown, 1)
    papers, seen = [], {}
    try:
        for raw in reader:
            papers.append(_manifest_row(raw, reader.line_num, manifest, shown, seen))
    except csv.Error as exc:
        raise InputError(f"not a CSV file: {exc}", shown, reader.line_num) from None
    return papers


def _manifest_row(raw: dict, line: int, manifest: Path, shown: str, seen: dict) -> Paper:
    row = {str(k).strip().lower(): v for k, v in raw.items() if k is not None and isinstance(v, str)}
    where = _cell(row, "path")
    if where is None:
        raise InputError("empty path", shown, line)
    pid = _cell(row, "id") or where
    if pid in seen:
        raise InputError(f"id {pid!r} already used on line {seen[pid]}", shown, line)
    seen[pid] = line
    year = _cell(row, "year")
    return _paper(pid, manifest.parent / where, venue=_cell(row, "venue"),
                  year=int(year) if year and year.isdigit() else year, title=_cell(row, "title"))
