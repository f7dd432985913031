"""The audit's result cache: a warm paper gives the record a fresh check gives, and any change in
the paper's folder (an included file edited, a file added) or a tampered entry means a fresh check."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from camlint.audit import resultcache
from camlint.audit.papers import Paper
from camlint.audit.record import audit_paper

PAPER = FIXTURES / "manuscripts" / "m10_import"      # main.tex \import's chapters from a sub-folder


def fields(rec: dict) -> dict:
    return {k: v for k, v in rec.items() if k != "seconds"}


def fresh(paper: Paper, monkeypatch) -> dict:
    with monkeypatch.context() as m:
        m.setenv("CAMLINT_NO_CACHE", "1")
        return fields(audit_paper(paper))


@pytest.fixture
def copy(tmp_path, monkeypatch) -> Paper:
    monkeypatch.setenv("CAMLINT_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "venue" / PAPER.name
    shutil.copytree(PAPER, folder)
    return Paper(id=PAPER.name, path=str(folder), display=PAPER.name)


def entries(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "cache").glob("result-*.json"))


def test_warm_record_equals_the_fresh_check(copy, tmp_path, monkeypatch):
    cold = audit_paper(copy)
    assert cold["outcome"] == "ok" and len(entries(tmp_path)) == 1
    stamp = entries(tmp_path)[0].stat().st_mtime_ns
    warm = audit_paper(copy)
    assert fields(warm) == fields(cold) == fresh(copy, monkeypatch)
    assert entries(tmp_path)[0].stat().st_mtime_ns == stamp       # a hit writes nothing


def test_an_edited_included_file_is_checked_again(copy, tmp_path, monkeypatch):
    before = fields(audit_paper(copy))
    included = sorted(p for p in Path(copy.path).rglob("*.tex") if p.name != "main.tex")
    assert included
    for p in included:                 # the chapters, read only through main.tex's \import
        p.write_text("Nothing here.\n", encoding="utf-8")
    after = fields(audit_paper(copy))
    assert after != before
    assert after == fresh(copy, monkeypatch)


def test_any_new_entry_in_the_folder_changes_the_key(copy, tmp_path):
    cache = resultcache.result_cache()
    folder = Path(copy.path)
    key = cache.key(folder)
    assert key is not None and cache.key(folder) == key
    (folder / "extra" / "deep").mkdir(parents=True)
    key2 = cache.key(folder)
    assert key2 != key
    (folder / "extra" / "deep" / "notes.bib").write_text("@misc{a, title={b}}\n", encoding="utf-8")
    assert cache.key(folder) not in (key, key2)


def test_a_tampered_entry_is_ignored(copy, tmp_path, monkeypatch):
    truth = fields(audit_paper(copy))
    entry = entries(tmp_path)[0]
    stored = json.loads(entry.read_text(encoding="utf-8"))
    body = json.loads(stored["body"])
    body["status"] = {k: "reported" for k in body["status"]}
    body["findings"] = {}
    stored["body"] = json.dumps(body)                       # the checksum no longer matches
    entry.write_text(json.dumps(stored), encoding="utf-8")
    assert fields(audit_paper(copy)) == truth


def test_a_folder_too_large_to_fingerprint_is_not_cached(copy, tmp_path, monkeypatch):
    monkeypatch.setattr(resultcache, "MAX_ENTRIES", 2)
    assert resultcache.folder_fingerprint(Path(copy.path)) is None
    assert fields(audit_paper(copy)) == fresh(copy, monkeypatch)
    assert entries(tmp_path) == []


def test_specials_lookup_matches_pylatexenc():
    """The first-character lookup of LaTeX specials answers as pylatexenc's own scan does."""
    from pylatexenc.macrospec import LatexContextDb

    from camlint.inputs.latex.convert import latex_context as _latex_context

    db = _latex_context()
    text = "a ``b'' -- c --- d~e & f !`g ?`h `i' -x ---- '' `` ~~ &&"
    for pos in range(len(text) + 2):
        assert db.test_for_specials(text, pos) is LatexContextDb.test_for_specials(db, text, pos), pos
