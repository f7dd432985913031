"""Find the documents in a folder: main .tex files and camspec supplements."""
from __future__ import annotations

import os
import re
from pathlib import Path

from camlint.keys import KEYS

_DOCUMENTCLASS = re.compile(r"^[^%\n]*\\documentclass", re.M)
_SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "__pycache__", ".hypothesis", "build", "dist"}
_SPEC_KEY = re.compile(r"^(camspec|" + "|".join(KEYS) + r")\s*:", re.M)
_HEAD_BYTES = 64 * 1024


def _head(path: Path) -> str:
    try:
        with open(path, "rb") as fh:
            return fh.read(_HEAD_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def is_main_tex(path: Path) -> bool:
    return bool(_DOCUMENTCLASS.search(_head(path)))


def is_camspec(path: Path) -> bool:
    """A YAML/JSON file whose top-level keys include the camspec version or checklist keys."""
    head = _head(path)
    if path.suffix == ".json":
        return '"camspec"' in head or sum(f'"{k}"' in head for k in KEYS) >= 3
    return len(set(m.group(1) for m in _SPEC_KEY.finditer(head))) >= 2 or bool(re.search(r"^camspec\s*:", head, re.M))


def documents_in(folder: Path) -> list[Path]:
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            p = Path(root) / name
            suffix = p.suffix.lower()
            if suffix == ".tex" and is_main_tex(p):
                found.append(p)
            elif suffix in (".yaml", ".yml", ".json") and not name.startswith(".") and is_camspec(p):
                found.append(p)
            elif not name.startswith("."):
                from camlint.inputs import discovered   # PDFs, archives, Markdown and text about CAM

                if discovered(p):
                    found.append(p)
    return found
