"""Find the documents in a folder: main .tex files and camspec supplements.

A YAML/JSON file is a camspec only when it says so (a top-level `camspec:` key) or is named:
by --spec, by a `% camspec: FILE` link in a .tex file of the folder, or by the configuration's
`camspecs` patterns. Any other YAML (Hydra configs, CI files, data cards) is not camlint's.
"""
from __future__ import annotations

import os
import re
import stat
from pathlib import Path

_DOCUMENTCLASS = re.compile(r"^[^%\n]*\\documentclass", re.M)
_DECLARED = {"yaml": re.compile(r"^\{?\s*[\"']?camspec[\"']?\s*:", re.M),
             "json": re.compile(r"^\s*\{?\s*\"camspec\"\s*:", re.M)}
_LINK = re.compile(r"^[ \t]*%+[ \t]*camspec[ \t]*:[ \t]*(\S+)[ \t]*$", re.M)
_HEAD_BYTES = 64 * 1024
_LINK_SCAN_BYTES = 1024 * 1024
SPEC_SUFFIXES = (".yaml", ".yml", ".json")
_VCS = {".git", ".hg", ".svn"}     # never searched, whatever `exclude` says


def _head(path: Path, size: int = _HEAD_BYTES) -> str:
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):     # never open a FIFO or a device
            return ""
        with open(path, "rb") as fh:
            return fh.read(size).decode("utf-8", errors="replace")
    except OSError:
        return ""


def is_main_tex(path: Path) -> bool:
    return bool(_DOCUMENTCLASS.search(_head(path)))


def declares_camspec(path: Path) -> bool:
    """A top-level `camspec:` key (YAML, also flow style) or `"camspec":` (JSON)."""
    return bool(_DECLARED["json" if path.suffix.lower() == ".json" else "yaml"].search(_head(path)))


def linked_specs(tex: Path) -> set[Path]:
    """Files named by `% camspec: FILE` comments in a .tex file."""
    return {(tex.parent / m.group(1)).resolve() for m in _LINK.finditer(_head(tex, _LINK_SCAN_BYTES))}


def documents_in(folder: Path, config=None, named=()) -> list[Path]:
    """Main .tex files and camspecs below `folder`, minus what the configuration excludes.

    `named`: files named as camspecs elsewhere (--spec)."""
    from camlint.config import Config

    config = config or Config()
    base = config.base() if config.relative(folder) is not None else folder.resolve()
    tex, data = [], []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _VCS and not config.excluded(Path(root) / d, True, base))
        for name in sorted(files):
            p = Path(root) / name
            suffix = p.suffix.lower()
            if config.excluded(p, False, base):
                continue
            if suffix == ".tex":
                tex.append(p)
            elif suffix in SPEC_SUFFIXES:
                data.append(p)
    mains = [p for p in tex if is_main_tex(p)]
    named = {Path(n).resolve() for n in named}.union(*(linked_specs(p) for p in tex))
    specs = [p for p in data if p.resolve() in named or config.names_camspec(p) or declares_camspec(p)]
    return sorted(mains + specs, key=lambda p: (str(p.parent), p.name))
