"""Which sentences speak about the paper's own CAM procedure, and does the paper use one at all.

A section is in CAM scope when its title or its text mentions a CAM method or map; a sentence is
in scope when its section is, or when it mentions one itself. Related work and the introduction
(others' choices) never are; a sentence about a CNN baseline and not the transformer is skipped.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from camlint.extract.attribution import CNN, OTHER, RELATED, Attribution, planned
from camlint.extract.camuse import (applied_to_transformer, argument_only, author_voice, clause_at as _clause_at,
                                    model_names as _model_names, negated, section_subjects, summary_only,
                                    unnamed_method_sections)
from camlint.extract.hybrid import part_of_hybrid
from camlint.extract.vocab import Vocabulary
from camlint.core.wording import low
from camlint.inputs.latex.units import DocumentText, Sentence

OUT_OF_SCOPE_ROLES = frozenset({"related", "introduction", "references", "acknowledgements"})
ROLE_RANK = {"method": 5, "appendix": 5, "experiments": 4, "other": 3, "front": 2, "abstract": 2,
             "conclusion": 1, "introduction": 0, "related": 0, "references": 0, "acknowledgements": 0}
KIND_RANK = {"text": 3, "footnote": 3, "item": 3, "code": 3, "row": 2, "caption": 2, "heading": 1, "title": 1}


def clause_before(text: str, start: int, limit: int = 60) -> str:
    """The words of the clause that precede position `start` (for negation and contrast)."""
    head = text[max(0, start - limit):start]
    cut = max(head.rfind(c) for c in ",;:()—–")
    return head[cut + 1:] if cut >= 0 else head


def clause_after(text: str, end: int, limit: int = 60) -> str:
    """The words of the clause that follow position `end` (for statements taken back after them)."""
    tail = text[end:end + limit]
    cut = min((i for i in (tail.find(c) for c in ",;:()—–.") if i >= 0), default=-1)
    return tail[:cut] if cut >= 0 else tail


SMALL_SECTION = 4   # paragraphs: a section this short that mentions CAM is about CAM throughout


@dataclass
class Scope:
    vocab: Vocabulary
    cam_sections: set[int] = field(default_factory=set)     # sections that mention CAM at all
    cam_titles: set[int] = field(default_factory=set)       # sections about CAM by their title
    small: set[int] = field(default_factory=set)            # sections with few paragraphs
    cam_units: set[int] = field(default_factory=set)        # ids of paragraphs/captions about CAM
    cam_floats: set[tuple] = field(default_factory=set)     # (file, section, float env) with a CAM caption
    cam_sentences: set[tuple] = field(default_factory=set)  # (unit id, start) of single sentences about the maps
    other_units: set[int] = field(default_factory=set)      # paragraphs under a run-in heading about training, data...
    compared_units: set[int] = field(default_factory=set)   # paragraphs under a run-in "Baselines." heading

    def role_ok(self, s: Sentence) -> bool:
        return s.section.role not in OUT_OF_SCOPE_ROLES

    attribution: Attribution | None = None

    def __post_init__(self):
        self.attribution = self.attribution or Attribution(self.vocab)

    def is_cnn_only(self, s: Sentence) -> bool:
        return self.attribution.of(s) == CNN

    def is_other_method(self, s: Sentence) -> bool:
        return self.attribution.of(s) == OTHER

    def in_scope(self, s: Sentence) -> bool:
        if not self.role_ok(s) or s.unit.kind in ("heading", "title"):
            return False
        if not self.attribution.own(s) or id(s.unit) in self.compared_units:
            return False
        sec = s.section.index
        if sec in self.cam_titles or id(s.unit) in self.cam_units or (id(s.unit), s.start) in self.cam_sentences:
            return True
        if s.unit.float_env and (s.unit.file.display, sec, s.unit.float_env) in self.cam_floats:
            return True
        if sec in self.cam_sections and (s.unit.kind == "footnote" or s.unit.float_env == "algorithm"):
            return True    # a footnote or an algorithm in a section about CAM describes the procedure
        return sec in self.cam_sections and sec in self.small


def build_scope(doc: DocumentText, sentences: list[Sentence], vocab: Vocabulary) -> Scope:
    scope = Scope(vocab)
    for sec in doc.sections:
        if sec.role not in OUT_OF_SCOPE_ROLES and sec.title and vocab.cam_titles.search(low(sec.title)):
            scope.cam_titles.add(sec.index)
            scope.cam_sections.add(sec.index)
    for u in doc.units:   # a section that holds a camspec block is about the CAM settings
        if u.is_camspec and u.section.role not in OUT_OF_SCOPE_ROLES:
            scope.cam_titles.add(u.section.index)
            scope.cam_sections.add(u.section.index)
    _inherit(doc, scope, vocab)
    scope.cam_floats.update(doc.pointed_floats)    # "Table 2 lists every setting of the maps"
    paragraphs: dict[int, int] = {}
    for u in doc.units:
        if u.kind == "text":     # a list or an algorithm is one paragraph, not one per item
            paragraphs[u.section.index] = paragraphs.get(u.section.index, 0) + 1
    scope.small = {i for i, n in paragraphs.items() if n <= SMALL_SECTION}
    for s in sentences:
        if s.section.role in OUT_OF_SCOPE_ROLES or scope.is_cnn_only(s):
            continue
        if vocab.cam_triggers.search(s.low) and not _contrasted(s.low, vocab.cam_triggers, vocab) \
                and not vocab.phrases["declined"].search(s.low):
            scope.cam_sections.add(s.section.index)
            scope.cam_units.add(id(s.unit))
            if s.unit.kind == "caption" and s.unit.float_env:
                scope.cam_floats.add((s.unit.file.display, s.section.index, s.unit.float_env))
    if scope.cam_sections:    # a table of the explanation settings, wherever it floats
        for s in sentences:
            if s.unit.kind == "caption" and s.unit.float_env and vocab.phrases["settings_caption"].search(s.low) \
                    and s.section.role not in OUT_OF_SCOPE_ROLES:
                scope.cam_floats.add((s.unit.file.display, s.section.index, s.unit.float_env))
    _settings_tables(sentences, scope, vocab)
    # in a CAM section, a paragraph about "the map(s)" is about the CAM maps
    for s in sentences:
        if s.section.index in scope.cam_sections and vocab.map_words.search(s.low):
            scope.cam_units.add(id(s.unit))
        elif s.section.role in OWN_ROLES and vocab.explanation_words.search(s.low):
            scope.cam_sentences.add((id(s.unit), s.start))
    for i in unnamed_method_sections(doc.sections, sentences, scope.cam_sections, vocab):
        scope.cam_titles.add(i)
        scope.cam_sections.add(i)
    _run_in_headings(doc, scope, vocab)
    _whole_lists(doc, scope)
    _appendix_pointed_to(doc, sentences, scope, vocab)
    return scope


def _settings_tables(sentences: list[Sentence], scope: Scope, vocab: Vocabulary) -> None:
    """A table captioned as settings with a row naming the CAM method ("Method | HiResCAM") holds
    the map's settings in every row ("Non-spatial tokens | drop class token and 4 registers")."""
    plain = vocab.phrases["settings_caption_plain"]
    tables = {_float_of(s) for s in sentences if s.unit.kind == "caption" and s.unit.float_env
              and plain.search(s.low) and s.section.role not in OUT_OF_SCOPE_ROLES and not scope.is_cnn_only(s)}
    for s in sentences:
        if s.unit.kind == "row" and _float_of(s) in tables and vocab.cam_triggers.search(s.low) \
                and not scope.is_cnn_only(s):
            scope.cam_floats.add(_float_of(s))


