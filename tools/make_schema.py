"""Generate schemas/camspec-1.schema.json (kept in the repo; a test checks it is current).

The checklist keys' forms come from their items (camlint/core/items.py, at call time); the parts
of a spec that are not checklist keys (runtime, inputs, artifacts, tolerance) are written here.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from camlint.core import vocab  # noqa: E402
from camlint.core import items  # noqa: E402
from camlint.core.item_forms import enum, prop, relative_path, sha256  # noqa: E402

runtime = prop("Runtime", "Execution settings of the reference run.", {
    "type": "object", "properties": {
        "device": enum("Device", "auto uses CUDA when present.", ("auto", "cpu", "cuda")),
        "dtype": enum("dtype", "Floating-point type of model and maps.", ("float32", "float64")),
        "seed": prop("Seed", "Global seed for anything random at run time.", {"type": "integer"}),
        "deterministic": prop("Deterministic", "torch.use_deterministic_algorithms.", {"type": "boolean"}),
        "attention": enum("Attention path", "explicit forces timm's non-fused attention (needed "
                          "for F2); auto forces it only where needed.", ("auto", "explicit", "fused")),
    }, "additionalProperties": False}, [{"device": "auto", "dtype": "float32", "seed": 0}])

inputs = prop("Inputs", "Images (or preprocessed .npy tensors, float32 C x H x W) the maps are computed for.", {
    "type": "array", "items": {
        "type": "object", "properties": {
            "image": prop("Image", "Image file, relative to the spec's folder.", relative_path),
            "tensor": prop("Tensor", "Preprocessed .npy tensor (bypasses decoding).", relative_path),
            "name": prop("Name", "Identifier used by artifacts (default: the file stem).", {"type": "string"}),
            "class": prop("Class", "Class for this input (overrides target.class).",
                          {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]}),
            "box": prop("Box", "Object box [x0, y0, x1, y1] in input pixels (for localisation metrics).",
                        {"type": "array", "items": {"type": "number"}, "minItems": 4, "maxItems": 4}),
        }, "additionalProperties": False,
        "oneOf": [{"required": ["image"]}, {"required": ["tensor"]}]}},
    [[{"image": "images/cat.png", "class": 3}]])

artifacts = prop("Artifacts", "Reported maps to be reproduced.", {
    "type": "array", "items": {
        "type": "object", "properties": {
            "input": prop("Input", "Name (or file) of the input this map belongs to.", {"type": "string"}),
            "map": prop("Map", "A .npy (float, H x W) or .png (8 or 16 bit) map.", relative_path),
            "sha256": prop("SHA-256", "Digest of the map file.", sha256),
            "stage": enum("Stage", "final (after post-processing) or raw (signed low-resolution map).",
                          ("final", "raw")),
        }, "required": ["input", "map"], "additionalProperties": False}},
    [[{"input": "cat", "map": "maps/cat.npy"}]])

tolerance = prop("Tolerance", "When a recomputed map counts as reproduced (defaults in camlint verify).", {
    "type": "object", "properties": {
        "max_abs": prop("Max |diff|", "Largest allowed absolute difference.", {"type": "number", "minimum": 0}, [1e-3]),
        "pearson": prop("Pearson", "Smallest allowed Pearson correlation.", {"type": "number", "maximum": 1}),
        "spearman": prop("Spearman", "Smallest allowed Spearman correlation.", {"type": "number", "maximum": 1}),
        "top10_iou": prop("Top-10% IoU", "Smallest allowed IoU of the top 10% pixels.",
                          {"type": "number", "minimum": 0, "maximum": 1}),
        "fingerprint_step": prop("Fingerprint step", "Quantisation step of the map fingerprint.",
                                 {"type": "number", "exclusiveMinimum": 0}, [1e-3]),
        "pointing_px": prop("Pointing tolerance", "Pixels by which an input's box is grown in the "
                            "pointing game (Zhang et al. allow 15 px at 224 px; one patch is the "
                            "finest a patch-level map can point).", {"type": "number", "minimum": 0}, [8]),
    }, "additionalProperties": False})

def schema() -> dict:
    """The whole schema, with every checklist key registered now."""
    return {**_SCHEMA, "description": _DESCRIPTION.format(n=len(items.names())),
            "properties": {"camspec": _SCHEMA["properties"]["camspec"],
                           **{i.key: i.schema for i in items.items()},
                           **{k: v for k, v in _SCHEMA["properties"].items() if k != "camspec"}}}


_DESCRIPTION = ("The machine-readable reporting checklist for Grad-CAM on Vision Transformers. "
                "Its top-level keys are the {n} checklist keys; any of them may be 'n/a'. A spec "
                "complete enough for camlint verify also declares runtime, inputs and artifacts.")

_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "https://camlint.dev/schemas/camspec-1.schema.json",
    "title": "camspec 1: how a Grad-CAM map of a Vision Transformer was made",
    "description": None,      # _DESCRIPTION, with the number of keys
    "type": "object",
    "$defs": {"not_applicable": {"title": "Not applicable", "description": "The key does not apply.",
                                 "const": "n/a"}},
    "properties": {
        "camspec": prop("Spec version", "Version of this schema.", {"anyOf": [{"const": 1}, {"const": "1"}]}, [1]),
        # the checklist keys come here, from their items
        "runtime": runtime, "inputs": inputs, "artifacts": artifacts, "tolerance": tolerance,
        "x-camlint-ignore": prop("Ignored codes", "camlint codes suppressed for this file, each "
                                 "optionally followed by ' -- reason'.",
                                 {"type": "array", "items": {"type": "string"}}, [["CAM110 -- no ReLU by design"]]),
    },
    "patternProperties": {"^x-": {"title": "Extension", "description": "Free-form extension data."}},
    "additionalProperties": False,
    "allOf": [{
        "if": {"required": ["location"], "properties": {"location": {"enum": sorted(vocab.ATTENTION_LOCATIONS)}}},
        "then": {"required": ["heads"], "properties": {"heads": {"not": {"const": "n/a"}}}},
    }],
    "examples": [{
        "camspec": 1,
        "model": {"arch": "vit_base_patch16_224", "weights": "augreg2_in21k_ft_in1k"},
        "method": "gradcam", "layer": {"block": -1}, "location": "F1",
        "target": {"kind": "logit", "class": "predicted"}, "tokens": {"drop": ["cls"]},
        "reshape": {"grid": [14, 14], "order": "row_major"}, "weighting": "gap_gradients",
        "heads": "n/a", "relu": "after_combination",
        "postprocess": {"normalize": "minmax", "eps": 1e-7, "upsample": "bilinear", "size": "input"},
        "implementation": {"library": "pytorch-grad-cam", "version": "1.5.4"},
    }],
}


def render() -> str:
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    out = ROOT / "schemas" / "camspec-1.schema.json"
    out.write_text(render(), encoding="utf-8")
    print(f"wrote {out.relative_to(ROOT)}")
