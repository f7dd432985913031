"""Issue 10, verify/sweep/init side: spec values never reach timm unchecked, every odd value is a
clear exit 2 naming file and line, outputs go only where the user says and never through a link,
and a sweep samples a huge space in bounded memory. The hostile cases are fixtures/hostile/spec_*,
verify_* and init_*."""
from __future__ import annotations

import copy
import json
import shutil
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
import yaml

from camlint.verify.modelargs import ALLOWED_KWARGS, arch_problem, kwargs_problems
from camlint.verify.spec import SpecError, exec_spec, procedure_from
from conftest import FIXTURES, check_json, run_cli

HOSTILE = FIXTURES / "hostile"
PWNED_SITE = Path("/tmp/camlint-pwned-site")


def _codes_at(path: Path) -> dict:
    _, data = check_json(path)
    return {(f["code"], f["line"]) for doc in data["documents"] for f in doc["findings"]}


def _stage(tmp_path: Path, name: str, **edits) -> Path:
    """A hostile spec copied next to a small input tensor (and a reported map), edited."""
    data = yaml.safe_load((HOSTILE / name).read_text())
    for key, value in edits.items():
        data[key] = value
    np.save(tmp_path / "verify_x.npy", np.random.default_rng(0).standard_normal((3, 224, 224)).astype(np.float32))
    np.save(tmp_path / "verify_map.npy", np.random.default_rng(1).random((224, 224)).astype(np.float32))
    target = tmp_path / name
    target.write_text(yaml.safe_dump(data, sort_keys=False))
    return target


# ---- point 1: model.kwargs allow-list -------------------------------------------------------

def test_check_reports_each_forbidden_keyword_at_its_line():
    found = _codes_at(HOSTILE / "spec_kwargs_cache.yaml")
    assert {("CAM307", 8), ("CAM307", 9), ("CAM307", 10)} <= found
    assert not any(code == "CAM307" and line == 11 for code, line in found)   # depth is an architecture keyword


def test_verify_refuses_forbidden_keywords_even_with_force(tmp_path):
    shutil.rmtree(PWNED_SITE, ignore_errors=True)
    spec = _stage(tmp_path, "spec_kwargs_cache.yaml")
    for extra in ((), ("--force",)):
        proc = run_cli("verify", spec, "--device", "cpu", *extra)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert "checkpoint_path" in proc.stderr and "cache_dir" in proc.stderr
        assert f"{spec}:" in proc.stderr
    assert not PWNED_SITE.exists()


@pytest.mark.parametrize("kwargs, ok", [
    ({"img_size": 64, "num_classes": 4, "drop_rate": 0.1, "global_pool": "avg"}, True),
    ({"img_size": [64, 96], "reg_tokens": 4, "class_token": True}, True),
    ({"pretrained_cfg": {"file": "x"}}, False), ({"pretrained": True}, False), ({"features_only": True}, False),
    ({"img_size": 10 ** 6}, False), ({"depth": True}, False), ({"drop_rate": float("nan")}, False),
    ({"global_pool": "file:x"}, False), ({1: 2}, False)])
def test_kwargs_allow_list(kwargs, ok):
    assert (kwargs_problems(kwargs) == []) is ok


# ---- point 2: only plain timm names, pretrained=False, weights from the folder -----------------

@pytest.mark.parametrize("name", ["spec_arch_prefix.yaml", "spec_arch_localdir.yaml"])
def test_prefixed_architectures_are_refused(name, tmp_path):
    assert any(code == "CAM308" and line == 5 for code, line in _codes_at(HOSTILE / name))
    with pytest.raises(SpecError) as exc:
        exec_spec(yaml.safe_load((HOSTILE / name).read_text()), HOSTILE)
    assert any(m.startswith("model.arch:") and "source" in m for m in exc.value.messages)


