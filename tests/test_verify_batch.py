"""Inputs computed in one batch give the maps of one-at-a-time passes (seeded timm models, random
weights, CPU), each input with its own class, and the maps of pytorch-grad-cam on each input alone."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
timm = pytest.importorskip("timm")

from camlint.verify.engine import compute, run_passes, run_procedure  # noqa: E402
from camlint.verify.spec import expand_preset, procedure_from  # noqa: E402

TOL = 1e-6
BASE = {"method": "gradcam", "layer": {"block": -2}, "location": "F1", "target": {"kind": "logit", "class": "predicted"},
        "tokens": {"drop": ["cls"]}, "reshape": {"grid": [6, 6]}, "weighting": "gap_gradients", "heads": "n/a",
        "relu": "after_combination", "postprocess": {"normalize": "minmax", "upsample": "bilinear"}}
PROCEDURES = {
    "F1 gap": {},
    "F1 elementwise": {"weighting": "elementwise"},
    "F5 gap softmax": {"location": "F5", "target": {"kind": "softmax", "class": "predicted"}},
    "F1 gap, cls gradients": {"tokens": {"drop": ["cls"], "gradients_from": "cls"}},
    "F2 heads mean elementwise": {"location": "F2", "weighting": "elementwise", "heads": {"aggregate": "mean"}},
    "F2 heads max gap, two blocks": {"location": "F2", "heads": {"aggregate": "max", "order": "after_relu"},
                                     "layer": {"blocks": [-2, -1], "combine": "mean"}},
    "F2 heads as channels, loss": {"location": "F2", "heads": {"aggregate": "as_channels"},
                                   "target": {"kind": "loss", "class": "predicted"}},
    "F3a eigen": {"location": "F3a", "weighting": "eigen"},
}


def proc(**override):
    errors = []
    p = procedure_from({**BASE, **override}, errors)
    assert errors == []
    return p


@pytest.fixture(scope="module")
def vit():
    torch.manual_seed(0)
    # float64: batched and single passes take different BLAS kernels, whose float32 sums differ by
    # a few 1e-6 on some CPUs; in float64 the same code must agree far below TOL
    return timm.create_model("vit_tiny_patch16_224", pretrained=False, depth=3, img_size=96).eval().double()


@pytest.fixture(scope="module")
def xs():
    torch.manual_seed(1)
    return torch.randn(4, 3, 96, 96, dtype=torch.float64)


LABELS = [None, 7, None, 123]


@pytest.mark.parametrize("name", list(PROCEDURES))
def test_batch_maps_are_the_one_at_a_time_maps(vit, xs, name):
    p = proc(**PROCEDURES[name])
    batch = run_passes(vit, xs, [p], labels=LABELS)
    for i, label in enumerate(LABELS):
        raw, final, alone = run_procedure(vit, xs[i:i + 1], p, label)
        one = batch.sample(i)
        assert one.classes == alone.classes
        if label is not None and p.target_kind:
            assert one.classes[p.target_kind] == label
        b_raw, b_final = compute(one, p)
        assert b_final.shape == final.shape == (96, 96)
        assert float((b_raw - raw).abs().max()) <= TOL * max(1.0, float(raw.abs().max())), name
        assert float((b_final - final).abs().max()) <= TOL, name


def test_batch_keeps_the_prefix_tokens_of_each_model():
    """Token dropping on a model with a distillation token and on one with register tokens."""
    torch.manual_seed(2)
    deit = timm.create_model("deit_tiny_distilled_patch16_224", pretrained=False, depth=2, img_size=96).eval()
    regs = timm.create_model("vit_tiny_patch16_224", pretrained=False, depth=2, img_size=96, reg_tokens=2).eval()
    torch.manual_seed(3)
    x = torch.randn(3, 3, 96, 96)
    for model, drop in ((deit, ["cls", "dist"]), (regs, ["cls", "registers"])):
        for extra in ({}, {"location": "F2", "weighting": "elementwise", "heads": {"aggregate": "sum"}}):
            p = proc(tokens={"drop": drop}, layer={"block": -1}, **extra)
            batch = run_passes(model, x, [p])
            for i in range(3):
                _, final, _ = run_procedure(model, x[i:i + 1], p)
                assert float((compute(batch.sample(i), p)[1] - final).abs().max()) <= TOL


def test_a_pass_over_a_batch_is_not_read_as_one_map(vit, xs):
    p = proc()
    with pytest.raises(ValueError, match="sample"):
        compute(run_passes(vit, xs[:2], [p]), p)


def test_batch_matches_pytorch_grad_cam_on_each_input_alone(vit, xs):
    pgc = pytest.importorskip("pytorch_grad_cam")
    from pytorch_grad_cam.utils.model_targets import ClassifierOutputTarget

    errors = []
    p = procedure_from(expand_preset({"method": {"name": "gradcam", "preset": "pytorch-grad-cam-vit"}}), errors)
    assert errors == []
    batch = run_passes(vit, xs, [p], labels=LABELS)

    def reshape(t):
        return t[:, 1:, :].reshape(t.size(0), 6, 6, t.size(2)).permute(0, 3, 1, 2)

    with pgc.GradCAM(model=vit, target_layers=[vit.blocks[-1].norm1], reshape_transform=reshape) as cam:
        for i in range(len(LABELS)):
            one = batch.sample(i)
            ref = cam(input_tensor=xs[i:i + 1], targets=[ClassifierOutputTarget(one.classes["logit"])])[0]
            assert np.abs(compute(one, p)[1].numpy() - ref).max() <= 1e-5


def test_verify_batches_the_first_input_alone_then_at_most_batch_max():
    from camlint.verify.run import BATCH_MAX, input_batches

    assert input_batches(0, False) == []
    assert input_batches(1, False) == [[0]]
    batches = input_batches(2 * BATCH_MAX + 3, False)
    assert batches[0] == [0] and max(len(b) for b in batches) == BATCH_MAX
    assert [n for b in batches for n in b] == list(range(2 * BATCH_MAX + 3))
