"""The progress line: papers done, rate, ETA, failures so far (stderr; rewritten in place on a terminal)."""
from __future__ import annotations

import sys
import time

from camlint.audit.record import FAILED


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class Progress:
    def __init__(self, total: int, *, skipped: int = 0, stream=None, every: float | None = None):
        self.total, self.skipped = total, skipped
        self.stream = stream or sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = every if every is not None else (0.2 if self.tty else 10.0)
        self.done = self.failed = self.unreadable = 0
        self.start = time.monotonic()
        self._last = 0.0

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.start, 1e-9)
        rate = self.done / elapsed
        left = self.total - self.done
        eta = _clock(left / rate) if rate > 0 else "?"
        resumed = f" ({self.skipped} already done)" if self.skipped else ""
        return (f"audit: {self.done}/{self.total} papers{resumed}, {rate:.1f}/s, ETA {eta}, "
                f"{self.failed} failed, {self.unreadable} unreadable")

    def advance(self, record: dict) -> None:
        self.done += 1
        if record.get("outcome") in FAILED:
            self.failed += 1
        elif record.get("outcome") == "unreadable":
            self.unreadable += 1
        now = time.monotonic()
        if now - self._last >= self.every:
            self._last = now
            self._show()

    def _show(self) -> None:
        if self.tty:
            self.stream.write("\r\x1b[2K" + self.line())
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def finish(self) -> None:
        self._show()
        if self.tty:
            self.stream.write("\n")
        elapsed = time.monotonic() - self.start
        self.stream.write(f"audit: {self.done} papers in {_clock(elapsed)}\n")
        self.stream.flush()
