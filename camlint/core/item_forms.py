"""The JSON-schema form of each checklist key's value (read by the items; written out by
tools/make_schema.py). Written as Python data so that shared pieces (the n/a marker, the canonical
vocabularies in camlint/core/vocab.py) have one definition.
"""
from __future__ import annotations

from camlint.core import vocab
from camlint.core.item import NOT_APPLICABLE_FORM as NA

def prop(title: str, description: str, schema: dict, examples: list | None = None) -> dict:
    out = {"title": title, "description": description, **schema}
    if examples is not None:
        out["examples"] = examples
    return out


def enum(title: str, description: str, values, examples=None) -> dict:
    return prop(title, description, {"type": "string", "enum": list(values)}, examples)


def key(title: str, description: str, forms: list[dict], examples: list) -> dict:
    """A checklist key: one of its forms, or n/a."""
    return {"title": title, "description": description, "anyOf": [*forms, NA], "examples": examples}


sha256 = {"type": "string", "pattern": "^[0-9a-fA-F]{64}$"}
relative_path = {"type": "string", "minLength": 1}

model = key(
    "Model", "Architecture (a timm name), constructor arguments, exact weights, input size and "
    "preprocessing: everything needed to rebuild the network and its input.",
    [{
        "type": "object",
        "properties": {
            "arch": prop("Architecture", "timm architecture name (timm.create_model).",
                         {"type": "string", "minLength": 1}, ["vit_base_patch16_224"]),
            "kwargs": prop("Constructor arguments", "Extra keyword arguments for timm.create_model.",
                           {"type": "object"}, [{"global_pool": "avg", "num_classes": 4}]),
            "weights": prop(
                "Weights", "A named release (timm tag or hub id), a local file with its sha256, or "
                "a seeded random initialisation (torch.manual_seed(seed) then create_model).",
                {"anyOf": [
                    {"type": "string", "minLength": 1},
                    {"type": "object", "title": "Local weights file",
                     "description": "A safetensors file or a torch checkpoint loaded with weights_only=True.",
                     "properties": {
                         "file": prop("File", "Path relative to the spec's folder.", relative_path),
                         "sha256": prop("SHA-256", "Hex digest of the file.", sha256),
                         "release": prop("Release", "Name of the release these weights come from.",
                                         {"type": "string"}),
                     }, "required": ["file"], "additionalProperties": False},
                    {"type": "object", "title": "Seeded random initialisation",
                     "description": "torch.manual_seed(seed) immediately followed by timm.create_model(arch, pretrained=False, **kwargs).",
                     "properties": {"random_init": prop(
                         "Random init", "Seed of the initialisation.",
                         {"type": "object", "properties": {"seed": prop("Seed", "torch.manual_seed value.", {"type": "integer"})},
                          "required": ["seed"], "additionalProperties": False})},
                     "required": ["random_init"], "additionalProperties": False},
                    {"type": "object", "title": "Named release with fine-tuning",
                     "description": "A public release plus the fine-tuning applied to it.",
                     "properties": {
                         "release": prop("Release", "Public starting weights, e.g. a timm tag.", {"type": "string"}),
                         "finetuned": prop("Fine-tuning", "Data or checkpoint of the fine-tuning.", {"type": "string"}),
                         "sha256": prop("SHA-256", "Hex digest of the released checkpoint.", sha256),
                     }, "required": ["release"], "additionalProperties": False},
                ]},
                ["augreg2_in21k_ft_in1k", {"file": "weights/model.safetensors", "sha256": "0" * 64},
                 {"random_init": {"seed": 0}}]),
            "input_size": prop("Input size", "Input tensor size [channels, height, width].",
                               {"type": "array", "items": {"type": "integer", "minimum": 1},
                                "minItems": 3, "maxItems": 3}, [[3, 224, 224]]),
            "preprocessing": prop(
                "Preprocessing", "How an image becomes the input tensor; defaults come from the "
                "model's pretrained config.",
                {"type": "object", "properties": {
                    "resize": prop("Resize", "Shorter side (int) or exact [height, width] before cropping.",
                                   {"anyOf": [{"type": "integer", "minimum": 1},
                                              {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}]}),
                    "crop": prop("Centre crop", "Centre crop size (int) or [height, width].",
                                 {"anyOf": [{"type": "integer", "minimum": 1},
                                            {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}]}),
                    "mean": prop("Mean", "Per-channel mean subtracted after scaling to [0, 1].",
                                 {"type": "array", "items": {"type": "number"}, "minItems": 1}, [[0.5, 0.5, 0.5]]),
                    "std": prop("Std", "Per-channel standard deviation.",
                                {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0}, "minItems": 1}),
                    "interpolation": enum("Interpolation", "Resampling filter of the resize.",
                                          vocab.INTERPOLATIONS),
                }, "additionalProperties": False}),
        },
        "required": ["arch"],
        "additionalProperties": False,
    }],
    [{"arch": "vit_base_patch16_224", "weights": "augreg2_in21k_ft_in1k"}],
)

