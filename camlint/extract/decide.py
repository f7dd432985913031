"""Per-key decisions: from the mentions of a key to a camspec-shaped value and its evidence.

A concrete mention of a slot beats a vague one; among concrete mentions the strongest wins
(code identifiers over prose), then the one in the method section over the abstract, then the
first in reading order. A key with only vague mentions gets {"text": ...}, which the judge
reads as partial.
"""
from __future__ import annotations

import re
from collections import defaultdict

from camlint.extract.mentions import Mention
from camlint.extract.scope import clause_before
from camlint.rules.findings import Evidence

MAX_EVIDENCE = 4


# A mention in a clause that gives a reason or sets something apart ("rather than from the
# last, because the last block ...") is not the statement of the setting.
_ASIDE = re.compile(r"\b(?:because|since|whereas|unlike|rather than|instead of|as opposed to)\b"
                    # "..., as our colleagues advised that the very last layer gives blurry maps"
                    r"|\bas (?:[\w'-]+ ){1,3}(?:advised|suggested|recommended|noted|observed|reported|found|warned)\b")


def best(mentions: list[Mention]) -> Mention | None:
    """The mention that states the value: one in a sentence that states it, before one in an
    aside or in a sentence that lists several values of the slot (a glossary of the modules of
    a block, a list of options), then by strength, section and kind."""
    if not mentions:
        return None
    listed = _listing_sentences(mentions)
    ranks = [((id(m.sentence), m.slot) not in listed, not _ASIDE.search(clause_before(m.sentence.low, m.start)))
             + m.rank() for m in mentions]
    return mentions[ranks.index(max(ranks))]


def _aside(m: Mention) -> bool:
    return bool(_ASIDE.search(clause_before(m.sentence.low, m.start)))


def _listing_sentences(mentions: list[Mention]) -> set[tuple[int, str]]:
    """(sentence, slot) pairs where one sentence names three or more values of the slot."""
    values: dict[tuple[int, str], set] = defaultdict(set)
    for m in mentions:
        if not m.vague:
            values[(id(m.sentence), m.slot)].add(repr(m.value))
    return {k for k, v in values.items() if len(v) >= 3}


def evidence_of(mentions: list[Mention], primary: Mention | None) -> list[Evidence]:
    """Primary mention first, then other lines saying the same (one evidence per line)."""
    ordered = ([primary] if primary else []) + [m for m in mentions if m is not primary]
    out, seen = [], set()
    for m in ordered:
        file, line, col = m.position()
        if (file, line) in seen:
            continue
        seen.add((file, line))
        out.append(Evidence(file, line, col, _snippet(m)))
        if len(out) >= MAX_EVIDENCE:
            break
    return out


def _snippet(m: Mention, width: int = 100) -> str:
    text = m.sentence.text
    a = max(0, m.start - 40)
    b = min(len(text), max(m.end + 40, a + 60))
    snippet = " ".join(text[a:b].split())
    return snippet if len(snippet) <= width else snippet[:width - 1] + "…"


def _vague_value(mentions: list[Mention]) -> dict:
    m = best(mentions)
    return {"text": " ".join(m.text.split())}


def decide_slots(key: str, mentions: list[Mention], order: tuple[str, ...]) -> tuple[object, list[Evidence]]:
    """Generic decision for keys made of named slots (target, heads, postprocess, reshape...)."""
    concrete = [m for m in mentions if not m.vague]
    if not concrete:
        if not mentions:
            return None, []
        return _vague_value(mentions), evidence_of(mentions, best(mentions))
    by_slot: dict[str, list[Mention]] = defaultdict(list)
    for m in concrete:
        by_slot[m.slot].append(m)
    value, used = {}, []
    for slot in order:
        if slot in by_slot:
            chosen = best(by_slot[slot])
            value[slot] = chosen.value
            used.extend(x for x in by_slot[slot] if x.value == chosen.value)
    primary = next((best(by_slot[s]) for s in order if s in by_slot), None)
    return value, evidence_of(used, primary)


