"""Patterns tried only on text that holds a literal every match of them contains.

Most sentences match none of the vocabulary's patterns, and a pattern (worse, a union of a
hundred) costs time at every word of the text it scans. But almost every pattern spells out some
words: '\\bunnormali[sz]ed (?:class )?scores?\\b' cannot match where neither 'unnormalised' nor
'unnormalized' occurs. Those words are read once from the pattern's parse tree, and a substring
test (fast, in C) rejects text without any of them before the pattern runs. The answer is always
the pattern's own: the test only skips text on which the pattern cannot match.
"""
from __future__ import annotations

import re

try:   # the parser and compiler behind re.compile (3.11+; re.Scanner compiles a parse tree too)
    from re import _compiler, _constants as C, _parser as P
except ImportError:   # pragma: no cover  (patterns then simply run unfiltered)
    _compiler = C = P = None

MAX_VARIANTS = 64     # spellings of one run of literals ([sz] doubles them) before it is cut short
MAX_CLASS = 4         # a character class of up to this many characters is spelt out


def required_literals(pattern: str, flags: int = 0) -> frozenset[str] | None:
    """Strings of which every match of `pattern` contains at least one; None if none is known."""
    tree = _parse(pattern, flags)
    return None if tree is None else _literals(tree)


def _parse(pattern: str, flags: int):
    if P is None or flags & re.IGNORECASE:
        return None
    try:
        tree = P.parse(pattern, flags)
    except (re.error, RecursionError):
        return None
    return None if tree.state.flags & re.IGNORECASE else tree


def _literals(tree) -> frozenset[str] | None:
    required = _sequence(tree.data)[1]
    if not required:
        return None
    # a string that contains another of the set adds nothing to the test ('vit' covers 'vits')
    ordered = sorted(required, key=len)
    return frozenset(s for i, s in enumerate(ordered) if not any(t in s for t in ordered[:i]))


def _sequence(items) -> tuple[set[str] | None, set[str] | None]:
    """(exact, required) of a sequence: the strings it matches if they are few, and the best set
    of strings one of which every match contains."""
    run, tail, whole, candidates = {""}, [], True, []   # tail: literal characters not yet joined
    for op, av in getattr(items, "data", items):
        if op is C.LITERAL:
            tail.append(chr(av))
            continue
        if op in _ZERO_WIDTH:
            continue                     # the literals around it stay adjacent
        if tail:
            run, tail = _joined(run, "".join(tail)), []
        exact, required = _node(op, av)
        if required:
            candidates.append(required)  # every match holds the node's own literals too
        if exact is not None and len(run) * len(exact) <= MAX_VARIANTS:
            if len(exact) > 1:
                candidates.append(run)   # 'whisper' may test as well as its twelve spellings
            run = {a + b for a in run for b in exact}
            continue
        candidates.append(run)
        whole = False
        # too many spellings to join: a new run
        run = set(exact) if exact is not None and len(exact) <= MAX_VARIANTS else {""}
    if tail:
        run = _joined(run, "".join(tail))
    candidates.append(run)
    usable = [c for c in candidates if c and "" not in c]
    best = max(usable, key=_selectivity, default=None)
    return (run if whole else None), best


SELECTIVE_LENGTH = 6    # a literal this long is rare enough: then the fewer literals the better


def _selectivity(strings: set[str]) -> tuple[int, int]:
    return min(SELECTIVE_LENGTH, min(map(len, strings))), -len(strings)


def _joined(run: set[str], text: str) -> set[str]:
    return {a + text for a in run}


_ZERO_WIDTH = (C.AT, C.ASSERT, C.ASSERT_NOT) if C is not None else ()


