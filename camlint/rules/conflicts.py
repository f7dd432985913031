"""CAM211-CAM212: two statements of the paper's own procedure that cannot both hold.

A statement counts only where it is about the maps the paper shows: the paper's own sentences in
the CAM scope, not a clause giving a reason ("because the last block ..."), not an ablation, a
comparison or a sweep, not a caption, and not a table whose rows list several blocks.
"""
from __future__ import annotations

import re

from camlint.rules import consistency, volumes
from camlint.rules.counting import readings
from camlint.rules.specwords import compact
from camlint.rules import facts as F
from camlint.rules.base import Hit, Rule

# Where the rest of a sentence gives a reason or a contrast, not the setting itself.
_ASIDE = re.compile(r"\b(?:because|since|as opposed|whereas|while|unlike|rather than|instead of|than"
                    # "IoU 0.47, against 0.31 for the raw attention of the last layer": the other side
                    # of a comparison gives another method's block
                    r"|against|versus|vs)\b")
# "the hidden state as it is passed on to the last block", "fed into block 11": the block that
# receives the tapped features, not the one tapped (gradients flowing back into it are its own)
_DESTINATION = re.compile(r"\b(?:pass(?:ed|es|ing)?|fed|feed(?:s|ing)?|sent|handed|forwarded)\s+(?:on\s+)?(?:in)?to"
                          r"\s+(?:the\s+)?$|\binput\s+(?:to|of)\s+(?:the\s+)?$")
# "last block gave near-uniform maps", "blocks[-1] yields noisier maps": what a block gave, the
# outcome that motivated the choice, not the setting of the maps
_OUTCOME = re.compile(r"^\S*\s+(?:gave|gives|give|yield\w*|produc\w*|resulted in|results in|led to|leads to)\b")
# Sentences about other maps than the ones shown: ablations, sweeps, comparisons, alternatives
# (not the shown maps compared across groups or images: "normalised for comparison across sites").
_OTHER_MAPS = re.compile(
    r"\b(?:ablat\w*|sweep\w*|baselines?|compar\w*(?!\s+(?:across|among)\s+(?!(?:the\s+|all\s+)?(?:[\w-]+\s+)?"
    r"(?:blocks?|layers?|methods?|variants?|depths?|explainers?|baselines?)\b))"
    r"|alternatives?|alternatively|vary|varies|varying|varied"
    r"|also (?:computed|tried|tested|report\w*|show\w*|examined|evaluated|ran)|other (?:blocks|layers)"
    r"|each (?:block|layer)|every (?:block|layer)|all (?:blocks|layers)|earlier (?:blocks|layers)"
    r"|intermediate|shallow\w*|deeper|different (?:blocks?|layers?|depths?)"
    r"|for reference|would|could|previous(?:ly)?|prior work|tutorial|default"
    # "as in the original Grad-CAM++ formulation", "the original image": the method's definition
    # and the input are not other maps
    r"|original(?! (?:[\w+-]+ )?(?:formulations?|definitions?|images?|inputs?|resolution|size|photographs?)\b))\b")
# A prose sentence states the block of the maps only where it speaks of the maps or their hooks.
_ABOUT_MAPS = re.compile(r"\b(?:maps?|(?:grad-?)?cam\w*|hook\w*|gradients?|saliency|heat ?maps?|explanations?"
                         r"|target[_ ]layers?|activations?|taken|extracted|computed)\b"
                         # "we take the token features at the output of block 24": the features explained
                         r"|\b(?:we|i) (?:take|took|read|use|used|extract|tap|hook)\b[^.;]{0,40}\bfeatures?\b")
_AVOIDED = re.compile(r"\b(?:avoid\w*|skip\w*|ignor\w*|not)\b")
_BLOCK_WORD = re.compile(r"block|layer|encoder|depth|last|final|penultimate")


