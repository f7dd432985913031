"""Writing files the user asked for, safely: never through a link, never half-written.

A paper folder may ship a symlink where camlint is about to write (camspec.yaml -> ~/.bashrc);
writing through it would change a file outside the folder. The data goes to a temporary file in
the same folder, which then replaces the target in one step (os.replace renames the link itself,
never its target).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


class UnsafeTarget(Exception):
    """The target is a link or not a regular file: nothing was written."""


def refuse_link(path: Path) -> None:
    if path.is_symlink():
        raise UnsafeTarget(f"{path} is a symbolic link; camlint never writes through a link")
    if path.exists() and not path.is_file():
        raise UnsafeTarget(f"{path} exists and is not a regular file")


def write_atomic(path: Path, data: bytes | str) -> None:
    """Write `data` to `path` via a temporary file in the same folder and os.replace."""
    refuse_link(path)
    if isinstance(data, str):
        data = data.encode("utf-8")
    folder = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        refuse_link(path)    # checked again just before the rename
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
