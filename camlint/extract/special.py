"""Keys read with their own logic: model (architecture + weights), method, implementation."""
from __future__ import annotations

import re

from camlint.extract.attribution import RELATED
from camlint.extract.decide import evidence_of
from camlint.extract.mentions import Mention
from camlint.extract.scope import ROLE_RANK, Scope
from camlint.extract.vocab import Vocabulary
from camlint.inputs.latex.units import Sentence


def _mention(key, slot, value, s: Sentence, m: re.Match, strength: int = 1) -> Mention:
    return Mention(key, slot, value, s, m.start(), m.end(), strength)


def _arch_specificity(text: str) -> int:
    t = text.lower()
    if re.match(r"^(vit|deit|swin|beit|eva|crossvit|cait|xcit|levit|pvt_v2|twins|mvitv2|maxvit|volo|mobilevit|"
                r"efficientformer|convit|tnt)\w*?\d*_", t):
        return 3
    if "/" in t or re.search(r"-(ti|t|s|b|l|h|tiny|small|base|large|huge)\b", t):
        return 2
    return 1


def decide_model(sentences: list[Sentence], scope: Scope, vocab: Vocabulary):
    """Architecture and weights of the transformer, from any section but related work."""
    arch_m, weight_m, vague_m, registry_m = [], [], [], []
    units_with_arch = set()
    for s in sentences:
        if not scope.role_ok(s) or s.section.role == "introduction" or scope.is_cnn_only(s):
            continue
        if scope.attribution.of(s) == RELATED or vocab.cited_other.search(s.low):
            continue    # a cited paper's, a planned or a hypothetical checkpoint is not the paper's model
        if s.unit.kind in ("heading", "title"):
            continue
        for m in vocab.model["arch"].finditer(s.low):
            name = s.text[m.start():m.end()]
            arch_m.append(_mention("model", "arch", name, s, m, _arch_specificity(name)))
            units_with_arch.add(id(s.unit))
            if _registry_weights(vocab, s.low, name, m.start()):
                registry_m.append(_mention("model", "weights", f"timm pretrained weights of {name}", s, m, 2))
        for rx in vocab.model["weights_ids"]:
            for m in rx.finditer(s.low):
                weight_m.append(_mention("model", "weights", s.text[m.start():m.end()].strip(), s, m, 3))
        for rx in vocab.model["weights"]:
            for m in rx.finditer(s.low):
                weight_m.append(_mention("model", "weights", " ".join(s.text[m.start():m.end()].split()).rstrip(" ("),
                                         s, m, 2))
        for m in vocab.model["vague_weights"].finditer(s.low):
            vague_m.append(_mention("model", "weights", " ".join(s.text[m.start():m.end()].split()), s, m))
    weight_m += registry_m     # read from a timm name: a release stated in words wins a tie (max keeps the first)
    # weights count where the paragraph also names the transformer (not a CNN's weights), or where
    # an exact id names them and no CNN (microsoft/dit-base-...: the id is the architecture too)
    weight_m = [m for m in weight_m if id(m.sentence.unit) in units_with_arch or
                vocab.transformer.search(m.sentence.low) or
                (m.strength >= 3 and not vocab.cnn.search(m.value.lower()))]
    if not arch_m and not weight_m and not vague_m:
        return None, []
    if not arch_m and any(m.strength >= 3 for m in weight_m):
        # a hub id or checkpoint tag names the architecture too (facebook/timesformer-base-...)
        arch_m = [max(weight_m, key=lambda m: m.strength)]
    value: dict = {}
    primary = None
    if arch_m:
        arch = max(arch_m, key=lambda m: (m.strength, ROLE_RANK.get(m.sentence.section.role, 2)))
        value["arch"] = arch.value
        primary = arch
    if weight_m:
        w = max(weight_m, key=lambda m: (m.strength, " " not in m.value, ROLE_RANK.get(m.sentence.section.role, 2)))
        value["weights"] = w.value
        primary = w if primary is None or w.sentence is not primary.sentence else primary
        if "arch" in value and w.sentence is not primary.sentence:
            primary = w
    elif vague_m:
        value["note"] = f"{vague_m[0].value} (which checkpoint?)"
        if primary is None:
            return {"text": vague_m[0].value}, evidence_of(vague_m, vague_m[0])
    used = [m for m in arch_m + weight_m if m.sentence is primary.sentence] + arch_m + weight_m
    return value, evidence_of(used, primary)


