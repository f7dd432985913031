"""The ground-truth testbed (examples/testbed): committed weights, maps, and what they show."""
from __future__ import annotations

import hashlib
import json
import sys

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("timm")

from conftest import ROOT, run_cli  # noqa: E402

TESTBED = ROOT / "examples" / "testbed"
SPEC = TESTBED / "testbed.yaml"
OPEN = TESTBED / "testbed-open.yaml"


def test_weights_match_their_recorded_sha256():
    weights = TESTBED / "weights" / "vit_testbed.safetensors"
    recorded = (TESTBED / "weights" / "vit_testbed.safetensors.sha256").read_text().split()[0]
    assert hashlib.sha256(weights.read_bytes()).hexdigest() == recorded
    assert weights.stat().st_size < 8 * 2**20
    assert recorded in SPEC.read_text()


def test_documented_recipe_reproduces_and_localizes_on_most_images():
    proc = run_cli("verify", SPEC, "--format", "json", "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["reproduced"] is True
    hits = [r["localization"]["pointing"] for r in report["results"]]
    assert len(hits) == 8 and sum(hits) > len(hits) / 2


def test_sweep_of_the_open_description_finds_procedures_that_do_not_localize(tmp_path):
    out = tmp_path / "sweep"
    proc = run_cli("sweep", OPEN, "--out", out, "--format", "json", "--device", "cpu")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert set(data["open_keys"]) >= {"tokens", "location", "target"}
    rates = [v["localization"]["pointing_rate"] for v in data["variants"]]
    assert any(r < 0.5 for r in rates) and any(r > 0.5 for r in rates)
    assert "put the maximum outside the object" in data["verdict"]
    assert (out / "grid__disc_0.png").exists() and (out / "agreement.json").exists()


def test_generator_is_deterministic():
    sys.path.insert(0, str(TESTBED))
    try:
        import make_testbed as tb
    finally:
        sys.path.pop(0)
    a = tb.sample(np.random.default_rng(3))
    b = tb.sample(np.random.default_rng(3))
    assert np.array_equal(a[0], b[0]) and a[1:] == b[1:]
    x0, y0, x1, y1 = a[2]
    assert 0 <= x0 < x1 <= tb.SIZE and 0 <= y0 < y1 <= tb.SIZE
