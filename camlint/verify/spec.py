"""An executable procedure, read from a validated camspec (presets expanded, values canonical).

Everything the engine does is decided here, by name; nothing is hard-wired in the engine.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from camlint import vocab
from camlint.core.methods import method_rule, relu_placements
from camlint.presets import find_preset
from camlint.verify.modelargs import MAX_IMG_SIDE, is_int, is_number


class SpecError(Exception):
    """The spec cannot be executed: carries the messages to show (one per problem)."""

    def __init__(self, messages: list[str]):
        super().__init__("; ".join(messages))
        self.messages = messages


@dataclass(frozen=True)
class Procedure:
    """One way of computing a map: every choice of the taxonomy, canonical."""
    method: str
    blocks: tuple            # block indices (negative from the end) or ("all",)
    combine: str             # single | mean | sum | max | rollout
    location: str            # F1 .. F6, F3a, F3b, mid_residual
    target_kind: str | None  # logit | softmax | log_softmax | loss (None: gradient-free)
    target_class: object     # "predicted" | "ground_truth" | int
    drop: tuple              # prefix tokens dropped: cls, dist, registers
    gradients_from: str      # patch_tokens | cls
    order: str               # row_major | column_major
    weighting: str
    heads: str | None        # mean | max | sum | as_channels (attention locations)
    heads_order: str         # before_relu | after_relu
    relu: frozenset          # after_combination, on_gradients, on_products (empty: none)
    normalize: str
    eps: float
    upsample: str
    align_corners: bool
    size: object             # "input" or (h, w)
    post_order: str
    stage: int | None = None     # Swin stage (1-based)
    grid: tuple | None = None    # stated grid (None: read from the model)
    params: tuple = ()           # preset parameters, e.g. (("discard_ratio", 0.9),)

    def param(self, name: str, default=None):
        return dict(self.params).get(name, default)

    def label(self) -> str:
        """Short human label of the choices (sweep grids, reports)."""
        where = "+".join(str(b) for b in self.blocks)
        relu = ",".join(sorted(r.replace("after_combination", "after").replace("on_", "") for r in self.relu)) or "none"
        parts = [f"b{where}", self.location, self.target_kind or "no-target",
                 "cls-kept" if "cls" not in self.drop else "cls-dropped", self.weighting, f"relu:{relu}"]
        if self.heads:
            parts.append(f"heads:{self.heads}")
        if self.normalize != "minmax":
            parts.append(f"norm:{self.normalize}")
        return " ".join(parts)


@dataclass
class ModelSpec:
    arch: str
    kwargs: dict = field(default_factory=dict)
    weights: object = None
    input_size: tuple | None = None
    preprocessing: dict = field(default_factory=dict)


@dataclass
class InputSpec:
    name: str
    image: Path | None
    tensor: Path | None
    label: object = None
    box: tuple | None = None


@dataclass
class ArtifactSpec:
    input: str
    map: Path
    sha256: str | None
    stage: str = "final"


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


def _canon(slot: str, value, errors: list[str], what: str):
    if not isinstance(value, (str, bool)):
        errors.append(f"{what}: {_show(value)} is not a value camlint verify knows")
        return None
    c = vocab.canonical(slot, value)
    if c.value is None:
        errors.append(f"{what}: {_show(value)} is not a value camlint verify knows")
    return c.value


def _show(value) -> str:
    """A value for a message: short, and safe for 5,000-digit integers."""
    if is_int(value) and abs(value) > 10 ** 12:
        return "a very large integer"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _mapping(value, what: str, errors: list[str]) -> dict:
    if value is None or vocab.is_not_applicable(value):
        return {}
    if not isinstance(value, dict):
        errors.append(f"{what} must be a mapping, not {_show(value)}")
        return {}
    return value


def _items(value, what: str, errors: list[str]) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append(f"{what} must be a list, not {_show(value)}")
        return []
    return value


def _int(value, what: str, errors: list[str], lo: int, hi: int, default: int) -> int:
    if is_int(value) and lo <= value <= hi:
        return value
    errors.append(f"{what} must be an integer in {lo}..{hi}, not {_show(value)}")
    return default


def _number(value, what: str, errors: list[str], lo: float, hi: float, default: float) -> float:
    if is_number(value) and lo <= value <= hi:
        return float(value)
    errors.append(f"{what} must be a number in [{lo:g}, {hi:g}], not {_show(value)}")
    return default


def _choice(value, what: str, errors: list[str], allowed: tuple, default: str) -> str:
    if isinstance(value, str) and value in allowed:
        return value
    errors.append(f"{what} must be one of {', '.join(allowed)}, not {_show(value)}")
    return default


def _flag(value, what: str, errors: list[str]) -> bool:
    if isinstance(value, bool):
        return value
    errors.append(f"{what} must be true or false, not {_show(value)}")
    return False


def _pair(value, what: str, errors: list[str], hi: int) -> tuple | None:
    if isinstance(value, list) and len(value) == 2 and all(is_int(v) and 1 <= v <= hi for v in value):
        return tuple(value)
    errors.append(f"{what} must be [height, width], each an integer in 1..{hi}, not {_show(value)}")
    return None


def _inside(base: Path, rel, what: str, errors: list[str]) -> Path | None:
    if not isinstance(rel, str) or not rel or "\0" in rel or len(rel) > 4096:
        errors.append(f"{what} must be a file name relative to the spec's folder, not {_show(rel)}")
        return None
    target = (base / rel).resolve()
    try:
        target.relative_to(base.resolve())
    except ValueError:
        errors.append(f"{what}: {rel} leaves the spec's folder; it is not read")
        return None
    return target


def expand_preset(data: dict) -> dict:
    """Keys a preset fixes fill the keys the spec leaves open."""
    method = data.get("method")
    name = method.get("preset") if isinstance(method, dict) else None
    preset = find_preset(name) if isinstance(name, str) and name else None
    if preset is None:
        return data
    out = dict(preset.fixes)
    out.update({k: v for k, v in data.items() if v is not None and not vocab.is_placeholder(v)})
    given = method.get("name")
    named = vocab.canonical("method", given).value if isinstance(given, str) and given else None
    if named and named != vocab.canonical("method", preset.fixes["method"]).value:
        out["_conflict"] = f"method: name {given!r} does not match preset {preset.name} " \
                           f"({preset.fixes['method']})"
    out["method"] = preset.fixes["method"]
    out["_preset"] = preset.name
    return out


def _layer(data: dict, errors: list[str]) -> tuple[tuple, str, int | None]:
    """(blocks, combine, Swin stage) from `layer`."""
    layer = data.get("layer")
    if not isinstance(layer, dict):
        errors.append("layer: give {block: N} or {blocks: [...], combine: ...}")
        return (-1,), "single", None
    stage = _int(layer["stage"], "layer.stage", errors, 1, 16, 1) if layer.get("stage") is not None else None
    if "blocks" in layer:
        raw = layer["blocks"]
        if raw == "all":
            blocks = ("all",)
        else:
            items = _items(raw, "layer.blocks", errors)[:256] or [-1]
            blocks = tuple(_int(b, "layer.blocks", errors, -1024, 1023, -1) for b in items)
        combine = _canon("layer.combine", layer.get("combine", "mean"), errors, "layer.combine") or "mean"
        return blocks, combine, stage
    if "block" in layer:
        return (_int(layer["block"], "layer.block", errors, -1024, 1023, -1),), "single", stage
    errors.append("layer: give {block: N} or {blocks: [...], combine: ...}")
    return (-1,), "single", stage


def _target(data: dict, errors: list[str]) -> tuple[str | None, object]:
    target = data.get("target")
    if target is None or vocab.is_not_applicable(target):
        return None, "predicted"
    if not isinstance(target, dict):
        errors.append(f"target must be {{kind: ..., class: ...}}, not {_show(target)}")
        return None, "predicted"
    kind = _canon("target.kind", target.get("kind"), errors, "target.kind")
    if target.get("head") is not None:
        errors.append("target.head: camlint verify scores the model's own output (a distilled model's heads "
                      "averaged, as timm does in eval mode); choosing one head is not supported")
    cls = target.get("class", "predicted")
    if isinstance(cls, str):
        canon = vocab.canonical("target.class", cls).value
        if canon is None:
            errors.append(f"target.class: label names ({_show(cls)}) need a label map; use a class index")
        cls = canon or "predicted"
    elif not (is_int(cls) and 0 <= cls < 1_000_000):
        errors.append(f"target.class must be predicted, ground_truth or a class index, not {_show(cls)}")
        cls = "predicted"
    if kind in ("similarity", "itm"):
        errors.append(f"target.kind: {kind} needs an image-text model; timm classifiers give logits")
    return kind, cls


def _tokens(data: dict, errors: list[str]) -> tuple[tuple, str]:
    tokens = data.get("tokens")
    if tokens is None or vocab.is_not_applicable(tokens):
        return ("cls", "dist", "registers"), "patch_tokens"   # n/a: a model without prefix tokens
    tokens = _mapping(tokens, "tokens", errors)
    drop = tuple(_canon("tokens.drop", d, errors, "tokens.drop") for d in _items(tokens.get("drop"), "tokens.drop",
                                                                                  errors)[:8])
    grads = _choice(tokens.get("gradients_from", "patch_tokens"), "tokens.gradients_from", errors,
                    vocab.GRADIENT_SOURCES, "patch_tokens")
    return tuple(d for d in drop if d), grads


def _heads(data: dict, errors: list[str]) -> tuple[str | None, str]:
    heads_raw = data.get("heads")
    if isinstance(heads_raw, dict):
        heads = _canon("heads.aggregate", heads_raw.get("aggregate"), errors, "heads.aggregate")
        return heads, _choice(heads_raw.get("order", "before_relu"), "heads.order", errors, vocab.HEAD_ORDERS,
                              "before_relu")
    if heads_raw is None or vocab.is_not_applicable(heads_raw):
        return None, "before_relu"
    return _canon("heads", heads_raw, errors, "heads"), "before_relu"


def _relu(data: dict, errors: list[str], rule_relu: frozenset) -> frozenset:
    relu_raw = data.get("relu")
    if relu_raw is None:
        return rule_relu
    items = relu_raw[:8] if isinstance(relu_raw, list) else [relu_raw]
    return relu_placements(r for r in (_canon("relu", x, errors, "relu") for x in items) if r)


def _postprocess(data: dict, errors: list[str]) -> dict:
    post = _mapping(data.get("postprocess"), "postprocess", errors)
    size = post.get("size", "input")
    return {
        "normalize": _canon("postprocess.normalize", post.get("normalize", "minmax"), errors,
                            "postprocess.normalize") or "minmax",
        "upsample": _canon("postprocess.upsample", post.get("upsample", "bilinear"), errors,
                           "postprocess.upsample") or "bilinear",
        "eps": _number(post.get("eps", 1e-7), "postprocess.eps", errors, 0.0, 1.0, 1e-7),
        "align_corners": _flag(post.get("align_corners", False), "postprocess.align_corners", errors),
        "size": "input" if size == "input" else (_pair(size, "postprocess.size", errors, 4096) or "input"),
        "post_order": _choice(post.get("order", "normalize_then_upsample"), "postprocess.order", errors,
                              vocab.POSTPROCESS_ORDERS, "normalize_then_upsample"),
    }


def _reshape(data: dict, errors: list[str]) -> tuple[str, tuple | None]:
    reshape = _mapping(data.get("reshape"), "reshape", errors)
    order = _choice(reshape.get("order", "row_major"), "reshape.order", errors, vocab.ORDERS, "row_major")
    grid = reshape.get("grid")
    if grid is None or grid == "auto":
        return order, None
    return order, _pair(grid, "reshape.grid", errors, 1024)


def procedure_from(data: dict, errors: list[str]) -> Procedure:
    """The procedure part of a camspec (the 11 executable keys), canonical; every value checked.

    A value of the wrong type or range adds a message starting with its key to `errors`."""
    preset = find_preset(data["_preset"]) if isinstance(data.get("_preset"), str) else None
    method_raw = data.get("method")
    method = _canon("method", method_raw.get("name") if isinstance(method_raw, dict) else method_raw,
                    errors, "method") or "gradcam"
    blocks, combine, stage = _layer(data, errors)
    location = _canon("location", data.get("location"), errors, "location") or "F1"
    if location == "F3":
        errors.append("location: F3 is ambiguous; say F3a (before the projection) or F3b (after it)")
    if location == "cross_attention":
        errors.append("location: cross-attention needs a vision-language model; timm classifiers have none")
    kind, cls = _target(data, errors)
    drop, grads = _tokens(data, errors)
    order, grid = _reshape(data, errors)
    rule = method_rule(method)
    weighting = data.get("weighting")
    weighting = rule.weighting if weighting in (None, "method_rule") else _canon("weighting", weighting, errors, "weighting")
    if weighting == "eigen" and method == "eigengradcam":
        weighting = "eigen_grad"
    if grads == "cls" and weighting not in ("gap_gradients", "cls_gradient"):
        errors.append(f"tokens.gradients_from: cls weights the channels by the [CLS] gradient, which replaces "
                      f"the weighting; it cannot be combined with weighting {weighting}")
    heads, heads_order = _heads(data, errors)
    if location == "F2" and heads is None:
        errors.append("heads: an attention location needs a head rule (mean, max, sum, as_channels)")
    if location != "F2" and heads is not None:
        errors.append(f"heads: a head rule applies at the attention location F2 only; {location} has no heads "
                      "(write heads: n/a)")
    post = _postprocess(data, errors)
    return Procedure(
        method=method, blocks=blocks, combine=combine if len(blocks) > 1 or blocks == ("all",) else "single",
        location=location, target_kind=kind, target_class=cls, drop=drop, gradients_from=grads, order=order,
        weighting=weighting or "gap_gradients", heads=heads, heads_order=heads_order,
        relu=_relu(data, errors, rule.relu), stage=stage, grid=grid,
        params=tuple(sorted((preset.params if preset else {}).items())), **post)


def _model(data: dict, base_dir: Path, errors: list[str]) -> ModelSpec:
    from camlint.verify.modelargs import arch_problem, kwargs_problems, weights_problem

    m = data.get("model")
    if not isinstance(m, dict) or not isinstance(m.get("arch"), str) or not m["arch"]:
        errors.append("model: give {arch: <timm name>, weights: ...}")
        m = {"arch": "vit_tiny_patch16_224", "weights": {"random_init": {"seed": 0}}}
    size = m.get("input_size")
    if size is not None:
        sides = _pair(size[1:], "model.input_size", [], MAX_IMG_SIDE) if isinstance(size, list) and len(size) == 3 \
            and is_int(size[0]) and 1 <= size[0] <= 16 else None
        if sides is None:
            errors.append(f"model.input_size must be [channels, height, width] with height and width "
                          f"in 1..{MAX_IMG_SIDE}, not {_show(size)}")
        size = (size[0],) + sides if sides else None
    problems = [arch_problem(m["arch"]), weights_problem(m.get("weights"))]
    problems += [msg for _, msg in kwargs_problems(m.get("kwargs") if m.get("kwargs") is not None else {})]
    errors.extend(p for p in problems if p)
    kwargs = m.get("kwargs") if isinstance(m.get("kwargs"), dict) else {}
    model = ModelSpec(m["arch"], dict(kwargs), m.get("weights"), size, _preprocessing(m.get("preprocessing"), errors))
    weights = model.weights
    if isinstance(weights, dict) and isinstance(weights.get("file"), str):
        model.weights = {**weights, "path": _inside(base_dir, weights["file"], "model.weights.file", errors)}
    return model


def input_keys(item: dict) -> set[str]:
    """Every way an artifact may name this input: its name, else its file's stem, and its file.

    The one matching rule of `camlint check` (CAM504) and `camlint verify`."""
    files = [item[k] for k in ("image", "tensor") if isinstance(item.get(k), str) and item[k]]
    name = item.get("name")
    keys = {name} if isinstance(name, str) and name else {Path(f).stem for f in files[:1]}
    return keys | set(files)


def _match_artifacts(raw_inputs: list, inputs: list[InputSpec], artifacts: list[ArtifactSpec],
                     errors: list[str]) -> None:
    """Each artifact's input becomes the name of the one input it matches (else an error)."""
    keyed = [(input_keys(raw), spec) for raw, spec in zip(raw_inputs, inputs)]
    for i, art in enumerate(artifacts):
        hits = [spec for keys, spec in keyed if art.input in keys]
        if len(hits) != 1:
            errors.append(f"artifacts[{i}].input: {_show(art.input)} matches "
                          f"{'no' if not hits else 'more than one'} declared input (names: "
                          f"{', '.join(s.name for s in inputs)[:200] or 'none'})")
        else:
            art.input = hits[0].name


