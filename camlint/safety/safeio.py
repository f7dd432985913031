"""Reading untrusted files: only regular files, never more than a limit, never blocking.

A submission may hold a FIFO named `main.tex` (a plain open blocks forever), a link to
/dev/zero (a plain read never ends) or a file swapped for a link between a check and the open.
Every read of a submission's files goes through `read_regular`.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

from camlint.safety.paths import inside  # noqa: F401  (the one containment check; kept here for old imports)

CHUNK = 1 << 20


class NotRegularFile(ValueError):
    """The path names a FIFO, a device, a socket or a folder: it is never read."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not a regular file"


def read_regular(path: Path, limit: int, what: str = "file", truncate: bool = False) -> bytes:
    """The bytes of a regular file of at most `limit` bytes.

    Raises NotRegularFile for anything else, ValueError over the limit (unless `truncate`: then
    the first `limit` bytes), OSError when unreadable.
    The file is opened non-blocking and checked with fstat on the open descriptor (no race
    between the check and the read), then read in bounded chunks up to the limit.
    """
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{_kind(mode)}, not a regular {what}; not read")
        size = os.fstat(fd).st_size
        if size > limit and not truncate:
            raise ValueError(f"{what} is {size / 1e6:.1f} MB, over the {limit / 1e6:.0f} MB limit; not read")
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(CHUNK, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit and truncate:
                return b"".join(chunks)[:limit]
            if total > limit:
                raise ValueError(f"{what} is over the {limit / 1e6:.0f} MB limit; not read")
        return b"".join(chunks)
    finally:
        os.close(fd)
