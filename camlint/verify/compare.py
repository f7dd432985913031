"""Comparing a recomputed map with a reported one; fingerprints; degenerate maps."""
from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from camlint.verify.spec import SpecError

MAX_MAP_SIDE = 8192


def fingerprint(m: np.ndarray, step: float) -> str:
    """sha256 of the map quantised to `step` (shape included): equal maps, equal prints."""
    q = np.round(np.nan_to_num(np.asarray(m, dtype=np.float64)) / step).astype(np.int64)
    h = hashlib.sha256(f"{q.shape}".encode())
    h.update(q.tobytes())
    return h.hexdigest()[:16]


SKETCH_GRID, SKETCH_LEVELS = 8, 16
SKETCH_MATCH = 1       # two sketches match when no cell differs by more than this many levels


def sketch(m: np.ndarray, grid: int = SKETCH_GRID) -> str:
    """A printable map sketch: the map min-max normalised, averaged over a grid x grid partition
    and quantised to 16 levels, one hex digit per cell, row by row ("s8:" + 64 digits).

    Compared with a tolerance (sketch_distance), not by equality: noise that moves a cell across
    a level boundary changes it by one level; an unrelated map differs by many."""
    a = np.nan_to_num(np.asarray(m, dtype=np.float64))
    span = float(a.max() - a.min()) if a.size else 0.0
    a = (a - a.min()) / span if span > 0 else np.zeros_like(a)
    t = torch.from_numpy(a)[None, None]
    pooled = F.adaptive_avg_pool2d(t, (grid, grid))[0, 0].numpy()
    levels = np.clip(np.floor(pooled * SKETCH_LEVELS), 0, SKETCH_LEVELS - 1).astype(int)
    return f"s{grid}:" + "".join("0123456789abcdef"[v] for v in levels.ravel())


def sketch_distance(a: str, b: str) -> int | None:
    """Largest per-cell level difference of two sketches (None: not comparable sketches)."""
    if a.split(":")[0] != b.split(":")[0] or len(a) != len(b):
        return None
    return max(abs(int(x, 16) - int(y, 16)) for x, y in zip(a.split(":")[1], b.split(":")[1]))


def load_artifact(path: Path) -> np.ndarray:
    """A reported map: .npy (float H x W) or .png (8 or 16 bit, scaled to [0, 1])."""
    if path.suffix.lower() == ".npy":
        from camlint.safety.media import load_npy, why_unread

        try:
            arr = load_npy(path)
        except Exception as exc:  # noqa: BLE001 - what the header check found is said in its words
            raise SpecError([f"artifact {path.name}: not a plain .npy array ({why_unread(exc)})"]) from None
        arr = np.squeeze(arr)
        if arr.ndim != 2 or arr.dtype.kind not in "fiub" or not all(1 <= n <= MAX_MAP_SIDE for n in arr.shape):
            raise SpecError([f"artifact {path.name}: expected a numeric H x W map (H, W 1..{MAX_MAP_SIDE}), "
                             f"got {arr.dtype} {arr.shape}"])
        arr = np.asarray(arr, dtype=np.float64)
        if not np.isfinite(arr).all():
            raise SpecError([f"artifact {path.name}: the map holds NaN or infinite values"])
        return arr
    if path.suffix.lower() == ".png":
        from camlint.safety.media import open_image

        try:
            img = open_image(path, MAX_MAP_SIDE ** 2, formats=("PNG",))
        except Exception as exc:  # noqa: BLE001
            raise SpecError([f"artifact {path.name}: cannot decode PNG ({exc.__class__.__name__})"]) from None
        if img.mode in ("P", "PA"):     # the pixel values are indices into a palette of colours
            raise SpecError([f"artifact {path.name}: a palette PNG holds colour indices, not map values; "
                             "save the map as a grey PNG or a .npy"])
        arr = np.asarray(img.convert("L") if img.mode == "1" else img)    # "1": booleans, not 0..255
        if arr.dtype.kind not in "fiub" or arr.size == 0:
            raise SpecError([f"artifact {path.name}: not a grey or colour PNG map"])
        if arr.ndim == 3:
            arr = arr[..., 0]
        scale = 65535.0 if arr.dtype == np.uint16 or arr.max() > 255 else 255.0
        return arr.astype(np.float64) / scale
    raise SpecError([f"artifact {path.name}: only .npy and .png maps are read"])


def resize_to(arr: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    if arr.shape == tuple(shape):
        return arr
    t = torch.from_numpy(arr.astype(np.float64))[None, None]
    return F.interpolate(t, size=shape, mode="bilinear", align_corners=False)[0, 0].numpy()


def _rank(x: np.ndarray) -> np.ndarray:
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x), dtype=np.float64)
    ranks[order] = np.arange(len(x), dtype=np.float64)
    # average ranks of ties
    _, inv, counts = np.unique(x, return_inverse=True, return_counts=True)
    sums = np.bincount(inv, weights=ranks)
    return (sums / counts)[inv]


