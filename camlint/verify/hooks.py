"""Where each location lives in a timm model, and a scoped capture of activations and gradients.

Locations are read from the model (block lists, prefix tokens, patch grid), never hard-coded.
Hooks are registered for one `with` block and always removed in `finally`.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field

from camlint.core import locations
from camlint.verify.spec import SpecError

# location -> where it is read inside one block of each timm family (core/locations.py)
VIT_POINTS = locations.timm_taps("vit")
SWIN_POINTS = locations.timm_taps("swin")


@dataclass
class Geometry:
    """What the model says about its tokens (read from the instance)."""
    family: str                    # vit | swin
    depth: int
    prefix: dict                   # name -> list of token indices (cls, dist, registers)
    num_prefix: int
    grid: tuple[int, int]          # patch grid of the input size in use
    has_cls: bool
    global_pool: str


def geometry(model, input_hw: tuple[int, int], stage: int | None = None) -> Geometry:
    if hasattr(model, "layers") and not hasattr(model, "blocks"):       # Swin (timm >= 0.9)
        n_stages = len(model.layers)
        s = (stage or n_stages) - 1
        if not 0 <= s < n_stages:
            raise SpecError([f"layer.stage: {stage} does not exist ({n_stages} stages)"])
        res = model.layers[s].blocks[0].input_resolution if hasattr(model.layers[s].blocks[0], "input_resolution") \
            else None
        if res is None:
            ph, pw = model.patch_embed.grid_size
            res = (ph // 2 ** s, pw // 2 ** s)
        return Geometry("swin", len(model.layers[s].blocks), {}, 0, tuple(res), False, "avg")
    if not hasattr(model, "blocks") or not hasattr(model, "patch_embed"):
        raise SpecError([f"model: {type(model).__name__} is not a ViT- or Swin-style timm model"])
    if stage is not None:      # applied or refused, never ignored: only a Swin has stages
        raise SpecError([f"layer.stage: {type(model).__name__} has no stages; name its block with layer.block"])
    n_prefix = int(getattr(model, "num_prefix_tokens", 1))
    has_cls = getattr(model, "cls_token", None) is not None
    names: dict[str, list[int]] = {}
    i = 0
    if has_cls:
        names["cls"] = [0]
        i = 1
    if getattr(model, "dist_token", None) is not None:
        names["dist"] = [i]
        i += 1
    n_reg = n_prefix - i
    if n_reg > 0:
        names["registers"] = list(range(i, i + n_reg))
    patch = model.patch_embed.patch_size
    grid = (input_hw[0] // patch[0], input_hw[1] // patch[1])
    return Geometry("vit", len(model.blocks), names, n_prefix, grid, has_cls,
                    str(getattr(model, "global_pool", "token")))


def block_modules(model, stage: int | None):
    if hasattr(model, "layers") and not hasattr(model, "blocks"):
        return model.layers[(stage or len(model.layers)) - 1].blocks
    return model.blocks


def _submodule(block, path: str):
    mod = block
    for part in filter(None, path.split(".")):
        if not hasattr(mod, part):
            raise SpecError([f"location: this model's blocks have no {path!r} module"])
        mod = getattr(mod, part)
    return mod


def point_table(model) -> dict:
    return SWIN_POINTS if hasattr(model, "layers") and not hasattr(model, "blocks") else VIT_POINTS


@dataclass
class Capture:
    """Activations and gradients per (block index, point); gradients per backward pass name."""
    activations: dict = field(default_factory=dict)
    gradients: dict = field(default_factory=dict)     # (pass, block, point) -> tensor
    forced_explicit: list = field(default_factory=list)
    current_pass: str = "default"
    live: dict = field(default_factory=dict)          # (block, point) -> the tensor in the graph, during a pass

    def grad(self, block: int, point: str, pass_name: str = "default"):
        return self.gradients.get((pass_name, block, point))

    def sample(self, i: int, batch: int) -> "Capture":
        """The tensors of sample i of a batch of `batch` (a tensor not batched that way, such as
        Swin's per-window attention, is kept whole, so the engine's shape checks still see it)."""
        def one(t):
            return t[i:i + 1] if t.shape[0] == batch else t
        return Capture({k: one(v) for k, v in self.activations.items()},
                       {k: one(v) for k, v in self.gradients.items()}, list(self.forced_explicit))


@contextmanager
def capture(model, sites: list[tuple[int, str]], stage: int | None = None):
    """Record the tensors at `sites` ((block index >= 0, point)) during forward and backward."""
    blocks = block_modules(model, stage)
    table = point_table(model)
    cap = Capture()
    handles = []
    fused_before = []
    try:
        for b, point in sites:
            if point not in table:
                raise SpecError([f"location: {point} is not available for {type(model).__name__}"])
            if not 0 <= b < len(blocks):
                raise SpecError([f"layer: block {b} does not exist ({len(blocks)} blocks)"])
            tap = table[point]
            if locations.location(point).is_attention and table is VIT_POINTS:
                attn = blocks[b].attn
                if getattr(attn, "fused_attn", False):
                    fused_before.append(attn)
                    attn.fused_attn = False         # the softmax matrix exists only on the explicit path
                    cap.forced_explicit.append(b)
            module = _submodule(blocks[b], tap.module)

            def hook(mod, args, output, key=(b, point), which=tap.tensor):
                tensor = output if which == "output" else args[0]
                if isinstance(tensor, tuple):
                    tensor = tensor[0]
                cap.activations[key] = tensor.detach()
                if tensor.requires_grad:
                    cap.live[key] = tensor
                    tensor.register_hook(lambda g, key=key: cap.gradients.__setitem__(
                        (cap.current_pass, *key), g.detach()))

            handles.append(module.register_forward_hook(hook))
        yield cap
    finally:
        cap.live.clear()                            # the graph is freed with the last reference to it
        for h in handles:
            h.remove()
        for attn in fused_before:
            attn.fused_attn = True
