"""Running a native parser on untrusted bytes in a child process with a memory and a time limit.

A 2 KB PDF whose page draws a form XObject ten times, which draws the next one ten times, six
levels deep, makes pdfium lay out 2.6 million characters (7 s, 1 GB); seven levels, ten times that.
The work happens inside pdfium, where Python cannot stop it, so it runs in a forked child under
RLIMIT_AS and a wall-clock limit. The child sends back plain JSON, never a pickle: a parser
exploited by its input cannot hand the parent an object to run.
"""
from __future__ import annotations

import json
import os
import resource
import select
import signal
import time


class Contained(Exception):
    """The child ran out of memory or time, or crashed: its input is refused."""


def _address_space() -> int:
    """This process's current virtual size in bytes (0 when /proc is not there)."""
    try:
        with open("/proc/self/statm", "rb") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _child(write_fd: int, func, args, memory: int) -> None:
    try:
        if _address_space():
            limit = _address_space() + memory
            resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
        outcome = ["ok", func(*args)]
    except MemoryError:
        outcome = ["memory", ""]
    except Exception as exc:  # noqa: BLE001 - the parent re-raises it by name
        outcome = ["error", f"{exc.__class__.__name__}\0{exc}"]
    with os.fdopen(write_fd, "wb") as fh:
        fh.write(json.dumps(outcome).encode())


def _read_all(fd: int, seconds: float) -> bytes:
    """Everything written to `fd` until the writer closes it; Contained after `seconds`."""
    deadline, chunks = time.monotonic() + seconds, []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise Contained(f"took more than {seconds:.0f} s")
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def contained(func, *args, memory: int, seconds: float, errors: tuple = ()):
    """func(*args) in a forked child; its result must be JSON data. An exception of a class in
    `errors` raised by func is raised again here (with its message); anything else is Contained.

    A plain fork, not multiprocessing: audit's workers are daemon processes, which
    multiprocessing does not let have children."""
    if not hasattr(os, "fork"):       # Windows: run here, unlimited
        return func(*args)
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:                      # the child: never returns into the caller's code
        try:
            os.close(read_fd)
            _child(write_fd, func, args, memory)
        finally:
            os._exit(0)
    os.close(write_fd)
    try:
        raw = _read_all(read_fd, seconds)
    finally:
        os.close(read_fd)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(pid, 0)
    try:
        kind, value = json.loads(raw)
    except ValueError:
        raise Contained("the reader stopped (out of memory, or crashed)") from None
    if kind == "memory":
        raise Contained(f"needed more than {memory // 2**20} MB of memory")
    if kind == "error":
        name, message = value.split("\0", 1)
        for cls in errors:
            if cls.__name__ == name:
                raise cls(message)
        raise Contained(f"the reader failed ({name}: {message[:200]})")
    return value
