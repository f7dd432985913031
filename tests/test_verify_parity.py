"""The reference engine against independent implementations (CPU, timm models, random weights).

pytorch-grad-cam (PyPI grad-cam) for the ViT recipe and its variants: max |diff| <= 1e-5.
Attention Grad-CAM (Chefer et al. 2021 baseline), attention rollout and generic attention
explainability: hand-written reference formulas below, max |diff| <= 1e-5.
"""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
timm = pytest.importorskip("timm")
pgc = pytest.importorskip("pytorch_grad_cam")

from pytorch_grad_cam.utils.model_targets import ClassifierOutputTarget  # noqa: E402

from camlint.core.presets import BY_NAME  # noqa: E402
from camlint.verify.engine import run_procedure  # noqa: E402
from camlint.verify.spec import expand_preset, procedure_from  # noqa: E402

TOL = 1e-5


def proc_of(preset: str, **override):
    errors = []
    data = expand_preset({"method": {"name": BY_NAME[preset].fixes["method"], "preset": preset}, **override})
    proc = procedure_from(data, errors)
    assert errors == []
    return proc


def _reshape(t, h=14, w=14):
    return t[:, 1:, :].reshape(t.size(0), h, w, t.size(2)).transpose(2, 3).transpose(1, 2)


@pytest.mark.parametrize("preset, cam_class", [
    ("pytorch-grad-cam-vit", "GradCAM"),
    ("pytorch-grad-cam-vit-hirescam", "HiResCAM"),
    ("pytorch-grad-cam-vit-layercam", "LayerCAM"),
    ("pytorch-grad-cam-vit-xgradcam", "XGradCAM"),
    ("pytorch-grad-cam-vit-gradcampp", "GradCAMPlusPlus"),
    ("pytorch-grad-cam-vit-elementwise", "GradCAMElementWise"),
])
def test_pytorch_grad_cam_parity(vit, x, preset, cam_class):
    raw, final, ps = run_procedure(vit, x, proc_of(preset))
    cls = getattr(pgc, cam_class)
    with cls(model=vit, target_layers=[vit.blocks[-1].norm1], reshape_transform=_reshape) as cam:
        ref = cam(input_tensor=x, targets=[ClassifierOutputTarget(int(ps.logits.argmax()))])[0]
    assert np.abs(final.numpy() - ref).max() <= TOL


def test_parity_on_another_input_size_and_block():
    torch.manual_seed(3)
    model = timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=256).eval()
    x = torch.randn(1, 3, 256, 256)
    proc = proc_of("pytorch-grad-cam-vit", layer={"block": 8})
    _, final, ps = run_procedure(model, x, proc)
    with pgc.GradCAM(model=model, target_layers=[model.blocks[8].norm1],
                     reshape_transform=lambda t: _reshape(t, 16, 16)) as cam:
        ref = cam(input_tensor=x, targets=[ClassifierOutputTarget(int(ps.logits.argmax()))])[0]
    assert final.shape == (256, 256) and np.abs(final.numpy() - ref).max() <= TOL


def _attention_and_grads(model, x, cls):
    """Reference capture, independent of camlint's hooks: explicit attention, retain_grad."""
    attns, handles = [], []

    def keep(module, args, out):
        out.retain_grad()
        attns.append(out)

    for blk in model.blocks:
        blk.attn.fused_attn = False
        handles.append(blk.attn.attn_drop.register_forward_hook(keep))
    try:
        logits = model(x)
        logits[0, cls].backward()
    finally:
        for h in handles:
            h.remove()
        for blk in model.blocks:
            blk.attn.fused_attn = True
    return attns


def _minmax(m):
    m = m - m.min()
    return m / m.max()


def _up(m, size=224):
    return torch.nn.functional.interpolate(m[None, None], size=(size, size), mode="bilinear",
                                           align_corners=False)[0, 0]


@pytest.mark.parametrize("block", [-1, -2, 5])
def test_attention_gradcam_matches_chefer_formula(vit, x, block):
    _, final, ps = run_procedure(vit, x, proc_of("chefer2021-attn-gradcam", layer={"block": block}))
    cls = int(ps.logits.argmax())
    attns = _attention_and_grads(vit, x, cls)
    A = attns[block][0, :, 0, 1:].detach().reshape(-1, 14, 14)
    G = attns[block].grad[0, :, 0, 1:].reshape(-1, 14, 14)
    w = G.mean(dim=(1, 2))
    cam = torch.clamp((w[:, None, None] * A).mean(dim=0), min=0)
    if cam.max() == 0:   # all heads negative for this random model: nothing to compare
        assert final.abs().max() == 0 or torch.isnan(final).all()
        return
    ref = _up(_minmax(cam))
    assert (final - ref).abs().max() <= TOL


def test_attention_rollout_matches_abnar_formula(vit, x):
    _, final, _ = run_procedure(vit, x, proc_of("abnar2020-rollout"))
    attns = [P.detach() for P in _attention_and_grads(vit, x, 0)]
    R = torch.eye(197)
    for P in attns:
        A = 0.5 * P[0].mean(dim=0) + 0.5 * torch.eye(197)
        A = A / A.sum(dim=-1, keepdim=True)
        R = A @ R
    ref = _up(_minmax(R[0, 1:].reshape(14, 14)))
    assert (final - ref).abs().max() <= TOL


def test_generic_attention_explainability_matches_chefer_gae(vit, x):
    _, final, ps = run_procedure(vit, x, proc_of("chefer2021-gae"))
    attns = _attention_and_grads(vit, x, int(ps.logits.argmax()))
    R = torch.eye(197)
    for P in attns:
        cam = torch.clamp(P.grad[0] * P[0].detach(), min=0).mean(dim=0)
        R = R + cam @ R
    ref = _up(_minmax(R[0, 1:].reshape(14, 14)))
    assert (final - ref).abs().max() <= TOL


def test_presets_are_complete_procedures():
    for name in BY_NAME:
        errors = []
        procedure_from(expand_preset({"method": {"preset": name}}), errors)
        assert errors == [], (name, errors)
