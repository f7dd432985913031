"""Checked readers of camspec values for `camlint verify`: each takes a value, the dotted key it
came from and a list of errors, and returns a value of the right type and range (or a default,
adding a message that starts with the key)."""
from __future__ import annotations

from pathlib import Path

from camlint.core import vocab
from camlint.safety.paths import LinkLoop, resolved_inside
from camlint.verify.modelargs import is_int, is_number


class SpecError(Exception):
    """The spec cannot be executed: carries the messages to show (one per problem)."""

    def __init__(self, messages: list[str]):
        super().__init__("; ".join(messages))
        self.messages = messages


def canonical_value(slot: str, value, errors: list[str], what: str):
    if not isinstance(value, (str, bool)):
        errors.append(f"{what}: {show_value(value)} is not a value camlint verify knows")
        return None
    c = vocab.canonical(slot, value)
    if c.value is None:
        errors.append(f"{what}: {show_value(value)} is not a value camlint verify knows")
    return c.value


def show_value(value) -> str:
    """A value for a message: short, and safe for 5,000-digit integers."""
    if is_int(value) and abs(value) > 10 ** 12:
        return "a very large integer"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def as_mapping(value, what: str, errors: list[str]) -> dict:
    if value is None or vocab.is_not_applicable(value):
        return {}
    if not isinstance(value, dict):
        errors.append(f"{what} must be a mapping, not {show_value(value)}")
        return {}
    return value


def as_list(value, what: str, errors: list[str]) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append(f"{what} must be a list, not {show_value(value)}")
        return []
    return value


def int_in(value, what: str, errors: list[str], lo: int, hi: int, default: int) -> int:
    if is_int(value) and lo <= value <= hi:
        return value
    errors.append(f"{what} must be an integer in {lo}..{hi}, not {show_value(value)}")
    return default


def number_in(value, what: str, errors: list[str], lo: float, hi: float, default: float) -> float:
    if is_number(value) and lo <= value <= hi:
        return float(value)
    errors.append(f"{what} must be a number in [{lo:g}, {hi:g}], not {show_value(value)}")
    return default


def one_of(value, what: str, errors: list[str], allowed: tuple, default: str) -> str:
    if isinstance(value, str) and value in allowed:
        return value
    errors.append(f"{what} must be one of {', '.join(allowed)}, not {show_value(value)}")
    return default


def as_flag(value, what: str, errors: list[str]) -> bool:
    if isinstance(value, bool):
        return value
    errors.append(f"{what} must be true or false, not {show_value(value)}")
    return False


def size_pair(value, what: str, errors: list[str], hi: int) -> tuple | None:
    if isinstance(value, list) and len(value) == 2 and all(is_int(v) and 1 <= v <= hi for v in value):
        return tuple(value)
    errors.append(f"{what} must be [height, width], each an integer in 1..{hi}, not {show_value(value)}")
    return None


def file_in(base: Path, rel, what: str, errors: list[str]) -> Path | None:
    if not isinstance(rel, str) or not rel or "\0" in rel or len(rel) > 4096:
        errors.append(f"{what} must be a file name relative to the spec's folder, not {show_value(rel)}")
        return None
    try:
        target = resolved_inside(base / rel, base)
    except LinkLoop:
        errors.append(f"{what}: {rel} is a link that loops; it is not read")
        return None
    if target is None:
        errors.append(f"{what}: {rel} leaves the spec's folder; it is not read")
    return target
