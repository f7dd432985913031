"""Colour and output-file conventions shared by every command.

Colour follows no-color.org and force-color.org: an explicit --color always|never wins, then
NO_COLOR (any non-empty value) disables colour, then FORCE_COLOR forces it even when piped,
then colour only when writing to a terminal.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from camlint.errors import InputError

COLOR_CHOICES = ("auto", "always", "never")


def use_color(choice: str | None = "auto", stream=None, to_file: bool = False) -> bool:
    if choice == "always":
        return True
    if choice == "never":
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream or sys.stdout
    return not to_file and bool(getattr(stream, "isatty", lambda: False)())


def check_writable(output: str | Path) -> None:
    """Raise InputError now, before any work, when a report could not be written to `output`."""
    p = Path(output)
    if p.is_dir():
        raise InputError("output is a folder, not a file", str(p))
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"cannot write the output: folder {parent} does not exist", str(p))
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise InputError("cannot write the output: permission denied", str(p))