method = key(
    "Method", "Which CAM variant, optionally with the preset of a published adaptation.",
    [{"type": "string", "enum": list(vocab.METHODS)},
     {"type": "object", "properties": {
         "name": enum("Name", "Canonical method name.", vocab.METHODS),
         "preset": prop("Preset", "Name of a published adaptation (camlint presets) that fixes "
                        "further keys.", {"type": "string", "minLength": 1}, ["pytorch-grad-cam-vit"]),
         "description": prop("Description", "What the method computes, required for 'other'.",
                             {"type": "string", "minLength": 1}),
     }, "required": ["name"], "additionalProperties": False,
      "if": {"properties": {"name": {"const": "other"}}},
      "then": {"required": ["name", "description"]}}],
    ["gradcam", {"name": "gradcam", "preset": "pytorch-grad-cam-vit"}],
)

block_index = prop("Block", "Block index, 0-based; negative counts from the end (-1 is the last).",
                   {"type": "integer"}, [11, -1])
layer_extra = {
    "encoder": enum("Encoder", "Which stack of a multi-encoder model (default: vision).",
                    ("vision", "text", "fusion")),
    "indexing": enum("Indexing", "How the paper counts blocks (the spec itself is 0-based).",
                     ("zero_based", "one_based")),
}
layer = key(
    "Layer", "Which transformer block(s) the map is taken from, and how several are combined.",
    [{"type": "object", "title": "Single block", "properties": {"block": block_index, **layer_extra},
      "required": ["block"], "additionalProperties": False},
     {"type": "object", "title": "Several blocks", "properties": {
         "blocks": prop("Blocks", "Block indices (0-based, negative from the end), or 'all'.",
                        {"anyOf": [{"type": "array", "items": {"type": "integer"}, "minItems": 1},
                                   {"const": "all"}]}, [[9, 10, 11]]),
         "combine": enum("Combination", "How the per-block maps are combined.", vocab.LAYER_COMBINE),
         **layer_extra,
     }, "required": ["blocks", "combine"], "additionalProperties": False},
     {"type": "object", "title": "Hierarchical stage (Swin)", "properties": {
         "stage": prop("Stage", "Stage index, 1-based as in papers (1..4 for Swin-T).",
                       {"type": "integer", "minimum": 1}),
         "block": block_index, **layer_extra,
     }, "required": ["stage", "block"], "additionalProperties": False}],
    [{"block": -1}, {"blocks": [9, 10, 11], "combine": "mean"}, {"stage": 4, "block": -1}],
)

location = key(
    "Location", "Where inside the block the feature map is taken: F1 norm1 output, F2 softmax "
    "attention, F3a attention output before the projection, F3b after it, F4 norm2 output, F5 MLP "
    "output, F6 block output, mid_residual (after the attention residual), cross_attention. A bare "
    "F3 is accepted but ambiguous.",
    [{"type": "string", "enum": list(vocab.LOCATIONS)}],
    ["F1", "F2", "cross_attention"],
)