def _pearson(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    den = np.sqrt((a * a).sum() * (b * b).sum())
    return float((a * b).sum() / den) if den > 0 else (1.0 if np.allclose(a, b) else 0.0)


def top_iou(a: np.ndarray, b: np.ndarray, frac: float = 0.1) -> float:
    k = max(1, int(round(a.size * frac)))
    ta = set(np.argsort(a.ravel())[-k:].tolist())
    tb = set(np.argsort(b.ravel())[-k:].tolist())
    return len(ta & tb) / len(ta | tb)


def metrics(ours: np.ndarray, reported: np.ndarray) -> dict:
    reported = resize_to(reported, ours.shape)
    a, b = ours.ravel().astype(np.float64), reported.ravel().astype(np.float64)
    return {"max_abs": float(np.abs(a - b).max()), "pearson": _pearson(a, b),
            "spearman": _pearson(_rank(a), _rank(b)), "top10_iou": top_iou(ours, reported)}


def passes(m: dict, tolerance: dict) -> tuple[bool, list[str]]:
    """Every stated threshold holds (max_abs is an upper bound, the others lower bounds)."""
    failed = []
    for key, bound in tolerance.items():
        if key not in m:
            continue
        ok = m[key] <= bound if key == "max_abs" else m[key] >= bound
        if not ok:
            failed.append(f"{key} {m[key]:.4g} {'>' if key == 'max_abs' else '<'} {bound}")
    return not failed, failed


def degenerate(m: np.ndarray) -> str | None:
    if not np.isfinite(m).all():
        return "the map contains NaN or infinite values"
    if np.abs(m).max() == 0:
        return "the map is all zero"
    if np.ptp(m) < 1e-12:
        return "the map is constant"
    return None


def localization(m: np.ndarray, box, tolerance_px: float = 0) -> dict:
    """Pointing game (the maximum inside the box grown by `tolerance_px`, as in Zhang et al.'s
    pointing game), its chance level (the share of the map the grown box covers: what a map with
    its maximum anywhere scores) and the share of the map's positive energy inside the box itself.

    A constant map has no maximum, so it never scores a hit (argmax would pick the top-left pixel)."""
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    h, w = m.shape
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    t = tolerance_px
    gx0, gy0, gx1, gy1 = max(0, math.ceil(x0 - t)), max(0, math.ceil(y0 - t)), min(w, math.ceil(x1 + t)), \
        min(h, math.ceil(y1 + t))
    chance = max(0, gx1 - gx0) * max(0, gy1 - gy0) / (h * w)
    if degenerate(m):
        return {"pointing": False, "pointing_chance": chance, "energy_in_box": 0.0}
    iy, ix = np.unravel_index(int(np.argmax(m)), m.shape)
    pos = np.clip(m, 0, None)
    total = pos.sum()
    inside = pos[y0:y1, x0:x1].sum()
    return {"pointing": bool(gx0 <= ix < gx1 and gy0 <= iy < gy1), "pointing_chance": chance,
            "energy_in_box": float(inside / total) if total > 0 else 0.0}


def agreement(maps: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Spearman and top-10% IoU between every pair of maps (one input)."""
    X = np.stack([m.ravel() for m in maps]).astype(np.float64)
    # tied values (the zeros a ReLU leaves) share their average rank: an arbitrary order of ties
    # would move Spearman by 1e-3 when a map changes by 1e-9 elsewhere
    ranks = np.stack([_rank(row) for row in X])
    ranks -= ranks.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(ranks, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    Z = ranks / norms
    spearman = Z @ Z.T
    k = max(1, int(round(X.shape[1] * 0.1)))
    top = np.zeros_like(X, dtype=bool)
    idx = np.argsort(X, axis=1, kind="stable")[:, -k:]
    np.put_along_axis(top, idx, True, axis=1)
    inter = top.astype(np.float64) @ top.T.astype(np.float64)
    iou = inter / (2 * k - inter)
    return spearman, iou


def clusters(S: np.ndarray, threshold: float) -> list[list[int]]:
    """Groups of maps linked by agreement >= threshold (union-find), largest first."""
    parent = list(range(len(S)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i in range(len(S)):
        for j in range(i + 1, len(S)):
            if S[i, j] >= threshold:
                parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(len(S)):
        groups.setdefault(find(i), []).append(i)
    return sorted(groups.values(), key=len, reverse=True)


def rounded_rows(m: np.ndarray) -> list:
    """A square agreement matrix as JSON rows (4 decimals, NaN as null)."""
    return [[None if np.isnan(v) else round(float(v), 4) for v in row] for row in m]
