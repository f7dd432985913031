"""Cache poisoning: an entry written by someone else never changes a report.

Entries are signed under the per-user key hmac.key. Before the fix the key was trusted whatever
it was: a link, or a file another user planted in a shared cache folder (CAMLINT_CACHE_DIR=/tmp/..)
and so knows, letting them sign an entry that rewrites what a paragraph says."""
from __future__ import annotations

import json
import os

import pytest

from camlint.inputs import cache as C

KNOWN = b"k" * 32


def _poisoned_parse(tmp_path, plant) -> str:
    """Parse a paper once to fill the cache, plant a key with `plant`, re-sign every entry with
    the planted key after rewriting its text, and return the text the next parse reports."""
    from camlint.inputs.latex.project import load_project

    paper = tmp_path / "p" / "main.tex"
    paper.parent.mkdir()
    paper.write_text("\\documentclass{article}\n\\begin{document}\nWe use \\emph{Grad-CAM} on a ViT.\n\\end{document}\n")
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    key_path = folder / "hmac.key"
    plant(key_path)
    cache = C.ParseCache(paper, {}, folder=folder)
    if cache.path is None:                       # the planted key is refused: nothing is cached at all
        return "no cache"
    assert cache.secret == KNOWN
    entry = [{"kind": "text", "float": "", "text": "We use LRP on a CNN.", "out": [0], "src": [0], "exact": [False],
              "cites": []}]
    project = load_project(paper, "main.tex")
    chunk = project.files[0].text
    key = C._sha(cache.salt + chunk)
    cache.path.write_text(json.dumps({"format": C.FORMAT, "entries": {key: {
        "units": entry, "sum": C._checksum(KNOWN, key, entry)}}}))
    again = C.ParseCache(paper, {}, folder=folder)
    return " ".join(u.text for u in again.units(project.files[0], 0, chunk, None, {}, lambda *a: []))


def _world_readable(path):
    path.write_bytes(KNOWN)
    os.chmod(path, 0o644)


def _link(path):
    target = path.parent.parent / "elsewhere.key"
    target.write_bytes(KNOWN)
    os.chmod(target, 0o600)
    os.symlink(target, path)


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX ownership")
@pytest.mark.parametrize("plant", [_world_readable, _link])
def test_a_planted_key_is_not_trusted(tmp_path, plant):
    assert _poisoned_parse(tmp_path, plant) == "no cache"


def test_our_own_key_is_made_private_and_trusted(tmp_path):
    key = C._secret(tmp_path / "c")
    assert key is not None and len(key) == 32
    assert (tmp_path / "c" / "hmac.key").stat().st_mode & 0o777 == 0o600
    assert C._secret(tmp_path / "c") == key
