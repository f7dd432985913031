"""Markdown pieces that no string from an input can break: a reviewer pastes these reports into
an issue or a review, so a file name or a spec value must stay text (no table cell split by a
`|`, no code span closed early by a backtick, no link, image or HTML tag smuggled in)."""
from __future__ import annotations

import re

from camlint.rules.findings import location

# what makes structure or active content of plain text (a code span, a cell's end, HTML, the
# bracket that closes a link's or image's text before its target), backslash-escaped; emphasis
# (* _ ~) is left alone: intraword underscores in model tags stay literal in CommonMark, and
# emphasis cannot carry content out of its cell
_SPECIAL = re.compile(r"[\\`|<>]|\](?=[(\[])")
_TICKS = re.compile(r"`+")


def cell(text) -> str:
    """Plain text for a table cell or a line: one line, nothing in it read as structure or a link."""
    return _SPECIAL.sub(lambda m: "\\" + m.group(), str(text).replace("\r", " ").replace("\n", " "))


def code(text, in_table: bool = False) -> str:
    """A code span showing text verbatim: its fence is one backtick longer than the longest run
    inside (CommonMark), padded when the text starts or ends with one; in a table a `|` still
    ends the cell inside a span, so it is escaped there (GFM)."""
    text = str(text).replace("\r", " ").replace("\n", " ")
    fence = "`" * (max((len(m) for m in _TICKS.findall(text)), default=0) + 1)
    spaced = text.startswith(" ") and text.endswith(" ") and text.strip(" ") != ""   # a reader strips one each side
    pad = " " if text.startswith("`") or text.endswith("`") or spaced else ""
    if in_table:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


def findings(found) -> list[str]:
    """The findings as a Markdown list, each with its fix."""
    if not found:
        return ["No findings.", ""]
    out = [f"**Findings ({len(found)})**", ""]
    for f in found:
        out.append(f"- **{f.code}** `{f.name}` ({f.severity}) at {code(location(f))}: {cell(f.message)}  ")
        out.append(f"  _Fix:_ {cell(f.hint)}")
    return out + [""]
