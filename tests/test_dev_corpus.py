"""Accuracy on the labelled development corpus (../shared/corpus/dev), measured by its scorer."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import ROOT


def _scored(shared_dir, folder) -> tuple[str, dict]:
    """The scorer's summary line for a labelled folder, and its figures by name."""
    proc = subprocess.run([sys.executable, str(shared_dir / "tools" / "score.py"), str(folder),
                           "--camlint", f"{sys.executable} -m camlint"], capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    line = proc.stdout.strip().splitlines()[-1]
    return line, dict(re.findall(r"(\w+)=([\d.]+)", line))


def test_score_meets_the_bar(shared_dir):
    line, figures = _scored(shared_dir, shared_dir / "corpus" / "dev")
    # issue 12: 0.853 / 0.877 / 0.927 / 0.977 before the generalisation work
    assert float(figures["flag_f1"]) >= 0.96, line
    assert float(figures["status_accuracy"]) >= 0.97, line
    assert float(figures["evidence_accuracy"]) >= 0.95, line
    assert float(figures["cam_detection"]) == 1.0, line
    assert int(figures["failed_docs"]) == 0, line


# c09 takes Grad-CAM++ at the block output (F6) of the last block of a [CLS]/distillation-pooled
# DeiT and drops both prefix tokens: the patch tokens there never reach the logits, so the map is
# exactly zero. That is a degenerate map (CAM602, predicted), not an inconsistency between statements.
# b10 hooks vit.encoder.layer[11].layernorm_after (F4 of the last block) of a [CLS]-pooled
# HuggingFace ViT: the MLP acts per token, so the patch tokens there never reach the logit either.
DEGENERATE = {"c09_rebuttal_deit", "b10_doclayout"}


def test_inconsistent_manuscripts_get_a_consistency_finding(shared_dir):
    """Every development manuscript labelled with an inconsistency gets at least one CAM2xx
    finding; the consistent ones get none. The map a paper's architecture makes degenerate is
    predicted (CAM602) where it is, and nowhere else."""
    import json

    import yaml

    labels = yaml.safe_load((shared_dir / "corpus" / "dev" / "labels.yaml").read_text())
    wrong = []
    for doc_id, truth in sorted(labels.items()):
        out = subprocess.run([sys.executable, "-m", "camlint", "check",
                              str(shared_dir / "corpus" / "dev" / doc_id / "main.tex"), "--format", "json"],
                             capture_output=True, text=True, cwd=ROOT)
        codes = {f["code"] for f in json.loads(out.stdout)["documents"][0]["findings"]}
        has = any(c.startswith("CAM2") for c in codes)
        if has != bool(truth["inconsistencies"]) or ("CAM602" in codes) != (doc_id in DEGENERATE):
            wrong.append((doc_id, sorted(c for c in codes if c.startswith("CAM2")), truth["inconsistencies"]))
    assert wrong == []


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "fixtures" / "corpus").glob("set*")))
def test_the_shipped_sets_stay_read(shared_dir, name):
    """The sets by other hands shipped in fixtures/corpus (opened and tuned on after their first
    look, see its README): a regression bar, not an estimate for unseen text."""
    line, figures = _scored(shared_dir, ROOT / "fixtures" / "corpus" / name)
    # first look (before they were opened): status 0.698-0.964, flag F1 0.612-0.930, CAM use 0.750-1.000
    assert float(figures["status_accuracy"]) >= 0.95, line
    assert float(figures["flag_f1"]) >= 0.90, line
    assert float(figures["cam_detection"]) == 1.0, line
    assert int(figures["failed_docs"]) == 0, line