def _quoted(low: str, start: int) -> bool:
    """The mention stands inside quotation marks: another paper's words ("they 'apply Grad-CAM
    to the last layer'"), not the procedure of this one."""
    before = low[max(0, start - 400):start]         # a quotation within the clause's reach, linear
    return before.count('"') % 2 == 1 or before.count("\u201c") > before.count("\u201d") \
        or before.count("``") > before.count("''")


def _set_aside(low: str, start: int, end: int) -> bool:
    """The mention stands in a reason or a contrast ("because the last block ..."), is avoided
    ("we avoid the last block"), is quoted, receives the features or is what an alternative
    gave; a semicolon starts a new statement."""
    from camlint.extract.scope import clause_before
    from camlint.extract.vocab import vocabulary

    statement = low[low.rfind(";", 0, start) + 1:start]
    before = clause_before(low, start, 50)
    return bool(_ASIDE.search(statement) or vocabulary().negation.search(before) or _AVOIDED.search(before)
                or _quoted(low, start)
                or _DESTINATION.search(low[max(0, start - 30):start]) or _OUTCOME.match(low[end:end + 40]))


# "All maps and numbers reported below are computed at the penultimate block", "for all figures
# the projection was taken on blocks[-2]": a statement that governs every shown map, wherever it
# stands (a results paragraph that names no CAM method is outside the CAM scope)
_ALL_SHOWN = re.compile(r"\b(?:all|every)\s+(?:(?:of\s+)?the\s+)?(?:shown\s+|reported\s+)?(?:maps|figures|heat ?maps"
                        r"|explanations|saliency maps)\b[^.;]{0,60}?\b(?:computed|taken|extracted|produced|obtained"
                        r"|generated)\b")


def _layer_mentions(a):
    """The block mentions of the CAM scope, and those of own sentences elsewhere that state the
    block of every shown map."""
    from camlint.extract import mentions as Mn
    from camlint.extract.scope import OWN_ROLES
    from camlint.extract.vocab import vocabulary

    found = list(a.prose.mentions.get("layer", []))
    seen = {id(m.sentence) for m in found}
    for s in a.prose.sentences:
        if id(s) not in seen and s.section.role in OWN_ROLES \
                and _ALL_SHOWN.search(s.low) and a.prose.scope.attribution.own(s):
            found.extend(Mn.find(vocabulary(), "layer", s))
    return found


def _occurrences(low: str, m) -> list[int]:
    """Where the mention's words stand in its sentence: the mention and its repeats ("not using
    the last block ... the last block learns"), one referent."""
    words, out, i = m.text.lower(), [m.start], low.find(m.text.lower())
    while i >= 0 and len(out) < 8 and words:
        out.append(i)
        i = low.find(words, i + len(words))
    return out


def _sentence_layers(a, depth: int):
    """(sentence, candidate indices, first mention) per statement sentence."""
    scope = a.prose.scope
    by_sentence: dict[int, list] = {}
    aside: dict[int, set] = {}
    for m in _layer_mentions(a):
        s = m.sentence
        if m.slot != "where" or m.vague or s.unit.kind not in ("text", "item", "footnote", "row", "code"):
            continue
        if not scope.attribution.own(s) or _OTHER_MAPS.search(s.low):
            continue
        if s.unit.kind not in ("row", "code") and not _ABOUT_MAPS.search(s.low):
            continue
        if not _BLOCK_WORD.search(s.low[max(0, m.start - 40):m.end]):
            continue                                 # "drops index 0": a token, not a block
        if any(_set_aside(s.low, i, i + len(m.text)) for i in _occurrences(s.low, m)):
            aside.setdefault(id(s), set()).add(readings(a, m, depth))
            continue
        by_sentence.setdefault(id(s), []).append(m)
    for key, ms in by_sentence.items():
        # "the reason for not using the last block is that the last block ...": a later mention
        # of the block set aside names the same block
        sets = [c for c in (readings(a, m, depth) for m in ms) if c is not None and c not in aside.get(key, ())]
        if sets:
            both = frozenset.intersection(*sets)
            if both:                                 # a sentence at odds with itself states nothing
                yield ms[0].sentence, both, min(ms, key=lambda m: m.start)


