"""The command line: exit codes, default command, JSON contract, plain output when piped."""
from __future__ import annotations

import json
import re

from camlint import __version__
from camlint.keys import KEYS
from conftest import FIXTURES, ROOT, check_json, invoke, run_cli

COMPLETE = FIXTURES / "specs" / "vit-b16-pgc-complete.yaml"
PARTIAL = FIXTURES / "specs" / "partial-vague.yaml"
ELEVEN = FIXTURES / "specs" / "block-eleven.yaml"


def test_version():
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"camlint {__version__}"


def test_complete_spec_reports_all_twelve_keys():
    code, data = check_json(COMPLETE)
    assert code == 0
    checklist = data["documents"][0]["checklist"]
    assert list(checklist) == list(KEYS)
    assert {k: v["status"] for k, v in checklist.items()} == {
        k: ("not_applicable" if k == "heads" else "reported") for k in KEYS}


def test_bare_path_is_check():
    assert invoke(COMPLETE).output == invoke("check", COMPLETE).output


def test_exit_codes():
    assert run_cli(COMPLETE).returncode == 0
    assert run_cli(ELEVEN).returncode == 1
    assert run_cli("does-not-exist.yaml").returncode == 2
    assert run_cli("check", "--format", "nope", COMPLETE).returncode == 2
    assert run_cli("check").returncode == 2


def test_fail_on_levels():
    # partial-vague has only warnings apart from none: errors only -> 0, warnings -> 1
    code, data = check_json(PARTIAL)
    severities = {f["severity"] for f in data["documents"][0]["findings"]}
    assert severities == {"warning"}
    assert invoke("check", PARTIAL, "--fail-on", "error").exit_code == 0
    assert invoke("check", PARTIAL, "--fail-on", "warning").exit_code == 1
    assert invoke("check", PARTIAL, "--fail-on", "info").exit_code == 1


def test_block_eleven_message_names_the_line():
    proc = run_cli("check", ELEVEN, "--format", "json")
    assert proc.returncode == 1
    finding = json.loads(proc.stdout)["documents"][0]["findings"][0]
    assert finding["code"] == "CAM301" and finding["line"] == 5 and finding["col"] == 3
    assert "'eleven'" in finding["message"]
    text = run_cli(ELEVEN).stdout
    assert "block-eleven.yaml:5:3" in text and "block: eleven" in text


def test_json_contract_shape():
    code, data = check_json(PARTIAL)
    assert data["camlint_version"] == __version__
    doc = data["documents"][0]
    assert set(doc) >= {"path", "uses_cam_on_transformer", "checklist", "findings"}
    for key, entry in doc["checklist"].items():
        assert set(entry) == {"status", "value", "evidence"}
        assert entry["status"] in ("reported", "partial", "missing", "not_applicable")
        for ev in entry["evidence"]:
            assert set(ev) == {"file", "line", "col", "text"} and ev["line"] >= 1 and ev["col"] >= 1
    for f in doc["findings"]:
        assert set(f) >= {"code", "name", "item", "severity", "message", "hint", "file", "line", "col"}
        assert re.fullmatch(r"CAM\d{3}", f["code"]) and f["line"] >= 1 and f["col"] >= 1


def test_unreadable_input_is_listed_in_json_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1, 2\nb: 3\n")
    proc = run_cli("check", bad, COMPLETE, "--format", "json")
    assert proc.returncode == 2
    data = json.loads(proc.stdout)
    assert len(data["documents"]) == 1
    assert data["errors"][0]["line"] == 2 and data["errors"][0]["file"].endswith("bad.yaml")


def test_piped_text_output_has_no_colour_codes():
    proc = run_cli(PARTIAL)
    assert "\x1b[" not in proc.stdout
    assert "CAM105" in proc.stdout and "Checklist" in proc.stdout


def test_schema_command_prints_the_schema():
    out = invoke("schema").output
    assert json.loads(out)["$id"].endswith("camspec-1.schema.json")


def test_unknown_file_type_is_a_usage_error(tmp_path):
    p = tmp_path / "paper.docx"
    p.write_text("x")
    proc = run_cli(p)
    assert proc.returncode == 2 and "unknown file type" in proc.stderr + proc.stdout


def test_readme_commands_and_ci_agree():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, re.S)
    example, tests = blocks[0].strip(), blocks[1].strip()
    assert ".venv" in example and "camlint" in example and "pip install" in example
    assert ".venv" in tests and "pytest" in tests
    assert tests in (ROOT / ".ci" / "run").read_text()
