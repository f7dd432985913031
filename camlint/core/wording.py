"""The words camlint reads (core/vocabulary.yaml) as plain data, and the lower-casing every
pattern runs on. The document model (section roles, abbreviations) and extraction (compiled in
camlint.extract.vocab) both read it; it lives in core so neither imports the other for it."""
from __future__ import annotations

import functools
import importlib.resources

import yaml

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def low(text: str) -> str:
    """ASCII lower case: same length, so match offsets are offsets in the original text."""
    return text.translate(_ASCII_LOWER)


def vocabulary_text() -> str:
    return (importlib.resources.files("camlint.core") / "vocabulary.yaml").read_text(encoding="utf-8")


@functools.lru_cache(maxsize=1)
def vocabulary_data() -> dict:
    """vocabulary.yaml as plain data (word lists, patterns before compiling); do not modify."""
    return yaml.load(vocabulary_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
