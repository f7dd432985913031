"""Configuration: [tool.camlint] in pyproject.toml, .camlint.toml or .camlint.yaml.

Found by walking up from the checked file; the nearest file wins. CLI flags override it.
Selectors (camlint.rules.selectors) name rules by code, prefix, name or ALL; file patterns
(per-file-ignores, exclude, camspecs) are gitignore-style, relative to the configuration
file's folder: `*` stays within one folder, `**` crosses folders, `dir/` names a folder.
"""
from __future__ import annotations

import difflib
import os
import tomllib
from dataclasses import dataclass, field, fields
from functools import lru_cache
from pathlib import Path

from camlint.core.severity import SEVERITIES, Severity
from camlint.core.errors import InputError
from camlint.formats import FORMATS
from camlint.safety.safeio import NotRegularFile, read_regular
from camlint.rules.selectors import Layer, check_selectors, enabled, matches, most_specific, split_values
from camlint.safety.yamlsafe import YAMLInputError, loads

__all__ = ["Config", "CliOverrides", "load_config", "find_config_file", "matches"]

CONFIG_NAMES = (".camlint.toml", ".camlint.yaml", ".camlint.yml", "pyproject.toml")
LEVELS = tuple(s.value for s in SEVERITIES)   # plain words, for messages
MAX_CONFIG_BYTES = 1024 * 1024
# Folders and files never searched in folder mode unless `exclude` replaces this list.
DEFAULT_EXCLUDE = (".*", "node_modules/", "__pycache__/", "venv/", "build/", "dist/")
# setting -> attribute of Config, in the order --show-settings prints them
SETTINGS = {
    "select": "select", "extend-select": "extend_select", "ignore": "ignore", "extend-ignore": "extend_ignore",
    "severity": "severity", "per-file-ignores": "per_file_ignores",
    "extend-per-file-ignores": "extend_per_file_ignores", "fail-on": "fail_on", "format": "format",
    "exclude": "exclude", "extend-exclude": "extend_exclude", "camspecs": "camspecs",
}


@dataclass(frozen=True)
class CliOverrides:
    select: tuple = ()
    ignore: tuple = ()
    extend_select: tuple = ()
    fail_on: str | None = None
    format: str | None = None

    def layer(self) -> Layer | None:
        if not (self.select or self.ignore or self.extend_select):
            return None
        return Layer(tuple(split_values(self.select)) or None, tuple(split_values(self.extend_select)),
                     tuple(split_values(self.ignore)))


@lru_cache(maxsize=512)
def _spec(patterns: tuple):
    """Patterns come from the checked repository's own configuration: matched with RE2 (linear time),
    since Python's backtracking regexes take exponential time on `*a*a*a*a*a*a*a*ax`."""
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns, backend="re2")


def _checked_patterns(patterns: list[str], name: str, where: str) -> list[str]:
    """Each pattern compiled once here, so a malformed one (`\\`, `[z-a]`, `[[:alpha:]]`) is an
    error naming the setting, not an exception from pathspec or RE2 when a file is matched."""
    import warnings

    for pattern in patterns:
        try:
            with warnings.catch_warnings():      # pathspec's FutureWarning about nested sets
                warnings.simplefilter("ignore")
                _spec((pattern,)).match_file("x")
        except Exception as exc:                 # pathspec, re and RE2 each raise their own class
            raise InputError(f"{name}: {pattern!r} is not a valid file pattern ({exc})", where) from None
    return patterns