INTERPOLATIONS = ("bilinear", "bicubic", "nearest", "lanczos", "box", "hamming")


def _preprocessing(value, errors: list[str]) -> dict:
    """Only the preprocessing keys the engine reads, each of the right type and range."""
    pre = _mapping(value, "model.preprocessing", errors)
    out = {}
    for key in ("resize", "crop"):
        if key in pre:
            v = pre[key]
            out[key] = v if is_int(v) and 1 <= v <= MAX_IMG_SIDE else \
                _pair(v, f"model.preprocessing.{key}", errors, MAX_IMG_SIDE) or MAX_IMG_SIDE // 4
    for key, lo in (("mean", -1e3), ("std", 1e-6)):
        if key in pre:
            v = pre[key]
            if isinstance(v, list) and 1 <= len(v) <= 16 and all(is_number(x) and lo <= x <= 1e3 for x in v):
                out[key] = [float(x) for x in v]
            else:
                errors.append(f"model.preprocessing.{key} must be a list of 1..16 numbers"
                              + (" > 0" if key == "std" else "") + f", not {_show(v)}")
    if "interpolation" in pre:
        out["interpolation"] = _choice(pre["interpolation"], "model.preprocessing.interpolation", errors,
                                       INTERPOLATIONS, "bicubic")
    return out


