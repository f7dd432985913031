"""The command line: exit codes, default command, JSON contract, plain output when piped."""
from __future__ import annotations

import json
import re

from camlint import __version__
from camlint.core.keys import KEYS
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


M13 = FIXTURES / "manuscripts" / "m13_attention_vague" / "main.tex"


def test_a_missing_path_says_only_what_is_missing():
    proc = run_cli("check", "does-not-exist.tex")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "camlint: does-not-exist.tex: no such file or folder\n"


def test_spec_must_be_a_camspec_and_selectors_must_exist():
    result = invoke("check", M13, "--spec", M13)
    assert result.exit_code == 2 and "--spec takes a camspec supplement" in result.stderr and result.stdout == ""
    result = invoke("check", M13, "--select", "CAM15")
    assert result.exit_code == 2 and "selector 'CAM15' matches no rule" in result.stderr


def test_an_unwritable_output_is_refused_before_any_work(tmp_path):
    for target, why in ((tmp_path / "no" / "such" / "r.sarif", "does not exist"), (tmp_path, "is a directory")):
        proc = run_cli("check", M13, "--format", "sarif", "-o", target)
        assert proc.returncode == 2 and why in proc.stderr and str(target) in proc.stderr
        assert "internal error" not in proc.stderr and proc.stdout == ""
    proc = run_cli("checklist", M13, "-o", tmp_path / "no" / "c.md")
    assert proc.returncode == 2 and "does not exist" in proc.stderr and "internal error" not in proc.stderr


def _on_a_terminal(*args, env: dict) -> bytes:
    """Run camlint with stdout on a pseudo-terminal; everything it printed."""
    import os
    import pty
    import subprocess
    import sys

    master, slave = pty.openpty()
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    proc = subprocess.Popen([sys.executable, "-m", "camlint", *map(str, args)], stdout=slave,
                            stderr=subprocess.DEVNULL, env={**full_env, "TERM": "xterm", **env}, cwd=ROOT)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    proc.wait(timeout=120)
    os.close(master)
    return out


def test_colour_conventions():
    piped = {k: run_cli("check", M13, *flags, env=env).stdout for k, flags, env in (
        ("always", ["--color", "always"], {}), ("never", ["--color", "never"], {"FORCE_COLOR": "1"}),
        ("force", [], {"FORCE_COLOR": "1"}), ("auto", [], {}),
        ("always-beats-no-color", ["--color", "always"], {"NO_COLOR": "1"}))}
    assert "\x1b[" in piped["always"] and "\x1b[" in piped["force"] and "\x1b[" in piped["always-beats-no-color"]
    assert "\x1b[" not in piped["never"] and "\x1b[" not in piped["auto"]
    assert b"\x1b[" in _on_a_terminal("check", M13, env={})
    assert b"\x1b[" not in _on_a_terminal("check", M13, env={"NO_COLOR": "1"})
    assert b"\x1b[" not in _on_a_terminal("rules", env={"NO_COLOR": "1"})


def test_stdin_with_a_filename_uses_its_type_and_configuration(tmp_path):
    import subprocess
    import sys

    paper = tmp_path / "paper"
    paper.mkdir()
    (tmp_path / ".camlint.toml").write_text("[per-file-ignores]\n'paper/*.tex' = ['CAM105']\n")

    def run(*args, text: str):
        return subprocess.run([sys.executable, "-m", "camlint", "check", *args], input=text, capture_output=True,
                              text=True, cwd=tmp_path, timeout=120)

    proc = run("-", "--stdin-filename", "paper/main.tex", "--format", "json", text=M13.read_text())
    doc = json.loads(proc.stdout)["documents"][0]
    assert proc.returncode == 1 and doc["path"] == "paper/main.tex"
    codes = {f["code"] for f in doc["findings"]}
    assert "CAM106" in codes and "CAM105" not in codes          # the configuration of paper/ applies
    assert {f["file"] for f in doc["findings"]} == {"paper/main.tex"}
    proc = run("-", "--stdin-filename", "supp/spec.yaml", "--format", "json", text=COMPLETE.read_text())
    assert proc.returncode == 0 and json.loads(proc.stdout)["documents"][0]["path"] == "supp/spec.yaml"
    proc = run("-", text=M13.read_text())
    assert proc.returncode == 1 and f"-:4:10" in proc.stdout


def test_quiet_statistics_and_exit_zero():
    quiet = invoke("check", M13, "-q")
    assert quiet.exit_code == 1 and "CAM105" in quiet.stdout
    assert "Checklist" not in quiet.stdout and "documents checked" not in quiet.stdout
    assert invoke("check", COMPLETE, "--quiet").stdout == ""
    stats = invoke("check", M13, ELEVEN, "--statistics")
    data = json.loads(invoke("check", M13, ELEVEN, "--format", "json").stdout)
    counts: dict = {}
    for d in data["documents"]:
        for f in d["findings"]:
            counts[f["code"]] = counts.get(f["code"], 0) + 1
    lines = [line.split() for line in stats.stdout.splitlines()]
    assert {code: int(n) for n, code, _ in lines} == counts and stats.exit_code == 1
    assert [int(n) for n, _, _ in lines] == sorted((int(n) for n, _, _ in lines), reverse=True)
    as_json = json.loads(invoke("check", M13, "--statistics", "--format", "json").stdout)
    eleven_only = ("CAM301", "CAM604")     # block-eleven.yaml's own findings
    assert {r["code"]: r["count"] for r in as_json} == {c: n for c, n in counts.items() if c not in eleven_only}
    assert invoke("check", M13, "--exit-zero").exit_code == 0
    assert invoke("check", M13, "missing.tex", "--exit-zero").exit_code == 2


def test_no_cache_neither_reads_nor_writes_it(tmp_path):
    cache = tmp_path / "cache"
    env = {"CAMLINT_CACHE_DIR": str(cache)}
    proc = run_cli("check", M13, "--no-cache", env=env)
    assert proc.returncode == 1 and "CAM105" in proc.stdout, proc.stderr
    assert not cache.exists() or not any(cache.iterdir())
    assert run_cli("check", M13, env=env).returncode == 1
    assert any(cache.iterdir())
