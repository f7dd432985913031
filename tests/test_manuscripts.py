"""Whole manuscripts of our own (fixtures/manuscripts/*/main.tex) against expectations.yaml."""
from __future__ import annotations

import pytest
import yaml

from conftest import FIXTURES, doc_of

EXPECT = yaml.safe_load((FIXTURES / "manuscripts" / "expectations.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECT))
def test_manuscript(name):
    want = EXPECT[name]
    doc = doc_of(FIXTURES / "manuscripts" / name / "main.tex")
    assert doc["uses_cam_on_transformer"] is want["uses_cam_on_transformer"]
    if not want["uses_cam_on_transformer"]:
        assert all(v["status"] == "not_applicable" for v in doc["checklist"].values())
        assert doc["findings"] == []
    got = {k: doc["checklist"][k]["status"] for k in want.get("statuses", {})}
    assert got == want.get("statuses", {})
    codes = {f["code"] for f in doc["findings"]}
    assert set(want.get("findings", [])) <= codes
