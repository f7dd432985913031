"""The parse cache: same report warm or cold, lives in the cache folder, survives corruption."""
from __future__ import annotations

import json

from conftest import FIXTURES, run_cli

PAPER = FIXTURES.parent / "examples" / "paper" / "main.tex"


def _report(cache_dir, *extra_env):
    proc = run_cli(PAPER, "--format", "json", env={"CAMLINT_CACHE_DIR": str(cache_dir), **dict(extra_env)})
    return json.loads(proc.stdout)


def test_warm_run_gives_the_same_report(tmp_path):
    cold = _report(tmp_path)
    files = list(tmp_path.glob("parse-*.json"))
    assert len(files) == 1
    assert _report(tmp_path) == cold


def test_corrupt_cache_is_ignored(tmp_path):
    cold = _report(tmp_path)
    for f in tmp_path.glob("parse-*.json"):
        f.write_text("{not json")
    assert _report(tmp_path) == cold


def test_cache_can_be_disabled(tmp_path):
    _report(tmp_path, ("CAMLINT_NO_CACHE", "1"))
    assert list(tmp_path.iterdir()) == []


def test_changed_text_is_reparsed(tmp_path):
    paper = tmp_path / "paper"
    paper.mkdir()
    main = paper / "main.tex"
    main.write_text("\\documentclass{article}\\begin{document}\\section{Saliency maps}\n"
                    "Grad-CAM on our ViT-B/16 at the last block.\n\\end{document}\n")
    env = {"CAMLINT_CACHE_DIR": str(tmp_path / "cache")}
    first = json.loads(run_cli(main, "--format", "json", env=env).stdout)["documents"][0]
    main.write_text(main.read_text().replace("last block", "penultimate block"))
    second = json.loads(run_cli(main, "--format", "json", env=env).stdout)["documents"][0]
    assert first["checklist"]["layer"]["value"] == {"block": -1}
    assert second["checklist"]["layer"]["value"] == {"block": -2}
