"""Accuracy on the labelled development corpus (../shared/corpus/dev), measured by its scorer."""
from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT


def test_score_meets_the_bar(shared_dir):
    proc = subprocess.run([sys.executable, str(shared_dir / "tools" / "score.py"), str(shared_dir / "corpus" / "dev"),
                           "--camlint", f"{sys.executable} -m camlint"], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    line = proc.stdout.strip().splitlines()[-1]
    figures = dict(re.findall(r"(\w+)=([\d.]+)", line))
    assert float(figures["flag_f1"]) >= 0.90, line
    assert float(figures["status_accuracy"]) >= 0.85, line
    assert int(figures["failed_docs"]) == 0, line