def test_model_arguments_come_from_the_allow_list_only():
    timm = pytest.importorskip("timm")
    from camlint.verify.model import create_args
    from camlint.verify.spec import ModelSpec

    name, kwargs = create_args(ModelSpec("vit_tiny_patch16_224.augreg_in21k", {"depth": 1},
                                         {"random_init": {"seed": 0}}, (3, 64, 64)))
    assert name == "vit_tiny_patch16_224.augreg_in21k"
    assert kwargs == {"depth": 1, "img_size": (64, 64), "pretrained": False}
    model = timm.create_model(name, **kwargs)
    assert len(model.blocks) == 1
    for arch, weights, words in [("vit_tiny_patch16_999", {"random_init": {"seed": 0}}, "not an architecture of timm"),
                                 ("vit_tiny_patch16_224", "augreg_in21k", "never downloads"),
                                 ("vit_tiny_patch16_224", {"release": "augreg"}, "never downloads"),
                                 ("vit_tiny_patch16_224", {"file": "w.safetensors"}, "sha256")]:
        with pytest.raises(SpecError) as exc:
            create_args(ModelSpec(arch, {}, weights))
        assert words in " ".join(exc.value.messages)


def test_arch_names():
    assert arch_problem("vit_base_patch16_224.augreg2_in21k_ft_in1k") is None
    for bad in ("hf-hub:timm/x", "local-dir:/etc", "../x", "VIT", "a b", "x" * 200, 5):
        assert arch_problem(bad)


# ---- point 3 and 11: init writes only where asked, atomically, never through a link ------------

def test_init_never_writes_through_a_link(tmp_path):
    paper = tmp_path / "init_link"
    shutil.copytree(HOSTILE / "init_link", paper, symlinks=True)
    before = (paper / "victim.txt").read_text()
    for extra in ((), ("--force",)):
        proc = run_cli("init", paper / "main.tex", "-o", paper / "camspec.yaml", *extra)
        assert proc.returncode == 2 and "link" in proc.stderr
        assert (paper / "victim.txt").read_text() == before and (paper / "camspec.yaml").is_symlink()


