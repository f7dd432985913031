"""`camlint verify`: the CLI, every location, prefix tokens, Swin, weights, inputs, reports."""
from __future__ import annotations

import json
import pickle
import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml

torch = pytest.importorskip("torch")
timm = pytest.importorskip("timm")

from camlint.verify.engine import run_procedure  # noqa: E402
from camlint.verify.spec import SpecError, procedure_from  # noqa: E402
from conftest import FIXTURES, run_cli  # noqa: E402

SPEC = FIXTURES / "verify" / "vit-tiny-random.yaml"
BASE = {"method": "gradcam", "layer": {"block": -2}, "location": "F1",
        "target": {"kind": "logit", "class": "predicted"}, "tokens": {"drop": ["cls"]},
        "reshape": {"grid": [14, 14]}, "weighting": "gap_gradients", "heads": "n/a",
        "relu": "after_combination", "postprocess": {"normalize": "minmax", "upsample": "bilinear"}}


def proc(**over):
    errors = []
    p = procedure_from({**BASE, **over}, errors)
    assert errors == [], errors
    return p


def _copy_fixture(tmp_path: Path) -> Path:
    target = tmp_path / "verify"
    shutil.copytree(FIXTURES / "verify", target)
    return target / SPEC.name


def test_cli_reproduces_the_fixture_and_writes_maps_pytorch_grad_cam_agrees_with(tmp_path):
    from PIL import Image
    from pytorch_grad_cam import GradCAM
    from pytorch_grad_cam.utils.model_targets import ClassifierOutputTarget

    out = tmp_path / "out"
    proc = run_cli("verify", SPEC, "--maps-out", out, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["reproduced"] is True
    assert set(report["environment"]) >= {"torch", "timm", "camlint", "device", "dtype", "attention_path"}
    torch.manual_seed(0)
    model = timm.create_model("vit_tiny_patch16_224", pretrained=False).eval()
    for name in ("disc", "square"):
        ours = np.load(out / f"{name}.npy")
        assert ours.shape == (224, 224) and ours.dtype == np.float32 and (out / f"{name}.png").exists()
        arr = np.asarray(Image.open(FIXTURES / "verify" / "images" / f"{name}.png").convert("RGB"), np.float32) / 255
        xin = torch.from_numpy((arr - 0.5) / 0.5).permute(2, 0, 1)[None]
        with GradCAM(model=model, target_layers=[model.blocks[-1].norm1],
                     reshape_transform=lambda t: t[:, 1:, :].reshape(1, 14, 14, -1).permute(0, 3, 1, 2)) as cam:
            ref = cam(input_tensor=xin, targets=[ClassifierOutputTarget(int(model(xin).argmax()))])[0]
        assert np.abs(ours - ref).max() <= 1e-5


def test_wrong_artifact_fails_with_a_clear_report(tmp_path):
    spec = _copy_fixture(tmp_path)
    data = yaml.safe_load(spec.read_text())
    data["artifacts"][0]["map"] = "maps/square.png"            # the other image's map
    spec.write_text(yaml.safe_dump(data))
    proc = run_cli("verify", spec)
    assert proc.returncode == 1
    assert "NOT reproduced" in proc.stdout and "square.png is not reproduced" in proc.stdout


def test_degenerate_map_is_reported_with_its_cause(tmp_path):
    spec = _copy_fixture(tmp_path)
    text = spec.read_text().replace("location: F1", "location: F6").replace(
        "method: {name: gradcam, preset: pytorch-grad-cam-vit}", "method: gradcam")
    spec.write_text(text.split("artifacts:")[0])
    proc = run_cli("verify", spec, "--format", "json")
    assert proc.returncode == 2 and "CAM602" in proc.stderr      # camlint check already predicts it
    proc = run_cli("verify", spec, "--format", "json", "--force")
    assert proc.returncode == 1
    result = json.loads(proc.stdout)["results"][0]
    assert result["degenerate"] and "patch-token gradients at F3-F6 are exactly zero" in result["findings"][0]["message"]


def test_incomplete_spec_is_refused_with_the_linters_words(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text("model: {arch: vit_tiny_patch16_224, weights: {random_init: {seed: 0}}}\nmethod: gradcam\n"
                    "location: F1\ninputs: [{tensor: x.npy}]\n")
    proc = run_cli("verify", spec)
    assert proc.returncode == 2
    assert "not complete enough" in proc.stderr and "CAM103 missing-layer" in proc.stderr
    assert "CAM105 missing-target" in proc.stderr


@pytest.mark.parametrize("location", ["F1", "F3a", "F3b", "mid_residual", "F4", "F5", "F6"])
def test_every_token_location_gives_a_map(vit, x, location):
    raw, final, _ = run_procedure(vit, x, proc(location=location, relu="none"))
    assert raw.shape == (14, 14) and final.shape == (224, 224)
    assert torch.isfinite(final).all() and raw.abs().max() > 0
    assert 0.0 <= final.min() and final.max() <= 1.0 + 1e-6


def test_locations_read_the_right_tensors(vit, x):
    """F4 is LayerNorm(mid_residual); F6 = mid_residual + F5 (no LayerScale in ViT-Tiny)."""
    from camlint.verify.engine import run_passes

    procs = [proc(location=p) for p in ("mid_residual", "F4", "F5", "F6")] + [proc(layer={"block": -1})]
    ps = run_passes(vit, x, procs)
    acts = {p: ps.capture.activations[(10, p)] for p in ("mid_residual", "F4", "F5", "F6")}
    blk = vit.blocks[10]
    assert torch.allclose(blk.norm2(acts["mid_residual"]), acts["F4"], atol=1e-6)
    assert torch.allclose(acts["mid_residual"] + acts["F5"], acts["F6"], atol=1e-5)
    assert torch.allclose(vit.blocks[11].norm1(acts["F6"]), ps.capture.activations[(11, "F1")], atol=1e-6)


def test_attention_location_forces_and_restores_explicit_attention(vit, x):
    p = proc(location="F2", heads={"aggregate": "mean"}, weighting="elementwise")
    before = [b.attn.fused_attn for b in vit.blocks]
    _, final, ps = run_procedure(vit, x, p)
    assert ps.capture.forced_explicit == [10]
    assert [b.attn.fused_attn for b in vit.blocks] == before
    assert all(not m._forward_hooks for m in vit.modules())


def test_prefix_tokens_come_from_the_model():
    torch.manual_seed(0)
    deit = timm.create_model("deit_tiny_distilled_patch16_224", pretrained=False).eval()
    torch.manual_seed(0)
    regs = timm.create_model("vit_tiny_patch16_224", pretrained=False, reg_tokens=4).eval()
    xin = torch.randn(1, 3, 224, 224)
    _, final, ps = run_procedure(deit, xin, proc(tokens={"drop": ["cls", "dist"]}))
    assert ps.geo.num_prefix == 2 and final.shape == (224, 224)
    with pytest.raises(SpecError, match="cannot form a 14 x 14 grid"):
        run_procedure(deit, xin, proc(tokens={"drop": ["cls"]}))
    _, final, ps = run_procedure(regs, xin, proc(tokens={"drop": ["cls", "registers"]}))
    assert ps.geo.prefix["registers"] == [1, 2, 3, 4]


def test_stated_grid_must_match_the_model(vit, x):
    with pytest.raises(SpecError, match="tokens form a 14 x 14 grid"):
        run_procedure(vit, x, proc(reshape={"grid": [16, 16]}))


def test_cls_gradient_weights(vit, x):
    raw, _, _ = run_procedure(vit, x, proc(weighting="cls_gradient"))
    assert torch.isfinite(raw).all() and raw.abs().max() > 0


def test_swin_stage_maps_and_window_attention():
    torch.manual_seed(0)
    swin = timm.create_model("swin_tiny_patch4_window7_224", pretrained=False).eval()
    xin = torch.randn(1, 3, 224, 224)
    swin_proc = dict(layer={"stage": 4, "block": -1}, tokens="n/a", reshape={"grid": [7, 7]})
    raw, final, _ = run_procedure(swin, xin, proc(location="F4", **swin_proc))
    assert raw.shape == (7, 7) and final.shape == (224, 224)
    raw, _, _ = run_procedure(swin, xin, proc(location="F2", heads={"aggregate": "mean"}, weighting="elementwise",
                                              **swin_proc))
    assert raw.shape == (7, 7)
    with pytest.raises(SpecError, match="per window"):
        run_procedure(swin, xin, proc(location="F2", heads={"aggregate": "mean"}, weighting="elementwise",
                                      layer={"stage": 1, "block": 0}, tokens="n/a", reshape={"grid": [56, 56]}))


def test_safetensors_weights_with_hash_and_tensor_inputs(tmp_path, vit):
    from safetensors.torch import save_file

    from camlint.verify.model import sha256_of

    save_file({k: v.contiguous() for k, v in vit.state_dict().items()}, tmp_path / "w.safetensors")
    np.save(tmp_path / "x.npy", np.random.default_rng(0).normal(size=(3, 224, 224)).astype(np.float32))
    spec = dict(yaml.safe_load(SPEC.read_text()))
    spec["model"] = {"arch": "vit_tiny_patch16_224",
                     "weights": {"file": "w.safetensors", "sha256": sha256_of(tmp_path / "w.safetensors")}}
    spec["inputs"] = [{"tensor": "x.npy"}]
    spec.pop("artifacts")
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(spec))
    proc_ = run_cli("verify", tmp_path / "s.yaml", "--format", "json")
    assert proc_.returncode == 0, proc_.stderr
    assert json.loads(proc_.stdout)["reproduced"] is None
    spec["model"]["weights"]["sha256"] = "0" * 64
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(spec))
    bad = run_cli("verify", tmp_path / "s.yaml")
    assert bad.returncode == 2 and "sha256" in bad.stderr


