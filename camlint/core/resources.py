"""Package data: the camspec schema and the rule pages.

They live once, at the top of the repository (schemas/, rules/), and are installed as the
packages camlint.schemas and camlint.rule_pages. In a source checkout (editable install, or
running from the repository root) those packages are not importable under camlint/, so the
top-level folders are used directly.
"""
from __future__ import annotations

import functools
import importlib.resources
import json
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]


def _folder(package: str, repo_dir: str):
    try:
        return importlib.resources.files(package)
    except ModuleNotFoundError:
        return _REPO / repo_dir


def schema_dir():
    return _folder("camlint.schemas", "schemas")


def rule_pages_dir():
    return _folder("camlint.rule_pages", "rules")


SCHEMA_FILE = "camspec-1.schema.json"


@functools.lru_cache(maxsize=None)
def camspec_schema() -> dict:
    return json.loads((schema_dir() / SCHEMA_FILE).read_text(encoding="utf-8"))
