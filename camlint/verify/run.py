"""`camlint verify SPEC`: rebuild every declared map and say whether the reported ones are reproduced."""
from __future__ import annotations

import json
import os
import platform
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from camlint import __version__
from camlint.keys import EXECUTABLE_KEYS, MISSING, PARTIAL
from camlint.verify import compare
from camlint.verify.engine import compute, run_passes
from camlint.verify.images import load_input, preprocessing_config
from camlint.verify.model import build_model, sha256_of
from camlint.verify.spec import ExecSpec, SpecError, exec_spec, with_lines

DETERMINISM_ATOL = 1e-6


@dataclass
class InputResult:
    input: str
    fingerprint: dict
    comparison: dict | None = None
    reproduced: bool | None = None
    degenerate: bool = False
    findings: list = field(default_factory=list)
    localization: dict | None = None
    predicted: int | None = None
    final: np.ndarray | None = None
    raw: np.ndarray | None = None
    picture: np.ndarray | None = None

    def to_json(self) -> dict:
        out = {"input": self.input, "fingerprint": self.fingerprint, "comparison": self.comparison,
               "reproduced": self.reproduced, "degenerate": self.degenerate, "findings": self.findings}
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

    @property
    def reproduced(self) -> bool | None:
        declared = [r.reproduced for r in self.results if r.reproduced is not None]
        if any(r.degenerate for r in self.results):
            return False
        return all(declared) if declared else None

    def to_json(self) -> dict:
        return {"camlint_version": __version__, "spec": self.spec, "reproduced": self.reproduced,
                "environment": self.environment, "results": [r.to_json() for r in self.results]}


# Checked by the engine against the model it builds (the linter cannot see model.kwargs such as
# patch_size or depth, so its guess of the grid or the depth may be wrong for this spec).
ENGINE_CHECKED = frozenset({"CAM202", "CAM203"})


def blocking_findings(spec_path: Path, open_keys_allowed: bool = False) -> list[str]:
    """Every error-level finding `camlint check` reports on the spec, in its own words.

    A completeness finding only blocks for a key the engine executes; a sweep runs on open keys."""
    from camlint.check import check_file

    report = check_file(spec_path)
    out = []
    for f in report.findings:
        if f.code in ENGINE_CHECKED:
            continue
        if f.code.startswith("CAM1"):
            executable = f.item in EXECUTABLE_KEYS and report.checklist[f.item].status in (MISSING, PARTIAL)
            if open_keys_allowed or not executable:
                continue
        elif f.severity != "error":
            continue
        out.append(f"{f.file}:{f.line}:{f.col}: {f.code} {f.name}: {f.message}")
    return out


def load_spec(spec_path: Path, force: bool = False, open_keys_allowed: bool = False):
    """(LoadedYAML, data) of a camspec that `camlint check` finds no error in (unless force)."""
    from camlint.specfile import SPEC_SUFFIXES
    from camlint.yamlsafe import load_file

    if spec_path.suffix.lower() not in SPEC_SUFFIXES:
        raise SpecError([f"{spec_path} is not a camspec file ({', '.join(SPEC_SUFFIXES)}); verify and sweep "
                         "execute a camspec (camlint init MANUSCRIPT writes one; camlint check reads manuscripts)"])
    problems = blocking_findings(spec_path, open_keys_allowed)
    if problems and not force:
        raise SpecError(["the spec is not complete enough to execute, or has errors (camlint check shows them; "
                         "--force runs anyway where it is safe):"]
                        + problems)
    loaded = load_file(spec_path)
    if not isinstance(loaded.data, dict):
        raise SpecError([f"{spec_path}:1: a camspec is a mapping of checklist keys"])
    return loaded


def exec_spec_at(spec_path: Path, loaded, data: dict | None = None) -> ExecSpec:
    """exec_spec with every problem located at its line of the spec file."""
    try:
        return exec_spec(loaded.data if data is None else data, spec_path.resolve().parent)
    except SpecError as exc:
        raise SpecError(with_lines(exc.messages, loaded, str(spec_path))) from None


def build_model_at(spec_path: Path, loaded, spec: ExecSpec):
    """build_model with its problems located at the model's lines of the spec file."""
    try:
        return build_model(spec.model)
    except SpecError as exc:
        raise SpecError(with_lines(exc.messages, loaded, str(spec_path))) from None