def test_init_prints_unless_told_where_and_writes_atomically(tmp_path):
    paper = tmp_path / "init_link"
    shutil.copytree(HOSTILE / "init_link", paper, symlinks=True)
    (paper / "camspec.yaml").unlink()
    listing = sorted(p.name for p in paper.iterdir())
    proc = run_cli("init", paper / "main.tex")
    assert proc.returncode == 0 and proc.stdout.startswith("# camspec for")
    assert sorted(p.name for p in paper.iterdir()) == listing      # nothing written into the paper's folder
    out = tmp_path / "spec.yaml"
    out.write_text("old")
    assert run_cli("init", paper / "main.tex", "-o", out, "--force").returncode == 0
    assert yaml.safe_load(out.read_text())["camspec"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["init_link", "spec.yaml"]   # no temp file left


def test_init_escapes_names_taken_from_the_input(tmp_path):
    paper = tmp_path / "p"
    paper.mkdir()
    main = paper / "main\nmodel: {arch: evil}\r.tex"
    main.write_text((HOSTILE / "init_link" / "main.tex").read_text())
    proc = run_cli("init", main)
    assert proc.returncode == 0, proc.stderr
    data = yaml.safe_load(proc.stdout)
    assert data.get("model") in (None, "TODO") or "evil" not in json.dumps(data["model"])
    header = proc.stdout.splitlines()[0]
    assert header.startswith("# camspec for") and "\\n" in header and "\\r" in header


# ---- point 8: a huge --space is sampled lazily -------------------------------------------------

def test_sweep_samples_a_huge_space_deterministically_in_bounded_memory():
    from camlint.verify.sweep import enumerate_variants, load_space

    space = load_space(HOSTILE / "verify_space_huge.yaml")
    data = {"camspec": 1, "model": {"arch": "vit_tiny_patch16_224"}, "method": "gradcam"}
    tracemalloc.start()
    variants, dropped, total = enumerate_variants(data, space, cap=8)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert total == 175_177_728 and len(variants) == 8 and peak < 20 * 2 ** 20
    again, _, _ = enumerate_variants(data, space, cap=8)
    assert [v.procedure for v in again] == [v.procedure for v in variants]
    other, _, _ = enumerate_variants(data, space, cap=8, seed=1)
    assert [v.procedure for v in other] != [v.procedure for v in variants]


@pytest.mark.parametrize("text, words", [("[1, 2]", ":1: a space maps"), ("location: F1", "must list"),
                                          ("colour: [red]", "not a key a sweep varies"),
                                          ("layer: [{block: 1}\n", ":2:")])
def test_bad_space_files_name_file_and_line(tmp_path, text, words):
    from camlint.verify.sweep import load_space

    path = tmp_path / "space.yaml"
    path.write_text(text)
    with pytest.raises(SpecError) as exc:
        load_space(path)
    assert str(path) in exc.value.messages[0] and words in " ".join(exc.value.messages)


def test_sweep_needs_an_output_folder_and_checks_it_first(tmp_path):
    spec = FIXTURES / "verify" / "sweep-open.yaml"
    proc = run_cli("sweep", spec)
    assert proc.returncode == 2 and "--out" in proc.stderr
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = run_cli("sweep", spec, "--out", blocker / "sub")
    assert proc.returncode == 2 and "--out" in proc.stderr and "Traceback" not in proc.stderr


# ---- point 9: every odd value is a finding or a located exit 2 ---------------------------------

def test_wrong_types_are_each_reported_at_their_line(tmp_path):
    from camlint.verify.run import verify

    spec = _stage(tmp_path, "spec_wrong_types.yaml")
    with pytest.raises(SpecError) as exc:
        verify(spec, force=True)
    text = "\n".join(exc.value.messages)
    lines = (spec.read_text().splitlines())
    for key, words in [("input_size", "model.input_size"), ("eps", "postprocess.eps"), ("box", "inputs[0].box"),
                       ("fingerprint_step", "tolerance.fingerprint_step")]:
        line = next(i for i, t in enumerate(lines, 1) if key in t)
        assert any(m.startswith(f"{spec}:") and words in m for m in exc.value.messages), text
        assert f"{spec}:{line}:" in text or words in text


def test_bigint_is_a_located_input_error():
    proc = run_cli("check", HOSTILE / "spec_bigint.yaml", "--format", "json")
    err = json.loads(proc.stdout)["errors"][0]
    assert proc.returncode == 2 and err["line"] == 3 and "digits" in err["message"]


def test_verify_refuses_a_manuscript_and_unwritable_outputs(tmp_path):
    proc = run_cli("verify", HOSTILE / "verify_paper.tex")
    assert proc.returncode == 2 and "not a camspec" in proc.stderr
    blocker = tmp_path / "file"
    blocker.write_text("x")
    spec = FIXTURES / "verify" / "vit-tiny-random.yaml"
    for args in (("--maps-out", blocker), ("-o", blocker / "report.json")):
        proc = run_cli("verify", spec, *args)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr and str(blocker) in proc.stderr


@pytest.mark.parametrize("array, words", [(np.zeros((0, 224, 224), np.float32), "C x H x W"),
                                          (np.zeros((224, 224), np.float32), "C x H x W"),
                                          (np.full((3, 8, 8), np.nan, np.float32), "NaN")])
def test_odd_input_tensors_are_refused(tmp_path, array, words):
    from camlint.verify.images import load_tensor

    np.save(tmp_path / "x.npy", array)
    with pytest.raises(SpecError) as exc:
        load_tensor(tmp_path / "x.npy", {"mean": (0.5,), "std": (0.5,)})
    assert words in exc.value.messages[0]


@pytest.mark.parametrize("array", [np.zeros((0, 5)), np.zeros((2, 3, 4)), np.array([[np.inf]]),
                                   np.array([["a"]])])
def test_odd_artifacts_are_refused(tmp_path, array):
    from camlint.verify.compare import load_artifact

    np.save(tmp_path / "m.npy", array)
    with pytest.raises(SpecError):
        load_artifact(tmp_path / "m.npy")


# ---- point 10: --maps-out never overwrites declared files; loose tolerances ---------------------

def test_maps_out_never_overwrites_declared_files(tmp_path):
    shutil.copytree(FIXTURES / "verify", tmp_path / "v")
    spec = tmp_path / "v" / "vit-tiny-random.yaml"
    before = (tmp_path / "v" / "images" / "disc.png").read_bytes()
    proc = run_cli("verify", spec, "--maps-out", tmp_path / "v" / "images")
    assert proc.returncode == 2 and "overwrite" in proc.stderr
    assert (tmp_path / "v" / "images" / "disc.png").read_bytes() == before


def test_no_output_of_verify_or_sweep_overwrites_a_declared_file(tmp_path):
    """-o, --out and --maps-out follow one rule for both commands: refused (exit 2, naming the
    path) before any work where a file they would write is one the spec declares."""
    shutil.copytree(FIXTURES / "verify", tmp_path / "v")
    spec = tmp_path / "v" / "sweep-open.yaml"
    data = yaml.safe_load(spec.read_text())
    np.save(tmp_path / "v" / "maps" / "disc__v00.npy", np.zeros((224, 224), np.float32))
    data["artifacts"] = [{"input": "disc", "map": "maps/disc__v00.npy"}]
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    kept = {p: p.read_bytes() for p in (spec, tmp_path / "v" / "maps" / "disc__v00.npy")}
    out = tmp_path / "out"
    for args, named in ((("--maps-out", tmp_path / "v" / "maps"), "disc__v00.npy"), (("-o", spec), spec.name)):
        proc = run_cli("sweep", spec, "--out", out, *args)
        assert proc.returncode == 2 and "would overwrite" in proc.stderr and named in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr and not out.exists()
    verify_spec = tmp_path / "v" / "vit-tiny-random.yaml"
    proc = run_cli("verify", verify_spec, "-o", tmp_path / "v" / "images" / "disc.png")
    assert proc.returncode == 2 and "would overwrite" in proc.stderr and "disc.png" in proc.stderr
    assert all(p.read_bytes() == b for p, b in kept.items())


def test_inputs_with_the_same_stem_get_unique_names(tmp_path):
    from camlint.verify.run import plan_maps_out

    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        shutil.copy(FIXTURES / "verify" / "images" / "disc.png", tmp_path / sub / "disc.png")
    data = yaml.safe_load((FIXTURES / "verify" / "vit-tiny-random.yaml").read_text())
    data["inputs"] = [{"image": "a/disc.png"}, {"image": "b/disc.png"}]
    data["artifacts"] = [{"input": "b/disc.png", "map": "b/disc.png"}]
    spec = exec_spec(data, tmp_path)
    assert [i.name for i in spec.inputs] == ["a/disc.png", "b/disc.png"]
    assert spec.artifacts[0].input == "b/disc.png"
    stems = plan_maps_out(tmp_path / "out", spec, set())
    assert len(set(stems.values())) == 2
    data["artifacts"] = [{"input": "disc", "map": "b/disc.png"}]
    with pytest.raises(SpecError, match="more than one"):
        exec_spec(data, tmp_path)
    data["inputs"] = [{"image": "a/disc.png", "name": "x"}, {"image": "b/disc.png", "name": "x"}]
    with pytest.raises(SpecError, match="unique"):
        exec_spec(data, tmp_path)


def test_a_tolerance_a_constant_map_meets_is_not_reproduced(tmp_path):
    from camlint.formats.verification import verify_text
    from camlint.verify.run import verify

    spec = _stage(tmp_path, "verify_loose_tolerance.yaml")
    report = verify(spec, device="cpu")
    assert report.reproduced is False
    codes = [f.code for r in report.results for f in r.findings]
    assert "CAM605" in codes
    assert "tolerance: max_abs <= 1, pearson >= -1" in verify_text(report)


def test_an_artifact_matching_no_input_stops_verify(tmp_path):
    data = yaml.safe_load((FIXTURES / "verify" / "vit-tiny-random.yaml").read_text())
    data["artifacts"][0]["input"] = "cat"
    with pytest.raises(SpecError, match="matches no declared input"):
        exec_spec(data, FIXTURES / "verify")
    data["artifacts"][0]["input"] = "images/disc.png"     # a file name matches its input
    assert exec_spec(data, FIXTURES / "verify").artifacts[0].input == "disc"


def test_procedure_from_keeps_its_contract():
    errors: list[str] = []
    p = procedure_from({"method": "gradcam", "layer": {"block": -1}, "location": "F1", "postprocess": {"eps": None}},
                       errors)
    assert errors == ["postprocess.eps must be a number in [0, 1], not None"] and p.eps == 1e-7
    data = copy.deepcopy({"layer": {"blocks": "x"}, "target": 5, "relu": {"a": 1}, "heads": ["x"]})
    errors = []
    procedure_from(data, errors)
    assert len(errors) >= 4
    assert {k for k in ALLOWED_KWARGS} >= {"img_size", "num_classes", "drop_rate", "global_pool"}
