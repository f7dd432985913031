"""The supplement front end: a camspec YAML/JSON file -> Analysis."""
from __future__ import annotations

from pathlib import Path

from camlint import judge, schema
from camlint.analysis import Analysis, SpecSource
from camlint.architectures import architecture_of
from camlint.findings import Evidence
from camlint.keys import KEYS
from camlint.yamlsafe import LoadedYAML, loads, read_text

SPEC_SUFFIXES = (".yaml", ".yml", ".json")


def spec_values(data: dict) -> dict:
    """The checklist part of a camspec, as the judge reads it."""
    return {k: data.get(k) for k in KEYS} if isinstance(data, dict) else {k: None for k in KEYS}


def source_from(loaded: LoadedYAML, display: str, line_offset: int = 0, embedded: bool = False,
                base_dir: Path | None = None) -> SpecSource:
    # keys of the wrong type are dropped here (reported by schema.validate on loaded.data)
    return SpecSource(display, schema.well_typed(loaded.data), loaded, line_offset, embedded, base_dir)


def spec_evidence(src: SpecSource, lines: list[str]) -> dict[str, list[Evidence]]:
    """One evidence per key stated in the spec: the line of its YAML key."""
    out: dict[str, list[Evidence]] = {}
    for key in KEYS:
        if key in src.data:
            line, col = src.position((key,))
            text = lines[line - 1].strip() if 0 < line <= len(lines) else key
            out[key] = [Evidence(src.file, line, col, text)]
    return out


def analyze_spec(path: Path, display: str) -> Analysis:
    """Validate a supplement and judge every key. Raises YAMLInputError for unreadable input."""
    text = read_text(path)
    loaded = loads(text)
    text_lines = text.splitlines()
    src = source_from(loaded, display, base_dir=path.resolve().parent)
    a = Analysis(path=display, kind="spec", anchor=(display, 1, 1))
    a.specs.append(src)
    a.problems.extend(schema.validate(loaded.data, loaded, display))
    a.values = spec_values(src.data)
    _preset_values(a, src)
    a.arch = architecture_of(a.values)
    a.statuses = judge.statuses(a.values, prefix_tokens=None if a.arch is None else a.arch.num_prefix_tokens > 0)
    a.evidence.update(spec_evidence(src, text_lines))
    a.sections = {(display, ev.line): key for key, evs in a.evidence.items() for ev in evs}
    a.suppressions.extend(ignores_of(src))
    return a


def _preset_values(a: Analysis, src: SpecSource) -> None:
    """`method: {preset: NAME}` fixes the keys the preset fixes, where the spec leaves them open."""
    from camlint.presets import find_preset
    from camlint.problems import Problem

    method = src.data.get("method")
    name = method.get("preset") if isinstance(method, dict) else None
    if not name:
        return
    line, col = src.position(("method", "preset"))
    preset = find_preset(name)
    if preset is None:
        a.problems.append(Problem("CAM306", f"unknown preset {name!r} (camlint presets lists them)",
                                  src.file, line, col))
        return
    for key, value in preset.fixes.items():
        if judge.status_of(key, a.values.get(key)) in ("missing", "partial"):
            a.values[key] = value
            a.evidence[key] = [Evidence(src.file, line, col, f"preset: {name}")]


def ignores_of(src: SpecSource) -> list:
    """Directives from a spec's x-camlint-ignore list."""
    from camlint.suppress import parse_ignore_entry

    entries = src.data.get("x-camlint-ignore")
    if not isinstance(entries, list):
        return []
    out = []
    for i, entry in enumerate(entries):
        line, col = src.position(("x-camlint-ignore", i))
        out.append(parse_ignore_entry(entry, src.file, line, col))
    return out
