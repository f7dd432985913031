"""`camlint verify SPEC`: rebuild every declared map and say whether the reported ones are reproduced."""
from __future__ import annotations

import contextlib
import os
import platform
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from camlint import __version__
from camlint.core.keys import EXECUTABLE_KEYS, MISSING, PARTIAL
from camlint.verify import compare
from camlint.verify.engine import compute, run_passes
from camlint.verify.images import comparison_figure, load_input, overlay, preprocessing_config
from camlint.verify.model import batch_size, build_model, input_problem, sha256_of
from camlint.rules.registry import BY_CODE
from camlint.rules.verify import (DEGENERATE_MAP, MAP_NOT_REPRODUCED, NONDETERMINISTIC_RUN,
                                  TOLERANCE_ACCEPTS_CONSTANT, finding)
from camlint.verify.report import (InputResult, SEP, VerifyReport, comparison_title, declared_paths, file_stems,
                                   refuse_overwrite, tolerance_text, write_files)
from camlint.verify.spec import ExecSpec, SpecError, exec_spec, with_lines

DETERMINISM_ATOL = 1e-6


# Checked by the engine against the model it builds (the linter cannot see model.kwargs such as
# patch_size or depth, so its guess of the grid or the depth may be wrong for this spec).
ENGINE_CHECKED = frozenset({"CAM202", "CAM203"})
NEVER_APPLIED = frozenset({"CAM302"})    # an unknown key: a warning in check, never applied by verify


def blocking_findings(report, open_keys_allowed: bool = False) -> list[str]:
    """Every error-level finding of `camlint check`'s report on the spec, in its own words, and any
    key verify would not apply (every key of an executed spec is applied or refused; extensions are
    x-...). A completeness finding only blocks for a key the engine executes; a sweep runs on open keys."""
    out = []
    for f in report.findings:
        if f.code in ENGINE_CHECKED:
            continue
        if f.code.startswith("CAM1"):
            executable = f.item in EXECUTABLE_KEYS and report.checklist[f.item].status in (MISSING, PARTIAL)
            if open_keys_allowed or not executable:
                continue
        elif f.severity != "error" and f.code not in NEVER_APPLIED:
            continue
        out.append(f"{f.file}:{f.line}:{f.col}: {f.code} {f.name}: {f.message}")
    return out


def load_spec(spec_path: Path, force: bool = False, open_keys_allowed: bool = False):
    """(LoadedYAML, `camlint check` report) of a camspec that check finds no error in (unless force)."""
    from camlint.check import check_file
    from camlint.inputs.camspec import SPEC_SUFFIXES
    from camlint.safety.yamlsafe import load_file

    if spec_path.suffix.lower() not in SPEC_SUFFIXES:
        raise SpecError([f"{spec_path} is not a camspec file ({', '.join(SPEC_SUFFIXES)}); verify and sweep "
                         "execute a camspec (camlint init MANUSCRIPT writes one; camlint check reads manuscripts)"])
    lint = check_file(spec_path)
    problems = blocking_findings(lint, open_keys_allowed)
    if problems and not force:
        raise SpecError(["the spec is not complete enough to execute, or has errors (camlint check shows them; "
                         "--force runs anyway where it is safe):"]
                        + problems)
    loaded = load_file(spec_path)
    if not isinstance(loaded.data, dict):
        raise SpecError([f"{spec_path}:1: a camspec is a mapping of checklist keys"])
    return loaded, lint


@contextlib.contextmanager
def at_lines(spec_path: Path, loaded):
    """Problems the engine finds while it runs ('layer: block 9 does not exist') located at their
    key's line of the spec file, like those found before; a located message is kept as it is."""
    try:
        yield
    except SpecError as exc:
        head = f"{spec_path}:"
        raise SpecError([m if m.startswith(head) else with_lines([m], loaded, str(spec_path))[0]
                         for m in exc.messages]) from None


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


