"""CAM2xx: statements that contradict each other or the architecture."""
from __future__ import annotations

import re

from camlint.core import items
from camlint.core.item import Item
from camlint.rules import completeness
from camlint.rules import facts as F
from camlint.rules.base import Hit, Rule
from camlint.rules.counting import count_pinned
from camlint.rules.keptgrid import kept_then_reshaped_hits
from camlint.rules.prefix import kept_prefix
from camlint.rules.rectified import clipped_against_none
from camlint.rules.specwords import compact

_PREFIX_NAMES = {"cls": "[CLS]", "dist": "distillation", "registers": "register"}


def check_prefix_tokens_in_grid(a):
    g = F.grid(a.values.get("reshape"))
    kept = kept_prefix(a)
    if not (a.uses_cam and g and kept):
        yield from kept_then_reshaped_hits(a, _PREFIX_NAMES)
        return
    cells = g[0] * g[1]
    names = ", ".join(_PREFIX_NAMES[k] for k in kept)
    file, line, col = a.where("tokens")
    yield Hit(f"the {names} token{'s are' if sum(kept.values()) > 1 else ' is'} kept, yet the tokens are "
              f"reshaped to a {g[0]} x {g[1]} grid: {cells + sum(kept.values())} tokens do not fill "
              f"{g[0]} x {g[1]} = {cells} cells", file, line, col)


PREFIX_TOKENS_IN_GRID = Rule(
    code="CAM201", name="prefix-tokens-in-grid", item="tokens", severity="error",
    summary="Non-patch tokens are kept, yet the sequence is reshaped to a patch grid.",
    rationale="A ViT-B/16 at 224 px has 196 patch tokens plus [CLS] (DeiT-distilled: plus a "
              "distillation token; register models: plus registers). 197 tokens cannot be "
              "reshaped to 14 x 14, so the paper must have done something it does not say. The keep and the "
              "reshape are read where they stand, also in neighbouring sentences of one paragraph.",
    bad="We do not discard the class token; the 197 token activations are reshaped to $14\\times14$ maps.",
    good="The class token is discarded and the 196 patch tokens are reshaped to $14\\times14$ maps.",
    hint="Say which tokens are dropped before the reshape ([CLS], distillation, registers), or how "
         "the kept ones are placed (e.g. [CLS] row of the attention read out separately).",
    check=check_prefix_tokens_in_grid,
)


def _expected_grid(a) -> int | None:
    info = a.arch
    if info is None or not info.size_known or not info.patch or F.weights_disagree(a):
        return None
    if info.family == "swin":
        layer = a.values.get("layer")
        stage = layer.get("stage") if isinstance(layer, dict) and isinstance(layer.get("stage"), int) else 4
        return info.img_size // (info.patch * 2 ** (min(max(stage, 1), 4) - 1))
    return info.img_size // info.patch


def check_grid_matches_input(a):
    g = F.grid(a.values.get("reshape"))
    want = _expected_grid(a)
    if not (a.uses_cam and g and want) or g == (want, want):
        return
    info = a.arch
    file, line, col = a.where("reshape")
    how = (f"{info.img_size} px / patch {info.patch}" if info.family != "swin"
           else f"{info.img_size} px / patch {info.patch}, merged per stage")
    yield Hit(f"the grid is {g[0]} x {g[1]}, but {info.name} at {how} gives {want} x {want} tokens",
              file, line, col)


GRID_DOES_NOT_MATCH_INPUT = Rule(
    code="CAM202", name="grid-does-not-match-input", item="reshape", severity="error",
    summary="The stated grid is not input size / patch size for the stated model and input.",
    rationale="The grid is fixed by the architecture: 224/16 = 14, 384/16 = 24, Swin's last stage "
              "is input/32. A grid copied from a tutorial (14 x 14) for another resolution cannot "
              "hold the model's tokens.",
    bad="Our ViT-B/16 operates at $384\\times384$ pixels; the patch tokens are reshaped to a $14\\times14$ grid.",
    good="Our ViT-B/16 operates at $384\\times384$ pixels; the patch tokens are reshaped to a $24\\times24$ grid.",
    hint="Give the grid of your input size and patch size (e.g. 384 px / patch 16 = 24 x 24), or "
         "correct the stated input size.",
    check=check_grid_matches_input,
)


