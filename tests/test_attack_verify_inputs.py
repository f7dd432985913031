"""Attacks on the re-execution side (verify, sweep): a stranger's spec, inputs, reported maps and
weights that are well-formed on their own but do not fit the model, or whose headers lie. Each is
a clear exit 2 at the spec line of the value at fault, never an 'internal error'."""
from __future__ import annotations

import struct

import numpy as np
import pytest
import yaml
from PIL import Image

from conftest import run_cli

TINY = {"arch": "vit_tiny_patch16_224", "weights": {"random_init": {"seed": 0}},
        "kwargs": {"img_size": 32, "patch_size": 8, "depth": 1, "embed_dim": 48, "num_heads": 3, "num_classes": 10},
        "input_size": [3, 32, 32],
        "preprocessing": {"resize": 32, "crop": 32, "mean": [0.5, 0.5, 0.5], "std": [0.5, 0.5, 0.5],
                          "interpolation": "bilinear"}}


def _spec(folder, **edits):
    data = {"camspec": 1, "model": yaml.safe_load(yaml.safe_dump(TINY)), "method": "gradcam",
            "layer": {"block": -1}, "location": "F1", "target": {"kind": "logit", "class": "predicted"},
            "tokens": {"drop": ["cls"]}, "reshape": {"grid": "auto", "order": "row_major"},
            "weighting": "gap_gradients", "heads": "n/a", "relu": "after_combination",
            "postprocess": {"normalize": "minmax", "eps": 1e-7, "upsample": "bilinear", "align_corners": False,
                            "size": "input", "order": "normalize_then_upsample"},
            "implementation": {"library": "camlint", "version": "0.1.0"},
            "runtime": {"device": "cpu", "dtype": "float32", "seed": 0},
            "inputs": [{"image": "a.png"}]}
    for key, value in edits.items():
        if key.startswith("model_"):
            data["model"][key[6:]] = value
        else:
            data[key] = value
    Image.fromarray((np.random.default_rng(0).random((40, 40, 3)) * 255).astype(np.uint8)).save(folder / "a.png")
    path = folder / "s.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _line(path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _refused(spec, *words) -> str:
    proc = run_cli("verify", spec, "--device", "cpu", env={"OMP_NUM_THREADS": "1"})
    assert proc.returncode == 2, proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr          # numpy's overflow warnings are not a message
    for word in words:
        assert word in proc.stderr, proc.stderr
    return proc.stderr


def test_a_tensor_of_another_size_than_the_model_takes_is_refused_at_its_line(tmp_path):
    np.save(tmp_path / "t.npy", np.zeros((3, 64, 64), np.float32))
    spec = _spec(tmp_path, inputs=[{"tensor": "t.npy"}])
    _refused(spec, f"{spec}:{_line(spec, 'tensor: t.npy')}:", "64 x 64", "32 x 32")


def test_a_tensor_of_another_channel_count_is_refused_at_its_line(tmp_path):
    np.save(tmp_path / "t.npy", np.zeros((5, 32, 32), np.float32))
    spec = _spec(tmp_path, inputs=[{"tensor": "t.npy"}], model_preprocessing={"mean": [0.5] * 5, "std": [0.5] * 5})
    _refused(spec, f"{spec}:{_line(spec, 'tensor: t.npy')}:", "5 channels")


def test_a_crop_of_another_size_than_the_model_takes_is_refused_at_the_crop(tmp_path):
    spec = _spec(tmp_path, model_preprocessing={"resize": 64, "crop": 64})
    _refused(spec, f"{spec}:{_line(spec, 'crop: 64')}:", "model.preprocessing.crop")


def test_problems_the_engine_finds_are_located_at_their_key(tmp_path):
    spec = _spec(tmp_path, layer={"block": 7}, target={"kind": "logit", "class": 999})
    _refused(spec, f"{spec}:{_line(spec, 'layer:')}:", "block 7")


