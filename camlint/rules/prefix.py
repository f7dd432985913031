"""Which prefix tokens ([CLS], distillation, registers) the stated token policy keeps (CAM201)."""
from __future__ import annotations

import re

from camlint.rules import facts as F


def kept_prefix(a) -> dict[str, int]:
    """Prefix tokens of the architecture that the stated token policy keeps: name -> count."""
    info = a.arch
    drop = F.dropped(a.values.get("tokens"))
    if drop is None or (info is not None and info.family == "swin") or not _kept_where_maps_are_stated(a):
        return {}
    if info is None:
        present = {"cls": 1}                     # a ViT whose name we cannot read: one [CLS]
    else:
        distilled = int("distill" in info.name)
        present = {"cls": int(info.has_cls), "dist": distilled,
                   "registers": info.num_prefix_tokens - int(info.has_cls) - distilled}
    drop = set(drop) | _dropped_by_name(a)
    return {k: n for k, n in present.items() if n > 0 and k not in drop}


_KEPT = re.compile(r"\b(?:keep\w*|kept|retain\w*|preserv\w*)\b")
_PREFIX_WORDS = {"dist": re.compile(r"\bdistill"), "registers": re.compile(r"\bregisters?\b")}


def _dropped_by_name(a) -> set[str]:
    """Prefix tokens named in a sentence that drops tokens ("the class token and the distillation
    token were removed"), where the drop was read for [CLS] alone."""
    if a.prose is None:
        return set()
    said = [m.sentence.low for m in a.prose.mentions.get("tokens", [])
            if m.slot == "drop" and not m.vague and not _KEPT.search(m.sentence.low)]
    return {k for k, rx in _PREFIX_WORDS.items() if any(rx.search(low) for low in said)}


def _kept_where_maps_are_stated(a) -> bool:
    """A kept prefix token is the paper's policy where the camspec gives the policy or a sentence
    in the part of the paper that states its maps keeps it; a sentence elsewhere sets the reader
    a task or speaks of other maps ("Exercise: keep the class token and try to reshape 197 tokens")."""
    if a.prose is None or any(F.dropped(src.data.get("tokens")) is not None for src in a.specs):
        return True
    kept = [m for m in a.prose.mentions.get("tokens", []) if m.value == "kept" and not m.vague]
    return not kept or any(a.prose.scope.in_scope(m.sentence) and not _kept_outside(m) for m in kept)


def _kept_outside(m) -> bool:
    """"The class token is kept for the classification head", "kept aside": kept, but not in the
    sequence that is reshaped."""
    from camlint.rules.keptgrid import kept_outside_sequence

    return kept_outside_sequence(m.sentence.low[m.end:m.end + 40])
