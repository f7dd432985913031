"""What `camlint verify` found, as data: per-input results and findings of registered rules
(CAM6xx, located at spec lines), and the one document every output format renders.

Torch-free: the formats read these records without importing the engine.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from camlint import __version__
from camlint.rules.findings import DocumentReport, Finding
from camlint.safety.safe_write import UnsafeTarget, write_atomic
from camlint.verify.specvalues import SpecError


@dataclass
class InputResult:
    input: str
    fingerprint: dict
    comparison: dict | None = None
    reproduced: bool | None = None
    degenerate: bool = False
    findings: list[Finding] = field(default_factory=list)
    localization: dict | None = None
    predicted: int | None = None
    final: object = None          # numpy H x W maps and the H x W x 3 picture (not in JSON)
    raw: object = None
    picture: object = None
    reported: object = None       # the reported map at the recomputed map's size (for the overlay)
    box: tuple | None = None

    def to_json(self) -> dict:
        out = {"input": self.input, "fingerprint": self.fingerprint, "comparison": self.comparison,
               "reproduced": self.reproduced, "degenerate": self.degenerate,
               "findings": [f.to_json() for f in self.findings]}
        if self.localization is not None:
            out["localization"] = self.localization
        if self.predicted is not None:
            out["class"] = self.predicted
        return out


@dataclass
class VerifyReport:
    spec: str
    environment: dict
    results: list[InputResult]
    lint: DocumentReport | None = None      # `camlint check` of the spec (its warnings travel along)
    pointing_px: float = 0.0                 # the pointing game's tolerance (tolerance.pointing_px)

    @property
    def reproduced(self) -> bool | None:
        declared = [r.reproduced for r in self.results if r.reproduced is not None]
        if any(r.degenerate for r in self.results):
            return False
        return all(declared) if declared else None

    @property
    def findings(self) -> list[Finding]:
        """The spec's lint findings and every verify finding, in spec-line order."""
        return merged(self.lint, [f for r in self.results for f in r.findings])

    def document(self) -> DocumentReport:
        return document(self.spec, self.lint, self.findings)

    @property
    def localization(self) -> dict | None:
        """The pointing game over the inputs with a box, beside its chance level (None: no box).

        The chance level is the mean share of the image the (grown) boxes cover: the rate a map
        with its maximum at a random pixel scores, the figure a pointing rate means nothing without."""
        scored = [r.localization for r in self.results if r.localization is not None]
        if not scored:
            return None
        hits = sum(1 for loc in scored if loc["pointing"])
        return {"pointing_hits": hits, "inputs": len(scored), "pointing_rate": hits / len(scored),
                "pointing_chance": sum(loc["pointing_chance"] for loc in scored) / len(scored),
                "pointing_px": self.pointing_px,
                "energy_in_box": sum(loc["energy_in_box"] for loc in scored) / len(scored)}

    def to_json(self) -> dict:
        out = {"camlint_version": __version__, "spec": self.spec, "reproduced": self.reproduced,
               "environment": self.environment, "results": [r.to_json() for r in self.results],
               "findings": [f.to_json() for f in self.findings]}
        if self.localization is not None:
            out["localization"] = self.localization
        return out


def pointing_text(loc: dict) -> str:
    """The pointing game as one sentence, its chance level beside it (text and markdown alike)."""
    px = loc["pointing_px"]
    return (f"pointing game: {loc['pointing_hits']}/{loc['inputs']} (rate {loc['pointing_rate']:.2f}) against a "
            f"chance level of {loc['pointing_chance']:.2f} (a maximum at a random pixel; box "
            + (f"grown by {px:g} px" if px else "itself, no tolerance")
            + f"); energy in box {loc['energy_in_box']:.2f}")


def merged(lint: DocumentReport | None, found: list[Finding]) -> list[Finding]:
    """Lint findings and verify's; where verify observes what check predicted (CAM602 at the same
    spec line), the observation replaces the prediction."""
    observed = {(f.code, f.file, f.line) for f in found}
    lint_findings = [f for f in (lint.findings if lint is not None else [])
                     if (f.code, f.file, f.line) not in observed]
    return sorted(lint_findings + found, key=lambda f: (f.file, f.line, f.col, f.code))