@dataclass
class Run:
    """One verify run: the spec as read, checked and executed, the model, and where findings point."""
    spec_path: Path
    loaded: object
    lint: object
    spec: ExecSpec
    model: object
    source: str
    device: torch.device
    dtype: torch.dtype
    pre: dict

    @property
    def file(self) -> str:
        return self.lint.path if self.lint is not None else str(self.spec_path)

    def line(self, *path) -> int:
        """The spec line of a key path (its nearest stated parent when it is absent)."""
        return self.loaded.position(path)[0]


def _no_progress(_text: str) -> None:
    return None


def prepare(spec_path: Path, device: str, force: bool, progress=_no_progress) -> Run:
    """Check, read and build: everything before the first input (errors are SpecError)."""
    progress(f"checking {spec_path.name}")
    loaded, lint = load_spec(spec_path, force)
    spec = exec_spec_at(spec_path, loaded)
    if not spec.inputs:
        raise SpecError(["inputs: the spec declares no input to compute a map for"])
    rt = spec.runtime
    dev = pick_device(device if device != "auto" else rt.get("device", "auto"))
    dtype = torch.float64 if rt["dtype"] == "float64" else torch.float32
    if rt["deterministic"]:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True, warn_only=True)
    progress(f"building {spec.model.arch} on {dev.type}")
    model, source = build_model_at(spec_path, loaded, spec)
    model = model.to(device=dev, dtype=dtype)
    pre = preprocessing_config(model, spec.model.preprocessing, spec.model.input_size)
    return Run(spec_path, loaded, lint, spec, model, source, dev, dtype, pre)


def verify(spec_path: Path, device: str = "auto", maps_out: Path | None = None, progress=None,
           force: bool = False, repeat: bool = False, output: Path | None = None,
           keep_maps: bool = True) -> VerifyReport:
    """`repeat`: check determinism (a second run) on every input, not only the first; `output`:
    the report file (-o), refused, like --maps-out, where it would overwrite a declared file;
    `keep_maps` False: each input's maps and picture are let go once written (the CLI: 1,000
    inputs with postprocess.size 4096 x 4096 kept 180 GB of maps the report never reads)."""
    progress = progress or _no_progress
    writable_folder(maps_out, "--maps-out")
    run = prepare(spec_path, device, force, progress)
    declared = declared_paths(spec_path, run.spec)
    refuse_overwrite(output, None, declared, "-o")
    stems = plan_maps_out(maps_out, run.spec, declared)
    results, forced = [], set()
    total = len(run.spec.inputs)
    size = batch_size(run.spec.model, BATCH_MAX, passes=2 if repeat else 1)    # a repeat keeps both passes
    for batch in input_batches(total, repeat, size):
        names = run.spec.inputs[batch[0]].name if len(batch) == 1 else f"{len(batch)} inputs in one batch"
        progress(f"input {batch[0] + 1}{'' if len(batch) == 1 else f'-{batch[-1] + 1}'}/{total} {names}: "
                 "forward and backward passes")
        with at_lines(spec_path, run.loaded):
            done = verify_inputs(run, batch, twice=repeat or batch[0] == 0)
        for res, ps in done:
            forced |= set(ps.capture.forced_explicit)
            results.append(res)
            if maps_out is not None:
                write_maps(maps_out, stems[res.input], res)
            if not keep_maps:
                res.final = res.raw = res.picture = res.reported = None
    env = environment(run.device, run.dtype, run.spec, run.source, run.pre, sorted(forced),
                      run.spec.runtime["deterministic"])
    env["determinism_checked_on"] = "every input" if repeat else "the first input"
    return VerifyReport(str(spec_path), env, results, lint=run.lint, pointing_px=run.spec.pointing_px)


# inputs per forward/backward pass: memory grows with it (a ViT-B/16 at 224 px keeps ~0.1 GB of
# graph per input), the time per input hardly shrinks beyond it
BATCH_MAX = 8


def input_batches(total: int, repeat: bool, size: int = BATCH_MAX) -> list[list[int]]:
    """Input indices per pass: the first alone (its determinism check repeats only it), the others
    in batches of at most `size`."""
    rest = list(range(1, total))
    return [[0]] + [rest[i:i + size] for i in range(0, len(rest), size)] if total else []


