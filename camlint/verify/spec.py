"""A camspec read for execution (presets expanded, values canonical, every value checked).

Everything the engine does is decided here, by name; nothing is hard-wired in the engine. The
procedure is read in camlint.verify.procedure, the model, inputs and reported maps in
camlint.verify.declared, each value by the checked readers of camlint.verify.specvalues;
this module puts them together (exec_spec) and is where the rest of verify imports them from.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from camlint.core import vocab
from camlint.core.keys import MISSING
from camlint.core.presets import apply_preset, find_preset, preset_name
from camlint.verify.declared import (ArtifactSpec, InputSpec, ModelSpec, artifact_specs, input_keys, input_specs,
                                     match_artifacts, model_spec)
from camlint.verify.procedure import Procedure, procedure_from
from camlint.verify.specvalues import (SpecError, as_flag, as_list, as_mapping, int_in, number_in, one_of,
                                       show_value)

__all__ = ["SpecError", "Procedure", "ModelSpec", "InputSpec", "ArtifactSpec", "ExecSpec",
           "exec_spec", "procedure_from", "expand_preset", "input_keys", "defaults_used", "with_lines"]


DEFAULT_TOLERANCE = {"max_abs": 0.02, "pearson": 0.99}


@dataclass
class ExecSpec:
    model: ModelSpec
    procedure: Procedure
    runtime: dict
    inputs: list[InputSpec]
    artifacts: list[ArtifactSpec]
    tolerance: dict
    fingerprint_step: float
    base_dir: Path
    pointing_px: float = 0.0
    defaults: tuple = ()         # dotted keys that change the map and were left to camlint's default


def expand_preset(data: dict) -> dict:
    """Keys a preset fixes fill the keys the spec leaves open."""
    name = preset_name(data)
    preset = find_preset(name) if isinstance(name, str) else None
    if preset is None:
        return data
    out = {k: v for k, v in data.items() if v is not None and not vocab.is_placeholder(v)}
    apply_preset(preset, out, (MISSING,))   # a value the spec states is executed as stated
    given = data["method"].get("name")
    named = vocab.canonical("method", given).value if isinstance(given, str) and given else None
    if named and named != vocab.canonical("method", preset.fixes["method"]).value:
        out["_conflict"] = f"method: name {given!r} does not match preset {preset.name} " \
                           f"({preset.fixes['method']})"
    out["method"] = preset.fixes["method"]
    out["_preset"] = preset.name
    return out


TOLERANCE_RANGES = {"max_abs": (0.0, 1.0), "pearson": (-1.0, 1.0), "spearman": (-1.0, 1.0),
                    "top10_iou": (0.0, 1.0)}


def _tolerance(data: dict, errors: list[str]) -> tuple[dict, float, float]:
    tol = dict(as_mapping(data.get("tolerance"), "tolerance", errors))
    step = number_in(tol.pop("fingerprint_step", 1e-3), "tolerance.fingerprint_step", errors, 1e-9, 1.0, 1e-3)
    pointing_px = number_in(tol.pop("pointing_px", 0), "tolerance.pointing_px", errors, 0.0, 4096.0, 0.0)
    out = {}
    for key, value in tol.items():
        if key not in TOLERANCE_RANGES:
            if not (isinstance(key, str) and key.startswith("x-")):
                errors.append(f"tolerance: {show_value(key)} is not a tolerance camlint knows "
                              f"({', '.join(TOLERANCE_RANGES)})")
            continue
        lo, hi = TOLERANCE_RANGES[key]
        out[key] = number_in(value, f"tolerance.{key}", errors, lo, hi, DEFAULT_TOLERANCE.get(key, hi))
    return {**DEFAULT_TOLERANCE, **out}, step, pointing_px


RUNTIME_DEVICES, RUNTIME_DTYPES = ("auto", "cpu", "cuda"), ("float32", "float64")


def _runtime(data: dict, errors: list[str]) -> dict:
    rt = as_mapping(data.get("runtime"), "runtime", errors)
    out = {"device": one_of(rt.get("device", "auto"), "runtime.device", errors, RUNTIME_DEVICES, "auto"),
           "dtype": one_of(rt.get("dtype", "float32"), "runtime.dtype", errors, RUNTIME_DTYPES, "float32"),
           "deterministic": as_flag(rt.get("deterministic", False), "runtime.deterministic", errors)}
    if rt.get("seed") is not None:
        out["seed"] = int_in(rt["seed"], "runtime.seed", errors, 0, 2 ** 63 - 1, 0)
    return out


# Keys that change the map when left open, and camlint's default for each.
MAP_DEFAULTS = (("weighting", "method rule"), ("relu", "method rule"), ("reshape.order", "row_major"),
                ("tokens.gradients_from", "patch_tokens"), ("postprocess.normalize", "minmax"),
                ("postprocess.upsample", "bilinear"), ("postprocess.order", "normalize_then_upsample"),
                ("postprocess.eps", "1e-07"), ("postprocess.align_corners", "false"),
                ("postprocess.size", "input"), ("runtime.dtype", "float32"))


def defaults_used(data: dict, proc: Procedure) -> tuple:
    """'postprocess.order = normalize_then_upsample' for every map-changing key the spec leaves open."""
    out = []
    for dotted, value in MAP_DEFAULTS:
        node = data
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is None or node == "method_rule":
            if dotted == "tokens.gradients_from" and not isinstance(data.get("tokens"), dict):
                continue
            shown = {"weighting": proc.weighting, "relu": ",".join(sorted(proc.relu)) or "none"}.get(dotted, value)
            out.append(f"{dotted} = {shown}")
    return tuple(out)


def exec_spec(data: dict, base_dir: Path) -> ExecSpec:
    """Raises SpecError listing every problem that prevents execution."""
    errors: list[str] = []
    if not isinstance(data, dict):
        raise SpecError([f"the spec must be a mapping of checklist keys, not {show_value(data)}"])
    data = expand_preset(data)
    if data.get("_conflict"):
        errors.append(data["_conflict"])
    model = model_spec(data, base_dir, errors)
    proc = procedure_from(data, errors)
    inputs = input_specs(data, base_dir, errors)
    artifacts = artifact_specs(data, base_dir, errors)
    names = [i.name for i in inputs]
    for name in sorted({n for n in names if names.count(n) > 1}):
        errors.append(f"inputs: the name {show_value(name)} is given to more than one input; names must be unique")
    match_artifacts([i for i in as_list(data.get("inputs"), "inputs", []) if isinstance(i, dict)
                      and (i.get("image") or i.get("tensor"))], inputs, artifacts, errors)
    tolerance, step, pointing_px = _tolerance(data, errors)
    runtime = _runtime(data, errors)
    if errors:
        raise SpecError(list(dict.fromkeys(errors)))
    return ExecSpec(model, proc, runtime, inputs, artifacts, tolerance, step, base_dir, pointing_px,
                    defaults_used(data, proc))


_KEY_PATH = re.compile(r"([A-Za-z_][\w-]*(?:\[\d+\]|\.[A-Za-z_][\w-]*)*)[: ]")


def with_lines(messages: list[str], loaded, file: str) -> list[str]:
    """'postprocess.eps must be ...' -> 'FILE:LINE: postprocess.eps must be ...' (the key's line)."""
    out = []
    for message in messages:
        m = _KEY_PATH.match(message)
        path: tuple = ()
        if m:
            for name, index in re.findall(r"([A-Za-z_][\w-]*)|\[(\d+)\]", m.group(1)):
                path += (int(index),) if index else (name,)
        line = loaded.position(path)[0] if path else 1
        out.append(f"{file}:{line}: {message}")
    return out
