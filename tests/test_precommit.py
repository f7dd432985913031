"""A real pre-commit run, offline: a git repository with a manuscript and a local hook."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT

GOOD = ROOT / "examples" / "paper"
BAD = FIXTURES / "manuscripts" / "m13_attention_vague"


def _git(cwd: Path, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def _repo(tmp_path: Path, paper: Path) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(paper, repo / "paper")
    camlint = f"{sys.executable} -m camlint"
    (repo / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: camlint\n        name: camlint\n"
        f"        entry: {camlint} check\n        args: [paper/]\n        language: system\n"
        "        files: \\.(tex|ya?ml|json)$\n        pass_filenames: false\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "paper")
    return repo


def _pre_commit(repo: Path) -> subprocess.CompletedProcess:
    exe = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed (it is in the test extra)")
    env = {**os.environ, "PRE_COMMIT_HOME": str(repo.parent / "pc-home"), "CAMLINT_NO_CACHE": "1"}
    return subprocess.run([exe, "run", "--all-files"], cwd=repo, capture_output=True, text=True, env=env, timeout=300)


def test_precommit_fails_on_a_bad_manuscript(tmp_path):
    proc = _pre_commit(_repo(tmp_path, BAD))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Failed" in proc.stdout and "CAM105" in proc.stdout


def test_precommit_passes_on_a_good_manuscript(tmp_path):
    proc = _pre_commit(_repo(tmp_path, GOOD))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_hook_definition_follows_pre_commit_conventions():
    import yaml

    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]
    assert hook["id"] == "camlint" and hook["language"] == "python"
    assert set(hook["types_or"]) >= {"tex", "yaml", "json"} and "files" not in hook
    assert tuple(int(x) for x in hook["minimum_pre_commit_version"].split(".")) >= (2, 9, 0)   # types_or
    assert hook["entry"].split()[:2] == ["camlint", "check"] and "--format concise" in hook["entry"]
    assert hook["pass_filenames"] is False and hook["args"] == ["."]


def test_hook_output_is_concise(tmp_path):
    """The hook's own command on a failing manuscript: one line per finding, no tables."""
    import yaml

    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]
    shutil.copytree(BAD, tmp_path / "paper")
    proc = subprocess.run([sys.executable, "-m", "camlint", *hook["entry"].split()[1:], *hook["args"]],
                          cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "CAMLINT_NO_CACHE": "1"})
    lines = proc.stdout.splitlines()
    assert proc.returncode == 1 and 0 < len(lines) <= 12
    assert all(line.startswith("paper/main.tex:") for line in lines), proc.stdout
