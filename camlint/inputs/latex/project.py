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
from dataclasses import dataclass, field, replace
from pathlib import Path

from camlint.inputs.latex.source import VERBATIM_ENVS, SourceFile, read_source, verbatim_envs_defined
from camlint.rules.base import Hit
from camlint.rules.input import INCLUDE_CYCLE, INCLUDE_MISSING, INCLUDE_OUTSIDE_PROJECT, UNREADABLE_INPUT
from camlint.safety.paths import LinkLoop, inside, resolved_inside, unnameable

MAX_FILES = 500
MAX_PROJECT_BYTES = 64 * 1024 * 1024
MAX_BIB_NAMES = 200

_INCLUDE = re.compile(
    r"\\(?P<cmd>input|include|subfile|subimport\*?|import\*?|inputfrom|subinputfrom)"
    r"(?:\s*\{(?P<a>[^{}]*)\}(?:\s*\{(?P<b>[^{}]*)\})?|\s+(?P<bare>[^\s{}\\%]+))")
# the option and the list are bounded: "\addbibresource[" repeated scanned to the end from each
_BIB = re.compile(r"\\(?:bibliography|addbibresource)\s*(?:\[[^\]]{0,500}\])?\s*\{([^}]{0,5000})\}")


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
    problems: list[Hit] = field(default_factory=list)
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
    if not inside(main_resolved, root):
        raise ValueError(f"{main.name} is a link to a file outside its folder; not read")
    verbatim = set(VERBATIM_ENVS)
    main_src = read_source(main_resolved, main_display, verbatim)
    verbatim |= verbatim_envs_defined(main_src.text)
    project = Project(root, main_src)
    project.problems.extend(main_src.problems)
    _Reader(project, main_display, verbatim, main_resolved).visit(main_src, root, [main_resolved])
    return project


class _Reader:
    """Reads the files a project includes, depth first, each once, within the project limits."""

    def __init__(self, project: Project, main_display: str, verbatim: set[str], main_resolved: Path):
        self.project, self.main_display, self.verbatim = project, main_display, verbatim
        self.seen: dict[Path, SourceFile] = {main_resolved: project.main}
        self.total = len(project.main.text)
        self.bib_names: set[str] = set()
        self.resolved: dict[tuple[Path, str], tuple[Path | None, list[Hit]]] = {}

    def visit(self, src: SourceFile, base: Path, stack: list[Path]) -> None:
        self.project.files.append(src)
        last = 1
        for m in _INCLUDE.finditer(src.masked):
            if _in_raw_block(src, m.start()):
                continue
            found = self._include(src, m, base)
            if found is None:
                continue
            name, target, child_base, line, col = found
            child = self._child(src, name, target, stack, line, col)
            if child is None:
                continue
            self.project.segments.append((src.display, last, line))
            last = line + 1
            self.visit(child, child_base if child_base is not None else base, stack + [target])
        self.project.segments.append((src.display, last, src.n_lines))
        self._bibliographies(src)

    def _include(self, src: SourceFile, m: re.Match, base: Path):
        """(name, resolved target, folder the child's includes resolve against, line, col) of one
        include command, or None when it names nothing readable (the reason is a problem)."""
        cmd = m.group("cmd").rstrip("*")
        if m.group("bare") is not None and cmd != "input":
            return None
        name = m.group("bare") or (m.group("b") if cmd in ("import", "subimport", "inputfrom", "subinputfrom") else m.group("a"))
        if not name or not name.strip():
            return None
        if cmd in ("import", "inputfrom"):
            child_base = self.project.root / (m.group("a") or "")
        elif cmd in ("subimport", "subinputfrom"):
            child_base = src.path.parent / (m.group("a") or "")
        else:
            child_base = None
        line, col = src.line_col(m.start())
        if _names_folder(name):
            self.project.problems.append(INCLUDE_MISSING.hit(
                f"{m.group(0).strip()[:200]} names a folder, not a file: nothing is read "
                "(name the .tex file in it)", src.display, line, col))
            return None
        target = self._resolved(src, child_base if child_base is not None else base, name, line, col)
        return None if target is None else (name, target, child_base, line, col)

    def _resolved(self, src: SourceFile, base: Path, name: str, line: int, col: int) -> Path | None:
        """_resolve once per (folder, name): 40,000 `\\input{x}` lines cost 40,000 path resolutions
        (seconds per 400 KB); a repeat gets the first one's target and finding, at its own line."""
        problems = self.project.problems
        if (base, name) in self.resolved:
            target, hits = self.resolved[(base, name)]
            problems.extend(replace(h, file=src.display, line=line, col=col) for h in hits)
            return target
        n = len(problems)
        target = _resolve(self.project, src, base, name, line, col)
        self.resolved[(base, name)] = (target, problems[n:])
        return target

    def _child(self, src: SourceFile, name: str, target: Path, stack: list[Path], line: int, col: int):
        """The included file, read; None when it is skipped (read already, a cycle, a limit)."""
        problems = self.project.problems
        if target in stack:
            problems.append(INCLUDE_CYCLE.hit(f"include cycle: {name} is already being read "
                                              f"({' -> '.join(p.name for p in stack + [target])})",
                                              src.display, line, col))
            return None
        if target in self.seen:
            return None
        if len(self.seen) >= MAX_FILES or self.total > MAX_PROJECT_BYTES:
            problems.append(UNREADABLE_INPUT.hit(f"project limit reached ({MAX_FILES} files or "
                                                 f"{MAX_PROJECT_BYTES // 2**20} MB); {name} not read",
                                                 src.display, line, col))
            return None
        try:
            child = read_source(target, _display(target, self.project.root, self.main_display), self.verbatim)
        except (OSError, ValueError) as exc:
            problems.append(UNREADABLE_INPUT.hit(f"cannot read {name}: {exc}", src.display, line, col))
            return None
        self.total += len(child.text)
        problems.extend(child.problems)
        self.seen[target] = child
        return child

    def _bibliographies(self, src: SourceFile) -> None:
        for m in _BIB.finditer(src.masked):
            for name in {n.strip(): None for n in m.group(1).split(",")}:
                if name in self.bib_names:    # each name resolved once, at most MAX_BIB_NAMES: a line of
                    continue                  # `a,a,a,...` cost a path resolution per two bytes
                if len(self.bib_names) == MAX_BIB_NAMES:
                    self.project.problems.append(UNREADABLE_INPUT.hit(
                        f"more than {MAX_BIB_NAMES} bibliography files named; the rest are not read",
                        src.display, *src.line_col(m.start())))
                    return
                self.bib_names.add(name)
                self._bibliography(name)

    def _bibliography(self, name: str) -> None:
        root, bib_files = self.project.root, self.project.bib_files
        for cand in _candidates(root, name) if name.endswith(".bib") else [root / (name + ".bib")]:
            try:
                res = resolved_inside(cand, root)
            except LinkLoop:
                continue
            if res is not None and res.is_file() and res not in bib_files:
                bib_files.append(res)