def decide_single(mentions: list[Mention], multi_in_sentence: bool = False) -> tuple[object, list[Evidence]]:
    """Keys with one value (location, weighting, relu); relu may hold several from one sentence."""
    concrete = [m for m in mentions if not m.vague]
    if not concrete:
        if not mentions:
            return None, []
        return _vague_value(mentions), evidence_of(mentions, best(mentions))
    chosen = best(concrete)
    if chosen.strength <= 0 and any(m.vague and m.strength > 0 for m in mentions):
        # a weak reading (a variant's "positive gradient" weight) yields to the paper's own
        # sentence about rectification, even one that leaves the stage open
        return _vague_value([m for m in mentions if m.vague]), evidence_of(mentions, best(mentions))
    value = chosen.value
    if multi_in_sentence:
        same = sorted({m.value for m in concrete if m.sentence is chosen.sentence},
                      key=lambda v: ["on_gradients", "on_products", "after_combination", "none"].index(v)
                      if v in ("on_gradients", "on_products", "after_combination", "none") else 9)
        if len(same) > 1 and "none" not in same:
            value = same
    agreeing = [m for m in concrete if m.value == chosen.value or (isinstance(value, list) and m.value in value)]
    return value, evidence_of(agreeing, chosen)


def decide_layer(mentions: list[Mention], one_based: bool = False) -> tuple[object, list[Evidence]]:
    """`one_based`: the paper counts blocks from one, so "block 10" and "blocks 9-12" shift by one."""
    where = [m for m in mentions if m.slot == "where" and not m.vague]
    if not where:
        vague = [m for m in mentions if m.vague]
        if not vague:
            return None, []
        return _vague_value(vague), evidence_of(vague, best(vague))
    chosen = best(where)
    vague = [m for m in mentions if m.vague and m.slot == "where" and not _aside(m)]
    if _aside(chosen) and vague:
        # the only block named is in a reason ("..., as colleagues advised that the last layer is
        # blurry"); the statement itself says "one of the later layers"
        return _vague_value(vague), evidence_of(vague, best(vague))
    value = dict(chosen.value) if isinstance(chosen.value, dict) else {"block": chosen.value}
    value.pop("ordinal", None)
    if one_based and chosen.data.get("counted"):
        if "blocks" in value:
            value["blocks"] = [b - 1 for b in value["blocks"]]
        elif isinstance(value.get("block"), int):
            value["block"] -= 1
    combine = []
    if "blocks" in value and len(value["blocks"]) > 1:
        combine = [m for m in mentions if m.slot == "combine"]
        if combine:
            value["combine"] = best(combine).value
    same = [m for m in where if _same_layer(m.value, chosen.value)]
    return value, evidence_of(same + combine, chosen)


def _same_layer(a, b) -> bool:
    def norm(v):
        if isinstance(v, dict):
            return tuple(sorted((k, tuple(x) if isinstance(x, list) else x) for k, x in v.items() if k != "ordinal"))
        return v
    return norm(a) == norm(b)


def decide_tokens(mentions: list[Mention]) -> tuple[object, list[Evidence]]:
    concrete = [m for m in mentions if not m.vague]
    if not concrete:
        if not mentions:
            return None, []
        return _vague_value(mentions), evidence_of(mentions, best(mentions))
    drops = [m for m in concrete if m.slot == "drop"]
    value: dict = {}
    if drops:
        kept = [m for m in drops if m.value == "kept"]
        dropped = [m for m in drops if m.value != "kept"]
        chosen = best(dropped) if dropped and (not kept or best(dropped).rank() >= best(kept).rank()) else best(kept)
        if chosen.value == "kept":
            value["drop"] = []
            used = kept
        else:
            names = []
            for m in dropped:
                for v in (m.value if isinstance(m.value, list) else [m.value]):
                    if v not in names:
                        names.append(v)
            value["drop"] = sorted(names, key=["cls", "dist", "registers"].index)
            used = dropped
    else:
        used, chosen = [], None
    absent = [m for m in concrete if m.slot == "absent"]
    if absent and not drops:     # "the encoder has no class token": nothing to drop, stated outright
        value["keep"] = "no prefix tokens"
        used, chosen = absent, best(absent)
    grads = [m for m in concrete if m.slot == "gradients_from"]
    if grads:
        value["gradients_from"] = "cls"
        used = used + grads
        chosen = chosen or best(grads)
    return value, evidence_of(used, chosen)
