"""`camlint sweep SPEC`: every procedure the open keys of a description admit, their maps side by
side, how much they agree, and (given object boxes) which of them localize the object.

All maps of an input come from one forward pass and one backward pass per target kind: the
engine captures activations and gradients at every candidate location at once, then computes
each variant from that cache.
"""
from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from camlint.checklist import judge
from camlint.core import items, vocab
from camlint.core.keys import EXECUTABLE_KEYS, MISSING, PARTIAL
from camlint.verify import compare
from camlint.verify.engine import compute, run_passes
from camlint.verify.images import preprocessing_config
from camlint.verify.spec import Procedure, SpecError, procedure_from
from camlint.verify.sweep_report import maps_fit, refuse_overwrites, sweep_findings

def default_axis(key: str) -> list:
    """What an open key may be when the spec leaves it open: its item's sweep axis (--space FILE overrides)."""
    return copy.deepcopy(list(items.item(key).sweep or ()))


MAX_VARIANTS = 64


@dataclass
class Variant:
    label: str
    choices: dict
    procedure: Procedure


@dataclass
class SweepResult:
    spec: str
    open_keys: list[str]
    variants: list[Variant]
    dropped: list[tuple[str, str]] = field(default_factory=list)     # (label, why)
    inputs: list[str] = field(default_factory=list)
    spearman: np.ndarray | None = None
    iou: np.ndarray | None = None
    localization: list[dict] = field(default_factory=list)           # per variant
    distinct: int = 0
    clusters: list[list[int]] = field(default_factory=list)
    capped_from: int = 0
    degenerate: list[int] = field(default_factory=list)                # constant maps on every input
    maps: dict = field(default_factory=dict)                          # input -> list of final maps
    pictures: dict = field(default_factory=dict)
    verdict: str = ""
    lint: object = None                                               # `camlint check` report of the spec
    findings: list = field(default_factory=list)                      # CAM6xx findings of the sweep

    def document(self):
        from camlint.verify.report import document, merged

        return document(self.spec, self.lint, merged(self.lint, self.findings))

    def to_json(self) -> dict:
        return {
            "spec": self.spec, "open_keys": self.open_keys, "procedures": len(self.variants),
            "distinct_maps": self.distinct, "capped_from": self.capped_from or None,
            "variants": [{"label": v.label, "choices": v.choices, "degenerate": i in self.degenerate,
                          **({"localization": self.localization[i]} if self.localization else {})}
                         for i, v in enumerate(self.variants)],
            "dropped": [{"label": lab, "why": why} for lab, why in self.dropped],
            "inputs": self.inputs,
            "agreement": {"spearman": compare.rounded_rows(self.spearman), "top10_iou": compare.rounded_rows(self.iou)},
            "clusters": [[self.variants[i].label for i in c] for c in self.clusters],
            "verdict": self.verdict,
            "findings": [f.to_json() for f in self.findings],
        }


def open_keys(data: dict) -> list[str]:
    """Checklist keys a sweep may vary: absent, placeholder or only partly stated."""
    out = []
    statuses = judge.statuses({k: data.get(k) for k in EXECUTABLE_KEYS})
    for key in items.swept_names():
        if key == "heads":
            continue
        if statuses.get(key) in (MISSING, PARTIAL):
            out.append(key)
    # heads: n/a only holds for a non-attention location, so an open location opens heads too
    if "location" in out or (judge.location_point(data.get("location")) in vocab.ATTENTION_LOCATIONS
                             and statuses.get("heads") in (MISSING, PARTIAL)):
        out.append("heads")
    return out


ENUMERATE_ALL = 4096    # up to this many combinations every one is built; beyond, a seeded sample


def _combo(axes: list[list], index: int) -> tuple:
    """The index-th combination of the product of `axes` (mixed radix, last axis fastest)."""
    out = []
    for axis in reversed(axes):
        index, r = divmod(index, len(axis))
        out.append(axis[r])
    return tuple(reversed(out))


def _combo_indices(total: int, cap: int, seed: int):
    """Every index when the product is small; else distinct seeded random ones, lazily.

    Memory stays bounded by the number drawn, never by the size of the product."""
    if total <= ENUMERATE_ALL:
        yield from range(total)
        return
    rng, drawn = random.Random(seed), set()
    for _ in range(cap * 16):
        i = rng.randrange(total)
        if i not in drawn:
            drawn.add(i)
            yield i


