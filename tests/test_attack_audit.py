"""Hostile audit manifests: a row names only papers inside the folder the user named.

The manifest's folder (or `--root DIR`) confines its rows: an absolute path, a `..` or a link
that leaves it is an error naming the manifest and the row's line, the other rows are audited,
and the exit status is 2. Each test fails on the code before the fix."""
from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import invoke

DOC = ("\\documentclass{article}\n\\begin{document}\n\\section{Method}\nWe fine-tune a ViT-B/16 and "
       "visualise Grad-CAM heatmaps of the transformer.\n\\end{document}\n")


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    """An outside folder holding a secret paper, and a venue folder with one honest paper."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.tex").write_text(DOC)
    venue = tmp_path / "venue"
    (venue / "good").mkdir(parents=True)
    (venue / "good" / "main.tex").write_text(DOC)
    return outside, venue


def _records(out: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (out / "papers.jsonl").read_text().splitlines())}


def test_manifest_rows_outside_its_folder_are_errors_at_their_line(tmp_path):
    outside, venue = _setup(tmp_path)
    os.symlink(outside / "secret.tex", venue / "link.tex")
    os.symlink(outside, venue / "linkdir")
    (venue / "papers.csv").write_text(
        "path,id\n"
        "good,G\n"
        f"{outside / 'secret.tex'},ABS\n"
        "../outside/secret.tex,DOTDOT\n"
        "link.tex,LINK\n"
        "linkdir,LINKDIR\n"
        "linkdir/secret.tex,THROUGH\n", encoding="utf-8")
    out = tmp_path / "out"
    result = invoke("audit", "--manifest", venue / "papers.csv", "--out", out, "--jobs", "1")
    assert result.exit_code == 2, result.output
    for line in (3, 4, 5, 6, 7):
        assert f"papers.csv:{line}:" in result.output, (line, result.output)
    assert "outside" in result.output and "Traceback" not in result.output
    recs = _records(out)
    assert set(recs) == {"G"} and recs["G"]["outcome"] == "ok"     # the audit went on for the good row


def test_root_option_widens_the_folder_rows_may_name(tmp_path):
    outside, venue = _setup(tmp_path)
    lists = tmp_path / "lists"
    lists.mkdir()
    (lists / "papers.csv").write_text("path,id\n../venue/good,G\n../outside/secret.tex,S\n", encoding="utf-8")
    out = tmp_path / "out"
    confined = invoke("audit", "--manifest", lists / "papers.csv", "--out", out)
    assert confined.exit_code == 2 and "papers.csv:2:" in confined.output and "papers.csv:3:" in confined.output
    widened = invoke("audit", "--manifest", lists / "papers.csv", "--root", tmp_path / "venue",
                     "--out", out, "--force")
    assert widened.exit_code == 2 and "papers.csv:3:" in widened.output and "papers.csv:2:" not in widened.output
    assert set(_records(out)) == {"G"}
    both = invoke("audit", "--manifest", lists / "papers.csv", "--root", tmp_path, "--out", out, "--force")
    assert both.exit_code == 0, both.output
    assert set(_records(out)) == {"G", "S"}


def test_a_row_swapped_for_a_link_after_reading_is_refused_by_the_worker(tmp_path):
    """The worker checks the row again right before reading it: a folder replaced by a link out
    between the manifest being read and the paper being checked is not followed."""
    from camlint.audit.papers import read_manifest
    from camlint.audit.record import audit_paper

    outside, venue = _setup(tmp_path)
    (venue / "papers.csv").write_text("path,id\ngood/main.tex,G\n", encoding="utf-8")
    papers, errors = read_manifest(venue / "papers.csv")
    assert not errors and len(papers) == 1
    (venue / "good" / "main.tex").unlink()
    (venue / "good").rmdir()
    os.symlink(outside, venue / "good")
    (outside / "main.tex").write_text(DOC)
    rec = audit_paper(papers[0])
    assert rec["outcome"] == "unreadable" and "outside" in rec["error"], rec


def test_a_store_line_nested_too_deep_is_skipped_on_resume(tmp_path):
    """json.loads raised RecursionError on a planted line of papers.jsonl: an internal error."""
    _, venue = _setup(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    (out / "papers.jsonl").write_text('{"id": "x", "a": ' + "[" * 100000 + "]" * 100000 + "}\n" + "[" * 100000 + "\n")
    result = invoke("audit", venue, "--out", out, "--resume", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert "good" in _records_ok(out)


def _records_ok(out: Path) -> set[str]:
    from camlint.audit.store import records

    return {r["id"] for r in records(out / "papers.jsonl")}


def test_an_output_folder_with_planted_links_is_never_written_through(tmp_path):
    """papers.jsonl (appended with --resume, truncated when torn), report.html and the CSVs were
    opened with a plain open(), which follows a link a submission planted in the output folder."""
    _, venue = _setup(tmp_path)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    for name in ("papers.jsonl", "report.html", "papers.csv", "summary.json"):
        out = tmp_path / f"out-{name}"
        out.mkdir()
        os.symlink(victim, out / name)
        result = invoke("audit", venue, "--out", out, "--jobs", "1", "--resume")
        assert result.exit_code == 2 and "link" in result.output, (name, result.output)
        assert victim.read_text() == "precious" and (out / name).is_symlink(), name
