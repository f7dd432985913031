"""Evidence on whether a CAM method is applied, beyond its name: is the mention negated, and,
where no model is named near it, what kind of model its section describes.

Fresh manuscripts name the method in a sentence without the model ("Operators see a Grad-CAM
overlay", "I chose XGrad-CAM") and state the model elsewhere; the section's settings still say
what was explained: [CLS] and patch tokens, blocks, LayerNorm before attention, heads are a
transformer's anatomy; convolutional layers, layer4 and channels of a conv stage a CNN's. And a
method named under a negation ("no Grad-CAM is computed for the ViT", "why not Grad-CAM?") is
not applied, whatever model stands next to it.
"""
from __future__ import annotations

import re

from camlint.extract.vocab import Vocabulary

# a negator governing the name: "no Grad-CAM", "not Grad-CAM", "without (any) Grad-CAM"
_NEGATED_BEFORE = re.compile(r"\b(?:no|not|without|never|nor|neither)\s+(?:(?:any|a|the|an|standard|plain|vanilla|gradient-based)\s+){0,2}$")
# "Grad-CAM is not computed / was never defined / involved": the name is the subject of a negation
_NEGATED_AFTER = re.compile(
    r"^\W{0,3}(?:\([^()]{0,40}\)\s*)?(?:maps?\s+|heat-?maps?\s+)?(?:is|are|was|were|has been|have been|can|could)\s+"
    r"(?:not|never)\s+(?:be\s+|been\s+)?(?:computed|used|applied|run|involved|needed|defined|produced|generated|"
    r"employed|considered|evaluated|attempted|tried|possible|applicable|part of)\b")


def negated(clause: str, start: int, end: int) -> bool:
    """The method named at [start, end) of `clause` is negated in it (not applied)."""
    return bool(_NEGATED_BEFORE.search(clause[max(0, start - 40):start])
                or _NEGATED_AFTER.search(clause[end:end + 60]))


def anatomy_kind(texts, vocab: Vocabulary) -> str | None:
    """"transformer" or "cnn" when the sentences of a section speak of only one kind of model's
    parts (tokens, blocks and heads; or convolutional layers and stages), else None."""
    found = set()
    for text in texts:
        if vocab.phrases["anatomy_transformer"].search(text):
            found.add("transformer")
        if vocab.phrases["anatomy_cnn"].search(text):
            found.add("cnn")
        if len(found) > 1:
            return None
    return next(iter(found)) if found else None


def clause_at(text: str, m: re.Match, vocab: Vocabulary) -> str:
    """The clause of `text` that holds match `m` ("none of the papers compares Grad-CAM variants"
    of "..., although our own inspection suggests ...")."""
    edges = [(e.start(), e.end()) for e in vocab.phrases["clause_edge"].finditer(text)]
    lo = max((b for a, b in edges if b <= m.start()), default=0)
    hi = min((a for a, b in edges if a >= m.end()), default=len(text))
    return text[lo:hi]


def summary_only(sentences: list, applied: list, vocab: Vocabulary, own_roles, summary_roles) -> bool:
    """The method is named only where the paper summarises (abstract, conclusion), never as the
    authors' own ("our Grad-CAM maps"), while its own sections never name it: a discussed method
    ("avoids the ambiguities of Grad-CAM on transformers"), not an applied one."""
    if any(s.section.role not in summary_roles and s.section.role != "front"
           or vocab.phrases["first_person"].search(clause_at(s.low, m, vocab)) for s, m in applied):
        return False
    return any(s.section.role in own_roles for s in sentences)


def applied_to_transformer(applied: list, bound: list, vocab: Vocabulary, own_roles, summary_roles) -> bool:
    """The decision over the method's applied mentions, each bound to (section role, model kind or
    None): is the method applied to the paper's transformer?"""
    first_person = vocab.phrases["first_person"]
    # where the paper's own sections say to what the method is applied, a summary's or the title's
    # words ("Rollout and Grad-CAM are not directly comparable, but the transformer ...") do not;
    # own sections that only use it on a CNN leave the summary to say, in the authors' voice, that
    # their own method explains the transformer ("we explain DeiT-III with a class activation map")
    own_says = any(role in own_roles and kind != "cnn" for role, kind in bound)
    keep = [role not in summary_roles and role != "front"
            or not own_says and kind == "transformer" and bool(first_person.search(clause_at(s.low, m, vocab)))
            for (s, m), (role, kind) in zip(applied, bound)]
    bound = [b for b, k in zip(bound, keep) if k]
    applied = [a for a, k in zip(applied, keep) if k]
    kinds = {kind for _, kind in bound}
    compared: dict[int, bool] = {}     # once per sentence: a run-on sentence holds thousands of names
    if "cnn" in kinds and any(role in own_roles and kind is None for role, kind in bound) and all(
            kind != "cnn" or compared.setdefault(id(s), _compared(s.low, vocab))
            for (_, kind), (s, _) in zip(bound, applied)):
        kinds.discard("cnn")   # "for comparison, the ResNet-50's Grad-CAM ...": the CNN is the comparator
    # Grad-CAM shown only for CNNs while the transformer is merely evaluated: not applicable.
    return "transformer" in kinds or "cnn" not in kinds


def _compared(text: str, vocab: Vocabulary) -> bool:
    """The method's CNN use is named as a comparison or baseline ("for comparison", "we compare
    with Grad-CAM on a ResNet-50"), not as what the paper explains."""
    return bool(vocab.baseline_words.search(text) or vocab.phrases["methods_compared"].search(text))


def unnamed_method_sections(sections, sentences, cam_sections: set[int], vocab: Vocabulary) -> set[int]:
    """Where no section of the paper's own work is about CAM by its title or words, the method
    sections that speak of maps and of a transformer's parts ("the 196 patch tokens form a 14x14
    map A"; a variant described but never named) are where the procedure is stated."""
    own = {"method", "appendix", "other"}
    if any(sec.role in own for sec in sections if sec.index in cam_sections):
        return set()
    maps, anatomy = set(), set()
    for s in sentences:
        # ("other": a notation-heavy paper's "Setting" and "Definition" sections state the procedure)
        if s.section.role in ("method", "other"):
            if vocab.map_words.search(s.low):
                maps.add(s.section.index)
            if vocab.phrases["anatomy_transformer"].search(s.low):
                anatomy.add(s.section.index)
    return maps & anatomy
