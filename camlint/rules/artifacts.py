"""CAM5xx: files a camspec declares (weights, inputs, reported maps) and their hashes."""
from __future__ import annotations

import hashlib
from pathlib import Path

from camlint.rules.base import Hit, Rule
from camlint.safety.paths import LinkLoop, resolved_inside
from camlint.verify.declared import input_keys   # one matching rule for check and verify (torch-free)

MAX_HASH_BYTES = 2 * 1024 ** 3


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _digest(item: dict) -> str | None:
    """A declared sha256, when it is a string (another type is a schema problem, CAM301)."""
    return item["sha256"] if isinstance(item.get("sha256"), str) else None


def _declared_files(src):
    """(json path, relative file, declared sha256 or None) for every file the spec names."""
    data = src.data
    model = data.get("model")
    weights = model.get("weights") if isinstance(model, dict) else None
    if isinstance(weights, dict) and isinstance(weights.get("file"), str):
        yield ("model", "weights", "file"), weights["file"], _digest(weights)
    for i, item in enumerate(_list(data.get("inputs"))):
        if isinstance(item, dict):
            for k in ("image", "tensor"):
                if isinstance(item.get(k), str):
                    yield ("inputs", i, k), item[k], None
    for i, item in enumerate(_list(data.get("artifacts"))):
        if isinstance(item, dict) and isinstance(item.get("map"), str):
            yield ("artifacts", i, "map"), item["map"], _digest(item)


def _resolve(src, rel: str) -> Path | None:
    """The file inside the spec's folder, or None when the path leaves it (or its links loop)."""
    if src.base_dir is None:
        return None
    try:
        return resolved_inside(Path(src.base_dir) / rel, Path(src.base_dir))
    except LinkLoop:
        return None


def check_declared_file_missing(a):
    for src in a.specs:
        for path, rel, _ in _declared_files(src):
            target = _resolve(src, rel)
            line, col = src.position(path)
            if "\0" in rel:
                yield Hit(f"{rel!r} holds a NUL byte, which no file name can; it is not read", src.file, line, col)
            elif target is None:
                yield Hit(f"{rel} is outside the spec's folder; it is not read", src.file, line, col)
            elif not target.is_file():
                yield Hit(f"{rel} does not exist (paths resolve against the spec's folder)", src.file, line, col)


DECLARED_FILE_MISSING = Rule(
    code="CAM501", name="declared-file-missing", item=None, severity="error",
    summary="A file the camspec declares (weights, input, reported map) is missing or outside its folder.",
    rationale="camlint verify re-executes the spec from these files; a missing one makes the "
              "reported maps unverifiable, and a path outside the folder is never read.",
    bad="inputs:\n  - {image: images/missing.png}", good="inputs: []   # nothing declared, nothing missing",
    hint="Ship the file next to the spec (paths are relative to the spec's folder).",
    check=check_declared_file_missing, example_format="yaml",
)


def check_weights_without_hash(a):
    for src in a.specs:
        model = src.data.get("model")
        weights = model.get("weights") if isinstance(model, dict) else None
        if isinstance(weights, dict) and weights.get("file") and not weights.get("sha256"):
            line, col = src.position(("model", "weights"))
            yield Hit(f"weights file {weights['file']} has no sha256", src.file, line, col)


WEIGHTS_WITHOUT_HASH = Rule(
    code="CAM502", name="weights-without-hash", item="model", severity="warning",
    summary="A local weights file is declared without its sha256.",
    rationale="Checkpoints are overwritten and re-exported; a hash is the only way to know the "
              "verified maps come from the weights the paper used.",
    bad="model: {arch: vit_tiny_patch16_224, weights: {file: model.safetensors}}",
    good="model: {arch: vit_tiny_patch16_224, weights: {file: model.safetensors, sha256: "
         "'0000000000000000000000000000000000000000000000000000000000000000'}}",
    hint="Add sha256: (sha256sum FILE) next to the file name.",
    check=check_weights_without_hash, example_format="yaml",
)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def check_hash_mismatch(a):
    for src in a.specs:
        for path, rel, digest in _declared_files(src):
            target = _resolve(src, rel)
            if not digest or target is None or not target.is_file() or target.stat().st_size > MAX_HASH_BYTES:
                continue
            actual = file_sha256(target)
            if actual.lower() != str(digest).lower():
                line, col = src.position(path[:-1] + ("sha256",))
                yield Hit(f"sha256 of {rel} is {actual[:12]}..., the spec declares {str(digest)[:12]}...",
                          src.file, line, col)


HASH_MISMATCH = Rule(
    code="CAM503", name="hash-mismatch", item=None, severity="error",
    summary="A declared sha256 does not match the file.",
    rationale="The file is not the one the spec (and the paper) describe.",
    bad="model: {arch: vit_tiny_patch16_224, weights: {file: camspec.yaml, sha256: "
        "'0000000000000000000000000000000000000000000000000000000000000000'}}",
    good="model: {arch: vit_tiny_patch16_224, weights: augreg_in21k_ft_in1k}",
    hint="Recompute the hash (sha256sum FILE), or restore the file the paper used.",
    check=check_hash_mismatch, example_format="yaml",
)


def check_artifact_input_unknown(a):
    for src in a.specs:
        inputs = src.data.get("inputs") if isinstance(src.data.get("inputs"), list) else []
        names = set().union(*(input_keys(i) for i in inputs if isinstance(i, dict)))
        for n, art in enumerate(_list(src.data.get("artifacts"))):
            if isinstance(art, dict) and isinstance(art.get("input"), str) and art["input"] not in names:
                line, col = src.position(("artifacts", n, "input"))
                yield Hit(f"artifact for input {art['input']!r}, which is not among the declared inputs",
                          src.file, line, col)


ARTIFACT_INPUT_UNKNOWN = Rule(
    code="CAM504", name="artifact-input-unknown", item=None, severity="error",
    summary="A reported map names an input the camspec does not declare.",
    rationale="A map can only be recomputed from its input image; without it the comparison is "
              "impossible.",
    bad="inputs: []\nartifacts:\n  - {input: cat, map: maps/cat.npy}",
    good="inputs: []\nartifacts: []",
    hint="Declare the input under inputs: (with name: or a file whose stem is the artifact's input).",
    check=check_artifact_input_unknown, example_format="yaml",
)

RULES = (DECLARED_FILE_MISSING, WEIGHTS_WITHOUT_HASH, HASH_MISMATCH, ARTIFACT_INPUT_UNKNOWN)