def writable_folder(folder: Path | None, option: str) -> None:
    """Refuse an output folder that cannot be created or written, before any work is done."""
    if folder is None:
        return
    probe = folder
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if probe.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise SpecError([f"{option} {folder}: not a folder"])
    if not os.access(probe, os.W_OK | os.X_OK):
        raise SpecError([f"{option} {folder}: cannot write there (permission denied)"])


def pick_device(requested: str) -> torch.device:
    if requested == "cuda" and not torch.cuda.is_available():
        raise SpecError(["--device cuda: no CUDA device is available here"])
    if requested in ("auto", None):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(requested)


def environment(device: torch.device, dtype: torch.dtype, spec: ExecSpec, model_source: str, pre: dict,
                forced: list, deterministic: bool) -> dict:
    import timm

    env = {"camlint": __version__, "torch": torch.__version__, "timm": timm.__version__,
           "python": platform.python_version(), "device": str(device), "dtype": str(dtype).replace("torch.", ""),
           "deterministic_algorithms": deterministic, "weights": model_source, "arch": spec.model.arch,
           "preprocessing": {k: list(v) if isinstance(v, tuple) else v for k, v in pre.items()},
           "attention_path": ("explicit (forced for blocks " + ", ".join(map(str, forced)) + ")") if forced
           else "model default", "procedure": spec.procedure.label(),
           "procedure_resolved": _resolved(spec.procedure), "defaults": list(spec.defaults)}
    if device.type == "cuda":
        env["cuda_device"] = torch.cuda.get_device_name(device)
        env["tf32_matmul"] = torch.backends.cuda.matmul.allow_tf32
        env["cudnn_deterministic"] = torch.backends.cudnn.deterministic
    return env


def _resolved(proc) -> dict:
    """Every choice of the executed procedure, JSON-ready (the report shows all of them)."""
    from dataclasses import asdict

    out = {}
    for key, value in asdict(proc).items():
        out[key] = sorted(value) if isinstance(value, frozenset) else list(value) if isinstance(value, tuple) else value
    return out


def _likely_cause(spec: ExecSpec, model) -> str:
    from camlint.core.locations import location
    from camlint.core.methods import GRADIENT_FREE_WEIGHTINGS

    p = spec.procedure
    last = any(b in (-1, len(getattr(model, "blocks", [])) - 1) for b in p.blocks if isinstance(b, int))
    pool = getattr(model, "global_pool", "")
    if last and location(p.location).cls_only_gradient and pool == "token":
        return (" - likely cause: the last block with a [CLS]-pooled head, where the patch-token "
                "gradients at F3-F6 are exactly zero (use F1, or an earlier block)")
    if p.target_kind is None and p.weighting not in GRADIENT_FREE_WEIGHTINGS:
        return " - likely cause: no target, so no gradient"
    return ""