def _float_of(s: Sentence) -> tuple:
    return (s.unit.file.display, s.section.index, s.unit.float_env)


def _run_in_headings(doc: DocumentText, scope: Scope, vocab: Vocabulary) -> None:
    """A run-in heading titles the paragraphs under it: about training or data, they are not the
    map's; about an ingredient of the map (\\paragraph{Which layer.}) in a CAM section, they are."""
    heading, section = "", -1
    for u in doc.units:
        if u.kind == "heading" or u.section.index != section:
            title = low(u.text).strip(" .") if u.kind == "heading" else ""
            heading = "" if title == low(u.section.title or "").strip(" .") else title
            section = u.section.index
            continue
        if heading and vocab.other_section.search(heading):
            scope.other_units.add(id(u))
            if vocab.phrases["compared_section"].search(heading):
                scope.compared_units.add(id(u))   # the compared methods' settings, as a "Baselines" section's
        elif heading and u.section.index in scope.cam_sections and u.kind in ("text", "item") \
                and vocab.ingredient_titles.search(heading):
            scope.cam_units.add(id(u))


def _whole_lists(doc: DocumentText, scope: Scope) -> None:
    """A list is one paragraph: where one item speaks of the maps, every item of the list
    describes the same procedure ("(a) the model ... (b) the maps are Grad-CAM maps ... (c) block 11")."""
    run: list = []
    for u in doc.units + [None]:
        if u is not None and u.kind == "item" and run and (u.file is run[-1].file and u.section is run[-1].section):
            run.append(u)
            continue
        if any(id(x) in scope.cam_units for x in run):
            scope.cam_units.update(id(x) for x in run)
        run = [u] if u is not None and u.kind == "item" else []


