"""One sweep of K procedures, beside K separate single-map runs and K pytorch-grad-cam runs.

The sweep captures activations and gradients at every candidate location in one forward pass
and one backward pass per target kind, then computes every map from that cache. Prints the
seconds of each approach and the ratios; goal: the whole sweep under 2x a single map.

    python bench/sweep_speed.py [--arch vit_base_patch16_224] [--repeat 3]
"""
from __future__ import annotations

import argparse
import time

import torch


def procedures():
    from camlint.verify.sweep import DEFAULT_SPACE, enumerate_variants

    base = {"method": "gradcam", "layer": {"block": -2}, "reshape": {"grid": "auto"},
            "weighting": "gap_gradients", "relu": "after_combination",
            "postprocess": {"normalize": "minmax", "upsample": "bilinear", "order": "pytorch-grad-cam"}}
    variants, _, _ = enumerate_variants(base, DEFAULT_SPACE, cap=10_000)
    return variants


def time_it(fn, repeat: int) -> float:
    fn()  # warm-up
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat


def main() -> None:
    import timm

    from camlint.verify.engine import compute, run_passes, run_procedure

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="vit_base_patch16_224")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    torch.manual_seed(0)
    model = timm.create_model(args.arch, pretrained=False).eval()
    torch.manual_seed(1)
    x = torch.randn(1, 3, 224, 224)
    variants = procedures()
    procs = [v.procedure for v in variants]
    k = len(procs)

    def sweep():
        ps = run_passes(model, x, procs)
        return [compute(ps, p) for p in procs]

    def singles():
        return [run_procedure(model, x, p) for p in procs]

    t_sweep = time_it(sweep, args.repeat)
    t_single = time_it(lambda: run_procedure(model, x, procs[0]), args.repeat)
    t_singles = time_it(singles, 1)

    # pytorch-grad-cam has the variants whose location is a module output and whose tokens are
    # "[CLS] dropped" (its ViT reshape cannot use the [CLS] gradient, nor the attention matrix)
    from pytorch_grad_cam import GradCAM
    from pytorch_grad_cam.utils.model_targets import ClassifierOutputSoftmaxTarget, ClassifierOutputTarget

    grid = model.patch_embed.grid_size
    modules = {"F1": "norm1", "F3b": "ls1", "F4": "norm2", "F5": "mlp", "F6": None}
    usable = [p for p in procs if p.location in modules and p.gradients_from == "patch_tokens"]

    def reshape(t):
        return t[:, 1:, :].reshape(t.size(0), grid[0], grid[1], t.size(2)).permute(0, 3, 1, 2)

    pred = int(model(x).argmax())

    def pgc_runs():
        for p in usable:
            blk = model.blocks[p.blocks[0]]
            layer = blk if modules[p.location] is None else getattr(blk, modules[p.location])
            target = ClassifierOutputTarget(pred) if p.target_kind == "logit" else ClassifierOutputSoftmaxTarget(pred)
            with GradCAM(model=model, target_layers=[layer], reshape_transform=reshape) as cam:
                cam(input_tensor=x, targets=[target])

    t_pgc = time_it(pgc_runs, 1)
    print(f"{args.arch}: sweep of K = {k} procedures (open: location, target, tokens, heads)")
    print(f"{'run':44} {'seconds':>8} {'per map':>8}")
    print(f"{'one sweep (one forward, 2 backward passes)':44} {t_sweep:8.3f} {t_sweep / k:8.3f}")
    print(f"{'one single map (camlint verify engine)':44} {t_single:8.3f} {t_single:8.3f}")
    print(f"{'K single maps, one by one (camlint)':44} {t_singles:8.3f} {t_singles / k:8.3f}")
    print(f"{f'{len(usable)} pytorch-grad-cam runs it can express':44} {t_pgc:8.3f} {t_pgc / max(len(usable), 1):8.3f}")
    ratio = t_sweep / t_single
    print(f"sweep / single map: {ratio:.2f}x (goal < 2: {'met' if ratio < 2 else 'NOT met'}); "
          f"speed-up over K single maps: {t_singles / t_sweep:.1f}x; over pytorch-grad-cam per map: "
          f"{(t_pgc / max(len(usable), 1)) / (t_sweep / k):.1f}x")


if __name__ == "__main__":
    main()