def _registry_weights(vocab: Vocabulary, text: str, name: str, start: int) -> bool:
    """"deit_small_patch16_224 with the ImageNet-1k weights from timm", "initialised from
    vit_small_patch16_224": a timm model name whose weights the sentence says come from timm, or
    that the model starts from, names one release (the name's default weights)."""
    if _arch_specificity(name) < 3:
        return False
    m = vocab.model
    said = (m["registry"].search(text) and m["registry_weights"].search(text)) or \
        m["starts_from"].search(text[max(0, start - 60):start])
    return bool(said and not m["no_weights"].search(text))


def decide_method(sentences: list[Sentence], scope: Scope, vocab: Vocabulary, mentions: list[Mention]):
    concrete = [m for m in mentions if not m.vague]
    # "the pytorch-grad-cam package", "github.com/x/tile-layercam": a name of code, not of the variant
    pool = [m for m in concrete if not _names_code(vocab, m)] or concrete or mentions
    if not pool:
        return None, []
    counts: dict[str, int] = {}
    for m in pool:
        counts[m.value] = counts.get(m.value, 0) + 1
    # the most specific name used most often; plain Grad-CAM loses ties to a named variant
    value = max(counts, key=lambda v: (counts[v] + (0.5 if v not in ("gradcam", "vague") else 0)))
    # the primary evidence: where the method section names it, not the abstract; the first such
    # line of its file (a list's items are read before the paragraph that introduces them)
    files = {}
    for m in pool:
        files.setdefault(m.sentence.unit.file.display, len(files))
    named = sorted((m for m in pool if m.value == value),
                   key=lambda m: (files[m.sentence.unit.file.display], m.position()[1:]))
    # a run-in label ("Tile LayerCAM.") names the paragraph; the sentences after it state the method
    first = max(named, key=lambda m: (ROLE_RANK.get(m.sentence.section.role, 2), len(m.sentence.text.split()) > 3))
    if value == "vague":
        return {"text": " ".join(first.text.split())}, evidence_of(pool, first)
    return value, evidence_of([m for m in pool if m.value == value], first)


def _names_code(vocab: Vocabulary, m: Mention) -> bool:
    """The mention is part of a library's name or of a code address (a token with a slash)."""
    text = m.sentence.low
    start, end = text.rfind(" ", 0, m.start) + 1, text.find(" ", m.end)
    if "/" in text[start:end if end >= 0 else len(text)]:
        return True
    # only around the mention: a library's name is short, and a run-on sentence holds thousands of
    # method names (the whole sentence per mention was quadratic)
    lo = max(0, m.start - 80)
    window = text[lo:m.end + 80]
    return any(x.start() + lo <= m.start and m.end <= x.end() + lo
               for _, rx in vocab.implementation["libraries"] for x in rx.finditer(window))


def decide_implementation(sentences: list[Sentence], scope: Scope, vocab: Vocabulary):
    imp = vocab.implementation
    found, own = [], []
    for s in sentences:
        if not scope.role_ok(s) or s.section.role == "introduction" or not scope.attribution.own(s):
            continue
        for name, rx in imp["libraries"]:
            for m in rx.finditer(s.low):
                version = _version_near(s.low, m.end(), imp["version"]) or _version_before(s.low, m.start(), imp)
                found.append((_mention("implementation", "library", name, s, m, 2 if version else 1), version))
        for rx in imp["release"]:
            for m in rx.finditer(s.low):
                if _deposit_without_code(s.low, m):
                    continue
                ref = m.groupdict().get("ref")
                # "github.com/x/y (tag v1.2.0)": a revision named right after the address
                pinned = {"commit": ref} if ref else _version_near(s.low, m.end(), imp["version"][1:])
                # "Code (tag v0.2.1): github.com/x/y": the address names the code, the tag before it
                span = m.span("address") if m.groupdict().get("address") else m.span()
                found.append((_mention("implementation", "library", s.text[span[0]:span[1]], s, m,
                                       2 if pinned else 1), pinned))
        if scope.in_scope(s) or vocab.phrases["paper_code"].search(s.low):
            for m in imp["own_code"].finditer(s.low):
                own.append(_mention("implementation", "own", "own code", s, m))
            for m in imp["unnamed_library"].finditer(s.low):
                own.append(_mention("implementation", "own", "unnamed library", s, m))
    found = _footnoted_versions(found, sentences, scope, imp)
    if found:
        with_version = [(m, v) for m, v in found if v]
        if with_version:
            m, v = max(with_version, key=lambda mv: ROLE_RANK.get(mv[0].sentence.section.role, 2))
            value = {"library": m.value, **v}
            same = [x for x, _ in found if x.value == m.value]
            return value, evidence_of([m] + same, m)
        m = found[0][0]
        return {"library": m.value}, evidence_of([x for x, _ in found], m)
    if own:
        note = " (which library?)" if own[0].value == "unnamed library" else " (code not released)"
        return {"text": " ".join(own[0].text.split()) + note}, evidence_of(own, own[0])
    return None, []