def _drop_sweeps(statements):
    """A table whose rows give several blocks lists a sweep, not the setting of the maps."""
    tables: dict[tuple, set] = {}
    for s, c, _ in statements:
        if s.unit.kind == "row":
            tables.setdefault((s.unit.file.display, s.section.index, s.unit.float_env), set()).add(c)
    return [(s, c, m) for s, c, m in statements if s.unit.kind != "row"
            or len(tables[(s.unit.file.display, s.section.index, s.unit.float_env)]) == 1]


def _spec_layer(a, depth: int):
    """The camspec's block (this rule, not CAM210, compares it with the text: F.blocks_compared)."""
    from camlint.extract.freetext import structured

    for src in a.specs:
        value = src.data.get("layer")
        value = (structured("layer", value) or compact("layer", value)) if isinstance(value, str) else value
        b = F.blocks(value, depth) if isinstance(value, dict) else None
        if b and len(b) == 1 and 0 <= b[0] < depth:
            yield src, frozenset(b)


def _show(c: frozenset[int]) -> str:
    return " or ".join(f"blocks[{b}]" for b in sorted(c))


def _said(m, c: frozenset[int]) -> str:
    return f"'{m.text}'" if m.text == _show(c) else f"'{m.text}' ({_show(c)})"


def check_conflicting_block(a):
    if not (a.uses_cam and F.blocks_compared(a)):
        return
    depth = a.arch.depth
    statements = _drop_sweeps(list(_sentence_layers(a, depth)))
    # each statement against the first statement of every distinct reading before it (a few,
    # bounded by the depth), not against every earlier statement: the same first conflict, linear
    first_of: dict[frozenset, object] = {}
    for s, c, m in statements:
        for c2, m2 in first_of.items():
            if not c & c2:
                o_file, o_line, _ = m2.position()
                file, line, col = m.position()
                yield Hit(f"the block is given as {_said(m, c)} here but as {_said(m2, c2)} at {o_file}:{o_line}",
                          file, line, col)
                return
        first_of.setdefault(c, m)
    for src, c2 in _spec_layer(a, depth):
        for s, c, m in statements:
            if not c & c2:
                file, line, col = m.position()
                s_line, _ = src.position(("layer",))
                yield Hit(f"the block is given as {_said(m, c)} here but as {_show(c2)} in the "
                          f"camspec at {src.file}:{s_line}", file, line, col)
                return


CONFLICTING_BLOCK = Rule(
    code="CAM211", name="conflicting-block", item="layer", severity="error",
    summary="Two statements of the paper's own procedure give different blocks for the maps.",
    rationale="The block fixes which features are explained; a settings table that says the last "
              "block while the text says the penultimate one describes two procedures, and a reader "
              "cannot tell which produced the figures. Counting conventions are read first: block 12 "
              "of 12 counted from one is blocks[11], the last block of 12 is blocks[11].",
    bad="Grad-CAM is computed at the penultimate block of the ViT-B/16.\n\n"
        "The hook is registered on \\texttt{blocks[11]}, the last block.",
    good="Grad-CAM is computed at the last block (block 12 of 12) of the ViT-B/16.\n\n"
         "The hook is registered on \\texttt{blocks[11]}, the last block.",
    hint="Give the block once, with how you count (from zero, from one, or 'last'), and make the "
         "text, tables, appendix and camspec agree.",
    check=check_conflicting_block,
)



# "197 tokens", "196 patch tokens", "the 197 remaining tokens", "a 577-token sequence"
_COUNT = re.compile(r"(?<![\d.,])(\d{1,3}(?:[ ,]\d{3})+|\d{2,6})((?:[ -](?:remaining|patch|spatial|image|visual|kept|retained|output)){0,2})"
                    r"[ -]tokens?\b")
_DROP = re.compile(r"\b(?:discard\w*|drop\w*|remov\w*|strip\w*|exclud\w*|except|without|minus|leav\w*"
                   r"|of which|after|before|prepend\w*|plus|including|includes?)\b")
