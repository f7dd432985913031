"""Configuration files (found by walking up), selectors, severities, per-file ignores, CLI override."""
from __future__ import annotations

import json

from conftest import invoke, run_cli

PAPER = ("\\documentclass{article}\\begin{document}\\section{Saliency maps}\n"
         "We compute Grad-CAM maps of our ViT-B/16 at an intermediate layer.\n\\end{document}\n")


def _codes(proc) -> list[str]:
    return [f["code"] for d in json.loads(proc.stdout)["documents"] for f in d["findings"]]


def _setup(tmp_path, config_name: str | None, config: str = ""):
    paper = tmp_path / "repo" / "paper"
    paper.mkdir(parents=True)
    (paper / "main.tex").write_text(PAPER)
    if config_name:
        (tmp_path / "repo" / config_name).write_text(config)
    return paper / "main.tex"


def test_pyproject_table_found_by_walking_up(tmp_path):
    main = _setup(tmp_path, None)
    assert "CAM103" in _codes(run_cli(main, "--format", "json"))
    (tmp_path / "repo" / "pyproject.toml").write_text("[project]\nname='x'\n[tool.camlint]\nignore = ['CAM1']\n")
    codes = _codes(run_cli(main, "--format", "json"))
    assert not any(c.startswith("CAM1") for c in codes)


def test_select_by_name_and_severity_override(tmp_path):
    main = _setup(tmp_path, ".camlint.toml", "select = ['missing-layer', 'CAM112']\n"
                                             "[severity]\nCAM103 = 'error'\n")
    proc = run_cli(main, "--format", "json")
    findings = [f for d in json.loads(proc.stdout)["documents"] for f in d["findings"]]
    assert sorted(f["code"] for f in findings) == ["CAM103", "CAM112"]
    assert {f["code"]: f["severity"] for f in findings}["CAM103"] == "error"


def test_yaml_config_fail_on_and_per_file_ignores(tmp_path):
    main = _setup(tmp_path, ".camlint.yaml", "camlint:\n  fail-on: warning\n  per-file-ignores:\n"
                                             "    'paper/*.tex': [CAM104, missing-target]\n")
    proc = run_cli(main, "--format", "json")
    codes = _codes(proc)
    assert "CAM104" not in codes and "CAM105" not in codes and "CAM103" in codes
    assert proc.returncode == 1


def test_cli_flags_override_the_file(tmp_path):
    main = _setup(tmp_path, ".camlint.toml", "ignore = ['CAM103']\nfail-on = 'info'\n")
    assert "CAM103" not in _codes(run_cli(main, "--format", "json"))
    proc = run_cli(main, "--format", "json", "--select", "CAM103", "--fail-on", "error")
    assert _codes(proc) == ["CAM103"]   # as in ruff: --select replaces the file's select and ignore
    codes = _codes(run_cli(main, "--format", "json", "--ignore", "CAM104"))
    assert "CAM103" not in codes and "CAM104" not in codes and "CAM105" in codes   # ignores add up
    proc = run_cli(main, "--format", "json", "--select", "CAM104")
    assert _codes(proc) == ["CAM104"]


def test_bad_config_is_a_clear_usage_error(tmp_path):
    main = _setup(tmp_path, ".camlint.toml", "selct = ['CAM1']\n")
    proc = run_cli(main)
    assert proc.returncode == 2 and "unknown configuration key" in proc.stderr and ".camlint.toml" in proc.stderr
    main2 = _setup(tmp_path / "b", ".camlint.toml", "select = ['CAM9']\n")
    assert "matches no rule" in run_cli(main2).stderr


def _json_codes(result) -> dict[str, list[str]]:
    """{document path: codes} from an in-process JSON run."""
    return {d["path"]: [f["code"] for f in d["findings"]] for d in json.loads(result.stdout)["documents"]}


def test_a_wrong_format_in_pyproject_is_a_clear_error(tmp_path):
    main = _setup(tmp_path, "pyproject.toml", "[tool.camlint]\nformat = 'sarif2'\n")
    proc = run_cli(main)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "pyproject.toml" in proc.stderr and "did you mean 'sarif'?" in proc.stderr
    assert "internal error" not in proc.stderr


def test_one_selector_validator_for_the_file_and_the_command_line(tmp_path):
    main = _setup(tmp_path, None)
    for flag, value, hint in (("--ignore", "CAM999", "matches no rule"),
                              ("--ignore", "missing-modle", "did you mean 'missing-model'?"),
                              ("--select", "CAM15", "matches no rule"),
                              ("--extend-select", "CAM1,missing-layr", "did you mean 'missing-layer'?")):
        result = invoke("check", main, flag, value)
        assert result.exit_code == 2 and hint in result.stderr and result.stdout == "", (flag, value, result.stderr)
    (tmp_path / "repo" / ".camlint.toml").write_text("ignore = ['missing-modle']\n")
    result = invoke("check", main)
    assert result.exit_code == 2 and "did you mean 'missing-model'?" in result.stderr
    assert ".camlint.toml" in result.stderr


def test_the_more_specific_selector_wins(tmp_path):
    main = _setup(tmp_path, ".camlint.toml", "select = ['CAM103']\nignore = ['CAM1']\n")
    assert _codes(run_cli(main, "--format", "json")) == ["CAM103"]
    (tmp_path / "repo" / ".camlint.toml").write_text("select = ['CAM1']\nignore = ['missing-layer']\n")
    codes = _codes(run_cli(main, "--format", "json"))
    assert "CAM103" not in codes and "CAM104" in codes
    (tmp_path / "repo" / ".camlint.toml").write_text("ignore = ['CAM10']\n[severity]\nCAM1 = 'info'\n"
                                                     "CAM112 = 'error'\n")
    findings = {f["code"]: f["severity"] for d in json.loads(run_cli(main, "--format", "json").stdout)["documents"]
                for f in d["findings"]}
    assert not any(c.startswith("CAM10") for c in findings)
    assert findings["CAM112"] == "error" and findings["CAM111"] == "info"


