"""Every choice of the taxonomy as a small named function of captured tensors.

Shapes: token activations A, gradients G are (B, N, C); spatial maps (B, C, h, w); attention
P, dP are (B, H, N, N). Every function is pure: the sweep computes many procedures from one
capture by calling these with different arguments.
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

from camlint.core.methods import GRADIENT_FREE_WEIGHTINGS, Relu
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


# ---- registries ----------------------------------------------------------------------------

class Registry(dict):
    """Functions registered by name; an unknown name is refused with the names there are."""

    def __init__(self, slot: str, where: str):
        super().__init__()
        self.slot, self.where = slot, where

    def register(self, name: str):
        def add(fn):
            self[name] = fn
            return fn
        return add

    def lookup(self, name: str):
        if name not in self:
            raise SpecError([f"{self.slot}: {name} is not supported {self.where} "
                             f"(supported: {', '.join(sorted(self))})"])
        return self[name]


def _rectified(G: torch.Tensor, relu: frozenset) -> torch.Tensor:
    return torch.clamp(G, min=0) if Relu.ON_GRADIENTS in relu else G


def _products(G: torch.Tensor, A: torch.Tensor, relu: frozenset) -> torch.Tensor:
    prod = G * A
    return torch.clamp(prod, min=0) if Relu.ON_PRODUCTS in relu else prod


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


def _weighted_sum(alpha: torch.Tensor, A: torch.Tensor) -> torch.Tensor:
    return (alpha[:, :, None, None] * A).sum(dim=1)


# name -> f(A, G, relu, cls_grad) -> signed map (B, h, w); G is None only for a gradient-free one
CHANNEL_WEIGHTINGS = Registry("weighting", "at a token location")


@CHANNEL_WEIGHTINGS.register("eigen")
def _eigen(A, G, relu, cls_grad):
    return first_component(A)


@CHANNEL_WEIGHTINGS.register("eigen_grad")
def _eigen_grad(A, G, relu, cls_grad):
    return first_component(G * A)


@CHANNEL_WEIGHTINGS.register("elementwise")
def _elementwise(A, G, relu, cls_grad):
    return _products(_rectified(G, relu), A, relu).sum(dim=1)


@CHANNEL_WEIGHTINGS.register("gradient_only")
def _gradient_only(A, G, relu, cls_grad):
    return _rectified(G, relu).sum(dim=1)


@CHANNEL_WEIGHTINGS.register("gap_gradients")
def _gap_gradients(A, G, relu, cls_grad):
    return _weighted_sum(weights_gap(_rectified(G, relu)), A)


@CHANNEL_WEIGHTINGS.register("cls_gradient")
def _cls_gradient(A, G, relu, cls_grad):
    if cls_grad is None:
        raise SpecError(["weighting: cls_gradient needs a model with a [CLS] token"])
    return _weighted_sum(_rectified(cls_grad, relu), A)


@CHANNEL_WEIGHTINGS.register("gradcam++")
def _gradcampp(A, G, relu, cls_grad):
    return _weighted_sum(weights_gradcampp(A, _rectified(G, relu)), A)


@CHANNEL_WEIGHTINGS.register("xgradcam")
def _xgradcam(A, G, relu, cls_grad):
    return _weighted_sum(weights_xgradcam(A, _rectified(G, relu)), A)


def combine_channels(A: torch.Tensor, G: torch.Tensor | None, weighting: str, relu: frozenset,
                     cls_grad: torch.Tensor | None = None) -> torch.Tensor:
    """The signed map before the final ReLU: sum over channels of weighted activations."""
    combine = CHANNEL_WEIGHTINGS.lookup(weighting)
    if G is None and weighting not in GRADIENT_FREE_WEIGHTINGS:
        raise SpecError(["target: this weighting needs gradients, but no target is declared"])
    return combine(A, G, relu, cls_grad)


# ---- attention (F2) ------------------------------------------------------------------------

def attention_rows(P: torch.Tensor, geo: Geometry) -> torch.Tensor:
    """(B, H, N, N) -> (B, H, n_patches): the [CLS] query row (mean of all rows without [CLS])
    over the patch keys."""
    start = geo.num_prefix
    if geo.has_cls:
        return P[:, :, 0, start:]
    return P[:, :, start:, start:].mean(dim=2)


# name -> f(per-head attention maps, per-head gradient maps, relu) -> per-head maps (B, H, h, w)
HEAD_WEIGHTINGS = Registry("weighting", "on attention")
HEAD_WEIGHTINGS.register("method_rule")(lambda A, G, relu: A)
HEAD_WEIGHTINGS.register("elementwise")(lambda A, G, relu: _products(_rectified(G, relu), A, relu))
HEAD_WEIGHTINGS.register("gap_gradients")(lambda A, G, relu: weights_gap(_rectified(G, relu))[:, :, None, None] * A)

# name -> f(per-head maps (B, H, ...)) -> one map (B, ...)
HEAD_COMBINATIONS = Registry("heads", "as a head combination")
HEAD_COMBINATIONS.register("mean")(lambda per_head: per_head.mean(dim=1))
HEAD_COMBINATIONS.register("max")(lambda per_head: per_head.max(dim=1).values)
HEAD_COMBINATIONS.register("sum")(lambda per_head: per_head.sum(dim=1))
# Head fusions of attention rollout (Abnar & Zuidema; jacobgil/vit-explain): another head rule
# (sum, as_channels) fuses by the mean, as rollout always has.
ROLLOUT_FUSIONS = Registry("heads", "as a rollout head fusion")
ROLLOUT_FUSIONS.register("mean")(lambda P: P.mean(dim=1))
ROLLOUT_FUSIONS.register("max")(lambda P: P.max(dim=1).values)
ROLLOUT_FUSIONS.register("min")(lambda P: P.min(dim=1).values)


def attention_map(P: torch.Tensor, dP: torch.Tensor | None, geo: Geometry, proc: Procedure) -> torch.Tensor:
    """Signed (before the final ReLU) map of one attention block: (B, h, w)."""
    kept = [name for name, idx in geo.prefix.items() if idx and name not in proc.drop]
    if kept:
        raise SpecError([f"tokens.drop: at F2 the map is read over the patch keys, so the {', '.join(kept)} "
                         "token(s) cannot be kept; drop every prefix token (e.g. drop: [cls, dist, registers])"])
    if proc.weighting == "gradient_only":       # LeGrad reads every query row, not the [CLS] row
        return _all_rows_gradient(dP, geo, proc)
    h, w = geo.grid
    A = attention_rows(P, geo).reshape(P.shape[0], P.shape[1], h, w)
    G = attention_rows(dP, geo).reshape(A.shape) if dP is not None else None
    if proc.heads == "as_channels":
        return combine_channels(A, G, proc.weighting, proc.relu)
    per_head = A if G is None else HEAD_WEIGHTINGS.lookup(proc.weighting)(A, G, proc.relu)
    if proc.heads_order == "after_relu" and Relu.AFTER_COMBINATION in proc.relu:
        per_head = torch.clamp(per_head, min=0)
    return _heads(per_head, proc)


def _all_rows_gradient(dP: torch.Tensor | None, geo: Geometry, proc: Procedure) -> torch.Tensor:
    """LeGrad: the attention gradient averaged over all query rows, per patch key, heads combined."""
    if dP is None:
        raise SpecError(["target: gradient_only needs a target"])
    h, w = geo.grid
    per_head = _rectified(dP, proc.relu)[:, :, :, geo.num_prefix:].mean(dim=2)
    return _heads(per_head, proc).reshape(-1, h, w)


def _heads(per_head: torch.Tensor, proc: Procedure) -> torch.Tensor:
    # as_channels reaches here only from LeGrad, which has no channels to weigh: heads are averaged
    name = "mean" if proc.heads in (None, "as_channels") else proc.heads
    return HEAD_COMBINATIONS.lookup(name)(per_head)


def rollout(Ps: list, dPs: list, geo: Geometry, proc: Procedure) -> torch.Tensor:
    """Attention rollout over blocks (Abnar & Zuidema), gradient-weighted (GAE, grad-rollout)."""
    B, _, N, _ = Ps[0].shape
    eye = torch.eye(N, dtype=Ps[0].dtype, device=Ps[0].device).expand(B, N, N)
    R = eye.clone()
    discard = float(proc.param("discard_ratio", 0.0))
    fusion = proc.param("head_fusion", proc.heads or "mean")
    fuse = ROLLOUT_FUSIONS.get(fusion, ROLLOUT_FUSIONS["mean"])
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
            A = fuse(P)
        if discard > 0:
            A = _discard_lowest(A, discard)
        A = (A + eye) / 2
        A = A / A.sum(dim=-1, keepdim=True)
        R = torch.bmm(A, R)
    h, w = geo.grid
    start = geo.num_prefix
    row = R[:, 0, start:] if geo.has_cls else R[:, start:, start:].mean(dim=1)
    return row.reshape(B, h, w)


def _discard_lowest(A: torch.Tensor, discard: float) -> torch.Tensor:
    """Zero the lowest `discard` fraction of each (N, N) matrix (flat index 0, CLS->CLS, is spared)."""
    B, N, _ = A.shape
    flat = A.reshape(B, -1)
    k = int(flat.shape[1] * discard)
    if k:
        idx = flat.topk(k, dim=-1, largest=False).indices
        idx = idx[idx != 0].reshape(B, -1) if B == 1 else idx
        flat = flat.scatter(-1, idx, 0.0)
    return flat.reshape(B, N, N)


# ---- ReLU, normalisation, upsampling --------------------------------------------------------

def final_relu(M: torch.Tensor, relu: frozenset) -> torch.Tensor:
    return torch.clamp(M, min=0) if Relu.AFTER_COMBINATION in relu else M


# name -> f(flat maps (B, n), eps) -> (shifted maps, denominators (B, 1)); "none" leaves a map as is
NORMALIZATIONS = Registry("postprocess.normalize", "as a normalisation")
NORMALIZATIONS.register("none")(None)


@NORMALIZATIONS.register("minmax")
def _minmax(flat, eps):
    flat = flat - flat.min(dim=1).values[:, None]
    return flat, eps + flat.max(dim=1).values[:, None]


NORMALIZATIONS.register("max")(lambda flat, eps: (flat, eps + flat.max(dim=1).values[:, None]))
NORMALIZATIONS.register("max_abs")(lambda flat, eps: (flat, eps + flat.abs().max(dim=1).values[:, None]))


def normalize(M: torch.Tensor, how: str, eps: float) -> torch.Tensor:
    scale = NORMALIZATIONS.lookup(how)
    if scale is None:
        return M
    flat, den = scale(M.reshape(M.shape[0], -1), eps)
    # a constant map stays constant (zero) rather than becoming 0/0
    flat = torch.where(den != 0, flat / torch.where(den != 0, den, torch.ones_like(den)), torch.zeros_like(flat))
    return flat.reshape(M.shape)


def upsample(M: torch.Tensor, how: str, size: tuple[int, int], align_corners: bool) -> torch.Tensor:
    if how == "none" or tuple(M.shape[-2:]) == tuple(size):
        return M
    kwargs = {} if how == "nearest" else {"align_corners": align_corners}
    return F.interpolate(M[:, None], size=size, mode=how, **kwargs)[:, 0]


def _normalized(M, proc):
    return normalize(M, proc.normalize, proc.eps)


def _upsampled(M, proc, size):
    return upsample(M, proc.upsample, size, proc.align_corners)


# name -> f(map, procedure, output size) -> final map
POSTPROCESS_ORDERS = Registry("postprocess.order", "as a postprocessing order")
POSTPROCESS_ORDERS.register("normalize_then_upsample")(lambda M, proc, size: _upsampled(_normalized(M, proc), proc, size))
POSTPROCESS_ORDERS.register("upsample_then_normalize")(lambda M, proc, size: _normalized(_upsampled(M, proc, size), proc))
# pytorch-grad-cam normalises the low-resolution map, resizes it, and normalises again
POSTPROCESS_ORDERS.register("pytorch-grad-cam")(
    lambda M, proc, size: _normalized(_upsampled(_normalized(M, proc), proc, size), proc))


def postprocess(M: torch.Tensor, proc: Procedure, size: tuple[int, int]) -> torch.Tensor:
    return POSTPROCESS_ORDERS.lookup(proc.post_order)(M, proc, size)
