"""Candidate mentions: what one sentence says about one checklist key, with its position."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from camlint.extract.scope import KIND_RANK, ROLE_RANK, clause_after, clause_before
from camlint.extract.vocab import Entry, Vocabulary, vocabulary
from camlint.core.wording import low
from camlint.inputs.latex.units import Sentence


@dataclass
class Mention:
    key: str
    slot: str
    value: object                 # canonical value, "vague", or parsed data
    sentence: Sentence
    start: int                    # offsets within the sentence text
    end: int
    strength: int = 1
    data: dict = field(default_factory=dict)

    @property
    def vague(self) -> bool:
        return self.value == "vague"

    @property
    def text(self) -> str:
        return self.sentence.text[self.start:self.end]

    def position(self) -> tuple[str, int, int]:
        line, col = self.sentence.line_col(self.start)
        return self.sentence.unit.file.display, line, col

    def rank(self) -> tuple:
        s = self.sentence
        return (self.strength, ROLE_RANK.get(s.section.role, 2), KIND_RANK.get(s.unit.kind, 2))


def negated(vocab: Vocabulary, text: str, start: int) -> bool:
    return bool(vocab.negation.search(clause_before(text, start, 50)))


def _int(s: str) -> int | None:
    s = re.sub(r"^[lL]\s*=\s*", "", s.strip())
    try:
        return int(s)
    except ValueError:
        return None


def _parse(entry: Entry, m: re.Match) -> tuple[object, dict] | None:
    """(value, data) for entries whose value is read from the matched text."""
    g = m.groupdict()
    kind = entry.parse
    if kind in ("code", "index"):
        n = _int(g.get("n") or "")
        if n is None:
            return None
        counted = kind == "index" and n > 0 and "index" not in m.group(0).lower()
        return {"block": n}, ({"counted": True} if counted else {})
    if kind == "ordinal":
        word = g["ord"].lower()
        n = vocabulary().tables["ordinals"].get(word) or _int(re.sub(r"(st|nd|rd|th)$", "", word))
        if n is None:
            return None
        if "stage" in m.group(0).lower():
            return {"stage": n}, {}
        return {"block": n - 1, "ordinal": word}, {}
    if kind == "from_end":     # "the third-from-last block": the last is the first from the end
        word = g["ord"].lower()
        n = vocabulary().tables["ordinals"].get(word) or _int(re.sub(r"(st|nd|rd|th)$", "", word))
        return ({"block": -n}, {}) if n else None
    if kind == "list":
        return _block_list(g["list"])
    if kind == "code_list":     # module names carry code indices: never shifted for one-based prose
        return {"blocks": [int(x) for x in re.findall(r"-?\d+", g["list"])]}, {}
    if kind == "positions":
        return _positions(g["list"])
    if kind == "index_of":     # "layer 11 of 12": counted from one out of the total
        n, total = int(g["n"]), int(g["total"])
        return ({"block": n - 1}, {"of_total": True}) if 1 <= n <= total else None
    if kind == "last_n":
        word = g["n"].lower()
        n = vocabulary().tables["counts"].get(word) or _int(word)
        if not n or n > 48:
            return None
        return {"blocks": list(range(-n, 0))}, {}
    if kind == "grid":
        r, c = int(g["r"]), int(g.get("c") or g["r"])     # "a square grid, 16 cells a side"
        if not (2 <= r <= 256 and 2 <= c <= 256):
            return None
        named = re.match(r"\s*(?:[\w-]+\s+){0,2}?(?:grid|layout|lattice)\b", m.string[m.end():m.end() + 40])
        if max(r, c) > 64 and not named and not re.search(r"grid|layout|\brows?\b|\bcolumns?\b", m.group(0), re.I):
            return None   # 224 x 224 is an image size; a long side is a grid only when called one
        return [r, c], {}
    if kind == "square_count":   # "the 196 tokens are reshaped into a square grid": 14 x 14
        n = int(g["n"])
        side = round(n ** 0.5)
        return ([side, side], {}) if side * side == n and side >= 2 else None
    if kind == "formula":
        return {"formula": m.group(0), "patch": int(g["p"]) if g["p"].isdigit() else None}, {}
    if kind == "named_class":
        name = (g["name"] or "").lower() or "fixed class"     # "whatever the prediction": one fixed class
        if name in vocabulary().tables["not_a_class"]:
            return None
        return name, {}
    return entry.value, {}


def _block_list(text: str) -> tuple[dict, dict] | None:
    """"blocks 9-12", "blocks 9, 10 and 11", "blocks -2 and -1" (negative: counted from the end)."""
    rng = re.match(r"\s*(\d+)\s*(?:–|-|to)+\s*(\d+)", text)
    if rng:
        a, b = int(rng.group(1)), int(rng.group(2))
        if not 0 <= b - a <= 48:
            return None
        return {"blocks": list(range(a, b + 1))}, {"counted": True}
    nums = [int(x) for x in re.findall(r"-?\d+", text)]
    return {"blocks": nums}, ({"counted": True} if min(nums) >= 0 else {})


_FROM_END = {"last": -1, "final": -1, "penultimate": -2, "second to last": -2, "second last": -2,
             "antepenultimate": -3}


def _positions(text: str) -> tuple[dict, dict] | None:
    """"the penultimate and the final", "tenth, eleventh and twelfth": blocks by position
    (ordinals count from one; the others from the end)."""
    blocks = []
    for word in re.split(r"\s*(?:,|\band\b|&)\s*(?:the\s+)?", text.lower()):
        word = re.sub(r"[- ]+", " ", word.strip())
        n = _FROM_END.get(word) or vocabulary().tables["ordinals"].get(word) or _int(re.sub(r"(st|nd|rd|th)$", "", word))
        if not n:
            return None
        blocks.append(n if n < 0 else n - 1)
    return ({"blocks": sorted(set(blocks), key=lambda b: (b < 0, b))}, {}) if len(set(blocks)) > 1 else None


_INPUT_CODE = re.compile(r"\btransforms?\b|\bdata(?:set|loader)?\b|\bx\s*=")


def cued(vocab: Vocabulary, cue: str, sentence: Sentence) -> bool:
    """The sentence speaks of what the cue names (the map, the grid, the target), and not of what
    vocabulary.yaml's `not_<cue>` names (Score-CAM's masks are not the map): itself, as a step
    of an algorithm or of a list of steps in scope (every step is a step of the map), as a row
    of a settings table that is not about the input, or by referring back to the sentence before
    ("The resulting volume is upsampled ...")."""
    rx = vocab.cues[cue]
    unless = vocab.phrases.get(f"not_{cue}")
    if unless is not None and unless.search(sentence.low):
        return False
    if rx.search(sentence.low) or sentence.unit.float_env == "algorithm" or sentence.unit.kind == "item":
        return True     # (mentions are read in CAM scope only: an item there is a step of the procedure)
    if sentence.unit.kind == "row":     # a row of a settings table about the map (in scope)
        return not vocab.phrases["input_row"].search(sentence.low)
    if sentence.unit.kind == "code":    # a statement of a listing in scope, unless it prepares the input
        return not (vocab.phrases["input_row"].search(sentence.low) or _INPUT_CODE.search(sentence.low))
    if not vocab.phrases["anaphora"].match(sentence.low):
        return False
    before = sentence.unit.text[max(0, sentence.start - 400):sentence.start]
    return bool(rx.search(low(before)) or rx.search(low(sentence.section.title or "")))


ANTECEDENT_CHARS = 300   # how far back a pronoun ("Both are sliced off") looks for what it names


def _antecedent(vocab: Vocabulary, sentence: Sentence, start: int) -> list[str] | None:
    """The prefix tokens a pronoun refers back to ("the class token and the distillation token.
    Both are sliced off", "the class token; it is dropped"): those named just before it."""
    before = sentence.unit.text[max(0, sentence.start - ANTECEDENT_CHARS):sentence.start] + " " + sentence.text[:start]
    before = low(before)
    names = [name for name in ("cls", "dist", "registers") if vocab.phrases[f"token_{name}"].search(before)]
    return names or None


def find(vocab: Vocabulary, key: str, sentence: Sentence) -> list[Mention]:
    """All mentions of `key` in one sentence (longest first where patterns overlap)."""
    text = sentence.low
    if not vocab.any_entry[key].search(text):
        return []
    out: list[Mention] = []
    not_a_grid = vocab.phrases["not_a_grid_before"]
    others = [m.span() for m in vocab.phrases["others_clause"].finditer(text)
              if not vocab.phrases["own_use_before"].search(text[:m.start()])]
    taken: dict[str, set[int]] = {}      # slot -> character positions already read
    cued_here: dict[str, bool] = {}      # cue -> found in this sentence (many entries share a cue)
    for entry in vocab.entries[key]:
        if entry.needs:
            if entry.needs not in cued_here:
                cued_here[entry.needs] = cued(vocab, entry.needs, sentence)
            if not cued_here[entry.needs]:
                continue
        for rx in entry.patterns:
            for m in rx.finditer(text):
                if m.start() in taken.get(entry.slot, ()) or any(a <= m.start() < b for a, b in others):
                    continue   # already read by a more specific entry, or someone else's setting
                value, data = entry.value, {}
                if entry.parse == "antecedent":
                    value = _antecedent(vocab, sentence, m.start())
                    if value is None:
                        continue
                elif entry.parse:
                    parsed = _parse(entry, m)
                    if parsed is None:
                        continue
                    value, data = parsed
                if entry.parse == "grid" and (not_a_grid.search(text[max(0, m.start() - 30):m.start()])
                                              or vocab.phrases["not_a_grid_after"].search(text[m.end():m.end() + 12])):
                    continue
                if vocab.phrases["moot"].search(clause_after(text, m.end())):
                    continue   # "... so the question of averaging over heads does not arise"
                if vocab.phrases["undocumented_after"].match(text, m.end()):
                    continue   # "Rectification: not documented": an entry left open
                # "the class token, so we do not discard it": for an entry that knows its negated
                # reading, a cue in the match's last clause negates as one before it does (unless
                # the pattern says the negation itself: "... does not enter the map")
                # a match that states its own negation ("not upsampled") is not negated again by
                # the one before it ("not normalised and not upsampled")
                if (negated(vocab, text, m.start()) and not vocab.negation.search(m.group(0))) or (
                        entry.negated and not vocab.negation.search(rx.pattern)
                        and vocab.negation.search(clause_before(m.group(0), m.end() - m.start(), 200))):
                    if entry.negated in (None, "skip"):
                        continue
                    value = entry.negated
                taken.setdefault(entry.slot, set()).update(range(m.start(), m.end()))
                out.append(Mention(key, entry.slot, value, sentence, m.start(), m.end(),
                                   entry.strength, data))
    return out
