"""Safe, bounded YAML loading that keeps the line and column of every value.

Reviewers run camlint on untrusted supplements, so the loader
- accepts only the plain YAML/JSON tags (a `!!python/...` tag is refused, never constructed);
- composes nodes from the event stream itself, iteratively, with a nesting limit (PyYAML's own
  composer is recursive and a deeply nested file would overflow the stack);
- counts nodes while expanding aliases, so a billion-laughs file stops at a fixed budget;
- refuses files over a size limit before reading them.
"""
from __future__ import annotations

import datetime as _dt
import re
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from camlint.safety.safeio import read_regular

MAX_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 64
MAX_NODES = 100_000
MAX_NUMBER_CHARS = 100   # a 5,000-digit integer cannot even be printed (int_max_str_digits)

_SAFE_TAGS = {f"tag:yaml.org,2002:{t}" for t in
              ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "binary")}
Path_ = tuple  # a JSON path: tuple of str keys and int indices


class YAMLInputError(Exception):
    """The file cannot be read as a spec; carries a 1-based line and column."""

    def __init__(self, message: str, line: int = 1, col: int = 1):
        super().__init__(message)
        self.message, self.line, self.col = message, line, col


@dataclass
class _Node:
    kind: str                      # "map" | "seq" | "scalar"
    line: int
    col: int
    value: object = None           # scalar: Python value; map: list[(key, key_line, key_col, _Node)]; seq: list
    raw: str = ""


@dataclass
class LoadedYAML:
    data: object
    positions: dict = field(default_factory=dict)      # path -> (line, col) of the value
    key_positions: dict = field(default_factory=dict)  # path -> (line, col) of its key
    warnings: list = field(default_factory=list)       # (message, line, col)

    def position(self, path: Path_) -> tuple[int, int]:
        """Best position for a path: its key, else its value, else the nearest parent."""
        path = tuple(path)
        while path:
            if path in self.key_positions:
                return self.key_positions[path]
            if path in self.positions:
                return self.positions[path]
            path = path[:-1]
        return self.positions.get((), (1, 1))


# An explicit `!!bool`, `!!int`, ... on text of another shape reached PyYAML's constructors, which
# assume the resolver already matched it (`!!bool ""` raised KeyError, `!!timestamp x`
# AttributeError): such a tag is accepted only on text YAML itself would read as that type.
_SURROGATE = re.compile("[\ud800-\udfff]")
_TYPED = {f"tag:yaml.org,2002:{t}" for t in ("int", "float", "bool", "null", "timestamp")}


def _reads_as(text: str, tag: str) -> bool:
    implicit = yaml.SafeLoader.resolve(yaml.SafeLoader, yaml.ScalarNode, text, (True, False))
    return implicit == tag or (tag.endswith(":float") and implicit.endswith(":int"))


def _construct_scalar(event: yaml.ScalarEvent) -> object:
    tag = event.tag
    if tag is not None and tag != "!" and tag not in _SAFE_TAGS:
        raise YAMLInputError(f"tag {tag!r} is not allowed: specs may only hold plain data "
                             "(no Python objects or custom tags)",
                             event.start_mark.line + 1, event.start_mark.column + 1)
    if tag is None or tag == "!":
        if tag == "!" or event.style:  # quoted or non-specific tag: always a string
            tag = "tag:yaml.org,2002:str"
        else:
            tag = yaml.SafeLoader.resolve(yaml.SafeLoader, yaml.ScalarNode, event.value, event.implicit)
    if _SURROGATE.search(event.value):   # "\ud800" escapes a half of a character: no report can encode it
        raise YAMLInputError(f"value {ascii(event.value[:40])} holds a lone surrogate escape (\\ud800-\\udfff), "
                             "which is not text", event.start_mark.line + 1, event.start_mark.column + 1)
    if tag == "tag:yaml.org,2002:merge":    # `<<: *anchor` copies a mapping in: aliases are counted, merges are not
        raise YAMLInputError("merge keys (<<) are not allowed: write the keys out",
                             event.start_mark.line + 1, event.start_mark.column + 1)
    if tag in (f"tag:yaml.org,2002:{t}" for t in ("int", "float")) and len(event.value) > MAX_NUMBER_CHARS:
        raise YAMLInputError(f"a number of {len(event.value)} digits is too long (at most {MAX_NUMBER_CHARS} characters)",
                             event.start_mark.line + 1, event.start_mark.column + 1)
    if event.tag in _TYPED and not _reads_as(event.value, event.tag):
        raise YAMLInputError(f"value {event.value[:40]!r} is not a valid !!{event.tag.rsplit(':', 1)[-1]}",
                             event.start_mark.line + 1, event.start_mark.column + 1)
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        value = yaml.SafeLoader.construct_object(yaml.SafeLoader(""), node)
    except (yaml.YAMLError, ValueError, OverflowError, LookupError, AttributeError, TypeError) as exc:
        raise YAMLInputError(f"cannot read value {event.value[:40]!r}: {exc}",
                             event.start_mark.line + 1, event.start_mark.column + 1) from None
    if isinstance(value, (_dt.date, _dt.datetime)):
        value = event.value  # keep dates as written: the schema has no date type
    elif isinstance(value, bytes):
        value = event.value
    return value


