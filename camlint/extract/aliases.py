"""Names a paper gives its own models ("hereafter DermNet-T", "we refer to this model as M",
"(ViT-MED below)"; the patterns are vocabulary.yaml's `alias_definition`, group 1 the name):
the settings sentences then name the alias, not the architecture, so the
alias is read as the kind of model (transformer or CNN) its defining sentence names."""
from __future__ import annotations

import dataclasses
import re

from camlint.extract.vocab import Vocabulary
from camlint.inputs.latex.units import Sentence

MAX_ALIASES = 20     # a paper names a handful of models; more is noise (and patterns stay small)
_NOT_A_NAME = frozenset({"the", "a", "an", "it", "this", "that", "our", "model", "network", "ours",
                         "baseline", "follows", "below", "above", "and", "or", "in", "as", "we", "is"})


def _kind(vocab: Vocabulary, text: str, at: int) -> str | None:
    """The kind of model named in the defining sentence, the nearest one before the alias first."""
    found = [(a, kind) for kind, rx in (("transformer", vocab.transformer), ("cnn", vocab.cnn))
             for m in rx.finditer(text) for a in [m.start()]]
    if not found:
        return None
    before = [f for f in found if f[0] < at]
    return max(before)[1] if before else min(found)[1]


def aliases(vocab: Vocabulary, sentences: list[Sentence]) -> dict[str, str]:
    """alias (lower case) -> "transformer" or "cnn", from the sentences that define one."""
    out: dict[str, str] = {}
    for s in sentences:
        for rx in vocab.phrase_lists["alias_definition"]:
            for m in rx.finditer(s.low):
                name = m.group(1).strip(".,;:")
                if len(name) < 2 or name in _NOT_A_NAME or len(out) >= MAX_ALIASES:
                    continue
                # the alias itself may look like a model name: read the kind from the rest
                rest = s.low[:m.start(1)] + " " * len(m.group(1)) + s.low[m.end(1):]
                kind = _kind(vocab, rest, m.start(1))
                if kind is not None:
                    out.setdefault(name, kind)
    out.update(_corrected(vocab, sentences))
    return out


def _corrected(vocab: Vocabulary, sentences: list[Sentence]) -> dict[str, str]:
    """"Despite its name, GrainFormer is a purely convolutional network": the correction decides
    the kind of the name for the whole paper, over any alias definition."""
    out: dict[str, str] = {}
    for s in sentences:
        m = vocab.phrases["name_kind_correction"].search(s.low)
        name = m.group(1).strip(".,;:") if m else ""
        if len(name) < 2 or name in _NOT_A_NAME or len(out) >= MAX_ALIASES:
            continue
        rest = s.low[m.end():]
        if vocab.phrases["name_kind_cnn"].search(rest):
            out[name] = "cnn"
        elif vocab.transformer.search(rest):
            out[name] = "transformer"
    return out


def with_aliases(vocab: Vocabulary, sentences: list[Sentence]) -> Vocabulary:
    """The vocabulary of one document: its model aliases count as the models they stand for."""
    found = aliases(vocab, sentences)
    if not found:
        return vocab

    def names(kind: str) -> str:
        return "|".join(rf"\b{re.escape(a)}(?![\w-])" for a, k in found.items() if k == kind)

    transformer, cnn = names("transformer"), names("cnn")
    return dataclasses.replace(
        vocab,
        transformer=vocab.transformer.extended(transformer) if transformer else vocab.transformer,
        cnn=vocab.cnn.extended(cnn) if cnn else vocab.cnn)
