"""The CI gate end to end: a scratch paper repository (a Hydra config, a manuscript, a camspec
supplement) through `pre-commit try-repo` and through the GitHub Action's own step scripts.

Both install camlint the way users get it (pre-commit's python environment; the action's own
virtual environment), from a wheelhouse built once for this module.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import FIXTURES, ROOT

HYDRA = ("defaults:\n  - model: vit\n  - _self_\nmodel:\n  name: vit_base_patch16_224\n  layer: blocks.11\n"
         "method: adamw\ntarget: label\ntrainer:\n  max_epochs: 30\n")
BAD_PAPER = FIXTURES / "manuscripts" / "m13_attention_vague" / "main.tex"


def _git(cwd: Path, *args):
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"})


def scratch_repository(root: Path) -> Path:
    repo = root / "paper-repo"
    shutil.copytree(ROOT / "examples" / "paper", repo / "paper")
    (repo / "supplement").mkdir()
    shutil.copy(FIXTURES / "specs" / "vit-b16-pgc-complete.yaml", repo / "supplement" / "camspec.yaml")
    (repo / "conf" / "model").mkdir(parents=True)
    (repo / "conf" / "train-config.yaml").write_text(HYDRA)
    (repo / "conf" / "model" / "vit.yaml").write_text("name: vit_base_patch16_224\nlayer: 11\nmodel: {depth: 12}\n")
    (repo / ".github").mkdir()
    (repo / ".github" / "dependabot.yml").write_text("version: 2\nupdates: []\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "paper")
    return repo


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory) -> dict:
    """pip settings that install camlint and its dependencies from local wheels only."""
    wheels = tmp_path_factory.mktemp("wheelhouse")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--wheel-dir", str(wheels),
                           str(ROOT), "setuptools"], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        pytest.skip(f"cannot build the wheels camlint needs here: {proc.stderr[-500:]}")
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(wheels), "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "PIP_NO_COMPILE": "1"}


def test_scratch_repository_passes_pre_commit_try_repo(tmp_path, wheelhouse):
    exe = shutil.which("pre-commit", path=str(Path(sys.executable).parent)) or shutil.which("pre-commit")
    if exe is None:
        pytest.skip("pre-commit is not installed (it is in the test extra)")
    repo = scratch_repository(tmp_path)
    env = {**os.environ, **wheelhouse, "PRE_COMMIT_HOME": str(tmp_path / "pc-home"), "CAMLINT_NO_CACHE": "1"}
    proc = subprocess.run([exe, "try-repo", str(ROOT), "camlint", "--all-files", "--verbose"], cwd=repo,
                          capture_output=True, text=True, env=env, timeout=900)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    assert re.search(r"camlint \(Grad-CAM on ViT reporting checklist\)\.+Passed", out), out
    assert "train-config" not in out and "│" not in out     # the Hydra config is not a camspec; concise output


# --- the GitHub Action, step by step -------------------------------------------------------

_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def _action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text())


def _run_action(repo: Path, tmp: Path, inputs: dict, pip_env: dict, installed: bool = False
                ) -> tuple[list[int], dict, str]:
    """Run the composite action's steps as the runner would: (exit status per step, outputs, log).

    `installed`: the action's environment is already there (a later step of the same job)."""
    action = _action()
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()} | inputs
    context = {"github.action_path": str(ROOT), "runner.temp": str(tmp),
               "steps.python.outputs.python-path": sys.executable}
    context |= {f"inputs.{k}": v for k, v in inputs.items()}
    outputs_file, summary = tmp / "github-output", tmp / "step-summary.md"
    base_env = {**os.environ, **pip_env, "RUNNER_TEMP": str(tmp), "GITHUB_OUTPUT": str(outputs_file),
                "GITHUB_STEP_SUMMARY": str(summary), "CAMLINT_NO_CACHE": "1"}
    statuses, log = [], ""
    for step in action["runs"]["steps"]:
        condition = step.get("if")
        if condition:
            m = re.fullmatch(r"inputs\.([\w-]+) == '(\w+)'", condition)
            assert m, f"unexpected condition {condition!r}"
            if inputs[m.group(1)] != m.group(2):
                continue
        if "uses" in step:
            if step["uses"].startswith("github/codeql-action/upload-sarif"):
                sarif = json.loads((repo / step["with"]["sarif_file"]).read_text())
                assert sarif["version"] == "2.1.0"
            continue
        assert "${{" not in step["run"], f"an expression pasted into run: {step['name']}"
        if installed and step["name"].startswith("Install"):
            continue
        env = {k: _EXPR.sub(lambda m: context[m.group(1)], str(v)) for k, v in step.get("env", {}).items()}
        proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]], cwd=repo,
                              env={**base_env, **env}, capture_output=True, text=True, timeout=900)
        statuses.append(proc.returncode)
        log += proc.stdout + proc.stderr
        if proc.returncode != 0:
            break
    outputs = dict(line.split("=", 1) for line in outputs_file.read_text().splitlines()) \
        if outputs_file.exists() else {}
    return statuses, outputs, log


