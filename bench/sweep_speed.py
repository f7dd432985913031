"""Sweep speed, side by side in one run.

1. One input: one sweep of K procedures beside K separate single-map runs and K pytorch-grad-cam
   runs (the sweep captures every candidate location in one forward pass and one backward pass
   per target kind, then computes every map from that cache; goal: under 2x a single map).
2. N inputs: `camlint sweep` as users run it, the inputs computed one at a time (before) and in
   batches of up to 8 per forward/backward pass (now), with the largest difference of their maps.

    python bench/sweep_speed.py [--arch vit_base_patch16_224] [--inputs 8] [--repeat 3]
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

OPEN_BASE = {"method": "gradcam", "layer": {"block": -2}, "reshape": {"grid": "auto"},
             "weighting": "gap_gradients", "relu": "after_combination",
             "postprocess": {"normalize": "minmax", "upsample": "bilinear", "order": "pytorch-grad-cam"}}


def procedures():
    """Every procedure camlint's default space gives location, target, tokens and heads."""
    from camlint.verify.sweep import enumerate_variants

    variants, _, _ = enumerate_variants(OPEN_BASE, {}, cap=10_000)
    return variants


def time_it(fn, repeat: int) -> float:
    fn()  # warm-up
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat


def one_input(model, arch: str, repeat: int) -> None:
    from camlint.verify.engine import compute, run_passes, run_procedure

    torch.manual_seed(1)
    x = torch.randn(1, 3, 224, 224)
    procs = [v.procedure for v in procedures()]
    k = len(procs)

    def sweep():
        ps = run_passes(model, x, procs)
        return [compute(ps, p) for p in procs]

    t_sweep = time_it(sweep, repeat)
    t_single = time_it(lambda: run_procedure(model, x, procs[0]), repeat)
    t_singles = time_it(lambda: [run_procedure(model, x, p) for p in procs], 1)
    usable, t_pgc = pytorch_grad_cam_runs(model, x, procs)
    print(f"{arch}, one input: sweep of K = {k} procedures (open: location, target, tokens, heads)")
    print(f"{'run':44} {'seconds':>8} {'per map':>8}")
    print(f"{'one sweep (one forward, 2 backward passes)':44} {t_sweep:8.3f} {t_sweep / k:8.3f}")
    print(f"{'one single map (camlint verify engine)':44} {t_single:8.3f} {t_single:8.3f}")
    print(f"{'K single maps, one by one (camlint)':44} {t_singles:8.3f} {t_singles / k:8.3f}")
    print(f"{f'{usable} pytorch-grad-cam runs it can express':44} {t_pgc:8.3f} {t_pgc / max(usable, 1):8.3f}")
    ratio = t_sweep / t_single
    print(f"sweep / single map: {ratio:.2f}x (goal < 2: {'met' if ratio < 2 else 'NOT met'}); "
          f"speed-up over K single maps: {t_singles / t_sweep:.1f}x; over pytorch-grad-cam per map: "
          f"{(t_pgc / max(usable, 1)) / (t_sweep / k):.1f}x\n")


def pytorch_grad_cam_runs(model, x, procs) -> tuple[int, float]:
    """pytorch-grad-cam for the procedures it can express: a module output as the location and
    [CLS] dropped (its ViT reshape uses neither the [CLS] gradient nor the attention matrix)."""
    from pytorch_grad_cam import GradCAM
    from pytorch_grad_cam.utils.model_targets import ClassifierOutputSoftmaxTarget, ClassifierOutputTarget

    grid = model.patch_embed.grid_size
    modules = {"F1": "norm1", "F3b": "ls1", "F4": "norm2", "F5": "mlp", "F6": None}
    usable = [p for p in procs if p.location in modules and p.gradients_from == "patch_tokens"]

    def reshape(t):
        return t[:, 1:, :].reshape(t.size(0), grid[0], grid[1], t.size(2)).permute(0, 3, 1, 2)

    pred = int(model(x).argmax())

    def runs():
        for p in usable:
            blk = model.blocks[p.blocks[0]]
            layer = blk if modules[p.location] is None else getattr(blk, modules[p.location])
            target = ClassifierOutputTarget(pred) if p.target_kind == "logit" else ClassifierOutputSoftmaxTarget(pred)
            with GradCAM(model=model, target_layers=[layer], reshape_transform=reshape) as cam:
                cam(input_tensor=x, targets=[target])

    return len(usable), time_it(runs, 1)


def open_spec(folder: Path, arch: str, n: int) -> Path:
    """A description with location, target and tokens open and n seeded noise images."""
    import yaml
    from PIL import Image

    rng = np.random.default_rng(0)
    (folder / "images").mkdir()
    inputs = []
    for i in range(n):
        Image.fromarray(rng.integers(0, 256, (224, 224, 3), dtype=np.uint8)).save(folder / "images" / f"x{i}.png")
        inputs.append({"image": f"images/x{i}.png", "box": [40, 40, 120, 120]})
    spec = {"camspec": 1, "model": {"arch": arch, "weights": {"random_init": {"seed": 0}},
                                    "input_size": [3, 224, 224],
                                    "preprocessing": {"resize": 224, "crop": 224, "mean": [0.5] * 3, "std": [0.5] * 3,
                                                      "interpolation": "bilinear"}},
            **OPEN_BASE, "heads": "n/a", "runtime": {"device": "cpu", "dtype": "float32", "seed": 0},
            "inputs": inputs}
    path = folder / "open.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def many_inputs(arch: str, n: int, repeat: int) -> None:
    from camlint.verify import sweep as sw
    from camlint.verify.run import BATCH_MAX

    with tempfile.TemporaryDirectory() as tmp:
        spec = open_spec(Path(tmp), arch, n)
        runs = {}
        sw.sweep(spec, device="cpu")          # warm-up: the first run alone pays torch's lazy start
        for name, size in (("per input", 1), ("batched", BATCH_MAX)):
            t0 = time.perf_counter()
            for _ in range(repeat):
                runs[name] = sw.sweep(spec, device="cpu", batch_max=size)
            runs[name + " s"] = (time.perf_counter() - t0) / repeat
    alone, batched = runs["per input"], runs["batched"]
    k = len(alone.variants)
    diff = max(float(np.abs(a - b).max()) for name in alone.inputs
               for a, b in zip(alone.maps[name], batched.maps[name]))
    print(f"{arch}, camlint sweep of {n} inputs x {k} procedures (spec check and model build included)")
    print(f"{'':36} {'before: per input':>18} {'now: batched':>14}")
    print(f"{'inputs per forward/backward pass':36} {1:>18} {min(n, BATCH_MAX):>14}")
    print(f"{'seconds, whole sweep':36} {runs['per input s']:18.3f} {runs['batched s']:14.3f}")
    print(f"{'seconds per input':36} {runs['per input s'] / n:18.3f} {runs['batched s'] / n:14.3f}")
    print(f"batched / per input: {runs['batched s'] / runs['per input s']:.2f}x; "
          f"largest map difference {diff:.2g} (float32)")


def main() -> None:
    import timm

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="vit_base_patch16_224")
    ap.add_argument("--inputs", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-single", action="store_true", help="only the N-input comparison")
    args = ap.parse_args()
    if not args.skip_single:
        torch.manual_seed(0)
        model = timm.create_model(args.arch, pretrained=False).eval()
        one_input(model, args.arch, args.repeat)
    many_inputs(args.arch, args.inputs, max(1, args.repeat // 3))


if __name__ == "__main__":
    main()
