"""File names that are not UTF-8: the OS hands them back as lone surrogates, which no report, cache
key or matcher can encode. Before the fix one such file in a folder was an 'internal error' for
every format; now it is skipped with its reason, or refused when named, and printed safely."""
from __future__ import annotations

import json
import os

import pytest

from conftest import invoke

DOC = "\\documentclass{article}\n\\begin{document}\nWe use Grad-CAM on a ViT-B/16.\n\\end{document}\n"
BAD = b"bad\xff\xfe.tex"


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "main.tex").write_text(DOC)
    with open(os.path.join(os.fsencode(tmp_path), BAD), "wb") as fh:
        fh.write(DOC.encode())
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "junit", "github"])
def test_a_folder_with_a_name_that_is_not_utf8_is_checked_and_the_name_skipped(folder, fmt):
    result = invoke("check", folder, "--format", fmt)
    assert result.exit_code in (0, 1), result.output
    assert "internal error" not in result.output
    if fmt == "json":
        data = json.loads(result.stdout)
        assert [d["path"].endswith("main.tex") for d in data["documents"]] == [True]


def test_the_skip_says_why(folder):
    result = invoke("check", folder)
    assert "is not UTF-8; not read" in result.output and "bad\ufffd" in result.output


def test_a_named_file_whose_name_is_not_utf8_is_refused_with_a_message(folder):
    result = invoke("check", os.fsdecode(os.path.join(os.fsencode(folder), BAD)))
    assert result.exit_code == 2 and "file name is not UTF-8" in result.output


def test_printable_replaces_lone_surrogates():
    from camlint.safety.sanitize import printable

    shown = printable("a\udcff\ud800b\x1b[2J")
    shown.encode("utf-8")               # raised UnicodeEncodeError before
    assert shown.startswith("a\ufffd") and shown.endswith("b")


@pytest.mark.parametrize("line", ["% camspec: " + "a" * 5000, "\\input{" + "b" * 300 + "}"])
def test_a_name_over_the_system_limits_is_a_finding_not_an_unreadable_paper(tmp_path, line):
    """is_file()/exists() raise ENAMETOOLONG: the whole paper was 'cannot read: File name too long'."""
    (tmp_path / "main.tex").write_text(DOC.replace("\\end{document}", line + "\n\\end{document}"))
    result = invoke("check", tmp_path / "main.tex")
    assert result.exit_code == 1, result.output
    # CAM002 saying why (it was CAM001 "outside the project", which such a name is not)
    assert "main.tex:4:1" in result.output and "CAM002" in result.output and "longer than a file name" in result.output


def test_folders_nested_deeper_than_the_recursion_limit_are_skipped_not_a_crash(tmp_path):
    """os.walk recurses once per level: 1,100 nested folders were a RecursionError ('internal error')."""
    deep = tmp_path / "d"
    deep.mkdir()
    for _ in range(1100):                      # mkdir(parents=True) recurses as deep
        deep = deep / "a"
        deep.mkdir()
    (deep / "main.tex").write_text(DOC)
    (tmp_path / "d" / "main.tex").write_text(DOC)
    try:
        result = invoke("check", tmp_path / "d")
        assert result.exit_code in (0, 1) and "internal error" not in result.output
        assert "more than 64 folders deep; not read" in result.output
    finally:                                   # shutil.rmtree recurses as deep: undo it level by level
        (deep / "main.tex").unlink()
        while deep != tmp_path / "d":
            deep.rmdir()
            deep = deep.parent
