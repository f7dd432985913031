"""`camlint check`: expand folders, load configuration, check each document, decide the exit."""
from __future__ import annotations

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


def run_check(paths: list[Path], *, spec: Path | None = None, overrides: CliOverrides = CliOverrides(),
              config_file: Path | None = None) -> CheckResult:
    result = CheckResult()
    files, result.errors = expand(paths)
    if spec is not None and not spec.is_file():
        result.errors.append(InputError("no such spec file", display_path(spec)))
        spec = None
    configs: dict[Path | None, Config] = {}
    fail_on = overrides.fail_on
    for f in files:
        cfg_path = config_file
        if cfg_path is None:
            from camlint.config import find_config_file

            cfg_path = find_config_file(f.resolve()) if f.exists() else None
        if cfg_path not in configs:
            configs[cfg_path] = load_config(explicit=cfg_path).with_overrides(overrides) if cfg_path \
                else Config().with_overrides(overrides)
        cfg = configs[cfg_path]
        result.format = cfg.format
        fail_on = cfg.fail_on
        try:
            rep = check_file(f, spec=spec, config=cfg)
        except InputError as exc:
            result.errors.append(exc)
            continue
        result.reports.append(rep)
        level = SEVERITY_RANK[cfg.fail_on]
        if any(SEVERITY_RANK[x.severity] >= level for x in rep.findings):
            result.failed = True
    if not files:
        result.format = overrides.format or "text"
    return result
