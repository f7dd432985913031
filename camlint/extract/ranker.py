"""The learned line ranker: a first stage that proposes where a paper states an item the
vocabulary found nowhere in its CAM scope.

Per checklist key, a logistic regression over the TF-IDF features of a line with its neighbours
and its section title (camlint.extract.linefeatures), trained by tools/train_line_ranker.py on
the labelled dev corpus and shipped as data (line_ranker.json.gz). Scoring a line is a sparse dot
product in pure Python; the weights are read the first time they are needed.

The ranker never decides anything alone: for a key with no mention at all, the sentences it
scores above the key's threshold (chosen by cross-validation) are read by the key's ordinary
value parsers, and only the paper's own sentences (scope roles, attribution) are read at all.
A proposed sentence in which no parser finds the key adds nothing.
"""
from __future__ import annotations

import functools
import gzip
import importlib.resources
import json

from camlint.core.vocab import ATTENTION_LOCATIONS
from camlint.core.wording import low
from camlint.core.values import location_point
from camlint.extract import linefeatures as LF
from camlint.extract import mentions as Mn

WEIGHTS = "line_ranker.json.gz"
# keys read by the generic parsers (camlint.extract.mentions); model, method and implementation
# are already read in every section of the paper's own work
RANKED_KEYS = ("layer", "location", "target", "tokens", "reshape", "weighting", "heads", "relu", "postprocess")
MAX_CANDIDATES = 3        # sentences read per key


@functools.lru_cache(maxsize=1)
def model() -> dict:
    raw = (importlib.resources.files("camlint.extract") / WEIGHTS).read_bytes()
    return json.loads(gzip.decompress(raw))


def dot(key_model: dict, vector: dict[str, float]) -> float:
    """The key's score of one featurised line (the logistic regression's decision value)."""
    weights = key_model["weights"]
    return key_model["bias"] + sum(v * weights.get(t, 0.0) for t, v in vector.items())


class LineScorer:
    """Scores the lines of one document, featurising each line once for every key."""

    def __init__(self):
        self.model = model()
        self._files: dict[int, LF.FileLines] = {}
        self._vectors: dict[tuple, dict[str, float] | None] = {}

    def vector(self, file, line: int, title: str) -> dict[str, float] | None:
        key = (id(file), line, title)
        if key not in self._vectors:
            lines = self._files.get(id(file))
            if lines is None:
                lines = self._files[id(file)] = LF.FileLines(file.masked or file.text)
            ctx = lines.context(line, title)
            self._vectors[key] = None if ctx is None else LF.weigh(LF.raw_terms(ctx), self.model["idf"])
        return self._vectors[key]

    def sentence_score(self, key: str, s) -> float:
        """The best score of the lines a sentence spans."""
        text = s.text.rstrip()
        first, last = s.line_col(len(text) - len(text.lstrip()))[0], s.line_col(max(len(text) - 1, 0))[0]
        scores = [dot(self.model["keys"][key], v) for line in range(first, last + 1)
                  if (v := self.vector(s.unit.file, line, s.section.title or "")) is not None]
        return max(scores, default=float("-inf"))


def candidates(key: str, sentences, scorer: LineScorer, threshold: float) -> list:
    """The sentences scored at or above the threshold, best first, at most MAX_CANDIDATES."""
    scored = [(scorer.sentence_score(key, s), i, s) for i, s in enumerate(sentences)]
    return [s for score, _, s in sorted(scored, key=lambda x: (-x[0], x[1])) if score >= threshold][:MAX_CANDIDATES]


def propose_mentions(vocab, mentions: dict, sentences, in_scope, scope) -> None:
    """For each ranked key with no mention: read the ranker's candidate sentences of the paper's
    own work (outside the CAM scope already read) with the key's parsers; add what they find."""
    attention = any(location_point(m.value) in ATTENTION_LOCATIONS for m in mentions["location"])
    # heads apply only to an attention-matrix location: otherwise not applicable, whatever is found
    todo = [k for k in RANKED_KEYS if not mentions[k] and (k != "heads" or attention)]
    if not todo:
        return
    seen = {id(s) for s in in_scope}
    # a table row is a CAM setting only in a table the CAM text points to (scope decides that);
    # a section or run-in paragraph about training, data or a CNN comparator is not the map's
    # ("the tenth block was frozen during fine-tuning" states no layer of the map)
    own = [s for s in sentences if id(s) not in seen and s.unit.kind not in ("heading", "title", "row")
           and scope.role_ok(s) and s.section.role != "introduction" and scope.attribution.own(s)
           and not vocab.other_section.search(low(s.section.title or "")) and id(s.unit) not in scope.other_units]
    scorer = None
    for key in todo:
        readable = [s for s in own if vocab.any_entry[key].search(s.low)]
        if not readable:
            continue
        scorer = scorer or LineScorer()
        if key not in scorer.model["keys"]:
            continue
        for s in candidates(key, readable, scorer, scorer.model["keys"][key]["threshold"]):
            mentions[key].extend(Mn.find(vocab, key, s))
