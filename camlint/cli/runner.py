"""`camlint check`: expand folders, load configuration, check each document, decide the exit."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from camlint.check import check_file, display_path
from camlint.cli.config import CliOverrides, Config, load_config
from camlint.core.errors import InputError
from camlint.rules.findings import SEVERITY_RANK


@dataclass
class CheckResult:
    reports: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    skipped: list = field(default_factory=list)    # (path, why): files `check DIR` did not read
    format: str = "text"
    failed: bool = False
    notes: list = field(default_factory=list)
    fail_on: dict = field(default_factory=dict)     # report path -> the severity that fails the gate


def expand(paths: list[Path], config_for, spec: Path | None = None, skipped: list | None = None,
           output: Path | None = None, displays: dict | None = None) -> tuple[list[Path], list[InputError], list[str]]:
    """Files to check, input errors, and notes (a named YAML file that does not say it is a camspec).

    `skipped` collects (display path, why) for each file a folder scan did not read; `output`, the
    report file of this command, is never read from a folder (a second `check DIR -o DIR/report.md`
    would otherwise take the first run's report for a Markdown manuscript and refuse to replace it)."""
    from camlint.cli.discover import SPEC_SUFFIXES, declares_camspec, documents_in

    files, errors, notes = [], [], []
    for p in paths:
        if p.is_dir():
            passed_over: list = []
            found = documents_in(p, config_for(p), named=[spec] if spec else (), skipped=passed_over)
            if output is not None:
                stale = [f for f in found if _earlier_report(f, output)]
                passed_over.extend((f, "this command's report (-o) from an earlier run; not read") for f in stale)
                found = [f for f in found if f not in stale]
            if skipped is not None:
                skipped.extend((display_path(f), why) for f, why in passed_over)
            if not found:
                errors.append(InputError("no manuscript (.tex with \\documentclass) or camspec file found",
                                         display_path(p)))
            files.extend(found)
        elif not p.exists() and not p.is_symlink():
            errors.append(InputError("no such file or folder", display_path(p)))
        else:
            files.append(p)
            if p.suffix.lower() in SPEC_SUFFIXES and p.is_file() and not declares_camspec(p):
                notes.append(f"{(displays or {}).get(p) or display_path(p)}: no top-level `camspec: 1` key; checked as a camspec because "
                             "it was named (in a folder it would be skipped)")
    return files, errors, notes


_REPORT_HEADS = ("### camlint: ", "Checklist: ", '"camlint_version"', '<testsuites name="camlint">')


def _earlier_report(found: Path, output: Path) -> bool:
    """`found` is the -o target and was written by camlint (a report's head): it is replaced, not
    read. Anything else there (a manuscript) stays an input, and writing over it is refused."""
    from camlint.cli.discover import SPEC_SUFFIXES, TEX_SUFFIXES

    try:
        if found.suffix.lower() in TEX_SUFFIXES + SPEC_SUFFIXES or not os.path.samefile(found, output):
            return False
        from camlint.safety.safeio import read_regular

        head = read_regular(found, 4096, "report", truncate=True).decode("utf-8", "replace")
    except (OSError, ValueError):
        return False
    lines = head.splitlines()[:3]
    # the text format: a document's path, then its findings ("  PATH:LINE:COL ...") or checklist
    text_report = len(lines) > 1 and lines[0] and lines[1].lstrip().startswith((lines[0] + ":", "Checklist: "))
    return bool(text_report) or any(line.lstrip().startswith(_REPORT_HEADS) for line in lines)


PARALLEL_FROM = 8       # documents: below this, process start-up costs more than it saves
PROGRESS_FROM = 4       # documents: a progress bar from this many on (terminals only)


def _config_for(f: Path, config_file: Path | None, overrides: CliOverrides, cache: dict) -> Config:
    from camlint.cli.config import find_config_file

    cfg_path = config_file or find_config_file(Path(os.path.realpath(f)))   # realpath: no error on a link loop
    if cfg_path not in cache:
        cache[cfg_path] = (load_config(explicit=cfg_path) if cfg_path else Config()).with_overrides(overrides)
    return cache[cfg_path]


def _check_one(job):
    """One document (run in a worker process when there are many): (report, error)."""
    f, spec, cfg, display, main = job
    try:
        return check_file(f, spec=spec, config=cfg, display=display, main=main), None
    except InputError as exc:
        return None, exc


def run_check(paths: list[Path], *, spec: Path | None = None, overrides: CliOverrides = CliOverrides(),
              config_file: Path | None = None, progress: bool = False, displays: dict | None = None,
              main: str | None = None, output: Path | None = None) -> CheckResult:
    """`displays`: the name to report for a file checked under another name (stdin);
    `main`: the main file inside archives; `output`: the report file (-o), never read as an input."""
    from camlint.cli.discover import SPEC_SUFFIXES

    displays = displays or {}

    if spec is not None and spec.suffix.lower() not in SPEC_SUFFIXES:
        raise InputError(f"--spec takes a camspec supplement (.yaml, .yml or .json), not {display_path(spec)}")
    result = CheckResult()
    configs: dict = {}
    files, result.errors, result.notes = expand(
        paths, lambda p: _config_for(p, config_file, overrides, configs), spec, result.skipped, output, displays)
    if spec is not None and not spec.is_file():
        result.errors.append(InputError("no such spec file", display_path(spec)))
        spec = None
    jobs = [(f, spec, _config_for(Path(displays.get(f, f)), config_file, overrides, configs), displays.get(f), main)
            for f in files]
    result.format = jobs[-1][2].format if jobs else (overrides.format or "text")
    for (report, error), (_, _, cfg, _, _) in zip(_run_jobs(jobs, progress), jobs):
        if error is not None:
            result.errors.append(error)
            continue
        result.reports.append(report)
        result.fail_on[report.path] = cfg.fail_on
        if any(SEVERITY_RANK[x.severity] >= SEVERITY_RANK[cfg.fail_on] for x in report.findings):
            result.failed = True
    return result


def _run_jobs(jobs: list, progress: bool) -> list:
    bar = None
    if progress and len(jobs) >= PROGRESS_FROM:
        from rich.progress import Progress

        bar = Progress(transient=True)
        task = bar.add_task("checking", total=len(jobs))
        bar.start()
    try:
        if len(jobs) >= PARALLEL_FROM and (os.cpu_count() or 1) > 1:
            from concurrent.futures import ProcessPoolExecutor

            out = []
            with ProcessPoolExecutor(max_workers=min(os.cpu_count() or 2, 8)) as pool:
                for item in pool.map(_check_one, jobs):
                    out.append(item)
                    if bar:
                        bar.advance(task)
            return out
        out = []
        for job in jobs:
            out.append(_check_one(job))
            if bar:
                bar.advance(task)
        return out
    finally:
        if bar:
            bar.stop()