def document(spec: str, lint: DocumentReport | None, findings: list[Finding]) -> DocumentReport:
    """The spec's checklist report with the verify (or sweep) findings: what SARIF, GitHub and
    the other finding formats render."""
    base = lint if lint is not None else DocumentReport(path=spec, kind="spec")
    return replace(base, findings=findings)


def tolerance_text(tolerance: dict) -> str:
    return ", ".join(f"{k} {'<=' if k == 'max_abs' else '>='} {v:g}" for k, v in tolerance.items())


SEP = "__"


def file_stems(names: list[str]) -> dict[str, str]:
    """Input name -> the stem of every file written for it (maps, overlays, sweep grids).

    One scheme for all outputs: the name with each run of anything but letters, digits, '.', '-'
    made one '_', and a -2, -3 ... suffix where two names would meet (case-insensitively, as on
    macOS and Windows), so that images/disc.png and other/disc.png never overwrite each other.
    A stem never holds '__' (SEP), so the files written for one input (STEM__compare.png,
    grid__STEM.png, STEM__v03.npy) never meet those of another."""
    stems: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        stem = re.sub(r"[^A-Za-z0-9.-]+", "_", name).strip("._")[:80].rstrip("_") or "input"
        base, n = stem, 2
        while stem.lower() in taken:
            stem, n = f"{base}-{n}", n + 1
        taken.add(stem.lower())
        stems[name] = stem
    return stems


def comparison_title(res: InputResult) -> str:
    """The figures of one comparison, as the title of its reported | recomputed | |difference| figure."""
    c = res.comparison
    dist = c.get("sketch_distance")
    sketch = ("sketches not comparable" if dist is None else
              f"sketch {'match' if c['sketch_match'] else 'MISMATCH'} (largest cell difference {dist} "
              f"level{'s' if dist != 1 else ''})")
    verdict = "reproduced" if res.reproduced else "NOT reproduced"
    return (f"{res.input} vs {c['artifact']} ({c['stage']} map): {verdict}. max_abs {c['max_abs']:.3g}, "
            f"pearson {c['pearson']:.6f}, spearman {c['spearman']:.4f}, {sketch}; "
            f"tolerance {tolerance_text(c['tolerance'])}")


def declared_paths(spec_path: Path, spec, raw_artifacts=None) -> set[Path]:
    """Every file the spec declares (the spec itself, weights, inputs, reported maps), resolved:
    the files no output of verify or sweep may overwrite. `raw_artifacts`: the spec's artifacts
    list as written, for a sweep, which does not read them."""
    paths = [spec_path, spec.model.weights.get("path") if isinstance(spec.model.weights, dict) else None]
    paths += [i.image or i.tensor for i in spec.inputs] + [a.map for a in spec.artifacts]
    for art in raw_artifacts if isinstance(raw_artifacts, list) else []:
        if isinstance(art, dict) and isinstance(art.get("map"), str):
            paths.append(spec.base_dir / art["map"])
    return {Path(p).resolve() for p in paths if p is not None}


def refuse_overwrite(folder: Path | None, writes, declared: set[Path], option: str) -> None:
    """SpecError when a file `writes(name)` says the command may write into `folder` (None: a
    single file, `option`'s own path) is one the spec declares; names compare case-insensitively,
    as on macOS and Windows. Checked before any work, for -o, --out and --maps-out alike."""
    if folder is None:
        return
    if writes is None:          # -o FILE
        clash = [p for p in declared if str(p).lower() == str(folder.resolve()).lower()]
    else:
        where = str(folder.resolve()).lower()
        clash = [p for p in declared if str(p.parent).lower() == where and writes(p.name.lower())]
    if clash:
        raise SpecError([f"{option} {folder}: would overwrite {sorted(clash)[0]}, a file the spec declares; "
                         "choose another " + ("file" if writes is None else "folder")])


def write_files(folder: Path, files: dict[str, bytes], option: str) -> list[Path]:
    """Write {name: bytes} into `folder` (never through a link, never half-written); a failure is a
    SpecError naming the option that chose the folder."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for file_name, data in files.items():
            write_atomic(folder / file_name, data)
    except (OSError, UnsafeTarget) as exc:
        raise SpecError([f"{option} {folder}: cannot write ({exc})"]) from None
    return [folder / f for f in files]
