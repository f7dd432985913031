"""A LaTeX project: the main file and everything it pulls in, read safely.

\\input, \\include, \\subfile resolve against the main file's folder; \\import{dir}{file}
against it too, \\subimport{dir}{file} against the including file's folder, and files pulled
in by an import resolve against their own folder (the import package's rule). The .tex
extension is optional. A path that resolves outside the project root (after following
symlinks) is refused unread; a missing file and an include cycle are findings.
"""
from __future__ import annotations

import bisect
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from camlint.latex.source import VERBATIM_ENVS, SourceFile, read_source, verbatim_envs_defined
from camlint.problems import Problem
from camlint.safeio import inside as _inside

MAX_FILES = 500
MAX_PROJECT_BYTES = 64 * 1024 * 1024

_INCLUDE = re.compile(
    r"\\(?P<cmd>input|include|subfile|subimport\*?|import\*?|inputfrom|subinputfrom)"
    r"(?:\s*\{(?P<a>[^{}]*)\}(?:\s*\{(?P<b>[^{}]*)\})?|\s+(?P<bare>[^\s{}\\%]+))")
_BIB = re.compile(r"\\(?:bibliography|addbibresource)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}")


@dataclass
class Include:
    file: SourceFile
    line: int
    target: SourceFile


@dataclass
class Project:
    root: Path
    main: SourceFile
    files: list[SourceFile] = field(default_factory=list)          # reading order, each once
    problems: list[Problem] = field(default_factory=list)
    segments: list[tuple[str, int, int]] = field(default_factory=list)
    bib_files: list[Path] = field(default_factory=list)

    def by_display(self, display: str) -> SourceFile | None:
        return next((f for f in self.files if f.display == display), None)


def _display(path: Path, root: Path, main_display: str) -> str:
    """Display path of a project file: next to the main file's display path."""
    rel = path.relative_to(root)
    base = os.path.dirname(main_display)
    return os.path.normpath(os.path.join(base, str(rel))) if base else str(rel)


def _candidates(base: Path, name: str) -> list[Path]:
    name = name.strip().strip('"')
    p = base / name
    return [p] if p.suffix in (".tex", ".ltx") else [p.with_name(p.name + ".tex"), p]


def load_project(main: Path, main_display: str) -> Project:
    """Read the main file and every file it includes. Raises OSError/ValueError for the main file.

    The project root is the folder the user named (the main file's folder, as named): a main
    file that is a link does not move it, and a link to a file outside it is not read."""
    root = main.absolute().parent.resolve()
    main_resolved = main.resolve()
    if not _inside(main_resolved, root):
        raise ValueError(f"{main.name} is a link to a file outside its folder; not read")
    verbatim = set(VERBATIM_ENVS)
    main_src = read_source(main_resolved, main_display, verbatim)
    verbatim |= verbatim_envs_defined(main_src.text)
    project = Project(root, main_src)
    project.problems.extend(main_src.problems)
    seen: dict[Path, SourceFile] = {main_resolved: main_src}
    total = [len(main_src.text)]

    def visit(src: SourceFile, base: Path, stack: list[Path]) -> None:
        project.files.append(src)
        last = 1
        for m in _INCLUDE.finditer(src.masked):
            line, col = src.line_col(m.start())
            if _in_raw_block(src, m.start()):
                continue
            cmd = m.group("cmd").rstrip("*")
            if m.group("bare") is not None and cmd != "input":
                continue
            name = m.group("bare") or (m.group("b") if cmd in ("import", "subimport", "inputfrom", "subinputfrom") else m.group("a"))
            if not name or not name.strip():
                continue
            if cmd in ("import", "inputfrom"):
                child_base = root / (m.group("a") or "")
            elif cmd in ("subimport", "subinputfrom"):
                child_base = src.path.parent / (m.group("a") or "")
            else:
                child_base = None
            search_base = child_base if child_base is not None else base
            target = _resolve(project, src, search_base, name, line, col)
            if target is None:
                continue
            if target in stack:
                project.problems.append(Problem("CAM003", f"include cycle: {name} is already being read "
                                                f"({' -> '.join(p.name for p in stack + [target])})",
                                                src.display, line, col))
                continue
            if target in seen:
                continue
            if len(seen) >= MAX_FILES or total[0] > MAX_PROJECT_BYTES:
                project.problems.append(Problem("CAM005", f"project limit reached ({MAX_FILES} files or "
                                                f"{MAX_PROJECT_BYTES // 2**20} MB); {name} not read",
                                                src.display, line, col))
                continue
            try:
                child = read_source(target, _display(target, root, main_display), verbatim)
            except (OSError, ValueError) as exc:
                project.problems.append(Problem("CAM005", f"cannot read {name}: {exc}", src.display, line, col))
                continue
            total[0] += len(child.text)
            project.problems.extend(child.problems)
            seen[target] = child
            project.segments.append((src.display, last, line))
            last = line + 1
            visit(child, child_base if child_base is not None else base, stack + [target])
        project.segments.append((src.display, last, src.n_lines))
        for m in _BIB.finditer(src.masked):
            for name in m.group(1).split(","):
                for cand in _candidates(root, name.strip()) if name.strip().endswith(".bib") else [root / (name.strip() + ".bib")]:
                    res = cand.resolve()
                    if _inside(res, root) and res.is_file() and res not in project.bib_files:
                        project.bib_files.append(res)

    visit(main_src, root, [main_resolved])
    return project


def _in_raw_block(src: SourceFile, offset: int) -> bool:
    """Whether offset lies in a verbatim-like block (blocks are disjoint and in file order)."""
    i = bisect.bisect_right(src.raw_begins, offset) - 1
    return i >= 0 and offset < src.raw_blocks[i].end


def _resolve(project: Project, src: SourceFile, base: Path, name: str, line: int, col: int) -> Path | None:
    root = project.root
    if os.path.isabs(name.strip()):
        project.problems.append(Problem("CAM001", f"{name} is an absolute path outside the project; not read",
                                        src.display, line, col))
        return None
    for cand in _candidates(base, name):
        try:
            res = cand.resolve()
        except (OSError, RuntimeError):   # a link loop (a.tex -> b.tex -> a.tex)
            project.problems.append(Problem("CAM005", f"{name} is a link that loops; not read",
                                            src.display, line, col))
            return None
        if not _inside(res, root):
            project.problems.append(Problem("CAM001", f"{name} resolves outside the project folder; not read",
                                            src.display, line, col))
            return None
        if res.exists() and not res.is_dir():   # a FIFO or device is refused when read (CAM005)
            return res
    project.problems.append(Problem("CAM002", f"included file {name} not found", src.display, line, col))
    return None