def _appendix_pointed_to(doc: DocumentText, sentences: list[Sentence], scope: Scope, vocab: Vocabulary) -> None:
    """"All settings are listed in Appendix A": where a sentence about the maps sends the reader
    to the appendix, its sections (but those about training, data, baselines...) are in scope."""
    pointer = vocab.phrases["points_to_appendix"]
    if not any(pointer.search(s.low) and scope.in_scope(s) for s in sentences if s.section.role != "appendix"):
        return
    supplement = vocab.phrases["supplement_titles"]
    for sec in doc.sections:
        if (sec.role == "appendix" or supplement.search(low(sec.top_title or sec.title or ""))) \
                and not vocab.other_section.search(low(sec.title or "")):
            scope.cam_titles.add(sec.index)
            scope.cam_sections.add(sec.index)


OWN_ROLES = frozenset({"method", "appendix", "experiments", "other"})
SUMMARY_ROLES = frozenset({"abstract", "conclusion"})   # they restate what the own sections did


def families(sections) -> dict[int, int]:
    """Section index -> index of the top-level section it belongs to (the section tree)."""
    out, top = {}, None
    for sec in sections:
        if top is None or not sec.top_title or sec.title == sec.top_title or \
                sec.top_title != sections[top].title:
            top = sec.index
        out[sec.index] = top
    return out


def cam_titled(sections, vocab: Vocabulary) -> set[int]:
    return {sec.index for sec in sections
            if sec.role not in OUT_OF_SCOPE_ROLES and sec.title and vocab.cam_titles.search(low(sec.title))}


def inherited(sections, titled: set[int], vocab: Vocabulary) -> set[int]:
    """Sections that inherit CAM scope: the subsections of a CAM-titled section, and, next to a
    CAM subsection, sibling subsections about the map's ingredients (tokens, grid, target...)."""
    family = families(sections)
    cam_tops = {family[i] for i in titled}
    out = set()
    for sec in sections:
        top = family[sec.index]
        if sec.index in titled or sec.role in OUT_OF_SCOPE_ROLES or top not in cam_tops:
            continue
        title = low(sec.title or "")
        if vocab.other_section.search(title):
            continue    # a CNN comparator, a dataset, training: not the CAM procedure
        if top in titled or vocab.ingredient_titles.search(title):
            out.add(sec.index)
    return out


def _inherit(doc: DocumentText, scope: Scope, vocab: Vocabulary) -> None:
    for i in inherited(doc.sections, set(scope.cam_titles), vocab):
        scope.cam_titles.add(i)
        scope.cam_sections.add(i)


