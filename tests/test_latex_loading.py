"""Project loading: includes, cycles, confinement to the project folder, encodings, positions."""
from __future__ import annotations

import os

import pytest

from camlint.inputs.latex.project import load_project
from camlint.inputs.latex.document import ParseAll, build_units
from conftest import FIXTURES, doc_of, write_project


def _project(tmp_path, files):
    main = write_project(tmp_path, files)
    return load_project(main, "main.tex")


def test_input_include_subfile_with_optional_extension(tmp_path):
    p = _project(tmp_path, {
        "main.tex": "\\input{a}\n\\include{sub/b}\n\\subfile{c.tex}\n\\input d\n",
        "a.tex": "A", "sub/b.tex": "B", "c.tex": "C", "d.tex": "D"})
    assert [f.display for f in p.files] == ["main.tex", "a.tex", "sub/b.tex", "c.tex", "d.tex"]
    assert p.problems == []


def test_import_and_subimport_resolve_like_the_import_package(tmp_path):
    p = load_project(FIXTURES / "manuscripts" / "m10_import" / "main.tex", "main.tex")
    assert [f.display for f in p.files] == ["main.tex", "chapters/intro.tex", "chapters/method/cam.tex",
                                            "chapters/method/details.tex"]


def test_cycle_is_a_finding_and_terminates(tmp_path):
    p = _project(tmp_path, {"main.tex": "\\input{a}\n", "a.tex": "\\input{b}\n", "b.tex": "x\n\\input{a}\n"})
    assert [(q.code, q.file, q.line) for q in p.problems] == [("CAM003", "b.tex", 2)]


def test_self_include_is_a_cycle(tmp_path):
    p = _project(tmp_path, {"main.tex": "\\input{main}\n"})
    assert p.problems[0].code == "CAM003"


@pytest.mark.parametrize("target", ["../outside", "../../etc/passwd", "/etc/passwd", "sub/../../outside"])
def test_paths_outside_the_project_are_refused_unread(tmp_path, target):
    root = tmp_path / "paper"
    (tmp_path / "outside.tex").write_text("SECRET Grad-CAM at the last block")
    p = _project(root, {"main.tex": f"\\input{{{target}}}\n"})
    assert [q.code for q in p.problems] == ["CAM001"]
    assert [f.display for f in p.files] == ["main.tex"]


def test_symlink_escaping_the_project_is_refused(tmp_path):
    root = tmp_path / "paper"
    root.mkdir()
    (tmp_path / "secret.tex").write_text("SECRET")
    os.symlink(tmp_path / "secret.tex", root / "link.tex")
    p = _project(root, {"main.tex": "\\input{link}\n"})
    assert [q.code for q in p.problems] == ["CAM001"]


def test_missing_file_is_a_finding_with_line(tmp_path):
    p = _project(tmp_path, {"main.tex": "text\n\\input{nothere}\n"})
    assert [(q.code, q.line, q.col) for q in p.problems] == [("CAM002", 2, 1)]


def test_commented_and_verbatim_includes_are_not_followed(tmp_path):
    p = _project(tmp_path, {"main.tex": "% \\input{a}\n\\begin{verbatim}\n\\input{b}\n\\end{verbatim}\n"})
    assert p.problems == [] and len(p.files) == 1


def test_latin1_bom_and_crlf(tmp_path):
    (tmp_path / "main.tex").write_bytes("\ufeffA\r\nM\u00fcller \\input{b}\r\n".encode("utf-8"))
    (tmp_path / "b.tex").write_bytes("Gr\xfc\xdfe\r\nsecond\r\n".encode("latin-1"))
    p = load_project(tmp_path / "main.tex", "main.tex")
    assert p.files[0].text.startswith("A\nM\u00fcller")
    assert p.files[1].text == "Gr\u00fc\u00dfe\nsecond\n"
    assert p.files[1].line_col(p.files[1].text.index("second")) == (2, 1)


def test_positions_map_back_to_file_line_and_column(tmp_path):
    p = _project(tmp_path, {"main.tex": "\\section{Saliency maps}\nSome text.\n  We use the \\texttt{last\\_block} here.\n"})
    doc = build_units(p, ParseAll())
    unit = next(u for u in doc.units if "last_block" in u.text)
    pos = unit.text.index("last_block")
    assert unit.line_col(pos) == (3, 22)


def test_latin1_manuscript_end_to_end():
    doc = doc_of(FIXTURES / "manuscripts" / "m09_latin1_crlf" / "main.tex")
    ev = doc["checklist"]["layer"]["evidence"][0]
    assert ev["line"] == 5 and "final block" in ev["text"]


def test_binary_and_oversized_includes_are_findings(tmp_path):
    (tmp_path / "bin.tex").write_bytes(b"\x00\x01\x02" * 100)
    big = tmp_path / "big.tex"
    with open(big, "wb") as fh:
        fh.truncate(9 * 1024 * 1024)
    p = _project(tmp_path, {"main.tex": "\\input{bin}\n\\input{big}\n"})
    assert [q.code for q in p.problems] == ["CAM005", "CAM005"]


def test_main_file_that_is_binary_is_an_input_error(tmp_path):
    from conftest import run_cli

    (tmp_path / "main.tex").write_bytes(b"\x00" * 10)
    proc = run_cli(tmp_path / "main.tex")
    assert proc.returncode == 2 and "binary" in proc.stderr
