"""Values told by the order of the steps, not by one sentence: "The weighted sum of the feature
maps is computed. Finally, a ReLU is applied." The second sentence alone leaves the stage of
the rectification open; read as the step after a combination, it rectifies that combination."""
from __future__ import annotations

from dataclasses import replace

from camlint.core.wording import low
from camlint.extract.mentions import Mention
from camlint.extract.vocab import Vocabulary

# how far back the step before is looked for: the sentence just before, in the same paragraph
PREVIOUS_CHARS = 300


def relu_after_previous_step(vocab: Vocabulary, mentions: list[Mention]) -> list[Mention]:
    """An open rectification in a sentence that opens as the next step, right after a sentence
    that combines the channels (or heads), is read as `after_combination`. A sentence that
    states a stage itself is left as it is."""
    stated = {id(m.sentence) for m in mentions if not m.vague}
    return [_sequel(vocab, m) if m.vague and id(m.sentence) not in stated else m for m in mentions]


def _sequel(vocab: Vocabulary, m: Mention) -> Mention:
    s = m.sentence
    # the step holding the mention and the one before it; a sentence the splitter did not end
    # ("... of Chattopadhay et al. The result is passed through a ReLU") holds both
    text = low(s.unit.text[max(0, s.start - PREVIOUS_CHARS):s.start + m.start])
    before, _, step = text.rpartition(". ")
    if not vocab.phrases["sequel_opening"].search(step):
        return m
    previous = before.rpartition(". ")[2]
    if not vocab.phrases["combination_step"].search(previous):
        return m
    return replace(m, value="after_combination")