def test_extend_ignore_and_extend_per_file_ignores(tmp_path):
    main = _setup(tmp_path, ".camlint.toml", "ignore = ['CAM103']\nextend-ignore = ['CAM104']\n"
                                             "[per-file-ignores]\n'paper/main.tex' = ['CAM105']\n"
                                             "[extend-per-file-ignores]\n'paper/*.tex' = ['missing-tokens']\n")
    codes = _codes(run_cli(main, "--format", "json"))
    assert not {"CAM103", "CAM104", "CAM105", "CAM106"} & set(codes) and "CAM107" in codes


def test_patterns_are_gitignore_style(tmp_path):
    """`*` stays within a folder, `**` crosses folders, patterns are relative to the config's folder."""
    _setup(tmp_path, None)
    deeper = tmp_path / "repo" / "paper" / "appendix" / "main.tex"
    deeper.parent.mkdir()
    deeper.write_text(PAPER)
    config = tmp_path / "repo" / ".camlint.toml"
    config.write_text("[per-file-ignores]\n'paper/*.tex' = ['CAM103']\n")
    codes = _json_codes(invoke("check", tmp_path / "repo", "--format", "json", cwd=tmp_path / "repo"))
    assert "CAM103" not in codes["paper/main.tex"] and "CAM103" in codes["paper/appendix/main.tex"]
    config.write_text("[per-file-ignores]\n'paper/**/*.tex' = ['CAM103']\n")
    codes = _json_codes(invoke("check", tmp_path / "repo", "--format", "json", cwd=tmp_path / "repo"))
    assert "CAM103" not in codes["paper/main.tex"] and "CAM103" not in codes["paper/appendix/main.tex"]


def test_exclude_and_extend_exclude(tmp_path):
    _setup(tmp_path, None)
    repo = tmp_path / "repo"
    for folder in ("drafts", "build", "paper/old"):
        (repo / folder).mkdir(parents=True)
        (repo / folder / "main.tex").write_text(PAPER)

    def documents():
        return sorted(_json_codes(invoke("check", repo, "--format", "json", cwd=repo)))

    assert documents() == ["drafts/main.tex", "paper/main.tex", "paper/old/main.tex"]   # build/ by default
    (repo / ".camlint.toml").write_text("extend-exclude = ['drafts/', 'paper/*/']\n")
    assert documents() == ["paper/main.tex"]
    (repo / ".camlint.toml").write_text("exclude = ['drafts/']\n")       # replaces the defaults
    assert documents() == ["build/main.tex", "paper/main.tex", "paper/old/main.tex"]
    assert invoke("check", repo / "drafts" / "main.tex", "--format", "json").exit_code == 1  # named: checked


def test_configuration_files_of_wrong_types_or_encodings(tmp_path):
    """Every broken configuration, also one in a parent folder, is an exit 2 naming the file."""
    cases = {
        "pyproject.toml": [b"[tool.camlint]\nselect = ['CAM1']\n# caf\xe9\n", b"[tool]\ncamlint = 5\n",
                           b"[tool.camlint]\nper-file-ignores = 'x'\n", b"[tool.camlint]\nfail-on = 3\n"],
        ".camlint.toml": [b"\xff\xfe s\x00", b"select = 5\n", b"[severity]\nCAM1 = 'fatal'\n",
                          b"[per-file-ignores]\n'*.tex' = 5\n", b"exclude = [1]\n", b"severity = 'error'\n"],
        ".camlint.yaml": [b"- select\n- CAM1\n", b"camlint: 7\n", b"camlint:\n  per-file-ignores: [a]\n",
                          b"camlint: {select: [CAM1, {x: 1}]}\n", b"a: &a [*a]\n", b"select: [\n"],
    }
    for name, texts in cases.items():
        for i, text in enumerate(texts):
            main = _setup(tmp_path / f"{name}{i}", None)
            (tmp_path / f"{name}{i}" / name).write_bytes(text)     # two folders above main.tex
            proc = run_cli(main) if i == 0 else None
            result = invoke("check", main) if proc is None else None
            code, err = (proc.returncode, proc.stderr) if proc else (result.exit_code, result.stderr)
            assert code == 2, (name, text, err)
            assert name in err and "internal error" not in err and "Traceback" not in err, (name, text, err)


def test_show_settings_says_where_each_value_came_from(tmp_path):
    main = _setup(tmp_path, "pyproject.toml", "[tool.camlint]\nignore = ['CAM112']\nfail-on = 'warning'\n")
    result = invoke("check", main, "--show-settings", "--format", "json", "--select", "CAM1")
    assert result.exit_code == 0
    lines = {line.split(" = ")[0]: line for line in result.stdout.splitlines() if " = " in line}
    pyproject = str(tmp_path / "repo" / "pyproject.toml")
    assert lines["ignore"] == f'ignore = ["CAM112"]  # {pyproject}'
    assert lines["fail-on"] == f'fail-on = "warning"  # {pyproject}'
    assert lines["format"] == 'format = "json"  # command line (--format)'
    assert lines["exclude"].endswith("# default") and lines["select"].endswith("then --select on the command line")
    assert "documents checked" not in result.stdout