_TOKEN_GRID_TALK = re.compile(r"\b(?:sequences?|reshap\w*|grids?|arranged|rasters?|patch(?:es)?|positions)\b")
# "the top 50 tokens" is a selection; "16 x 16 tokens" is a grid, not a count
_SELECTION = re.compile(r"(?:\b(?:top|first|last|most|least|k\s*=|by)|[×x*])\s*-?\s*$")
_VOLUME = re.compile(r"\d\s*[×x]\s*\d+\s*[×x]\s*\d")
_AFTER_DROP = {"remaining", "patch", "spatial", "kept", "retained"}


def _sentence_grids(a) -> dict[int, list[tuple[int, int]]]:
    """Every grid each sentence states ("32 x 32 at 448 px; at 224 px, 256 tokens form 16 x 16")."""
    out: dict[int, list[tuple[int, int]]] = {}
    for m in a.prose.mentions.get("reshape", []):
        g = F.grid({"grid": m.value}) if isinstance(m.value, list) else F.grid(m.value)
        if m.slot == "grid" and g:
            out.setdefault(id(m.sentence), []).append(g)
    return out


def _fits(n: int, cells: int, prefix: int, qualifier: str, low: str, kept: bool = False) -> bool:
    if n == cells:
        return True
    # the whole sequence, in a sentence that says what is added or dropped (not one that keeps
    # the prefix token and names its removal only as the alternative it declined)
    return not kept and not set(qualifier.split()) & _AFTER_DROP and 0 < n - cells <= prefix \
        and bool(_DROP.search(low))


_STAYS = re.compile(r"\b(?:class|\[cls\]|cls) token\b[^.;]{0,20}?\b(?:stays?|remains?) in\b")


# "all 197 tokens, class token included, are reshaped", "the full sequence of 197 tokens,
# including the class token": the count is the whole sequence, prefix tokens in it ...
_WHOLE = re.compile(r"\b(?:class|\[cls\]|cls) tokens? (?:is |are |being )?included\b"
                    r"|\bincluding (?:the )?(?:\[cls\]|cls|class) tokens?\b"
                    r"|\b(?:all|the full sequence of|the whole sequence of|every one of the) \d[\d,]* tokens\b")
# ... unless the sentence also drops one ("all 197 tokens; the class token is then removed")
_DROPPED = re.compile(r"\b(?:discard|drop|remov|exclud|omit|strip|slic|ignor|delet|cut off|thr[eo]w\w* away|set aside"
                      r"|left out|leav\w* out)\w*")


def _keeps_prefix(a, s) -> bool:
    """The sentence says the class (or another prefix) token is kept in the sequence."""
    if _WHOLE.search(s.low) and not _DROPPED.search(s.low) \
            and len({c.group(1) for c in _COUNT.finditer(s.low)}) <= 1:
        return True                                  # one count: "197 tokens ... the 196 reshaped" gives both
    return bool(_STAYS.search(s.low)) or any(m.sentence is s and m.value == "kept"
                                            for m in a.prose.mentions.get("tokens", []))


