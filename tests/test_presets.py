"""Every preset of a published adaptation: listed, runnable on the engine, and equal to a
hand-written reference of what its paper computes (those not covered in test_verify_parity.py)."""
from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
timm = pytest.importorskip("timm")

from camlint.core.presets import PRESETS  # noqa: E402
from camlint.verify.engine import run_procedure  # noqa: E402
from conftest import invoke  # noqa: E402
from test_verify_parity import _attention_and_grads, _minmax, _up, proc_of  # noqa: E402

TOL = 1e-5


def test_at_least_twelve_hook_based_presets_with_citations():
    assert len(PRESETS) >= 12
    for p in PRESETS:
        assert p.citation and p.summary and {"method", "location", "layer"} <= set(p.fixes)
    listed = json.loads(invoke("presets", "--format", "json").output)
    assert [p["name"] for p in listed] == [p.name for p in PRESETS]


@pytest.mark.parametrize("name", [p.name for p in PRESETS])
def test_every_preset_runs_on_the_engine(vit, x, name):
    raw, final, _ = run_procedure(vit, x, proc_of(name))
    assert torch.isfinite(raw).all() and torch.isfinite(final).all()
    assert final.shape == (224, 224) and raw.abs().max() > 0


def test_albef_attention_times_relu_gradient(vit, x):
    _, final, ps = run_procedure(vit, x, proc_of("albef-itc-gradcam"))
    attns = _attention_and_grads(vit, x, int(ps.logits.argmax()))
    P, G = attns[-1][0, :, 0, 1:].detach(), attns[-1].grad[0, :, 0, 1:]
    cam = (P * torch.clamp(G, min=0)).mean(dim=0).reshape(14, 14)
    ref = torch.nn.functional.interpolate(_minmax(cam)[None, None], size=(224, 224), mode="bicubic",
                                          align_corners=False)[0, 0]
    assert (final - ref).abs().max() <= TOL


def test_legrad_gradient_of_attention_only(vit, x):
    _, final, ps = run_procedure(vit, x, proc_of("legrad"))
    attns = _attention_and_grads(vit, x, int(ps.logits.argmax()))
    total = sum(torch.clamp(attns[b].grad[0], min=0)[:, :, 1:].mean(dim=1).mean(dim=0) for b in (-2, -1))
    ref = _up(_minmax(total.reshape(14, 14)))
    assert (final - ref).abs().max() <= TOL


def test_cdam_signed_gradient_times_input_of_the_last_block(vit, x):
    raw, final, ps = run_procedure(vit, x, proc_of("cdam"))
    acts = {}

    def keep(module, args, out):
        out.retain_grad()
        acts["t"] = out

    h = vit.blocks[-2].register_forward_hook(keep)
    try:
        vit(x)[0, int(ps.logits.argmax())].backward()
    finally:
        h.remove()
    t = acts["t"]
    ref_raw = (t.grad[0, 1:] * t[0, 1:].detach()).sum(dim=-1).reshape(14, 14)
    assert (raw - ref_raw).abs().max() <= 1e-5 * ref_raw.abs().max()
    assert raw.min() < 0 < raw.max()          # signed: no ReLU


def test_grad_rollout_of_vit_explain(vit, x):
    _, final, ps = run_procedure(vit, x, proc_of("vitexplain-grad-rollout"))
    attns = _attention_and_grads(vit, x, int(ps.logits.argmax()))
    R = torch.eye(197)
    for P in attns:
        A = torch.clamp((P[0].detach() * P.grad[0]).mean(dim=0), min=0)
        flat = A.flatten()
        k = int(flat.numel() * 0.9)
        idx = flat.topk(k, largest=False).indices
        idx = idx[idx != 0]
        flat = flat.clone()
        flat[idx] = 0
        A = (flat.reshape(197, 197) + torch.eye(197)) / 2
        A = A / A.sum(dim=-1, keepdim=True)
        R = A @ R
    cam = R[0, 1:].reshape(14, 14)
    ref = _up(cam / cam.max())
    assert (final - ref).abs().max() <= TOL


def test_eigencam_first_principal_component(vit, x):
    _, final, _ = run_procedure(vit, x, proc_of("pytorch-grad-cam-vit-eigencam"))
    acts = {}
    h = vit.blocks[-1].norm1.register_forward_hook(lambda m, a, out: acts.__setitem__("a", out.detach()))
    try:
        with torch.no_grad():
            vit(x)
    finally:
        h.remove()
    X = acts["a"][0, 1:].double()
    X = X - X.mean(dim=0)
    _, _, vh = torch.linalg.svd(X, full_matrices=False)
    proj = (X @ vh[0]).reshape(14, 14)
    if proj.flatten()[proj.abs().argmax()] < 0:      # camlint fixes the arbitrary SVD sign
        proj = -proj
    cam = _minmax(torch.clamp(proj, min=0).float())
    ref = _minmax(_up(cam))
    assert (final - ref).abs().max() <= 1e-4
