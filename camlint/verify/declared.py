"""What a camspec declares besides the procedure: the model, the inputs and the reported maps."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from camlint.verify.modelargs import (MAX_IMG_SIDE, arch_problem, is_int, is_number, kwargs_problems,
                                      weights_problem)
from camlint.verify.specvalues import as_list, as_mapping, file_in, one_of, show_value, size_pair


@dataclass
class ModelSpec:
    arch: str
    kwargs: dict = field(default_factory=dict)
    weights: object = None
    input_size: tuple | None = None
    preprocessing: dict = field(default_factory=dict)


@dataclass
class InputSpec:
    name: str
    image: Path | None
    tensor: Path | None
    label: object = None
    box: tuple | None = None


@dataclass
class ArtifactSpec:
    input: str
    map: Path
    sha256: str | None
    stage: str = "final"


def model_spec(data: dict, base_dir: Path, errors: list[str]) -> ModelSpec:
    m = data.get("model")
    if not isinstance(m, dict) or not isinstance(m.get("arch"), str) or not m["arch"]:
        errors.append("model: give {arch: <timm name>, weights: ...}")
        m = {"arch": "vit_tiny_patch16_224", "weights": {"random_init": {"seed": 0}}}
    size = m.get("input_size")
    if size is not None:
        sides = size_pair(size[1:], "model.input_size", [], MAX_IMG_SIDE) if isinstance(size, list) and len(size) == 3 \
            and is_int(size[0]) and 1 <= size[0] <= 16 else None
        if sides is None:
            errors.append(f"model.input_size must be [channels, height, width] with height and width "
                          f"in 1..{MAX_IMG_SIDE}, not {show_value(size)}")
        size = (size[0],) + sides if sides else None
    problems = [arch_problem(m["arch"]), weights_problem(m.get("weights"))]
    problems += [msg for _, msg in kwargs_problems(m.get("kwargs") if m.get("kwargs") is not None else {})]
    errors.extend(p for p in problems if p)
    kwargs = m.get("kwargs") if isinstance(m.get("kwargs"), dict) else {}
    model = ModelSpec(m["arch"], dict(kwargs), m.get("weights"), size, _preprocessing(m.get("preprocessing"), errors))
    weights = model.weights
    if isinstance(weights, dict) and isinstance(weights.get("file"), str):
        model.weights = {**weights, "path": file_in(base_dir, weights["file"], "model.weights.file", errors)}
    return model


def input_keys(item: dict) -> set[str]:
    """Every way an artifact may name this input: its name, else its file's stem, and its file.

    The one matching rule of `camlint check` (CAM504) and `camlint verify`."""
    files = [item[k] for k in ("image", "tensor") if isinstance(item.get(k), str) and item[k]]
    name = item.get("name")
    keys = {name} if isinstance(name, str) and name else {Path(f).stem for f in files[:1]}
    return keys | set(files)


def match_artifacts(raw_inputs: list, inputs: list[InputSpec], artifacts: list[ArtifactSpec],
                     errors: list[str]) -> None:
    """Each artifact's input becomes the name of the one input it matches (else an error)."""
    keyed = [(input_keys(raw), spec) for raw, spec in zip(raw_inputs, inputs)]
    for i, art in enumerate(artifacts):
        hits = [spec for keys, spec in keyed if art.input in keys]
        if len(hits) != 1:
            errors.append(f"artifacts[{i}].input: {show_value(art.input)} matches "
                          f"{'no' if not hits else 'more than one'} declared input (names: "
                          f"{', '.join(s.name for s in inputs)[:200] or 'none'})")
        else:
            art.input = hits[0].name


INTERPOLATIONS = ("bilinear", "bicubic", "nearest", "lanczos", "box", "hamming")


