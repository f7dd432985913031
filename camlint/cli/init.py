"""`camlint init`: a camspec.yaml pre-filled from a manuscript, with a TODO for every open key.

Found values are written in canonical form (they validate); for a missing or vague key the line
says TODO and lists the allowed choices, so the file validates once every TODO is replaced.
"""
from __future__ import annotations

import yaml

from camlint.core import vocab
from camlint.core import items
from camlint.core.keys import MISSING, NOT_APPLICABLE, REPORTED


def _flow(value) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, width=10_000, sort_keys=False).strip()
    return text[:-4].strip() if text.endswith("\n...") or text.endswith("...") else text


def canonical_value(key: str, value):
    """A found value in schema form, or None when it cannot be written as one."""
    if value is None or vocab.is_placeholder(value):
        return None
    if vocab.is_not_applicable(value):
        return "n/a"
    if isinstance(value, dict):
        value = {k: v for k, v in value.items() if k not in ("text", "note", "ordinal")}
        if not value:
            return None
    if key in ("method", "location", "weighting") and isinstance(value, str):
        return vocab.canonical(key, value).value
    if key == "relu":
        items = value if isinstance(value, list) else [value]
        canon = [vocab.canonical("relu", v).value for v in items]
        return None if None in canon else (canon[0] if len(canon) == 1 else canon)
    if key == "heads" and isinstance(value, str):
        agg = vocab.canonical("heads", value).value
        return {"aggregate": agg} if agg else None
    if key == "model" and isinstance(value, dict):
        return {k: v for k, v in value.items() if k in ("arch", "weights", "kwargs", "input_size", "preprocessing")}
    if key == "layer" and isinstance(value, dict):
        if "blocks" in value and "combine" not in value:
            return None
        return {k: v for k, v in value.items() if k in ("block", "blocks", "combine", "stage", "encoder", "indexing")} \
            if any(k in value for k in ("block", "blocks", "stage")) else None
    if key == "postprocess" and isinstance(value, dict) and any(
            vocab.canonical(f"postprocess.{k}", value[k]).value is None for k in ("normalize", "upsample") if k in value):
        return None    # a normalisation the camspec has no value for (z-score, a percentile)
    if key == "target" and isinstance(value, dict):
        kind = vocab.canonical("target.kind", value.get("kind")).value if value.get("kind") else None
        return {"kind": kind or "TODO", "class": value.get("class", "TODO")}
    return value


def comment_text(text: str) -> str:
    """Text from the input made safe for one YAML comment line: every non-printable character
    (newline, carriage return, U+2028, escape sequences) written as a visible escape."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in str(text))


def _where(rep, key: str) -> str:
    ev = rep.checklist[key].evidence
    return f"  # stated at {comment_text(ev[0].file)}:{ev[0].line}" if ev else ""


def template(rep) -> str:
    lines = [f"# camspec for {comment_text(rep.path)}, written by camlint init.",
             "# Values found in the manuscript are filled in; replace every TODO (choices are in the",
             "# comments), then run: camlint check camspec.yaml",
             "camspec: 1"]
    for item in items.items():
        key = item.key
        entry = rep.checklist[key]
        value = canonical_value(key, entry.value) if entry.status != NOT_APPLICABLE else "n/a"
        if entry.status == NOT_APPLICABLE and key in ("heads", "target", "tokens"):
            lines.append(f"{key}: n/a")
        elif value is not None and entry.status == REPORTED:
            lines.append(f"{key}: {_flow(value)}{_where(rep, key)}")
        else:
            found = ""
            if entry.status != MISSING and entry.value is not None:
                from camlint.core.display import short_value

                found = f"  (the text says: {comment_text(short_value(entry.value, 60))})"
            partial = _flow(value) if isinstance(value, dict) and "TODO" in str(value) else "TODO"
            lines.append(f"{key}: {partial}  # TODO{found}; choices: {item.choices}")
    return "\n".join(lines) + "\n"