def verify(spec_path: Path, device: str = "auto", maps_out: Path | None = None, progress: bool = False,
           force: bool = False) -> VerifyReport:
    writable_folder(maps_out, "--maps-out")
    loaded = load_spec(spec_path, force)
    spec = exec_spec_at(spec_path, loaded)
    if not spec.inputs:
        raise SpecError(["inputs: the spec declares no input to compute a map for"])
    stems = plan_maps_out(maps_out, spec)
    rt = spec.runtime
    dev = pick_device(device if device != "auto" else rt.get("device", "auto"))
    dtype = torch.float64 if rt["dtype"] == "float64" else torch.float32
    deterministic = rt["deterministic"]
    if deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
    model, source = build_model_at(spec_path, loaded, spec)
    model = model.to(device=dev, dtype=dtype)
    pre = preprocessing_config(model, spec.model.preprocessing, spec.model.input_size)
    artifacts = {a.input: a for a in spec.artifacts}
    results, forced = [], []
    bar = None
    if progress and len(spec.inputs) > 1:
        from rich.progress import Progress

        bar = Progress(transient=True)
        task = bar.add_task("verifying", total=len(spec.inputs))
        bar.start()
    try:
        for item in spec.inputs:
            if rt.get("seed") is not None:
                torch.manual_seed(rt["seed"])
            x, picture = load_input(item, pre)
            x = x[None].to(device=dev, dtype=dtype)
            raw, final, ps = _compute(model, x, spec, item)
            raw2, final2, _ = _compute(model, x, spec, item)
            forced = sorted(set(forced) | set(ps.capture.forced_explicit))
            raw_np, final_np = raw.detach().cpu().double().numpy(), final.detach().cpu().double().numpy()
            res = InputResult(item.name, {"raw": compare.sketch(raw_np), "final": compare.sketch(final_np),
                                          "match_within_levels": compare.SKETCH_MATCH,
                                          "exact_final": compare.fingerprint(final_np, spec.fingerprint_step),
                                          "step": spec.fingerprint_step},
                              final=final_np, raw=raw_np, picture=picture,
                              predicted=next(iter(ps.classes.values()), None))
            diff = float((final - final2).abs().max())
            if diff > DETERMINISM_ATOL:
                res.findings.append({"kind": "nondeterministic", "severity": "warning",
                                     "message": f"two runs differ by {diff:.3g} (max |diff|)"})
            why = compare.degenerate(final_np) or compare.degenerate(raw_np)
            if why:
                res.degenerate = True
                res.findings.append({"kind": "degenerate", "severity": "error",
                                     "message": why + _likely_cause(spec, model)})
            if item.box is not None:
                res.localization = compare.localization(final_np, item.box, spec.pointing_px)
            art = artifacts.get(item.name)
            if art is not None:
                _compare(res, art, spec)
            results.append(res)
            if maps_out is not None:
                write_maps(maps_out, stems[item.name], res)
            if bar:
                bar.advance(task)
    finally:
        if bar:
            bar.stop()
    return VerifyReport(str(spec_path), environment(dev, dtype, spec, source, pre, forced, deterministic), results)


def _compute(model, x, spec: ExecSpec, item):
    ps = run_passes(model, x, [spec.procedure], item.label)
    raw, final = compute(ps, spec.procedure)
    return raw, final, ps


def _compare(res: InputResult, art, spec: ExecSpec) -> None:
    if art.sha256 and sha256_of(art.map).lower() != art.sha256.lower():
        res.findings.append({"kind": "artifact-hash-mismatch", "severity": "error",
                             "message": f"{art.map.name}: sha256 differs from the declared one"})
        res.reproduced = False
        return
    reported = compare.load_artifact(art.map)
    ours = res.final if art.stage == "final" else res.raw
    if art.stage == "final" and reported.max() > 1.0 + 1e-6:
        reported = (reported - reported.min()) / (np.ptp(reported) or 1.0)
    m = compare.metrics(ours, reported)
    ok, failed = compare.passes(m, spec.tolerance)
    res.comparison = {**m, "artifact": str(art.map.name), "stage": art.stage, "tolerance": spec.tolerance}
    res.reproduced = ok
    constant = np.full(ours.shape, float(np.mean(compare.resize_to(reported, ours.shape))))
    if compare.passes(compare.metrics(constant, reported), spec.tolerance)[0]:
        res.reproduced = False
        res.findings.append({"kind": "tolerance-too-loose", "severity": "error",
                             "message": f"the tolerance ({tolerance_text(spec.tolerance)}) also accepts a constant "
                                        f"map for {art.map.name}, so it cannot show that the map is reproduced"})
    elif not ok:
        res.findings.append({"kind": "not-reproduced", "severity": "error",
                             "message": f"{art.map.name} is not reproduced: " + "; ".join(failed)})


def tolerance_text(tolerance: dict) -> str:
    return ", ".join(f"{k} {'<=' if k == 'max_abs' else '>='} {v:g}" for k, v in tolerance.items())


def colormap(m: np.ndarray) -> np.ndarray:
    """A perceptual blue-to-red colour map (no matplotlib needed): H x W -> H x W x 3 uint8."""
    t = np.clip(m, 0, 1)[..., None]
    stops = np.array([[48, 18, 59], [40, 118, 239], [32, 204, 161], [179, 233, 49], [250, 150, 25], [122, 4, 3]],
                     dtype=np.float64)
    pos = t * (len(stops) - 1)
    lo = np.floor(pos).astype(int).clip(0, len(stops) - 2)
    frac = pos - lo
    return (stops[lo[..., 0]] * (1 - frac) + stops[lo[..., 0] + 1] * frac).astype(np.uint8)


