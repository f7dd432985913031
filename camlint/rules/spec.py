"""CAM3xx: the camspec (supplement file or camspec block) against its schema."""
from __future__ import annotations

from camlint.rules.base import Rule, from_problems

SPEC_INVALID_VALUE = Rule(
    code="CAM301", name="spec-invalid-value", item=None, severity="error",
    summary="A camspec value has the wrong type, form or range for the schema.",
    rationale="A camspec is read by machines (camlint verify, other tools); a block index written "
              "as a word or a grid with three numbers cannot be executed.",
    bad="layer: {block: eleven}", good="layer: {block: 11}",
    hint="Write the value in the form the schema gives (camlint schema prints it).",
    check=from_problems("CAM301"), example_format="yaml",
)

SPEC_UNKNOWN_KEY = Rule(
    code="CAM302", name="spec-unknown-key", item=None, severity="warning",
    summary="A camspec mapping holds a key the schema does not define.",
    rationale="An unknown key is usually a typo of a known one, whose value is then silently "
              "missing; extensions belong under keys starting with x-.",
    bad="target: {kind: logit, clas: predicted}", good="target: {kind: logit, class: predicted}",
    hint="Fix the spelling, or prefix a deliberate extension with x-.",
    check=from_problems("CAM302"), example_format="yaml",
)

SPEC_NONCANONICAL_VALUE = Rule(
    code="CAM303", name="spec-noncanonical-value", item=None, severity="warning",
    summary="A camspec value is not in the schema's vocabulary but is close to a canonical value.",
    rationale="Hand-written specs say 'probability' or 'gradcampp'; camlint reads them as the "
              "closest canonical value (and counts them as evidence), but other tools may not.",
    bad="target: {kind: probability, class: predicted}", good="target: {kind: softmax, class: predicted}",
    hint="Use the canonical value named in the message.",
    check=from_problems("CAM303"), example_format="yaml",
)

SPEC_DUPLICATE_KEY = Rule(
    code="CAM304", name="spec-duplicate-key", item=None, severity="warning",
    summary="A key appears twice in the same camspec mapping; the later value wins.",
    rationale="YAML silently keeps the last value, so an earlier, perhaps correct, statement is lost.",
    bad="relu: none\nrelu: after_combination", good="relu: after_combination",
    hint="Keep one of the two values.",
    check=from_problems("CAM304"), example_format="yaml",
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
    check=from_problems("CAM305"),
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
    check=from_problems("CAM306"), example_format="yaml",
)

RULES = RULES + (UNKNOWN_PRESET,)
