"""Structural problems of a LaTeX file: unbalanced braces and \\begin/\\end mismatches (CAM004).

The text is still read; these only tell the author where LaTeX would stumble. Each kind is
capped per file so that a pathological file cannot produce a finding per character.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from camlint.rules.findings import MAX_PER_RULE_AND_FILE
from camlint.inputs.latex.braces import BRACE_TOKENS
from camlint.inputs.latex.source import SourceFile
from camlint.rules.base import Hit
from camlint.rules.input import MALFORMED_LATEX

_BEGIN_END = re.compile(r"\\begin\s*\{([^{}]*)\}|\\end\s*\{([^{}]*)\}")


def _without_raw_blocks(f: SourceFile) -> str:
    """The masked text with code blocks blanked (they are not LaTeX), built in one pass."""
    parts, pos = [], 0
    for b in f.raw_blocks:
        parts += [f.masked[pos:b.start], " " * (b.end - b.start)]
        pos = b.end
    parts.append(f.masked[pos:])
    return "".join(parts)


class _Capped:
    """Problems of one kind in one file: the first few listed, the rest counted in one more
    (300 KB of `}` must not make 300k findings)."""

    def __init__(self, f: SourceFile, out: list[Hit], what: str):
        self.f, self.out, self.what = f, out, what
        self.listed = self.more = self.first_more = 0

    def add(self, message: str, offset: int) -> None:
        if self.listed >= MAX_PER_RULE_AND_FILE - 1:
            self.more += 1
            self.first_more = self.first_more or offset
            return
        self.listed += 1
        line, col = self.f.line_col(offset)
        self.out.append(MALFORMED_LATEX.hit(message, self.f.display, line, col))

    def close(self) -> None:
        if self.more:
            line, col = self.f.line_col(self.first_more)
            self.out.append(MALFORMED_LATEX.hit(f"{self.more} more {self.what} problem(s) in this file from "
                                                "here, not listed one by one", self.f.display, line, col))


def structural_problems(f: SourceFile) -> list[Hit]:
    """Unbalanced braces and begin/end mismatches (the text is still read)."""
    problems: list[Hit] = []
    text = _without_raw_blocks(f)
    envs = _Capped(f, problems, "environment")
    for b in f.raw_blocks:   # code blocks are not LaTeX
        if not b.closed:
            envs.add(f"environment {b.env} opened here is never closed", b.begin)
    _environment_problems(text, envs)
    envs.close()
    braces = _Capped(f, problems, "brace")
    first_open, stack_depth = -1, 0
    for m in BRACE_TOKENS.finditer(text):
        c = m.group()
        if c == "{":
            first_open = m.start() if stack_depth == 0 and first_open < 0 else first_open
            stack_depth += 1
        elif c == "}":
            if stack_depth:
                stack_depth -= 1
                first_open = -1 if stack_depth == 0 else first_open
            else:
                braces.add("closing brace } without an opening brace", m.start())
    if stack_depth:
        braces.add(f"{stack_depth} brace(s) opened here and never closed", first_open)
    braces.close()
    return problems


@dataclass(frozen=True)
class _Begin:
    env: str
    offset: int


def _environment_problems(text: str, out: _Capped) -> None:
    stack: list[_Begin] = []
    open_count: dict[str, int] = {}   # env -> how many are on the stack (no scan per \\end)
    for m in _BEGIN_END.finditer(text):
        if m.group(1) is not None:
            stack.append(_Begin(m.group(1), m.start()))
            open_count[m.group(1)] = open_count.get(m.group(1), 0) + 1
            continue
        env = m.group(2)
        if open_count.get(env):
            while stack[-1].env != env:
                b = stack.pop()
                open_count[b.env] -= 1
                out.add(f"environment {b.env} opened here is not closed before \\end{{{env}}}", b.offset)
            stack.pop()
            open_count[env] -= 1
        else:
            out.add(f"\\end{{{env}}} without a matching \\begin{{{env}}}", m.start())
    for b in stack:
        out.add(f"environment {b.env} opened here is never closed", b.offset)
