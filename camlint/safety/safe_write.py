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


def open_for_writing(path: Path, mode: str = "w", newline: str | None = None):
    """A file opened to write a stream into ("w", "a", or "r+b"), never through a link (O_NOFOLLOW),
    never a FIFO or device, never a file with another name elsewhere (a hard link): an output
    folder may hold what a submission planted there. Raises UnsafeTarget (nothing changed)."""
    import stat

    flags = os.O_RDWR if mode == "r+b" else os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else 0)
    flags |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafeTarget(f"{path} is a symbolic link; camlint never writes through a link") from None
        if exc.errno == getattr(__import__("errno"), "ENXIO", None):     # a FIFO nobody reads
            raise UnsafeTarget(f"{path} exists and is not a regular file") from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink > 1:
        os.close(fd)
        raise UnsafeTarget(f"{path} is not a regular file of its own (a device, FIFO or hard link); not written")
    if mode == "w":
        os.ftruncate(fd, 0)      # only now that it is known to be ours
    if mode == "r+b":
        return os.fdopen(fd, "rb+")
    return os.fdopen(fd, mode, encoding="utf-8", newline=newline)
