"""`camlint sweep`: enumeration of open keys, one pass for all maps, agreement, outputs."""
from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")
timm = pytest.importorskip("timm")

from camlint.verify import sweep as sw  # noqa: E402
from camlint.verify.engine import run_procedure  # noqa: E402
from camlint.verify.images import load_input, preprocessing_config  # noqa: E402
from camlint.verify.spec import exec_spec  # noqa: E402
from conftest import FIXTURES, run_cli  # noqa: E402

SPEC = FIXTURES / "verify" / "sweep-open.yaml"


@pytest.fixture(scope="module")
def result():
    return sw.sweep(SPEC, cap=64)


def test_open_keys_and_enumeration(result):
    assert result.open_keys == ["location", "target", "tokens", "heads"]
    labels = [v.label for v in result.variants]
    assert len(labels) == len(set(labels)) == 24
    assert any(lab.startswith("F2") and "heads" in lab for lab in labels)
    assert not any(lab.startswith("F1") and "heads" in lab for lab in labels)


def test_sweep_maps_equal_single_variant_verify_maps(result):
    """Every map from the shared capture equals the map of that procedure run on its own."""
    import yaml

    data = {**yaml.safe_load(SPEC.read_text()), **result.variants[0].choices}
    spec = exec_spec(data, SPEC.parent)
    torch.manual_seed(0)
    model = timm.create_model("vit_tiny_patch16_224", pretrained=False).eval()
    pre = preprocessing_config(model, spec.model.preprocessing, spec.model.input_size)
    x, _ = load_input(spec.inputs[0], pre)
    for i, v in enumerate(result.variants):
        _, final, _ = run_procedure(model, x[None], v.procedure)
        assert np.abs(final.numpy() - result.maps[result.inputs[0]][i]).max() <= 1e-6, v.label


def test_agreement_matrix_and_clusters(result):
    S = result.spearman
    live = [i for i in range(len(result.variants)) if i not in result.degenerate]
    assert np.allclose(np.diag(S[np.ix_(live, live)]), 1.0)
    assert np.allclose(S[np.ix_(live, live)], S[np.ix_(live, live)].T)
    assert sorted(i for c in result.clusters for i in c) == live
    # the last block's F3b-F6 with [CLS] dropped carry zero patch gradients: constant maps
    zero = {result.variants[i].label for i in result.degenerate}
    assert "F6 logit drop-cls" in zero and "F1 logit drop-cls" not in zero
    assert "procedures" in result.verdict and "median Spearman" in result.verdict


def test_space_file_and_cap(tmp_path):
    space = tmp_path / "space.yaml"
    space.write_text("location: [F1, F6]\ntarget: [{kind: logit, class: predicted}]\n"
                     "tokens: [{drop: [cls]}, {drop: [cls], gradients_from: cls}]\n")
    r = sw.sweep(SPEC, sw.load_space(space), cap=3)
    assert len(r.variants) == 3 and r.capped_from == 4


def test_a_space_for_a_key_the_spec_states_is_refused_not_ignored(tmp_path):
    """The spec states `layer`; candidates for it in --space would never be used."""
    space = tmp_path / "space.yaml"
    space.write_text("location: [F1]\nlayer: [{block: -2}, {block: -3}]\n")
    line = next(i for i, text in enumerate(SPEC.read_text().splitlines(), 1) if text.startswith("layer:"))
    proc = run_cli("sweep", SPEC, "--space", space, "--out", tmp_path / "out")
    assert proc.returncode == 2, proc.stdout
    assert f"{SPEC}:{line}: layer is stated in full" in proc.stderr and "location" not in proc.stderr
    assert not (tmp_path / "out").exists()


def test_cli_writes_grid_matrix_and_verdict(tmp_path):
    out = tmp_path / "out"
    proc = run_cli("sweep", SPEC, "--out", out, "--format", "json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["procedures"] == 24 and data["verdict"]
    assert (out / "grid__disc.png").stat().st_size > 1000
    agreement = json.loads((out / "agreement.json").read_text())
    assert len(agreement["spearman"]) == 24 == len(agreement["labels"])


def test_sweep_needs_inputs(tmp_path):
    spec = tmp_path / "s.yaml"
    spec.write_text(SPEC.read_text().split("inputs:")[0])
    proc = run_cli("sweep", spec, "--out", tmp_path / "out")
    assert proc.returncode == 2 and "needs at least one input" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_batched_sweep_gives_the_one_at_a_time_results(tmp_path):
    """Inputs computed together (one forward/backward pass per batch, each input with its own
    class) give the maps, agreement and pointing of one input at a time, within 1e-6 (in float64:
    in float32 a batched matmul rounds differently, ~1e-6 after min-max normalisation)."""
    import shutil

    from conftest import ROOT

    shutil.copytree(ROOT / "examples" / "testbed", tmp_path / "tb", ignore=shutil.ignore_patterns("*.png", "maps"))
    shutil.copytree(ROOT / "examples" / "testbed" / "images", tmp_path / "tb" / "images", dirs_exist_ok=True)
    spec = tmp_path / "tb" / "testbed-open.yaml"
    import yaml

    data = yaml.safe_load(spec.read_text())
    data["runtime"]["dtype"], data["inputs"] = "float64", data["inputs"][:8]
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    space = {"location": ["F1", "F2", "F6"], "tokens": [{"drop": ["cls"]}, {"drop": ["cls"], "gradients_from": "cls"}],
             "target": [{"kind": "logit", "class": "predicted"}, {"kind": "softmax", "class": "predicted"}]}
    alone = sw.sweep(spec, space, device="cpu", batch_max=1)
    batched = sw.sweep(spec, space, device="cpu", batch_max=3)      # batches of 3, 3 and 2 inputs
    assert [v.label for v in batched.variants] == [v.label for v in alone.variants] and len(alone.variants) > 6
    assert batched.inputs == alone.inputs and len(alone.inputs) == 8
    for name in alone.inputs:
        for a, b in zip(alone.maps[name], batched.maps[name]):
            assert np.abs(a - b).max() <= 1e-6, name
    assert np.allclose(batched.spearman, alone.spearman, atol=1e-6, equal_nan=True)
    for a, b in zip(alone.localization, batched.localization):
        assert a["pointing_rate"] == b["pointing_rate"] and b["energy_in_box"] == pytest.approx(a["energy_in_box"], abs=1e-6)
    assert batched.degenerate == alone.degenerate