def _variant(data: dict, combo: tuple) -> tuple[Variant | None, str]:
    choice = dict(combo)
    errors: list[str] = []
    proc = procedure_from({**data, **choice}, errors)
    if proc.location != "F2":       # heads only exist at F2: the heads candidates do not apply
        choice.pop("heads", None)
        errors = []
        proc = procedure_from({**{k: v for k, v in data.items() if k != "heads"}, **choice}, errors)
    else:
        proc = replace(proc, gradients_from="patch_tokens")
        if isinstance(choice.get("tokens"), dict):
            choice["tokens"] = {"drop": choice["tokens"].get("drop", [])}
    if errors:
        return None, "; ".join(errors)
    return Variant(_choice_label(choice) or proc.label(), choice, proc), ""


def enumerate_variants(data: dict, space: dict, cap: int, seed: int = 0) -> tuple[list[Variant], list, int]:
    """(variants, dropped, size of the space when it was sampled, else 0); deterministic for a seed."""
    keys = open_keys(data)
    axes = [[(k, c) for c in (space[k] if k in space else default_axis(k))] for k in keys]
    axes = [a for a in axes if a]
    total = math.prod(len(a) for a in axes)
    variants, dropped, seen = [], [], set()
    for index in _combo_indices(total, cap, seed):
        variant, why = _variant(data, _combo(axes, index))
        if variant is None:
            if len(dropped) < 64:
                dropped.append((_choice_label(dict(_combo(axes, index))), why))
            continue
        if variant.procedure in seen:
            continue
        seen.add(variant.procedure)
        variants.append(variant)
        if total > ENUMERATE_ALL and len(variants) == cap:
            break
    if total > ENUMERATE_ALL:
        return variants, dropped, total
    if len(variants) > cap:
        keep = sorted(random.Random(seed).sample(range(len(variants)), cap))
        return [variants[i] for i in keep], dropped, len(variants)
    return variants, dropped, 0


def _text(v) -> str:
    """Any candidate value as short label text (a space file may hold anything)."""
    if isinstance(v, list):
        return "+".join(_text(x) for x in v[:4])
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 10 ** 12:
        return "<int>"
    text = str(v) if not isinstance(v, dict) else ",".join(_text(x) for x in list(v.values())[:4])
    return text[:40]


def _choice_label(choice: dict) -> str:
    """A short label of the open choices: 'F6 softmax grad@cls'."""
    parts = []
    for k, v in choice.items():
        if k == "tokens" and isinstance(v, dict):
            parts.append("grad@cls" if v.get("gradients_from") == "cls" else
                         "keep-cls" if not v.get("drop") else "drop-" + _text(v["drop"]))
        elif k == "target" and isinstance(v, dict):
            cls = v.get("class")
            parts.append(_text(v.get("kind")) + (f"({_text(cls)})" if cls not in (None, "predicted") else ""))
        elif k == "layer" and isinstance(v, dict):
            parts.append("blk" + (_text(v.get("blocks")) if "blocks" in v else _text(v.get("block"))))
        elif k == "heads" and isinstance(v, dict):
            parts.append(f"heads-{_text(v.get('aggregate'))}" + ("<relu" if v.get("order") == "before_relu" else ""))
        elif k == "relu":
            parts.append(f"relu-{_text(v)}")
        else:
            parts.append(_text(v))
    return " ".join(parts)


def sweep(spec_path: Path, space: dict | None = None, cap: int = MAX_VARIANTS, device: str = "auto",
          agree: float = 0.8, out: Path | None = None, force: bool = False, progress=None,
          maps_out: Path | None = None, output: Path | None = None, batch_max: int | None = None) -> SweepResult:
    """`out`, `maps_out`, `output` (-o): where the caller will write, checked here before any work
    (writable, and never over a file the spec declares); `batch_max`: inputs per forward/backward
    pass (default verify's BATCH_MAX; 1: one input at a time), fewer where the memory budget says."""
    import torch

    from camlint.verify.model import batch_size
    from camlint.verify.run import BATCH_MAX, at_lines, build_model_at, load_inputs_at, pick_device, writable_folder

    progress = progress or (lambda _text: None)
    writable_folder(out, "--out")
    writable_folder(maps_out, "--maps-out")
    progress(f"checking {spec_path.name}")
    loaded, spec, result = _plan(spec_path, space or {}, cap, force)
    refuse_overwrites(spec_path, loaded, spec, out, maps_out, output)
    dev = pick_device(device if device != "auto" else spec.runtime["device"])
    dtype = torch.float64 if spec.runtime["dtype"] == "float64" else torch.float32
    progress(f"building {spec.model.arch} on {dev.type}")
    model, _ = build_model_at(spec_path, loaded, spec)
    model = model.to(device=dev, dtype=dtype)
    pre = preprocessing_config(model, spec.model.preprocessing, spec.model.input_size)
    maps_fit(spec_path, loaded, result, len(spec.inputs), pre)
    acc, total, size = _Agreement(), len(spec.inputs), batch_size(spec.model, batch_max or BATCH_MAX)
    for first in range(0, total, size):
        ns = list(range(first, min(total, first + size)))
        progress(f"input{'s' if len(ns) > 1 else ''} {first + 1}{f'-{ns[-1] + 1}' if len(ns) > 1 else ''}/{total}: "
                 f"{len(result.variants)} procedures, one forward and backward pass")
        with at_lines(spec_path, loaded):
            got = load_inputs_at(spec_path, loaded, spec, ns, pre, model)
            for n, ps, picture in _passes(model, spec, got, ns, result.variants, dev, dtype):
                _add_input(result, acc, spec, spec.inputs[n], ps, picture)
    _summarise(result, acc, agree)
    result.findings = sweep_findings(result, loaded)
    return result


