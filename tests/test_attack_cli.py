"""Hostile command lines and configuration files: each test fails on the code before its fix."""
from __future__ import annotations

import os

import pytest

from conftest import invoke

DOC = "\\documentclass{article}\n\\begin{document}\nWe use Grad-CAM on a ViT-B/16.\n\\end{document}\n"


@pytest.mark.parametrize("table", [
    "select = " + "[" * 5000 + "]" * 5000,
    "x = " + "{a = " * 400 + "1" + "}" * 400,
])
def test_a_configuration_nested_too_deep_is_an_error_at_its_line(tmp_path, table):
    """tomllib recursed into a RecursionError: 'internal error' and exit 2 without a line."""
    (tmp_path / "main.tex").write_text(DOC)
    (tmp_path / "pyproject.toml").write_text("[tool.camlint]\n# [[[[ in a comment, ']]' in a string\n" + table + "\n")
    result = invoke("check", tmp_path / "main.tex")
    assert result.exit_code == 2
    assert "pyproject.toml:3:1: bad configuration: arrays or tables nested over 32 deep" in result.output
    assert "internal error" not in result.output


def test_brackets_in_strings_and_comments_are_not_nesting(tmp_path):
    (tmp_path / "main.tex").write_text(DOC)
    (tmp_path / "pyproject.toml").write_text(
        '[tool.camlint]\nextend-exclude = ["' + "[" * 40 + 'x]"]  # ' + "{" * 40 + "\n"
        "per-file-ignores = {'" + "[" * 40 + "y]' = [\"CAM1\"]}\n")
    result = invoke("check", tmp_path / "main.tex")
    assert result.exit_code in (0, 1), result.output


@pytest.mark.parametrize("command, extra", [
    ("check", []), ("check", ["--format", "json"]), ("checklist", []), ("init", ["--force"]),
])
def test_the_report_is_never_written_over_an_input(tmp_path, command, extra):
    """`-o main.tex` replaced the manuscript with its own report."""
    paper = tmp_path / "main.tex"
    paper.write_text(DOC)
    os.symlink(paper, tmp_path / "alias.tex")
    for out in (paper, tmp_path / "alias.tex"):
        result = invoke(command, paper, "-o", out, *extra)
        assert result.exit_code == 2 and paper.read_text() == DOC, result.output
        assert "an input of this command" in result.output or "never writes through a link" in result.output
    assert "an input of this command" in invoke(command, paper, "-o", paper, *extra).output


def test_check_dir_never_writes_over_a_document_it_found(tmp_path):
    (tmp_path / "main.tex").write_text(DOC)
    result = invoke("check", tmp_path, "-o", tmp_path / "main.tex")
    assert result.exit_code == 2 and "an input of this command" in result.output
    assert (tmp_path / "main.tex").read_text() == DOC


@pytest.mark.parametrize("name, fmt", [("report.md", "markdown"), ("report.txt", "text")])
def test_check_dir_replaces_its_own_earlier_report(tmp_path, name, fmt):
    """The second `check DIR -o DIR/report.md` found the first run's report as a Markdown
    manuscript and refused to write over it; a Markdown manuscript there is still protected."""
    (tmp_path / "main.tex").write_text(DOC)
    out = tmp_path / name
    for _ in range(2):
        result = invoke("check", tmp_path, "--format", fmt, "-o", out)
        assert result.exit_code in (0, 1), result.output
    assert "main.tex" in out.read_text()
    notes = "# Notes\nWe apply Grad-CAM to a ViT-B/16 at blocks[-1].norm1.\n"
    out.write_text(notes)
    result = invoke("check", tmp_path, "--format", fmt, "-o", out)
    assert result.exit_code == 2 and "an input of this command" in result.output
    assert out.read_text() == notes


def test_spec_and_config_are_inputs_too(tmp_path):
    (tmp_path / "main.tex").write_text(DOC)
    (tmp_path / "c.toml").write_text("[camlint]\n")
    spec = tmp_path / "s.yaml"
    spec.write_text("camspec: 1\n")
    for flag, target in (("--spec", spec), ("--config", tmp_path / "c.toml")):
        before = target.read_text()
        result = invoke("check", tmp_path / "main.tex", flag, target, "-o", target)
        assert result.exit_code == 2 and "an input of this command" in result.output
        assert target.read_text() == before
