"""`camlint init` and `camlint checklist`."""
from __future__ import annotations

import json
import shutil

import pytest
import yaml

from camlint.core.resources import camspec_schema
from conftest import FIXTURES, SHARED, run_cli


def _fill_todos(text: str) -> dict:
    """Replace every TODO as a person would: with an example from the schema."""
    schema = camspec_schema()
    data = yaml.safe_load(text)
    for key, value in list(data.items()):
        if "TODO" in json.dumps(value):
            data[key] = schema["properties"][key]["examples"][0]
    return data


def _validate(data: dict) -> list:
    import jsonschema

    return list(jsonschema.Draft202012Validator(camspec_schema()).iter_errors(data))


@pytest.mark.parametrize("doc", ["a02_wheat_rust", "a05_deepfake", "a11_eurosat", "a06_blip_vqa"])
def test_init_on_a_corpus_manuscript_validates_once_filled(doc, tmp_path):
    source = SHARED / "corpus" / "dev" / doc
    if not source.exists():
        pytest.skip("../shared is not available here (CI has it)")
    paper = tmp_path / doc
    shutil.copytree(source, paper)
    proc = run_cli("init", paper / "main.tex")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "TODO" in text or doc == "a06_blip_vqa"
    assert _validate(_fill_todos(text)) == []


def test_init_fills_found_values_and_never_overwrites(tmp_path):
    paper = tmp_path / "p"
    shutil.copytree(FIXTURES / "manuscripts" / "m02_swin", paper)
    out = tmp_path / "camspec.yaml"
    assert run_cli("init", paper / "main.tex", "-o", out).returncode == 0
    assert sorted(p.name for p in paper.iterdir()) == sorted(p.name for p in (FIXTURES / "manuscripts" / "m02_swin").iterdir())
    data = yaml.safe_load(out.read_text())
    assert data["location"] == "F6" and data["reshape"]["grid"] == [7, 7]
    assert data["tokens"] == "n/a" and data["heads"] == "n/a"
    before = out.read_text()
    proc = run_cli("init", paper / "main.tex", "-o", out)
    assert proc.returncode == 2 and "--force" in proc.stderr
    assert out.read_text() == before
    assert run_cli("init", paper / "main.tex", "-o", out, "--force").returncode == 0


def test_init_output_is_checked_by_camlint(tmp_path):
    paper = tmp_path / "p"
    shutil.copytree(FIXTURES / "manuscripts" / "m13_attention_vague", paper)
    run_cli("init", paper / "main.tex", "-o", paper / "camspec.yaml")
    proc = run_cli("check", paper / "camspec.yaml", "--format", "json")
    doc = json.loads(proc.stdout)["documents"][0]
    assert doc["checklist"]["location"]["status"] == "reported"
    assert doc["checklist"]["target"]["status"] == "missing"


@pytest.mark.parametrize("fmt", ["markdown", "latex", "yaml", "json"])
def test_checklist_formats(fmt):
    out = run_cli("checklist", FIXTURES / "manuscripts" / "m02_swin" / "main.tex", "--format", fmt).stdout
    if fmt == "json":
        assert json.loads(out)[0]["checklist"]["reshape"]["status"] == "reported"
    elif fmt == "yaml":
        assert yaml.safe_load(out)["checklist"]["heads"]["status"] == "not_applicable"
    elif fmt == "latex":
        assert "\\begin{tabularx}" in out and "reshape & reported" in out
    else:
        assert "| `reshape` | ✅ reported |" in out