def _inputs(data: dict, base_dir: Path, errors: list[str]) -> list[InputSpec]:
    inputs, automatic = [], []
    for i, item in enumerate(_items(data.get("inputs"), "inputs", errors)):
        what = f"inputs[{i}]"
        if not isinstance(item, dict) or not (item.get("image") or item.get("tensor")):
            errors.append(f"{what} must be {{image: FILE}} or {{tensor: FILE.npy}}, not {_show(item)}")
            continue
        kind = "image" if item.get("image") else "tensor"
        path = _inside(base_dir, item[kind], f"{what}.{kind}", errors)
        if path is not None and not path.is_file():
            errors.append(f"{what}.{kind}: {item[kind]} does not exist")
        name = item.get("name") if item.get("name") is not None else Path(str(item[kind])).stem
        if not isinstance(name, str) or not name:
            errors.append(f"{what}.name must be a non-empty string")
            name = f"input{i}"
        label = item.get("class")
        if label is not None and not (is_int(label) and 0 <= label < 1_000_000):
            errors.append(f"{what}.class must be a class index, not {_show(label)}")
            label = None
        box = item.get("box")
        if box is not None:
            ok = isinstance(box, list) and len(box) == 4 and all(is_number(v) and abs(v) <= 1e6 for v in box)
            if not ok or box[0] >= box[2] or box[1] >= box[3]:
                errors.append(f"{what}.box must be [x0, y0, x1, y1] in pixels with x0 < x1, y0 < y1, not {_show(box)}")
                box = None
        inputs.append(InputSpec(name, path if kind == "image" else None, path if kind == "tensor" else None,
                                label, tuple(box) if box else None))
        if item.get("name") is None:
            automatic.append((len(inputs) - 1, str(item[kind])))
    stems = [inputs[i].name for i, _ in automatic]
    for i, rel in automatic:    # two images/…/disc.png: each is named by its file instead
        if stems.count(inputs[i].name) > 1 or any(o.name == inputs[i].name for j, o in enumerate(inputs) if j != i):
            inputs[i].name = rel
    return inputs