def _compose(events, max_depth: int) -> _Node | None:
    anchors: dict[str, _Node] = {}
    stack: list[tuple[_Node, list]] = []   # (container, pending key for maps)
    root: _Node | None = None
    documents = 0

    def attach(node: _Node, ev) -> None:
        nonlocal root
        if not stack:
            root = node
            return
        parent, pending = stack[-1]
        if parent.kind == "seq":
            parent.value.append(node)
        elif not pending:
            if node.kind != "scalar":
                raise YAMLInputError("mapping keys must be plain scalars", node.line, node.col)
            pending.append(node)
        else:
            key = pending.pop()
            parent.value.append((key.raw, key.line, key.col, node))

    for ev in events:
        line, col = ev.start_mark.line + 1, ev.start_mark.column + 1
        if isinstance(ev, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise YAMLInputError("a spec file holds exactly one YAML document", line, col)
        elif isinstance(ev, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            if ev.tag is not None and ev.tag not in _SAFE_TAGS:
                raise YAMLInputError(f"tag {ev.tag!r} is not allowed: specs may only hold plain data",
                                     line, col)
            if len(stack) >= max_depth:
                raise YAMLInputError(f"nesting deeper than {max_depth} levels", line, col)
            node = _Node("map" if isinstance(ev, yaml.MappingStartEvent) else "seq", line, col, [])
            if ev.anchor:
                anchors[ev.anchor] = node
            attach(node, ev)
            stack.append((node, []))
        elif isinstance(ev, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            stack.pop()
        elif isinstance(ev, yaml.ScalarEvent):
            node = _Node("scalar", line, col, _construct_scalar(ev), ev.value)
            if ev.anchor:
                anchors[ev.anchor] = node
            attach(node, ev)
        elif isinstance(ev, yaml.AliasEvent):
            if ev.anchor not in anchors:
                raise YAMLInputError(f"unknown alias *{ev.anchor}", line, col)
            attach(anchors[ev.anchor], ev)
    return root


def _to_data(root: _Node, max_nodes: int, max_depth: int) -> LoadedYAML:
    out = LoadedYAML(None)
    budget = [max_nodes]

    building: set[int] = set()   # containers on the current path: an alias back to one is a cycle

    def build(node: _Node, path: tuple) -> object:
        if id(node) in building:
            raise YAMLInputError("an alias refers to a node that contains it (a recursive value)",
                                 node.line, node.col)
        budget[0] -= 1
        if budget[0] < 0:
            raise YAMLInputError(f"the document expands to more than {max_nodes} values "
                                 "(recursive or exponential aliases?)", node.line, node.col)
        if len(path) > max_depth:   # an alias of a deep value inside another deep value, repeated
            raise YAMLInputError(f"nesting deeper than {max_depth} levels (through aliases)", node.line, node.col)
        out.positions[path] = (node.line, node.col)
        if node.kind == "scalar":
            return node.value
        building.add(id(node))
        if node.kind == "seq":
            result: object = [build(child, path + (i,)) for i, child in enumerate(node.value)]
        else:
            result = {}
            for key, kline, kcol, child in node.value:
                if key in result:
                    out.warnings.append((f"duplicate key {key!r}: the later value wins", kline, kcol))
                out.key_positions[path + (key,)] = (kline, kcol)
                result[key] = build(child, path + (key,))
        building.discard(id(node))
        return result

    # Iterative alternative is unnecessary: depth is bounded by MAX_DEPTH at compose time.
    out.data = build(root, ()) if root is not None else None
    return out


# Parses of this run by text: N manuscripts naming one 2 MB spec (`% camspec:` or --spec) parsed
# it N times (minutes). A copy is handed out, so no caller's change reaches another's spec.
_PARSED: OrderedDict = OrderedDict()
_PARSED_ENTRIES = 4


def loads(text: str, *, max_depth: int = MAX_DEPTH, max_nodes: int = MAX_NODES) -> LoadedYAML:
    if max_nodes > MAX_NODES:    # a hand-label file (10 M values) is read once: not kept for the run
        return _loads(text, max_depth, max_nodes)
    key = (text, max_depth, max_nodes)
    if key not in _PARSED:
        try:
            _PARSED[key] = _loads(text, max_depth, max_nodes)
        except YAMLInputError as exc:
            _PARSED[key] = exc
        if len(_PARSED) > _PARSED_ENTRIES:
            _PARSED.popitem(last=False)
    _PARSED.move_to_end(key)
    found = _PARSED[key]
    if isinstance(found, YAMLInputError):
        raise YAMLInputError(found.message, found.line, found.col)
    return LoadedYAML(_copied(found.data), dict(found.positions), dict(found.key_positions), list(found.warnings))


def _copied(value: object) -> object:
    """A copy of the containers (the scalars are immutable); nesting is bounded by MAX_DEPTH."""
    if isinstance(value, dict):
        return {k: _copied(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copied(v) for v in value]
    return value


def _loads(text: str, max_depth: int, max_nodes: int) -> LoadedYAML:
    try:
        events = yaml.parse(text, Loader=yaml.SafeLoader)
        root = _compose(events, max_depth)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = " ".join(str(p) for p in (exc.context, exc.problem) if p)
        raise YAMLInputError(f"YAML syntax error: {problem}", line, col) from None
    except yaml.YAMLError as exc:
        raise YAMLInputError(f"YAML error: {exc}") from None
    return _to_data(root, max_nodes, max_depth)


def read_text(path: Path, max_bytes: int = MAX_BYTES) -> str:
    """Read a small text file: a regular file only, size-limited, UTF-8 (BOM allowed) with a
    latin-1 fallback."""
    try:
        raw = read_regular(path, max_bytes, "spec file")
    except ValueError as exc:   # not a regular file, or over the limit
        raise YAMLInputError(str(exc)) from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    if "\x00" in text:
        raise YAMLInputError("file contains NUL bytes: not a text file")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_file(path: Path, **limits) -> LoadedYAML:
    return loads(read_text(path), **limits)