target = key(
    "Target", "The scalar whose gradient is taken, and for which class.",
    [{"type": "object", "properties": {
        "kind": enum("Kind", "logit (pre-softmax), softmax probability, log_softmax, similarity "
                     "(e.g. CLIP cosine), itm (image-text matching score) or a loss.", vocab.TARGET_KINDS),
        "class": prop("Class", "A class index, 'predicted', 'ground_truth', or a label name.",
                      {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string", "minLength": 1}]},
                      ["predicted", 243]),
        "head": prop("Output head", "Which output head gives the score when there are several "
                     "(e.g. cls, dist, itm).", {"type": "string", "minLength": 1}, ["itm"]),
    }, "required": ["kind", "class"], "additionalProperties": False}],
    [{"kind": "logit", "class": "predicted"}],
)

tokens = key(
    "Tokens", "What happens to the non-spatial (prefix) tokens: which are dropped before the "
    "reshape (an empty list keeps them), and where gradients are read.",
    [{"type": "object", "properties": {
        "drop": prop("Dropped tokens", "Prefix tokens removed before reshaping; [] keeps all.",
                     {"type": "array", "items": {"type": "string", "enum": list(vocab.PREFIX_TOKENS)},
                      "uniqueItems": True}, [["cls"], ["cls", "dist"]]),
        "gradients_from": enum("Gradients from", "patch_tokens (default) or cls (the [CLS] "
                               "gradient serves as channel weights).", vocab.GRADIENT_SOURCES),
    }, "required": ["drop"], "additionalProperties": False}],
    [{"drop": ["cls"]}, {"drop": []}],
)

reshape = key(
    "Reshape", "How the token sequence becomes a 2-D grid: rows x cols and the token order.",
    [{"type": "object", "properties": {
        "grid": prop("Grid", "Rows and columns of the patch grid (224 px / patch 16 = [14, 14]), or "
                     "'auto' to read it from the patch embedding.",
                     {"anyOf": [{"type": "array", "items": {"type": "integer", "minimum": 1},
                                 "minItems": 2, "maxItems": 2}, {"const": "auto"}]}, [[14, 14], "auto"]),
        "order": enum("Order", "Token order of the patch sequence (timm: row_major).", vocab.ORDERS),
    }, "required": ["grid"], "additionalProperties": False}],
    [{"grid": [14, 14], "order": "row_major"}],
)

weighting = key(
    "Weighting", "How channels are combined: gap_gradients (mean gradient per channel, Grad-CAM), "
    "cls_gradient (gradient at [CLS]), elementwise (gradient x activation), or the rule of a named "
    "variant.", [{"type": "string", "enum": list(vocab.WEIGHTINGS)}], ["gap_gradients"])

heads = key(
    "Heads", "For attention locations (F2, cross_attention): how heads are combined and whether "
    "before or after the ReLU.",
    [{"type": "string", "enum": list(vocab.HEAD_AGGREGATES)},
     {"type": "object", "properties": {
        "aggregate": enum("Aggregate", "mean, max or sum over heads, or heads as channels.", vocab.HEAD_AGGREGATES),
        "order": enum("Order", "Head aggregation before or after the ReLU.", vocab.HEAD_ORDERS),
    }, "required": ["aggregate"], "additionalProperties": False}],
    [{"aggregate": "mean", "order": "after_relu"}, "n/a"],
)

relu_value = {"type": "string", "enum": list(vocab.RELU_PLACEMENTS)}
relu = key(
    "ReLU", "Where the rectification is applied: after the weighted combination, on the gradients, "
    "on the gradient x activation products, or none (signed map). A list when several apply.",
    [relu_value, {"type": "array", "items": relu_value, "minItems": 1, "uniqueItems": True}],
    ["after_combination", ["on_gradients", "after_combination"]],
)

postprocess = key(
    "Post-processing", "Normalisation and upsampling of the low-resolution map.",
    [{"type": "object", "properties": {
        "normalize": enum("Normalisation", "minmax ((m-min)/(eps+max-min)), max, max_abs or none.",
                          vocab.NORMALIZATIONS),
        "eps": prop("Epsilon", "eps of the normalisation (pytorch-grad-cam: 1e-7).",
                    {"type": "number", "minimum": 0}, [1e-7]),
        "upsample": enum("Upsampling", "Interpolation to the output size.", vocab.UPSAMPLERS),
        "align_corners": prop("align_corners", "torch interpolate align_corners.", {"type": "boolean"}),
        "size": prop("Size", "Output [height, width], or 'input' for the input size.",
                     {"anyOf": [{"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2, "maxItems": 2},
                                {"const": "input"}]}, [[224, 224], "input"]),
        "order": enum("Order", "normalize_then_upsample, upsample_then_normalize, or "
                      "pytorch-grad-cam (normalise, upsample, normalise again).", vocab.POSTPROCESS_ORDERS),
    }, "required": ["normalize", "upsample"], "additionalProperties": False}],
    [{"normalize": "minmax", "eps": 1e-7, "upsample": "bilinear", "size": "input"}],
)

implementation = key(
    "Implementation", "Code used to compute the maps, with a version or a commit.",
    [{"type": "object", "properties": {
        "library": prop("Library", "Package or repository name.", {"type": "string", "minLength": 1},
                        ["pytorch-grad-cam"]),
        "version": prop("Version", "Released version.", {"type": ["string", "number"]}, ["1.5.4"]),
        "commit": prop("Commit", "Commit hash or tag of the code used.", {"type": "string", "minLength": 4}),
        "url": prop("URL", "Where the code is published.", {"type": "string"}),
    }, "required": ["library"], "additionalProperties": False,
      "anyOf": [{"required": ["version"]}, {"required": ["commit"]}]}],
    [{"library": "pytorch-grad-cam", "version": "1.5.4"}, {"library": "camlint", "version": "0.1.0"}],
)
