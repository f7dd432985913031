"""Holes found by the attack pass of 5 Dec (afternoon): each test fails on the code before its fix."""
from __future__ import annotations

import yaml

from tests.conftest import invoke

MANUSCRIPT = "\\documentclass{article}\n{spec}\\begin{document}\nGrad-CAM on ViT-B/16.\n\\end{document}\n"


def _counting_parse(monkeypatch, marker: str) -> list:
    calls = []
    real = yaml.parse

    def parse(stream, *a, **kw):
        if isinstance(stream, str) and marker in stream:
            calls.append(1)
        return real(stream, *a, **kw)

    monkeypatch.setattr(yaml, "parse", parse)
    return calls


def test_one_spec_named_by_many_manuscripts_is_parsed_once_per_run(tmp_path, monkeypatch):
    """Eight manuscripts naming one 2 MB camspec (`% camspec:` or --spec) parsed it eight times:
    minutes for a run whose input is 2 MB."""
    (tmp_path / "s.yaml").write_text("camspec: 1\nlayer: {block: 11}\nx-note: marker-7731\n")
    for k in range(4):
        (tmp_path / f"m{k}.tex").write_text(MANUSCRIPT.replace("{spec}", "% camspec: s.yaml\n"))
    calls = _counting_parse(monkeypatch, "marker-7731")
    invoke("check", "--no-cache", "-q", "--exit-zero", *[f"m{k}.tex" for k in range(4)], cwd=tmp_path)
    assert len(calls) == 1
    calls.clear()
    invoke("check", "--no-cache", "-q", "--exit-zero", "--spec", "s.yaml",
           *[f"m{k}.tex" for k in range(4)], cwd=tmp_path)
    assert len(calls) == 0   # parsed already in this process; a fresh process parses it once


def test_a_cached_parse_hands_out_copies_and_its_errors_again():
    from camlint.safety.yamlsafe import YAMLInputError, loads

    a = loads("layer: {block: 11}\nmarker-copy: 1\n")
    a.data["layer"]["block"] = 3
    assert loads("layer: {block: 11}\nmarker-copy: 1\n").data["layer"] == {"block": 11}
    for _ in range(2):
        try:
            loads("a: [1, 2\nmarker-bad: 1\n")
        except YAMLInputError as exc:
            assert exc.line >= 1 and "YAML" in exc.message
        else:
            raise AssertionError("a broken spec was read")


def test_aliases_that_nest_a_deep_value_in_another_are_refused_at_a_line(tmp_path):
    """Each anchor nests the one before it 60 levels deeper: within the composer's limit per line,
    1,000 levels once expanded, and the expansion overflowed the stack ("internal error")."""
    lines = ["camspec: 1", "x-a0: &a0 " + "[" * 60 + "1" + "]" * 60]
    lines += [f"x-a{i}: &a{i} " + "[" * 60 + f"*a{i - 1}" + "]" * 60 for i in range(1, 40)]
    (tmp_path / "deep.yaml").write_text("\n".join(lines) + "\n")
    result = invoke("check", "--no-cache", "deep.yaml", cwd=tmp_path)
    assert result.exit_code == 2
    assert "deep.yaml:" in result.output and "nesting deeper than" in result.output
    assert "internal error" not in result.output


def test_an_include_that_names_a_folder_says_so_at_its_line(tmp_path):
    """`\\input{.}` was reported as "resolves outside the project folder": pathlib drops the dot, so
    the sibling file `<folder>.tex` was probed instead."""
    from camlint.inputs.latex.project import load_project

    root = tmp_path / "paper"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "paper.tex").write_text("outside the project\n")
    (root / "main.tex").write_text("\\documentclass{article}\n\\begin{document}\n\\input{.}\n\\input{sub/}\n"
                                   "\\subimport{sub}{.}\n\\input{sub}\n\\end{document}\n")
    project = load_project(root / "main.tex", "main.tex")
    found = {(p.line, p.rule.code): p.message for p in project.problems}
    assert set(found) == {(3, "CAM002"), (4, "CAM002"), (5, "CAM002"), (6, "CAM002")}
    assert all("folder, not a file" in message for message in found.values())
    assert [f.display for f in project.files] == ["main.tex"]


