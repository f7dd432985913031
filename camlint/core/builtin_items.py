"""The twelve checklist keys of the taxonomy (shared/taxonomy.md), one `Item` each, in checklist order.

A value's status: reported when every required slot is known, partial when something is said but
a required slot is open, missing when nothing is said (the per-key table of the corpus README).
"""
from __future__ import annotations

import re

from camlint.core import vocab
from camlint.core import item_forms as forms
from camlint.core import values as V
from camlint.core.item import Item, Slot
from camlint.core.item_advice import ADVICE

_VERSION = re.compile(r"(?<![\w.])v?\d+\.\d+(\.\d+)?\b|\b[0-9a-f]{7,40}\b", re.I)
_TIMM_TAG = re.compile(r"^[a-z0-9_]+\.[a-z0-9_]+$", re.I)
_GRID = re.compile(r"\d+\s*[x×*]\s*\d+")


def _known(value: object) -> bool:
    return value is not None and not vocab.is_placeholder(value)


# -- which required slots a (str or dict) value fills ------------------------------------------

def _model(v) -> list[bool]:
    if isinstance(v, str):
        return [True, bool(_TIMM_TAG.match(v.strip()))]
    return [_known(v.get("arch")), _known(v.get("weights"))]


def _method(v) -> list[bool]:
    if isinstance(v, str):
        return [True]
    return [_known(v.get("name")) or _known(v.get("preset"))]


def _layer(v) -> list[bool]:
    if isinstance(v, (int, str)) and not isinstance(v, bool):
        return [True, True]
    if "blocks" in v:
        blocks = v["blocks"]
        many = blocks == "all" or (isinstance(blocks, list) and len(blocks) > 1)
        return [_known(blocks), _known(v.get("combine")) or not many]
    if "block" in v or "stage" in v:
        return [_known(v.get("block", v.get("stage"))), True]
    # Hand-written forms ({text_encoder_layer: 7}): any index pins the layer down.
    return [any(isinstance(x, int) and not isinstance(x, bool) for x in v.values()), True]


def _location(v) -> list[bool]:
    if isinstance(v, dict):
        v = v.get("point", v.get("text"))
        if v is None:
            return [False]
    point = vocab.canonical("location", v).value
    return [point is not None and point != "F3"]


def _target(v) -> list[bool]:
    if isinstance(v, str):
        return [True, False]
    return [_known(v.get("kind")), _known(v.get("class"))]


def _tokens(v) -> list[bool]:
    if isinstance(v, str):
        return [True]
    return ["drop" in v or "keep" in v]


def _reshape(v) -> list[bool]:
    if isinstance(v, str):
        return [bool(_GRID.search(v)) or v == "auto"]
    return [_known(v.get("grid"))]


def _single(v) -> list[bool]:
    if isinstance(v, dict):
        return [any(_known(v.get(k)) for k in ("aggregate", "rule", "placement", "value"))]
    return [True]


def _postprocess(v) -> list[bool]:
    if isinstance(v, str):
        return [False, False]
    return [_known(v.get("normalize")), _known(v.get("upsample"))]


def _implementation(v) -> list[bool]:
    if isinstance(v, str):
        return [True, bool(_VERSION.search(v))]
    return [_known(v.get("library")), _known(v.get("version")) or _known(v.get("commit"))]


# -- comparable forms of concrete values (prose against camspec), and when two disagree --------

def _layer_form(value, depth):
    b = V.blocks(value, depth)
    return tuple(b) if b else None


def _tokens_form(value, depth):
    d = V.dropped(value)
    return tuple(sorted(d)) if d is not None else None


def _postprocess_form(value, depth):
    if not isinstance(value, dict):
        return None
    return tuple(vocab.canonical(f"postprocess.{s}", value.get(s)).value if V.is_concrete(value.get(s))
                 else None for s in ("normalize", "upsample"))


def _keep_differs(a, b) -> bool:
    # one side keeps every token, the other drops some; which prefix tokens a sentence names in
    # one drop ("the class and distillation tokens are removed") is read for [CLS] alone
    return a is not None and b is not None and (a == ()) != (b == ())


def _reshape_form(value, depth):
    # the grid and, where both sides give it, the order (row-major and column-major maps differ)
    order = value.get("order") if isinstance(value, dict) else None
    return V.grid(value), vocab.canonical("reshape.order", order).value if V.is_concrete(order) else None


def _single_form(key: str):
    return lambda value, depth: V.canonical_single(key, value)


def _target_differs(a, b) -> bool:
    (ka, ca), (kb, cb) = a, b
    return bool((ka and kb and V.kinds_conflict(ka, kb)) or (ca and cb and ca != cb))


def _slots_differ(a, b) -> bool:
    return any(x and y and x != y for x, y in zip(a, b))


def _method_differs(a, b) -> bool:
    # "Grad-CAM" in prose, "attention-gradcam" in the spec: the same family
    return a != b and not {a, b} <= {"gradcam", "attention-gradcam"}


def _alternatives(values) -> str:
    return " | ".join(values)