def test_scratch_repository_through_the_action(tmp_path, wheelhouse):
    repo = scratch_repository(tmp_path)
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    statuses, outputs, log = _run_action(repo, temp, {"sarif": "true"}, wheelhouse)
    assert statuses == [0, 0, 0], log
    assert (temp / "camlint-venv" / "bin" / "camlint").exists()        # its own environment
    expected = subprocess.run([sys.executable, "-m", "camlint", "check", ".", "--format", "json"], cwd=repo,
                              capture_output=True, text=True).stdout
    documents = json.loads(expected)["documents"]
    assert sorted(d["path"] for d in documents) == ["paper/main.tex", "supplement/camspec.yaml"]
    assert outputs["findings"] == str(sum(len(d["findings"]) for d in documents))
    assert outputs["sarif-file"] == "camlint.sarif"

    # a second paper in a folder with a space, and a hostile-looking path: a failing gate, nothing run
    (repo / "second paper").mkdir()
    shutil.copy(BAD_PAPER, repo / "second paper" / "main.tex")
    statuses, outputs, log = _run_action(repo, temp, {"paths": "paper\nsecond paper\n"}, wheelhouse, True)
    assert statuses == [1], log
    assert "::error file=second paper/main.tex" in log and int(outputs["findings"]) > 0
    statuses, _, log = _run_action(repo, temp, {"paths": "$(touch pwned)"}, wheelhouse, True)
    assert statuses == [2] and not (repo / "pwned").exists(), log

    # unreadable input: the SARIF step fails with 2 and is not hidden
    (repo / "supplement" / "broken.yaml").write_text("camspec: 1\nmodel: [unclosed\n")
    statuses, _, log = _run_action(repo, temp, {"sarif": "true"}, wheelhouse, True)
    assert statuses == [2], log


def test_action_declares_its_outputs_and_keeps_the_job_python():
    action = _action()
    assert set(action["outputs"]) == {"findings", "sarif-file"}
    steps = action["runs"]["steps"]
    setup = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python"))
    assert setup["with"]["update-environment"] is False
    for step in steps:
        assert "|| true" not in step.get("run", "").replace('"$GITHUB_OUTPUT" || true', "")


def _readme_blocks(lang: str) -> list[str]:
    section = (ROOT / "README.md").read_text().split("## CI and pre-commit")[1]
    return re.findall(rf"```{lang}\n(.*?)\n```", section, re.S)


def test_readme_shows_the_final_configuration(tmp_path):
    workflow, hooks = (yaml.safe_load(block) for block in _readme_blocks("yaml")[:2])
    step = next(s for s in workflow["jobs"]["camlint"]["steps"] if s.get("uses", "").startswith("camlint/camlint"))
    action = _action()
    assert set(step["with"]) <= set(action["inputs"])
    used_outputs = re.findall(r"steps\.camlint\.outputs\.([\w-]+)", json.dumps(workflow))
    assert used_outputs and set(used_outputs) <= set(action["outputs"])
    hook_ids = {h["id"] for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert {h["id"] for h in hooks["repos"][0]["hooks"]} <= hook_ids
    # the configuration example is a valid configuration
    from camlint.cli.config import load_config

    toml = _readme_blocks("toml")[0]
    (tmp_path / "pyproject.toml").write_text(toml)
    config = load_config(explicit=tmp_path / "pyproject.toml")
    assert config.extend_exclude == ["drafts/"] and config.camspecs == ["supplement/*.yaml"]
