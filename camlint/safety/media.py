"""Opening a submission's arrays and pictures: the plain formats only, whatever the file is named.

np.load picks its reader by the bytes, not the name: a `.npy` that is really a zip is opened as
an .npz archive (an object with no shape). PIL's Image.open does the same: an EPS named `x.png`
is handed to Ghostscript, which then runs the attacker's PostScript. So the format is checked on
the bytes (an allow-list), and a picture over the pixel limit is refused, not merely warned about.
"""
from __future__ import annotations

import math
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

    head = read_regular(path, MAX_NPY_HEADER, "array", truncate=True)
    if not head.startswith(NPY_MAGIC):
        raise NotPlainFile("not a .npy array (no NUMPY header)")
    _check_npy_header(head, path.stat().st_size)
    return np.load(path, allow_pickle=False, mmap_mode="r")


def why_unread(exc: Exception) -> str:
    """What to say of a file load_npy or open_image refused: the check's own words, or the kind of
    error a library raised (its message may quote the file's bytes)."""
    return str(exc) if isinstance(exc, NotPlainFile) else exc.__class__.__name__


MAX_NPY_HEADER = 10000 + 12      # numpy's own limit on a header, and the magic and length before it


def _check_npy_header(head: bytes, size: int) -> None:
    """The header's dtype is plain numbers and its shape fits the file: a header may claim any
    shape (numpy then overflows computing the mapping's length, with warnings on stderr) or an
    object dtype (a pickle)."""
    import io

    from numpy.lib import format as npy

    try:
        stream = io.BytesIO(head)
        version = npy.read_magic(stream)
        read = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}.get(version)
        if read is None:
            raise ValueError(f"version {version} (camlint reads 1.0 and 2.0)")
        shape, _, dtype = read(stream)
    except (ValueError, SyntaxError, TypeError, EOFError) as exc:
        raise NotPlainFile(f"its header cannot be read: {str(exc)[:80]}") from None
    if dtype.hasobject or dtype.fields is not None or dtype.kind not in "biuf":
        raise NotPlainFile(f"a .npy array of {dtype} values, not plain numbers")
    if math.prod(shape) * dtype.itemsize > size:        # Python integers: no overflow
        raise NotPlainFile(f"the header says shape {shape[:8]} of {dtype}, more than the file's {size} bytes hold")


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