def verify_inputs(run: Run, ns: list[int], twice: bool) -> list[tuple[InputResult, object]]:
    """verify_input for inputs `ns`, their maps computed in one pass per input shape."""
    got = load_inputs_at(run.spec_path, run.loaded, run.spec, ns, run.pre, run.model)
    loaded = [got[n] for n in ns]
    out = {}
    for group in same_shape_groups(ns, [x for x, _ in loaded]):
        xs = torch.stack([loaded[ns.index(n)][0] for n in group]).to(device=run.device, dtype=run.dtype)
        maps = _batch_maps(run, xs, group)
        again = _batch_maps(run, xs, group) if twice else None
        for k, n in enumerate(group):
            raw, final, ps = maps[k]
            diff = float((final - again[k][1]).abs().max()) if twice else None
            out[n] = verify_input(run, n, raw, final, ps, loaded[ns.index(n)][1], diff)
    return [out[n] for n in ns]


def load_inputs_at(spec_path: Path, loaded, spec: ExecSpec, ns: list[int], pre: dict, model=None) -> dict:
    """load_input for inputs `ns`; a file that cannot be read, or that `model` cannot take, is
    named at its input's spec line (a picture cropped to the wrong size at the crop's)."""
    out = {}
    for n in ns:
        try:
            out[n] = load_input(spec.inputs[n], pre)
            why = input_problem(model, tuple(out[n][0].shape)) if model is not None else None
            if why and spec.inputs[n].image is not None:
                raise SpecError([f"model.preprocessing.crop: {spec.inputs[n].image.name} cropped to "
                                 f"{pre['crop'][0]} x {pre['crop'][1]} {why}"])
            if why:
                raise SpecError([f"{spec.inputs[n].tensor.name} {why}"])
        except SpecError as exc:
            kind = "image" if spec.inputs[n].image is not None else "tensor"
            messages = [m if m.startswith("model.") else f"inputs[{n}].{kind}: {m}" for m in exc.messages]
            raise SpecError(with_lines(messages, loaded, str(spec_path))) from None
    return out


def same_shape_groups(ns: list[int], xs: list) -> list[list[int]]:
    groups: dict = {}
    for n, x in zip(ns, xs):
        groups.setdefault(tuple(x.shape), []).append(n)
    return list(groups.values())


def _batch_maps(run: Run, xs, group: list[int]) -> list:
    """(raw, final, pass of one) per input of one batch, each with its own class."""
    spec = run.spec
    if spec.runtime.get("seed") is not None:
        torch.manual_seed(spec.runtime["seed"])
    batch = run_passes(run.model, xs, [spec.procedure], labels=[spec.inputs[n].label for n in group])
    out = []
    for k in range(len(group)):
        ps = batch.sample(k)
        out.append((*compute(ps, spec.procedure), ps))
    return out


def verify_input(run: Run, n: int, raw, final, ps, picture, diff: float | None) -> tuple[InputResult, object]:
    """The map of input n, its sketch, and every finding about it (at its spec line); `diff`: the
    largest difference from a second run (None: not checked)."""
    spec, item = run.spec, run.spec.inputs[n]
    raw_np, final_np = raw.detach().cpu().double().numpy(), final.detach().cpu().double().numpy()
    res = InputResult(item.name, {"raw": compare.sketch(raw_np), "final": compare.sketch(final_np),
                                  "match_within_levels": compare.SKETCH_MATCH,
                                  "exact_final": compare.fingerprint(final_np, spec.fingerprint_step),
                                  "step": spec.fingerprint_step},
                      final=final_np, raw=raw_np, picture=picture, predicted=next(iter(ps.classes.values()), None))
    if diff is not None and diff > DETERMINISM_ATOL:
        res.findings.append(finding(NONDETERMINISTIC_RUN, f"{item.name}: two runs differ by {diff:.3g} "
                                    "(max |diff|)", run.file, run.line("runtime")))
    why = compare.degenerate(final_np) or compare.degenerate(raw_np)
    if why:
        res.degenerate = True
        res.findings.append(finding(DEGENERATE_MAP, f"{item.name}: {why}{_likely_cause(spec, run.model)}",
                                    run.file, run.line("location")))
    res.box = item.box
    if item.box is not None:
        res.localization = compare.localization(final_np, item.box, spec.pointing_px)
    for k, art in enumerate(spec.artifacts):
        if art.input == item.name:
            _compare(res, art, run, k)
    return res, ps


