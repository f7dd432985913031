"""Configuration files (found by walking up), selectors, severities, per-file ignores, CLI override."""
from __future__ import annotations

import json

from conftest import run_cli

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