class _Evil:
    def __reduce__(self):
        return (Path("/tmp/camlint-pwned").touch, ())


def test_pickled_code_in_a_checkpoint_is_never_run(tmp_path):
    Path("/tmp/camlint-pwned").unlink(missing_ok=True)
    with open(tmp_path / "w.pt", "wb") as fh:
        pickle.dump({"x": _Evil()}, fh)
    spec = dict(yaml.safe_load(SPEC.read_text()))
    from camlint.verify.model import sha256_of

    spec["model"] = {"arch": "vit_tiny_patch16_224", "weights": {"file": "w.pt", "sha256": sha256_of(tmp_path / "w.pt")}}
    shutil.copy(FIXTURES / "verify" / "images" / "disc.png", tmp_path / "disc.png")
    spec["inputs"] = [{"image": "disc.png"}]
    spec.pop("artifacts")
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(spec))
    proc_ = run_cli("verify", tmp_path / "s.yaml")
    assert proc_.returncode == 2 and not Path("/tmp/camlint-pwned").exists()
    assert "weights_only" in proc_.stderr


def test_paths_may_not_leave_the_spec_folder(tmp_path):
    spec = dict(yaml.safe_load(SPEC.read_text()))
    spec["inputs"] = [{"image": "../../etc/passwd"}]
    spec.pop("artifacts")
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(spec))
    proc_ = run_cli("verify", tmp_path / "s.yaml")
    assert proc_.returncode == 2 and "outside the spec's folder" in proc_.stderr     # CAM501
    proc_ = run_cli("verify", tmp_path / "s.yaml", "--force")
    assert proc_.returncode == 2 and "leaves the spec's folder" in proc_.stderr      # verify's own guard


