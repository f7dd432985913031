"""Configuration: [tool.camlint] in pyproject.toml, .camlint.toml or .camlint.yaml.

Found by walking up from the checked file; the nearest file wins. CLI flags override it.
Selectors name rules by code (CAM105), code prefix (CAM1, CAM10), name (missing-target) or ALL.
"""
from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from camlint.errors import InputError

CONFIG_NAMES = (".camlint.toml", ".camlint.yaml", ".camlint.yml", "pyproject.toml")
_KNOWN = {"select", "ignore", "extend-select", "severity", "per-file-ignores", "fail-on", "format"}


def matches(rule, selector: str) -> bool:
    s = selector.strip()
    return (s.upper() == "ALL" or rule.code == s.upper() or rule.name == s.lower()
            or (s.upper().startswith("CAM") and rule.code.startswith(s.upper())))


@dataclass(frozen=True)
class CliOverrides:
    select: tuple = ()
    ignore: tuple = ()
    extend_select: tuple = ()
    fail_on: str | None = None
    format: str | None = None


@dataclass
class Config:
    source: Path | None = None
    select: list[str] = field(default_factory=lambda: ["ALL"])
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    severity: dict[str, str] = field(default_factory=dict)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    fail_on: str = "error"
    format: str = "text"

    def enabled(self, rule) -> bool:
        selected = any(matches(rule, s) for s in [*self.select, *self.extend_select])
        return selected and not any(matches(rule, s) for s in self.ignore)

    def ignored_in(self, rule, file: str) -> bool:
        """per-file-ignores: patterns relative to the configuration file's folder."""
        if not self.per_file_ignores:
            return False
        rel = self._relative(file)
        return any(_path_matches(rel, pattern) and any(matches(rule, s) for s in selectors)
                   for pattern, selectors in self.per_file_ignores.items())

    def _relative(self, path: str) -> str:
        """Per-file patterns are relative to the configuration file's folder."""
        import os

        if self.source is None:
            return path
        try:
            return os.path.relpath(Path(path).resolve(), self.source.resolve().parent)
        except ValueError:
            return path

    def severity_for(self, rule, default: str) -> str:
        for selector, sev in self.severity.items():
            if matches(rule, selector):
                return sev
        return default

    def apply_suppressions(self, analysis, findings):
        from camlint.suppress import apply

        return apply(analysis, findings)

    def with_overrides(self, o: CliOverrides) -> "Config":
        c = Config(**{k: getattr(self, k) for k in self.__dataclass_fields__})
        if o.select:
            c.select = _split(o.select)
        if o.ignore:
            c.ignore = [*c.ignore, *_split(o.ignore)]
        if o.extend_select:
            c.extend_select = [*c.extend_select, *_split(o.extend_select)]
        if o.fail_on:
            c.fail_on = o.fail_on
        if o.format:
            c.format = o.format
        return c


def _split(values) -> list[str]:
    return [v.strip() for value in values for v in str(value).split(",") if v.strip()]


def _path_matches(path: str, pattern: str) -> bool:
    p = path.replace("\\", "/")
    return fnmatch.fnmatch(p, pattern) or fnmatch.fnmatch(Path(p).name, pattern) or p.endswith("/" + pattern)


def _read(path: Path) -> dict | None:
    try:
        if path.suffix in (".yaml", ".yml"):
            from camlint.yamlsafe import YAMLInputError, load_file

            try:
                data = load_file(path).data or {}
            except YAMLInputError as exc:
                raise InputError(f"bad configuration: {exc.message}", str(path), exc.line, exc.col) from None
            return data.get("camlint", data) if isinstance(data, dict) else {}
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"bad configuration: {exc}", str(path)) from None
    if path.name == "pyproject.toml":
        return data.get("tool", {}).get("camlint")
    return data.get("camlint", data)


def _from_table(table: dict, source: Path) -> Config:
    from camlint.rules import RULES

    unknown = set(table) - _KNOWN
    if unknown:
        raise InputError(f"unknown configuration key(s): {', '.join(sorted(unknown))} "
                         f"(known: {', '.join(sorted(_KNOWN))})", str(source))
    c = Config(source=source)

    def strings(name):
        v = table.get(name, [])
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise InputError(f"{name} must be a list of rule codes, prefixes or names", str(source))
        return v

    c.select = strings("select") or ["ALL"]
    c.ignore = strings("ignore")
    c.extend_select = strings("extend-select")
    for sel in [*c.select, *c.ignore, *c.extend_select]:
        if not any(matches(r, sel) for r in RULES):
            raise InputError(f"selector {sel!r} matches no rule", str(source))
    sev = table.get("severity", {})
    if not isinstance(sev, dict) or any(v not in ("error", "warning", "info") for v in sev.values()):
        raise InputError("severity must map rule selectors to error, warning or info", str(source))
    c.severity = dict(sev)
    pfi = table.get("per-file-ignores", {})
    if not isinstance(pfi, dict):
        raise InputError("per-file-ignores must map file patterns to lists of rules", str(source))
    c.per_file_ignores = {k: ([v] if isinstance(v, str) else list(v)) for k, v in pfi.items()}
    c.fail_on = table.get("fail-on", "error")
    if c.fail_on not in ("error", "warning", "info"):
        raise InputError("fail-on must be error, warning or info", str(source))
    c.format = table.get("format", "text")
    return c


def find_config_file(start: Path) -> Path | None:
    folder = start if start.is_dir() else start.parent
    for d in [folder, *folder.parents]:
        for name in CONFIG_NAMES:
            f = d / name
            if f.is_file():
                if name == "pyproject.toml" and _read(f) is None:
                    continue
                return f
    return None


def load_config(start: Path | None = None, explicit: Path | None = None) -> Config:
    path = explicit or (find_config_file(start.resolve()) if start is not None else None)
    if path is None:
        return Config()
    table = _read(path)
    return _from_table(table or {}, path)
