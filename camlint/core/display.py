"""Short human renderings of camspec-shaped values (tables, messages)."""
from __future__ import annotations


def short_value(value, limit: int | None = 60) -> str:
    """One line; cut at `limit` characters (None: never cut)."""
    if value is None:
        return ""
    if isinstance(value, dict):
        if set(value) <= {"text", "note"}:
            text = f"'{value.get('text', value.get('note'))}'"
        else:
            text = ", ".join(f"{k}: {_atom(v)}" for k, v in value.items() if k != "text")
    else:
        text = _atom(value)
    text = " ".join(text.split())
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def _atom(v) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_atom(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_atom(x)}" for k, x in v.items()) + "}"
    return str(v)