def check_block_beyond_depth(a):
    info, layer = a.arch, a.values.get("layer")
    if not (a.uses_cam and info and isinstance(layer, dict)):
        return
    file, line, col = a.where("layer")
    if info.family == "swin" and isinstance(layer.get("stage"), int):
        n = len(info.stage_depths)
        if not 1 <= layer["stage"] <= n:
            yield Hit(f"stage {layer['stage']} does not exist: {info.name} has {n} stages", file, line, col)
        return
    for b in F.blocks(layer, info.depth) or []:
        if not 0 <= b < info.depth and not _counted_from_one(a, b, info.depth):
            yield Hit(f"block {b} does not exist: {info.name} has {info.depth} blocks (0..{info.depth - 1}, "
                      f"or -1 for the last)", file, line, col)
            return


def _counted_from_one(a, b: int, depth: int) -> bool:
    """"block 12 of 12", "block 12 (last of twelve)": the text's own words say the count starts
    at one, so block `depth` is the last one, not one past it."""
    if a.prose is None or b != depth or a.prose.values.get("layer") != a.values.get("layer"):
        return False                                 # a camspec's index is code: counted from zero
    return any(m.data.get("counted") and F.blocks(m.value, depth) == [b] and count_pinned(a, m, depth)
               for m in a.prose.mentions.get("layer", []))


BLOCK_BEYOND_DEPTH = Rule(
    code="CAM203", name="block-beyond-depth", item="layer", severity="error",
    summary="The stated block (or stage) does not exist in the stated model.",
    rationale="ViT-B has 12 blocks (0..11), ViT-L 24, Swin-T 4 stages; an index beyond the depth is "
              "usually a 1-based count read as 0-based, or a different model than the one named.",
    bad="We use a ViT-B/16 and take Grad-CAM at block 12 of the encoder.",
    good="We use a ViT-B/16 and take Grad-CAM at block 11 (the last, counted from zero).",
    hint="Give the block counted from zero (the last of 12 is 11, or -1), and say how you count.",
    check=check_block_beyond_depth,
)


def check_cls_in_model_without_cls(a):
    name = F.no_cls_name(a)
    if not (a.uses_cam and name):
        return
    drop = F.dropped(a.values.get("tokens"))
    said_kept = a.prose is not None and any(m.value == "kept" for m in a.prose.mentions.get("tokens", []))
    if (drop and "cls" in drop) or said_kept:
        file, line, col = a.where("tokens")
        yield Hit(f"{name} has no [CLS] token, yet the text says what happens to one", file, line, col)


CLS_IN_MODEL_WITHOUT_CLS = Rule(
    code="CAM204", name="cls-token-in-model-without-one", item="tokens", severity="error",
    summary="[CLS] handling is described for a model that has no [CLS] token (Swin, GAP models).",
    rationale="Swin and average-pooled ViTs have only spatial tokens; dropping a 'class token' "
              "there removes a patch, or the description was copied from another model.",
    bad="We use a Swin-T (\\texttt{swin\\_tiny\\_patch4\\_window7\\_224}); the classification token is "
        "discarded before reshaping the 49 tokens to $7\\times7$.",
    good="We use a Swin-T (\\texttt{swin\\_tiny\\_patch4\\_window7\\_224}); its 49 last-stage tokens "
         "are already a $7\\times7$ map.",
    hint="Remove the [CLS] statement, or name the model that has one.",
    check=check_cls_in_model_without_cls,
)


