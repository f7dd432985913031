"""What verify and sweep leave for a reviewer: reported | recomputed | |difference| figures,
one collision-free naming scheme, per-variant maps (real files written and read back)."""
from __future__ import annotations

import shutil

import numpy as np
import pytest
import yaml

pytest.importorskip("torch")
pytest.importorskip("timm")

from PIL import Image  # noqa: E402

from camlint.verify.report import SEP, file_stems  # noqa: E402
from conftest import FIXTURES  # noqa: E402

SMALL_MODEL = {"arch": "vit_tiny_patch16_224",
               "kwargs": {"img_size": 64, "patch_size": 8, "embed_dim": 64, "depth": 2, "num_heads": 2},
               "weights": {"random_init": {"seed": 0}}, "input_size": [3, 64, 64],
               "preprocessing": {"resize": 64, "crop": 64, "mean": [0.5] * 3, "std": [0.5] * 3,
                                 "interpolation": "bilinear"}}


def small_spec(tmp_path, inputs, artifacts=None):
    """The verify fixture's recipe on a small seeded random ViT (pretrained=False), fast on a CPU."""
    data = yaml.safe_load((FIXTURES / "verify" / "vit-tiny-random.yaml").read_text())
    data.update(model=SMALL_MODEL, reshape={"grid": [8, 8], "order": "row_major"}, inputs=inputs,
                runtime={"device": "cpu", "dtype": "float32", "seed": 0})
    data.pop("artifacts")
    if artifacts:
        data["artifacts"] = artifacts
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_file_stems_never_collide():
    names = ["images/disc.png", "other/disc.png", "images_disc.png", "Images/Disc.png", "a__compare", "a", "", "a-2"]
    stems = file_stems(names)
    assert len({s.lower() for s in stems.values()}) == len(names)
    assert all(SEP not in s and s for s in stems.values())
    written = [f"{s}{suffix}" for s in stems.values() for suffix in (".npy", ".png", f"{SEP}compare.png")]
    written += [f"grid{SEP}{s}.png" for s in stems.values()] + [f"{s}{SEP}v03.npy" for s in stems.values()]
    assert len({w.lower() for w in written}) == len(written)


def spread(panel: np.ndarray) -> float:
    """Mean distance of a panel's pixels from its mean colour (0 for a flat panel)."""
    return float(np.abs(panel - panel.reshape(-1, 3).mean(axis=0)).mean())


def lit(panel: np.ndarray) -> float:
    """Mean distance from the colour of zero difference, the drawn box (white) left out."""
    pixels = panel.reshape(-1, 3)
    pixels = pixels[~(pixels == 255).all(axis=1)]
    return float(np.abs(pixels - [48, 18, 59]).mean())


def _panels(path):
    """The three panels of a comparison figure (width 3 x 192), as arrays, and its size."""
    img = np.asarray(Image.open(path).convert("RGB")).astype(int)
    h = img.shape[0]
    top = h - 192 - 16
    return [img[top + 10:top + 180, k * 192 + 10:k * 192 + 180] for k in range(3)], img.shape


def test_comparison_figure_panels_box_and_title():
    from camlint.verify.images import comparison_figure

    rng = np.random.default_rng(0)
    picture = rng.integers(0, 255, (64, 64, 3), dtype=np.uint8)
    ours = rng.random((64, 64))
    short = comparison_figure(picture, ours, ours, "t", box=(8, 8, 40, 40))
    long_title = comparison_figure(picture, ours, ours, "max_abs 0 pearson 1 " * 40, box=None)
    assert short.size[0] == long_title.size[0] == 576 and long_title.size[1] > short.size[1]
    same = np.asarray(short).astype(int)
    top = short.size[1] - 192 - 16
    # the box is drawn in every panel: white pixels on its left edge (x = 8 * 188 / 64 + 2)
    assert all((same[top + 60, k * 192 + 25:k * 192 + 27] == 255).all() for k in range(3))
    other = comparison_figure(picture, ours, 1 - ours, "t")
    diff_same = same[top + 100:top + 180, 2 * 192 + 60:2 * 192 + 180]
    diff_other = np.asarray(other).astype(int)[top + 100:top + 180, 2 * 192 + 60:2 * 192 + 180]
    assert spread(diff_other) > 10 * max(spread(diff_same), 0.5)


