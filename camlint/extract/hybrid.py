"""The convolutional part of a hybrid transformer (the ResNet stem of R50+ViT-B/16, CoAtNet's
MBConv stages, a ConvNeXt-like stage of a hybrid).

A CNN named as a part of the paper's hybrid ("the third stage of the ResNet-50 stem of the
hybrid") is the transformer, not a CNN baseline. A map taken there is a natively spatial
feature map: no tokens to drop, no reshape, no place inside a transformer block, no heads, so
those items are not applicable unless the paper says something about them (corpus README:
not_applicable where the item does not apply; taxonomy: hybrids keep spatial maps per stage).
"""
from __future__ import annotations

import re

# "<CNN> stem of the hybrid", "<CNN> stage (S2) of CoAtNet-0", "<CNN> backbone inside the R50+ViT"
_PART_OF = re.compile(r"^[^.;:]{0,40}?\b(?:stem|stages?|backbone|trunk|branch|front[- ]end|tokeni[sz]er|"
                      r"blocks?|layers?)\b(?:\s*\([^)]{0,20}\))?\s+(?:of|in|inside|within)\s+"
                      r"(?:the\s+|our\s+|its\s+|this\s+)?")
# "the hybrid's ResNet stem", "R50+ViT-B/16's convolutional stage"
_OWNER_BEFORE = re.compile(r"(?:\bhybrid(?: model| network| transformer)?|[\w+/-]*vi-?t[\w+/-]*|coatnet[\w-]*)'s\s+"
                           r"(?:[\w-]+\s+){0,2}$")
_HYBRID_WORD = re.compile(r"^(?:[\w-]+\s+){0,2}?hybrid\b")
# a convolutional part named by itself: "the convolutional stem", "the ResNet stem", "the MBConv stages"
_CONV_STEM = re.compile(r"\b(?:conv(?:olutional)?|cnn|resnet[\w-]*|r50|r26|mbconv|convnext[\w-]*)\s+"
                        r"(?:stem|stages?|tokeni[sz]er|front[- ]end)\b|\bpatch_embed\.backbone\b|\bmbconv\b")


def part_of_hybrid(text: str, start: int, end: int, transformer: re.Pattern) -> bool:
    """The CNN named at text[start:end] is a part of a transformer (a hybrid) named with it."""
    if _OWNER_BEFORE.search(text[max(0, start - 40):start]):
        return True
    m = _PART_OF.match(text[end:end + 100])
    if not m:
        return False
    rest = text[end + m.end():end + m.end() + 40]
    named = transformer.search(rest)
    return bool(_HYBRID_WORD.match(rest) or (named and named.start() == 0))


def hybrid_model(names: list) -> bool:
    """The paper's model is a hybrid: a conv stem or conv stages under transformer blocks."""
    rx = re.compile(r"\b(?:vit_\w*_r(?:26|50)\w*|r(?:26|50)\s*\+\s*vit|resnet-?(?:26|50)\s*\+\s*vit|hybrid|"
                    r"coatnet|maxvit|mobilevit|cvt-\d|levit|efficientformer|fastvit)", re.I)
    return any(isinstance(n, str) and rx.search(n) for n in names)


def maps_at_conv_stage(ex, vocab, cam_rx: re.Pattern) -> bool:
    """The paper takes its maps at a convolutional part of its hybrid: the sentences that state
    the layer name one ("the last stage of the ResNet-50 stem of the hybrid"), or, where no
    layer is stated, a sentence of the CAM scope that applies the method or sets a hook does."""
    scope = ex.scope
    stated = [m.sentence for m in ex.mentions.get("layer", [])
              if m.slot == "where" and not m.vague and scope.attribution.own(m.sentence)]
    where = stated or [s for s in ex.sentences if scope.in_scope(s) and scope.attribution.own(s)
                       and (cam_rx.search(s.low) or "hook" in s.low)]
    model = ex.values.get("model")
    names = ([model.get("arch"), model.get("weights")] if isinstance(model, dict) else [model]) + ex.model_names
    return any(_names_conv_part(s.low, vocab, names) for s in where)


def _names_conv_part(low: str, vocab, names: list) -> bool:
    if any(part_of_hybrid(low, m.start(), m.end(), vocab.transformer) for m in vocab.cnn.finditer(low)):
        return True
    return bool(_CONV_STEM.search(low)) and hybrid_model(names)
