"""The reference engine: one forward pass, one backward pass per target kind, then any number of
procedures computed from the captured tensors (verify computes one, sweep many)."""
from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F

from camlint.core.locations import location
from camlint.verify import cam
from camlint.verify.hooks import Geometry, capture, geometry
from camlint.verify.spec import Procedure, SpecError


def resolve_blocks(proc: Procedure, depth: int) -> list[int]:
    if proc.blocks == ("all",):
        return list(range(depth))
    out = []
    for b in proc.blocks:
        i = b + depth if b < 0 else b
        if not 0 <= i < depth:
            raise SpecError([f"layer: block {b} does not exist ({depth} blocks)"])
        out.append(i)
    return out


def sites_of(procs: list[Procedure], depth: int) -> list[tuple[int, str]]:
    sites = []
    for p in procs:
        for b in resolve_blocks(p, depth):
            if (b, p.location) not in sites:
                sites.append((b, p.location))
    return sites


# target kind -> the differentiated scalar of one sample's logits (1, classes) for class `cls`
TARGET_SCORES = cam.Registry("target.kind", "by the reference engine")
TARGET_SCORES.register("logit")(lambda logits, cls: logits[0, cls])
TARGET_SCORES.register("softmax")(lambda logits, cls: torch.softmax(logits, dim=-1)[0, cls])
TARGET_SCORES.register("log_softmax")(lambda logits, cls: torch.log_softmax(logits, dim=-1)[0, cls])
TARGET_SCORES.register("loss")(
    lambda logits, cls: F.cross_entropy(logits, torch.tensor([cls], device=logits.device)))


def target_score(logits: torch.Tensor, cls: int, kind: str) -> torch.Tensor:
    return TARGET_SCORES.lookup(kind)(logits, cls)


def resolve_class(logits: torch.Tensor, wanted, label) -> int:
    if label is not None and isinstance(label, int):
        if not 0 <= label < logits.shape[-1]:
            raise SpecError([f"inputs: class {label} is not a class of this model ({logits.shape[-1]} classes)"])
        return label
    if wanted == "predicted" or wanted is None:
        return int(logits[0].argmax())
    if wanted == "ground_truth":
        raise SpecError(["target.class: ground_truth needs a class: on every input"])
    if isinstance(wanted, int):
        if not 0 <= wanted < logits.shape[-1]:
            raise SpecError([f"target.class: {wanted} is not a class of this model ({logits.shape[-1]} classes)"])
        return wanted
    raise SpecError([f"target.class: {wanted!r} is not a class index"])


@dataclass
class Pass:
    """Tensors of one forward pass (and its backward passes) over a batch, ready for any procedure."""
    capture: object
    geo: Geometry
    logits: torch.Tensor
    per_sample: list               # per sample: target kind -> class index used
    input_hw: tuple[int, int]

    @property
    def classes(self) -> dict:
        """Target kind -> class index used, for a pass of one input."""
        return self.per_sample[0]

    def sample(self, i: int) -> "Pass":
        """The pass of sample i alone (what a pass over that input by itself would hold)."""
        batch = self.logits.shape[0]
        return Pass(self.capture.sample(i, batch), self.geo, self.logits[i:i + 1], [self.per_sample[i]],
                    self.input_hw)


def _backward(cap, score: torch.Tensor, kind: str, keep_graph: bool) -> None:
    """Gradients of `score` at the captured tensors only: the backward pass stops at the earliest
    site and computes no parameter gradient (the values are those of a full backward pass)."""
    keys = list(cap.live)
    grads = torch.autograd.grad(score, [cap.live[k] for k in keys], retain_graph=keep_graph, allow_unused=True)
    for key, g in zip(keys, grads):
        if g is not None:
            cap.gradients[(kind, *key)] = g.detach()


def run_passes(model, x: torch.Tensor, procs: list[Procedure], label=None, labels: list | None = None) -> Pass:
    """Forward once with hooks at every site the procedures need; backward once per target kind.

    `x` is a batch (B, C, H, W); `labels` gives each sample its own class (default: `label` for all).
    Each sample's target is its own: the batch's score is the sum of the per-sample scores, whose
    gradient at a sample's tensors is that sample's gradient."""
    stage = procs[0].stage
    geo = geometry(model, tuple(x.shape[-2:]), stage)
    sites = sites_of(procs, geo.depth)
    kinds = sorted({p.target_kind for p in procs if p.target_kind})
    labels = [label] * x.shape[0] if labels is None else list(labels)
    per_sample = [{} for _ in labels]
    with torch.enable_grad(), capture(model, sites, stage) as cap:
        try:
            logits = model(x)
        except (AssertionError, RuntimeError, ValueError) as exc:   # an input the model cannot take
            raise SpecError([f"model: {type(model).__name__} cannot run on a {' x '.join(map(str, x.shape[1:]))} "
                             f"input ({exc.__class__.__name__}: {str(exc)[:160]})"]) from None
        if isinstance(logits, (tuple, list)):
            logits = logits[0]
        for kind in kinds:
            wanted = next(p.target_class for p in procs if p.target_kind == kind)
            scores = []
            for i, lab in enumerate(labels):
                row = logits[i:i + 1]
                per_sample[i][kind] = cls = resolve_class(row, wanted, lab)
                scores.append(target_score(row, cls, kind))
            cap.current_pass = kind
            if cap.live:
                _backward(cap, torch.stack(scores).sum(), kind, keep_graph=kind != kinds[-1])
    return Pass(cap, geo, logits.detach(), per_sample, tuple(x.shape[-2:]))


