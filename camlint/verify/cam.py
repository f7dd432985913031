"""Every choice of the taxonomy as a small named function of captured tensors.

Shapes: token activations A, gradients G are (B, N, C); spatial maps (B, C, h, w); attention
P, dP are (B, H, N, N). Every function is pure: the sweep computes many procedures from one
capture by calling these with different arguments.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from camlint.verify.hooks import Geometry
from camlint.verify.spec import Procedure, SpecError


# ---- tokens and reshape ---------------------------------------------------------------------

def dropped_indices(geo: Geometry, drop: tuple) -> list[int]:
    return sorted(i for name in drop for i in geo.prefix.get(name, []))


def to_grid(tokens: torch.Tensor, geo: Geometry, drop: tuple, order: str) -> torch.Tensor:
    """(B, N, C) tokens -> (B, C, h, w), prefix tokens named in `drop` removed."""
    if tokens.dim() == 4:                       # Swin NHWC stage output: already spatial
        return tokens.permute(0, 3, 1, 2)
    h, w = geo.grid
    gone = set(dropped_indices(geo, drop))
    keep = [i for i in range(tokens.shape[1]) if i not in gone]
    if len(keep) != h * w:
        kept = [n for n, idx in geo.prefix.items() if not set(idx) <= gone]
        raise SpecError([f"tokens/reshape: {len(keep)} tokens cannot form a {h} x {w} grid"
                         + (f" (the {', '.join(kept)} token(s) are kept)" if kept else "")])
    x = tokens[:, keep, :]
    if order == "column_major":
        return x.reshape(x.shape[0], w, h, -1).permute(0, 3, 2, 1)
    return x.reshape(x.shape[0], h, w, -1).permute(0, 3, 1, 2)


# ---- channel weighting: (A, G) spatial -> map (B, h, w) --------------------------------------

def weights_gap(G: torch.Tensor) -> torch.Tensor:
    return G.mean(dim=(2, 3))


def weights_gradcampp(A: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
    g2 = G ** 2
    g3 = g2 * G
    sum_a = A.sum(dim=(2, 3), keepdim=True)
    aij = g2 / (2 * g2 + sum_a * g3 + 1e-6)
    aij = torch.where(G != 0, aij, torch.zeros_like(aij))
    return (torch.clamp(G, min=0) * aij).sum(dim=(2, 3))


def weights_xgradcam(A: torch.Tensor, G: torch.Tensor) -> torch.Tensor:
    sum_a = A.sum(dim=(2, 3), keepdim=True)
    return (G * A / (sum_a + 1e-7)).sum(dim=(2, 3))


def first_component(X: torch.Tensor) -> torch.Tensor:
    """Projection of (B, C, h, w) on its first principal component over positions (EigenCAM).

    The SVD sign is arbitrary; it is fixed so that the map's largest magnitude is positive."""
    out = []
    for x in X:
        c, h, w = x.shape
        m = torch.nan_to_num(x).reshape(c, h * w).T
        m = m - m.mean(dim=0)
        _, _, vh = torch.linalg.svd(m, full_matrices=False)
        proj = (m @ vh[0]).reshape(h, w)
        if proj.abs().max() > 0 and proj.flatten()[proj.abs().argmax()] < 0:
            proj = -proj
        out.append(proj)
    return torch.stack(out)


def combine_channels(A: torch.Tensor, G: torch.Tensor | None, weighting: str, relu: frozenset,
                     cls_grad: torch.Tensor | None = None) -> torch.Tensor:
    """The signed map before the final ReLU: sum over channels of weighted activations."""
    if weighting == "eigen":
        return first_component(A)
    if G is None:
        raise SpecError(["target: this weighting needs gradients, but no target is declared"])
    if weighting == "eigen_grad":
        return first_component(G * A)
    if "on_gradients" in relu:
        G = torch.clamp(G, min=0)
    if weighting == "elementwise":
        prod = G * A
        if "on_products" in relu:
            prod = torch.clamp(prod, min=0)
        return prod.sum(dim=1)
    if weighting == "gradient_only":
        return G.sum(dim=1)
    if weighting == "gap_gradients":
        alpha = weights_gap(G)
    elif weighting == "cls_gradient":
        if cls_grad is None:
            raise SpecError(["weighting: cls_gradient needs a model with a [CLS] token"])
        alpha = torch.clamp(cls_grad, min=0) if "on_gradients" in relu else cls_grad
    elif weighting == "gradcam++":
        alpha = weights_gradcampp(A, G)
    elif weighting == "xgradcam":
        alpha = weights_xgradcam(A, G)
    else:
        raise SpecError([f"weighting: {weighting} is not supported at a token location"])
    return (alpha[:, :, None, None] * A).sum(dim=1)


# ---- attention (F2) ------------------------------------------------------------------------

def attention_rows(P: torch.Tensor, geo: Geometry) -> torch.Tensor:
    """(B, H, N, N) -> (B, H, n_patches): the [CLS] query row (mean of all rows without [CLS])
    over the patch keys."""
    start = geo.num_prefix
    if geo.has_cls:
        return P[:, :, 0, start:]
    return P[:, :, start:, start:].mean(dim=2)


