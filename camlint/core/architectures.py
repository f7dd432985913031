"""What the linter needs to know about an architecture, read from its name (no torch, no timm).

Consistency rules compare a paper's statements with the geometry of its model: depth, patch
size, input size, prefix tokens ([CLS], distillation, registers) and pooling. timm names encode
all of that (vit_base_patch16_384, deit_small_distilled_patch16_224, vit_base_patch16_reg4_gap_256,
swin_tiny_patch4_window7_224); papers write ViT-B/16, DeiT-S, Swin-T.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

_VIT_SIZES = {  # size -> (depth, embed_dim, heads)
    "tiny": (12, 192, 3), "small": (12, 384, 6), "base": (12, 768, 12), "medium": (12, 512, 8),
    "large": (24, 1024, 16), "huge": (32, 1280, 16), "giant": (40, 1408, 16),
}
_LETTER = {"ti": "tiny", "t": "tiny", "s": "small", "b": "base", "m": "medium", "l": "large",
           "h": "huge", "g": "giant"}
_SWIN = {"tiny": (2, 2, 6, 2), "small": (2, 2, 18, 2), "base": (2, 2, 18, 2), "large": (2, 2, 18, 2)}


@dataclass(frozen=True)
class ArchInfo:
    name: str
    family: str                 # vit | deit | beit | swin | clip | other
    depth: int                  # blocks (Swin: total over stages)
    patch: int
    img_size: int
    num_prefix_tokens: int
    has_cls: bool
    global_pool: str            # token | avg | map
    stage_depths: tuple[int, ...] = ()
    heads: int = 0
    size_known: bool = False    # the input size was stated (or is part of the timm name)

    @property
    def grid(self) -> int:
        """Patch tokens per side at the default input size (Swin: the last stage)."""
        if self.family == "swin":
            return self.img_size // self.patch // 8
        return self.img_size // self.patch


def architecture_of_weights(weights: str, input_size: int | None = None) -> ArchInfo | None:
    """The architecture a weights id names (google/vit-base-patch32-224, swinv2_tiny_window8_256.ms_in1k)."""
    return architecture_of({"model": weights.split("/")[-1].split(".")[0]}, input_size)


def architecture_of(values: dict, input_size: int | None = None) -> ArchInfo | None:
    """The architecture a camspec-shaped `model` value names, at its stated input size."""
    model = values.get("model")
    name = model.get("arch") if isinstance(model, dict) else model if isinstance(model, str) else None
    if not isinstance(name, str):
        return None
    size = None
    if isinstance(model, dict):
        dims = model.get("input_size")
        pre = model.get("preprocessing") if isinstance(model.get("preprocessing"), dict) else {}
        crop = pre.get("crop")
        if isinstance(dims, list) and len(dims) == 3 and all(isinstance(d, int) for d in dims):
            size = dims[1]
        elif isinstance(crop, int):
            size = crop
        elif isinstance(crop, list) and crop and isinstance(crop[0], int):
            size = crop[0]
    kwargs = model.get("kwargs") if isinstance(model, dict) and isinstance(model.get("kwargs"), dict) else {}
    stated_img = kwargs.get("img_size") if type(kwargs.get("img_size")) is int else None
    info = _with_kwargs(arch_info(name, img_size=size or stated_img or input_size), kwargs)
    return _with_registers(info, " ".join(str(v) for v in model.values()) if isinstance(model, dict) else "")


def _with_kwargs(info: ArchInfo | None, kwargs: dict) -> ArchInfo | None:
    """timm keyword arguments that change the token layout the name implies ("vit_tiny_patch16_224"
    with patch_size 8 and depth 4); only integers and known words are read."""
    if info is None or info.family == "swin" or not kwargs:
        return info
    ints = {k: v for k, v in kwargs.items() if type(v) is int and 0 < v <= 4096}
    changes = {field: ints[key] for key, field in (("patch_size", "patch"), ("depth", "depth"),
                                                  ("num_heads", "heads")) if key in ints}
    if kwargs.get("global_pool") in ("token", "avg", "map"):
        changes["global_pool"] = kwargs["global_pool"]
    if kwargs.get("class_token") is False and info.has_cls:
        changes.update(has_cls=False, num_prefix_tokens=info.num_prefix_tokens - 1)
    if "reg_tokens" in ints:
        changes["num_prefix_tokens"] = changes.get("num_prefix_tokens", info.num_prefix_tokens) + ints["reg_tokens"]
    return replace(info, **changes) if changes else info


def _with_registers(info: ArchInfo | None, words: str):
    """"DINOv2 ViT-S/14 with registers" in the weights: the register tokens the name leaves out
    (Darcet et al. release 4 per model)."""
    words = words.lower()
    if info is None or info.family == "swin" or "reg" in info.name or not re.search(r"\bregisters?\b", words) \
            or re.search(r"\b(?:no|without|w/o)\s+(?:\w+\s+)?registers?\b", words):
        return info
    n = re.search(r"\b(\d+) registers?\b|\breg(\d+)\b", words)
    count = int(next(g for g in n.groups() if g)) if n else 4
    return replace(info, num_prefix_tokens=info.num_prefix_tokens + count)


def arch_info(name: str | None, img_size: int | None = None) -> ArchInfo | None:
    if not name:
        return None
    raw = name.strip()
    n = raw.lower().split(".")[0] if re.match(r"^[a-z0-9_]+\.[a-z0-9_]+$", raw.lower()) else raw.lower()
    n = n.replace("-", "_")
    m = re.match(r"^(vit|deit3?|beit(?:v2)?)_(tiny|small|base|medium|large|huge|giant)(_distilled)?"
                 r"_patch(\d+)(.*)$", n)
    if m:
        family, size, patch, rest = m.group(1), m.group(2), int(m.group(4)), (m.group(3) or "") + m.group(5)
        img = re.search(r"_(\d{3,4})(?:_|$)", rest)
        return _plain(n, family, size, patch, int(img.group(1)) if img else None, rest, img_size)
    m = re.match(r"^swin_(tiny|small|base|large)_patch(\d+)_window(\d+)_(\d+)", n)
    if m:
        return _swin(n, m.group(1), int(m.group(2)), img_size or int(m.group(4)), True)
    m = re.match(r"^swinv2_(?:cr_)?(tiny|small|base|large)_(?:window\d+_)?(\d+)", n)
    if m:
        return _swin(n, m.group(1), 4, img_size or int(m.group(2)), True)
    # Paper spellings: ViT-B/16, ViT-S/16 at 384, DeiT-S, Swin-T, CLIP ViT-L/14.
    m = re.search(r"\b(vit|deit)_?(ti|t|s|b|m|l|h|g)\s*/\s*(\d+)", n)
    if m:
        fam = "deit" if m.group(1) == "deit" else "vit"
        return _plain(n, fam, _LETTER[m.group(2)], int(m.group(3)), None,
                      "_distilled" if "distill" in n else "", img_size)
    m = re.search(r"\b(vit|deit)_?(tiny|small|base|large|huge)\b(?:\s*/\s*(\d+))?", n)
    if m:
        return _plain(n, m.group(1), m.group(2), int(m.group(3) or 16), None,
                      "_distilled" if "distill" in n else "", img_size)
    m = re.search(r"\bdeit_?(ti|t|s|b)\b", n)
    if m:
        return _plain(n, "deit", _LETTER[m.group(1)], 16, None, "_distilled" if "distill" in n else "", img_size)
    m = re.search(r"\bswin_?(t|s|b|l)\b", n)
    if m:
        return _swin(n, _LETTER[m.group(1)], 4, img_size or 224, bool(img_size))
    return None


def _plain(name, family, size, patch, img, rest, img_size) -> ArchInfo:
    depth, _, heads = _VIT_SIZES[size]
    known = bool(img_size or img)
    if "dinov2" in rest and img is None:
        img = 518
    img = img_size or img or 224
    regs = re.search(r"reg(\d+)", rest)
    n_reg = int(regs.group(1)) if regs else 0
    no_cls = "gap" in rest or "_nocls" in rest
    distilled = "distilled" in rest
    prefix = (0 if no_cls else 1) + (1 if distilled else 0) + n_reg
    if family.startswith("beit"):
        pool = "avg"
    else:
        pool = "avg" if no_cls else "map" if rest.endswith("_map") else "token"
    family = re.sub(r"(v2|3)$", "", family)
    return ArchInfo(name, family, depth, patch, img, prefix, not no_cls, pool, heads=heads, size_known=known)


def _swin(name, size, patch, img, known) -> ArchInfo:
    depths = _SWIN[size]
    return ArchInfo(name, "swin", sum(depths), patch, img, 0, False, "avg", stage_depths=depths,
                    size_known=known)


# Hierarchical and hybrid transformers keep a spatial map per stage and have no [CLS] token
# (taxonomy: "Swin has no [CLS] and keeps spatial (B, H, W, C) maps per stage"); SigLIP's and
# ViTDet's plain ViTs have none either (attention pooling, a detection backbone).
_NO_PREFIX_FAMILIES = re.compile(r"\b(?:c?swin(?:v2)?|swin[-_ ]?unetr|pvt(?:[-_ ]?v2)?|twins|maxvit|coatnet|segformer|"
                                 r"mit[-_]b\d|hiera|focalnet|levit|efficientformer|mobilevit|fastvit|davit|"
                                 r"uniformer|siglip|vitdet)", re.I)


def has_prefix_tokens(info: ArchInfo | None, names: list, named: list[str] = ()) -> bool | None:
    """Whether the model has prefix tokens ([CLS], distillation, registers): from its geometry
    when camlint knows the architecture, else False for a hierarchical family named in `names`
    (the model's name or weights) or, where the paper names no other model, in `named` (the
    transformers its own sections name), else unknown."""
    if any(isinstance(n, str) and _NO_PREFIX_FAMILIES.search(n) for n in names):
        return False    # before the geometry: "SigLIP ViT-B/16" is a ViT-B/16 without [CLS]
    if info is not None:
        return info.num_prefix_tokens > 0
    if named and all(_NO_PREFIX_FAMILIES.search(n) for n in named):
        return False
    return None
