"""Shared helpers: run the real CLI, find the shared corpus (CI has it; skip cleanly without)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
SHARED = (ROOT.parent / "shared").resolve()


def run_cli(*args, cwd: Path | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """The real console entry point in a subprocess (exit codes, stdout, stderr)."""
    full_env = {**os.environ, "COLUMNS": "120", **(env or {})}
    full_env.pop("CAMLINT_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "camlint", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd or ROOT, env=full_env, timeout=120)


def invoke(*args, cwd: Path | None = None):
    """In-process CLI call (fast); returns click's Result."""
    from camlint.cli.main import main

    runner = CliRunner()
    old = os.getcwd()
    try:
        if cwd:
            os.chdir(cwd)
        return runner.invoke(main, [str(a) for a in args], catch_exceptions=False)
    finally:
        os.chdir(old)


def check_json(*args, cwd: Path | None = None) -> tuple[int, dict]:
    result = invoke("check", *args, "--format", "json", cwd=cwd)
    return result.exit_code, json.loads(result.output)


def doc_of(path, **kw) -> dict:
    code, data = check_json(path, **kw)
    assert data["documents"], data
    return data["documents"][0]


def lint_tex(tmp_path, body: str, preamble: str = "") -> dict:
    """`camlint check` on a one-file manuscript made of `body` (and `preamble` before the document)."""
    text = "\\documentclass{article}\n" + preamble + "\\begin{document}\n" + body + "\n\\end{document}\n"
    return doc_of(write_project(tmp_path, {"main.tex": text}))


def item_of(doc: dict, key: str) -> tuple[str, object]:
    """(status, value) of one checklist item."""
    return doc["checklist"][key]["status"], doc["checklist"][key]["value"]


def statuses(doc: dict) -> dict:
    return {k: v["status"] for k, v in doc["checklist"].items()}


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """Tests never touch the user's cache folder."""
    os.environ["CAMLINT_CACHE_DIR"] = str(tmp_path_factory.mktemp("camlint-cache"))
    yield


@pytest.fixture(scope="session")
def vit():
    """A seeded random ViT-Tiny (timm, pretrained=False): the engine tests' model."""
    torch = pytest.importorskip("torch")
    timm = pytest.importorskip("timm")
    torch.manual_seed(0)
    return timm.create_model("vit_tiny_patch16_224", pretrained=False).eval()


@pytest.fixture(scope="session")
def x():
    """One seeded random input for `vit`."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    return torch.randn(1, 3, 224, 224)


@pytest.fixture
def shared_dir() -> Path:
    if not (SHARED / "corpus" / "dev" / "labels.yaml").exists():
        pytest.skip("../shared is not available here (CI has it)")
    return SHARED


def write_project(root: Path, files: dict[str, str]) -> Path:
    """Write {relative path: text} under root; return the path of main.tex."""
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    return root / "main.tex"
