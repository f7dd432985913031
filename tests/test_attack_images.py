"""Hostile pictures found by the attack pass of 5 Dec: each test fails on the code before its fix."""
from __future__ import annotations

import resource

import pytest

PRE = {"interpolation": "bilinear", "resize": 224, "crop": (224, 224), "mean": (0.5,), "std": (0.5,)}


def test_a_picture_of_extreme_aspect_ratio_is_refused_before_the_resize(tmp_path):
    """6,400,000 x 10 pixels (a 60 KB PNG, under the pixel limit) resized to 224 on its shorter
    side is 143 million x 224: verify raised MemoryError ("internal error") or used the memory up."""
    pytest.importorskip("torch")
    from PIL import Image

    from camlint.verify.images import load_image
    from camlint.verify.spec import SpecError

    Image.new("L", (6_400_000, 10)).save(tmp_path / "wide.png")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (8 << 30, hard))    # a MemoryError, not a swapping machine
    try:
        with pytest.raises(SpecError) as info:
            load_image(tmp_path / "wide.png", PRE)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    assert "wide.png" in str(info.value) and "over the limit" in str(info.value)


def test_an_ordinary_wide_picture_is_still_read(tmp_path):
    pytest.importorskip("torch")
    from PIL import Image

    from camlint.verify.images import load_image

    Image.new("RGB", (1600, 400)).save(tmp_path / "pano.png")
    x, picture = load_image(tmp_path / "pano.png", PRE)
    assert tuple(x.shape) == (3, 224, 224) and picture.shape == (224, 224, 3)
