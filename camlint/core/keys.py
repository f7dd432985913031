"""The checklist keys as read-only views of the item registry (camlint/core/items.py), for the
modules that only need their names. The views read the registry at each use, so a key registered
later is carried too."""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from camlint.core import items as _items
from camlint.core.item import Status


class _Names(Sequence):
    """A live tuple of registered key names (optionally only those an item predicate selects)."""

    def __init__(self, select=None):
        self._select = select

    def _now(self) -> tuple[str, ...]:
        return tuple(i.key for i in _items.items() if self._select is None or self._select(i))

    def __getitem__(self, index):
        return self._now()[index]

    def __len__(self) -> int:
        return len(self._now())

    def __iter__(self):
        return iter(self._now())

    def __contains__(self, name) -> bool:
        return name in self._now()

    def __eq__(self, other) -> bool:
        return tuple(self) == tuple(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return repr(self._now())


class _Descriptions(Mapping):
    """key -> one-line description (used in tables and hints)."""

    def __getitem__(self, key: str) -> str:
        return _items.item(key).description

    def __iter__(self):
        return iter(_items.names())

    def __len__(self) -> int:
        return len(_items.names())


KEYS: Sequence[str] = _Names()
# Keys that must be known to re-execute a spec (implementation is provenance, not a choice).
EXECUTABLE_KEYS: Sequence[str] = _Names(lambda i: i.executable)
DESCRIPTIONS: Mapping[str, str] = _Descriptions()

REPORTED, PARTIAL, MISSING, NOT_APPLICABLE = Status.REPORTED, Status.PARTIAL, Status.MISSING, Status.NOT_APPLICABLE
STATUSES: tuple[Status, ...] = tuple(Status)

from camlint.core.locations import ATTENTION_LOCATIONS  # noqa: E402,F401  (one record per location)
