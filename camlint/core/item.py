"""The record of one checklist key (shared/taxonomy.md) and the statuses a key can have.

An `Item` holds everything camlint knows about a key: what it means, its slots and which are
required, how a value fills them (the status judgement), its schema form, the `camlint init`
choices, what `camlint sweep` tries when it is open, how two values are compared, and the texts
of its completeness rule. It checks itself when it is made, so a forgotten piece fails at
registration, not in the middle of a run.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable

NOT_APPLICABLE_FORM = {"$ref": "#/$defs/not_applicable"}


class Status(enum.StrEnum):
    """How completely a document reports a key; a str, so JSON output and string comparisons keep working."""
    REPORTED = "reported"
    PARTIAL = "partial"
    MISSING = "missing"
    NOT_APPLICABLE = "not_applicable"

    @property
    def label(self) -> str:
        """Short word for tables ("n/a")."""
        return "n/a" if self is Status.NOT_APPLICABLE else self.value


@dataclass(frozen=True)
class Slot:
    name: str               # field of the camspec mapping ("arch")
    label: str              # what messages call it ("architecture")
    required: bool = True   # the key is reported only when every required slot is known


@dataclass(frozen=True)
class Advice:
    """The texts of the key's completeness rule (CAM1xx)."""
    missing: str        # message when nothing is said
    partial: str        # message when it is said vaguely
    rationale: str
    bad: str
    good: str
    hint: str


def _plain_differs(a, b) -> bool:
    return a is not None and b is not None and a != b


@dataclass(frozen=True)
class Item:
    """One checklist key. Every field without a default must be given: None is a decision
    (never swept, never compared), an omission is a TypeError."""
    key: str
    description: str                        # one line for tables and hints
    slots: tuple[Slot, ...]
    filled: Callable[[object], list[bool]]  # a str or dict value -> one flag per required slot
    schema: dict                            # JSON-schema property: {"title", "description", "anyOf": [..., n/a], "examples"}
    choices: str                            # the TODO line of `camlint init`
    executable: bool                        # needed to re-execute a spec (provenance is not)
    sweep: tuple | None                     # values `camlint sweep` tries when open; None: the spec must state it
    compare: Callable[[object, int | None], object] | None   # value, depth -> comparable form; None: not compared
    advice: Advice
    differs: Callable[[object, object], bool] = _plain_differs   # two comparable forms disagree
    multiple: bool = False                  # a list (several placements) or a bool is a full value
    words: str | None = None                # vocabulary slot of its single-word values (vocab.canonical)
    phrases: bool = False                   # vocabulary.yaml has phrase entries under its name

    def __post_init__(self):
        problems = _problems(self)
        if problems:
            raise ValueError(f"checklist item {self.key!r}: " + "; ".join(problems))

    @property
    def required(self) -> tuple[str, ...]:
        """Labels of the required slots, in the order `filled` reports them."""
        return tuple(s.label for s in self.slots if s.required)

    def forms(self) -> list:
        """The schema forms of a value (without the n/a marker)."""
        return [f for f in self.schema["anyOf"] if f != NOT_APPLICABLE_FORM]


def _problems(item: Item) -> list[str]:
    out = []
    if not item.key.isidentifier() or item.key != item.key.lower():
        out.append("the key must be a lower-case identifier")
    if not item.description.strip():
        out.append("no description")
    if not item.required:
        out.append("no required slot (a value could never be reported)")
    if not item.choices.strip():
        out.append("no `camlint init` choices")
    out += _schema_problems(item)
    if item.executable and item.sweep is not None and not item.sweep:
        out.append("an executable item needs a sweep axis (the values a sweep tries when the key is "
                   "open), or sweep=None to say a spec must state it")
    if not item.executable and item.sweep:
        out.append("only executable items are swept")
    if item.compare is not None and not callable(item.compare):
        out.append("compare must be callable or None")
    if not out:
        out += _filled_problems(item)
    return out


def _schema_problems(item: Item) -> list[str]:
    s = item.schema
    if not isinstance(s, dict) or not all(k in s for k in ("title", "description", "anyOf", "examples")):
        return ["the schema form needs title, description, anyOf and examples"]
    if NOT_APPLICABLE_FORM not in s["anyOf"] or len(s["anyOf"]) < 2:
        return ["the schema's anyOf needs the value forms and the n/a marker"]
    return []


def _filled_problems(item: Item) -> list[str]:
    """Every schema example and sweep value is a complete value: each fills every required slot."""
    out = []
    for value in [*item.schema["examples"], *(item.sweep or ())]:
        if value == "n/a" or (isinstance(value, (bool, list)) and item.multiple):
            continue
        try:
            flags = item.filled(value)
        except Exception as exc:      # noqa: BLE001 - any failure of the decider is a definition error
            out.append(f"filled({value!r}) fails ({exc.__class__.__name__}: {exc})")
            continue
        if len(flags) != len(item.required):
            out.append(f"filled({value!r}) gives {len(flags)} flags for {len(item.required)} required slots")
        elif not all(flags):
            out.append(f"the complete value {value!r} leaves a required slot open")
    return out