def _node(op, av) -> tuple[set[str] | None, set[str] | None]:
    if op is C.LITERAL:
        return {chr(av)}, {chr(av)}
    if op is C.IN:
        chars = _class(av)
        return chars, chars
    if op is C.SUBPATTERN:
        _group, add_flags, _del_flags, body = av
        return (None, None) if add_flags & re.IGNORECASE else _sequence(body)
    if op is getattr(C, "ATOMIC_GROUP", None):
        return _sequence(av)
    if op is C.BRANCH:
        return _branch(av[1])
    if op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
        low_count, high_count, body = av
        if low_count == 0:   # optional: 'vi-?t' spells 'vit' or 'vi-t'
            exact = _sequence(body)[0] if high_count == 1 else None
            return ({""} | exact if exact is not None else None), None
        exact, required = _sequence(body)
        return (exact if low_count == high_count == 1 else None), required
    return None, None


def _branch(alternatives) -> tuple[set[str] | None, set[str] | None]:
    exact: set[str] | None = set()
    required: set[str] | None = set()
    for alt in alternatives:
        e, r = _sequence(alt)
        exact = exact | e if exact is not None and e is not None else None
        required = required | r if required is not None and r else None
    return exact, required


def _class(members) -> set[str] | None:
    if len(members) > MAX_CLASS or any(op is not C.LITERAL for op, _ in members):
        return None
    return {chr(av) for _, av in members}


# A pattern that can match no line break (nor test for one, nor anchor at a string's or line's
# end) finds in a long text exactly what it finds line by line: only the lines that hold one of
# its literals need to be searched.
_BOUNDARIES = {"AT_BOUNDARY", "AT_NON_BOUNDARY", "AT_UNI_BOUNDARY", "AT_UNI_NON_BOUNDARY",
               "AT_LOC_BOUNDARY", "AT_LOC_NON_BOUNDARY"}
_NEWLINE_CATEGORIES = {"CATEGORY_SPACE", "CATEGORY_UNI_SPACE", "CATEGORY_NOT_WORD", "CATEGORY_UNI_NOT_WORD",
                       "CATEGORY_NOT_DIGIT", "CATEGORY_UNI_NOT_DIGIT", "CATEGORY_LINEBREAK",
                       "CATEGORY_UNI_LINEBREAK", "CATEGORY_LOC_NOT_WORD"}
_SAFE_CATEGORIES = {"CATEGORY_WORD", "CATEGORY_UNI_WORD", "CATEGORY_DIGIT", "CATEGORY_UNI_DIGIT",
                    "CATEGORY_NOT_SPACE", "CATEGORY_UNI_NOT_SPACE", "CATEGORY_NOT_LINEBREAK",
                    "CATEGORY_UNI_NOT_LINEBREAK", "CATEGORY_LOC_WORD"}
NEWLINE = ord("\n")


def _line_local(items, dotall: bool) -> bool:
    """No part of the pattern (assertions included) can match or anchor at a line break."""
    for op, av in getattr(items, "data", items):
        if op is C.LITERAL or op is C.NOT_LITERAL:
            if (av == NEWLINE) == (op is C.LITERAL):
                return False
        elif op is C.ANY:
            if dotall:
                return False
        elif op is C.IN:
            if _class_has_newline(av):
                return False
        elif op is C.AT:
            if str(av) not in _BOUNDARIES:
                return False
        elif op in (C.ASSERT, C.ASSERT_NOT):
            if not _line_local(av[1], dotall):
                return False
        elif op is C.SUBPATTERN:
            if not _line_local(av[3], dotall or bool(av[1] & re.DOTALL)):
                return False
        elif op is C.BRANCH:
            if not all(_line_local(alt, dotall) for alt in av[1]):
                return False
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, getattr(C, "POSSESSIVE_REPEAT", None)):
            if not _line_local(av[2], dotall):
                return False
        elif op is getattr(C, "ATOMIC_GROUP", None):
            if not _line_local(av, dotall):
                return False
        elif op is not C.GROUPREF:      # a back reference repeats a group checked above
            return False
    return True


def _class_has_newline(members) -> bool:
    negated = bool(members) and members[0][0] is C.NEGATE
    has = False
    for op, av in members[1:] if negated else members:
        if op is C.LITERAL:
            has = has or av == NEWLINE
        elif op is C.RANGE:
            has = has or av[0] <= NEWLINE <= av[1]
        elif op is C.CATEGORY and str(av) in _NEWLINE_CATEGORIES | _SAFE_CATEGORIES:
            has = has or str(av) in _NEWLINE_CATEGORIES
        else:
            return True       # not understood: as if it could
    return has != negated