def _preprocessing(value, errors: list[str]) -> dict:
    """Only the preprocessing keys the engine reads, each of the right type and range."""
    pre = as_mapping(value, "model.preprocessing", errors)
    out = {}
    for key in ("resize", "crop"):
        if key in pre:
            v = pre[key]
            out[key] = v if is_int(v) and 1 <= v <= MAX_IMG_SIDE else \
                size_pair(v, f"model.preprocessing.{key}", errors, MAX_IMG_SIDE) or MAX_IMG_SIDE // 4
    for key, lo in (("mean", -1e3), ("std", 1e-6)):
        if key in pre:
            v = pre[key]
            if isinstance(v, list) and 1 <= len(v) <= 16 and all(is_number(x) and lo <= x <= 1e3 for x in v):
                out[key] = [float(x) for x in v]
            else:
                errors.append(f"model.preprocessing.{key} must be a list of 1..16 numbers"
                              + (" > 0" if key == "std" else "") + f", not {show_value(v)}")
    if "interpolation" in pre:
        out["interpolation"] = one_of(pre["interpolation"], "model.preprocessing.interpolation", errors,
                                       INTERPOLATIONS, "bicubic")
    return out


MAX_INPUTS = 1000     # each input is a forward and backward pass: a spec cannot ask for a million


def input_specs(data: dict, base_dir: Path, errors: list[str]) -> list[InputSpec]:
    inputs, automatic = [], []
    listed = as_list(data.get("inputs"), "inputs", errors)
    if len(listed) > MAX_INPUTS:
        errors.append(f"inputs: {len(listed)} inputs, more than camlint verifies in one run ({MAX_INPUTS})")
        listed = []
    for i, item in enumerate(listed):
        what = f"inputs[{i}]"
        if not isinstance(item, dict) or not (item.get("image") or item.get("tensor")):
            errors.append(f"{what} must be {{image: FILE}} or {{tensor: FILE.npy}}, not {show_value(item)}")
            continue
        kind = "image" if item.get("image") else "tensor"
        path = file_in(base_dir, item[kind], f"{what}.{kind}", errors)
        if path is not None and not path.is_file():
            errors.append(f"{what}.{kind}: {item[kind]} does not exist")
        name = item.get("name") if item.get("name") is not None else Path(str(item[kind])).stem
        if not isinstance(name, str) or not name:
            errors.append(f"{what}.name must be a non-empty string")
            name = f"input{i}"
        label = item.get("class")
        if label is not None and not (is_int(label) and 0 <= label < 1_000_000):
            errors.append(f"{what}.class must be a class index, not {show_value(label)}")
            label = None
        box = item.get("box")
        if box is not None:
            ok = isinstance(box, list) and len(box) == 4 and all(is_number(v) and abs(v) <= 1e6 for v in box)
            if not ok or box[0] >= box[2] or box[1] >= box[3]:
                errors.append(f"{what}.box must be [x0, y0, x1, y1] in pixels with x0 < x1, y0 < y1, not {show_value(box)}")
                box = None
        inputs.append(InputSpec(name, path if kind == "image" else None, path if kind == "tensor" else None,
                                label, tuple(box) if box else None))
        if item.get("name") is None:
            automatic.append((len(inputs) - 1, str(item[kind])))
    stems = [inputs[i].name for i, _ in automatic]
    for i, rel in automatic:    # two images/…/disc.png: each is named by its file instead
        if stems.count(inputs[i].name) > 1 or any(o.name == inputs[i].name for j, o in enumerate(inputs) if j != i):
            inputs[i].name = rel
    return inputs


def artifact_specs(data: dict, base_dir: Path, errors: list[str]) -> list[ArtifactSpec]:
    artifacts = []
    for i, item in enumerate(as_list(data.get("artifacts"), "artifacts", errors)):
        what = f"artifacts[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("input"), str):
            errors.append(f"{what} must be {{input: NAME, map: FILE}}, not {show_value(item)}")
            continue
        path = file_in(base_dir, item.get("map"), f"{what}.map", errors)
        if path is not None and not path.is_file():
            errors.append(f"{what}.map: {item['map']} does not exist")
        digest = item.get("sha256")
        if digest is not None and not isinstance(digest, str):
            errors.append(f"{what}.sha256 must be 64 hex digits")
            digest = None
        stage = one_of(item.get("stage", "final"), f"{what}.stage", errors, ("final", "raw"), "final")
        artifacts.append(ArtifactSpec(item["input"], path, digest, stage))
    return artifacts
