"""CAM6xx: what re-executing a camspec shows (camlint verify and camlint sweep), and what
`camlint check` can already tell about the same outcome from the text: a map-changing value left
to a default (CAM604), and a map the architecture makes degenerate (CAM602, predicted).

The verify-only rules have no lint check; camlint verify and sweep make their findings with
`finding()`, located at the spec line they concern, so every output format carries them.
"""
from __future__ import annotations

from camlint.rules import facts as F
from camlint.rules.findings import Finding
from camlint.rules.base import Hit, Rule


def _verify_only(_analysis):
    """Decided by re-executing the spec (camlint verify / sweep), never by reading it."""
    return iter(())


MAP_NOT_REPRODUCED = Rule(
    code="CAM601", name="map-not-reproduced", item=None, severity="error",
    summary="camlint verify recomputes a declared map and it differs from the reported one beyond the tolerance.",
    rationale="A reported map that the stated procedure does not produce means the paper's description, "
              "its artifact or its code differ; a reader cannot know which maps to trust.",
    bad="artifacts:\n  - {input: disc, map: maps/square.png}   # the other image's map\n"
        "tolerance: {max_abs: 0.001, pearson: 0.999}",
    good="artifacts:\n  - {input: disc, map: maps/disc.png}\ntolerance: {max_abs: 0.001, pearson: 0.999}",
    hint="Regenerate the map with the stated procedure, or correct the procedure the spec states "
         "(camlint sweep shows which reading of the description gives the reported map).",
    check=_verify_only, example_format="yaml",
)

def check_zero_gradient_location(a):
    """The map `camlint verify` would find all zero, predicted from the architecture: in the last
    block of a [CLS]-pooled model the patch tokens reach the logit only through [CLS] at F3a-F6."""
    info = a.arch
    if not (a.uses_cam and info and info.global_pool == "token" and info.family != "swin"):
        return
    point = F.point(a.values.get("location"))
    if point not in F.ZERO_GRADIENT_LOCATIONS or not F.is_last_block(a.values.get("layer"), info.depth):
        return
    if F.method(a.values.get("method")) in F.CLASS_AGNOSTIC_METHODS:   # no target: no gradient
        return
    drop = F.dropped(a.values.get("tokens")) or []
    weighting = F.canonical_single("weighting", a.values.get("weighting"))
    if "cls" not in drop and weighting not in F.ELEMENTWISE:
        return   # the [CLS] gradient enters the weights: the map is not zero
    file, line, col = a.where("location")
    yield Hit(f"in the last block of a [CLS]-pooled model, {point} reaches the output only through "
              "[CLS]: the patch-token gradients are exactly zero, so this map is identically zero",
              file, line, col)


DEGENERATE_MAP = Rule(
    code="CAM602", name="degenerate-map", item="location", severity="error",
    summary="The map is constant, all zero or not finite: recomputed by camlint verify, or predicted by "
            "camlint check (last block, F3a-F6, [CLS]-pooled classifier).",
    rationale="A constant map carries no explanation; it usually means no gradient reaches the chosen "
              "tokens or no target was set. With token pooling the last block's patch outputs never "
              "reach the logit, so their gradients are exactly zero at F3-F6 (pytorch-grad-cam's "
              "tutorial warns of this): a paper showing non-zero maps cannot have computed them this way.",
    bad="model: vit_base_patch16_224.augreg2_in21k_ft_in1k\nmethod: gradcam\nlayer: {block: -1}\n"
        "location: F6\ntokens: {drop: [cls]}   # [CLS]-pooled ViT: zero patch gradients",
    good="model: vit_base_patch16_224.augreg2_in21k_ft_in1k\nmethod: gradcam\nlayer: {block: -1}\n"
         "location: F1\ntokens: {drop: [cls]}",
    hint="Choose a location the gradient reaches (F1 of the last block, whose output feeds the last "
         "attention, or any location of an earlier block), a model with average pooling, or set a target.",
    check=check_zero_gradient_location, example_format="yaml",
)

NONDETERMINISTIC_RUN = Rule(
    code="CAM603", name="nondeterministic-run", item="implementation", severity="warning",
    summary="Two runs of the same procedure on the same input give different maps.",
    rationale="Without determinism a reported map cannot be compared exactly; the tolerance must then "
              "cover run-to-run noise, and the paper should say so.",
    bad="runtime: {device: cuda, deterministic: false}",
    good="runtime: {device: cuda, deterministic: true, seed: 0}",
    hint="Set runtime.deterministic: true (and a seed), or state a tolerance that covers the noise.",
    check=_verify_only, example_format="yaml",
)


