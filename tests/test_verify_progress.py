"""The progress line of verify and sweep: on a terminal from the first second, silent elsewhere."""
from __future__ import annotations

import io

from camlint.cli.commands.progress import StderrProgress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_shows_each_stage_on_a_terminal():
    out = _Terminal()
    with StderrProgress("verify s.yaml", file=out) as progress:
        progress("loading torch and timm")
        progress("building vit_tiny_patch16_224 on cpu")
    text = out.getvalue()
    assert "camlint verify s.yaml" in text and "building vit_tiny_patch16_224 on cpu" in text


def test_progress_is_silent_off_a_terminal():
    out = io.StringIO()
    with StderrProgress("verify s.yaml", file=out) as progress:
        progress("building the model")
    assert out.getvalue() == ""
