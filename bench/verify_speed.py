"""camlint's reference engine beside pytorch-grad-cam: same model, input and recipe, one run.

Times the pytorch-grad-cam ViT recipe (last block norm1, [CLS] dropped, GradCAM, min-max,
bilinear) computed by each engine, prints seconds per map, the ratio (goal: camlint no slower),
and peak memory: each engine runs in its own process so peaks do not mix (CPU: peak RSS above
the process's state after loading the model; CUDA: torch's peak allocation).

    python bench/verify_speed.py [--arch vit_base_patch16_224] [--maps 5] [--device auto]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

WORKER = r'''
import json, resource, sys, time
import torch, timm
arch, n, device, engine = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
dev = torch.device("cuda" if device == "auto" and torch.cuda.is_available() else ("cpu" if device == "auto" else device))
torch.manual_seed(0)
model = timm.create_model(arch, pretrained=False).eval().to(dev)
torch.manual_seed(1)
x = torch.randn(1, 3, 224, 224, device=dev)
grid = model.patch_embed.grid_size
base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if dev.type == "cuda":
    torch.cuda.reset_peak_memory_stats()
if engine == "camlint":
    from camlint.presets import BY_NAME
    from camlint.verify.engine import run_procedure
    from camlint.verify.spec import expand_preset, procedure_from
    errors = []
    proc = procedure_from(expand_preset({"method": {"preset": "pytorch-grad-cam-vit"}}), errors)
    def one():
        _, final, _ = run_procedure(model, x, proc)
        return final.detach().cpu().numpy()
else:
    from pytorch_grad_cam import GradCAM
    from pytorch_grad_cam.utils.model_targets import ClassifierOutputTarget
    def reshape(t):
        return t[:, 1:, :].reshape(t.size(0), grid[0], grid[1], t.size(2)).permute(0, 3, 1, 2)
    cam = GradCAM(model=model, target_layers=[model.blocks[-1].norm1], reshape_transform=reshape)
    def one():
        return cam(input_tensor=x, targets=None)[0]
one()   # warm-up
if dev.type == "cuda":
    torch.cuda.synchronize()
t0 = time.perf_counter()
for _ in range(n):
    m = one()
if dev.type == "cuda":
    torch.cuda.synchronize()
elapsed = (time.perf_counter() - t0) / n
peak = (torch.cuda.max_memory_allocated() if dev.type == "cuda"
        else (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_rss) * 1024)
print(json.dumps({"seconds": elapsed, "peak_bytes": peak, "device": str(dev), "checksum": float(m.sum())}))
'''


def run(engine: str, arch: str, n: int, device: str) -> dict:
    out = subprocess.run([sys.executable, "-c", WORKER, arch, str(n), device, engine],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="vit_base_patch16_224")
    ap.add_argument("--maps", type=int, default=5)
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()
    t0 = time.perf_counter()
    ours = run("camlint", args.arch, args.maps, args.device)
    theirs = run("pytorch-grad-cam", args.arch, args.maps, args.device)
    print(f"{args.arch}, {args.maps} maps each, device {ours['device']}")
    print(f"{'engine':20} {'s/map':>8} {'peak MB':>9}")
    for name, r in (("camlint", ours), ("pytorch-grad-cam", theirs)):
        print(f"{name:20} {r['seconds']:8.3f} {r['peak_bytes'] / 2**20:9.1f}")
    ratio = ours["seconds"] / theirs["seconds"]
    print(f"ratio camlint / pytorch-grad-cam: {ratio:.2f}x (goal <= 1: {'met' if ratio <= 1.0 else 'NOT met'})")
    print(f"same map: {abs(ours['checksum'] - theirs['checksum']) < 1e-2} (checksums {ours['checksum']:.3f}, "
          f"{theirs['checksum']:.3f}); total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