def _plan(spec_path: Path, space: dict, cap: int, force: bool):
    """Check and read the spec, enumerate its procedures: everything before the model is built."""
    from camlint.verify.run import exec_spec_at, load_spec

    loaded, lint = load_spec(spec_path, force, open_keys_allowed=True)
    data = {k: v for k, v in loaded.data.items() if not vocab.is_placeholder(v)}
    fixed = sorted(set(space).difference(open_keys(data)), key=list(space).index)   # open_keys once
    if fixed:       # a candidate list the spec overrides would be silently ignored
        raise SpecError([f"{spec_path}:{loaded.position((k,))[0]}: {k} is stated in full, so --space cannot "
                         f"vary it; leave it out of the spec (or set it to ?) to sweep it" for k in fixed])
    variants, dropped, capped = enumerate_variants(data, space, cap)
    if not variants:
        raise SpecError(["no procedure can be built from this spec and space"] + [w for _, w in dropped[:5]])
    probe = {**data, **variants[0].choices}
    probe.pop("artifacts", None)
    spec = exec_spec_at(spec_path, loaded, probe)
    if not spec.inputs:
        raise SpecError(["inputs: the sweep needs at least one input (image or .npy tensor)"])
    result = SweepResult(str(spec_path), open_keys(data), variants, dropped, capped_from=capped, lint=lint)
    return loaded, spec, result


def _passes(model, spec, loaded: dict, ns: list[int], variants: list[Variant], dev, dtype):
    """(input index, its pass, its picture) for inputs `ns`, in order: one forward pass and one
    backward pass per target kind for all inputs of one shape, each input with its own class."""
    import torch

    from camlint.verify.run import same_shape_groups

    passes = {}
    for group in same_shape_groups(ns, [loaded[n][0] for n in ns]):
        if spec.runtime.get("seed") is not None:
            torch.manual_seed(spec.runtime["seed"])
        xs = torch.stack([loaded[n][0] for n in group]).to(device=dev, dtype=dtype)
        batch = run_passes(model, xs, [v.procedure for v in variants], labels=[spec.inputs[n].label for n in group])
        passes.update({n: batch.sample(k) for k, n in enumerate(group)})
    return [(n, passes[n], loaded[n][1]) for n in ns]


def _add_input(result: SweepResult, acc, spec, item, ps, picture) -> None:
    """Every live variant's map of one input from its pass; a variant that fails is dropped everywhere."""
    finals, kept = _maps_of(result, ps)
    if len(kept) != len(result.variants):
        result.variants = [result.variants[i] for i in kept]
        for name in result.maps:
            result.maps[name] = [result.maps[name][i] for i in kept]
        acc.keep(kept)
    result.maps[item.name] = finals
    result.pictures[item.name] = picture
    result.inputs.append(item.name)
    acc.add(finals, [compare.localization(m, item.box, spec.pointing_px) for m in finals]
            if item.box is not None else None)


class _Agreement:
    """Per-input agreement matrices and localisation hits, kept in step with the live variants."""

    def __init__(self):
        self.S, self.I, self.hits = [], [], []

    def keep(self, kept: list[int]) -> None:
        self.S = [S[np.ix_(kept, kept)] for S in self.S]
        self.I = [I[np.ix_(kept, kept)] for I in self.I]
        self.hits = [[h[i] for i in kept] for h in self.hits]

    def add(self, finals: list, hits: list | None) -> None:
        S, I = compare.agreement(finals)
        self.S.append(S)
        self.I.append(I)
        if hits is not None:
            self.hits.append(hits)


