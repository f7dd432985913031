"""The JSONL store: one record per line, appended (and flushed) as each paper finishes.

An interrupted run leaves at most one torn last line; `--resume` cuts it off and skips every
paper whose record is complete. Nothing but the store holds the records, so the coordinating
process's memory does not grow with the number of papers.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterator

from camlint.safety.safe_write import open_for_writing


def _cut_torn_tail(path: Path) -> None:
    """Drop a last line without its newline (the write the interruption cut short)."""
    with open_for_writing(path, "r+b") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        if size == 0:
            return
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        step, pos = 65536, size
        while pos > 0:
            start = max(0, pos - step)
            fh.seek(start)
            chunk = fh.read(pos - start)
            nl = chunk.rfind(b"\n")
            if nl >= 0:
                fh.truncate(start + nl + 1)
                return
            pos = start
        fh.truncate(0)


def records(path: Path) -> Iterator[dict]:
    """Every complete record, in the order written; unparsable lines are skipped."""
    with open(path, "rb") as fh:
        for line in fh:
            if not line.endswith(b"\n"):
                return
            try:                                     # bytes that are not UTF-8 are a damaged line too
                rec = json.loads(line.decode("utf-8"))
            except (ValueError, RecursionError):     # a damaged or planted line: skipped, as torn ones are
                continue
            if well_formed(rec):
                yield rec


_NONE = type(None)
# the fields every record has (audit/record.base_record) and the types they are written with
_SHAPE = {"id": str, "path": str, "venue": (str, _NONE), "year": (int, str, _NONE), "title": (str, _NONE),
          "outcome": str, "error": (str, _NONE), "document": (str, _NONE), "front_end": (str, _NONE),
          "uses_cam_on_transformer": (bool, _NONE), "status": (dict, _NONE), "citation": (str, _NONE),
          "presets": list, "findings": dict, "details": list, "seconds": (int, float)}


def well_formed(rec) -> bool:
    """A record as this auditor writes it: a damaged or planted line with the right id but a field
    missing or of another type (`{"id": "x"}`) ended --resume in a KeyError."""
    return (isinstance(rec, dict) and all(isinstance(rec.get(k, ...), t) for k, t in _SHAPE.items())
            and all(isinstance(k, str) and isinstance(v, str) for k, v in (rec["status"] or {}).items())
            and all(isinstance(v, int) and not isinstance(v, bool) for v in rec["findings"].values())
            and all(isinstance(p, str) for p in rec["presets"])
            and all(isinstance(d, list) and len(d) == 5 for d in rec["details"]))


class Store:
    def __init__(self, path: Path):
        self.path = path
        self._fh = None

    def finished_ids(self) -> set[str]:
        if not self.path.exists():
            return set()
        _cut_torn_tail(self.path)
        return {rec["id"] for rec in records(self.path)}

    def open(self, resume: bool) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open_for_writing(self.path, "a" if resume else "w")

    def write(self, record: dict) -> None:
        self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
