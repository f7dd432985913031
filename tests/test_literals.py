"""Literal pre-tests of patterns (camlint.extract.literals): they only skip text on which the
pattern cannot match, so every answer is the pattern's own."""
from __future__ import annotations

import re

import pytest

from conftest import FIXTURES
from camlint.core.wording import low
from camlint.extract.literals import Filtered, compile_filtered, required_literals
from camlint.extract.vocab import vocabulary


@pytest.mark.parametrize("pattern, literals", [
    (r"\bunnormali[sz]ed\b", {"unnormali"}),        # one word tests as well as its two spellings
    (r"\bwhisper[- ](?:tiny|base|small)\b", {"whisper"}),
    (r"\blogits?\b|\bpre-?softmax\b", {"logit", "pre-softmax", "presoftmax"}),
    (r"vit-?[bl]/\d+", {"vit-b/", "vitb/", "vit-l/", "vitl/"}),
    (r"heat-?maps?", {"heatmap", "heat-map"}),      # 'heatmaps' adds nothing to 'heatmap'
    (r"(?<!\w-)grad-?cam\b", {"gradcam", "grad-cam"}),
    (r"\bthe (?:\w+ )?block\b", {"block"}),
])
def test_the_literals_every_match_contains(pattern, literals):
    assert required_literals(pattern) == literals


@pytest.mark.parametrize("pattern", [r"\d+", r"(?:ab)?c?", r"a|\d", r"(?i:grad-cam)", r"[^.]+"])
def test_no_literal_where_a_match_may_lack_one(pattern):
    assert required_literals(pattern) is None
    assert isinstance(compile_filtered(pattern), re.Pattern)


def _texts() -> tuple[str, list[str]]:
    """A long text (the fixture manuscripts, lower-cased, with line breaks inside statements)
    and its lines."""
    parts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted((FIXTURES / "manuscripts").rglob("*.tex"))]
    text = low("\n".join(parts)) + "\nthe vi\nt model; grad-\ncam at block 11\nvit-b/16 + grad-cam\n"
    assert len(text) > 8000
    return text, [line for line in text.splitlines() if line.strip()]


def _patterns():
    v = vocabulary()
    seen = {}

    def walk(node):
        if isinstance(node, Filtered):
            seen[node.pattern] = node
        elif isinstance(node, dict):
            for x in node.values():
                walk(x)
        elif isinstance(node, (list, tuple)):
            for x in node:
                walk(x)
        elif hasattr(node, "patterns"):
            walk(node.patterns)
        elif hasattr(node, "rx"):
            walk([node.rx, node.unless])

    walk([getattr(v, name) for name in vars(v)])
    return list(seen.values())


def test_every_vocabulary_pattern_answers_as_unfiltered():
    """Whole text (searched line by line where the pattern allows) and single lines: the same
    matches, groups and substitutions as the plain pattern."""
    text, lines = _texts()
    patterns = _patterns()
    assert len(patterns) > 300 and any(p.line_local for p in patterns)
    for f in patterns:
        plain = re.compile(f.pattern)
        assert [(m.span(), m.groups()) for m in f.finditer(text)] == \
               [(m.span(), m.groups()) for m in plain.finditer(text)], f.pattern
        for line in lines[::7]:
            got, want = f.search(line), plain.search(line)
            assert (got and (got.span(), got.groups())) == (want and (want.span(), want.groups())), f.pattern
            assert f.sub("#", line) == plain.sub("#", line), f.pattern


def test_any_of_says_what_the_union_of_its_patterns_says():
    """any_entry runs only the entries whose literals a line holds: found exactly where the union
    of every entry pattern of the key finds something."""
    text, lines = _texts()
    v = vocabulary()
    found = 0
    for key, entries in v.entries.items():
        union = re.compile("|".join(f"(?:{re.sub(r'[(][?]P<[a-z_]+>', '(?:', rx.pattern)})"
                                    for e in entries for rx in e.patterns))
        for line in lines:
            assert bool(v.any_entry[key].search(line)) == bool(union.search(line)), (key, line)
            found += bool(union.search(line))
    assert found > 20
