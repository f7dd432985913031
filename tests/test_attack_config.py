"""Hostile configuration found by the attack pass of 5 Dec: each test fails on the code before its fix."""
from __future__ import annotations

import pytest

from conftest import invoke

DOC = "\\documentclass{article}\n\\begin{document}\nWe use Grad-CAM on a ViT.\n\\end{document}\n"

# A file pattern pathspec or RE2 cannot compile (a trailing backslash, a reversed range, a POSIX
# class RE2's set refuses) was an "internal error" when the first file was matched.
BAD = [('exclude = ["\\\\"]', "exclude"), ('extend-exclude = ["[z-a]"]', "extend-exclude"),
       ('exclude = ["[[:alpha:]]"]', "exclude"), ('camspecs = ["a/\\\\"]', "camspecs"),
       ('[per-file-ignores]\n"[z-a]" = ["CAM1"]', "per-file-ignores"),
       ('[extend-per-file-ignores]\n"x\\\\" = ["CAM1"]', "extend-per-file-ignores")]


@pytest.mark.parametrize("toml, setting", BAD)
def test_a_malformed_file_pattern_is_a_configuration_error(tmp_path, toml, setting):
    (tmp_path / "main.tex").write_text(DOC)
    (tmp_path / ".camlint.toml").write_text(toml + "\n")
    result = invoke("check", tmp_path)
    assert result.exit_code == 2 and "internal error" not in result.output, result.output
    assert ".camlint.toml" in result.output and f"{setting}:" in result.output
    assert "is not a valid file pattern" in result.output


def test_unusual_but_valid_patterns_still_work(tmp_path):
    (tmp_path / "main.tex").write_text(DOC)
    (tmp_path / "drafts").mkdir()
    (tmp_path / "drafts" / "old.tex").write_text(DOC)
    (tmp_path / ".camlint.toml").write_text('extend-exclude = ["dr[a-z]fts/", "[!]", "a[", "\\\\[x"]\n')
    result = invoke("check", tmp_path, "--format", "concise")
    assert result.exit_code == 1 and "old.tex" not in result.output, result.output