def _npy(path, header: str, data: bytes = b"") -> None:
    head = header.encode()
    head += b" " * (64 - (10 + len(head) + 1) % 64) + b"\n"
    path.write_bytes(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head + data)


@pytest.mark.parametrize("header, data, words", [
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000, 100000000000), }", b"", "more than"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (32, 32), }", b"\0" * 100, "more than"),
    ("{'descr': '|O', 'fortran_order': False, 'shape': (32, 32), }", b"\0" * 8192, "object"),
    ("{'descr': '<c8', 'fortran_order': False, 'shape': (32, 32), }", b"\0" * 8192, "complex64"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (32, 32), 'x': __import__('os')}", b"\0" * 8192,
     "header cannot be read")])
def test_a_reported_map_whose_header_lies_is_refused_in_words_at_its_line(tmp_path, header, data, words):
    _npy(tmp_path / "m.npy", header, data)
    spec = _spec(tmp_path, artifacts=[{"input": "a", "map": "m.npy"}], tolerance={"max_abs": 0.5, "pearson": 0.5})
    _refused(spec, f"{spec}:{_line(spec, 'map: m.npy')}:", words)


def _weights(tmp_path, edit):
    import hashlib

    import timm
    import torch
    from safetensors.torch import save

    torch.manual_seed(0)
    model = timm.create_model("vit_tiny_patch16_224", **TINY["kwargs"])
    state = {k: v.contiguous() for k, v in model.state_dict().items()}
    edit(state)
    blob = save(state)
    (tmp_path / "w.safetensors").write_bytes(blob)
    return {"file": "w.safetensors", "sha256": hashlib.sha256(blob).hexdigest().upper()}


@pytest.mark.parametrize("edit, words", [
    (lambda s: s.update({"head.weight": s["head.weight"][:5].contiguous()}), "head.weight is (5, 48)"),
    (lambda s: s.update({"head.bias": s["head.bias"].to(__import__("torch").int64)}), "int64")])
def test_weights_that_do_not_fit_the_model_are_refused_at_the_weights_line(tmp_path, edit, words):
    spec = _spec(tmp_path, model_weights=_weights(tmp_path, edit))
    _refused(spec, f"{spec}:{_line(spec, 'file: w.safetensors')}:", "model.weights.file", words)


@pytest.mark.parametrize("picture", [
    lambda: Image.fromarray((np.arange(1600).reshape(40, 40) * 40).astype(np.uint16)),        # a 16-bit PNG
    lambda: Image.fromarray(np.linspace(0, 4, 1600, dtype=np.float32).reshape(40, 40))])      # float values
def test_a_picture_of_16_or_32_bit_values_is_refused_not_clipped_to_white(tmp_path, picture):
    spec = _spec(tmp_path, inputs=[{"image": "deep.tif"}])
    picture().save(tmp_path / "deep.tif")
    _refused(spec, f"{spec}:{_line(spec, 'image: deep.tif')}:", "8-bit")


def test_a_palette_png_map_is_refused_its_values_are_colour_indices(tmp_path):
    spec = _spec(tmp_path, artifacts=[{"input": "a", "map": "m.png"}], tolerance={"max_abs": 0.5, "pearson": 0.5})
    Image.fromarray((np.random.default_rng(1).random((32, 32)) * 255).astype(np.uint8)).convert("P").save(tmp_path / "m.png")
    _refused(spec, f"{spec}:{_line(spec, 'map: m.png')}:", "palette")


def test_a_bilevel_png_map_is_read_as_0_and_1(tmp_path):
    from camlint.verify.compare import load_artifact

    (Image.fromarray(np.eye(8, dtype=np.uint8) * 255).convert("1")).save(tmp_path / "m.png")
    assert load_artifact(tmp_path / "m.png").max() == 1.0