def _compare(res: InputResult, art, run: Run, k: int) -> None:
    spec, where = run.spec, (run.file, run.line("artifacts", k))
    if art.sha256 and sha256_of(art.map).lower() != art.sha256.lower():
        res.findings.append(finding(BY_CODE["CAM503"], f"{art.map.name}: sha256 differs from the declared one",
                                    run.file, run.line("artifacts", k, "sha256")))
        res.reproduced = False
        return
    try:
        reported = compare.load_artifact(art.map)
    except SpecError as exc:    # located at the artifact's map: line (at_lines)
        raise SpecError([f"artifacts[{k}].map: {m}" for m in exc.messages]) from None
    ours = res.final if art.stage == "final" else res.raw
    if art.stage == "final" and reported.max() > 1.0 + 1e-6:
        reported = (reported - reported.min()) / (np.ptp(reported) or 1.0)
    m = compare.metrics(ours, reported)
    ok, failed = compare.passes(m, spec.tolerance)
    res.reported = compare.resize_to(reported, ours.shape)
    dist = compare.sketch_distance(compare.sketch(ours), compare.sketch(res.reported))
    res.comparison = {**m, "artifact": str(art.map.name), "stage": art.stage, "tolerance": spec.tolerance,
                      "sketch_distance": dist, "sketch_match": dist is not None and dist <= compare.SKETCH_MATCH}
    res.reproduced = ok
    constant = np.full(ours.shape, float(np.mean(compare.resize_to(reported, ours.shape))))
    if compare.passes(compare.metrics(constant, reported), spec.tolerance)[0]:
        res.reproduced = False
        res.findings.append(finding(TOLERANCE_ACCEPTS_CONSTANT,
                                    f"the tolerance ({tolerance_text(spec.tolerance)}) also accepts a constant map "
                                    f"for {art.map.name}, so it cannot show that the map is reproduced",
                                    run.file, run.line("tolerance") if "tolerance" in run.loaded.data else where[1]))
    elif not ok:
        res.findings.append(finding(MAP_NOT_REPRODUCED, f"{art.map.name} is not reproduced for input {res.input}: "
                                    + "; ".join(failed), *where))


def plan_maps_out(folder: Path | None, spec: ExecSpec, declared: set[Path]) -> dict[str, str]:
    """input name -> file stem under --maps-out: unique, and never a file the spec declares."""
    if folder is None:
        return {}
    stems = file_stems([item.name for item in spec.inputs])
    names = {f"{stem}{suffix}".lower() for stem in stems.values() for suffix in (".npy", ".png", f"{SEP}compare.png")}
    refuse_overwrite(folder, names.__contains__, declared, "--maps-out")
    return stems


def write_maps(folder: Path, stem: str, res: InputResult) -> None:
    import io

    from PIL import Image

    npy, png = io.BytesIO(), io.BytesIO()
    np.save(npy, res.final.astype(np.float32))
    Image.fromarray(overlay(res.picture, res.final)).save(png, format="PNG")
    files = {f"{stem}.npy": npy.getvalue(), f"{stem}.png": png.getvalue()}
    if res.reported is not None:
        buf = io.BytesIO()
        ours = res.final if res.comparison["stage"] == "final" else res.raw
        comparison_figure(res.picture, res.reported, ours, comparison_title(res), res.box).save(buf, format="PNG")
        files[f"{stem}{SEP}compare.png"] = buf.getvalue()
    write_files(folder, files, "--maps-out")