def _contrasted(text: str, pattern: re.Pattern, vocab: Vocabulary) -> bool:
    """Every mention of `pattern` in the sentence is contrasted or negated."""
    found = False
    for m in pattern.finditer(text):
        found = True
        if not vocab.contrast.search(clause_before(text, m.start(), 80)):
            return False
    return found


def uses_cam_on_transformer(sentences: list[Sentence], vocab: Vocabulary, method_names: re.Pattern,
                            raw_transformer: set[int] = frozenset(), attribution: Attribution | None = None,
                            specified: bool = False) -> bool:
    """A CAM-style method is applied (not merely contrasted, declined, planned, quoted or
    catalogued from others' work) to the paper's transformer: each applied mention is bound to
    the model it is applied to (see bound_model).

    `raw_transformer`: sections of the paper's own work that name a transformer in paragraphs
    that were not parsed (they said nothing else of interest); `specified`: the paper holds a
    camspec block (its settings are there, not in sentences).
    """
    attribution = attribution or Attribution(vocab)
    own_transformer = bool(raw_transformer)
    for s in sentences:
        if s.section.role in ("related", "references") or planned(vocab, s):
            continue
        has_transformer = bool(vocab.transformer.search(s.low)) and not vocab.contrast.search(s.low)
        if has_transformer and (s.section.role != "introduction" or vocab.phrases["first_person"].search(s.low)):
            own_transformer = True
    applied = list(applied_mentions(sentences, vocab, method_names, attribution))
    voice = author_voice(sentences, vocab)
    if _is_review(sentences, vocab):     # a review catalogues others' maps; its own use says "we"
        applied = [(s, m) for s, m in applied if voice.search(_clause_at(s.low, m, vocab))]
    elif argument_only(sentences, voice, vocab):     # an essay argues about them; its use is an act
        applied = [(s, m) for s, m in applied if vocab.phrases["author_applies"].search(_clause_at(s.low, m, vocab))]
    if not applied or not own_transformer or \
            not specified and summary_only(sentences, applied, vocab, OWN_ROLES, SUMMARY_ROLES, voice):
        return False
    subjects = section_subjects(sentences, vocab, {s.section.index for s, _ in applied})
    bound = [(s.section.role, bound_model(s, m.start(), m.end(), vocab, subjects.get(s.section.index))
              or _model_referred_back(s, vocab)) for s, m in applied]
    return applied_to_transformer(applied, bound, vocab, OWN_ROLES, SUMMARY_ROLES, voice)


def applied_mentions(sentences: list[Sentence], vocab: Vocabulary, method_names: re.Pattern,
                     attribution: Attribution):
    """(sentence, match) of every CAM method the paper says it applies: not in related work or
    the references, nor in the introduction unless the authors speak ("we"), nor in a section
    about future work; not declined or planned, not someone else's (cited, catalogued, quoted
    from a reviewer), not contrasted, not a term in quotes ("the search terms 'Grad-CAM'")."""
    for s in sentences:
        if s.section.role in ("related", "references", "acknowledgements") or not _may_apply(s, vocab):
            continue
        if attribution.of(s) in (OTHER, RELATED) and s.section.role != "introduction" \
                and not _method_cited_as_subject(s.low, method_names):
            continue
        for m in method_names.finditer(s.low):
            if not vocab.contrast.search(clause_before(s.low, m.start(), 80)) and not _quoted(s.low, m) \
                    and not negated(s.low, m.start(), m.end()):
                yield s, m


def _may_apply(s: Sentence, vocab: Vocabulary) -> bool:
    if s.section.role == "introduction" and not vocab.phrases["first_person"].search(s.low):
        return False
    if vocab.phrases["future_titles"].search(low(s.section.title or "")):
        return False
    return not (vocab.phrases["declined"].search(s.low) or vocab.phrases["planned"].search(s.low))


