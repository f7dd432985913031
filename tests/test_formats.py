"""Every output format, parsed back and checked; golden files for the human-facing ones."""
from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from conftest import FIXTURES, SHARED, run_cli

A02_LIKE = FIXTURES / "manuscripts" / "m01_generic_sections" / "main.tex"
MANUSCRIPTS = FIXTURES / "manuscripts"
GOLDEN = FIXTURES / "golden"


def _out(*args, env=None) -> str:
    proc = run_cli(*args, env=env)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def test_sarif_validates_against_the_official_schema():
    schema_path = SHARED / "data" / "sarif-schema-2.1.0.json"
    if not schema_path.exists():
        pytest.skip("../shared/data/sarif-schema-2.1.0.json is not available here (CI has it)")
    import jsonschema

    schema = json.loads(schema_path.read_text())
    sarif = json.loads(_out("check", MANUSCRIPTS, "--format", "sarif"))
    validator = jsonschema.validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(sarif), key=lambda e: list(e.path))
    assert errors == [], errors[0].message if errors else ""
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "camlint" and run["tool"]["driver"]["informationUri"]
    ids = {r["id"] for r in run["tool"]["driver"]["rules"]}
    for res in run["results"]:
        assert res["ruleId"] in ids and res["level"] in ("error", "warning", "note")
        loc = res["locations"][0]["physicalLocation"]
        assert not loc["artifactLocation"]["uri"].startswith("/")
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
        assert res["partialFingerprints"]


def test_sarif_fingerprints_survive_moved_lines(tmp_path):
    paper = tmp_path / "main.tex"
    text = A02_LIKE.read_text()
    paper.write_text(text)
    first = json.loads(_out("check", paper, "--format", "sarif"))["runs"][0]["results"]
    paper.write_text(text.replace("\\begin{document}", "\\begin{document}\n\n% a comment\n\n", 1))
    second = json.loads(_out("check", paper, "--format", "sarif"))["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in first] == [r["partialFingerprints"] for r in second]
    moved = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in second]
    assert moved != [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in first]