def _defaults_of(data: dict) -> list[tuple[str, str]]:
    """(dotted key, value used) for every map-changing key under a stated key left to a default."""
    from camlint.verify.spec import defaults_used, expand_preset, procedure_from

    try:
        expanded = expand_preset(data)
        proc = procedure_from(expanded, [])
        used = defaults_used(expanded, proc)
    except Exception:  # noqa: BLE001 - a value procedure_from cannot read is CAM301's to report
        return []
    out = []
    for entry in used:
        dotted, _, value = entry.partition(" = ")
        if dotted.split(".")[0] in expanded:     # an absent key is a completeness finding (CAM1xx)
            out.append((dotted, value))
    return out


def check_value_from_default(a):
    """One finding per stated key whose map-changing parts are left to camlint's defaults."""
    for src in a.specs:
        if not isinstance(src.data, dict):
            continue
        by_parent: dict[str, list[str]] = {}
        for dotted, value in _defaults_of(src.data):
            by_parent.setdefault(dotted.split(".")[0], []).append(f"{dotted} = {value}")
        for parent, entries in by_parent.items():
            line, col = src.position((parent,)) if parent in src.data else src.position(())
            yield Hit(f"not stated, so camlint verify uses its default: {'; '.join(entries)} (other "
                      "implementations may use other defaults)", src.file, line, col)


VALUE_FROM_DEFAULT = Rule(
    code="CAM604", name="value-from-default", item=None, severity="warning",
    summary="A parameter that changes the map is left to a default (the verify report marks it too).",
    rationale="Defaults differ between implementations: with normalize: minmax and upsample: bilinear, "
              "normalising before or after upsampling changes the map by up to 0.02, and "
              "pytorch-grad-cam upsamples first. A value left open is a value a reader must guess.",
    bad="postprocess: {normalize: minmax, upsample: bilinear}",
    good="postprocess: {normalize: minmax, upsample: bilinear, order: upsample_then_normalize, eps: 1.0e-7, "
         "align_corners: false, size: input}",
    hint="State the value the paper used (the message names camlint's default).",
    check=check_value_from_default, example_format="yaml",
)

TOLERANCE_ACCEPTS_CONSTANT = Rule(
    code="CAM605", name="tolerance-accepts-constant", item=None, severity="error",
    summary="The declared tolerance also accepts a constant map, so meeting it shows nothing.",
    rationale="A comparison that any map passes cannot show that the reported map was reproduced.",
    bad="tolerance: {max_abs: 1, pearson: -1}", good="tolerance: {max_abs: 0.001, pearson: 0.999}",
    hint="Tighten the tolerance (max_abs of a few 1e-3 and pearson near 1 for float32 maps).",
    check=_verify_only, example_format="yaml",
)

OPEN_KEYS_CHANGE_MAP = Rule(
    code="CAM606", name="open-keys-change-map", item=None, severity="warning",
    summary="camlint sweep finds procedures the description admits whose maps disagree.",
    rationale="When the keys a paper leaves open admit procedures with different maps, a reader cannot "
              "rebuild the figures; the sweep shows how far apart the readings are.",
    bad="location: F1\n# target, tokens and heads left open: logit or softmax, [CLS] kept or dropped",
    good="location: F1\ntarget: {kind: logit, class: predicted}\ntokens: {drop: [cls]}\nheads: n/a",
    hint="State the open keys the message names (camlint sweep's grid shows what each choice gives).",
    check=_verify_only, example_format="yaml",
)

RULES = (MAP_NOT_REPRODUCED, DEGENERATE_MAP, NONDETERMINISTIC_RUN, VALUE_FROM_DEFAULT, TOLERANCE_ACCEPTS_CONSTANT,
         OPEN_KEYS_CHANGE_MAP)

# Rules whose findings only re-execution makes (their bad examples are run by tests/test_verify_findings.py).
VERIFY_ONLY = frozenset(r.code for r in RULES if r.check is _verify_only)
# Rules that camlint check predicts and camlint verify or sweep also reports when it runs.
ALSO_FROM_VERIFY = frozenset({DEGENERATE_MAP.code})


def finding(rule: Rule, message: str, file: str, line: int, col: int = 1, severity: str | None = None,
            hint: str | None = None) -> Finding:
    """A verify or sweep finding of a registered rule, at a line of the spec."""
    return Finding(code=rule.code, name=rule.name, item=rule.item, severity=severity or rule.severity,
                   message=message, hint=hint or rule.hint, file=file, line=max(int(line), 1), col=max(int(col), 1))