LONG_TEXT = 4096     # from this length on, a line-local pattern searches only the lines it may match


class Filtered:
    """A compiled pattern that first checks the text for a literal every match contains.

    Offers what camlint calls on patterns; anything else goes to the pattern unfiltered."""

    __slots__ = ("rx", "literals", "pattern", "line_local")

    def __init__(self, rx: re.Pattern, literals: frozenset[str], pattern: str, line_local: bool = False):
        self.rx, self.literals, self.pattern = rx, tuple(sorted(literals, key=len)), pattern
        self.line_local = line_local

    def _absent(self, text: str) -> bool:
        for literal in self.literals:     # (a plain loop: any() over a generator is slower here)
            if literal in text:
                return False
        return True

    def _lines(self, text: str) -> list[tuple[int, int]]:
        """(start, end) of the lines of `text` that hold one of the literals, in order."""
        spans: dict[int, int] = {}
        for literal in self.literals:
            i = text.find(literal)
            while i >= 0:
                start, end = text.rfind("\n", 0, i) + 1, text.find("\n", i)
                end = len(text) if end < 0 else end
                spans[start] = end
                i = text.find(literal, end + 1)
        return sorted(spans.items())

    def _by_line(self, text: str):
        for start, end in self._lines(text):
            yield from self.rx.finditer(text, start, end)

    def search(self, text, *args):
        if not args and self.line_local and len(text) >= LONG_TEXT:
            return next(self._by_line(text), None)
        return None if self._absent(text) else self.rx.search(text, *args)

    def match(self, text, *args):
        return None if self._absent(text) else self.rx.match(text, *args)

    def fullmatch(self, text, *args):
        return None if self._absent(text) else self.rx.fullmatch(text, *args)

    def finditer(self, text, *args):
        if not args and self.line_local and len(text) >= LONG_TEXT:
            return self._by_line(text)
        return iter(()) if self._absent(text) else self.rx.finditer(text, *args)

    def findall(self, text, *args):
        return [] if self._absent(text) else self.rx.findall(text, *args)

    def sub(self, repl, text, count=0):
        return text if self._absent(text) else self.rx.sub(repl, text, count)

    def __getattr__(self, name):
        return getattr(self.rx, name)

    def __repr__(self) -> str:
        return f"Filtered({self.pattern!r})"


def compile_filtered(pattern: str, flags: int = 0):
    """re.compile(pattern, flags), behind a literal test where the pattern has one (parsed once:
    parsing is most of what compiling a pattern costs)."""
    tree = _parse(pattern, flags)
    literals = None if tree is None else _literals(tree)
    if not literals:
        return re.compile(pattern, flags)
    line_local = _line_local(tree.data, bool(tree.state.flags & re.DOTALL))
    return Filtered(_compiler.compile(tree, flags), literals, pattern, line_local)


class AnyOf:
    """Whether any of several patterns matches a text, as their union would say, but running
    only the patterns whose literal the text holds (a union of two hundred patterns runs all of
    them at every word). search() gives the first pattern's match, in pattern order: a test to
    take for its truth, not the union's leftmost match."""

    def __init__(self, patterns):
        self.patterns = [getattr(rx, "rx", rx) for rx in patterns]
        self.unfiltered = [i for i, rx in enumerate(patterns) if not isinstance(rx, Filtered)]
        self.by_literal: dict[str, list[int]] = {}
        for i, rx in enumerate(patterns):
            for literal in rx.literals if isinstance(rx, Filtered) else ():
                self.by_literal.setdefault(literal, []).append(i)

    def search(self, text: str):
        runs = set(self.unfiltered)
        for literal, indexes in self.by_literal.items():
            if literal in text:
                runs.update(indexes)
        for i in sorted(runs):
            m = self.patterns[i].search(text)
            if m:
                return m
        return None
