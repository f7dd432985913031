"""An executable procedure, read from a validated camspec (presets expanded, values canonical).

Everything the engine does is decided here, by name; nothing is hard-wired in the engine.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from camlint import vocab
from camlint.presets import find_preset


class SpecError(Exception):
    """The spec cannot be executed: carries the messages to show (one per problem)."""

    def __init__(self, messages: list[str]):
        super().__init__("; ".join(messages))
        self.messages = messages


# What each method's own rule means, where `weighting` or `relu` say "method_rule" or nothing.
METHOD_RULES = {
    "gradcam": ("gap_gradients", ("after_combination",)),
    "hirescam": ("elementwise", ("after_combination",)),
    "gradcam-elementwise": ("elementwise", ("on_products", "after_combination")),
    "layercam": ("elementwise", ("on_gradients", "after_combination")),
    "gradcam++": ("gradcam++", ("after_combination",)),
    "xgradcam": ("xgradcam", ("after_combination",)),
    "eigencam": ("eigen", ("after_combination",)),
    "eigengradcam": ("eigen", ("after_combination",)),
    "scorecam": ("scorecam", ("after_combination",)),
    "attention-gradcam": ("gap_gradients", ("after_combination",)),
    "gae": ("elementwise", ("on_products",)),
    "grad-rollout": ("elementwise", ("after_combination",)),
    "rollout": ("method_rule", ("none",)),
}


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


def _canon(slot: str, value, errors: list[str], what: str):
    c = vocab.canonical(slot, value)
    if c.value is None:
        errors.append(f"{what}: {value!r} is not a value camlint verify knows")
    return c.value


def _inside(base: Path, rel: str, what: str, errors: list[str]) -> Path | None:
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
    preset = find_preset(name) if name else None
    if preset is None:
        return data
    out = dict(preset.fixes)
    out.update({k: v for k, v in data.items() if v is not None and not vocab.is_placeholder(v)})
    named = vocab.canonical("method", method.get("name")).value if method.get("name") else None
    if named and named != vocab.canonical("method", preset.fixes["method"]).value:
        out["_conflict"] = f"method: name {method.get('name')!r} does not match preset {preset.name} " \
                           f"({preset.fixes['method']})"
    out["method"] = preset.fixes["method"]
    out["_preset"] = preset.name
    return out


def procedure_from(data: dict, errors: list[str]) -> Procedure:
    """The procedure part of a camspec (the 11 executable keys), canonical."""
    preset = find_preset(data.get("_preset", "")) if data.get("_preset") else None
    method_raw = data.get("method")
    method = _canon("method", method_raw.get("name") if isinstance(method_raw, dict) else method_raw,
                    errors, "method") or "gradcam"
    layer = data.get("layer") or {}
    stage = layer.get("stage") if isinstance(layer, dict) else None
    if isinstance(layer, dict) and "blocks" in layer:
        blocks = ("all",) if layer["blocks"] == "all" else tuple(layer["blocks"])
        combine = _canon("layer.combine", layer.get("combine", "mean"), errors, "layer.combine") or "mean"
    elif isinstance(layer, dict) and "block" in layer:
        blocks, combine = (int(layer["block"]),), "single"
    else:
        errors.append("layer: give {block: N} or {blocks: [...], combine: ...}")
        blocks, combine = (-1,), "single"
    location = _canon("location", data.get("location"), errors, "location") or "F1"
    if location == "F3":
        errors.append("location: F3 is ambiguous; say F3a (before the projection) or F3b (after it)")
    if location == "cross_attention":
        errors.append("location: cross-attention needs a vision-language model; timm classifiers have none")
    target = data.get("target")
    if vocab.is_not_applicable(target) or target is None:
        kind, cls = None, "predicted"
    else:
        kind = _canon("target.kind", target.get("kind"), errors, "target.kind")
        cls = target.get("class", "predicted")
        if isinstance(cls, str):
            canon = vocab.canonical("target.class", cls).value
            if canon is None:
                errors.append(f"target.class: label names ({cls!r}) need a label map; use a class index")
            cls = canon or "predicted"
        if kind in ("similarity", "itm"):
            errors.append(f"target.kind: {kind} needs an image-text model; timm classifiers give logits")
    tokens = data.get("tokens")
    if isinstance(tokens, dict):
        drop = tuple(_canon("tokens.drop", d, errors, "tokens.drop") for d in tokens.get("drop", []))
        grads = tokens.get("gradients_from", "patch_tokens")
    else:
        drop, grads = ("cls", "dist", "registers"), "patch_tokens"   # n/a: a model without prefix tokens
    reshape = data.get("reshape") or {}
    order = reshape.get("order", "row_major") if isinstance(reshape, dict) else "row_major"
    grid = reshape.get("grid") if isinstance(reshape, dict) else None
    grid = tuple(grid) if isinstance(grid, list) and len(grid) == 2 else None
    rule_weighting, rule_relu = METHOD_RULES.get(method, ("gap_gradients", ("after_combination",)))
    weighting = data.get("weighting")
    weighting = rule_weighting if weighting in (None, "method_rule") else _canon("weighting", weighting, errors, "weighting")
    if weighting == "eigen" and method == "eigengradcam":
        weighting = "eigen_grad"
    heads_raw = data.get("heads")
    heads, heads_order = None, "before_relu"
    if isinstance(heads_raw, dict):
        heads = _canon("heads.aggregate", heads_raw.get("aggregate"), errors, "heads.aggregate")
        heads_order = heads_raw.get("order", "before_relu")
    elif isinstance(heads_raw, str) and not vocab.is_not_applicable(heads_raw):
        heads = _canon("heads", heads_raw, errors, "heads")
    if location == "F2" and heads is None:
        errors.append("heads: an attention location needs a head rule (mean, max, sum, as_channels)")
    relu_raw = data.get("relu")
    if relu_raw is None:
        relu = frozenset(rule_relu)
    else:
        items = relu_raw if isinstance(relu_raw, list) else [relu_raw]
        relu = frozenset(r for r in (_canon("relu", x, errors, "relu") for x in items) if r and r != "none")
    post = data.get("postprocess") or {}
    normalize = _canon("postprocess.normalize", post.get("normalize", "minmax"), errors, "postprocess.normalize")
    upsample = _canon("postprocess.upsample", post.get("upsample", "bilinear"), errors, "postprocess.upsample")
    size = post.get("size", "input")
    return Procedure(
        method=method, blocks=blocks, combine=combine if len(blocks) > 1 or blocks == ("all",) else "single",
        location=location, target_kind=kind, target_class=cls, drop=drop, gradients_from=grads, order=order,
        weighting=weighting or "gap_gradients", heads=heads, heads_order=heads_order, relu=relu,
        normalize=normalize or "minmax", eps=float(post.get("eps", 1e-7)), upsample=upsample or "bilinear",
        align_corners=bool(post.get("align_corners", False)),
        size=tuple(size) if isinstance(size, list) else "input",
        post_order=post.get("order", "normalize_then_upsample"), stage=stage, grid=grid,
        params=tuple(sorted((preset.params if preset else {}).items())))


def exec_spec(data: dict, base_dir: Path) -> ExecSpec:
    """Raises SpecError listing every problem that prevents execution."""
    errors: list[str] = []
    data = expand_preset(data)
    if data.get("_conflict"):
        errors.append(data["_conflict"])
    m = data.get("model") or {}
    if not isinstance(m, dict) or not m.get("arch"):
        errors.append("model: give {arch: <timm name>, weights: ...}")
        m = {"arch": "vit_tiny_patch16_224"}
    model = ModelSpec(m["arch"], dict(m.get("kwargs") or {}), m.get("weights"),
                      tuple(m["input_size"]) if m.get("input_size") else None, dict(m.get("preprocessing") or {}))
    weights = model.weights
    if isinstance(weights, dict) and "file" in weights:
        path = _inside(base_dir, weights["file"], "model.weights.file", errors)
        model.weights = {**weights, "path": path}
    proc = procedure_from(data, errors)
    inputs = []
    for i, item in enumerate(data.get("inputs") or []):
        rel = item.get("image") or item.get("tensor")
        path = _inside(base_dir, rel, f"inputs[{i}]", errors) if rel else None
        if path is not None and not path.is_file():
            errors.append(f"inputs[{i}]: {rel} does not exist")
        name = item.get("name") or Path(rel or f"input{i}").stem
        inputs.append(InputSpec(name, path if item.get("image") else None, path if item.get("tensor") else None,
                                item.get("class"), tuple(item["box"]) if item.get("box") else None))
    artifacts = []
    for i, item in enumerate(data.get("artifacts") or []):
        path = _inside(base_dir, item["map"], f"artifacts[{i}]", errors)
        if path is not None and not path.is_file():
            errors.append(f"artifacts[{i}]: {item['map']} does not exist")
        artifacts.append(ArtifactSpec(item["input"], path, item.get("sha256"), item.get("stage", "final")))
    tol = dict(data.get("tolerance") or {})
    step = float(tol.pop("fingerprint_step", 1e-3))
    pointing_px = float(tol.pop("pointing_px", 0))
    if errors:
        raise SpecError(errors)
    return ExecSpec(model, proc, dict(data.get("runtime") or {}), inputs, artifacts,
                    {**DEFAULT_TOLERANCE, **tol}, step, base_dir, pointing_px)
