"""A progress line on stderr for the long commands (verify, sweep): what runs now, from the
first second (loading torch, building the model, each input), only when stderr is a terminal."""
from __future__ import annotations

import sys
import time


class StderrProgress:
    """Call it with what starts now; it shows that with the seconds elapsed. Silent off a terminal."""

    def __init__(self, title: str, enabled: bool | None = None, file=None):
        self.title = title
        self.file = file or sys.stderr
        self.enabled = self.file.isatty() if enabled is None else enabled
        self.started = time.monotonic()
        self._status = None

    def __enter__(self) -> "StderrProgress":
        if self.enabled:
            from rich.console import Console

            console = Console(file=self.file, force_terminal=True)
            self._status = console.status(f"camlint {self.title}")
            self._status.start()
        return self

    def __call__(self, text: str) -> None:
        if self._status is not None:
            self._status.update(f"camlint {self.title}: {text} ({time.monotonic() - self.started:.0f} s)")

    def close(self) -> None:
        if self._status is not None:
            self._status.stop()
            self._status = None

    def __exit__(self, *exc) -> None:
        self.close()
