"""Evidence on whether a CAM method is applied, beyond its name: is the mention negated, and,
where no model is named near it, what kind of model its section describes.

Fresh manuscripts name the method in a sentence without the model ("Operators see a Grad-CAM
overlay", "I chose XGrad-CAM") and state the model elsewhere; the section's settings still say
what was explained: [CLS] and patch tokens, blocks, LayerNorm before attention, heads are a
transformer's anatomy; convolutional layers, layer4 and channels of a conv stage a CNN's. And a
method named under a negation ("no Grad-CAM is computed for the ViT", "why not Grad-CAM?") is
not applied, whatever model stands next to it. Each method is bound on its own (a retained CNN's
Grad-CAM does not decide for the LayerCAM of the heatmap section), and the authors' voice is
theirs: "I" where a single author writes "I", whose "we" is the field's.
"""
from __future__ import annotations

import re

from camlint.core.values import method_name
from camlint.core.wording import low
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


def author_voice(sentences: list, vocab: Vocabulary) -> re.Pattern:
    """The words of the paper's own voice: "we", "our"; "I", "my" where a single author speaks
    as "I" in two sentences or more (an essay, a thesis), whose "we" is then everyone's."""
    singular = vocab.phrases["singular_author"]
    count = 0
    for s in sentences:
        count += bool(singular.search(s.low))
        if count >= 2:
            return vocab.phrases["first_person_singular"]
    return vocab.phrases["first_person"]


EMPIRICAL_ROLES = frozenset({"method", "experiments", "appendix"})


def argument_only(sentences: list, voice: re.Pattern, vocab: Vocabulary) -> bool:
    """An essay: one author arguing as "I", in two titled sections or more, none of them a method,
    experiments or appendix section. It discusses methods in everyone's voice ("when a caption
    says that Grad-CAM highlights ..."); its own use of one says so ("I computed Grad-CAM ...")."""
    roles = {s.section.index: s.section.role for s in sentences if s.section.title}
    return voice is vocab.phrases["first_person_singular"] and len(roles) >= 2 and \
        not EMPIRICAL_ROLES & set(roles.values())


def summary_only(sentences: list, applied: list, vocab: Vocabulary, own_roles, summary_roles,
                 voice: re.Pattern | None = None) -> bool:
    """The method is named only where the paper summarises (abstract, conclusion), never as the
    authors' own ("our Grad-CAM maps"), while its own sections never name it: a discussed method
    ("avoids the ambiguities of Grad-CAM on transformers"), not an applied one."""
    if any(s.section.role not in summary_roles and s.section.role != "front"
           or (voice or vocab.phrases["first_person"]).search(clause_at(s.low, m, vocab)) for s, m in applied):
        return False
    return any(s.section.role in own_roles for s in sentences)


def applied_to_transformer(applied: list, bound: list, vocab: Vocabulary, own_roles, summary_roles,
                           voice: re.Pattern | None = None) -> bool:
    """The decision over the method's applied mentions, each bound to (section role, model kind or
    None): is the method applied to the paper's transformer? `voice`: the authors' words (author_voice)."""
    first_person = voice or vocab.phrases["first_person"]
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
    compared: dict[int, bool] = {}     # once per sentence: a run-on sentence holds thousands of names
    # "for comparison, the ResNet-50's Grad-CAM ...": where every CNN use is a comparison and the
    # own sections name the method without a model, the CNN is the comparator
    comparator = any(role in own_roles and kind is None for role, kind in bound) and all(
        kind != "cnn" or compared.setdefault(id(s), _compared(s.low, vocab))
        for (_, kind), (s, _) in zip(bound, applied))
    # each method is bound on its own: a legacy CNN's Grad-CAM maps say nothing of what the
    # LayerCAM of the paper's own heatmap section explains; the family's name ("class activation
    # maps", or a long form the method list does not know: method_name None) stands for every
    # method the paper names
    by_method: dict[str | None, set] = {}
    for (_, m), (_, kind) in zip(applied, bound):
        by_method.setdefault(method_name(m.group(0)), set()).add(kind)
    family = by_method.pop(None, set())
    by_method = {k: kinds | family for k, kinds in by_method.items()} or ({None: family} if family else {})
    # Grad-CAM shown only for CNNs while the transformer is merely evaluated: not applicable.
    return not by_method or any("transformer" in kinds or "cnn" not in kinds or comparator
                                for kinds in by_method.values())