def _method_cited_as_subject(text: str, method_names: re.Pattern) -> bool:
    """"HiResCAM [cite] multiplies ...": the sentence describes the method, cited by its name,
    not a cited author's settings."""
    m = method_names.match(text, len(text) - len(text.lstrip(" (\"'")))
    return bool(m) and text[m.end():].lstrip().startswith("[cite]")


def _quoted(text: str, m: re.Match) -> bool:
    """The method's name stands in quotes: a term searched for or defined, not a method used."""
    return m.start() > 0 and text[m.start() - 1] in "\"'`" and m.end() < len(text) and text[m.end()] in "\"'"


def _is_review(sentences: list[Sentence], vocab: Vocabulary) -> bool:
    """A review or survey by its title (the document title, the abstract's first sentence)."""
    rx = vocab.phrases["review_document"]
    return any(rx.search(s.low) for s in sentences if s.unit.kind == "title")


TRANSFORMER, CNN_MODEL = "transformer", "cnn"


NEAR = 400   # characters either side of a method's name in which the model it is applied to is looked for


def _near(text: str, start: int, end: int) -> tuple[int, int]:
    """[lo, hi) around text[start:end], widened to word boundaries. Looking only there keeps a
    sentence of a thousand method and model names (a run-on paragraph) linear, not cubic."""
    lo, hi = max(0, start - NEAR), min(len(text), end + NEAR)
    while lo > 0 and not text[lo - 1].isspace() and start - lo < NEAR + 64:
        lo -= 1
    while hi < len(text) and not text[hi].isspace() and hi - end < NEAR + 64:
        hi += 1
    return lo, hi


def bound_model(s: Sentence, start: int, end: int, vocab: Vocabulary, section_subject: str | None) -> str | None:
    """The kind of model a method named at [start, end) of `s` is applied to: the model named
    nearest to it in the same clause ("the CNN with Grad-CAM and the transformer with rollout"),
    every model where it is applied to all ("for both models"), else the one the section is
    about, else None."""
    lo, hi = _near(s.low, start, end)
    names = [(k, a + lo, b + lo) for k, a, b in _model_names(vocab, s.low[lo:hi])]
    if not names and vocab.phrases["other_explanation"].search(s.low[lo:hi]) \
            and vocab.phrases["methods_compared"].search(s.low) and not vocab.phrases["first_person"].search(s.low):
        return None     # "rollout and Grad-CAM are different quantities": methods compared, none applied
    if TRANSFORMER in {k for k, _, _ in names} and vocab.phrases["applies_to_all"].search(s.low[lo:hi]):
        return TRANSFORMER
    ranked = []
    for k, a, b in names:
        if k == CNN_MODEL and part_of_hybrid(s.low, a, b, vocab.transformer):
            k = TRANSFORMER                         # "the ResNet-50 stem of the hybrid": the transformer
        between = s.low[b:start] if b <= start else s.low[end:a]
        crosses = bool(vocab.phrases["clause_break"].search(between))
        ranked.append((crosses, len(between), b > start, k))   # ties go to the model named before
    # a model across a clause boundary only counts where the section says nothing
    kind = min(ranked)[3] if ranked and not min(ranked)[0] else None
    return kind or section_subject


_POSSESSIVE = re.compile(r"\b(?:its|their|this (?:model|network|classifier)(?:'s)?|the (?:model|network|classifier)'s)\b")


def _model_referred_back(s: Sentence, vocab: Vocabulary) -> str | None:
    """"We fine-tune a ViT-B/16 ... We explain its predictions with Grad-CAM": a sentence that
    names no model but refers back to one ("its", "the network's") applies the method to the
    one kind of model the sentence before it names."""
    if not _POSSESSIVE.search(s.low):
        return None
    before = s.unit.text[:s.start].rstrip()
    previous = low(re.split(r"(?<=[.!?])\s+", before)[-1]) if before else ""
    kinds = {k for k, _, _ in _model_names(vocab, previous)}
    return next(iter(kinds)) if len(kinds) == 1 else None
