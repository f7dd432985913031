"""camlint's reference engine beside pytorch-grad-cam and the fwd+bwd floor: same model, one run.

Per map: the pytorch-grad-cam ViT recipe (last block norm1, [CLS] dropped, GradCAM, min-max,
bilinear) computed by each engine; seconds per map, the ratio (goal: camlint <= 1.0x) and peak
memory. Each engine runs in its own process so peaks do not mix (CPU: peak RSS above the
process's state after loading the model; CUDA: torch's peak allocation).

Per input: the `verify` command as users run it (a complete camspec with --inputs .npy tensors,
lint, model build, determinism check on the first input, comparison and report), timed from the
first input to the end and divided by the inputs, against the floor: one plain forward and
backward pass of the same model (goal: <= 1.3x the floor). verify batches its inputs (the first
alone) and its backward pass stops at the captured layer, so it can come in under the floor.

    python bench/verify_speed.py [--arch vit_base_patch16_224] [--maps 5] [--inputs 8]
                                 [--threads 1] [--device auto]
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
torch.set_num_threads(int(sys.argv[5]))
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
    from camlint.core.presets import BY_NAME
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


VERIFY_WORKER = r'''
import json, re, sys, tempfile, time
from pathlib import Path
import numpy as np, torch, yaml
arch, n, device, threads = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
torch.set_num_threads(threads)
from camlint.verify.model import build_model
from camlint.verify.run import verify
folder = Path(tempfile.mkdtemp(prefix="camlint-bench-"))
rng = np.random.default_rng(0)
for i in range(n):
    np.save(folder / f"x{i}.npy", rng.standard_normal((3, 224, 224)).astype(np.float32))
side = 224 // int(re.search(r"patch(\d+)", arch).group(1))
spec = {"camspec": 1,
        "model": {"arch": arch, "weights": {"random_init": {"seed": 0}}, "input_size": [3, 224, 224]},
        "method": {"name": "gradcam", "preset": "pytorch-grad-cam-vit"}, "layer": {"block": -1},
        "location": "F1", "target": {"kind": "logit", "class": "predicted"},
        "tokens": {"drop": ["cls"], "gradients_from": "patch_tokens"},
        "reshape": {"grid": [side, side], "order": "row_major"}, "weighting": "gap_gradients", "heads": "n/a",
        "relu": "after_combination",
        "postprocess": {"normalize": "minmax", "eps": 1e-7, "upsample": "bilinear", "align_corners": False,
                        "size": "input", "order": "pytorch-grad-cam"},
        "implementation": {"library": "camlint", "version": "0.1.0"},
        "runtime": {"device": device, "dtype": "float32", "seed": 0},
        "inputs": [{"tensor": f"x{i}.npy"} for i in range(n)]}
path = folder / "camspec.yaml"
path.write_text(yaml.safe_dump(spec, sort_keys=False))
marks = {}
def progress(text):
    if text.startswith("input 1/"):
        marks["first"] = time.perf_counter()
t0 = time.perf_counter()
report = verify(path, device=device, progress=progress)
if torch.cuda.is_available() and device != "cpu":
    torch.cuda.synchronize()
t1 = time.perf_counter()
assert report.reproduced is None and len(report.results) == n
# the floor: one plain forward and backward pass per input, same model, device and dtype
from camlint.verify.spec import ModelSpec
model, _ = build_model(ModelSpec(arch, {}, {"random_init": {"seed": 0}}, (3, 224, 224)))
dev = torch.device(report.environment["device"])
model = model.to(dev).eval()
xs = [torch.from_numpy(np.load(folder / f"x{i}.npy"))[None].to(dev) for i in range(n)]
def floor_once(x):
    model.zero_grad(set_to_none=True)
    x = x.clone().requires_grad_(False)
    with torch.enable_grad():
        logits = model(x)
        logits[0, int(logits[0].argmax())].backward()
floor_once(xs[0])
f0 = time.perf_counter()
for x in xs:
    floor_once(x)
if dev.type == "cuda":
    torch.cuda.synchronize()
floor = (time.perf_counter() - f0) / n
print(json.dumps({"per_input": (t1 - marks["first"]) / n, "setup": marks["first"] - t0, "floor": floor,
                  "device": str(dev)}))
'''


def run_verify(arch: str, n: int, device: str, threads: int) -> dict:
    out = subprocess.run([sys.executable, "-c", VERIFY_WORKER, arch, str(n), device, str(threads)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def run(engine: str, arch: str, n: int, device: str, threads: int) -> dict:
    out = subprocess.run([sys.executable, "-c", WORKER, arch, str(n), device, engine, str(threads)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--arch", default="vit_base_patch16_224")
    ap.add_argument("--maps", type=int, default=5)
    ap.add_argument("--inputs", type=int, default=8)
    ap.add_argument("--threads", type=int, default=1, help="CPU threads (torch.set_num_threads)")
    ap.add_argument("--device", default="auto")
    args = ap.parse_args()
    t0 = time.perf_counter()
    ours = run("camlint", args.arch, args.maps, args.device, args.threads)
    theirs = run("pytorch-grad-cam", args.arch, args.maps, args.device, args.threads)
    print(f"{args.arch}, {args.maps} maps each, device {ours['device']}, {args.threads} CPU thread(s)")
    print(f"{'engine':20} {'s/map':>8} {'peak MB':>9}")
    for name, r in (("camlint", ours), ("pytorch-grad-cam", theirs)):
        print(f"{name:20} {r['seconds']:8.3f} {r['peak_bytes'] / 2**20:9.1f}")
    ratio = ours["seconds"] / theirs["seconds"]
    print(f"ratio camlint / pytorch-grad-cam: {ratio:.2f}x (goal <= 1: {'met' if ratio <= 1.0 else 'NOT met'})")
    print(f"same map: {abs(ours['checksum'] - theirs['checksum']) < 1e-2} (checksums {ours['checksum']:.3f}, "
          f"{theirs['checksum']:.3f})")
    v = run_verify(args.arch, args.inputs, args.device, args.threads)
    per_input = v["per_input"] / v["floor"]
    print(f"verify, {args.inputs} inputs: {v['per_input']:.3f} s/input (setup {v['setup']:.1f} s: lint, model build); "
          f"fwd+bwd floor {v['floor']:.3f} s")
    print(f"ratio verify per input / floor: {per_input:.2f}x (goal <= 1.3: {'met' if per_input <= 1.3 else 'NOT met'})")
    print(f"ratio verify per input / pytorch-grad-cam per map: {v['per_input'] / theirs['seconds']:.2f}x; "
          f"total {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
