"""Find the documents in a folder: main .tex files and camspec supplements."""
from __future__ import annotations

import os
import re
from pathlib import Path

from camlint.keys import KEYS

_DOCUMENTCLASS = re.compile(r"^[^%\n]*\\documentclass", re.M)
_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".hypothesis", "build", "dist"}
_SPEC_KEY = re.compile(r"^(camspec|" + "|".join(KEYS) + r")\s*:", re.M)
_HEAD_BYTES = 64 * 1024
_TEX_SUFFIXES = (".tex", ".ltx", ".latex")
_SPEC_SUFFIXES = (".yaml", ".yml", ".json")


def _head(path: Path, limit: int = _HEAD_BYTES) -> str:
    """The start of a regular file, decoded (UTF-16 with a BOM too); never blocks on a FIFO."""
    from camlint.latex.source import decode
    from camlint.safeio import read_regular

    try:
        return decode(read_regular(path, limit, truncate=True))
    except (OSError, ValueError):
        return ""


def is_main_tex(path: Path) -> bool:
    """A \\documentclass outside a comment, anywhere in the file (comments may fill 64 KB)."""
    from camlint.latex.source import MAX_FILE_BYTES

    return bool(_DOCUMENTCLASS.search(_head(path, MAX_FILE_BYTES)))


def is_camspec(path: Path) -> bool:
    """A YAML/JSON file whose top-level keys include the camspec version or checklist keys."""
    head = _head(path)
    if path.suffix == ".json":
        return '"camspec"' in head or sum(f'"{k}"' in head for k in KEYS) >= 3
    return len(set(m.group(1) for m in _SPEC_KEY.finditer(head))) >= 2 or bool(re.search(r"^camspec\s*:", head, re.M))


def documents_in(folder: Path) -> list[Path]:
    return scan_folder(folder)[0]


def scan_folder(folder: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """The documents in a folder, and every candidate file (or hidden folder) skipped, with why."""
    found: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    top = folder.resolve()
    for root, dirs, files in os.walk(folder):
        for d in sorted(dirs):
            if (Path(root) / d).is_symlink():
                skipped.append((Path(root) / d, "a link to a folder; not followed"))
            elif d.startswith(".") and d not in _SKIP_DIRS:
                skipped.append((Path(root) / d, "hidden folder, not searched"))
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            p = Path(root) / name
            suffix = p.suffix.lower()
            if suffix not in _TEX_SUFFIXES + _SPEC_SUFFIXES or (suffix in _SPEC_SUFFIXES and name.startswith(".")):
                continue
            why = _unreadable(p, top)
            if why:
                skipped.append((p, why))
            elif suffix in _TEX_SUFFIXES:
                if is_main_tex(p):
                    found.append(p)
                else:
                    skipped.append((p, "no \\documentclass: not a main file (read where a main file includes it)"))
            elif is_camspec(p):
                found.append(p)
            else:
                skipped.append((p, "not a camspec (no camspec: version or checklist keys at the top level)"))
    return found, skipped


def _unreadable(p: Path, top: Path) -> str:
    """Why a candidate file is not read at all ('' when it can be)."""
    import stat

    from camlint.latex.source import MAX_FILE_BYTES
    from camlint.safeio import inside

    try:
        if p.is_symlink() and not inside(p.resolve(), top):
            return "a link to a file outside the folder; not read"
        st = p.stat()
    except (OSError, RuntimeError) as exc:   # a broken or looping link
        return f"cannot be read ({getattr(exc, 'strerror', None) or exc})"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file (a FIFO, device or socket); not read"
    if st.st_size > MAX_FILE_BYTES:
        return f"{st.st_size / 1e6:.1f} MB, over the {MAX_FILE_BYTES / 1e6:.0f} MB limit; not read"
    return ""