def overlay(picture: np.ndarray, m: np.ndarray, alpha: float = 0.5) -> np.ndarray:
    m = compare.resize_to(m, picture.shape[:2])
    return (picture.astype(np.float64) * (1 - alpha) + colormap(m) * alpha).clip(0, 255).astype(np.uint8)


def plan_maps_out(folder: Path | None, spec: ExecSpec) -> dict[str, str]:
    """input name -> file stem under --maps-out: unique, and never a file the spec declares."""
    if folder is None:
        return {}
    declared = {p.resolve() for p in [spec.model.weights.get("path") if isinstance(spec.model.weights, dict) else None]
                + [i.image or i.tensor for i in spec.inputs] + [a.map for a in spec.artifacts] if p is not None}
    stems: dict[str, str] = {}
    for item in spec.inputs:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", item.name).strip("._")[:80] or "input"
        base, n = stem, 2
        while stem.lower() in (s.lower() for s in stems.values()):
            stem, n = f"{base}-{n}", n + 1
        for suffix in (".npy", ".png"):
            target = (folder / f"{stem}{suffix}").resolve()
            if target in declared:
                raise SpecError([f"--maps-out {folder}: writing {stem}{suffix} would overwrite a file the spec "
                                 "declares; choose another folder"])
        stems[item.name] = stem
    return stems


def write_maps(folder: Path, stem: str, res: InputResult) -> None:
    import io

    from PIL import Image

    from camlint.safe_write import UnsafeTarget, write_atomic

    npy, png = io.BytesIO(), io.BytesIO()
    np.save(npy, res.final.astype(np.float32))
    Image.fromarray(overlay(res.picture, res.final)).save(png, format="PNG")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / f"{stem}.npy", npy.getvalue())
        write_atomic(folder / f"{stem}.png", png.getvalue())
    except (OSError, UnsafeTarget) as exc:
        raise SpecError([f"--maps-out {folder}: cannot write ({exc})"]) from None


def render_json(report: VerifyReport) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def render_text(report: VerifyReport, color: bool = False) -> str:
    from rich.table import Table
    from rich.text import Text

    from camlint.formats.text import _console

    console, buf = _console(color, None)
    env = report.environment
    console.print(Text(f"camlint verify {report.spec}", style="bold"))
    console.print(f"  {env['arch']} ({env['weights']}) on {env['device']}, {env['dtype']}; "
                  f"torch {env['torch']}, timm {env['timm']}; attention: {env['attention_path']}")
    console.print(f"  procedure: {env['procedure']}")
    if env.get("defaults"):
        console.print(Text("  left to camlint's defaults (state them to be sure): " + "; ".join(env["defaults"])))
    compared = [r.comparison for r in report.results if r.comparison]
    if compared:
        console.print(f"  tolerance: {tolerance_text(compared[0]['tolerance'])}")
    table = Table(title_justify="left")
    for col in ("input", "class", "max |diff|", "pearson", "spearman", "top-10% IoU", "result"):
        table.add_column(col)
    for r in report.results:
        c = r.comparison or {}
        verdict = ("degenerate" if r.degenerate else "reproduced" if r.reproduced else
                   "NOT reproduced" if r.reproduced is False else "computed")
        style = "red" if r.degenerate or r.reproduced is False else "green" if r.reproduced else ""
        table.add_row(Text(r.input), str(r.predicted if r.predicted is not None else ""),
                      *(f"{c[k]:.4g}" if k in c else "-" for k in ("max_abs", "pearson", "spearman", "top10_iou")),
                      Text(verdict, style=style))
    console.print(table)
    for r in report.results:      # whole, never truncated: a paper prints these
        console.print(Text(f"  sketch {r.input}: final {r.fingerprint['final']}  raw {r.fingerprint['raw']}"),
                      soft_wrap=True)
    for r in report.results:
        for f in r.findings:
            console.print(Text(f"  {r.input}: {f['severity']}: {f['kind']}: {f['message']}",
                               style="red" if f["severity"] == "error" else "yellow"))
    overall = report.reproduced
    console.print(Text("reproduced" if overall else "NOT reproduced" if overall is False
                       else "maps computed; nothing declared to compare", style="bold"))
    return buf.getvalue()
