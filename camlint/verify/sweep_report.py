"""What a sweep leaves behind: sweep.json, agreement.json, one grid per input, and its findings
(CAM606 when the open keys admit maps that disagree, CAM602 for procedures with a constant map),
located at the spec lines of the keys they concern."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from camlint.verify.report import SEP, declared_paths, file_stems, refuse_overwrite, write_files
from camlint.rules.verify import DEGENERATE_MAP, OPEN_KEYS_CHANGE_MAP, finding
from camlint.verify.compare import rounded_rows


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


def refuse_overwrites(spec_path, loaded, spec, out, maps_out, output) -> None:
    """Verify's rule for every file a sweep writes (-o, --out, --maps-out): never over a file the
    spec declares; checked before any work, with the names write_outputs and write_variant_maps use."""
    import re

    declared = declared_paths(spec_path, spec, loaded.data.get("artifacts"))
    stems = [s.lower() for s in file_stems([item.name for item in spec.inputs]).values()]
    grids = {f"grid{SEP}{s}.png" for s in stems} | {"sweep.json", "agreement.json"}
    maps = re.compile("(" + "|".join(re.escape(s) for s in stems) + rf"){SEP}v\d+\.npy")
    refuse_overwrite(out, grids.__contains__, declared, "--out")
    refuse_overwrite(maps_out, lambda name: name == "variants.json" or bool(maps.fullmatch(name)), declared,
                     "--maps-out")
    refuse_overwrite(output, None, declared, "-o")


def write_outputs(r, out: Path, max_inputs: int = 8) -> list[Path]:
    """sweep.json, agreement.json and grid__STEM.png for each input (up to max_inputs) in `out`."""
    import io

    files = {"sweep.json": json.dumps(r.to_json(), indent=2) + "\n",
             "agreement.json": json.dumps({"labels": [v.label for v in r.variants], "spearman": rounded_rows(r.spearman),
                                           "top10_iou": rounded_rows(r.iou)}, indent=2) + "\n"}
    for name, stem in list(file_stems(r.inputs).items())[:max_inputs]:
        buf = io.BytesIO()
        grid_figure(r, name).save(buf, format="PNG")
        files[f"grid{SEP}{stem}.png"] = buf.getvalue()
    return write_files(out, files, "--out")


def write_variant_maps(r, folder: Path) -> list[Path]:
    """--maps-out: every variant's final map of every input, STEM__vNN.npy (float32 H x W; NN is
    the row number of the table and the grid), and variants.json saying what each number is."""
    import io

    width = max(2, len(str(len(r.variants) - 1)))
    stems = file_stems(r.inputs)
    index = {"variants": [{"number": i, "label": v.label, "choices": v.choices} for i, v in enumerate(r.variants)],
             "inputs": {name: f"{stems[name]}{SEP}v" + "N" * width + ".npy" for name in r.inputs}}
    files = {"variants.json": json.dumps(index, indent=2) + "\n"}
    for name in r.inputs:
        for i, m in enumerate(r.maps[name]):
            buf = io.BytesIO()
            np.save(buf, np.asarray(m, dtype=np.float32))
            files[f"{stems[name]}{SEP}v{i:0{width}d}.npy"] = buf.getvalue()
    return write_files(folder, files, "--maps-out")


GREEN, RED, GREY = (0, 160, 0), (200, 0, 0), (150, 150, 150)


def _border(r, i: int):
    if i in r.degenerate:
        return GREY
    if r.localization:
        return GREEN if r.localization[i]["pointing_rate"] >= 0.5 else RED
    return None


def _legend(r) -> list[tuple[tuple, str]]:
    entries = []
    if r.localization:
        entries += [(GREEN, "maximum inside the object box on most inputs (pointing rate >= 0.5)"),
                    (RED, "maximum outside the box on most inputs")]
    if r.degenerate:
        entries.append((GREY, "constant map on every input"))
    return entries


def grid_figure(r, name: str, tile: int = 112, cols: int = 6):
    """The maps of one input side by side: tile #i is row #i of the table, its border says whether
    it localises (legend below the title), the title is the whole verdict, wrapped, never cut."""
    from PIL import Image, ImageDraw, ImageFont

    from camlint.verify.images import overlay, wrapped

    maps, picture = r.maps[name], r.pictures[name]
    font = ImageFont.load_default()
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    width = cols * tile
    title = wrapped(probe, f"{name}: {len(maps)} procedures, numbered as the rows of the table. {r.verdict}",
                    width - 8, font)
    legend = [(colour, line) for colour, text in _legend(r) for line in wrapped(probe, text, width - 24, font)[:1]]
    label_h, head = 32, 6 + 12 * (len(title) + len(legend))
    rows = (len(maps) + cols - 1) // cols
    fig = Image.new("RGB", (width, head + rows * (tile + label_h)), "white")
    draw = ImageDraw.Draw(fig)
    for j, line in enumerate(title):
        draw.text((4, 3 + 12 * j), line, fill="black", font=font)
    for j, (colour, line) in enumerate(legend):
        y = 3 + 12 * (len(title) + j)
        draw.rectangle((4, y + 1, 14, y + 10), outline=colour, width=2)
        draw.text((20, y), line, fill="black", font=font)
    for i, m in enumerate(maps):
        x, y = (i % cols) * tile, head + (i // cols) * (tile + label_h)
        fig.paste(Image.fromarray(overlay(picture, m)).resize((tile - 4, tile - 4), Image.NEAREST), (x + 2, y + 2))
        if _border(r, i) is not None:
            draw.rectangle((x + 2, y + 2, x + tile - 3, y + tile - 3), outline=_border(r, i), width=3)
        draw.rectangle((x + 4, y + 4, x + 9 + draw.textlength(f"#{i}", font=font), y + 16), fill="white")
        draw.text((x + 6, y + 4), f"#{i}", fill="black", font=font)
        label = r.variants[i].label.replace("location:", "").replace("target:kind=", "")
        lines = wrapped(probe, label, tile - 4, font)
        for j, text in enumerate(lines[:3]):
            more = j == 2 and len(lines) > 3
            draw.text((x + 2, y + tile + j * 10 - 1), text + (" ..." if more else ""), fill="black", font=font)
    return fig


def maps_fit(spec_path: Path, loaded, result, inputs: int, pre: dict) -> None:
    """The maps the sweep keeps fit the budget (SpecError at postprocess.size or inputs if not)."""
    from camlint.verify.budget import sweep_maps_problem
    from camlint.verify.run import at_lines
    from camlint.verify.specvalues import SpecError

    sizes = [v.procedure.size for v in result.variants]
    hw = max((tuple(pre["crop"]) if s == "input" else tuple(s) for s in sizes), key=lambda t: t[0] * t[1])
    why = sweep_maps_problem(inputs, len(result.variants), hw, any(s != "input" for s in sizes))
    if why:
        with at_lines(spec_path, loaded):
            raise SpecError([why])
