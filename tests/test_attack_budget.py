"""Memory is budgeted per pass, not per input: a batch of inputs shares the budget one input's pass
must fit (camlint.verify.budget). A tiny budget on a small random timm model (pretrained=False)
shrinks verify's and sweep's batches; a budget below one input refuses the spec, with its line."""
from __future__ import annotations

import numpy as np
import pytest
import yaml

torch = pytest.importorskip("torch")
pytest.importorskip("timm")

from conftest import ROOT, invoke  # noqa: E402

N_INPUTS = 5


def _small_spec(tmp_path, n=N_INPUTS):
    """The fixture's recipe on a 2-block ViT-Tiny at 32 px (a 2 x 2 grid) and `n` .npy inputs."""
    data = yaml.safe_load((ROOT / "fixtures" / "verify" / "vit-tiny-random.yaml").read_text())
    data["model"].update(kwargs={"depth": 2, "img_size": 32}, input_size=[3, 32, 32],
                         preprocessing={"mean": [0.5] * 3, "std": [0.5] * 3})
    data["reshape"]["grid"] = [2, 2]
    data.pop("artifacts")
    rng = np.random.default_rng(0)
    data["inputs"] = []
    for i in range(n):
        np.save(tmp_path / f"x{i}.npy", rng.standard_normal((3, 32, 32)).astype(np.float32))
        data["inputs"].append({"tensor": f"x{i}.npy"})
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    return spec


def _per_input(spec_path) -> int:
    from camlint.verify.budget import model_cost
    from camlint.verify.model import create_args
    from camlint.verify.run import exec_spec_at, load_spec

    loaded, _ = load_spec(spec_path)
    return model_cost(*create_args(exec_spec_at(spec_path, loaded).model))[1]


def _spy(monkeypatch, module) -> list[int]:
    """Record the batch size of every real pass the module runs."""
    from camlint.verify import engine

    sizes = []

    def counted(model, xs, *args, **kwargs):
        sizes.append(int(xs.shape[0]))
        return engine.run_passes(model, xs, *args, **kwargs)

    monkeypatch.setattr(module, "run_passes", counted)
    return sizes


def test_verify_shrinks_its_batches_to_the_budget(tmp_path, monkeypatch):
    """With room for 2.5 inputs: the first input alone (twice, the determinism check), then
    batches of 2, where 8 inputs per batch ran before whatever the model's size."""
    from camlint.verify import budget, run

    spec = _small_spec(tmp_path)
    sizes = _spy(monkeypatch, run)
    monkeypatch.setattr(budget, "MAX_ACTIVATIONS", int(_per_input(spec) * 2.5))
    report = run.verify(spec, device="cpu")
    assert sizes == [1, 1, 2, 2] and len(report.results) == N_INPUTS
    assert all(r.final.shape == (32, 32) for r in report.results)


def test_repeat_halves_the_batch_because_both_passes_are_kept(tmp_path, monkeypatch):
    from camlint.verify import budget, run

    spec = _small_spec(tmp_path, 3)
    sizes = _spy(monkeypatch, run)
    monkeypatch.setattr(budget, "MAX_ACTIVATIONS", int(_per_input(spec) * 2.5))
    run.verify(spec, device="cpu", repeat=True)
    assert sizes == [1] * 6                                # was [1, 1, 2, 2]: two batches of 2 alive at once


def test_sweep_shrinks_its_batches_to_the_budget(tmp_path, monkeypatch):
    from camlint.verify import budget, sweep

    spec = _small_spec(tmp_path)
    data = yaml.safe_load(spec.read_text())
    del data["location"]                  # left open, so the space below varies it
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    sizes = _spy(monkeypatch, sweep)
    monkeypatch.setattr(budget, "MAX_ACTIVATIONS", int(_per_input(spec) * 3.5))
    result = sweep.sweep(spec, {"location": ["F1", "F6"]}, device="cpu")
    assert sizes == [3, 2] and len(result.inputs) == N_INPUTS


def test_a_budget_below_one_input_refuses_the_spec_at_the_model_line(tmp_path, monkeypatch):
    from camlint.verify import budget

    spec = _small_spec(tmp_path)
    monkeypatch.setattr(budget, "MAX_ACTIVATIONS", _per_input(spec) // 2)
    result = invoke("verify", spec, "--device", "cpu")
    assert result.exit_code == 2 and "over camlint's limit" in result.output
    assert "spec.yaml:" in result.output and "Traceback" not in result.output
