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

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS
    try:
        img = Image.open(path)
        img.load()
    except Exception as exc:  # noqa: BLE001 - PIL raises many kinds for bad files
        raise SpecError([f"input {path.name}: cannot decode image ({exc.__class__.__name__})"]) from None
    img = img.convert("RGB")
    resample = getattr(Image, _FILTERS.get(pre["interpolation"], "BICUBIC"))
    resize = pre["resize"]
    if isinstance(resize, int):
        w, h = img.size
        scale = resize / min(w, h)
        img = img.resize((max(1, round(w * scale)), max(1, round(h * scale))), resample)
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
    try:
        arr = np.load(path, allow_pickle=False, mmap_mode="r")
    except Exception as exc:  # noqa: BLE001
        raise SpecError([f"input {path.name}: not a plain .npy array ({exc.__class__.__name__})"]) from None
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