def _architecture_cells(a) -> set[int]:
    info = a.arch
    if info is None or info.family == "swin" or not info.size_known or not info.patch or F.weights_disagree(a):
        return set()
    sizes = {info.img_size} | ({a.prose.input_size} if a.prose.input_size else set())
    return {(s // info.patch) ** 2 for s in sizes}


def _counts(a):
    for s in a.prose.sentences:
        if s.unit.kind in ("heading", "title", "caption") or not a.prose.scope.in_scope(s) \
                or _OTHER_MAPS.search(s.low) or _VOLUME.search(s.low):
            continue                                 # a video's T x H x W volume is not a 2-D grid
        for m in _COUNT.finditer(s.low):
            if _SELECTION.search(s.low[max(0, m.start() - 12):m.start()]):
                continue                             # "the top 50 tokens": a selection, not the sequence
            yield s, int(re.sub(r"\D", "", m.group(1))), m.group(2).replace("-", " "), m


def _volume_exceeds_clip(a):
    """A video's token volume with more time positions than the clip has frames (the clip length
    is read in any own sentence, the volume only where the paper states its own maps)."""
    own = [s for s in a.prose.sentences if s.section.role not in ("related", "references")
           and a.prose.scope.attribution.own(s)]
    frames = volumes.clip_frames(own)
    for s in own:
        if s.unit.kind in ("heading", "title", "caption") or not a.prose.scope.in_scope(s) \
                or _OTHER_MAPS.search(s.low):
            continue
        for m, (t, h, w) in volumes.token_volumes(s):
            n = volumes.more_positions_than_frames((t, h, w), frames)
            if n:
                line, col = s.line_col(m.start())
                yield Hit(f"the token volume is {t} x {h} x {w}, but a clip has {n} frames: tubelets of "
                          f"one frame or more give at most {n} time positions", s.unit.file.display, line, col)
                return


def check_token_count_does_not_fit(a):
    if not (a.uses_cam and a.prose is not None):
        return
    if any(consistency.check_prefix_tokens_in_grid(a)) or any(consistency.check_grid_matches_input(a)):
        return                                       # CAM201 / CAM202 already say it
    for hit in _volume_exceeds_clip(a):
        yield hit
        return
    grids, arch_cells = _sentence_grids(a), _architecture_cells(a)
    prefix = a.arch.num_prefix_tokens if a.arch is not None else 1
    for s, n, qualifier, m in _counts(a):
        stated = grids.get(id(s), [])
        g = stated[0] if stated else None
        line, col = s.line_col(m.start())
        kept = _keeps_prefix(a, s)
        if g and not any(_fits(n, r * c, max(prefix, 1), qualifier, s.low, kept) for r, c in stated):
            yield Hit(f"{n} tokens are placed on a {g[0]} x {g[1]} grid of {g[0] * g[1]} cells",
                      s.unit.file.display, line, col)
            return
        if not g and arch_cells and _TOKEN_GRID_TALK.search(s.low) \
                and not any(_fits(n, c, prefix, qualifier, s.low) or n == c + prefix for c in arch_cells):
            info = a.arch
            yield Hit(f"{n} tokens do not match {info.name}: {info.img_size} px / patch {info.patch} gives "
                      f"{info.grid} x {info.grid} patch tokens"
                      + (f" plus {prefix} prefix token{'s' * (prefix > 1)}" if prefix else ""),
                      s.unit.file.display, line, col)
            return


TOKEN_COUNT_DOES_NOT_FIT = Rule(
    code="CAM212", name="token-count-does-not-fit", item="reshape", severity="error",
    summary="A stated number of tokens does not fit the stated grid, or the model's input and patch "
            "size; or a video's token volume has more time positions than the clip has frames.",
    rationale="The grid holds exactly its cells: 196 patch tokens fill 14 x 14, and a ViT-B/16 at "
              "224 px has 196 patch tokens plus its prefix tokens. '197 tokens on a 14 x 14 grid' or "
              "'576 tokens' at 224/16 means the text describes another model, another input or a "
              "step it does not state. A video transformer's tubelets span one frame or more, so an "
              "8-frame clip gives at most 8 time positions, never a 16 x 14 x 14 volume.",
    bad="Our ViT-B/16 takes $224\\times224$ inputs; the class token is removed and the 197 remaining "
        "patch tokens are reshaped to a $14\\times14$ grid.",
    good="Our ViT-B/16 takes $224\\times224$ inputs; the class token is removed and the 196 remaining "
         "patch tokens are reshaped to a $14\\times14$ grid.",
    hint="Give the count that the input and patch size produce (224 / 16 = 14, 14 x 14 = 196 patch "
         "tokens, plus [CLS] and any distillation or register tokens before they are dropped).",
    check=check_token_count_does_not_fit,
)

RULES = (CONFLICTING_BLOCK, TOKEN_COUNT_DOES_NOT_FIT)