def attention_map(P: torch.Tensor, dP: torch.Tensor | None, geo: Geometry, proc: Procedure) -> torch.Tensor:
    """Signed (before the final ReLU) map of one attention block: (B, h, w)."""
    kept = [name for name, idx in geo.prefix.items() if idx and name not in proc.drop]
    if kept:
        raise SpecError([f"tokens.drop: at F2 the map is read over the patch keys, so the {', '.join(kept)} "
                         "token(s) cannot be kept; drop every prefix token (e.g. drop: [cls, dist, registers])"])
    h, w = geo.grid
    if proc.weighting == "gradient_only":         # LeGrad: all query rows, gradient only
        if dP is None:
            raise SpecError(["target: gradient_only needs a target"])
        start = geo.num_prefix
        rows = torch.clamp(dP, min=0) if "on_gradients" in proc.relu else dP
        per_head = rows[:, :, :, start:].mean(dim=2)
        return _heads(per_head, proc).reshape(-1, h, w)
    A = attention_rows(P, geo).reshape(P.shape[0], P.shape[1], h, w)
    G = attention_rows(dP, geo).reshape(A.shape) if dP is not None else None
    if proc.heads == "as_channels":
        return combine_channels(A, G, proc.weighting, proc.relu)
    if proc.weighting == "method_rule" or G is None:
        per_head = A
    else:
        g = torch.clamp(G, min=0) if "on_gradients" in proc.relu else G
        if proc.weighting == "elementwise":
            per_head = g * A
            if "on_products" in proc.relu:
                per_head = torch.clamp(per_head, min=0)
        elif proc.weighting == "gap_gradients":
            per_head = weights_gap(g)[:, :, None, None] * A
        else:
            raise SpecError([f"weighting: {proc.weighting} is not supported on attention"])
    if proc.heads_order == "after_relu" and "after_combination" in proc.relu:
        per_head = torch.clamp(per_head, min=0)
    return _heads(per_head, proc)


def _heads(per_head: torch.Tensor, proc: Procedure) -> torch.Tensor:
    if proc.heads == "max":
        return per_head.max(dim=1).values
    if proc.heads == "sum":
        return per_head.sum(dim=1)
    return per_head.mean(dim=1)


def rollout(Ps: list, dPs: list, geo: Geometry, proc: Procedure) -> torch.Tensor:
    """Attention rollout over blocks (Abnar & Zuidema), gradient-weighted (GAE, grad-rollout)."""
    B, _, N, _ = Ps[0].shape
    eye = torch.eye(N, dtype=Ps[0].dtype, device=Ps[0].device).expand(B, N, N)
    R = eye.clone()
    discard = float(proc.param("discard_ratio", 0.0))
    fusion = proc.param("head_fusion", proc.heads or "mean")
    for P, dP in zip(Ps, dPs):
        if proc.method == "gae":
            if dP is None:
                raise SpecError(["target: gradient-weighted rollout needs a target"])
            A = torch.clamp(dP * P, min=0).mean(dim=1)
            R = R + torch.bmm(A, R)
            continue
        if proc.method == "grad-rollout":
            if dP is None:
                raise SpecError(["target: gradient rollout needs a target"])
            A = torch.clamp((P * dP).mean(dim=1), min=0)
        else:
            A = {"max": P.max(dim=1).values, "min": P.min(dim=1).values}.get(fusion, P.mean(dim=1))
        if discard > 0:
            flat = A.reshape(B, -1)
            k = int(flat.shape[1] * discard)
            if k:
                idx = flat.topk(k, dim=-1, largest=False).indices
                idx = idx[idx != 0].reshape(B, -1) if B == 1 else idx
                flat = flat.scatter(-1, idx, 0.0)
            A = flat.reshape(B, N, N)
        A = (A + eye) / 2
        A = A / A.sum(dim=-1, keepdim=True)
        R = torch.bmm(A, R)
    h, w = geo.grid
    start = geo.num_prefix
    row = R[:, 0, start:] if geo.has_cls else R[:, start:, start:].mean(dim=1)
    return row.reshape(B, h, w)


# ---- ReLU, normalisation, upsampling --------------------------------------------------------

def final_relu(M: torch.Tensor, relu: frozenset) -> torch.Tensor:
    return torch.clamp(M, min=0) if "after_combination" in relu else M


def normalize(M: torch.Tensor, how: str, eps: float) -> torch.Tensor:
    flat = M.reshape(M.shape[0], -1)
    if how == "minmax":
        flat = flat - flat.min(dim=1).values[:, None]
        den = eps + flat.max(dim=1).values[:, None]
    elif how == "max":
        den = eps + flat.max(dim=1).values[:, None]
    elif how == "max_abs":
        den = eps + flat.abs().max(dim=1).values[:, None]
    else:
        return M
    # a constant map stays constant (zero) rather than becoming 0/0
    flat = torch.where(den != 0, flat / torch.where(den != 0, den, torch.ones_like(den)), torch.zeros_like(flat))
    return flat.reshape(M.shape)


def upsample(M: torch.Tensor, how: str, size: tuple[int, int], align_corners: bool) -> torch.Tensor:
    if how == "none" or tuple(M.shape[-2:]) == tuple(size):
        return M
    kwargs = {} if how == "nearest" else {"align_corners": align_corners}
    return F.interpolate(M[:, None], size=size, mode=how, **kwargs)[:, 0]


def postprocess(M: torch.Tensor, proc: Procedure, size: tuple[int, int]) -> torch.Tensor:
    if proc.post_order == "pytorch-grad-cam":
        M = upsample(normalize(M, proc.normalize, proc.eps), proc.upsample, size, proc.align_corners)
        return normalize(M, proc.normalize, proc.eps)
    if proc.post_order == "upsample_then_normalize":
        return normalize(upsample(M, proc.upsample, size, proc.align_corners), proc.normalize, proc.eps)
    return upsample(normalize(M, proc.normalize, proc.eps), proc.upsample, size, proc.align_corners)
