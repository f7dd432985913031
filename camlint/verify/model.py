"""Build the timm model a spec names, with its weights loaded safely (no pickled code)."""
from __future__ import annotations

from pathlib import Path

import torch

from camlint.verify.budget import inputs_per_pass, size_problem
from camlint.verify.modelargs import arch_problem, kwargs_problems, weights_problem
from camlint.verify.spec import ModelSpec, SpecError
from camlint.rules.artifacts import file_sha256 as sha256_of  # one hashing helper


def load_state_dict(path: Path) -> dict:
    """safetensors, or a torch checkpoint loaded with weights_only=True (no code is executed)."""
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        try:
            return load_file(str(path))
        except Exception as exc:  # noqa: BLE001 - a damaged header or data: the file's problem, said so
            raise SpecError([f"model.weights.file: {path.name} is not a readable safetensors file "
                             f"({exc.__class__.__name__}: {str(exc)[:120]})"]) from None
    try:
        obj = torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - an unsafe or broken pickle is refused, whatever the error
        raise SpecError([f"model.weights.file: {path.name} is not a plain-tensor checkpoint ({exc.__class__.__name__}); "
                         "camlint loads weights with weights_only=True and never runs pickled code"]) from None
    for key in ("state_dict", "model", "model_state_dict"):
        if isinstance(obj, dict) and isinstance(obj.get(key), dict):
            obj = obj[key]
    if not isinstance(obj, dict):
        raise SpecError([f"model.weights.file: {path.name} does not hold a state dict"])
    return obj


def _misfit(model, state: dict) -> str | None:
    """A tensor of the file whose shape or kind differs from the model's (load_state_dict raises
    RuntimeError on a shape, and silently casts integers or booleans into float parameters)."""
    own = model.state_dict()
    for key, value in state.items():
        mine = own.get(key) if isinstance(key, str) else None
        if mine is None or not isinstance(value, torch.Tensor):
            continue
        if tuple(value.shape) != tuple(mine.shape):
            return f"{key[:80]} is {tuple(value.shape)}, the model's is {tuple(mine.shape)}"
        if mine.is_floating_point() and not value.is_floating_point():
            return f"{key[:80]} holds {str(value.dtype).replace('torch.', '')} values, the model's are {str(mine.dtype).replace('torch.', '')}"
    return None


def _default_size(arch: str) -> tuple:
    from timm.models import get_pretrained_cfg

    cfg = get_pretrained_cfg(arch)
    return tuple(cfg.input_size[1:]) if cfg and cfg.input_size else (224, 224)


def create_args(spec: ModelSpec) -> tuple[str, dict]:
    """(name, keyword arguments) for timm.create_model, every one from the allow-list.

    pretrained is always False: weights come from model.weights.file or a seed, never a hub."""
    import timm

    problems = [m for _, m in kwargs_problems(spec.kwargs)]
    arch = arch_problem(spec.arch)
    if arch is None and not timm.is_model(timm.models.split_model_name_tag(spec.arch)[0]):
        arch = f"model.arch: {spec.arch!r} is not an architecture of timm {timm.__version__} (timm.list_models())"
    problems += [p for p in (arch, weights_problem(spec.weights)) if p]
    if problems:
        raise SpecError(problems)
    kwargs = dict(spec.kwargs)
    if isinstance(kwargs.get("img_size"), list):
        kwargs["img_size"] = tuple(kwargs["img_size"])
    if spec.input_size and "img_size" not in kwargs and tuple(spec.input_size[1:]) != _default_size(spec.arch):
        kwargs["img_size"] = tuple(spec.input_size[1:])
    return spec.arch, {**kwargs, "pretrained": False}


def build_model(spec: ModelSpec) -> tuple[torch.nn.Module, str]:
    """(model in eval mode, description of the weights)."""
    import timm

    name, kwargs = create_args(spec)
    w = spec.weights
    try:
        too_big = size_problem(name, kwargs)     # on the meta device: nothing allocated yet
        if too_big:
            raise SpecError([too_big])
        if "random_init" in w:
            seed = w["random_init"]["seed"]
            torch.manual_seed(seed)
            model = timm.create_model(name, **kwargs)
            source = f"random init, torch.manual_seed({seed})"
        else:
            path: Path = w["path"]
            if not path.is_file():
                raise SpecError([f"model.weights.file: {w['file']} does not exist"])
            digest = sha256_of(path)
            if digest.lower() != w["sha256"].lower():
                raise SpecError([f"model.weights.file: sha256 of {w['file']} is {digest[:16]}..., "
                                 f"the spec declares {w['sha256'][:16]}..."])
            model = timm.create_model(name, **kwargs)
            state = load_state_dict(path)
            misfit = _misfit(model, state)
            if misfit:
                raise SpecError([f"model.weights.file: {w['file']} does not fit {spec.arch}: {misfit}"])
            missing, unexpected = model.load_state_dict(state, strict=False)
            if missing or unexpected:
                raise SpecError([f"model.weights.file: {w['file']} does not fit {spec.arch} "
                                 f"(missing {len(missing)}, unexpected {len(unexpected)} tensors)"])
            source = f"file {w['file']} (sha256 checked)"
    except SpecError:
        raise
    except Exception as exc:  # noqa: BLE001 - allowed keywords timm still rejects: a spec problem
        shown = {k: v for k, v in kwargs.items() if k != "pretrained"}
        raise SpecError([f"model: timm cannot build {spec.arch!r} with {shown or 'no arguments'} "
                         f"({exc.__class__.__name__}: {str(exc)[:200]})"]) from None
    grid = getattr(getattr(model, "patch_embed", None), "grid_size", None)
    if grid is not None and min(grid) < 1:
        raise SpecError([f"model: {spec.arch} with {kwargs.get('img_size', 'its')} input size has no patches "
                         f"(a {tuple(grid)} grid); the image must be at least one patch"])
    return model.eval(), source


def batch_size(spec: ModelSpec, most: int, passes: int = 1) -> int:
    """Inputs per forward/backward pass for this model: at most `most`, within the memory budget
    (`passes`: how many such passes are alive at once)."""
    return inputs_per_pass(*create_args(spec), most, passes)


def input_problem(model, shape: tuple) -> str | None:
    """Why the model cannot take a C x H x W input (None: it can). timm asserts on a wrong size
    deep inside the forward pass (an AssertionError, an 'internal error'); a spec's tensor or crop
    of another size is the spec's problem, said before the pass."""
    pe = getattr(model, "patch_embed", None)
    chans = getattr(getattr(pe, "proj", None), "in_channels", None)
    if isinstance(chans, int) and shape[0] != chans:
        return f"has {shape[0]} channels, the model takes {chans}"
    size, patch = getattr(pe, "img_size", None), getattr(pe, "patch_size", None)
    hw = tuple(shape[1:])
    if getattr(pe, "strict_img_size", False) and size is not None and hw != tuple(size):
        return f"is {hw[0]} x {hw[1]} pixels, the model takes {size[0]} x {size[1]}"
    if patch is not None and not getattr(pe, "dynamic_img_pad", False) \
            and any(n % p for n, p in zip(hw, tuple(patch))):
        return f"is {hw[0]} x {hw[1]} pixels, not a multiple of the model's {patch[0]} x {patch[1]} patches"
    return None
