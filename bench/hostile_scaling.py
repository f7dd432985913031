"""Hostile scaling: seconds per MB of a whole lint (check_file) for each pattern of issue 10,
beside plain manuscript prose of the same size, in one run.

A scan that is quadratic in some pattern shows as a ratio that grows with the size; every
ratio should stay a small constant (tests/test_hostile.py asserts it at a small size).

    python bench/hostile_scaling.py [--kb 512] [--sizes 256,512,1024]
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

HEAD = "\\documentclass{article}\n\\begin{document}\n"
# plain prose: paragraphs of ordinary text (no markup); the baseline every pattern is divided by
PROSE = ("Annotators labelled the images in two rounds, and disagreements were resolved by a "
         "third reader.\nAgreement was high on the common classes and lower on the rare ones, "
         "where the readers asked for more context.\n\n")

# name -> the repeated unit (each pattern of issue 10, point 6, and point 7's closing braces)
PATTERNS: dict[str, str] = {
    "suppression comment (one 30 KB+ line)": "",   # built by _suppression
    "unclosed \\def\\a{": "\\def\\a{",
    "\\begin{x": "\\begin{x",
    "\\DefineVerbatimEnvironment{": "\\DefineVerbatimEnvironment{",
    "\\section[": "\\section[",
    "unclosed \\section{": "\\section{",
    "verbatim blocks": "\\begin{verbatim}\nx\n\\end{verbatim}\n",
    "one-character lines": "x\n",
    "closing braces": "}",
    "unclosed \\iffalse": "\\iffalse ",
    "suppression comments (many)": "% camlint: disable=CAM004\n}\n",
    "run-on sentence of method and model names": "Grad-CAM on ViT word word ",
}


def _suppression(size: int) -> str:
    # spaces after the codes made the old directive regex backtrack quadratically
    line = "% camlint: disable=CAM004" + " " * 30_000 + "x\n"
    return line * max(1, size // len(line))


def document(name: str, size: int) -> str:
    """A .tex text of about `size` characters made of the pattern (or of prose for 'plain')."""
    if name == "plain prose":
        unit = PROSE
    elif name.startswith("suppression comment ("):
        return HEAD + _suppression(size)
    else:
        unit = PATTERNS[name]
    return HEAD + unit * max(1, size // len(unit))


def lint_seconds(text: str, folder: Path) -> float:
    from camlint.check import check_file
    from camlint.cli.config import Config

    path = folder / "main.tex"
    path.write_text(text, encoding="utf-8")
    t0 = time.perf_counter()
    check_file(path, config=Config())
    return time.perf_counter() - t0


REPEATS = 3


def measure(size: int, names=None) -> dict[str, float]:
    """Seconds per MB for plain prose and each pattern, all at `size` characters (no cache)."""
    old = os.environ.get("CAMLINT_NO_CACHE")
    os.environ["CAMLINT_NO_CACHE"] = "1"
    out = {}
    try:
        with tempfile.TemporaryDirectory() as d:
            lint_seconds(document("plain prose", 4096), Path(d))   # imports and compiled patterns
            for name in ["plain prose", *(names or PATTERNS)]:
                text = document(name, size)
                # the best of three, after a collection: one run of a few milliseconds inside a long
                # test session can double on a garbage-collector pause, which is not the scan's cost
                gc.collect()
                out[name] = min(lint_seconds(text, Path(d)) for _ in range(REPEATS)) / (len(text) / 1e6)
    finally:
        if old is None:
            os.environ.pop("CAMLINT_NO_CACHE", None)
        else:
            os.environ["CAMLINT_NO_CACHE"] = old
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="256,512,1024", help="sizes in KB, comma-separated")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {kb: measure(kb * 1024) for kb in sizes}
    names = list(results[sizes[0]])
    print(f"{'pattern':40s}" + "".join(f"{f'{kb} KB s/MB':>14s}{'ratio':>8s}" for kb in sizes))
    for name in names:
        row = f"{name:40s}"
        for kb in sizes:
            r = results[kb]
            row += f"{r[name]:14.3f}{r[name] / r['plain prose']:8.2f}"
        print(row)
    print("\nratio = seconds per MB of the pattern / seconds per MB of plain prose, same run")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    main()
