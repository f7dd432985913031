"""Reading a user-named input file safely: regular files only, bounded size, never blocking."""
from __future__ import annotations

import os
import stat
from pathlib import Path


def read_limited(path: Path, limit: int) -> bytes:
    """The file's bytes. Raises ValueError for a non-regular file or one over `limit` bytes."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))   # a FIFO must not block the open
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError("not a regular file")
        if st.st_size > limit:
            raise ValueError(f"file is {st.st_size / 1e6:.1f} MB, over the {limit / 1e6:.0f} MB limit")
        chunks, total = [], 0
        while total <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if total > limit:
            raise ValueError(f"file is over the {limit / 1e6:.0f} MB limit")
        return b"".join(chunks)
    finally:
        os.close(fd)
