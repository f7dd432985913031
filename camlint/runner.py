"""`camlint check`: expand folders, load configuration, check each document, decide the exit."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from camlint.check import check_file, display_path
from camlint.config import CliOverrides, Config, load_config
from camlint.errors import InputError
from camlint.findings import SEVERITY_RANK


@dataclass
class CheckResult:
    reports: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    format: str = "text"
    failed: bool = False


def expand(paths: list[Path]) -> tuple[list[Path], list[InputError]]:
    files, errors = [], []
    for p in paths:
        if p.is_dir():
            from camlint.discover import documents_in

            found = documents_in(p)
            if not found:
                errors.append(InputError("no manuscript (.tex with \\documentclass) or camspec file found",
                                         display_path(p)))
            files.extend(found)
        else:
            files.append(p)
    return files, errors


PARALLEL_FROM = 8       # documents: below this, process start-up costs more than it saves
PROGRESS_FROM = 4       # documents: a progress bar from this many on (terminals only)


def _config_for(f: Path, config_file: Path | None, overrides: CliOverrides, cache: dict) -> Config:
    from camlint.config import find_config_file

    cfg_path = config_file or (find_config_file(f.resolve()) if f.exists() else None)
    if cfg_path not in cache:
        cache[cfg_path] = (load_config(explicit=cfg_path) if cfg_path else Config()).with_overrides(overrides)
    return cache[cfg_path]


def _check_one(job):
    """One document (run in a worker process when there are many): (report, error)."""
    f, spec, cfg, *rest = job
    try:
        return check_file(f, spec=spec, config=cfg, main=rest[0] if rest else None), None
    except InputError as exc:
        return None, exc


def run_check(paths: list[Path], *, spec: Path | None = None, overrides: CliOverrides = CliOverrides(),
              config_file: Path | None = None, progress: bool = False, main: str | None = None) -> CheckResult:
    result = CheckResult()
    files, result.errors = expand(paths)
    if spec is not None and not spec.is_file():
        result.errors.append(InputError("no such spec file", display_path(spec)))
        spec = None
    configs: dict = {}
    jobs = [(f, spec, _config_for(f, config_file, overrides, configs), main) for f in files]
    result.format = jobs[-1][2].format if jobs else (overrides.format or "text")
    for (report, error), (_, _, cfg, _) in zip(_run_jobs(jobs, progress), jobs):
        if error is not None:
            result.errors.append(error)
            continue
        result.reports.append(report)
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
