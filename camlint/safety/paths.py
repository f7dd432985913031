"""The one path-containment check: a file named by untrusted input is read only when, with every
link followed, it lies in the folder the user named. Also how paths are shown in reports."""
from __future__ import annotations

import errno
import os
from pathlib import Path


class LinkLoop(OSError):
    """Links that point at each other in a loop: the path names no file."""

    def __init__(self, path: Path):
        super().__init__(errno.ELOOP, "a link that loops", str(path))


def inside(path: Path, root: Path) -> bool:
    """Whether `path` (already resolved) lies in the folder `root` (already resolved)."""
    try:
        path.relative_to(root)
        return True
    except ValueError:
        return False


def resolved_inside(path: Path, root: Path) -> Path | None:
    """`path` with every link followed, or None when that leaves the folder `root`.

    Raises LinkLoop when the links loop (Python 3.11 raises RuntimeError there, later ones OSError).
    A name no file can have (a NUL byte, from a spec's "\\0" escape; a name over the system's
    limits, on which a later is_file() raises) lies nowhere: None."""
    if "\0" in str(path):
        return None
    try:
        target, root = Path(path).resolve(), Path(root).resolve()
    except (OSError, RuntimeError):
        raise LinkLoop(path) from None
    if not _nameable(target):
        return None
    return target if inside(target, root) else None


NAME_MAX, PATH_MAX = 255, 4096     # bytes, as on Linux and macOS


def _nameable(path: Path) -> bool:
    return len(os.fsencode(str(path))) < PATH_MAX and all(len(os.fsencode(p)) <= NAME_MAX for p in path.parts)


def unnameable(path: Path) -> str | None:
    """Why no file can have this name (resolved_inside places such a name nowhere), else None."""
    if "\0" in str(path):
        return "holds a NUL byte, which no file name can"
    if not _nameable(Path(path)):
        return f"is longer than a file name or path may be ({NAME_MAX} bytes a name, {PATH_MAX} a path)"
    return None


def utf8_name(path) -> bool:
    """Whether the path is UTF-8 text: a name of other bytes comes back from the OS as lone
    surrogates that no report, cache key or JSON file can encode, so such a file is not read."""
    try:
        str(path).encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def display_path(path: Path) -> str:
    """Relative to the working directory when inside it (stable in CI logs and SARIF)."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel
