"""CAM3xx: the camspec (supplement file or camspec block) against its schema."""
from __future__ import annotations

from camlint.rules.base import Hit, Rule

SPEC_INVALID_VALUE = Rule(
    code="CAM301", name="spec-invalid-value", item=None, severity="error",
    summary="A camspec value has the wrong type, form or range for the schema.",
    rationale="A camspec is read by machines (camlint verify, other tools); a block index written "
              "as a word or a grid with three numbers cannot be executed.",
    bad="layer: {block: eleven}", good="layer: {block: 11}",
    hint="Write the value in the form the schema gives (camlint schema prints it).",
    example_format="yaml",
)

SPEC_UNKNOWN_KEY = Rule(
    code="CAM302", name="spec-unknown-key", item=None, severity="warning",
    summary="A camspec mapping holds a key the schema does not define.",
    rationale="An unknown key is usually a typo of a known one, whose value is then silently "
              "missing; extensions belong under keys starting with x-.",
    bad="target: {kind: logit, clas: predicted}", good="target: {kind: logit, class: predicted}",
    hint="Fix the spelling, or prefix a deliberate extension with x-.",
    example_format="yaml",
)

SPEC_NONCANONICAL_VALUE = Rule(
    code="CAM303", name="spec-noncanonical-value", item=None, severity="warning",
    summary="A camspec value is not in the schema's vocabulary but is close to a canonical value.",
    rationale="Hand-written specs say 'probability' or 'gradcampp'; camlint reads them as the "
              "closest canonical value (and counts them as evidence), but other tools may not.",
    bad="target: {kind: probability, class: predicted}", good="target: {kind: softmax, class: predicted}",
    hint="Use the canonical value named in the message.",
    example_format="yaml",
)

SPEC_DUPLICATE_KEY = Rule(
    code="CAM304", name="spec-duplicate-key", item=None, severity="warning",
    summary="A key appears twice in the same camspec mapping; the later value wins.",
    rationale="YAML silently keeps the last value, so an earlier, perhaps correct, statement is lost.",
    bad="relu: none\nrelu: after_combination", good="relu: after_combination",
    hint="Keep one of the two values.",
    example_format="yaml",
)

RULES = (SPEC_INVALID_VALUE, SPEC_UNKNOWN_KEY, SPEC_NONCANONICAL_VALUE, SPEC_DUPLICATE_KEY)

CAMSPEC_UNREADABLE = Rule(
    code="CAM305", name="camspec-unreadable", item=None, severity="error",
    summary="A camspec block in the manuscript (or a file it links) is not readable YAML.",
    rationale="The machine-readable spec is the most precise statement a paper makes; when it "
              "cannot be read, none of its values count and the prose alone is judged.",
    bad="\\begin{camspec}\nlayer: {block: 11\n\\end{camspec}",
    good="\\begin{camspec}\nlayer: {block: 11}\n\\end{camspec}",
    hint="Fix the YAML at the reported line (camlint check on the block's content shows the error).",
)

RULES = RULES + (CAMSPEC_UNREADABLE,)

UNKNOWN_PRESET = Rule(
    code="CAM306", name="unknown-preset", item="method", severity="error",
    summary="A camspec names a preset that camlint does not know.",
    rationale="A preset stands for a published adaptation and fixes several keys at once; an "
              "unknown name fixes nothing, so those keys are judged as written.",
    bad="method: {name: gradcam, preset: pytorch-gradcam-vit}",
    good="method: {name: gradcam, preset: pytorch-grad-cam-vit}",
    hint="Use a name from camlint presets, or spell out every key instead.",
    example_format="yaml",
)

RULES = RULES + (UNKNOWN_PRESET,)


def _model_of(src) -> dict | None:
    model = src.data.get("model")
    return model if isinstance(model, dict) else None


def check_model_kwargs(a):
    from camlint.verify.modelargs import kwargs_problems

    for src in a.specs:
        model = _model_of(src)
        if model is None or "kwargs" not in model:
            continue
        for path, message in kwargs_problems(model["kwargs"]):
            line, col = src.position(("model", "kwargs") + path)
            yield Hit(message, src.file, line, col)


MODEL_KWARGS_NOT_ALLOWED = Rule(
    code="CAM307", name="model-kwargs-not-allowed", item="model", severity="error",
    summary="model.kwargs holds a keyword that is not an architecture keyword, or a value out of range.",
    rationale="Keywords such as checkpoint_path, cache_dir or pretrained_cfg_overlay make timm read "
              "or write files of the spec's choosing, bypassing the folder rule and the sha256 check "
              "while the report still names the declared weights; only the architecture itself may "
              "be configured (img_size, num_classes, drop rates, global_pool, ...).",
    bad="model: {arch: vit_tiny_patch16_224, kwargs: {checkpoint_path: /tmp/other.pth}}",
    good="model: {arch: vit_tiny_patch16_224, kwargs: {num_classes: 4, global_pool: avg}}",
    hint="Keep architecture keywords only; declare weights as model.weights: {file: ..., sha256: ...}.",
    check=check_model_kwargs, example_format="yaml",
)


def check_model_arch(a):
    from camlint.verify.modelargs import arch_problem

    for src in a.specs:
        model = _model_of(src)
        if model is None or not isinstance(model.get("arch"), str):
            continue   # a missing or non-string arch is a schema problem (CAM301) or CAM101
        problem = arch_problem(model["arch"])
        if problem:
            line, col = src.position(("model", "arch"))
            yield Hit(problem, src.file, line, col)


ARCHITECTURE_NOT_ALLOWED = Rule(
    code="CAM308", name="architecture-not-allowed", item="model", severity="error",
    summary="model.arch is not a plain timm architecture name (a hf-hub:, local-dir: or path source).",
    rationale="A prefixed name makes timm read a folder outside the paper's or go to the network; "
              "camlint builds the named architecture only and takes weights from model.weights.",
    bad="model: {arch: 'hf-hub:timm/vit_tiny_patch16_224.augreg_in21k'}",
    good="model: {arch: vit_tiny_patch16_224.augreg_in21k}",
    hint="Name the timm architecture (timm.list_models()) and ship the weights file with its sha256.",
    check=check_model_arch, example_format="yaml",
)

RULES = RULES + (MODEL_KWARGS_NOT_ALLOWED, ARCHITECTURE_NOT_ALLOWED)
