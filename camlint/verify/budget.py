"""How big a model a spec may ask for: checked on torch's meta device before anything is allocated.

Every model.kwargs value is in range on its own, yet together they can ask for any amount of
memory: `patch_size: 1` turns a 224-pixel ViT-Tiny into 50,176 tokens (a 30 GB attention matrix
per block), `embed_dim: 4096, depth: 64` into 12.9 billion parameters. So the model is first built
on the meta device (shapes only, no storage), its parameters counted, and one forward pass at the
largest input it will see is traced to add up the elements of every tensor it creates.

The same budget holds for a batch: verify and sweep put up to 8 inputs through one pass, so the
batch is shrunk until inputs x the elements of one input's pass fit it (one input always fits:
a model over the budget for one input is refused).
"""
from __future__ import annotations

import functools

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

from camlint.verify.modelargs import MAX_IMG_SIDE

MAX_PARAMETERS = 2_000_000_000           # ViT-g/14 has 1.0 billion
MAX_ACTIVATIONS = 10_000_000_000         # elements created by one forward pass, of one input or a batch
                                         # (ViT-L/16 at 384 px: 1.9 billion per input; ViT-B/16 at 1024 px: 16.7)


class _Tally(TorchDispatchMode):
    """Adds up the elements of every tensor an operation returns."""

    def __init__(self):
        super().__init__()
        self.elements = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.elements += sum(t.numel() for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor))
        return out


def _probe_size(model, kwargs: dict) -> tuple[int, int, int]:
    """The input the model will see: the largest one when it accepts any size."""
    chans = kwargs.get("in_chans", 3)
    if kwargs.get("dynamic_img_size"):
        return chans, MAX_IMG_SIDE, MAX_IMG_SIDE
    size = kwargs.get("img_size")
    if size is not None:
        return (chans, size, size) if isinstance(size, int) else (chans, *size)
    cfg = getattr(model, "pretrained_cfg", None) or {}
    return (chans, *tuple(cfg.get("input_size", (3, 224, 224))[1:]))


def _frozen(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    return tuple(_frozen(v) for v in value) if isinstance(value, (list, tuple)) else value


@functools.lru_cache(maxsize=8)
def _cost(name: str, frozen_kwargs: tuple) -> tuple[int, int | None, tuple]:
    """(parameters, elements one input's forward pass creates or None when the meta device cannot
    trace it, the input shape traced); once per model, shared by the size check and the batch size."""
    import timm

    kwargs = dict(frozen_kwargs)
    with torch.device("meta"):
        model = timm.create_model(name, **kwargs)
        params = sum(p.numel() for p in model.parameters())
        if params > MAX_PARAMETERS:
            return params, None, ()
        shape = _probe_size(model, kwargs)
        tally = _Tally()
        try:
            with tally:
                model(torch.empty(1, *shape))
        except Exception:  # noqa: BLE001 - a model the meta device cannot trace: the real build decides
            return params, None, shape
    return params, tally.elements, shape


def model_cost(name: str, kwargs: dict) -> tuple[int, int | None, tuple]:
    return _cost(name, _frozen(kwargs))


def size_problem(name: str, kwargs: dict) -> str | None:
    """Why the model `timm.create_model(name, **kwargs)` is too big to run (None: it fits)."""
    params, elements, shape = model_cost(name, kwargs)
    if params > MAX_PARAMETERS:
        return (f"model: {name} with {_shown(kwargs)} has {params / 1e9:.1f} billion parameters, "
                f"over camlint's limit of {MAX_PARAMETERS / 1e9:.0f} billion")
    if elements is not None and elements > MAX_ACTIVATIONS:
        return (f"model: {name} with {_shown(kwargs)} creates {elements / 1e9:.0f} billion values in one "
                f"pass over a {shape[1]} x {shape[2]} input, over camlint's limit of {MAX_ACTIVATIONS / 1e9:.0f} "
                "billion (a smaller patch size, image size or model fits)")
    return None


def inputs_per_pass(name: str, kwargs: dict, most: int, passes: int = 1) -> int:
    """How many inputs one forward/backward pass may hold: at most `most`, and no more than fit
    the budget together (a batch's pass creates inputs x one input's elements; `passes` such
    passes alive at once share the budget)."""
    _, elements, _ = model_cost(name, kwargs)
    if not elements:
        return most
    return max(1, min(most, MAX_ACTIVATIONS // (elements * passes)))


def _shown(kwargs: dict) -> str:
    shown = {k: v for k, v in kwargs.items() if k != "pretrained"}
    return str(shown) if shown else "no arguments"


MAX_SWEEP_VALUES = 500_000_000           # map values a sweep keeps (4 GB as float64): every procedure's
                                         # map of every input stays for the grids and the agreement
MAX_SWEEP_INPUT_VALUES = 50_000_000      # one input's maps: the agreement of them costs ~60 bytes a value
                                         # (14 procedures at 4096 x 4096 pixels peaked at 13.8 GB)


def sweep_maps_problem(inputs: int, variants: int, hw: tuple, size_stated: bool) -> str | None:
    """Why a sweep's maps would not fit (None: they do): 1,000 inputs of 224 x 224 pixels and
    64 procedures kept 25 GB; 14 procedures at postprocess.size 4096 x 4096, 13.8 GB for one input."""
    one = variants * hw[0] * hw[1]
    key = "postprocess.size" if size_stated else "inputs"
    if one > MAX_SWEEP_INPUT_VALUES:
        return (f"{key}: {variants} procedures x {hw[0]} x {hw[1]} pixels is {one / 1e6:.0f} million map values "
                f"per input, over camlint's limit of {MAX_SWEEP_INPUT_VALUES / 1e6:.0f} million (--max-variants "
                "or a smaller postprocess.size)")
    if inputs * one > MAX_SWEEP_VALUES:
        return (f"{key}: a sweep keeps every procedure's map of every input: {variants} procedures x {inputs} "
                f"inputs x {hw[0]} x {hw[1]} pixels is {inputs * one / 1e9:.1f} billion values, over camlint's "
                f"limit of {MAX_SWEEP_VALUES / 1e9:.1f} billion (fewer inputs, --max-variants or a smaller "
                "postprocess.size)")
    return None