def test_verify_writes_overlays_that_do_not_collide(tmp_path):
    from camlint.verify.run import verify

    for sub in ("a", "b"):
        (tmp_path / sub).mkdir()
        shutil.copy(FIXTURES / "verify" / "images" / "disc.png", tmp_path / sub / "disc.png")
    inputs = [{"image": "a/disc.png", "box": [8, 10, 40, 44]}, {"image": "b/disc.png"}]
    first = verify(small_spec(tmp_path, inputs), maps_out=tmp_path / "maps")
    stems = file_stems([r.input for r in first.results])
    reported = np.load(tmp_path / "maps" / f"{stems['a/disc.png']}.npy")
    np.save(tmp_path / "a.npy", reported)
    np.save(tmp_path / "b.npy", np.roll(reported, 20, axis=1))    # a map that is not reproduced
    arts = [{"input": "a/disc.png", "map": "a.npy"}, {"input": "b/disc.png", "map": "b.npy"}]
    report = verify(small_spec(tmp_path, inputs, arts), maps_out=tmp_path / "out")
    assert [r.reproduced for r in report.results] == [True, False]
    assert report.results[0].comparison["sketch_match"] is True
    files = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert len(files) == 6 and len({f.lower() for f in files}) == 6
    (pa, shape_a), (pb, shape_b) = (_panels(tmp_path / "out" / f"{stems[n]}{SEP}compare.png")
                                    for n in ("a/disc.png", "b/disc.png"))
    assert shape_a == shape_b and shape_a[1] == 576
    assert np.abs(pb[0] - pb[1]).mean() > 5 and np.abs(pa[0] - pa[1]).mean() < 1
    assert lit(pb[2]) > 20 * max(lit(pa[2]), 0.5)
    overlay = Image.open(tmp_path / "out" / f"{stems['a/disc.png']}.png")
    assert overlay.size == (64, 64)


def _small_sweep(tmp_path):
    from camlint.verify import sweep as sw

    shutil.copy(FIXTURES / "verify" / "images" / "disc.png", tmp_path / "disc.png")
    shutil.copy(FIXTURES / "verify" / "images" / "square.png", tmp_path / "square.png")
    spec = small_spec(tmp_path, [{"image": "disc.png", "box": [8, 10, 40, 44]},
                                 {"image": "square.png", "box": [30, 10, 60, 40]}])
    data = yaml.safe_load(spec.read_text())
    del data["location"]
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    return sw.sweep(spec, {"location": ["F1", "F3b", "F6"]})


def test_sweep_grid_legend_numbers_title_and_variant_maps(tmp_path):
    from camlint.verify.sweep_report import GREEN, GREY, RED, _legend, grid_figure, write_outputs, write_variant_maps

    r = _small_sweep(tmp_path)
    assert len(r.variants) == 3 and r.localization
    written = write_outputs(r, tmp_path / "out")
    assert {p.name for p in written} >= {"grid__disc.png", "grid__square.png", "sweep.json"}
    grid = np.asarray(Image.open(tmp_path / "out" / "grid__disc.png").convert("RGB")).astype(int)
    assert grid.shape[1] == 6 * 112
    fig = grid_figure(r, "disc")
    head = fig.size[1] - 112 - 32
    colours = {tuple(c) for c in grid[:head, 4:15].reshape(-1, 3)}
    legend = {colour for colour, _ in _legend(r)}
    assert GREEN in legend and legend <= colours                             # the legend's swatches
    for i in range(3):                                                       # each tile's border
        expected = GREY if i in r.degenerate else GREEN if r.localization[i]["pointing_rate"] >= 0.5 else RED
        assert tuple(grid[head + 50, i * 112 + 3]) == expected
        assert (grid[head + 5:head + 15, i * 112 + 5] == 255).all()         # the white "#i" badge
    r.verdict = "a verdict longer than any line " * 20
    assert grid_figure(r, "disc").size[1] > fig.size[1]             # taller: the title wraps, it is not cut
    maps = write_variant_maps(r, tmp_path / "maps")
    index = __import__("json").loads((tmp_path / "maps" / "variants.json").read_text())
    assert [v["number"] for v in index["variants"]] == [0, 1, 2] and maps[0].name == "variants.json"
    for i in range(3):
        assert np.allclose(np.load(tmp_path / "maps" / f"square__v{i:02d}.npy"), r.maps["square"][i], atol=1e-6)
    assert len(list((tmp_path / "maps").iterdir())) == 1 + 2 * 3