def _artifacts(data: dict, base_dir: Path, errors: list[str]) -> list[ArtifactSpec]:
    artifacts = []
    for i, item in enumerate(_items(data.get("artifacts"), "artifacts", errors)):
        what = f"artifacts[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("input"), str):
            errors.append(f"{what} must be {{input: NAME, map: FILE}}, not {_show(item)}")
            continue
        path = _inside(base_dir, item.get("map"), f"{what}.map", errors)
        if path is not None and not path.is_file():
            errors.append(f"{what}.map: {item['map']} does not exist")
        digest = item.get("sha256")
        if digest is not None and not isinstance(digest, str):
            errors.append(f"{what}.sha256 must be 64 hex digits")
            digest = None
        stage = _choice(item.get("stage", "final"), f"{what}.stage", errors, ("final", "raw"), "final")
        artifacts.append(ArtifactSpec(item["input"], path, digest, stage))
    return artifacts


TOLERANCE_RANGES = {"max_abs": (0.0, 1.0), "pearson": (-1.0, 1.0), "spearman": (-1.0, 1.0),
                    "top10_iou": (0.0, 1.0)}


def _tolerance(data: dict, errors: list[str]) -> tuple[dict, float, float]:
    tol = dict(_mapping(data.get("tolerance"), "tolerance", errors))
    step = _number(tol.pop("fingerprint_step", 1e-3), "tolerance.fingerprint_step", errors, 1e-9, 1.0, 1e-3)
    pointing_px = _number(tol.pop("pointing_px", 0), "tolerance.pointing_px", errors, 0.0, 4096.0, 0.0)
    out = {}
    for key, value in tol.items():
        if key not in TOLERANCE_RANGES:
            if not (isinstance(key, str) and key.startswith("x-")):
                errors.append(f"tolerance: {_show(key)} is not a tolerance camlint knows "
                              f"({', '.join(TOLERANCE_RANGES)})")
            continue
        lo, hi = TOLERANCE_RANGES[key]
        out[key] = _number(value, f"tolerance.{key}", errors, lo, hi, DEFAULT_TOLERANCE.get(key, hi))
    return {**DEFAULT_TOLERANCE, **out}, step, pointing_px


