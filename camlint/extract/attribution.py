"""Whose procedure does a sentence describe? Only the paper's own CAM settings fill the checklist.

Every sentence gets one attribution before any value is accepted:
- OWN: the paper's own procedure (the default);
- OTHER: a cited or compared method ("against 61.2% for attention rollout [cite]"), another
  explanation method (rollout, occlusion, integrated gradients) with no CAM method named;
- CNN: a convolutional baseline or comparator (named in the sentence, or the sentence sits in a
  subsection about it, or refers back to it: "for this comparator");
- EVALUATION: a measured result in the experiments ("class probability: 0.46 on average");
- RELATED: related work, the introduction, the references, acknowledgements, and a section about
  future work (a plan is not a procedure the paper applies).
"""
from __future__ import annotations

import re

from camlint.extract.hybrid import part_of_hybrid
from camlint.extract.vocab import Vocabulary
from camlint.core.wording import low
from camlint.inputs.latex.units import Sentence

OWN, OTHER, CNN, RELATED, EVALUATION = "own", "other", "cnn", "related", "evaluation"
_SENTENCE_END = re.compile(r"[.!?]\s+")
_CNN_WORDS = re.compile(r"\bconvolutional\b|\bcnns?\b")
RELATED_ROLES = frozenset({"related", "introduction", "references", "acknowledgements"})


class Attribution:
    def __init__(self, vocab: Vocabulary):
        self.vocab = vocab
        self._cache: dict[tuple[int, int], str] = {}

    def of(self, s: Sentence) -> str:
        key = (id(s.unit), s.start)
        if key not in self._cache:
            self._cache[key] = self._attribute(s)
        return self._cache[key]

    def _attribute(self, s: Sentence) -> str:
        v = self.vocab
        if s.section.role in RELATED_ROLES:
            return RELATED
        if planned(self.vocab, s) or (s.section.title and self.vocab.review_section.search(low(s.section.title))):
            return RELATED
        if s.section.title and v.phrases["reviewer_section"].search(low(s.section.title)) \
                and self._in_reviewer_comment(s):
            return OTHER     # a reviewer's numbered comment, quoted in a response letter
        text = s.low
        if s.unit.kind == "row" and "[cite]" in text and not v.phrases["first_person"].search(text):
            return OTHER     # a table row that cites its source: another paper's method and figures
        transformer = bool(v.transformer.search(text))
        own_text = v.phrases["contrast_aside"].sub(" ", text)   # what an aside sets apart is not the subject
        if not transformer:
            if self._names_cnn(own_text) or v.baseline_reference.search(own_text) or self._continues_cnn(s):
                return CNN
            if s.section.title and self._cnn_title(low(s.section.title)):
                return CNN
        elif s.section.title and v.phrases["compared_section"].search(low(s.section.title)):
            return OTHER     # "Baselines": the compared methods, applied to the same transformer
        if v.other_methods.search(own_text) and not v.cam_triggers.search(text):
            return OTHER
        if v.cited_other.search(text) or v.request_words.search(text) or v.phrases["catalogue"].search(text):
            return OTHER
        if s.section.role == "experiments" and v.evaluation.match(text):
            return EVALUATION
        return OWN

    def _cnn_title(self, title: str) -> bool:
        """A section about a convolutional baseline; "Grad-CAM baseline" (a CAM method named, no CNN)
        is the paper's own CAM run offered as a baseline, not a CNN."""
        v = self.vocab
        if not v.cnn_section.search(title):
            return False
        return not v.cam_triggers.search(title) or self._names_cnn(title) or bool(_CNN_WORDS.search(title))

    def _in_reviewer_comment(self, s: Sentence) -> bool:
        """In a response letter, is the sentence part of a quoted comment ("Q2.1: Which layer ...?")
        rather than the authors' answer that follows it in the same paragraph ("Response. We ...")?
        The nearest marker at a sentence start, up to and including this sentence, decides."""
        comment, answer = self.vocab.phrases["reviewer_comment"], self.vocab.phrases["reviewer_answer"]
        text = low(s.unit.text[:s.end])
        starts = [0] + [m.end() for m in _SENTENCE_END.finditer(text)]
        for start in reversed([p for p in starts if p <= s.start]):
            if answer.match(text, start):
                return False
            if comment.match(text, start):
                return True
        return False

    def _names_cnn(self, text: str) -> bool:
        """A CNN that is not a part of the paper's hybrid ("the ResNet-50 stem of the hybrid")."""
        return any(not part_of_hybrid(text, m.start(), m.end(), self.vocab.transformer)
                   for m in self.vocab.cnn.finditer(text))

    def _continues_cnn(self, s: Sentence) -> bool:
        """"A ResNet-50 is explained at layer4. Its gradients are averaged ...": a sentence that
        refers back ("its", "they", "the resulting map") to a sentence about a CNN, and names no
        model itself, is about that CNN too."""
        v = self.vocab
        if not (v.phrases["anaphora"].match(s.low) or v.phrases["refers_back"].match(s.low)):
            return False
        before = s.unit.text[:s.start].rstrip()
        if not before:
            return False
        starts = [m.end() for m in _SENTENCE_END.finditer(before[:-1])]
        start = starts[-1] if starts else 0
        previous = Sentence(s.unit, start, len(before), before[start:])
        return self.of(previous) == CNN

    def own(self, s: Sentence) -> bool:
        return self.of(s) == OWN


def planned(vocab: Vocabulary, s: Sentence) -> bool:
    """The sentence stands in a section about future work, or speaks of future work, a plan or a
    hypothetical: what it describes is not done."""
    if s.section.title and vocab.phrases["plan_section"].search(low(s.section.title)):
        return True
    return bool(vocab.phrases["plan_sentence"].search(s.low))
