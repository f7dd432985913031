"""Build the timm model a spec names, with its weights loaded safely (no pickled code)."""
from __future__ import annotations

import os
from pathlib import Path

import torch

from camlint.verify.spec import ModelSpec, SpecError


from camlint.rules.artifacts import file_sha256 as sha256_of  # noqa: E402  (one hashing helper)


def load_state_dict(path: Path) -> dict:
    """safetensors, or a torch checkpoint loaded with weights_only=True (no code is executed)."""
    if path.suffix == ".safetensors":
        from safetensors.torch import load_file

        return load_file(str(path))
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


def build_model(spec: ModelSpec) -> tuple[torch.nn.Module, str]:
    """(model in eval mode, description of the weights)."""
    import timm

    w = spec.weights
    kwargs = dict(spec.kwargs)
    if spec.input_size and "img_size" not in kwargs and spec.input_size[1:] != (224, 224):
        kwargs["img_size"] = tuple(spec.input_size[1:])
    try:
        if isinstance(w, dict) and "random_init" in w:
            seed = int(w["random_init"]["seed"])
            torch.manual_seed(seed)
            model = timm.create_model(spec.arch, pretrained=False, **kwargs)
            source = f"random init, torch.manual_seed({seed})"
        elif isinstance(w, dict) and "path" in w:
            path: Path = w["path"]
            if not path.is_file():
                raise SpecError([f"model.weights.file: {w['file']} does not exist"])
            if w.get("sha256"):
                digest = sha256_of(path)
                if digest.lower() != str(w["sha256"]).lower():
                    raise SpecError([f"model.weights.file: sha256 of {w['file']} is {digest[:16]}..., "
                                     f"the spec declares {str(w['sha256'])[:16]}..."])
            model = timm.create_model(spec.arch, pretrained=False, **kwargs)
            missing, unexpected = model.load_state_dict(load_state_dict(path), strict=False)
            if missing or unexpected:
                raise SpecError([f"model.weights.file: {w['file']} does not fit {spec.arch} "
                                 f"(missing {len(missing)}, unexpected {len(unexpected)} tensors)"])
            source = f"file {w['file']}" + (" (sha256 checked)" if w.get("sha256") else "")
        else:
            tag = w.get("release") if isinstance(w, dict) else w
            name = spec.arch if not tag or "." in spec.arch else f"{spec.arch}.{tag}"
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            try:
                model = timm.create_model(name, pretrained=True, **kwargs)
            except Exception:  # noqa: BLE001 - no network: explain what to do instead
                raise SpecError([f"model.weights: {tag!r} is a named release and camlint verify runs offline; "
                                 "download the checkpoint and declare {file: ..., sha256: ...}"]) from None
            source = f"release {name} (local hub cache)"
    except SpecError:
        raise
    except Exception as exc:  # noqa: BLE001 - unknown architecture or bad kwargs: a spec problem
        raise SpecError([f"model: timm cannot build {spec.arch!r} with {kwargs or 'no arguments'} ({exc})"]) from None
    return model.eval(), source