def _cpu(fn) -> float:
    import time

    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return best


def test_many_empty_compressed_streams_cost_linear_time():
    """A .tar.gz of 20,000 empty gzip members (400 KB) took 6 s, 4x that 96 s: each member was handed
    a copy of the rest of the file."""
    import gzip

    from camlint.inputs.archive import _decompressed

    one = gzip.compress(b"", mtime=0)
    small, large = (_cpu(lambda n=n: _decompressed(one * n)) for n in (5_000, 20_000))
    assert large < 8 * small + 0.05, (small, large)


def test_a_tar_member_whose_name_is_not_utf8_refuses_the_archive_in_words(tmp_path):
    """tarfile decodes such a name to lone surrogates: the SARIF report of the archive ended in
    "internal error (UnicodeEncodeError ...)"."""
    import io
    import json
    import tarfile

    doc = b"\\documentclass{article}\n\\begin{document}\nGrad-CAM on ViT-B/16.\n\\end{document}\n"
    with tarfile.open(tmp_path / "p.tar.gz", "w:gz", format=tarfile.GNU_FORMAT, encoding="latin-1") as tf:
        info = tarfile.TarInfo("m\xe9\xff.tex")
        info.size = len(doc)
        tf.addfile(info, io.BytesIO(doc))
    result = invoke("check", "--no-cache", "--format", "sarif", "p.tar.gz", cwd=tmp_path)
    assert result.exit_code == 1 and "internal error" not in result.output
    messages = [r["message"]["text"] for run in json.loads(result.output)["runs"] for r in run["results"]]
    assert any("not UTF-8" in m for m in messages)


def test_a_lone_surrogate_escape_in_a_spec_is_an_input_error_at_its_line(tmp_path):
    """`block: "\\ud800"` reached the JSON report, whose encoder died: "internal error"."""
    (tmp_path / "s.yaml").write_text('camspec: 1\nlayer: {block: "\\ud800"}\n')
    for args in (("check", "--format", "json"), ("checklist", "--format", "json")):
        result = invoke(*args, "s.yaml", cwd=tmp_path)
        assert result.exit_code == 2 and "internal error" not in result.output
    result = invoke("check", "s.yaml", cwd=tmp_path)
    assert "s.yaml:2:" in result.output and "surrogate" in result.output


def _pdf_with_cmap(text: bytes, bfchars: bytes) -> bytes:
    """One page of Helvetica whose ToUnicode map sends some codes where the test says."""
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def\n"
            b"1 begincodespacerange <00> <FF> endcodespacerange\n" + bfchars +
            b"\nendcmap CMapName currentdict /CMap defineresource pop end end")
    content = b"BT /F1 12 Tf 72 700 Td (" + text + b") Tj ET"
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
            b"/Resources << /Font << /F1 5 0 R >> >> >>",
            b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
            b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
            b"<< /Length %d >>\nstream\n%s\nendstream" % (len(cmap), cmap)]
    out, offsets = b"%PDF-1.4\n", []
    for i, obj in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (i, obj)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1) + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    return out + b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)


def test_a_pdf_font_that_maps_to_half_a_character_gives_a_report(tmp_path):
    """A ToUnicode map sending `#` to <D800> put a lone surrogate in the text: the JSON report and
    checklist died with "internal error"."""
    import json

    (tmp_path / "p.pdf").write_bytes(_pdf_with_cmap(b"We use Grad-CAM on ViT-B/16 at block 11 #$.",
                                                    b"2 beginbfchar <23> <D800> <24> <DC00DC01> endbfchar"))
    for args in (("check", "--format", "json"), ("checklist", "--format", "json")):
        result = invoke(*args, "p.pdf", cwd=tmp_path)
        assert result.exit_code in (0, 1) and "internal error" not in result.output
        json.loads(result.output)


