"""What a sweep leaves behind: sweep.json, agreement.json, one grid per input, and its findings
(CAM606 when the open keys admit maps that disagree, CAM602 for procedures with a constant map),
located at the spec lines of the keys they concern."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from camlint.rules.verify import DEGENERATE_MAP, OPEN_KEYS_CHANGE_MAP, finding
from camlint.verify.spec import SpecError
from camlint.verify.sweep import _matrix


def _open_key_line(r, loaded) -> int:
    """The line of the first open key the spec states (partly); else the top of the spec."""
    for key in r.open_keys:
        if key in loaded.data:
            return loaded.position((key,))[0]
    return 1


def sweep_findings(r, loaded) -> list:
    file = r.lint.path if r.lint is not None else r.spec
    out = []
    if len(r.clusters) > 1:
        out.append(finding(OPEN_KEYS_CHANGE_MAP, f"open keys {', '.join(r.open_keys)}: {r.verdict}", file,
                           _open_key_line(r, loaded)))
    if r.degenerate:
        labels = [r.variants[i].label for i in r.degenerate]
        shown = "; ".join(labels[:6]) + (f"; and {len(labels) - 6} more" if len(labels) > 6 else "")
        line = loaded.position(("location",))[0] if "location" in loaded.data else _open_key_line(r, loaded)
        out.append(finding(DEGENERATE_MAP, f"{len(labels)} of {len(r.variants)} procedures the description admits "
                           f"give a constant map on every input: {shown}", file, line, severity="warning"))
    return out


def median_agreement(r, i: int) -> float | None:
    """Median Spearman of variant i to the others (None: constant map or no other)."""
    others = np.delete(r.spearman[i], i)
    others = others[~np.isnan(others)]
    return float(np.median(others)) if len(others) and i not in r.degenerate else None


def write_outputs(r, out: Path, max_inputs: int = 4) -> list[Path]:
    """sweep.json, agreement.json and one grid per input in `out` (never through a link)."""
    import io
    import re

    from camlint.safety.safe_write import UnsafeTarget, write_atomic

    files = {"sweep.json": json.dumps(r.to_json(), indent=2) + "\n",
             "agreement.json": json.dumps({"labels": [v.label for v in r.variants], "spearman": _matrix(r.spearman),
                                           "top10_iou": _matrix(r.iou)}, indent=2) + "\n"}
    for k, name in enumerate(r.inputs[:max_inputs]):
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")[:80] or str(k)
        buf = io.BytesIO()
        grid_figure(r, name).save(buf, format="PNG")
        files["grid.png" if k == 0 else f"grid-{k}-{safe}.png"] = buf.getvalue()
    try:
        out.mkdir(parents=True, exist_ok=True)
        for file_name, data in files.items():
            write_atomic(out / file_name, data)
    except (OSError, UnsafeTarget) as exc:
        raise SpecError([f"--out {out}: cannot write ({exc})"]) from None
    return [out / f for f in files]


def grid_figure(r, name: str, tile: int = 112, cols: int = 6):
    from PIL import Image, ImageDraw, ImageFont

    from camlint.verify.run import overlay

    maps, picture = r.maps[name], r.pictures[name]
    label_h = 30
    rows = (len(maps) + cols - 1) // cols
    fig = Image.new("RGB", (cols * tile, rows * (tile + label_h) + 18), "white")
    draw = ImageDraw.Draw(fig)
    font = ImageFont.load_default()
    draw.text((4, 3), f"{name}: {len(maps)} procedures ({r.verdict[:90]})", fill="black", font=font)
    for i, m in enumerate(maps):
        x, y = (i % cols) * tile, 18 + (i // cols) * (tile + label_h)
        img = Image.fromarray(overlay(picture, m)).resize((tile - 4, tile - 4), Image.NEAREST)
        fig.paste(img, (x + 2, y + 2))
        words = r.variants[i].label.replace("location:", "").replace("target:kind=", "").split()
        lines, line = [], ""
        for w in words:
            if len(line) + len(w) > 19:
                lines.append(line)
                line = w
            else:
                line = f"{line} {w}".strip()
        lines.append(line)
        for j, text in enumerate(lines[:3]):
            draw.text((x + 2, y + tile + j * 9 - 1), text[:22], fill="black", font=font)
        if r.localization:
            hit = r.localization[i]["pointing_rate"]
            draw.rectangle((x + 2, y + 2, x + tile - 3, y + tile - 3), outline=(0, 160, 0) if hit >= 0.5 else (200, 0, 0),
                           width=2)
    return fig