def _heads_combination_unstated(a) -> bool:
    """No word on heads: none at all, or only an order read from sentences that never name the
    heads ("clamped at zero after the product"); "the head maps are combined" is CAM109's."""
    heads = a.values.get("heads")
    if a.statuses.get("heads") == "missing":
        return True
    return a.statuses.get("heads") == "partial" and isinstance(heads, dict) and not heads.get("aggregate") \
        and not any(src.data.get("heads") is not None for src in a.specs) and a.prose is not None \
        and not any(_HEAD_WORD.search(m.sentence.low) for m in a.prose.mentions.get("heads", []))


_HEAD_WORD = re.compile(r"\bheads?\b|\bhead-?wise\b|\bper-?head\b")


def check_attention_location_without_heads(a):
    if a.uses_cam and F.point(a.values.get("location")) in F.ATTENTION and _heads_combination_unstated(a):
        file, line, col = a.where("location")
        yield Hit("the map is built from attention, which exists per head, but nothing says how the heads "
                  "are combined (mean, max, sum, heads as channels)", file, line, col)


ATTENTION_LOCATION_WITHOUT_HEADS = Rule(
    code="CAM205", name="attention-location-without-heads", item="heads", severity="error",
    summary="An attention-matrix location (F2, cross-attention) with no rule for combining heads.",
    rationale="Attention is one matrix per head; the mean, the max, heads as channels, before or "
              "after the ReLU, give different maps.",
    bad="We apply Grad-CAM to the attention matrices of the last block.",
    good="We apply Grad-CAM to the attention matrices of the last block and average over the 12 heads.",
    hint="Say how heads are combined (mean, max, sum, heads as channels) and whether before or "
         "after the ReLU.",
    check=check_attention_location_without_heads,
    # heads is missing only under an attention location: this rule says so
    supersedes=tuple(r for r in completeness.RULES if r.item == "heads"),
)


# A sentence that sets the paper's method against another ("improves ... over head-averaged
# attention", "than", "compared with") speaks of the other method's heads, not its own.
_VERSUS = re.compile(r"\b(?:improv\w*|outperform\w*|gains?|beats?|surpass\w*)\b[^;]{0,80}?\bover\b|\bthan\b"
                     r"|\bcompar\w*|\bbaselines?\b|\bagainst\b|\bversus\b|\bvs\.?(?!\w)")
_OWN_ROLES = ("method", "appendix", "experiments", "other")


def _heads_stated(a) -> bool:
    """The camspec, or an own sentence of the method or experiments that is not a comparison,
    states how the heads are combined."""
    if any(F.canonical_single("heads", src.data.get("heads")) for src in a.specs):
        return True
    return a.prose is not None and any(
        not m.vague and m.sentence.section.role in _OWN_ROLES and a.prose.scope.attribution.own(m.sentence)
        and not _VERSUS.search(m.sentence.low) and not _other_method(m.sentence.low)
        for m in a.prose.mentions.get("heads", []))


def _other_method(low: str) -> bool:
    """"Rollout ... with heads averaged": the heads of another explanation method, in a sentence
    that names no CAM method."""
    from camlint.extract.vocab import vocabulary

    v = vocabulary()
    return bool(v.phrases["other_explanation"].search(low)) and not v.cam_triggers.search(low)


def check_heads_for_non_attention(a):
    heads, where = a.values.get("heads"), F.point(a.values.get("location"))
    if a.uses_cam and F.canonical_single("heads", heads) and where and where not in F.ATTENTION \
            and _heads_stated(a):
        file, line, col = a.where("heads")
        yield Hit(f"a head aggregation is stated, but the location {where} is not an attention matrix",
                  file, line, col)


HEADS_FOR_NON_ATTENTION = Rule(
    code="CAM206", name="heads-for-non-attention-location", item="heads", severity="warning",
    summary="A head aggregation is stated while the location is not an attention matrix.",
    rationale="Only F2 and cross-attention have heads to combine; at F1 or F6 the heads are already "
              "concatenated into channels, so the statement suggests a different location was used.",
    bad="We take the norm1 output of the last block and average over the 12 heads.",
    good="We take the norm1 output of the last block.",
    hint="Drop the head statement, or state the attention location it belongs to.",
    check=check_heads_for_non_attention,
)


