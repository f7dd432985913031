"""The prose pipeline: text units -> sentences -> candidate mentions -> per-key decisions.

    doc = build_units(project, relevant)      # camlint.inputs.latex.units
    result = extract(doc)                     # values, evidence and mentions per key
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Protocol

from camlint.core import items
from camlint.extract import decide as D
from camlint.extract import mentions as Mn
from camlint.extract import special
from camlint.extract.anchor import anchor
from camlint.extract.attribution import Attribution
from camlint.extract.aliases import with_aliases
from camlint.extract.columns import own_columns
from camlint.extract.hybrid import maps_at_conv_stage
from camlint.extract.normalize import normalise_all
from camlint.extract.scope import Scope, build_scope, uses_cam_on_transformer
from camlint.extract.sequence import relu_after_previous_step
from camlint.extract.vocab import vocabulary
from camlint.core.wording import low
from camlint.rules.findings import Evidence
from camlint.core.keys import KEYS
from camlint.core.methods import CLASS_AGNOSTIC_METHODS
from camlint.core.values import method_name
from camlint.inputs.latex.units import DocumentText, Sentence

SLOT_ORDER = {
    "target": ("kind", "class"),
    "reshape": ("grid", "order"),
    "heads": ("aggregate", "order"),
    "postprocess": ("normalize", "upsample"),
}
@dataclass
class Extraction:
    uses_cam: bool
    values: dict = field(default_factory=dict)
    evidence: dict = field(default_factory=dict)
    mentions: dict = field(default_factory=dict)
    sentences: list = field(default_factory=list)
    scope: Scope | None = None
    anchor: tuple | None = None
    bibliography: dict = field(default_factory=dict)      # citation key -> title / bibitem text
    input_size: int | None = None                         # network input side in pixels, if stated
    presets: list = field(default_factory=list)           # (Preset, Evidence) the text says it follows
    model_names: list = field(default_factory=list)       # transformers the paper's own sections name
    conv_stage: bool = False                              # maps taken at a conv part of a hybrid
    # facts about the whole document that rules ask once per mention: computed once (a scan of
    # every sentence per mention made a paper of many short sections quadratic)
    memo: dict = field(default_factory=dict, repr=False, compare=False)


class Relevance(Protocol):
    """What a front end asks before parsing (see build_units): which raw paragraphs to parse,
    which sections to parse in full, and where the raw text names CAM, a transformer or an
    input size. Front ends depend on this interface, not on the vocabulary behind it."""

    def __call__(self, chunk: str, in_cam_section: bool) -> bool: ...

    def cam(self, raw: str) -> bool: ...

    def widen(self, sections, cam_sections: set[int]) -> set[int]: ...

    def sizes(self, raw: str) -> list[tuple[int, int, int]]: ...

    def flags(self, raw: str) -> dict[str, list[int]]: ...


class VocabularyRelevance:
    """Relevance read from vocabulary.yaml (the prefilters, CAM triggers and model names)."""

    def __call__(self, chunk: str, in_cam_section: bool) -> bool:
        if in_cam_section:
            return True
        v, text = vocabulary(), low(chunk)
        return bool(v.prefilter.search(text)) or (
            "\\begin{tabular" not in text and bool(v.prefilter_models.search(text))) or \
            bool(v.phrases["name_kind_correction"].search(text))   # "despite its name, X is a CNN"

    def cam(self, raw: str) -> bool:
        return bool(vocabulary().cam_triggers.search(low(raw)))

    def widen(self, sections, cam_sections: set[int]) -> set[int]:
        """Sections parsed in full: those that mention CAM and those that inherit its scope."""
        from camlint.extract.camuse import unnamed_candidates
        from camlint.extract.scope import cam_titled, inherited

        v = vocabulary()
        settings = {sec.index for sec in sections if cam_sections and sec.role == "appendix"
                    and v.phrases["settings_titles"].search(low(sec.title or ""))}
        titled = cam_titled(sections, v)    # a section titled about the maps is in scope: read it all
        # CAM named only outside the paper's own sections (abstract, a comparison): its method
        # sections may describe the map without naming it (scope.unnamed_method_sections)
        unnamed = unnamed_candidates(sections, cam_sections, v)
        return cam_sections | settings | titled | inherited(sections, titled, v) | unnamed

    def sizes(self, raw: str) -> list[tuple[int, int, int]]:
        """(position, priority, side) of statements of the network's input size, in raw LaTeX."""
        raw = low(raw)
        out = []
        for prio, rx in enumerate(vocabulary().phrase_lists["input_size_raw"]):
            for m in rx.finditer(raw):
                if m.group(1) == m.group(2) and 32 <= int(m.group(1)) <= 2048:
                    out.append((m.start(), prio, int(m.group(1))))
        return out

    def flags(self, raw: str) -> dict[str, list[int]]:
        """Where raw text mentions CAM or a transformer model, before any parsing."""
        v = vocabulary()
        raw = low(raw)
        return {name: [m.start() for m in rx.finditer(raw)]
                for name, rx in (("cam", v.cam_triggers), ("transformer", v.transformer))}


