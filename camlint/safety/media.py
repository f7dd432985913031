"""Opening a submission's arrays and pictures: the plain formats only, whatever the file is named.

np.load picks its reader by the bytes, not the name: a `.npy` that is really a zip is opened as
an .npz archive (an object with no shape). PIL's Image.open does the same: an EPS named `x.png`
is handed to Ghostscript, which then runs the attacker's PostScript. So the format is checked on
the bytes (an allow-list), and a picture over the pixel limit is refused, not merely warned about.
"""
from __future__ import annotations

import warnings
from pathlib import Path

from camlint.safety.safeio import read_regular

NPY_MAGIC = b"\x93NUMPY"
# Raster formats that PIL decodes itself (no external program, no vector or PostScript reader).
IMAGE_FORMATS = ("PNG", "JPEG", "BMP", "TIFF", "WEBP", "GIF", "PPM")


class NotPlainFile(ValueError):
    """The file is not of a format camlint reads: nothing was decoded."""


def load_npy(path: Path):
    """A plain .npy array, memory-mapped read-only (no pickles, no .npz, regular files only)."""
    import numpy as np

    head = read_regular(path, len(NPY_MAGIC), "array", truncate=True)
    if head != NPY_MAGIC:
        raise NotPlainFile("not a .npy array (no NUMPY header)")
    return np.load(path, allow_pickle=False, mmap_mode="r")


def open_image(path: Path, max_pixels: int, formats: tuple = IMAGE_FORMATS):
    """A loaded PIL image of one of `formats` and at most `max_pixels` pixels (NotPlainFile or
    PIL's own errors otherwise)."""
    from PIL import Image

    read_regular(path, 0, "image", truncate=True)       # a FIFO or a device is never opened by PIL
    Image.MAX_IMAGE_PIXELS = max_pixels
    with warnings.catch_warnings():
        warnings.simplefilter("error", Image.DecompressionBombWarning)
        try:
            img = Image.open(path, formats=formats)
        except Image.UnidentifiedImageError:
            raise NotPlainFile(f"not an image of a format camlint reads ({', '.join(formats)})") from None
        img.load()
    return img