# "the post-softmax attention probabilities", "pre-softmax attention scores", "probabilities of
# the attention": the softmax of the attention (a location, F2), not the differentiated score
_ATTENTION_BEFORE = re.compile(r"\b(?:self-|cross-)?attention(?:[- ](?:matri(?:x|ces)|maps?|heads?))?"
                               r"(?:\s+[\w-]+)?\s*$")
_ATTENTION_AFTER = re.compile(r"^\s*(?:[\w-]+\s+){0,1}(?:of (?:the |each |every )?(?:[\w-]+ )?)?"
                              r"(?:self-|cross-)?attention\b")


def _of_attention(m) -> bool:
    low = m.sentence.low
    return bool(_ATTENTION_BEFORE.search(low[max(0, m.start - 40):m.start])
                or _ATTENTION_AFTER.match(low[m.end:m.end + 40]))


def _prose_target(a, slot: str):
    """Target mentions, one statement per sentence: a sentence that names two kinds contrasts
    them ("the logit, not the probability"), one that names two classes is an apposition; kinds
    count only where the sentence states what is differentiated."""
    if a.prose is None:
        return []
    from camlint.extract.vocab import vocabulary

    cue = vocabulary().target_statement
    found = [m for m in a.prose.mentions.get("target", []) if m.slot == slot and not m.vague
             and not (slot == "kind" and _of_attention(m))]
    per_sentence: dict[int, set] = {}
    for m in found:
        per_sentence.setdefault(id(m.sentence), set()).add(m.value)
    single = [m for m in found if len(per_sentence[id(m.sentence)]) == 1]   # "X class, the positive class"
    if slot == "class":     # strength 0: a class read from a logit's modifier only ("the intent logit")
        return [m for m in single if not _task_prediction(m, cue) and m.strength > 0]
    return single if slot != "kind" else [m for m in single if cue.search(m.sentence.low)]


_PREDICTS = re.compile(r"\bpredict(?:s|ed)?\b")
_CLASS_WORD = re.compile(r"\b(?:class(?:es)?|labels?|categor(?:y|ies))\b")


def _task_prediction(m, cue) -> bool:
    """"A Swin classifier predicts susceptibility from EBSD maps": the model's task, not the
    class a map is computed for (the sentence names no class, target or gradient)."""
    low = m.sentence.low
    return bool(_PREDICTS.search(m.text.lower())) and not _CLASS_WORD.search(low) and not cue.search(low)


def check_conflicting_target_kind(a):
    mentions = [(F.kind({"kind": m.value}), m) for m in _prose_target(a, "kind")]
    for src in a.specs:
        k = F.kind(src.data.get("target"))
        if k:
            mentions.append((k, None))
    seen = {}
    for k, m in mentions:
        for other, om in seen.items():
            if k and F.kinds_conflict(k, other):
                where = m or om
                file, line, col = where.position() if where else a.where("target")
                yield Hit(f"the target is described as a {other} in one place and as a {k} in another",
                          file, line, col)
                return
        seen.setdefault(k, m)


CONFLICTING_TARGET_KIND = Rule(
    code="CAM208", name="conflicting-target-kind", item="target", severity="error",
    summary="The differentiated score is called a logit in one place and a probability in another.",
    rationale="The softmax couples all classes: gradients of a logit and of a probability give "
              "different maps, so a reader cannot tell which one the figures show.",
    bad="The gradient of the raw logit of the predicted class is used. Maps show the gradient of "
        "the softmax probability of the predicted class.",
    good="The gradient of the raw logit of the predicted class is used. Maps show the gradient of "
         "that logit.",
    hint="Use one target throughout, or say which figure uses which.",
    check=check_conflicting_target_kind,
)


