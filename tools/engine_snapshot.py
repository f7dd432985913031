"""Check that a refactor of the reference engine leaves every map bit for bit the same.

    python tools/engine_snapshot.py save BEFORE.pt      # on the old code
    python tools/engine_snapshot.py save AFTER.pt       # on the new code
    python tools/engine_snapshot.py compare BEFORE.pt AFTER.pt

`save` computes about 900 procedures (every weighting x ReLU placement x location x target at token
locations; every attention weighting x ReLU x head rule x head order x layer combination at F2;
every normalisation x postprocess order x upsampling; every preset) on a seeded random 4-block
ViT-Tiny, and stores the raw and final maps (or the refusal). Set OMP_NUM_THREADS=1 on a busy machine.
"""
from __future__ import annotations

import itertools
import sys

import timm
import torch

from camlint.core.presets import BY_NAME
from camlint.verify.engine import compute, run_passes
from camlint.verify.spec import SpecError, expand_preset, procedure_from

BASE = {"method": "gradcam", "layer": {"block": -2}, "location": "F1",
        "target": {"kind": "logit", "class": "predicted"}, "tokens": {"drop": ["cls"]},
        "reshape": {"grid": [14, 14]}, "weighting": "gap_gradients", "heads": "n/a",
        "relu": "after_combination", "postprocess": {"normalize": "minmax", "upsample": "bilinear"}}
RELUS = ["none", "after_combination", ["on_gradients", "after_combination"], ["on_products"], "on_gradients"]
LAYERS = [{"block": -1}] + [{"blocks": [-2, -1], "combine": c} for c in ("mean", "sum", "max")]


def specs() -> dict:
    out = {}
    for w, r, loc, k in itertools.product(["gap_gradients", "cls_gradient", "elementwise", "gradcam++", "xgradcam",
                                           "eigen", "gradient_only"], RELUS, ["F1", "F5", "F3a"], ["logit", "softmax"]):
        out[f"tok {w} {r} {loc} {k}"] = {**BASE, "weighting": w, "relu": r, "location": loc,
                                         "target": {"kind": k, "class": "predicted"}}
    out["eigengradcam"] = {**BASE, "method": "eigengradcam", "weighting": "method_rule"}
    out["gradients from cls"] = {**BASE, "tokens": {"drop": ["cls"], "gradients_from": "cls"}}
    for w, r, heads, order, layer in itertools.product(["gap_gradients", "elementwise", "gradient_only", "method_rule"],
                                                       RELUS, ["mean", "max", "sum", "as_channels"],
                                                       ["before_relu", "after_relu"], LAYERS):
        out[f"att {w} {r} {heads} {order} {layer}"] = {**BASE, "location": "F2", "weighting": w, "relu": r,
                                                       "heads": {"aggregate": heads, "order": order}, "layer": layer}
    for n, o, up in itertools.product(("minmax", "max", "max_abs", "none"),
                                      ("normalize_then_upsample", "upsample_then_normalize", "pytorch-grad-cam"),
                                      ("bilinear", "nearest", "none")):
        out[f"post {n} {o} {up}"] = {**BASE, "postprocess": {"normalize": n, "order": o, "upsample": up}}
    for name, preset in BY_NAME.items():
        out[f"preset {name}"] = expand_preset({"method": {"name": preset.fixes["method"], "preset": name}})
    rollout = expand_preset({"method": {"name": "rollout", "preset": "abnar2020-rollout"}})
    for fusion in ("mean", "max", "sum"):
        out[f"rollout heads {fusion}"] = {**rollout, "heads": {"aggregate": fusion}}
    return out


def save(path: str) -> None:
    torch.manual_seed(0)
    vit = timm.create_model("vit_tiny_patch16_224", pretrained=False, depth=4).eval()
    torch.manual_seed(1)
    x = torch.randn(1, 3, 224, 224)
    out = {}
    for key, data in specs().items():
        errors = []
        try:
            proc = procedure_from(data, errors)
            if errors:
                out[key] = ("refused", tuple(errors))
                continue
            raw, final = compute(run_passes(vit, x, [proc]), proc)
            out[key] = (raw.detach().clone(), final.detach().clone())
        except SpecError as exc:
            out[key] = ("refused", tuple(exc.messages))
    torch.save(out, path)
    print(f"{len(out)} procedures, {sum(isinstance(v[0], str) for v in out.values())} refused -> {path}")


def compare(before: str, after: str) -> int:
    old, new = torch.load(before), torch.load(after)
    differ = [k for k in old.keys() | new.keys() if k not in old or k not in new
              or isinstance(old[k][0], str) != isinstance(new[k][0], str)
              or (old[k] != new[k] if isinstance(old[k][0], str)
                  else not (torch.equal(old[k][0], new[k][0]) and torch.equal(old[k][1], new[k][1])))]
    print(f"{len(old)} procedures before, {len(new)} after; {len(differ)} differ")
    for key in sorted(differ)[:20]:
        print("  ", key)
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "save":
        save(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "compare":
        sys.exit(compare(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