def _compared(text: str, vocab: Vocabulary) -> bool:
    """The method's CNN use is named as a comparison or baseline ("for comparison", "we compare
    with Grad-CAM on a ResNet-50"), not as what the paper explains."""
    return bool(vocab.baseline_words.search(text) or vocab.phrases["methods_compared"].search(text))


def unnamed_method_sections(sections, sentences, cam_sections: set[int], vocab: Vocabulary) -> set[int]:
    """Where no section of the paper's own work is about CAM by its title or words, the method
    sections that speak of maps and of a transformer's parts ("the 196 patch tokens form a 14x14
    map A"; a variant described but never named) are where the procedure is stated. Where the map
    is the paper's contribution (its title or abstract names it), a section of any other title
    ("Setting", "Definition") that speaks of the transformer's parts or defines the map states it too."""
    if any(sec.role in UNNAMED_ROLES for sec in sections if sec.index in cam_sections):
        return set()
    maps, anatomy, other = set(), set(), set()
    contribution = False
    for s in sentences:
        if s.unit.kind == "title" or s.section.role == "abstract":
            contribution = contribution or bool(vocab.cam_triggers.search(s.low))
        if s.section.role in ("method", "other"):
            if vocab.map_words.search(s.low):
                maps.add(s.section.index)
            if vocab.phrases["anatomy_transformer"].search(s.low):
                anatomy.add(s.section.index)
            if s.section.role == "other" and not vocab.other_section.search(low(s.section.title or "")):
                other.add(s.section.index)
    method = {i for i in maps & anatomy if i not in other}
    return method | ((maps | anatomy) & other if contribution else set())


UNNAMED_ROLES = frozenset({"method", "appendix", "other"})


def unnamed_candidates(sections, cam_sections: set[int], vocab: Vocabulary) -> set[int]:
    """Sections to parse in full where CAM is named only outside the paper's own sections: the
    method sections, and those of any other title but data, training, results (unnamed_method_sections)."""
    if not cam_sections or any(sec.role in UNNAMED_ROLES for sec in sections if sec.index in cam_sections):
        return set()
    return {sec.index for sec in sections if sec.role == "method" or sec.role == "other"
            and not vocab.other_section.search(low(sec.title or ""))}


def model_names(vocab: Vocabulary, text: str):
    """(kind, start, end) of every model named in `text`."""
    for kind, rx in (("transformer", vocab.transformer), ("cnn", vocab.cnn)):
        for m in rx.finditer(text):
            yield kind, m.start(), m.end()


def section_subjects(sentences: list, vocab: Vocabulary, sections: set[int]) -> dict[int, str]:
    """Section index (of `sections`) -> the one kind of model its sentences (and title) name, if
    one; where they name none, the one kind whose parts they describe (tokens and blocks, or
    convolutional layers: anatomy_kind), but for a model named as a score's holder ("compared with
    84.1% for a MobileNetV2"); where they say nothing of either, the kind of the model
    the paper presents (own_model_kind), not a comparator named elsewhere."""
    kinds: dict[int, set[str]] = {}
    texts: dict[int, list[str]] = {}
    for s in sentences:
        if s.section.index not in sections or vocab.contrast.search(s.low) or vocab.phrases["declined"].search(s.low):
            continue
        kinds.setdefault(s.section.index, set()).update(
            k for k, a, _ in model_names(vocab, s.low)
            if not vocab.phrases["score_holder_before"].search(s.low[max(0, a - 40):a]))  # a comparator's score
        texts.setdefault(s.section.index, []).append(s.low)
    named = {i: next(iter(k)) for i, k in kinds.items() if len(k) == 1}
    described = {i: anatomy_kind(texts[i], vocab) for i, k in kinds.items() if not k}
    own = own_model_kind(sentences, vocab) if any(k is None for k in described.values()) else None
    return named | {i: kind or own for i, kind in described.items() if kind or own}


def own_model_kind(sentences: list, vocab: Vocabulary) -> str | None:
    """The one kind of model the paper presents: named in its title ("GrainFormer: a lightweight
    network ..."), else in the abstract's "we present / propose / introduce" sentence."""
    for keep in (lambda s: s.unit.kind == "title",
                 lambda s: s.section.role == "abstract" and vocab.phrases["presents_model"].search(s.low)):
        kinds = {k for s in sentences if keep(s) for k, _, _ in model_names(vocab, s.low)}
        if kinds:
            return next(iter(kinds)) if len(kinds) == 1 else None
    return None
