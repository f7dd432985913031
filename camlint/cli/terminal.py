"""Colour, output-file and stdin conventions shared by the commands.

Colour follows no-color.org and force-color.org: an explicit --color always|never wins, then
NO_COLOR (any non-empty value) disables colour, then FORCE_COLOR forces it even when piped,
then colour only when writing to a terminal.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from camlint.core.errors import InputError

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


def check_writable(output: str | Path, inputs=()) -> None:
    """Raise InputError now, before any work, when a report could not be written to `output`, or
    would replace one of `inputs` (the files named on the command line: a PATH, --spec, --config)."""
    p = Path(output)
    refuse_input(p, inputs)
    if p.is_symlink():
        raise InputError("cannot write the output: it is a symbolic link, and camlint never writes through "
                         "a link", str(p))
    if p.is_dir():
        raise InputError("output is a folder, not a file", str(p))
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"cannot write the output: folder {parent} does not exist", str(p))
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise InputError("cannot write the output: permission denied", str(p))


def refuse_input(output: Path, inputs) -> None:
    """An output that is one of `inputs` (the same file by any name or link) would destroy it."""
    for src in inputs:
        try:
            same = src is not None and str(src) != "-" and os.path.samefile(output, src)
        except (OSError, ValueError):
            same = False
        if same:
            raise InputError(f"cannot write the output over {src}, an input of this command", str(output))


class StdinDocument:
    """PATH '-': stdin copied (size-limited) into a private temporary file named like --stdin-filename."""

    def __init__(self, paths, stdin_filename: str | None):
        self.paths, self.name, self.tmp = list(paths), stdin_filename, None

    def __enter__(self):
        if not any(str(p) == "-" for p in self.paths):
            return self.paths, {}
        import tempfile

        from camlint.inputs.latex.source import MAX_FILE_BYTES

        data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise InputError(f"stdin is over the {MAX_FILE_BYTES // 2**20} MB limit", self.name or "-")
        display = self.name or "-"
        name = Path(self.name).name if self.name else "stdin.tex"
        if name in ("", ".", "..") or "\x00" in name:
            raise InputError("--stdin-filename must name a file", display)
        self.tmp = tempfile.TemporaryDirectory(prefix="camlint-stdin-")
        target = Path(self.tmp.name) / name
        target.write_bytes(data)
        return [target if str(p) == "-" else p for p in self.paths], {target: display}

    def __exit__(self, *exc):
        if self.tmp is not None:
            self.tmp.cleanup()
        return False