def test_github_annotations_and_escaping(tmp_path):
    folder = tmp_path / "odd, name: 100%"
    folder.mkdir()
    (folder / "main.tex").write_text(A02_LIKE.read_text())
    summary = tmp_path / "summary.md"
    out = _out("check", folder / "main.tex", "--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)})
    lines = out.strip().splitlines()
    assert lines
    pattern = re.compile(r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),title=(CAM\d{3}) [a-z-]+::(.+)$")
    for line in lines:
        m = pattern.match(line)
        assert m, line
        assert "%2C" in m.group(2) and "%3A" in m.group(2) and "%25" in m.group(2)
        assert "\n" not in m.group(6)
    assert "| `layer` |" in summary.read_text()


def test_github_escape_functions():
    from camlint.formats.github import escape_data, escape_property

    assert escape_data("a%b\nc\rd") == "a%25b%0Ac%0Dd"
    assert escape_property("x:y,z%") == "x%3Ay%2Cz%25"


def _junit(*args) -> ET.Element:
    return ET.fromstring(_out("check", MANUSCRIPTS / "m13_attention_vague" / "main.tex", "--format", "junit", *args))


def test_junit_one_case_per_key_per_document():
    suite = _junit("--fail-on", "info").find("testsuite")
    cases = suite.findall("testcase")
    assert [c.get("name") for c in cases][:12] == ["model", "method", "layer", "location", "target", "tokens",
                                                 "reshape", "weighting", "heads", "relu", "postprocess",
                                                 "implementation"]
    failed = {c.get("name") for c in cases if c.find("failure") is not None}
    assert {"target", "tokens", "heads"} <= failed and "method" not in failed
    assert int(suite.get("failures")) == len(failed)


def test_junit_fails_only_what_fails_the_gate():
    """m13 has errors (target, tokens...) and warnings (model, heads): under --fail-on error the
    warnings are recorded in the case's output, not as failures; under warning they fail."""
    proc = run_cli("check", MANUSCRIPTS / "m13_attention_vague" / "main.tex", "--format", "junit")
    suite = ET.fromstring(proc.stdout).find("testsuite")
    cases = {c.get("name"): c for c in suite.findall("testcase")}
    failed = {n for n, c in cases.items() if c.find("failure") is not None}
    assert failed == {"target", "tokens", "reshape", "weighting", "relu", "postprocess", "implementation"}
    assert int(suite.get("failures")) == len(failed) and proc.returncode == 1
    assert "CAM109 [warning]" in cases["heads"].find("system-out").text
    assert "CAM101 [warning]" in cases["model"].find("system-out").text
    strict = {c.get("name") for c in _junit("--fail-on", "warning").find("testsuite").findall("testcase")
              if c.find("failure") is not None}
    assert strict == failed | {"model", "heads"}


def test_junit_of_a_passing_gate_has_no_failures():
    spec = FIXTURES / "specs" / "handwritten-noncanonical.yaml"     # warnings only
    proc = run_cli("check", spec, "--format", "junit", "--fail-on", "error")
    root = ET.fromstring(proc.stdout)
    assert proc.returncode == 0
    assert root.findall(".//failure") == [] and root.find("testsuite").get("failures") == "0"
    assert "[warning]" in "".join(e.text or "" for e in root.iter("system-out"))


def _suppressed_paper(tmp_path) -> Path:
    paper = tmp_path / "main.tex"
    paper.write_text(A02_LIKE.read_text().replace(
        "\\begin{document}", "\\begin{document}\n% camlint: disable=CAM112 -- code released on acceptance\n", 1))
    return paper


def test_sarif_lists_suppressed_findings_with_their_justification(tmp_path):
    paper = _suppressed_paper(tmp_path)
    plain = json.loads(_out("check", A02_LIKE, "--format", "sarif"))["runs"][0]["results"]
    sarif = json.loads(_out("check", paper, "--format", "sarif"))
    _validate_sarif(sarif)
    results = sarif["runs"][0]["results"]
    suppressed = [r for r in results if r.get("suppressions")]
    assert [r["ruleId"] for r in suppressed] == ["CAM112"]
    assert suppressed[0]["suppressions"] == [{"kind": "inSource", "status": "accepted",
                                              "justification": "code released on acceptance"}]
    assert len(results) == len(plain)     # listed, not dropped
    active = [r for r in results if not r.get("suppressions")]
    assert "CAM112" not in {r["ruleId"] for r in active}


def _validate_sarif(sarif: dict) -> None:
    schema_path = SHARED / "data" / "sarif-schema-2.1.0.json"
    if not schema_path.exists():
        pytest.skip("../shared/data/sarif-schema-2.1.0.json is not available here (CI has it)")
    import jsonschema

    schema = json.loads(schema_path.read_text())
    errors = list(jsonschema.validators.validator_for(schema)(schema).iter_errors(sarif))
    assert errors == [], errors[0].message if errors else ""


def test_gitlab_code_quality():
    issues = json.loads(_out("check", A02_LIKE, "--format", "gitlab"))
    assert issues
    fps = [i["fingerprint"] for i in issues]
    assert len(set(fps)) == len(fps)
    for i in issues:
        assert set(i) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert i["severity"] in ("info", "minor", "major", "critical", "blocker")
        assert i["location"]["path"].endswith("main.tex") and i["location"]["lines"]["begin"] >= 1


def test_output_option_writes_a_file(tmp_path):
    target = tmp_path / "report.sarif"
    proc = run_cli("check", A02_LIKE, "--format", "sarif", "--output", target)
    assert proc.stdout == "" and json.loads(target.read_text())["version"] == "2.1.0"


def test_folder_mode_reports_every_document_with_a_summary():
    data = json.loads(_out("check", MANUSCRIPTS, "--format", "json"))
    paths = sorted(Path(d["path"]).parent.name for d in data["documents"])
    # every main.tex, plus m07's supplement.yaml (a camspec file is a document of its own)
    expected = sorted([p.name for p in MANUSCRIPTS.iterdir() if (p / "main.tex").exists()] + ["m07_camspec_link"])
    assert paths == expected
    text = _out("check", MANUSCRIPTS)
    assert "Summary:" in text and "documents checked" in text


@pytest.mark.parametrize("fail_on, code", [("error", 1), ("warning", 1), ("info", 1)])
def test_exit_codes_under_fail_on(fail_on, code):
    assert run_cli("check", A02_LIKE, "--fail-on", fail_on).returncode == code


def test_fail_on_error_passes_a_warning_only_document():
    spec = FIXTURES / "specs" / "handwritten-noncanonical.yaml"
    severities = {f["severity"] for f in json.loads(_out("check", spec, "--format", "json"))["documents"][0]["findings"]}
    assert severities == {"warning"}
    assert run_cli("check", spec, "--fail-on", "error").returncode == 0
    assert run_cli("check", spec, "--fail-on", "warning").returncode == 1


GOLDEN_CASES = {
    "text-m13.txt": ("check", "fixtures/manuscripts/m13_attention_vague/main.tex"),
    "markdown-m13.md": ("check", "fixtures/manuscripts/m13_attention_vague/main.tex", "--format", "markdown"),
    "checklist-latex-m02.tex": ("checklist", "fixtures/manuscripts/m02_swin/main.tex", "--format", "latex"),
    "checklist-markdown-m02.md": ("checklist", "fixtures/manuscripts/m02_swin/main.tex", "--format", "markdown"),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_CASES))
def test_golden(name):
    out = run_cli(*GOLDEN_CASES[name], env={"COLUMNS": "120"}).stdout
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(out, encoding="utf-8")
    assert out == path.read_text(encoding="utf-8"), f"{name} changed; UPDATE_GOLDEN=1 pytest to accept"
