"""Agreement with a hand audit (`--truth labels.yaml`, the corpus label format).

Per key: how often camlint's status equals the label's, and each side's reporting rates, each
computed as that side's own audit would (over the papers it finds use CAM on a transformer),
on the papers that have both a label and a record that was read.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from camlint.audit.record import OK
from camlint.audit.summary import share
from camlint.check import display_path
from camlint.core.errors import InputError
from camlint.core.keys import KEYS, REPORTED, STATUSES

MAX_LABEL_BYTES = 64 * 1024 * 1024
MAX_LABEL_NODES = 10_000_000


def load_labels(path: Path) -> dict[str, dict]:
    """id -> {"uses": bool, "status": {key: status}}; a malformed entry is an input error at its line."""
    from camlint.safety.yamlsafe import YAMLInputError, loads, read_text

    shown = display_path(path)
    try:
        loaded = loads(read_text(path, max_bytes=MAX_LABEL_BYTES), max_nodes=MAX_LABEL_NODES)
    except YAMLInputError as exc:
        raise InputError(exc.message, shown, exc.line, exc.col) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", shown) from None
    if not isinstance(loaded.data, dict):
        raise InputError("labels must map each document id to its record", shown, 1)
    out = {}
    for pid, entry in loaded.data.items():
        line, _ = loaded.position((pid,))
        items = entry.get("items") if isinstance(entry, dict) else None
        if not isinstance(items, dict) or not isinstance(entry.get("uses_cam_on_transformer"), bool):
            raise InputError(f"{pid}: needs uses_cam_on_transformer (true/false) and items", shown, line)
        status = {}
        for k in KEYS:
            s = items.get(k, {}).get("status") if isinstance(items.get(k), dict) else None
            if s not in STATUSES:
                raise InputError(f"{pid}: item {k} needs a status ({', '.join(STATUSES)})", shown, line)
            status[k] = s
        out[str(pid)] = {"uses": entry["uses_cam_on_transformer"], "status": status}
    return out


def agreement(labels: dict[str, dict], records) -> dict:
    agree, labelled_cam, found_cam = Counter(), {k: Counter() for k in KEYS}, {k: Counter() for k in KEYS}
    uses_agree = matched = n_label_cam = n_found_cam = 0
    seen, not_read = set(), []
    for rec in records:
        truth = labels.get(rec["id"])
        if truth is None or rec["id"] in seen:
            continue
        seen.add(rec["id"])
        if rec.get("outcome") != OK:
            not_read.append(rec["id"])
            continue
        matched += 1
        uses_agree += truth["uses"] == rec["uses_cam_on_transformer"]
        n_label_cam += truth["uses"]
        n_found_cam += bool(rec["uses_cam_on_transformer"])
        for k in KEYS:
            agree[k] += truth["status"][k] == rec["status"][k]
            if truth["uses"]:
                labelled_cam[k][truth["status"][k]] += 1
            if rec["uses_cam_on_transformer"]:
                found_cam[k][rec["status"][k]] += 1
    keys = {}
    for k in KEYS:
        labels_rates = {s: share(labelled_cam[k][s], n_label_cam) for s in STATUSES}
        found_rates = {s: share(found_cam[k][s], n_found_cam) for s in STATUSES}
        gap = None if labels_rates[REPORTED] is None or found_rates[REPORTED] is None else \
            round(100 * (found_rates[REPORTED] - labels_rates[REPORTED]), 1)
        keys[k] = {"status_accuracy": share(agree[k], matched), "camlint": found_rates, "labels": labels_rates,
                   "reported_gap_points": gap}
    gaps = [abs(v["reported_gap_points"]) for v in keys.values() if v["reported_gap_points"] is not None]
    return {"matched": matched, "labelled": len(labels), "not_read": sorted(not_read),
            "no_record": sorted(set(labels) - seen),
            "uses_cam_accuracy": share(uses_agree, matched),
            "status_accuracy": share(sum(agree.values()), matched * len(KEYS)),
            "labels_cam_papers": n_label_cam, "camlint_cam_papers": n_found_cam,
            "max_reported_gap_points": max(gaps) if gaps else None, "keys": keys}


def render_text(result: dict) -> str:
    lines = [f"agreement with the hand labels: {result['matched']} of {result['labelled']} labelled papers read; "
             f"uses CAM on a transformer agrees on {_pct(result['uses_cam_accuracy'])}, "
             f"status on {_pct(result['status_accuracy'])} of key decisions",
             f"{'key':<15}{'status acc.':>12}{'reported':>20}{'partial':>20}{'missing':>20}",
             f"{'':<15}{'':>12}{'camlint / labels':>20}{'camlint / labels':>20}{'camlint / labels':>20}"]
    for k, v in result["keys"].items():
        cells = "".join(f"{_pct(v['camlint'][s]) + ' / ' + _pct(v['labels'][s]):>20}"
                        for s in ("reported", "partial", "missing"))
        lines.append(f"{k:<15}{_pct(v['status_accuracy']):>12}{cells}")
    if result["max_reported_gap_points"] is not None:
        lines.append(f"largest gap in a key's reporting rate: {result['max_reported_gap_points']:.1f} points")
    for name in ("no_record", "not_read"):
        if result[name]:
            lines.append(f"{name.replace('_', ' ')}: {', '.join(result[name])}")
    return "\n".join(lines) + "\n"


def _pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"
