"""Inputs: images decoded and preprocessed as the spec says, or preprocessed .npy tensors."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from camlint.verify.modelargs import MAX_IMG_SIDE
from camlint.verify.spec import InputSpec, SpecError

_FILTERS = {"bilinear": "BILINEAR", "bicubic": "BICUBIC", "nearest": "NEAREST", "lanczos": "LANCZOS",
            "box": "BOX", "hamming": "HAMMING"}
MAX_PIXELS = 64_000_000


def preprocessing_config(model, declared: dict, input_size: tuple | None) -> dict:
    """The spec's preprocessing, defaults from the model's pretrained config (recorded in output)."""
    cfg = getattr(model, "pretrained_cfg", {}) or {}
    size = tuple(input_size[1:]) if input_size else tuple(cfg.get("input_size", (3, 224, 224))[1:])
    crop = declared.get("crop", size)
    crop = (crop, crop) if isinstance(crop, int) else tuple(crop)
    crop_pct = cfg.get("crop_pct", 0.875)
    resize = declared.get("resize", int(round(crop[0] / crop_pct)) if crop_pct else crop[0])
    return {
        "resize": resize if isinstance(resize, int) else tuple(resize),
        "crop": crop,
        "mean": tuple(declared.get("mean", cfg.get("mean", (0.485, 0.456, 0.406)))),
        "std": tuple(declared.get("std", cfg.get("std", (0.229, 0.224, 0.225)))),
        "interpolation": declared.get("interpolation", cfg.get("interpolation", "bicubic")),
    }


def load_image(path: Path, pre: dict) -> tuple[torch.Tensor, np.ndarray]:
    """(C x H x W float tensor, H x W x 3 uint8 image as cropped) for one image file."""
    from PIL import Image

    from camlint.safety.media import NotPlainFile, open_image

    try:
        img = open_image(path, MAX_PIXELS)
    except NotPlainFile as exc:
        raise SpecError([f"input {path.name}: {exc}"]) from None
    except Exception as exc:  # noqa: BLE001 - PIL raises many kinds for bad files
        raise SpecError([f"input {path.name}: cannot decode image ({exc.__class__.__name__})"]) from None
    if img.mode.startswith(("I", "F")):
        raise SpecError([f"input {path.name}: a picture of {img.mode} values (16- or 32-bit): how it becomes 8-bit "
                         "RGB is not defined (PIL clips at 255, other readers scale); save it as 8-bit or give "
                         "the preprocessed tensor (.npy)"])
    img = img.convert("RGB")
    resample = getattr(Image, _FILTERS.get(pre["interpolation"], "BICUBIC"))
    resize = pre["resize"]
    if isinstance(resize, int):
        w, h = img.size
        scale = resize / min(w, h)
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        # the shorter side is scaled to `resize`: a 6,400,000 x 10 picture (a 60 KB PNG) became
        # 143 million x 224 pixels, a MemoryError; the resized picture obeys the same pixel limit
        if size[0] * size[1] > MAX_PIXELS:
            raise SpecError([f"input {path.name}: {w} x {h} pixels resized to {resize} on the shorter side "
                             f"is {size[0]} x {size[1]}, over the limit of {MAX_PIXELS:,} pixels "
                             f"(crop the picture to the region the map is about)"])
        img = img.resize(size, resample)
    else:
        img = img.resize((resize[1], resize[0]), resample)
    ch, cw = pre["crop"]
    w, h = img.size
    left, top = max(0, (w - cw) // 2), max(0, (h - ch) // 2)
    img = img.crop((left, top, left + cw, top + ch))
    arr = np.asarray(img, dtype=np.uint8)
    x = torch.from_numpy(arr.astype(np.float32) / 255.0).permute(2, 0, 1)
    mean, std = _mean_std(pre, x.shape[0], path)
    return (x - mean) / std, arr


def _mean_std(pre: dict, channels: int, path: Path) -> tuple[torch.Tensor, torch.Tensor]:
    mean, std = pre["mean"], pre["std"]
    if len(mean) not in (1, channels) or len(std) not in (1, channels):
        raise SpecError([f"model.preprocessing: mean and std have {len(mean)} and {len(std)} values; "
                         f"input {path.name} has {channels} channels"])
    return torch.tensor(mean).view(-1, 1, 1), torch.tensor(std).view(-1, 1, 1)


def load_tensor(path: Path, pre: dict) -> tuple[torch.Tensor, np.ndarray]:
    """A preprocessed float32 C x H x W .npy (no pickles); the picture is de-normalised for overlays."""
    from camlint.safety.media import load_npy, why_unread

    try:
        arr = load_npy(path)
    except Exception as exc:  # noqa: BLE001 - what the header check found is said in its words
        raise SpecError([f"input {path.name}: not a plain .npy array ({why_unread(exc)})"]) from None
    if arr.ndim != 3 or arr.dtype.kind != "f" or not 1 <= arr.shape[0] <= 16 \
            or not all(1 <= n <= MAX_IMG_SIDE for n in arr.shape[1:]):
        raise SpecError([f"input {path.name}: expected a float C x H x W array (C 1..16, H and W 1..{MAX_IMG_SIDE}), "
                         f"got {arr.dtype} {arr.shape}"])
    if not np.isfinite(arr).all():
        raise SpecError([f"input {path.name}: the array holds NaN or infinite values"])
    x = torch.from_numpy(arr.astype(np.float32))
    mean, std = _mean_std(pre, x.shape[0], path)
    picture = ((x * std + mean).clamp(0, 1) * 255).byte().permute(1, 2, 0).numpy()
    return x, picture


def load_input(item: InputSpec, pre: dict) -> tuple[torch.Tensor, np.ndarray]:
    if item.tensor is not None:
        return load_tensor(item.tensor, pre)
    return load_image(item.image, pre)


# ---- pictures for a reviewer: overlays, the reported | recomputed | |difference| figure ------------

def colormap(m: np.ndarray) -> np.ndarray:
    """A perceptual blue-to-red colour map (no matplotlib needed): H x W -> H x W x 3 uint8."""
    t = np.clip(np.nan_to_num(m), 0, 1)[..., None]
    stops = np.array([[48, 18, 59], [40, 118, 239], [32, 204, 161], [179, 233, 49], [250, 150, 25], [122, 4, 3]],
                     dtype=np.float64)
    pos = t * (len(stops) - 1)
    lo = np.floor(pos).astype(int).clip(0, len(stops) - 2)
    frac = pos - lo
    return (stops[lo[..., 0]] * (1 - frac) + stops[lo[..., 0] + 1] * frac).astype(np.uint8)


def overlay(picture: np.ndarray, m: np.ndarray, alpha: float = 0.5) -> np.ndarray:
    from camlint.verify.compare import resize_to

    m = resize_to(np.asarray(m, dtype=np.float64), picture.shape[:2])
    return (picture.astype(np.float64) * (1 - alpha) + colormap(m) * alpha).clip(0, 255).astype(np.uint8)


def wrapped(draw, text: str, width: int, font) -> list[str]:
    """`text` broken at spaces into lines no wider than `width` pixels (a long word gets a line)."""
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and draw.textlength(trial, font=font) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + [line] if line else lines


def _scaled_box(box, shape: tuple[int, int], panel: int) -> tuple:
    h, w = shape
    x0, y0, x1, y1 = box
    return (x0 * panel / w, y0 * panel / h, x1 * panel / w - 1, y1 * panel / h - 1)


def comparison_figure(picture: np.ndarray, reported: np.ndarray, ours: np.ndarray, title: str,
                      box: tuple | None = None, panel: int = 192):
    """Three panels (reported | recomputed | |difference|) with the object box when given and
    `title` (the figures) above them, uncut. The difference is drawn on the scale of the maps
    (0 .. their largest magnitude), so equal maps give a dark panel and a small error stays small."""
    from PIL import Image, ImageDraw, ImageFont

    from camlint.verify.compare import resize_to

    ours = np.asarray(ours, dtype=np.float64)
    reported = resize_to(np.asarray(reported, dtype=np.float64), ours.shape)
    diff = np.abs(ours - reported)
    scale = float(max(np.abs(ours).max(), np.abs(reported).max())) or 1.0
    panels = [overlay(picture, reported), overlay(picture, ours),
              colormap(resize_to(diff / scale, picture.shape[:2]))]
    captions = ["reported", "recomputed", f"|difference| (0 .. {scale:.3g})"]
    font = ImageFont.load_default()
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    lines = wrapped(probe, title, 3 * panel - 8, font)
    top = 6 + 12 * len(lines)
    fig = Image.new("RGB", (3 * panel, top + panel + 16), "white")
    draw = ImageDraw.Draw(fig)
    for j, line in enumerate(lines):
        draw.text((4, 3 + 12 * j), line, fill="black", font=font)
    for k, (arr, caption) in enumerate(zip(panels, captions)):
        tile = Image.fromarray(arr).resize((panel - 4, panel - 4), Image.NEAREST)
        fig.paste(tile, (k * panel + 2, top))
        if box is not None:
            x0, y0, x1, y1 = _scaled_box(box, picture.shape[:2], panel - 4)
            draw.rectangle((k * panel + 2 + x0, top + y0, k * panel + 2 + x1, top + y1), outline="white", width=2)
        draw.text((k * panel + 4, top + panel - 2), caption, fill="black", font=font)
    return fig