def _open_spec(tmp_path, n: int = 1, size=None):
    """A spec that leaves location and weighting open (a sweep varies them) with n inputs."""
    post = {"size": size} if size else {}
    spec = _spec(tmp_path, inputs=[{"image": "a.png", "name": f"i{k}"} for k in range(n)])
    data = yaml.safe_load(spec.read_text())
    del data["location"], data["weighting"]
    data["postprocess"].update(post)
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    return spec


def test_a_sweep_whose_maps_of_one_input_exceed_the_budget_is_refused_before_the_pass(tmp_path):
    """14 procedures at postprocess.size 4096 x 4096 peaked at 13.8 GB for one input."""
    spec = _open_spec(tmp_path, size=[4096, 4096])
    proc = run_cli("sweep", spec, "--device", "cpu", "--out", tmp_path / "out", env={"OMP_NUM_THREADS": "1"})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert f"{spec}:{_line(spec, '  size:')}:" in proc.stderr and "million map values per input" in proc.stderr


def test_a_sweep_whose_maps_of_all_inputs_exceed_the_budget_is_refused_at_the_inputs(tmp_path, monkeypatch):
    from camlint.verify import budget
    from camlint.verify.spec import SpecError
    from camlint.verify.sweep import sweep

    spec = _open_spec(tmp_path, n=3)
    monkeypatch.setattr(budget, "MAX_SWEEP_VALUES", 14 * 32 * 32 * 2)      # room for two inputs' maps
    with pytest.raises(SpecError) as exc:
        sweep(spec, device="cpu", out=tmp_path / "out")
    assert f"{spec}:{_line(spec, 'inputs:')}: inputs: a sweep keeps" in exc.value.messages[0]


def test_the_verify_command_lets_each_inputs_maps_go_once_written(tmp_path, monkeypatch):
    """1,000 inputs with postprocess.size 4096 x 4096 kept ~135 MB of maps per input (25 inputs:
    4.8 GB, now 2.6 GB whatever the number) that the report never reads."""
    from camlint.verify import run
    from conftest import invoke

    kept = []
    real = run.VerifyReport

    def spy(spec, env, results, **kwargs):
        kept.extend(r.final for r in results)
        return real(spec, env, results, **kwargs)

    monkeypatch.setattr(run, "VerifyReport", spy)
    spec = _spec(tmp_path, inputs=[{"image": "a.png", "name": f"i{k}"} for k in range(3)])
    result = invoke("verify", str(spec), "--device", "cpu", "--maps-out", str(tmp_path / "maps"))
    assert result.exit_code in (0, 1), result.output
    assert kept == [None, None, None]
    assert len(list((tmp_path / "maps").glob("i*.npy"))) == 3


def test_a_stage_on_a_model_without_stages_is_refused_not_ignored(tmp_path):
    """`layer.stage` names a Swin stage; a ViT has none, and the key was silently dropped."""
    spec = _spec(tmp_path, layer={"block": -1, "stage": 2})
    proc = run_cli("verify", spec, "--device", "cpu")
    line = next(i for i, t in enumerate(spec.read_text().splitlines(), 1) if t.strip().startswith("stage:"))
    assert proc.returncode == 2 and f"s.yaml:{line}: layer.stage" in proc.stderr, proc.stderr
    assert "has no stages" in proc.stderr and "internal error" not in proc.stderr


def test_an_unknown_key_stops_verify_unless_forced(tmp_path):
    """`runtime.threads` is no key of the schema: check warns (CAM302); verify, which would not
    apply it, refuses the spec at its line; --force runs it as written."""
    spec = _spec(tmp_path, runtime={"device": "cpu", "dtype": "float32", "seed": 0, "threads": 4})
    line = next(i for i, t in enumerate(spec.read_text().splitlines(), 1) if t.strip().startswith("threads:"))
    proc = run_cli("verify", spec, "--device", "cpu")
    assert proc.returncode == 2 and f"s.yaml:{line}:" in proc.stderr and "CAM302" in proc.stderr, proc.stderr
    assert run_cli("verify", spec, "--device", "cpu", "--force").returncode == 0
