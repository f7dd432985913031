"""What a camspec may pass to timm: an allow-list of architecture keywords and plain names.

timm.create_model accepts keywords that read or write files (checkpoint_path, cache_dir,
pretrained_cfg_overlay with a file: URL) and architecture names with a prefix that leaves the
folder or goes to the network (local-dir:, hf-hub:). A spec only ever reaches timm through this
module: every keyword is named here with the type and range it may take, and anything else is
refused. Torch-free, so `camlint check` reports the same problems as `camlint verify`.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

# A timm name, optionally with a pretrained tag: vit_base_patch16_224.augreg_in21k
ARCH_FORM = re.compile(r"[a-z][a-z0-9_]*(\.[a-z0-9_]+)?")
MAX_IMG_SIDE = 1024     # pixels: a larger input makes attention memory explode (tokens squared)


@dataclass(frozen=True)
class Keyword:
    kind: str           # int | float | bool | choice | size
    lo: float = 0
    hi: float = 0
    choices: tuple = ()
    help: str = ""


_DROP = Keyword("float", 0.0, 1.0, help="a probability in [0, 1]")
ALLOWED_KWARGS: dict[str, Keyword] = {
    "img_size": Keyword("size", 1, MAX_IMG_SIDE, help=f"an integer or [height, width], each 1..{MAX_IMG_SIDE}"),
    "num_classes": Keyword("int", 0, 100_000),
    "in_chans": Keyword("int", 1, 16),
    "global_pool": Keyword("choice", choices=("", "token", "avg", "avgmax", "max", "map", "fast", "avg_token",
                                              "catavgmax", "none")),
    "class_token": Keyword("bool"),
    "reg_tokens": Keyword("int", 0, 64),
    "no_embed_class": Keyword("bool"),
    "fc_norm": Keyword("bool"),
    "qkv_bias": Keyword("bool"),
    "qk_norm": Keyword("bool"),
    "dynamic_img_size": Keyword("bool"),
    "dynamic_img_pad": Keyword("bool"),
    "patch_size": Keyword("int", 1, 64),
    "window_size": Keyword("int", 1, 64),
    "depth": Keyword("int", 1, 64),
    "num_heads": Keyword("int", 1, 64),
    "embed_dim": Keyword("int", 1, 4096),
    "mlp_ratio": Keyword("float", 0.25, 16.0),
    "init_values": Keyword("float", 0.0, 10.0),
    "drop_rate": _DROP, "drop_path_rate": _DROP, "attn_drop_rate": _DROP, "proj_drop_rate": _DROP,
    "pos_drop_rate": _DROP, "patch_drop_rate": _DROP,
}


def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v) -> bool:
    return (is_int(v) or isinstance(v, float)) and not (isinstance(v, float) and not math.isfinite(v))


def _check_value(kw: Keyword, value) -> str | None:
    """None when the value fits, else what it should be."""
    if kw.kind == "bool":
        return None if isinstance(value, bool) else "true or false"
    if kw.kind == "choice":
        return None if value in kw.choices else "one of " + ", ".join(repr(c) for c in kw.choices)
    if kw.kind == "int":
        return None if is_int(value) and kw.lo <= value <= kw.hi else f"an integer in {kw.lo}..{kw.hi}"
    if kw.kind == "float":
        return None if is_number(value) and kw.lo <= value <= kw.hi else kw.help or f"a number in [{kw.lo}, {kw.hi}]"
    sides = value if isinstance(value, list) and len(value) == 2 else [value]
    return None if all(is_int(s) and kw.lo <= s <= kw.hi for s in sides) else kw.help


def kwargs_problems(kwargs) -> list[tuple[tuple, str]]:
    """(path under model.kwargs, message) for every keyword timm must not receive."""
    if not isinstance(kwargs, dict):
        return [((), "model.kwargs must be a mapping of architecture keywords")]
    out = []
    for key, value in kwargs.items():
        kw = ALLOWED_KWARGS.get(key) if isinstance(key, str) else None
        if kw is None:
            out.append(((key,), f"model.kwargs: {str(key)[:60]!r} is not an architecture keyword camlint passes "
                                "to timm (allowed: " + ", ".join(ALLOWED_KWARGS) + "); weights come only from "
                                "model.weights, never from a path, URL, cache or pretrained config"))
            continue
        want = _check_value(kw, value)
        if want:
            out.append(((key,), f"model.kwargs.{key} must be {want}, not {str(value)[:60]}"))
    return out


def arch_problem(arch) -> str | None:
    """Why a name cannot be passed to timm.create_model (None: a plain timm name)."""
    if not isinstance(arch, str) or not arch:
        return "model.arch must be a timm architecture name"
    if ":" in arch or "/" in arch or "\\" in arch:
        return (f"model.arch: {arch[:80]!r} names a source (hf-hub:, local-dir:, a path); camlint only builds "
                "plain timm architectures and loads weights from model.weights.file (with its sha256)")
    if len(arch) > 120 or not ARCH_FORM.fullmatch(arch):
        return f"model.arch: {arch[:80]!r} is not a timm architecture name (e.g. vit_base_patch16_224)"
    return None


def weights_problem(weights) -> str | None:
    """verify builds with pretrained=False: weights come from a file in the folder or a seed."""
    if isinstance(weights, dict) and set(weights) == {"random_init"}:
        ri = weights["random_init"]
        seed = ri.get("seed") if isinstance(ri, dict) else None
        return None if is_int(seed) and 0 <= seed < 2 ** 63 else \
            "model.weights.random_init.seed must be an integer in 0..2**63-1"
    if isinstance(weights, dict) and "file" in weights:
        if not isinstance(weights["file"], str) or not weights["file"]:
            return "model.weights.file must be a file name relative to the spec's folder"
        if not isinstance(weights.get("sha256"), str) or not re.fullmatch(r"[0-9a-fA-F]{64}", weights["sha256"]):
            return "model.weights.file needs its sha256 (64 hex digits) for camlint verify to load it"
        return None
    return ("model.weights: camlint verify never downloads or reads a hub cache; declare "
            "{file: <in the spec's folder>, sha256: ...} or {random_init: {seed: N}}")
