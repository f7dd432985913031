"""The procedure part of a camspec (the 11 executable keys) as one canonical record."""
from __future__ import annotations

from dataclasses import dataclass

from camlint.core import vocab
from camlint.core.methods import method_rule, relu_placements
from camlint.core.presets import find_preset
from camlint.verify.modelargs import is_int
from camlint.verify.specvalues import (as_flag, as_list, as_mapping, canonical_value, int_in, number_in,
                                       one_of, show_value, size_pair)


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


def _layer(data: dict, errors: list[str]) -> tuple[tuple, str, int | None]:
    """(blocks, combine, Swin stage) from `layer`."""
    layer = data.get("layer")
    if not isinstance(layer, dict):
        errors.append("layer: give {block: N} or {blocks: [...], combine: ...}")
        return (-1,), "single", None
    stage = int_in(layer["stage"], "layer.stage", errors, 1, 16, 1) if layer.get("stage") is not None else None
    if "blocks" in layer:
        raw = layer["blocks"]
        if raw == "all":
            blocks = ("all",)
        else:
            items = as_list(raw, "layer.blocks", errors)[:256] or [-1]
            blocks = tuple(int_in(b, "layer.blocks", errors, -1024, 1023, -1) for b in items)
        combine = canonical_value("layer.combine", layer.get("combine", "mean"), errors, "layer.combine") or "mean"
        return blocks, combine, stage
    if "block" in layer:
        return (int_in(layer["block"], "layer.block", errors, -1024, 1023, -1),), "single", stage
    errors.append("layer: give {block: N} or {blocks: [...], combine: ...}")
    return (-1,), "single", stage


def _target(data: dict, errors: list[str]) -> tuple[str | None, object]:
    target = data.get("target")
    if target is None or vocab.is_not_applicable(target):
        return None, "predicted"
    if not isinstance(target, dict):
        errors.append(f"target must be {{kind: ..., class: ...}}, not {show_value(target)}")
        return None, "predicted"
    kind = canonical_value("target.kind", target.get("kind"), errors, "target.kind")
    if target.get("head") is not None:
        errors.append("target.head: camlint verify scores the model's own output (a distilled model's heads "
                      "averaged, as timm does in eval mode); choosing one head is not supported")
    cls = target.get("class", "predicted")
    if isinstance(cls, str):
        canon = vocab.canonical("target.class", cls).value
        if canon is None:
            errors.append(f"target.class: label names ({show_value(cls)}) need a label map; use a class index")
        cls = canon or "predicted"
    elif not (is_int(cls) and 0 <= cls < 1_000_000):
        errors.append(f"target.class must be predicted, ground_truth or a class index, not {show_value(cls)}")
        cls = "predicted"
    if kind in ("similarity", "itm"):
        errors.append(f"target.kind: {kind} needs an image-text model; timm classifiers give logits")
    return kind, cls


def _tokens(data: dict, errors: list[str]) -> tuple[tuple, str]:
    tokens = data.get("tokens")
    if tokens is None or vocab.is_not_applicable(tokens):
        return ("cls", "dist", "registers"), "patch_tokens"   # n/a: a model without prefix tokens
    tokens = as_mapping(tokens, "tokens", errors)
    drop = tuple(canonical_value("tokens.drop", d, errors, "tokens.drop")
                 for d in as_list(tokens.get("drop"), "tokens.drop", errors)[:8])
    grads = one_of(tokens.get("gradients_from", "patch_tokens"), "tokens.gradients_from", errors,
                    vocab.GRADIENT_SOURCES, "patch_tokens")
    return tuple(d for d in drop if d), grads


def _heads(data: dict, errors: list[str]) -> tuple[str | None, str]:
    heads_raw = data.get("heads")
    if isinstance(heads_raw, dict):
        heads = canonical_value("heads.aggregate", heads_raw.get("aggregate"), errors, "heads.aggregate")
        return heads, one_of(heads_raw.get("order", "before_relu"), "heads.order", errors, vocab.HEAD_ORDERS,
                              "before_relu")
    if heads_raw is None or vocab.is_not_applicable(heads_raw):
        return None, "before_relu"
    return canonical_value("heads", heads_raw, errors, "heads"), "before_relu"


def _relu(data: dict, errors: list[str], rule_relu: frozenset) -> frozenset:
    relu_raw = data.get("relu")
    if relu_raw is None:
        return rule_relu
    items = relu_raw[:8] if isinstance(relu_raw, list) else [relu_raw]
    return relu_placements(r for r in (canonical_value("relu", x, errors, "relu") for x in items) if r)


def _postprocess(data: dict, errors: list[str]) -> dict:
    post = as_mapping(data.get("postprocess"), "postprocess", errors)
    size = post.get("size", "input")
    return {
        "normalize": canonical_value("postprocess.normalize", post.get("normalize", "minmax"), errors,
                            "postprocess.normalize") or "minmax",
        "upsample": canonical_value("postprocess.upsample", post.get("upsample", "bilinear"), errors,
                           "postprocess.upsample") or "bilinear",
        "eps": number_in(post.get("eps", 1e-7), "postprocess.eps", errors, 0.0, 1.0, 1e-7),
        "align_corners": as_flag(post.get("align_corners", False), "postprocess.align_corners", errors),
        "size": "input" if size == "input" else (size_pair(size, "postprocess.size", errors, 4096) or "input"),
        "post_order": one_of(post.get("order", "normalize_then_upsample"), "postprocess.order", errors,
                              vocab.POSTPROCESS_ORDERS, "normalize_then_upsample"),
    }


def _reshape(data: dict, errors: list[str]) -> tuple[str, tuple | None]:
    reshape = as_mapping(data.get("reshape"), "reshape", errors)
    order = one_of(reshape.get("order", "row_major"), "reshape.order", errors, vocab.ORDERS, "row_major")
    grid = reshape.get("grid")
    if grid is None or grid == "auto":
        return order, None
    return order, size_pair(grid, "reshape.grid", errors, 1024)


def procedure_from(data: dict, errors: list[str]) -> Procedure:
    """The procedure part of a camspec (the 11 executable keys), canonical; every value checked.

    A value of the wrong type or range adds a message starting with its key to `errors`."""
    preset = find_preset(data["_preset"]) if isinstance(data.get("_preset"), str) else None
    method_raw = data.get("method")
    method = canonical_value("method", method_raw.get("name") if isinstance(method_raw, dict) else method_raw,
                    errors, "method") or "gradcam"
    blocks, combine, stage = _layer(data, errors)
    location = canonical_value("location", data.get("location"), errors, "location") or "F1"
    if location == "F3":
        errors.append("location: F3 is ambiguous; say F3a (before the projection) or F3b (after it)")
    if location == "cross_attention":
        errors.append("location: cross-attention needs a vision-language model; timm classifiers have none")
    kind, cls = _target(data, errors)
    drop, grads = _tokens(data, errors)
    order, grid = _reshape(data, errors)
    rule = method_rule(method)
    weighting = data.get("weighting")
    weighting = rule.weighting if weighting in (None, "method_rule") else \
        canonical_value("weighting", weighting, errors, "weighting")
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
