"""Hostile inputs found by the attack pass of 3 Dec: each test fails on the code before its fix.

Large inputs are generated here, small ones are written by the test itself (they are a few bytes)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import run_cli

DOC = "\\documentclass{article}\n\\begin{document}\nWe use Grad-CAM on a ViT.\n\\end{document}\n"


# ---- configuration patterns: a repository's own .camlint.toml cannot make matching exponential ----

def test_backtracking_patterns_in_the_configuration_match_in_linear_time(tmp_path):
    """`*a*a*a...x` against a long file name backtracks exponentially in Python's re (an 8-star
    pattern took 63 s on a 60-character name): patterns are matched by RE2."""
    (tmp_path / "main.tex").write_text(DOC)
    (tmp_path / ("a" * 120 + ".tex")).write_text(DOC)
    evil = "*a" * 12
    (tmp_path / ".camlint.toml").write_text(f'exclude = ["{evil}x"]\n[per-file-ignores]\n"{evil}y" = ["CAM101"]\n')
    proc = subprocess.run([sys.executable, "-m", "camlint", "check", "."], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr
    assert "2 documents checked" in proc.stdout