def _names_folder(name: str) -> bool:
    """`.`, `..`, `sub/`, `sub/..`: pathlib drops a trailing `.` and `/`, so `\\input{.}` probed the
    sibling file `<folder>.tex` and was reported as outside the project."""
    name = name.strip().strip('"').replace("\\", "/")
    return name.endswith("/") or name.rsplit("/", 1)[-1] in (".", "..")


def _in_raw_block(src: SourceFile, offset: int) -> bool:
    """Whether offset lies in a verbatim-like block (blocks are disjoint and in file order)."""
    i = bisect.bisect_right(src.raw_begins, offset) - 1
    return i >= 0 and offset < src.raw_blocks[i].end


def _resolve(project: Project, src: SourceFile, base: Path, name: str, line: int, col: int) -> Path | None:
    if os.path.isabs(name.strip()):
        project.problems.append(INCLUDE_OUTSIDE_PROJECT.hit(
            f"{name} is an absolute path outside the project; not read", src.display, line, col))
        return None
    cands = [c for c in _candidates(base, name) if unnameable(c.absolute()) is None]
    if not cands:   # resolved_inside places such a name nowhere, which read as "outside the project"
        why = unnameable(_candidates(base, name)[-1].absolute())
        project.problems.append(INCLUDE_MISSING.hit(f"{name[:80]!r} {why}; not read", src.display, line, col))
        return None
    for cand in cands:
        try:
            res = resolved_inside(cand, project.root)
        except LinkLoop:   # a.tex -> b.tex -> a.tex
            project.problems.append(UNREADABLE_INPUT.hit(f"{name} is a link that loops; not read",
                                                         src.display, line, col))
            return None
        if res is None:
            project.problems.append(INCLUDE_OUTSIDE_PROJECT.hit(
                f"{name} resolves outside the project folder; not read", src.display, line, col))
            return None
        if res.exists() and not res.is_dir():   # a FIFO or device is refused when read (CAM005)
            return res
    folder = any(c.is_dir() for c in cands)
    project.problems.append(INCLUDE_MISSING.hit(f"{name} is a folder, not a file: nothing is read (name the .tex "
                                                "file in it)" if folder else f"included file {name} not found",
                                                src.display, line, col))
    return None
