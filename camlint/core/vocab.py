"""Canonical values of the camspec vocabulary, and how hand-written values map onto them.

Authors write specs by hand: `kind: probability` or `weighting: gradcampp` still say something.
`canonical()` maps such a value to its canonical form (exact synonym first, then the closest
spelling), so a non-canonical value is a warning with a suggestion, not lost evidence.
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from camlint.core import locations, methods

METHODS = ("gradcam", "gradcam++", "hirescam", "gradcam-elementwise", "layercam", "xgradcam",
           "eigencam", "eigengradcam", "scorecam", "attention-gradcam", "gae", "rollout",
           "grad-rollout", "other")
LOCATIONS = locations.NAMES
ATTENTION_LOCATIONS = locations.ATTENTION_LOCATIONS
TARGET_KINDS = ("logit", "softmax", "log_softmax", "similarity", "itm", "loss")
PREFIX_TOKENS = ("cls", "dist", "registers")
GRADIENT_SOURCES = ("patch_tokens", "cls")
ORDERS = ("row_major", "column_major")
WEIGHTINGS = ("gap_gradients", "cls_gradient", "elementwise", "gradcam++", "xgradcam", "scorecam",
              "eigen", "gradient_only", "method_rule")
HEAD_AGGREGATES = ("mean", "max", "sum", "as_channels")
HEAD_ORDERS = ("before_relu", "after_relu")
RELU_PLACEMENTS = tuple(r.value for r in methods.Relu)
NORMALIZATIONS = ("minmax", "max", "max_abs", "none")
UPSAMPLERS = ("bilinear", "bicubic", "nearest", "none")
INTERPOLATIONS = ("bilinear", "bicubic", "nearest", "lanczos", "box", "hamming")
LAYER_COMBINE = ("mean", "sum", "max", "rollout")
POSTPROCESS_ORDERS = ("normalize_then_upsample", "upsample_then_normalize", "pytorch-grad-cam")
CLASS_AGNOSTIC_METHODS = methods.CLASS_AGNOSTIC_METHODS

# Hand-written spellings that mean a canonical value (compared after squash()).
SYNONYMS: dict[str, dict[str, str]] = {
    "method": {
        "gradcam": "gradcam", "gradcamplusplus": "gradcam++", "gradcampp": "gradcam++",
        "hirescam": "hirescam", "highrescam": "hirescam", "gradcamelementwise": "gradcam-elementwise",
        "elementwisegradcam": "gradcam-elementwise", "xgradcam": "xgradcam", "axiomgradcam": "xgradcam",
        "eigencam": "eigencam", "eigengradcam": "eigengradcam", "scorecam": "scorecam",
        "layercam": "layercam", "attentiongradcam": "attention-gradcam", "attngradcam": "attention-gradcam",
        "gradcamonattention": "attention-gradcam", "crossattentiongradcam": "attention-gradcam",
        "genericattentionexplainability": "gae", "gae": "gae", "attentionrollout": "rollout",
        "rollout": "rollout", "gradientrollout": "grad-rollout", "gradrollout": "grad-rollout",
    },
    "location": {
        "f1": "F1", "norm1": "F1", "ln1": "F1", "layernormbefore": "F1", "preattentionnorm": "F1",
        "f2": "F2", "attention": "F2", "attentionmatrix": "F2", "attn": "F2", "attndrop": "F2",
        "softmaxattention": "F2", "attentionprobs": "F2", "f3": "F3", "f3a": "F3a", "f3b": "F3b",
        "attentionoutput": "F3b", "attnproj": "F3b", "av": "F3a", "midresidual": "mid_residual",
        "f4": "F4", "norm2": "F4", "ln2": "F4", "f5": "F5", "mlp": "F5", "ffn": "F5",
        "f6": "F6", "blockoutput": "F6", "residual": "F6", "residualstream": "F6",
        "hiddenstate": "F6", "crossattention": "cross_attention", "crossattn": "cross_attention",
    },
    "target.kind": {
        "logit": "logit", "logits": "logit", "rawlogit": "logit", "presoftmax": "logit",
        "score": "logit", "rawscore": "logit", "classscore": "logit", "softmax": "softmax",
        "probability": "softmax", "prob": "softmax", "softmaxprobability": "softmax",
        "classprobability": "softmax", "logsoftmax": "log_softmax", "logprobability": "log_softmax",
        "logprob": "log_softmax", "similarity": "similarity", "cosine": "similarity",
        "cosinesimilarity": "similarity", "clipscore": "similarity", "itm": "itm",
        "itmscore": "itm", "itmlogit": "itm", "imagetextmatching": "itm", "loss": "loss",
        "crossentropy": "loss", "celoss": "loss",
    },
    "target.class": {"predicted": "predicted", "pred": "predicted", "argmax": "predicted",
                     "top1": "predicted", "groundtruth": "ground_truth", "gt": "ground_truth",
                     "label": "ground_truth", "trueclass": "ground_truth"},
    "tokens.drop": {"cls": "cls", "clstoken": "cls", "classtoken": "cls", "class": "cls",
                    "dist": "dist", "distillation": "dist", "disttoken": "dist",
                    "registers": "registers", "register": "registers", "reg": "registers"},
    "weighting": {
        "gapgradients": "gap_gradients", "gap": "gap_gradients", "meangradient": "gap_gradients",
        "meangradients": "gap_gradients", "averagegradient": "gap_gradients",
        "globalaveragepooling": "gap_gradients", "gradcam": "gap_gradients",
        "clsgradient": "cls_gradient", "clsgrad": "cls_gradient", "elementwise": "elementwise",
        "gradienttimesactivation": "elementwise", "gradxact": "elementwise",
        "attentiontimesgradient": "elementwise", "hadamard": "elementwise", "hirescam": "elementwise",
        "layercam": "elementwise", "gradcamplusplus": "gradcam++", "gradcampp": "gradcam++",
        "xgradcam": "xgradcam", "scorecam": "scorecam", "eigen": "eigen", "eigencam": "eigen",
        "gradientonly": "gradient_only", "methodrule": "method_rule", "variant": "method_rule",
    },
    "heads": {"mean": "mean", "meanoverheads": "mean", "average": "mean", "avg": "mean",
              "max": "max", "maxoverheads": "max", "sum": "sum", "aschannels": "as_channels",
              "channels": "as_channels", "headsaschannels": "as_channels"},
    "relu": {"aftercombination": "after_combination", "aftersum": "after_combination",
             "afterweightedsum": "after_combination", "final": "after_combination",
             "ongradients": "on_gradients", "ongradient": "on_gradients", "gradients": "on_gradients",
             "onproducts": "on_products", "products": "on_products", "none": "none", "no": "none",
             "off": "none", "signed": "none", "false": "none"},
    "postprocess.normalize": {"minmax": "minmax", "max": "max", "maxabs": "max_abs", "none": "none"},
    "postprocess.upsample": {"bilinear": "bilinear", "linear": "bilinear", "bicubic": "bicubic",
                             "cubic": "bicubic", "nearest": "nearest", "none": "none"},
    "reshape.order": {"rowmajor": "row_major", "raster": "row_major", "columnmajor": "column_major"},
    "heads.aggregate": {"mean": "mean", "average": "mean", "max": "max", "sum": "sum",
                        "aschannels": "as_channels", "channels": "as_channels"},
    "layer.combine": {"mean": "mean", "average": "mean", "sum": "sum", "max": "max", "rollout": "rollout"},
}

CANONICAL: dict[str, tuple[str, ...]] = {
    "method": METHODS, "location": LOCATIONS, "target.kind": TARGET_KINDS,
    "tokens.drop": PREFIX_TOKENS, "weighting": WEIGHTINGS, "heads": HEAD_AGGREGATES,
    "heads.aggregate": HEAD_AGGREGATES, "heads.order": HEAD_ORDERS, "relu": RELU_PLACEMENTS,
    "postprocess.normalize": NORMALIZATIONS, "postprocess.upsample": UPSAMPLERS,
    "reshape.order": ORDERS, "layer.combine": LAYER_COMBINE, "tokens.gradients_from": GRADIENT_SOURCES,
    "postprocess.order": POSTPROCESS_ORDERS, "model.preprocessing.interpolation": INTERPOLATIONS,
    "target.class": ("predicted", "ground_truth"),
}

PLACEHOLDERS = frozenset({"", "todo", "tbd", "tba", "fixme", "xxx", "unknown", "notsure"})
NOT_APPLICABLE = frozenset({"na", "notapplicable"})


def squash(value: object) -> str:
    """Lower-case, keep letters, digits and '+'; 'Grad-CAM++' -> 'gradcam++'."""
    text = str(value).lower().replace("+", "plus")
    return re.sub(r"[^a-z0-9]", "", text)


def is_placeholder(value: object) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        s = value.strip().lower()
        return s.strip("?.… ") == "" or squash(s) in PLACEHOLDERS or s.startswith("todo")
    if isinstance(value, (dict, list)):
        return len(value) == 0
    return False


def is_not_applicable(value: object) -> bool:
    return isinstance(value, str) and squash(value) in NOT_APPLICABLE


@dataclass(frozen=True)
class Canonical:
    value: str | None      # the canonical value, or None when nothing is close
    exact: bool            # the input was already canonical


def canonical(slot: str, value: object) -> Canonical:
    """Canonical form of a hand-written value of `slot` (e.g. 'target.kind')."""
    allowed = CANONICAL.get(slot, ())
    if isinstance(value, bool):
        value = "none" if value is False and slot == "relu" else str(value).lower()
    text = str(value)
    if text in allowed:
        return Canonical(text, True)
    key = squash(text)
    table = {squash(a): a for a in allowed}
    table.update({squash(k): v for k, v in SYNONYMS.get(slot, {}).items()})
    if key in table:
        return Canonical(table[key], False)
    close = difflib.get_close_matches(key, list(table), n=1, cutoff=0.75)
    return Canonical(table[close[0]] if close else None, False)