def test_a_manifest_year_of_unicode_or_thousands_of_digits_is_kept_as_text(tmp_path):
    """str.isdigit() holds for "²" and for a 5,000-digit year; int() raised on both and the audit
    ended in "internal error"."""
    from camlint.audit.papers import read_manifest

    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "main.tex").write_text("\\documentclass{article}\n")
    (tmp_path / "m.csv").write_text(f"path,year\na,\u00b2\nb,{'9' * 5000}\nc,2021\n", encoding="utf-8")
    papers, errors = read_manifest(tmp_path / "m.csv")
    assert not errors and [p.year for p in papers] == ["\u00b2", "9" * 5000, 2021]


def test_bibliography_names_are_resolved_once_each_and_boundedly(tmp_path, monkeypatch):
    """`\\bibliography{a,a,a,...}` resolved a path per two bytes (160 KB: 4 s of system calls, the
    8 MB limit: minutes); distinct names are now capped, with a finding at the first one over."""
    import camlint.inputs.latex.project as project

    calls = []
    real = project.resolved_inside
    monkeypatch.setattr(project, "resolved_inside", lambda *a: calls.append(1) or real(*a))
    lines = ["\\bibliography{" + ",".join(["a"] * 1000) + "}"] * 20
    lines += ["\\bibliography{" + ",".join(f"n{i}_{j}" for i in range(400)) + "}" for j in range(20)]
    (tmp_path / "m.tex").write_text("\\documentclass{article}\n" + "\n".join(lines) + "\n")
    p = project.load_project(tmp_path / "m.tex", "m.tex")
    assert len(calls) <= project.MAX_BIB_NAMES + 1
    assert [(x.line, x.rule.code) for x in p.problems] == [(22, "CAM005")]


def test_a_repeated_include_is_resolved_once_and_reported_at_each_line(tmp_path, monkeypatch):
    """40,000 `\\input{y}` lines cost 80,000 path resolutions (5 s per 400 KB, minutes at the limit)."""
    import camlint.inputs.latex.project as project

    calls = []
    real = project.resolved_inside
    monkeypatch.setattr(project, "resolved_inside", lambda *a: calls.append(1) or real(*a))
    (tmp_path / "x.tex").write_text("Text.\n")
    (tmp_path / "m.tex").write_text("\\documentclass{article}\n" + "\\input{y}\n\\input{x}\n" * 500)
    p = project.load_project(tmp_path / "m.tex", "m.tex")
    assert len(calls) <= 4
    assert [x.line for x in p.problems] == list(range(2, 1002, 2))
    assert {x.message for x in p.problems} == {"included file y not found"}


def test_a_repeated_camspec_comment_is_resolved_once(tmp_path, monkeypatch):
    import camlint.inputs.latex.analyze as analyze

    calls = []
    real = analyze.resolved_inside
    monkeypatch.setattr(analyze, "resolved_inside", lambda *a: calls.append(1) or real(*a))
    (tmp_path / "s.yaml").write_text("camspec: 1\nlayer: {block: 11}\n")
    (tmp_path / "m.tex").write_text("\\documentclass{article}\n" + "% camspec: s.yaml\n% camspec: q.yaml\n" * 300
                                    + "\\begin{document}\nGrad-CAM on ViT-B/16.\n\\end{document}\n")
    a = analyze.analyze_latex(tmp_path / "m.tex", "m.tex", use_cache=False)
    assert len(calls) == 2 and len(a.specs) == 1
    assert [p.line for p in a.problems if p.rule.code == "CAM002"] == list(range(3, 603, 2))


