"""Text from a submission made safe to print: no terminal control sequences.

A manuscript line, a file name or a camspec value may carry ESC/OSC/CSI sequences that move the
cursor, rewrite the terminal title or hide text in a reviewer's terminal or CI log. Every
human-readable format prints reports through `printable_report` (camlint.formats.render), and
anything else echoed from the input goes through `printable`.
"""
from __future__ import annotations

import re
from dataclasses import replace

# Whole escape sequences first (so no "[31m" residue is left), then any lone control character:
# C0 except tab, DEL, C1, the bidirectional overrides that reorder what a reader sees, and
# U+FFFE/U+FFFF, which are no XML 1.0 characters (they made the JUnit report unparseable).
# Each alternative stops at the next ESC, so a file of unterminated sequences is linear.
_SEQUENCE = re.compile(r"\x1b\][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"      # OSC ... BEL/ST
                       r"|\x1b\[[0-?]*[ -/]*[@-~]?"                          # CSI
                       r"|\x9b[0-?]*[ -/]*[@-~]?"                            # 8-bit CSI
                       r"|\x1b[ -/]*[0-~]?")                                 # other ESC sequences
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ufffe\uffff]")


def printable(text: str) -> str:
    """`text` without escape sequences or control characters; a line break becomes a space."""
    text = str(text)
    if text.isprintable():
        return text
    # a file name that is not UTF-8 reaches here with its bytes as lone surrogates, which no
    # stream can print: each becomes U+FFFD
    text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return _CONTROL.sub(lambda m: " " if m.group() in "\n\r" else "", _SEQUENCE.sub("", text))


def printable_lines(text: str) -> str:
    """A whole rendered output: each line made printable, the line breaks kept."""
    return "\n".join(printable(line) for line in text.split("\n"))


def _value(v):
    if isinstance(v, str):
        return printable(v)
    if isinstance(v, list):
        return [_value(x) for x in v]
    if isinstance(v, dict):
        return {printable(str(k)) if isinstance(k, str) else k: _value(x) for k, x in v.items()}
    return v


def printable_finding(f):
    return replace(f, message=printable(f.message), hint=printable(f.hint), file=printable(f.file),
                   section=printable(f.section),
                   suppressed=None if f.suppressed is None else printable(f.suppressed))


def printable_report(rep):
    """A copy of a DocumentReport whose every string from the input is printable."""
    from camlint.rules.findings import ChecklistEntry

    checklist = {k: ChecklistEntry(e.status, _value(e.value),
                                   [replace(x, file=printable(x.file), text=printable(x.text)) for x in e.evidence])
                 for k, e in rep.checklist.items()}
    return replace(rep, path=printable(rep.path), checklist=checklist, spec=_value(rep.spec),
                   findings=[printable_finding(f) for f in rep.findings],
                   suppressed=[printable_finding(f) for f in rep.suppressed])


def printable_error(e):
    import copy

    out = copy.copy(e)
    out.message, out.file = printable(e.message), printable(e.file)
    out.args = (out.message,)
    return out
