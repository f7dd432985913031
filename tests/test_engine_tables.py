"""The engine's tables: registered functions by name, ReLU placements, Location records, method rules.

Each registered function is checked on tensors captured from a real timm ViT (pretrained=False,
seeded) against the formula the engine used before the tables (written out here), exactly.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from camlint.core import locations, methods
from camlint.core.locations import location
from camlint.core.methods import Relu, relu_placements
from conftest import ROOT

torch = pytest.importorskip("torch")
timm = pytest.importorskip("timm")

from camlint.verify import cam, engine, hooks  # noqa: E402
from camlint.verify.spec import SpecError  # noqa: E402

ALL_RELU = [frozenset(), frozenset({Relu.AFTER_COMBINATION}), frozenset({Relu.ON_GRADIENTS}),
            frozenset({Relu.ON_PRODUCTS}), frozenset({Relu.ON_GRADIENTS, Relu.ON_PRODUCTS})]


@pytest.fixture(scope="module")
def small_vit():
    torch.manual_seed(0)
    return timm.create_model("vit_tiny_patch16_224", pretrained=False, depth=3, img_size=96).eval()


@pytest.fixture(scope="module")
def captured(small_vit):
    """Activations and logit gradients at F1 and F2 of block 1, as spatial / per-head maps."""
    torch.manual_seed(1)
    x = torch.randn(1, 3, 96, 96)
    geo = hooks.geometry(small_vit, (96, 96))
    with torch.enable_grad(), hooks.capture(small_vit, [(1, "F1"), (1, "F2")]) as cap:
        logits = small_vit(x)
        logits[0, int(logits[0].argmax())].backward()
    drop = ("cls",)
    A = cam.to_grid(cap.activations[(1, "F1")], geo, drop, "row_major")
    G = cam.to_grid(cap.grad(1, "F1"), geo, drop, "row_major")
    cls_grad = cap.grad(1, "F1")[:, 0, :]
    h, w = geo.grid
    P, dP = cap.activations[(1, "F2")], cap.grad(1, "F2")
    PA = cam.attention_rows(P, geo).reshape(1, P.shape[1], h, w)
    PG = cam.attention_rows(dP, geo).reshape(PA.shape)
    return {"A": A, "G": G, "cls_grad": cls_grad, "P": P, "dP": dP, "PA": PA, "PG": PG, "geo": geo,
            "logits": logits.detach()}


def _old_channel(name, A, G, relu, cls_grad):
    """The weighting if-chain of camlint 0.x (verify/cam.py before the tables), formula by formula."""
    if name == "eigen":
        return cam.first_component(A)
    if name == "eigen_grad":
        return cam.first_component(G * A)
    g = torch.clamp(G, min=0) if "on_gradients" in relu else G
    if name == "elementwise":
        prod = g * A
        return (torch.clamp(prod, min=0) if "on_products" in relu else prod).sum(dim=1)
    if name == "gradient_only":
        return g.sum(dim=1)
    alpha = {"gap_gradients": lambda: g.mean(dim=(2, 3)),
             "cls_gradient": lambda: torch.clamp(cls_grad, min=0) if "on_gradients" in relu else cls_grad,
             "gradcam++": lambda: cam.weights_gradcampp(A, g),
             "xgradcam": lambda: cam.weights_xgradcam(A, g)}[name]()
    return (alpha[:, :, None, None] * A).sum(dim=1)


@pytest.mark.parametrize("relu", ALL_RELU, ids=lambda r: "+".join(sorted(r)) or "none")
def test_every_channel_weighting_matches_the_previous_formula(captured, relu):
    c = captured
    assert set(cam.CHANNEL_WEIGHTINGS) == {"eigen", "eigen_grad", "elementwise", "gradient_only", "gap_gradients",
                                           "cls_gradient", "gradcam++", "xgradcam"}
    for name in cam.CHANNEL_WEIGHTINGS:
        ours = cam.combine_channels(c["A"], c["G"], name, relu, c["cls_grad"])
        old = _old_channel(name, c["A"], c["G"], {str(r) for r in relu}, c["cls_grad"])
        assert ours.shape == (1, 6, 6) and ours.abs().max() > 0, name
        assert torch.equal(ours, old), name


@pytest.mark.parametrize("relu", ALL_RELU, ids=lambda r: "+".join(sorted(r)) or "none")
def test_every_head_weighting_and_combination_matches_the_previous_formula(captured, relu):
    A, G = captured["PA"], captured["PG"]
    g = torch.clamp(G, min=0) if Relu.ON_GRADIENTS in relu else G
    prod = g * A
    old = {"method_rule": A, "gap_gradients": g.mean(dim=(2, 3))[:, :, None, None] * A,
           "elementwise": torch.clamp(prod, min=0) if Relu.ON_PRODUCTS in relu else prod}
    assert set(cam.HEAD_WEIGHTINGS) == set(old)
    for name, fn in cam.HEAD_WEIGHTINGS.items():
        assert torch.equal(fn(A, G, relu), old[name]), name
    combined = {"mean": A.mean(dim=1), "max": A.max(dim=1).values, "sum": A.sum(dim=1)}
    assert set(cam.HEAD_COMBINATIONS) == set(combined)
    for name, fn in cam.HEAD_COMBINATIONS.items():
        assert torch.equal(fn(A), combined[name]), name
    P = captured["P"]
    fused = {"mean": P.mean(dim=1), "max": P.max(dim=1).values, "min": P.min(dim=1).values}
    assert {n: torch.equal(fn(P), fused[n]) for n, fn in cam.ROLLOUT_FUSIONS.items()} == dict.fromkeys(fused, True)


def test_every_normalisation_and_target_matches_the_previous_formula(captured):
    M = captured["A"].sum(dim=1)
    flat, eps = M.reshape(1, -1), 1e-7
    shifted = flat - flat.min(dim=1).values[:, None]
    old = {"minmax": shifted / (eps + shifted.max(dim=1).values[:, None]),
           "max": flat / (eps + flat.max(dim=1).values[:, None]),
           "max_abs": flat / (eps + flat.abs().max(dim=1).values[:, None]), "none": flat}
    assert set(cam.NORMALIZATIONS) == set(old)
    for name in old:
        assert torch.equal(cam.normalize(M, name, eps).reshape(1, -1), old[name]), name
    logits, cls = captured["logits"], 3
    scores = {"logit": logits[0, cls], "softmax": torch.softmax(logits, -1)[0, cls],
              "log_softmax": torch.log_softmax(logits, -1)[0, cls],
              "loss": torch.nn.functional.cross_entropy(logits, torch.tensor([cls]))}
    assert set(engine.TARGET_SCORES) == set(scores)
    for kind, score in scores.items():
        assert torch.equal(engine.target_score(logits, cls, kind), score), kind


@pytest.mark.parametrize("call, message", [
    (lambda c: cam.combine_channels(c["A"], c["G"], "saliency", frozenset()),
     "weighting: saliency is not supported at a token location (supported: cls_gradient, eigen,"),
    (lambda c: cam.HEAD_WEIGHTINGS.lookup("gradcam++"), "weighting: gradcam++ is not supported on attention"),
    (lambda c: cam.HEAD_COMBINATIONS.lookup("median"), "heads: median is not supported as a head combination "
                                                       "(supported: max, mean, sum)"),
    (lambda c: cam.normalize(c["A"], "zscore", 1e-7), "postprocess.normalize: zscore is not supported"),
    (lambda c: engine.target_score(c["logits"], 0, "itm"), "target.kind: itm is not supported by the reference"),
    (lambda c: cam.combine_channels(c["A"], None, "gap_gradients", frozenset()), "this weighting needs gradients"),
])
def test_an_unknown_name_is_refused_with_the_known_ones(captured, call, message):
    with pytest.raises(SpecError) as err:
        call(captured)
    assert message in err.value.messages[0]


def test_relu_placements_and_locations_refuse_unknown_names():
    assert relu_placements(["none"]) == frozenset()
    assert relu_placements(["on_gradients", "after_combination"]) == {"on_gradients", "after_combination"}
    with pytest.raises(ValueError, match="relu: 'on_weights' is not a ReLU placement .known: after_combination"):
        relu_placements(["on_weights"])
    with pytest.raises(ValueError, match="location: 'F7' is not a location .known: F1, F2, F3,"):
        location("F7")


def test_every_timm_tap_is_hooked_and_the_zero_gradient_records_hold_on_a_real_model(small_vit):
    """In the last block of a [CLS]-pooled ViT, patch-token gradients are exactly zero at the
    locations whose record says so, and not at the others (at F2 the [CLS] query row reaches the
    patch keys; the patch query rows there have zero gradient, which the [CLS]-row map never reads)."""
    assert small_vit.global_pool == "token"
    taps = locations.timm_taps("vit")
    assert hooks.VIT_POINTS == taps and set(taps) == {"F1", "F2", "F3a", "F3b", "mid_residual", "F4", "F5", "F6"}
    torch.manual_seed(2)
    x = torch.randn(1, 3, 96, 96)
    with torch.enable_grad(), hooks.capture(small_vit, [(2, name) for name in taps]) as cap:
        logits = small_vit(x)
        logits[0, 0].backward()
    for name in taps:
        grad = cap.grad(2, name)
        patches = grad[:, :, 0, 1:] if location(name).is_attention else grad[:, 1:, :]   # F2: [CLS] row
        assert bool((patches == 0).all()) is location(name).cls_only_gradient, name


def test_one_set_each_shared_by_lint_and_verify():
    from camlint.checklist import judge
    from camlint.core import keys
    from camlint.core import vocab
    from camlint.rules import facts

    assert vocab.ATTENTION_LOCATIONS is keys.ATTENTION_LOCATIONS is facts.ATTENTION is locations.ATTENTION_LOCATIONS
    assert facts.ZERO_GRADIENT_LOCATIONS is locations.ZERO_GRADIENT_LOCATIONS
    assert vocab.CLASS_AGNOSTIC_METHODS is facts.CLASS_AGNOSTIC_METHODS is methods.CLASS_AGNOSTIC_METHODS
    assert vocab.LOCATIONS == locations.NAMES and vocab.RELU_PLACEMENTS == tuple(Relu)
    for name in methods.CLASS_AGNOSTIC_METHODS:      # lint: no target to report for these
        assert judge.statuses({"method": name})["target"] == "not_applicable"
        assert methods.method_rule(name).not_applicable == {"target"}
    assert judge.statuses({"method": "gradcam"})["target"] == "missing"
    assert set(methods.METHOD_RULES) == set(vocab.METHODS) - {"other"}
    assert methods.method_rule("other") is methods.method_rule(None) is methods.DEFAULT_RULE


def test_the_core_tables_do_not_import_torch():
    code = ("import sys, camlint.core.locations, camlint.core.methods, camlint.rules.facts\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'timm', 'numpy')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


def test_rollout_at_a_token_location_is_refused_by_the_location_record(small_vit):
    from camlint.verify.spec import procedure_from

    errors = []
    proc = procedure_from({"method": "rollout", "layer": {"blocks": "all", "combine": "rollout"}, "location": "F1",
                           "tokens": {"drop": ["cls"]}, "heads": "n/a", "relu": "none"}, errors)
    assert errors == []
    torch.manual_seed(1)
    ps = engine.run_passes(small_vit, torch.randn(1, 3, 96, 96), [proc])
    with pytest.raises(SpecError, match="layer.combine: rollout multiplies attention matrices; F1 has none"):
        engine.compute(ps, proc)
