"""A reviewer pastes camlint's Markdown into a review: no file name or value from an input may
close a code span, split a table cell, or bring a link, image or HTML tag (parsed with
markdown-it, the parser rich ships, as CommonMark with GFM tables)."""
from __future__ import annotations

import random

import pytest
from markdown_it import MarkdownIt

from camlint.formats.markdown_text import cell, code
from conftest import invoke

MD = MarkdownIt("commonmark").enable("table")
ACTIVE = {"link_open", "image", "html_inline", "html_block"}
ALPHABET = "ab `|\\*_[]()<>!#~&;:/.\n"


def _inline(text: str):
    tokens = [t for t in MD.parse(text) if t.type == "inline"]
    return [c for t in tokens for c in t.children]


def _hostile(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 14)))


@pytest.mark.parametrize("seed", range(4))
def test_a_code_span_shows_any_string_verbatim(seed):
    rng = random.Random(seed)
    for _ in range(500):
        text = _hostile(rng).replace("\n", " ")
        if not text.strip(" "):
            continue
        spans = [c for c in _inline(f"x {code(text)} y") if c.type == "code_inline"]
        assert [s.content for s in spans] == [text], (text, code(text))


@pytest.mark.parametrize("seed", range(4))
def test_a_table_cell_holds_any_string_as_plain_text(seed):
    rng = random.Random(seed)
    for _ in range(500):
        text = _hostile(rng)
        md = f"| a | b |\n|---|---|\n| {cell(text)} | {code(text.replace(chr(10), ' '), in_table=True)} |\n"
        rows = [t for t in MD.parse(md) if t.type == "tr_open"]
        cells = [t for t in MD.parse(md) if t.type == "td_open"]
        assert len(rows) == 2 and len(cells) == 2, (text, md)
        children = _inline(md)
        assert not ACTIVE & {c.type for c in children}, (text, md)
        body = children[2:]
        plain = "".join(c.content for c in body if c.type == "text")
        spans = [c.content for c in body if c.type == "code_inline"]
        if not set("*_~") & set(text):               # emphasis may style a cell, never leave it
            assert plain.strip() == text.replace("\n", " ").strip(), (text, md)
        if text.replace("\n", " ").strip(" "):
            assert spans == [text.replace("\n", " ")], (text, md)


NAME = "a`b|c [x](http:e.x) <img src=x> *y* ![i](j)"


def test_the_markdown_report_keeps_its_shape_for_a_hostile_folder_name(tmp_path):
    folder = tmp_path / NAME
    folder.mkdir()
    (folder / "main.tex").write_text("\\documentclass{article}\n\\begin{document}\nWe apply Grad-CAM to ViT-B/16 "
                                     "at the last block.\n\\end{document}\n")
    result = invoke("check", folder / "main.tex", "--format", "markdown", "--no-cache")
    assert result.exit_code == 1, result.output
    tokens = MD.parse(result.stdout)
    children = [c for t in tokens if t.type == "inline" for c in t.children]
    assert not ACTIVE & {c.type for c in children}, result.stdout
    spans = [c.content for c in children if c.type == "code_inline"]
    assert str(folder / "main.tex") in spans                      # the heading names the file whole
    assert any(s.startswith(str(folder / "main.tex") + ":") for s in spans)    # and each finding's location
    table = [t for t in tokens if t.type in ("tr_open", "td_open", "th_open")]
    rows = sum(t.type == "tr_open" for t in table)
    assert sum(t.type in ("td_open", "th_open") for t in table) == 4 * rows   # no row split by the name
