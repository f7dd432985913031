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
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.endswith("\n"):
                return
            try:
                rec = json.loads(line)
            except (ValueError, RecursionError):     # a damaged or planted line: skipped, as torn ones are
                continue
            if isinstance(rec, dict) and isinstance(rec.get("id"), str):
                yield rec


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