def _token_map(ps: Pass, proc: Procedure, block: int) -> torch.Tensor:
    cap, geo = ps.capture, ps.geo
    A_tok = cap.activations[(block, proc.location)]
    G_tok = cap.grad(block, proc.location, proc.target_kind) if proc.target_kind else None
    if proc.target_kind and G_tok is None:
        raise SpecError([f"location: no gradient reached {proc.location} of block {block}"])
    cls_grad = None
    if proc.weighting == "cls_gradient" or proc.gradients_from == "cls":
        if "cls" not in geo.prefix or G_tok is None or A_tok.dim() != 3:
            raise SpecError(["tokens: gradients_from cls needs a model with a [CLS] token"])
        cls_grad = G_tok[:, geo.prefix["cls"][0], :]
    A = cam.to_grid(A_tok, geo, proc.drop, proc.order)
    G = cam.to_grid(G_tok, geo, proc.drop, proc.order) if G_tok is not None else None
    weighting = "cls_gradient" if proc.gradients_from == "cls" and proc.weighting == "gap_gradients" else proc.weighting
    return cam.combine_channels(A, G, weighting, proc.relu, cls_grad)


def _attention_map(ps: Pass, proc: Procedure, block: int) -> torch.Tensor:
    cap = ps.capture
    P = cap.activations[(block, proc.location)]
    dP = cap.grad(block, proc.location, proc.target_kind) if proc.target_kind else None
    if ps.geo.family == "swin":
        if P.shape[0] != ps.logits.shape[0]:
            raise SpecError(["location: F2 on Swin is per window; only a stage whose window covers the whole "
                             "stage (one window) has a global attention matrix"])
        geo = Geometry("swin", ps.geo.depth, {}, 0, ps.geo.grid, False, "avg")
        return cam.attention_map(P, dP, geo, proc)
    return cam.attention_map(P, dP, ps.geo, proc)


def signed_map(ps: Pass, proc: Procedure) -> list[torch.Tensor]:
    """Per-block signed maps (B, h, w) before the final ReLU."""
    if proc.grid is not None and tuple(proc.grid) != tuple(ps.geo.grid):
        raise SpecError([f"reshape.grid: the spec says {proc.grid[0]} x {proc.grid[1]}, but this model's "
                         f"tokens form a {ps.geo.grid[0]} x {ps.geo.grid[1]} grid at this input size"])
    blocks = resolve_blocks(proc, ps.geo.depth)
    if location(proc.location).is_attention:
        return [_attention_map(ps, proc, b) for b in blocks]
    return [_token_map(ps, proc, b) for b in blocks]


def compute(ps: Pass, proc: Procedure, out_size: tuple[int, int] | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(raw signed low-resolution map, final map) for one input (a pass of one; Pass.sample(i) of a batch)."""
    if ps.logits.shape[0] != 1:
        raise ValueError("compute: a pass over a batch; compute each sample's map from ps.sample(i)")
    size = out_size or (ps.input_hw if proc.size == "input" else tuple(proc.size))
    if proc.combine == "rollout":
        if not location(proc.location).is_attention:
            raise SpecError([f"layer.combine: rollout multiplies attention matrices; {proc.location} has none "
                             "(use location F2)"])
        blocks = resolve_blocks(proc, ps.geo.depth)
        Ps = [ps.capture.activations[(b, proc.location)] for b in blocks]
        dPs = [ps.capture.grad(b, proc.location, proc.target_kind) if proc.target_kind else None for b in blocks]
        raw = cam.rollout(Ps, dPs, ps.geo, proc)
        return raw[0], cam.postprocess(cam.final_relu(raw, proc.relu), proc, size)[0]
    maps = signed_map(ps, proc)
    if len(maps) == 1:
        raw = maps[0]
        return raw[0], cam.postprocess(cam.final_relu(raw, proc.relu), proc, size)[0]
    raw = torch.stack(maps).mean(dim=0)
    if proc.combine == "sum":
        total = torch.stack(maps).sum(dim=0)
        return total[0], cam.postprocess(cam.final_relu(total, proc.relu), proc, size)[0]
    # mean / max of per-block maps, each normalised and upsampled first (pytorch-grad-cam's rule)
    per = [cam.upsample(cam.normalize(cam.final_relu(m, proc.relu), proc.normalize, proc.eps),
                        proc.upsample, size, proc.align_corners) for m in maps]
    stacked = torch.clamp(torch.stack(per), min=0)
    joint = stacked.max(dim=0).values if proc.combine == "max" else stacked.mean(dim=0)
    return raw[0], cam.normalize(joint, proc.normalize, proc.eps)[0]


def run_procedure(model, x: torch.Tensor, proc: Procedure, label=None) -> tuple[torch.Tensor, torch.Tensor, Pass]:
    ps = run_passes(model, x, [proc], label)
    raw, final = compute(ps, proc)
    return raw, final, ps