RUNTIME_DEVICES, RUNTIME_DTYPES = ("auto", "cpu", "cuda"), ("float32", "float64")


def _runtime(data: dict, errors: list[str]) -> dict:
    rt = _mapping(data.get("runtime"), "runtime", errors)
    out = {"device": _choice(rt.get("device", "auto"), "runtime.device", errors, RUNTIME_DEVICES, "auto"),
           "dtype": _choice(rt.get("dtype", "float32"), "runtime.dtype", errors, RUNTIME_DTYPES, "float32"),
           "deterministic": _flag(rt.get("deterministic", False), "runtime.deterministic", errors)}
    if rt.get("seed") is not None:
        out["seed"] = _int(rt["seed"], "runtime.seed", errors, 0, 2 ** 63 - 1, 0)
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
        raise SpecError([f"the spec must be a mapping of checklist keys, not {_show(data)}"])
    data = expand_preset(data)
    if data.get("_conflict"):
        errors.append(data["_conflict"])
    model = _model(data, base_dir, errors)
    proc = procedure_from(data, errors)
    inputs = _inputs(data, base_dir, errors)
    artifacts = _artifacts(data, base_dir, errors)
    names = [i.name for i in inputs]
    for name in sorted({n for n in names if names.count(n) > 1}):
        errors.append(f"inputs: the name {_show(name)} is given to more than one input; names must be unique")
    _match_artifacts([i for i in _items(data.get("inputs"), "inputs", []) if isinstance(i, dict)
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
