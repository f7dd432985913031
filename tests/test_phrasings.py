"""Table-driven: each phrasing in fixtures/manuscripts/phrasings.yaml, in a real manuscript."""
from __future__ import annotations

import pytest
import yaml

from conftest import FIXTURES, doc_of, write_project

TABLE = yaml.safe_load((FIXTURES / "manuscripts" / "phrasings.yaml").read_text(encoding="utf-8"))


def _matches(want, got) -> bool:
    """`want` is a fragment of `got`: dict keys checked recursively, scalars and lists equal."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and _matches(v, got[k]) for k, v in want.items())
    return want == got


@pytest.mark.parametrize("case", TABLE["cases"], ids=[c["name"] for c in TABLE["cases"]])
def test_phrasing(case, tmp_path):
    section = case.get("section", "text")
    text = TABLE["template"].replace("{preamble}", case["text"] if section == "preamble" else "")
    text = text.replace("{text}", case["text"] if section == "text" else "")
    doc = doc_of(write_project(tmp_path, {"main.tex": text}))
    assert doc["uses_cam_on_transformer"] is True
    for key, status in case["expect"].items():
        entry = doc["checklist"][key]
        assert entry["status"] == status, f"{key}: {entry}"
    for key, want in (case.get("value") or {}).items():
        assert _matches(want, doc["checklist"][key]["value"]), f"{key}: {doc['checklist'][key]['value']}"