def test_localization_metrics_for_boxes():
    report = json.loads(run_cli("verify", SPEC, "--format", "json").stdout)
    loc = report["results"][0]["localization"]
    assert set(loc) == {"pointing", "pointing_chance", "energy_in_box"} and 0 <= loc["energy_in_box"] <= 1
    assert loc["pointing_chance"] == 90 * 90 / (224 * 224)        # the box [60, 70, 150, 160] of 224 x 224


def test_every_format_states_the_pointing_game_beside_its_chance_level():
    """json, text and markdown give the same hits, rate and chance level (the mean share of the
    image the boxes cover: 90 x 90 and 80 x 80 of 224 x 224 here, no tolerance)."""
    from camlint.formats.verification import render_verify
    from camlint.verify.run import verify

    report = verify(SPEC, device="cpu")
    summary = json.loads(render_verify("json", report))["localization"]
    hits = sum(r.localization["pointing"] for r in report.results)
    chance = (90 * 90 + 80 * 80) / 2 / (224 * 224)
    assert summary["pointing_hits"] == hits and summary["inputs"] == 2 and summary["pointing_px"] == 0
    assert summary["pointing_chance"] == pytest.approx(chance)
    sentence = f"pointing game: {hits}/2 (rate {hits / 2:.2f}) against a chance level of {chance:.2f}"
    for fmt in ("text", "markdown"):
        shown = " ".join(render_verify(fmt, report).split())
        assert sentence in shown.lower(), fmt
        assert ("inside" in shown) == (hits > 0) and ("outside" in shown) == (hits < 2), fmt


def test_fingerprint_is_stable_and_quantised():
    from camlint.verify.compare import fingerprint

    m = np.round(np.random.default_rng(0).random((14, 14)), 3)
    assert fingerprint(m, 1e-3) == fingerprint(m + 1e-5, 1e-3)
    assert fingerprint(m, 1e-3) != fingerprint(m + 2e-3, 1e-3)


@pytest.mark.cuda
def test_cpu_and_cuda_agree():
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device here (run through the device tool when one is lent)")
    cpu = json.loads(run_cli("verify", SPEC, "--device", "cpu", "--format", "json").stdout)
    gpu = json.loads(run_cli("verify", SPEC, "--device", "cuda", "--format", "json").stdout)
    assert gpu["environment"]["device"].startswith("cuda") and gpu["reproduced"] is True
    for a, b in zip(cpu["results"], gpu["results"]):
        assert b["comparison"]["max_abs"] <= 0.02
