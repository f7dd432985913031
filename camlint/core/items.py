"""The registry of checklist keys: one `Item` per key, in checklist order.

Everything that walks the checklist (schema generator, judge, completeness and consistency rules,
extraction, `init`, `checklist`, `sweep`) asks this registry at call time, so a key registered
later (a test fixture's thirteenth key) is carried everywhere without another code change.
"""
from __future__ import annotations

from camlint.core.builtin_items import BUILTIN
from camlint.core.item import Advice, Item, Slot, Status

_REGISTRY: dict[str, Item] = {}


def register(item: Item) -> Item:
    """Add a key at the end of the checklist (the Item has already checked itself)."""
    if not isinstance(item, Item):
        raise TypeError(f"register() takes an Item, not {type(item).__name__}")
    if item.key in _REGISTRY:
        raise ValueError(f"checklist item {item.key!r} is already registered")
    _REGISTRY[item.key] = item
    return item


def unregister(name: str) -> None:
    if name not in _REGISTRY:
        raise KeyError(f"no checklist item {name!r}")
    del _REGISTRY[name]


def items() -> tuple[Item, ...]:
    return tuple(_REGISTRY.values())


def item(name: str) -> Item:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"no checklist item {name!r} (known: {', '.join(_REGISTRY)})") from None


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def executable_names() -> tuple[str, ...]:
    return tuple(i.key for i in _REGISTRY.values() if i.executable)


def swept_names() -> tuple[str, ...]:
    """Keys a sweep may vary: executable and given a sweep axis."""
    return tuple(i.key for i in _REGISTRY.values() if i.sweep)


for _builtin in BUILTIN:
    register(_builtin)

__all__ = ["Advice", "Item", "Slot", "Status", "register", "unregister", "items", "item", "names",
           "executable_names", "swept_names"]