# A data archive (Zenodo, figshare, OSF, Dryad) holds code only where the clause says so: "the
# weights are deposited on Zenodo" releases weights, "code and weights are on Zenodo" the code.
_ARCHIVE = re.compile(r"zenodo|figshare|\bosf\b|osf\.io|dryad")
_CODE_WORDS = re.compile(r"\b(?:code|codes|codebase|implementation|scripts?|software|source|notebooks?|"
                         r"pipeline|package|library)\b")
_DEPOSIT_ONLY = re.compile(r"\b(?:weights?|checkpoints?|parameters|model files?|data|datasets?|images|"
                           r"annotations?|labels|masks|(?:heat-?|saliency |attribution )?maps|predictions|splits)\b")


def _deposit_without_code(text: str, m: re.Match) -> bool:
    if not _ARCHIVE.search(m.group(0)):
        return False
    start, end = text.rfind(";", 0, m.start()) + 1, text.find(";", m.end())
    clause = text[start:end if end >= 0 else len(text)]
    return bool(_DEPOSIT_ONLY.search(clause)) and not _CODE_WORDS.search(clause)


_OPENS_WITH_VERSION = re.compile(r"\W*(?:(?:we |i )?(?:used?|using|installed|pinned(?: to)?|at)\s+)?(?:the )?"
                                 r"(?:version|release|commit|tag|v(?=\d))")


def _footnoted_versions(found: list, sentences: list[Sentence], scope: Scope, imp: dict) -> list:
    """"the pytorch-grad-cam package\\footnote{Version 1.4.8.}": a footnote that opens with a
    version and names no library pins the library named just before its mark (same file, the
    footnote starting on that line or the next)."""
    notes = []
    for s in sentences:
        if s.unit.kind == "footnote" and _OPENS_WITH_VERSION.match(s.low) and scope.in_scope(s) \
                and scope.attribution.own(s) and not any(rx.search(s.low) for _, rx in imp["libraries"]):
            version = _version_near(s.low, 0, imp["version"])
            if version:
                notes.append((s.unit.file.display, s.line_col(0)[0], version))
    if not notes:
        return found
    out = []
    for m, v in found:
        line = m.sentence.line_col(m.start)[0]
        pinned = [nv for f, ln, nv in notes if f == m.sentence.unit.file.display and 0 <= ln - line <= 1]
        out.append((m, v or (pinned[0] if pinned else None)))
    return out


def _version_before(text: str, start: int, imp: dict) -> dict | None:
    m = imp["version_before"].search(text[max(0, start - 40):start])
    return {"version": m.group("v")} if m else None


def _version_near(text: str, end: int, patterns) -> dict | None:
    window = text[end:end + 40]
    # stop at the next clause that names something else
    window = re.split(r"[;]| and (?=[A-Z])", window)[0]
    for rx in patterns:
        m = rx.search(window)
        if m:
            g = {k: v for k, v in m.groupdict().items() if v}
            if "v" in g:
                return {"version": g["v"]}
            if "c" in g:
                return {"commit": g["c"]}
            if "t" in g:
                return {"version": g["t"]}
            return {"commit": m.group(0)}
    return None