@dataclass
class Config:
    source: Path | None = None
    select: list[str] = field(default_factory=lambda: ["ALL"])
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    extend_ignore: list[str] = field(default_factory=list)
    severity: dict[str, Severity] = field(default_factory=dict)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    extend_per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    fail_on: Severity = Severity.ERROR
    format: str = "text"
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDE))
    extend_exclude: list[str] = field(default_factory=list)
    camspecs: list[str] = field(default_factory=list)
    cli: CliOverrides = field(default_factory=CliOverrides)
    origins: dict[str, str] = field(default_factory=dict)    # setting -> where its value came from

    def layers(self) -> list[Layer]:
        file_layer = Layer(tuple(self.select), tuple(self.extend_select), (*self.ignore, *self.extend_ignore))
        cli = self.cli.layer()
        return [file_layer, cli] if cli else [file_layer]

    def enabled(self, rule) -> bool:
        return enabled(rule, self.layers())

    def base(self) -> Path:
        """The folder that file patterns are relative to."""
        return self.source.resolve().parent if self.source is not None else Path.cwd().resolve()

    def relative(self, path: Path | str, base: Path | None = None) -> str | None:
        """`path` relative to `base` (default: the configuration's folder), '/'-separated; None outside it."""
        try:
            rel = os.path.relpath(Path(path).resolve(), base or self.base())
        except ValueError:
            return None
        if rel == ".." or rel.startswith(".." + os.sep):
            return None
        # a name that is not UTF-8 (bytes kept as surrogates) cannot reach the UTF-8 matcher as is
        return Path(rel).as_posix().encode("utf-8", "surrogateescape").decode("utf-8", "replace")

    def ignored_in(self, rule, file: str) -> bool:
        table = {**self.per_file_ignores, **self.extend_per_file_ignores}
        if not table:
            return False
        rel = self.relative(file)
        return rel is not None and any(
            _spec((pattern,)).match_file(rel) and any(matches(rule, s) for s in selectors)
            for pattern, selectors in table.items())

    def excluded(self, path: Path, is_dir: bool, base: Path | None = None) -> bool:
        rel = self.relative(path, base)
        if rel is None or rel == ".":
            return False
        return _spec((*self.exclude, *self.extend_exclude)).match_file(rel + ("/" if is_dir else ""))

    def names_camspec(self, path: Path) -> bool:
        rel = self.relative(path)
        return bool(self.camspecs) and rel is not None and _spec(tuple(self.camspecs)).match_file(rel)

    def severity_for(self, rule, default: Severity) -> Severity:
        return most_specific(rule, self.severity) or default

    def with_overrides(self, o: CliOverrides) -> "Config":
        c = Config(**{f.name: getattr(self, f.name) for f in fields(self)})
        c.origins = dict(self.origins)
        c.cli = o
        for flag, setting in (("select", "select"), ("ignore", "ignore"), ("extend_select", "extend-select")):
            if getattr(o, flag):
                c.origins[setting] = f"{c.origins.get(setting, 'default')}, then --{setting} on the command line"
        if o.fail_on:
            c.fail_on, c.origins["fail-on"] = Severity(o.fail_on), "command line (--fail-on)"
        if o.format:
            c.format, c.origins["format"] = o.format, "command line (--format)"
        return c

    def show(self) -> str:
        """The resolved settings, one per line, each with where it came from (--show-settings)."""
        import json

        lines = [f"# configuration file: {self.source or 'none (defaults)'}"]
        for setting, attr in SETTINGS.items():
            lines.append(f"{setting} = {json.dumps(getattr(self, attr))}  # {self.origins.get(setting, 'default')}")
        cli = self.cli.layer()
        if cli:
            lines.append(f"# command line: select={list(cli.select or [])} extend-select={list(cli.extend_select)} "
                         f"ignore={list(cli.ignore)} (applied after the file)")
        from camlint.safety.sanitize import printable_lines

        # the file's path and the origins name folders of the submission: no terminal controls
        return printable_lines("\n".join(lines)) + "\n"