def _maps_of(result: SweepResult, ps) -> tuple[list, list[int]]:
    """The final map of every variant from one shared capture; a variant that fails is dropped."""
    finals, kept = [], []
    for i, v in enumerate(result.variants):
        try:
            _, final = compute(ps, v.procedure)
        except SpecError as exc:
            result.dropped.append((v.label, "; ".join(exc.messages)))
            continue
        finals.append(final.detach().cpu().double().numpy())
        kept.append(i)
    return finals, kept


def _summarise(result: SweepResult, acc: _Agreement, agree: float) -> None:
    result.spearman = np.mean(acc.S, axis=0)
    result.iou = np.mean(acc.I, axis=0)
    first = result.maps[result.inputs[0]]
    result.distinct = len({compare.fingerprint(m, 1e-3) for m in first})
    # a map that is constant on every input (zero gradients) agrees with nothing: it has no ranks
    result.degenerate = [i for i in range(len(result.variants))
                         if all(compare.degenerate(result.maps[n][i]) for n in result.inputs)]
    live = [i for i in range(len(result.variants)) if i not in result.degenerate]
    for i in result.degenerate:
        result.spearman[i, :] = result.spearman[:, i] = np.nan
        result.iou[i, :] = result.iou[:, i] = np.nan
    sub_clusters = compare.clusters(result.spearman[np.ix_(live, live)], agree) if live else []
    result.clusters = [[live[i] for i in c] for c in sub_clusters]
    if acc.hits:
        n = len(acc.hits)
        result.localization = [{"pointing_rate": sum(h[i]["pointing"] for h in acc.hits) / n,
                                "pointing_chance": float(np.mean([h[i]["pointing_chance"] for h in acc.hits])),
                                "energy_in_box": float(np.mean([h[i]["energy_in_box"] for h in acc.hits]))}
                               for i in range(len(result.variants))]
    result.verdict = verdict(result)


def verdict(r: SweepResult) -> str:
    n = len(r.variants)
    iu = np.triu_indices(n, 1)
    pairs = r.spearman[iu]
    pairs = pairs[~np.isnan(pairs)]
    median = float(np.median(pairs)) if len(pairs) else 1.0
    sampled = r.capped_from > ENUMERATE_ALL
    text = (f"this description admits {r.capped_from or n} {'combinations of choices' if sampled else 'procedures'}"
            + (f" ({n} {'distinct procedures ' if sampled else ''}sampled)" if r.capped_from else "")
            + f"; their maps agree at median Spearman {median:.2f}; {len(r.clusters)} cluster"
            + ("s" if len(r.clusters) != 1 else "") + " of agreeing maps")
    if r.degenerate:
        text += f"; {len(r.degenerate)} give a constant (all-zero) map"
    if r.localization:
        outside = sum(1 for i, loc in enumerate(r.localization) if loc["pointing_rate"] < 0.5 and i not in r.degenerate)
        text += (f"; {outside} of the others put the maximum outside the object on most inputs (pointing game; "
                 f"chance level {r.localization[0]['pointing_chance']:.2f}: a maximum at a random pixel)")
    return text


MAX_CANDIDATES = 256     # per key of a --space file


def load_space(path: Path | None) -> dict:
    """A --space file: open checklist key -> non-empty list of candidate values (file:line on error)."""
    if path is None:
        return {}
    from camlint.core.errors import InputError
    from camlint.safety.yamlsafe import YAMLInputError, load_file

    if not path.is_file():
        raise SpecError([f"--space {path}: not a regular file"])
    try:
        loaded = load_file(path)
    except YAMLInputError as exc:
        raise SpecError([f"{path}:{exc.line}: {exc.message}"]) from None
    except (OSError, UnicodeDecodeError, InputError) as exc:
        raise SpecError([f"--space {path}: cannot read ({exc.__class__.__name__})"]) from None
    data = loaded.data
    if not isinstance(data, dict):
        raise SpecError([f"{path}:1: a space maps checklist keys to lists of candidate values"])
    problems = []
    for key, values in data.items():
        line = loaded.position((key,))[0]
        if key not in items.swept_names():
            problems.append(f"{path}:{line}: {str(key)[:60]!r} is not a key a sweep varies "
                            f"({', '.join(items.swept_names())})")
        elif not isinstance(values, list) or not 1 <= len(values) <= MAX_CANDIDATES:
            problems.append(f"{path}:{line}: {key} must list 1..{MAX_CANDIDATES} candidate values")
    if problems:
        raise SpecError(problems)
    return data
