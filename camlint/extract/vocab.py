"""Load and compile vocabulary.yaml (the words camlint reads) once per process."""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from camlint.core import items
from camlint.core.wording import vocabulary_data, vocabulary_text
from camlint.extract.literals import AnyOf, compile_filtered

FLAGS = 0   # patterns are lower case and run on lower-cased text: much faster than re.I


def _rx(pattern: str) -> re.Pattern:
    return compile_filtered(pattern, FLAGS)   # skips text without a word every match spells out


def _any(patterns) -> re.Pattern:
    patterns = list(patterns)
    if patterns and all(p.startswith("\\b") for p in patterns):
        # one word boundary test before the alternatives: the union is tried at word starts only
        return _rx("\\b(?:" + "|".join(f"(?:{p[2:]})" for p in patterns) + ")")
    return _rx("|".join(f"(?:{p})" for p in patterns))


@dataclass(frozen=True)
class Entry:
    key: str
    slot: str
    value: object
    patterns: tuple[re.Pattern, ...]
    needs: str | None = None
    negated: str | None = None
    strength: int = 1
    parse: str | None = None

    @property
    def vague(self) -> bool:
        return self.value == "vague"


@dataclass
class Vocabulary:
    prefilter: re.Pattern
    prefilter_models: re.Pattern
    cam_triggers: re.Pattern
    cam_titles: re.Pattern
    contrast: re.Pattern
    negation: re.Pattern
    transformer: "_Unless"
    cnn: "_Unless"
    cues: dict[str, re.Pattern]
    map_words: re.Pattern = None
    other_methods: re.Pattern = None
    explanation_words: re.Pattern = None
    follows: re.Pattern = None
    baseline_reference: re.Pattern = None
    cnn_section: re.Pattern = None
    cited_other: re.Pattern = None
    baseline_words: re.Pattern = None
    review_section: re.Pattern = None
    request_words: re.Pattern = None
    evaluation: re.Pattern = None
    target_statement: re.Pattern = None
    one_based: re.Pattern = None
    ingredient_titles: re.Pattern = None
    other_section: re.Pattern = None
    phrases: dict[str, re.Pattern] = field(default_factory=dict)     # named patterns (vocabulary.yaml `phrases`)
    phrase_lists: dict[str, list[re.Pattern]] = field(default_factory=dict)   # the same, one by one, in order
    tables: dict = field(default_factory=dict)     # word -> number tables and word lists
    entries: dict[str, list[Entry]] = field(default_factory=dict)
    any_entry: dict[str, AnyOf] = field(default_factory=dict)   # quick reject per key
    model: dict = field(default_factory=dict)
    implementation: dict = field(default_factory=dict)
    digest: str = ""


def _entries(key: str, raw: list[dict]) -> list[Entry]:
    out = []
    for e in raw:
        out.append(Entry(key, e.get("slot", "value"), e.get("value"),
                         tuple(_rx(p) for p in e["patterns"]), e.get("needs"), e.get("negated"),
                         int(e.get("strength", 1)), e.get("parse")))
    return out


_WORD_REF = re.compile(r"\{\{(\w+)\}\}")


def _expand(node, words: dict):
    """Put the shared word classes (`words` in vocabulary.yaml) into patterns that name them:
    {{removed}} -> (?:discard...|drop...|...), so one list of verbs serves every entry."""
    if isinstance(node, str):
        return _WORD_REF.sub(lambda m: f"(?:{words[m.group(1)]})", node)
    if isinstance(node, list):
        return [_expand(x, words) for x in node]
    if isinstance(node, dict):
        return {k: _expand(x, words) for k, x in node.items()}
    return node


@functools.lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    import hashlib

    text = vocabulary_text()
    raw = dict(vocabulary_data())   # the cached data is shared: expand a copy
    raw = _expand(raw, raw.pop("words", {}))
    v = Vocabulary(
        prefilter=_rx(re.sub(r"\s+", "", raw["prefilter"])),
        prefilter_models=_rx(re.sub(r"\s+", "", raw["prefilter_models"])),
        cam_triggers=_any(raw["cam_triggers"]),
        cam_titles=_any(raw["cam_titles"]),
        contrast=_any(raw["contrast_cues"]),
        negation=_rx(raw["negation_cues"]),
        transformer=_Unless(_any(raw["transformer_models"]), _rx(raw["transformer_design"])),
        cnn=_Unless(_any(raw["cnn_models"]), _rx(raw["cnn_origin"])),
        cues={k: _rx(p) for k, p in raw["cues"].items()},
        map_words=_rx(raw["map_words"]),
        other_methods=_rx(raw["other_methods"]),
        explanation_words=_rx(raw["explanation_words"]),
        follows=_rx(raw["follows"]),
        baseline_reference=_rx(raw["baseline_reference"]),
        cnn_section=_rx(raw["cnn_section"]),
        cited_other=_rx(raw["cited_other"]),
        baseline_words=_rx(raw["baseline_words"]),
        review_section=_rx(raw["review_section"]),
        request_words=_rx(raw["request_words"]),
        evaluation=_rx(raw["evaluation"]),
        target_statement=_rx(raw["target_statement"]),
        one_based=_rx(raw["one_based"]),
        ingredient_titles=_rx(raw["ingredient_titles"]),
        other_section=_rx(raw["other_section"]),
        digest=hashlib.sha256(text.encode()).hexdigest()[:16],
        phrases={k: _any(p) if isinstance(p, list) else _rx(p) for k, p in raw["phrases"].items()},
        phrase_lists={k: [_rx(x) for x in p] for k, p in raw["phrases"].items() if isinstance(p, list)},
        tables={"ordinals": raw["ordinals"], "counts": raw["counts"], "not_a_class": frozenset(raw["not_a_class"])},
    )
    for key in (i.key for i in items.items() if i.phrases):
        v.entries[key] = _entries(key, raw[key])
        v.any_entry[key] = AnyOf([rx for e in v.entries[key] for rx in e.patterns])
    m = raw["model"]
    # weights patterns run one by one: a union would let an early, vaguer match hide a precise one
    v.model = {"arch": _any(m["arch"]), "weights_ids": [_rx(p) for p in m["weights_ids"]],
               "weights": [_rx(p) for p in m["weights"]],
               "vague_weights": _any(m["vague_weights"]),
               "registry": _rx(m["registry"]), "registry_weights": _rx(m["registry_weights"]),
               "no_weights": _rx(m["no_weights"]), "starts_from": _rx(m["starts_from"])}
    imp = raw["implementation"]
    v.implementation = {
        "libraries": [(lib["name"], _any(lib["patterns"])) for lib in imp["libraries"]],
        "version": [_rx(p) for p in imp["version"]],
        "own_code": _any(imp["own_code"]),
        "unnamed_library": _rx(imp["unnamed_library"]),
        "version_before": _rx(imp["version_before"]),
        "release": [_rx(p) for p in imp["release"]],
    }
    return v


class _Unless:
    """A pattern that does not count inside the clauses `unless` matches (a method's origin)."""

    def __init__(self, rx: re.Pattern, unless: re.Pattern):
        self.rx, self.unless = rx, unless

    def _masked(self, text: str) -> str:
        return self.unless.sub(lambda m: " " * len(m.group(0)), text)   # same length: offsets hold

    def search(self, text: str):
        return self.rx.search(self._masked(text))

    def finditer(self, text: str):
        return self.rx.finditer(self._masked(text))

    def extended(self, alternatives: str) -> "_Unless":
        """The same pattern with more alternatives (a paper's aliases for its models)."""
        return _Unless(re.compile(f"{self.rx.pattern}|{alternatives}"), self.unless)
