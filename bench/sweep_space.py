"""How `camlint sweep` scales with the size of its --space: seconds and peak memory to choose the
variants, for spaces from 4,096 to 1.7e8 combinations at --max-variants 8, and the ratio to the
smallest (lazy, seeded sampling: flat in the size of the product).

    python bench/sweep_space.py
"""
from __future__ import annotations

import math
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from camlint.verify.sweep import enumerate_variants, load_space  # noqa: E402

DATA = {"camspec": 1, "model": {"arch": "vit_tiny_patch16_224"}, "method": "gradcam"}


def measure(space: dict, cap: int = 8) -> tuple[int, float, float]:
    tracemalloc.start()
    t0 = time.perf_counter()
    _, _, _ = enumerate_variants(DATA, space, cap)
    seconds = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
    tracemalloc.stop()
    return math.prod(len(v) for v in space.values()), seconds, peak


def main() -> None:
    full = load_space(ROOT / "fixtures" / "hostile" / "verify_space_huge.yaml")
    keys = list(full)
    base = None
    print(f"{'combinations':>14} {'seconds':>9} {'peak MB':>8} {'x time':>7}")
    for n in range(2, len(keys) + 1):
        space = {k: full[k] for k in keys[:n]}
        size, seconds, peak = measure(space)
        base = base or seconds
        print(f"{size:>14,} {seconds:>9.3f} {peak:>8.2f} {seconds / base:>7.1f}")


if __name__ == "__main__":
    main()
