"""Issue 13, "silently wrong" and crashes: every spec key is applied or refused, lint errors stop
verify and sweep, and the crashes found in review are clear spec errors."""
from __future__ import annotations

import copy

import numpy as np
import pytest
import yaml

torch = pytest.importorskip("torch")
timm = pytest.importorskip("timm")

from camlint.verify.engine import run_procedure  # noqa: E402
from camlint.verify.spec import SpecError, exec_spec, procedure_from  # noqa: E402
from conftest import FIXTURES  # noqa: E402

SPEC = FIXTURES / "verify" / "vit-tiny-random.yaml"
BASE = {"method": "gradcam", "layer": {"block": -1}, "location": "F1",
        "target": {"kind": "logit", "class": "predicted"}, "tokens": {"drop": ["cls"]},
        "reshape": {"grid": [14, 14]}, "weighting": "gap_gradients", "heads": "n/a",
        "relu": "after_combination", "postprocess": {"normalize": "minmax", "upsample": "bilinear"}}


@pytest.fixture(scope="module")
def tiny():
    torch.manual_seed(0)
    return timm.create_model("vit_tiny_patch16_224", pretrained=False, depth=2).eval()


def _errors(**over) -> list[str]:
    errors: list[str] = []
    procedure_from({**BASE, **over}, errors)
    return errors


def test_gradients_from_cls_is_refused_where_it_would_be_ignored():
    assert _errors(tokens={"drop": ["cls"], "gradients_from": "cls"}) == []
    assert any("gradients_from" in e for e in _errors(tokens={"drop": ["cls"], "gradients_from": "cls"},
                                                      weighting="elementwise"))


def test_target_head_is_refused_not_ignored():
    assert any(e.startswith("target.head") for e in _errors(target={"kind": "logit", "class": 0, "head": "dist"}))


def test_kept_prefix_tokens_at_f2_are_refused_not_dropped(tiny):
    x = torch.randn(1, 3, 224, 224)
    errors: list[str] = []
    p = procedure_from({**BASE, "location": "F2", "heads": {"aggregate": "mean"}, "weighting": "elementwise",
                        "tokens": {"drop": []}}, errors)
    assert errors == []
    with pytest.raises(SpecError, match="cannot be kept"):
        run_procedure(tiny, x, p)


def test_heads_at_a_token_location_are_refused_not_ignored():
    assert any(e.startswith("heads:") for e in _errors(heads={"aggregate": "mean"}))
    assert _errors(heads="n/a") == []


def test_lint_errors_stop_verify(tmp_path):
    from camlint.verify.run import verify

    data = yaml.safe_load(SPEC.read_text())
    data["model"]["arch"] = "swin_tiny_patch4_window7_224"    # [CLS] dropped on Swin: CAM204, an error
    data["layer"] = {"stage": 4, "block": -1}
    spec = tmp_path / "s.yaml"
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    for sub in ("images", "maps"):
        (tmp_path / sub).mkdir()
        for f in (FIXTURES / "verify" / sub).iterdir():
            (tmp_path / sub / f.name).write_bytes(f.read_bytes())
    with pytest.raises(SpecError) as exc:
        verify(spec, device="cpu")
    assert any(": CAM204" in m and "s.yaml:" in m for m in exc.value.messages), exc.value.messages


def test_per_input_class_out_of_range_is_a_spec_error(tiny):
    from camlint.verify.engine import resolve_class

    logits = torch.zeros(1, 1000)
    assert resolve_class(logits, "predicted", 999) == 999
    with pytest.raises(SpecError, match="not a class of this model"):
        resolve_class(logits, "predicted", 5000)


def test_dinov2_with_a_224_input_size_builds(tmp_path):
    from camlint.verify.model import create_args
    from camlint.verify.spec import ModelSpec

    name, kwargs = create_args(ModelSpec("vit_small_patch14_dinov2", {"depth": 1}, {"random_init": {"seed": 0}},
                                         (3, 224, 224)))
    assert kwargs["img_size"] == (224, 224)
    model = timm.create_model(name, **kwargs)
    assert tuple(model.patch_embed.grid_size) == (16, 16)


def test_an_artifact_named_by_its_file_is_compared():
    data = yaml.safe_load(SPEC.read_text())
    data["artifacts"] = [{"input": "images/disc.png", "map": "maps/disc.png"}]
    spec = exec_spec(data, SPEC.parent)
    assert [(a.input, a.map.name) for a in spec.artifacts] == [("disc", "disc.png")]
    assert np.isfinite(spec.tolerance["max_abs"])


def test_map_changing_defaults_are_listed():
    data = yaml.safe_load(SPEC.read_text())
    assert exec_spec(data, SPEC.parent).defaults == ("tokens.gradients_from = patch_tokens",)
    data["postprocess"] = {"normalize": "minmax", "upsample": "bilinear"}
    del data["runtime"]
    defaults = exec_spec(data, SPEC.parent).defaults
    assert "postprocess.order = normalize_then_upsample" in defaults and "runtime.dtype = float32" in defaults
    assert "postprocess.normalize = minmax" not in defaults


def test_sketches_survive_noise_precision_and_threads_but_not_other_maps(tiny):
    from camlint.verify.compare import SKETCH_MATCH, sketch, sketch_distance

    p = procedure_from(BASE, [])
    gen = torch.Generator().manual_seed(0)
    x = torch.randn(1, 3, 224, 224, generator=gen)
    ref = sketch(run_procedure(tiny, x, p)[1].numpy())
    assert len(ref) == 3 + 64
    noisy = sketch(run_procedure(tiny, x + 1e-6 * torch.randn(x.shape, generator=gen), p)[1].numpy())
    tiny64 = copy.deepcopy(tiny).double()
    wide = sketch(run_procedure(tiny64, x.double(), p)[1].numpy())
    threads = torch.get_num_threads()
    try:
        torch.set_num_threads(1)
        single = sketch(run_procedure(tiny, x, p)[1].numpy())
    finally:
        torch.set_num_threads(threads)
    for other in (noisy, wide, single):
        assert sketch_distance(ref, other) <= SKETCH_MATCH
    unrelated = [sketch(run_procedure(tiny, torch.randn(1, 3, 224, 224, generator=gen), p)[1].numpy())
                 for _ in range(3)]
    assert all(sketch_distance(ref, u) > SKETCH_MATCH for u in unrelated)
    assert sketch(np.zeros((5, 5))) == "s8:" + "0" * 64 and sketch_distance(ref, "s4:0000") is None