def _read_text(path: Path) -> str:
    try:
        raw = read_regular(path, MAX_CONFIG_BYTES, "configuration file")   # never blocks on a FIFO
    except NotRegularFile as exc:
        raise InputError(str(exc), str(path)) from None
    except ValueError:
        raise InputError(f"configuration file is over {MAX_CONFIG_BYTES // 1024} KB", str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read configuration file: {exc.strerror or exc}", str(path)) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise InputError(f"configuration file is not UTF-8 (byte 0x{raw[exc.start]:02x})", str(path), line, 1) from None


MAX_TOML_DEPTH = 32


def _too_deep(text: str) -> int:
    """The line where `[` / `{` outside strings and comments nest over MAX_TOML_DEPTH (0: never)."""
    depth, line, quote, i = 0, 1, "", 0
    while i < len(text):
        c = text[i]
        if c == "\n":
            line += 1
        elif quote:
            if c == "\\" and quote == '"':
                i += 1
            elif c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "#":
            nl = text.find("\n", i)
            i = len(text) if nl < 0 else nl - 1
        elif c in "[{":
            depth += 1
            if depth > MAX_TOML_DEPTH:
                return line
        elif c in "]}":
            depth = max(0, depth - 1)
        i += 1
    return 0


def _read(path: Path) -> dict | None:
    """The camlint table of a configuration file (None: a pyproject.toml without [tool.camlint])."""
    text = _read_text(path)
    if path.suffix in (".yaml", ".yml"):
        try:
            data = loads(text).data
        except YAMLInputError as exc:
            raise InputError(f"bad configuration: {exc.message}", str(path), exc.line, exc.col) from None
        except RecursionError:     # an alias inside itself (`a: &a [*a]`)
            raise InputError("bad configuration: an alias refers to itself", str(path)) from None
        data = {} if data is None else data
        if isinstance(data, dict) and "camlint" in data:
            data = data["camlint"] if data["camlint"] is not None else {}
    else:
        deep = _too_deep(text)
        if deep:      # tomllib recurses once per level: a RecursionError, not a message, past ~300
            raise InputError(f"bad configuration: arrays or tables nested over {MAX_TOML_DEPTH} deep",
                             str(path), deep, 1)
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"bad configuration: {exc}", str(path)) from None
        except RecursionError:
            raise InputError("bad configuration: nested too deep", str(path)) from None
        if path.name == "pyproject.toml":
            tool = data.get("tool", {})
            data = tool.get("camlint") if isinstance(tool, dict) else None
            if data is None:
                return None
        else:
            data = data.get("camlint", data)
    if not isinstance(data, dict):
        table = "[tool.camlint]" if path.name == "pyproject.toml" else "the camlint settings"
        raise InputError(f"{table} must be a table of settings, not {type(data).__name__}", str(path))
    return data


def _strings(table: dict, name: str, where: str) -> list[str]:
    v = table.get(name, [])
    v = [v] if isinstance(v, str) else v
    if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
        raise InputError(f"{name} must be a list of strings", where)
    return v


def _choice(table: dict, name: str, allowed, where: str) -> str:
    v = table[name]
    if not isinstance(v, str) or v not in allowed:
        close = difflib.get_close_matches(str(v), list(allowed), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise InputError(f"{name} must be one of {', '.join(allowed)}, not {v!r}{hint}", where)
    return v


def _pattern_map(table: dict, name: str, where: str) -> dict[str, list[str]]:
    v = table.get(name, {})
    if not isinstance(v, dict):
        raise InputError(f"{name} must map file patterns to lists of rule selectors", where)
    out = {}
    for pattern, selectors in v.items():
        selectors = [selectors] if isinstance(selectors, str) else selectors
        if not isinstance(pattern, str) or not isinstance(selectors, list):
            raise InputError(f"{name}: {pattern!r} must map to a list of rule selectors", where)
        _checked_patterns([pattern], name, where)
        out[pattern] = check_selectors(selectors, where, f"{name} {pattern!r}")
    return out


def _from_table(table: dict, source: Path) -> Config:
    where = str(source)
    unknown = sorted(str(k) for k in set(table) - set(SETTINGS))
    if unknown:
        close = difflib.get_close_matches(unknown[0], list(SETTINGS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else f" (known: {', '.join(SETTINGS)})"
        raise InputError(f"unknown configuration key(s): {', '.join(unknown)}{hint}", where)
    c = Config(source=source, origins={k: where for k in table})
    for name in ("select", "extend-select", "ignore", "extend-ignore"):
        if name in table:
            setattr(c, SETTINGS[name], check_selectors(_strings(table, name, where), where, name))
    if not c.select:
        c.select = ["ALL"]
    sev = table.get("severity", {})
    if not isinstance(sev, dict) or any(not isinstance(v, str) or v not in LEVELS for v in sev.values()):
        raise InputError("severity must map rule selectors to error, warning or info", where)
    check_selectors(list(sev), where, "severity")
    c.severity = {selector: Severity(level) for selector, level in sev.items()}
    c.per_file_ignores = _pattern_map(table, "per-file-ignores", where)
    c.extend_per_file_ignores = _pattern_map(table, "extend-per-file-ignores", where)
    if "fail-on" in table:
        c.fail_on = Severity(_choice(table, "fail-on", LEVELS, where))
    if "format" in table:
        c.format = _choice(table, "format", tuple(FORMATS), where)
    for name in ("exclude", "extend-exclude", "camspecs"):
        if name in table:
            setattr(c, SETTINGS[name], _checked_patterns(_strings(table, name, where), name, where))
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
    return _from_table(_read(path) or {}, path)