relevant: Relevance = VocabularyRelevance()


def _cam_method_pattern(vocab) -> re.Pattern:
    parts = [rx.pattern for e in vocab.entries["method"] if not e.vague for rx in e.patterns]
    parts += [rx.pattern for rx in vocab.phrase_lists["cam_method_extra"]]
    # a method's name hyphenated onto another word is a package's name (pytorch-grad-cam), not
    # the method applied: the CNN baseline's "(pytorch-grad-cam 1.4.8)" explains no transformer;
    # but the segmentation variant's name (Seg-Grad-CAM) is the method itself
    return re.compile(r"(?:(?<!\w-)|(?<=\bseg-))(?:" + "|".join(f"(?:{p})" for p in parts) + ")")


def _resolve_formula(value: dict, sentences: list[Sentence]) -> dict:
    """H/16 x W/16 counts as a grid when H and W are stated somewhere in the paper."""
    grid = value.get("grid")
    if not isinstance(grid, dict) or "formula" not in grid:
        return value
    patch = grid["patch"] or _patch_size(sentences)
    for rx in vocabulary().phrase_lists["input_size_stated"] if patch else ():
        for s in sentences:
            m = rx.search(s.low)
            if m:
                h = int(m.group(1))
                w = int(m.group(2) or h)
                if h % patch == 0 and w % patch == 0:
                    return {**value, "grid": [h // patch, w // patch]}
    return {**{k: v for k, v in value.items() if k != "grid"}, "text": grid["formula"]}


def _patch_size(sentences: list[Sentence]) -> int | None:
    """The patch side P where the paper states it (P = 16, patch size 14, 16-pixel patches)."""
    for s in sentences:
        m = vocabulary().phrases["patch_size"].search(s.low)
        if m:
            return int(next(g for g in m.groups() if g))
    return None


def _raw_transformer_sections(doc: DocumentText) -> set[int]:
    """Sections of the paper's own work whose text names a transformer (parsed or not)."""
    own = {s.index for s in doc.sections if s.role not in ("related", "introduction", "references")}
    return set(doc.raw_flags.get("transformer", ())) & own


PROSE_KINDS = ("text", "footnote", "item", "caption")


def _clauses(s: Sentence, attribution: Attribution):
    """A semicolon may join someone else's statement to one's own ("the original paper pools the
    last convolutional layer; our maps use block 10"). A sentence not about the paper's own
    procedure as a whole is read clause by clause, so its own clauses count; a clause where the
    authors do not speak ("...; the class-token row is reshaped ...") continues the one before."""
    if ";" not in s.text or attribution.own(s):
        yield s
        return
    start = 0
    first_person = attribution.vocab.phrases["first_person"]
    for m in re.finditer(r";\s+", s.text):
        nxt = s.text[m.end():].split(";", 1)[0]
        if len(s.text[start:m.start()].split()) >= 4 and len(nxt.split()) >= 4 and first_person.search(low(nxt)):
            yield Sentence(s.unit, s.start + start, s.start + m.start(), s.text[start:m.start()])
            start = m.end()
    yield Sentence(s.unit, s.start + start, s.end, s.text[start:]) if start else s


def _section_heading(s: Sentence) -> bool:
    """A section's own title; a run-in heading (\\paragraph{Grad-CAM on the ViT (ours).}) opens
    its paragraph and names the method the paragraph applies."""
    return s.unit.kind == "heading" and low(s.text).strip(" .") == low(s.section.title or "").strip(" .")


def _reading_order(doc: DocumentText):
    """The sentences to read. A code block (a Markdown fence, a listing) is read line by line:
    `target_layers = [model.blocks[-1].norm1]` states a layer and a location like prose does,
    at its own line. camspec blocks are read as specifications, not here."""
    attribution = Attribution(vocabulary())
    for s in doc.sentences():
        if s.unit.kind in PROSE_KINDS:
            yield from _clauses(s, attribution)
        elif s.unit.kind != "code":
            yield s
        elif not s.unit.is_camspec:
            yield from _code_statements(s)


# whole lines, the blank ones skipped in Python: `[^\n]*\S[^\n]*` backtracked over a line of
# spaces from each of its positions (a 200 KB blank line in a listing took 190 s)
_CODE_LINE = re.compile(r"[^\n]+")


def _code_statements(s: Sentence):
    """A code block's statements, one per line; a call left open at a line's end continues on the
    next lines (`F.interpolate(cam, size=(224, 224),` / `mode="bilinear")`), up to a few lines."""
    text, start, depth, lines = s.unit.text, None, 0, 0
    for m in _CODE_LINE.finditer(text):
        if m.group(0).isspace():
            continue
        code = m.group(0).split("#", 1)[0]
        start = m.start() if start is None else start
        depth += code.count("(") + code.count("[") - code.count(")") - code.count("]")
        lines += 1
        if depth <= 0 or lines >= 6:
            yield Sentence(s.unit, start, m.end(), text[start:m.end()])
            start, depth, lines = None, 0, 0
    if start is not None:
        yield Sentence(s.unit, start, len(text), text[start:])


def extract(doc: DocumentText, bibliography: dict | None = None) -> Extraction:
    sentences = normalise_all(own_columns(_reading_order(doc)))
    vocab = with_aliases(vocabulary(), sentences)   # "hereafter DermNet-T": the paper's names for its models
    scope = build_scope(doc, sentences, vocab)
    cam_rx = _cam_method_pattern(vocab)
    specified = any(u.is_camspec for u in doc.units)
    uses_cam = uses_cam_on_transformer(sentences, vocab, cam_rx, _raw_transformer_sections(doc), scope.attribution,
                                       specified)
    result = Extraction(uses_cam=uses_cam, sentences=sentences, scope=scope)
    in_scope = [s for s in sentences if scope.in_scope(s)]
    mentions = {k: [] for k in KEYS}
    for s in sentences:
        if scope.role_ok(s) and s.section.role != "introduction" and not _section_heading(s) \
                and scope.attribution.own(s):
            mentions["method"].extend(m for m in Mn.find(vocab, "method", s)
                                      if not vocab.contrast.search(s.low[max(0, m.start - 80):m.start]))
    in_scope_keys = [i.key for i in items.items() if i.phrases and i.key != "method"]   # method: above
    for s in in_scope:
        for key in in_scope_keys:
            mentions[key].extend(Mn.find(vocab, key, s))
    mentions["tokens"].extend(_model_has_no_prefix_tokens(vocab, sentences, in_scope, scope))
    if result.uses_cam:     # what the CAM scope says nowhere: the learned ranker proposes lines to parse
        from camlint.extract.ranker import propose_mentions
        propose_mentions(vocab, mentions, sentences, in_scope, scope)
    mentions["relu"] = relu_after_previous_step(vocab, mentions["relu"])
    result.mentions = mentions
    values, evidence = {}, {}
    values["model"], evidence["model"] = special.decide_model(sentences, scope, vocab)
    values["method"], evidence["method"] = special.decide_method(sentences, scope, vocab, mentions["method"])
    one_based = any(vocab.one_based.search(s.low) for s in in_scope)
    values["layer"], evidence["layer"] = D.decide_layer(mentions["layer"], one_based)
    values["location"], evidence["location"] = D.decide_single(mentions["location"])
    values["tokens"], evidence["tokens"] = D.decide_tokens(mentions["tokens"])
    for key, order in SLOT_ORDER.items():
        values[key], evidence[key] = D.decide_slots(key, mentions[key], order)
    if isinstance(values["reshape"], dict):
        values["reshape"] = _resolve_formula(values["reshape"], sentences)
    if method_name(values["method"]) in CLASS_AGNOSTIC_METHODS and isinstance(values["target"], dict) \
            and not values["target"].get("kind"):
        # EigenCAM differentiates no score: "the same map whatever the prediction" states no target
        values["target"], evidence["target"] = None, []
    values["weighting"], evidence["weighting"] = D.decide_single(mentions["weighting"])
    values["relu"], evidence["relu"] = D.decide_single(mentions["relu"], multi_in_sentence=True)
    values["implementation"], evidence["implementation"] = special.decide_implementation(sentences, scope, vocab)
    result.values, result.evidence = values, evidence
    result.anchor = anchor(mentions["method"], evidence, in_scope, sentences, scope.cam_titles)
    result.bibliography = bibliography or {}
    own = {s.index for s in doc.sections if s.role not in ("related", "introduction", "references")}
    sizes = sorted((prio, pos) for prio, size, sec, pos in doc.raw_sizes if sec in own for pos in [size])
    result.input_size = sizes[0][1] if sizes else None
    result.presets = _presets_followed(in_scope, result.bibliography)
    result.model_names = [m.group(0) for s in sentences if scope.role_ok(s) and s.section.role != "introduction"
                          and scope.attribution.own(s) for m in vocab.transformer.finditer(s.low)]
    result.conv_stage = result.uses_cam and maps_at_conv_stage(result, vocab, cam_rx)
    return result


def _model_has_no_prefix_tokens(vocab, sentences: list[Sentence], in_scope: list[Sentence], scope: Scope) -> list:
    """"The encoder has no class token" is said where the model is described, outside the CAM
    section: a property of the paper's own model, it states the token handling wherever it stands."""
    seen = {id(s) for s in in_scope}
    absent = [rx for e in vocab.entries["tokens"] if e.slot == "absent" for rx in e.patterns]
    return [m for s in sentences
            if id(s) not in seen and any(rx.search(s.low) for rx in absent)
            and scope.role_ok(s) and s.section.role != "introduction"
            and s.unit.kind not in ("heading", "title") and scope.attribution.own(s)
            for m in Mn.find(vocab, "tokens", s) if m.slot == "absent"]


def _presets_followed(in_scope: list[Sentence], bib: dict) -> list:
    """Published adaptations a CAM sentence cites or names: they fix what they fix."""
    from camlint.core.presets import presets_cited

    found, seen = [], set()
    v = vocabulary()
    for s in in_scope:
        # a preset counts where the paper says it follows it, not where it is merely cited
        if not v.follows.search(s.low) or v.contrast.search(s.low):
            continue
        texts = [bib.get(k, "") for k in s.cites()] + [s.text]
        for p in presets_cited(texts):
            if p.name not in seen:
                seen.add(p.name)
                line, col = s.line_col(0)
                found.append((p, Evidence(s.unit.file.display, line, col, " ".join(s.text.split())[:100])))
    return found
