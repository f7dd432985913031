"""The supplement front end: a camspec YAML/JSON file -> Analysis."""
from __future__ import annotations

from pathlib import Path

from camlint.checklist import judge
from camlint.core import schema
from camlint.checklist.analysis import Analysis, SpecSource
from camlint.core.architectures import architecture_of
from camlint.rules.findings import Evidence
from camlint.core.keys import KEYS
from camlint.core.presets import Preset, apply_presets, find_preset, preset_name
from camlint.rules.spec import UNKNOWN_PRESET
from camlint.rules.suppress import parse_ignore_entry
from camlint.safety.yamlsafe import LoadedYAML, loads, read_text

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
    followed = spec_preset(src, a.problems)
    apply_presets([followed] if followed else [], a.values, a.evidence)
    a.arch = architecture_of(a.values)
    a.statuses = judge.statuses(a.values, prefix_tokens=None if a.arch is None else a.arch.num_prefix_tokens > 0)
    a.evidence.update(spec_evidence(src, text_lines))
    a.sections = {(display, ev.line): key for key, evs in a.evidence.items() for ev in evs}
    a.suppressions.extend(ignores_of(src))
    return a


def spec_preset(src: SpecSource, problems: list) -> tuple[Preset, Evidence] | None:
    """The preset a camspec follows (`method: {preset: NAME}`) and where it says so; an unknown
    name is a problem (CAM306) and follows nothing."""
    name = preset_name(src.data)
    if not name:
        return None
    line, col = src.position(("method", "preset"))
    preset = find_preset(name)
    if preset is None:
        problems.append(UNKNOWN_PRESET.hit(f"unknown preset {name!r} (camlint presets lists them)",
                                           src.file, line, col))
        return None
    return preset, Evidence(src.file, line, col, f"preset: {name}")


def ignores_of(src: SpecSource) -> list:
    """Directives from a spec's x-camlint-ignore list."""
    entries = src.data.get("x-camlint-ignore")
    if not isinstance(entries, list):
        return []
    out = []
    for i, entry in enumerate(entries):
        line, col = src.position(("x-camlint-ignore", i))
        out.append(parse_ignore_entry(entry, src.file, line, col))
    return out