BUILTIN: tuple[Item, ...] = (
    Item("model", "architecture and the exact weights",
         (Slot("arch", "architecture"), Slot("weights", "weights"),
          Slot("input_size", "input size", False), Slot("preprocessing", "preprocessing", False)),
         _model, forms.model,
         "{arch: <timm name, e.g. vit_base_patch16_224>, weights: <timm tag, hub id, or {file: ..., sha256: ...}>}",
         executable=True, sweep=None, compare=None, advice=ADVICE["model"]),
    Item("method", "which CAM variant", (Slot("name", "variant name"), Slot("preset", "preset", False)),
         _method, forms.method, _alternatives(vocab.METHODS),
         executable=True, sweep=("gradcam",), compare=_single_form("method"), differs=_method_differs,
         advice=ADVICE["method"], words="method", phrases=True),
    Item("layer", "which transformer block(s), and how several are combined",
         (Slot("block", "block index"), Slot("combine", "how the blocks are combined")),
         _layer, forms.layer,
         "{block: <index, -1 = last>}  or  {blocks: [...], combine: mean | sum | max | rollout}",
         executable=True, sweep=({"block": -1}, {"block": -2}), compare=_layer_form,
         advice=ADVICE["layer"], phrases=True),
    Item("location", "where inside the block the feature map is taken (F1..F6, cross-attention)",
         (Slot("point", "which point (F3 is ambiguous: F3a before or F3b after the projection)"),),
         _location, forms.location, _alternatives(vocab.LOCATIONS),
         executable=True, sweep=("F1", "F2", "F3b", "F4", "F5", "F6"), compare=lambda v, depth: V.point(v),
         advice=ADVICE["location"], words="location", phrases=True),
    Item("target", "the differentiated scalar (logit, probability, similarity...) and its class",
         (Slot("kind", "kind of score"), Slot("class", "class"), Slot("head", "output head", False)),
         _target, forms.target,
         "{kind: " + _alternatives(vocab.TARGET_KINDS) + ", class: predicted | ground_truth | <index> | <label>}",
         executable=True,
         sweep=({"kind": "logit", "class": "predicted"}, {"kind": "softmax", "class": "predicted"}),
         compare=lambda v, depth: (V.kind(v), V.target_class(v)), differs=_target_differs,
         advice=ADVICE["target"], phrases=True),
    Item("tokens", "what happens to [CLS], distillation and register tokens",
         (Slot("drop", "what is dropped or kept"), Slot("gradients_from", "where gradients are read", False)),
         _tokens, forms.tokens, "{drop: [cls, dist, registers] or []}",
         executable=True, sweep=({"drop": ["cls"]}, {"drop": ["cls"], "gradients_from": "cls"}),
         compare=_tokens_form, differs=_keep_differs, advice=ADVICE["tokens"], phrases=True),
    Item("reshape", "how the token sequence becomes a 2-D grid (size and order)",
         (Slot("grid", "grid size"), Slot("order", "token order", False)),
         _reshape, forms.reshape, "{grid: [rows, cols], order: row_major | column_major}",
         executable=True, sweep=({"grid": "auto", "order": "row_major"},),
         compare=_reshape_form, differs=_slots_differ, advice=ADVICE["reshape"], phrases=True),
    Item("weighting", "how channels (or heads) are combined", (Slot("rule", "combination rule"),),
         _single, forms.weighting, _alternatives(vocab.WEIGHTINGS),
         executable=True, sweep=("gap_gradients", "elementwise"), compare=_single_form("weighting"),
         advice=ADVICE["weighting"], words="weighting", phrases=True),
    Item("heads", "how attention heads are combined (attention locations only)",
         (Slot("aggregate", "aggregation rule"), Slot("order", "before or after the ReLU", False)),
         _single, forms.heads,
         "{aggregate: " + _alternatives(vocab.HEAD_AGGREGATES) + ", order: before_relu | after_relu}  or  n/a",
         executable=True, sweep=({"aggregate": "mean", "order": "before_relu"}, {"aggregate": "as_channels"}),
         compare=_single_form("heads"), advice=ADVICE["heads"], words="heads", phrases=True),
    Item("relu", "where the ReLU (or clamp) is applied, or that there is none", (Slot("placement", "placement"),),
         _single, forms.relu, _alternatives(vocab.RELU_PLACEMENTS),
         executable=True, sweep=("after_combination", "none"), compare=_single_form("relu"),
         advice=ADVICE["relu"], multiple=True, words="relu", phrases=True),
    Item("postprocess", "normalisation and upsampling to image size",
         (Slot("normalize", "normalisation"), Slot("upsample", "upsampling"), Slot("size", "output size", False)),
         _postprocess, forms.postprocess,
         "{normalize: " + _alternatives(vocab.NORMALIZATIONS) + ", upsample: "
         + _alternatives(vocab.UPSAMPLERS) + ", size: input}",
         executable=True, sweep=({"normalize": "minmax", "upsample": "bilinear"},),
         compare=_postprocess_form, differs=_slots_differ, advice=ADVICE["postprocess"], phrases=True),
    Item("implementation", "code used, with version or commit",
         (Slot("library", "library"), Slot("version", "version or commit")),
         _implementation, forms.implementation,
         "{library: <name>, version: <x.y.z>}  or  {library: <name>, commit: <sha>}",
         executable=False, sweep=None, compare=None, advice=ADVICE["implementation"]),
)