def check_conflicting_target_class(a):
    classes = [(m.value, m) for m in _prose_target(a, "class")]
    first = {}
    for value, m in classes:
        for other, om in first.items():
            if value != other and "fixed class" not in (value, other):   # "a fixed class" names none
                file, line, col = m.position()
                o_file, o_line, _ = om.position()
                yield Hit(f"the map is for the {_name(value)} class here but for the {_name(other)} class at "
                          f"{o_file}:{o_line}", file, line, col)
                return
        first.setdefault(value, m)


def _name(value: str) -> str:
    return {"ground_truth": "ground-truth", "predicted": "predicted"}.get(value, f"'{value}'")


CONFLICTING_TARGET_CLASS = Rule(
    code="CAM209", name="conflicting-target-class", item="target", severity="warning",
    summary="The class of the target differs between statements (predicted vs ground truth).",
    rationale="On misclassified images the predicted and the true class give different maps; a "
              "figure that shows one while the method states the other misleads.",
    bad="The target is the logit of the ground-truth class. Figure 2 shows maps for the predicted class.",
    good="The target is the logit of the ground-truth class. Figure 2 shows these maps.",
    hint="State the class once (predicted, ground truth, or a fixed class) and keep figures consistent.",
    check=check_conflicting_target_class,
)


def _comparable(item: Item, value, depth):
    """The item's comparable form of a value; words are first read into the structure they pin down."""
    if not F.is_concrete(value):
        return None
    if isinstance(value, str) and item.key != "method":
        from camlint.core import vocab
        from camlint.extract.freetext import structured

        canon = vocab.canonical(item.words or "", value)
        if not canon.exact:     # words, not a canonical value: compare what the words pin down
            value = structured(item.key, value) or compact(item.key, value)
            if value is None:
                return None
    return item.compare(value, depth)


def check_prose_contradicts_spec(a):
    if a.prose is None or not a.specs or not a.uses_cam:
        return
    yield from clipped_against_none(a)
    depth = a.arch.depth if a.arch else None
    for src in a.specs:
        for item in items.items():
            key = item.key
            if item.compare is None or key not in src.data:
                continue
            if key == "layer" and F.blocks_compared(a):
                continue        # CAM211 weighs each statement of the block against the camspec
            prose = _comparable(item, a.prose.values.get(key), depth)
            spec = _comparable(item, src.data.get(key), depth)
            if prose is not None and spec is not None and item.differs(prose, spec):
                ev = a.prose.evidence.get(key) or []
                file, line, col = (ev[0].file, ev[0].line, ev[0].col) if ev else a.anchor
                s_line, _ = src.position((key,))
                yield Hit(f"{key}: the text says {_show(a.prose.values.get(key))}, the camspec at "
                          f"{src.file}:{s_line} says {_show(src.data.get(key))}", file, line, col)


def _show(value) -> str:
    from camlint.core.display import short_value

    return short_value(value, 50)


PROSE_CONTRADICTS_SPEC = Rule(
    code="CAM210", name="prose-contradicts-spec", item=None, severity="error",
    summary="The manuscript's text and its camspec (block, linked file or --spec) disagree on a key.",
    rationale="The camspec is what camlint verify executes; if the prose says something else, the "
              "paper describes two procedures and a reader cannot know which made the figures.",
    bad="We take the output of the LayerNorm before the attention (F1).\n"
        "\\begin{camspec}\nlocation: F6\n\\end{camspec}",
    good="We take the output of the LayerNorm before the attention (F1).\n"
         "\\begin{camspec}\nlocation: F1\n\\end{camspec}",
    hint="Make the text and the camspec say the same, value by value.",
    check=check_prose_contradicts_spec,
)

RULES = (PREFIX_TOKENS_IN_GRID, GRID_DOES_NOT_MATCH_INPUT, BLOCK_BEYOND_DEPTH, CLS_IN_MODEL_WITHOUT_CLS,
         ATTENTION_LOCATION_WITHOUT_HEADS, HEADS_FOR_NON_ATTENTION,
         CONFLICTING_TARGET_KIND, CONFLICTING_TARGET_CLASS, PROSE_CONTRADICTS_SPEC)
