"""Find the documents in a folder: main .tex files and camspec supplements.

A YAML/JSON file is a camspec only when it says so (a top-level `camspec:` key) or is named:
by --spec, by a `% camspec: FILE` link in a .tex file of the folder, or by the configuration's
`camspecs` patterns. Any other YAML (Hydra configs, CI files, data cards) is not camlint's.
Every candidate file that is not read is reported with the reason (`skipped`).
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
TEX_SUFFIXES = (".tex", ".ltx", ".latex")
SPEC_SUFFIXES = (".yaml", ".yml", ".json")
_VCS = {".git", ".hg", ".svn"}     # never searched, whatever `exclude` says
# the ordinary reasons a file in a paper repository is not a document (the text report lists them;
# terse formats list only the unusual ones: links, FIFOs, oversize or unreadable files)
NOT_MAIN = "no \\documentclass: not a main file (read where a main file includes it)"
NOT_CAMSPEC = ("not a camspec (no top-level `camspec:` key, not named by --spec, a `% camspec:` link "
               "or the configuration)")
ORDINARY_SKIPS = (NOT_MAIN, NOT_CAMSPEC)


def _head(path: Path, limit: int = _HEAD_BYTES) -> str:
    """The start of a regular file, decoded (UTF-16 with a BOM too); never blocks on a FIFO."""
    from camlint.inputs.latex.source import decode
    from camlint.safety.safeio import read_regular

    try:
        return decode(read_regular(path, limit, truncate=True))
    except (OSError, ValueError):
        return ""


def is_main_tex(path: Path) -> bool:
    """A \\documentclass outside a comment, anywhere in the file (comments may fill 64 KB)."""
    from camlint.inputs.latex.source import MAX_FILE_BYTES

    return bool(_DOCUMENTCLASS.search(_head(path, MAX_FILE_BYTES)))


def declares_camspec(path: Path) -> bool:
    """A top-level `camspec:` key (YAML, also flow style) or `"camspec":` (JSON)."""
    return bool(_DECLARED["json" if path.suffix.lower() == ".json" else "yaml"].search(_head(path)))


def linked_specs(tex: Path) -> set[Path]:
    """Files named by `% camspec: FILE` comments in a .tex file."""
    return {(tex.parent / m.group(1)).resolve() for m in _LINK.finditer(_head(tex, _LINK_SCAN_BYTES))}


MAX_FOLDER_DEPTH = 64


def documents_in(folder: Path, config=None, named=(), skipped: list | None = None) -> list[Path]:
    """Main .tex files and camspecs below `folder`, minus what the configuration excludes.

    `named`: files named as camspecs elsewhere (--spec). `skipped` collects (path, why) for every
    candidate that is not read."""
    from camlint.cli.config import Config

    config = config or Config()
    skipped = [] if skipped is None else skipped
    base = config.base() if config.relative(folder) is not None else folder.resolve()
    top = folder.resolve()
    tex, data, other = [], [], []
    for root, dirs, files in os.walk(folder):
        if len(Path(root).relative_to(folder).parts) >= MAX_FOLDER_DEPTH:    # os.walk recurses per level
            skipped.extend((Path(root) / d, f"more than {MAX_FOLDER_DEPTH} folders deep; not read") for d in dirs)
            dirs[:] = []
        for d in sorted(dirs):
            if (Path(root) / d).is_symlink():
                skipped.append((Path(root) / d, "a link to a folder; not followed"))
        dirs[:] = sorted(d for d in dirs if d not in _VCS and not (Path(root) / d).is_symlink()
                         and not config.excluded(Path(root) / d, True, base))
        for name in sorted(files):
            p = Path(root) / name
            suffix = p.suffix.lower()
            if config.excluded(p, False, base):
                continue
            if suffix not in TEX_SUFFIXES + SPEC_SUFFIXES:
                from camlint.inputs.frontends import discovered   # PDFs, archives, Markdown and text about CAM

                if not name.startswith(".") and not _unreadable(p, top) and discovered(p):
                    other.append(p)
                continue
            why = _unreadable(p, top)
            if why:
                skipped.append((p, why))
            elif suffix in TEX_SUFFIXES:
                tex.append(p)
            else:
                data.append(p)
    mains = []
    for p in tex:
        if is_main_tex(p):
            mains.append(p)
        else:
            skipped.append((p, NOT_MAIN))
    named = {Path(n).resolve() for n in named}.union(*(linked_specs(p) for p in tex))
    specs = []
    for p in data:
        if p.resolve() in named or config.names_camspec(p) or declares_camspec(p):
            specs.append(p)
        else:
            skipped.append((p, NOT_CAMSPEC))
    return sorted(mains + specs + other, key=lambda p: (str(p.parent), p.name))


def _unreadable(p: Path, top: Path) -> str:
    """Why a candidate file is not read at all ('' when it can be)."""
    from camlint.inputs.latex.source import MAX_FILE_BYTES
    from camlint.safety.paths import utf8_name
    from camlint.safety.safeio import inside

    if not utf8_name(p):
        return "its name is not UTF-8; not read (rename it)"
    try:
        if p.is_symlink() and not inside(p.resolve(), top):
            return "a link to a file outside the folder; not read"
        st = p.stat()
    except (OSError, RuntimeError) as exc:   # a broken or looping link
        return f"cannot be read ({getattr(exc, 'strerror', None) or exc})"
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file (a FIFO, device or socket); not read"
    if st.st_size > MAX_FILE_BYTES:
        return f"{st.st_size / 1e6:.1f} MB, over the {MAX_FILE_BYTES / 1e6:.0f} MB limit; not read"
    return ""