def test_a_zip_directory_too_large_for_the_member_limit_is_refused_before_it_is_parsed(monkeypatch):
    """zipfile builds an object per central-directory entry before the count can be checked: a
    64 MB zip of empty members took 400 MB of memory to refuse."""
    import io
    import zipfile

    from camlint.inputs.archive import MAX_DIRECTORY_BYTES, Refused, read_members

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for i in range(MAX_DIRECTORY_BYTES // 48):
            zf.writestr(zipfile.ZipInfo(f"{i:x}"), b"")
    data = buf.getvalue()

    def parse(*a, **kw):
        raise AssertionError("the central directory was parsed")

    monkeypatch.setattr(zipfile, "ZipFile", parse)
    try:
        read_members(data, "many.zip")
    except Refused as exc:
        assert "central directory" in exc.message
    else:
        raise AssertionError("not refused")


def test_the_note_on_a_spec_from_stdin_names_the_stdin_filename_not_a_temporary_path(tmp_path):
    """The note on a named YAML file without `camspec: 1` showed /tmp/camlint-stdin-XXXX/x.yaml."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    proc = subprocess.run([sys.executable, "-m", "camlint", "check", "--stdin-filename", "sub/x.yaml", "-"],
                          input="a: 1\n", capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert "note: sub/x.yaml:" in proc.stderr and "camlint-stdin-" not in proc.stderr + proc.stdout


def test_an_include_name_no_file_can_have_says_why_at_its_line(tmp_path):
    """`\\input{a<NUL>b}` and a 300-character name were "resolves outside the project folder"."""
    from camlint.inputs.latex.project import load_project

    (tmp_path / "m.tex").write_text("\\documentclass{article}\n" + "x" * 70_000 + "\n\\input{a\0b}\n\\input{" + "a" * 300
                                    + "}\n\\input{" + "b" * 253 + "}\n")
    found = {p.line: (p.rule.code, p.message) for p in load_project(tmp_path / "m.tex", "m.tex").problems}
    assert found[3][0] == "CAM002" and "NUL" in found[3][1]
    assert found[4][0] == "CAM002" and "longer than a file name" in found[4][1]
    assert found[5] == ("CAM002", f"included file {'b' * 253} not found")


def test_a_camspec_comment_naming_no_possible_file_says_why(tmp_path):
    from camlint.inputs.latex.analyze import analyze_latex

    (tmp_path / "m.tex").write_text("\\documentclass{article}\n% camspec: " + "s" * 300 + ".yaml\n"
                                    + "\\begin{document}\nGrad-CAM on ViT-B/16.\n\\end{document}\n")
    a = analyze_latex(tmp_path / "m.tex", "m.tex", use_cache=False)
    found = [(p.line, p.rule.code, p.message) for p in a.problems if p.line == 2]
    assert len(found) == 1 and found[0][1] == "CAM002" and "longer than a file name" in found[0][2]


def test_resume_skips_store_lines_that_are_not_utf8_or_not_records(tmp_path):
    """`--resume` over a papers.jsonl holding `{"id": "x"}` or bytes that are not UTF-8 ended in
    "internal error" (KeyError 'outcome', UnicodeDecodeError); such lines are damaged, and skipped."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "main.tex").write_text("\\documentclass{article}\n\\begin{document}\nGrad-CAM on ViT-B/16.\n"
                                             "\\end{document}\n")
    (tmp_path / "m.csv").write_text("path\np/main.tex\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "papers.jsonl").write_bytes(b'{"id": "x"}\n\xff\xfe{"id": "y"}\n'
                                                    b'{"id": "p/main.tex", "outcome": "ok"}\n')
    result = invoke("audit", "--manifest", "m.csv", "--out", "out", "--resume", "--no-progress", "-j", "1",
                    cwd=tmp_path)
    assert result.exit_code == 0, result.output
    from camlint.audit.store import records

    assert [r["id"] for r in records(tmp_path / "out" / "papers.jsonl")] == ["p/main.tex"]
