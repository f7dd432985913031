"""The audit's figures, tallied in one pass over the records (memory: the tallies, not the papers).

Shares and rates are over the papers that use a CAM method on a transformer: a CNN-only paper
has nothing to report. Per key, every such paper has one status (reported, partial, missing,
not applicable); the reporting rate of a key is the share of those papers that report it.
"""
from __future__ import annotations

from collections import Counter

from camlint.audit.record import CITATIONS, OK, OUTCOMES
from camlint.core.keys import KEYS, STATUSES

GROUPINGS = ("venue", "year")


def share(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


class Tally:
    def __init__(self):
        self.papers = 0
        self.outcomes: Counter = Counter()
        self.front_ends: Counter = Counter()
        self.cam = 0
        self.citations: Counter = Counter()
        self.presets: Counter = Counter()
        self.status: dict[str, Counter] = {k: Counter() for k in KEYS}
        self.codes: Counter = Counter()           # papers with at least one finding of the code

    def add(self, rec: dict) -> None:
        self.papers += 1
        self.outcomes[rec.get("outcome")] += 1
        if rec.get("outcome") != OK:
            return
        self.front_ends[rec.get("front_end")] += 1
        self.codes.update(rec.get("findings") or {})
        if not rec.get("uses_cam_on_transformer"):
            return
        self.cam += 1
        self.citations[rec.get("citation")] += 1
        self.presets.update(rec.get("presets") or [])
        for k in KEYS:
            self.status[k][(rec.get("status") or {}).get(k)] += 1

    def key_rates(self) -> dict:
        return {k: {s: share(self.status[k][s], self.cam) for s in STATUSES} for k in KEYS}

    def to_json(self) -> dict:
        return {
            "papers": self.papers,
            "outcomes": {o: self.outcomes[o] for o in OUTCOMES},
            "read": self.outcomes[OK],
            "uses_cam_on_transformer": self.cam,
            "citation": {c: {"papers": self.citations[c], "share": share(self.citations[c], self.cam)}
                         for c in CITATIONS},
            "adaptations_cited": dict(self.presets.most_common()),
            "distinct_adaptations": len(self.presets),
            "key_status_counts": {k: {s: self.status[k][s] for s in STATUSES} for k in KEYS},
            "key_rates": self.key_rates(),
            "front_ends": dict(self.front_ends.most_common()),
            "papers_with_finding": dict(sorted(self.codes.items())),
        }


class Summary:
    """The whole run, and the same tally per venue and per year when the records have them."""

    def __init__(self):
        self.all = Tally()
        self.by: dict[str, dict[str, Tally]] = {g: {} for g in GROUPINGS}

    def add(self, rec: dict) -> None:
        self.all.add(rec)
        for g in GROUPINGS:
            value = rec.get(g)
            if value is not None and value != "":
                self.by[g].setdefault(str(value), Tally()).add(rec)

    def to_json(self) -> dict:
        out = self.all.to_json()
        out["by"] = {g: {v: t.to_json() for v, t in sorted(groups.items())} for g, groups in self.by.items()
                     if groups}
        return out


def summarize(records) -> dict:
    s = Summary()
    for rec in records:
        s.add(rec)
    return s.to_json()
