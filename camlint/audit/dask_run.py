"""The audit on a Dask cluster (`--scheduler tcp://host:8786`, extra camlint[audit]).

Papers go out in chunks, a bounded number of chunks in flight (so neither the coordinator nor
the scheduler holds the whole venue), and each finished chunk's records come back to be
streamed to the store. Dask cannot stop a running task, so the per-paper timeout is kept inside
the task: the paper runs in a thread, and one that is not done in time gets a `timeout` record
while the task moves on (the thread finishes on its own). A chunk whose worker dies is retried
by Dask; if it keeps killing workers, its papers are retried one by one and the one that still
does is recorded as `crashed`.
"""
from __future__ import annotations

import threading
import time
from typing import Callable, Iterable, Iterator

from camlint.audit.papers import Paper
from camlint.audit.record import CRASHED, ERROR, TIMEOUT, failed_record


def _with_deadline(work: Callable[[Paper], dict], paper: Paper, timeout: float) -> dict:
    box: list = []

    def target():
        try:
            box.append(work(paper))
        except Exception as exc:  # noqa: BLE001 - a custom `work` that raises is this paper's error
            box.append(failed_record(paper, ERROR, f"{type(exc).__name__}: {exc}"))

    start = time.monotonic()
    t = threading.Thread(target=target, name=f"camlint-audit {paper.id}", daemon=True)
    t.start()
    t.join(timeout)
    if box:
        return box[0]
    return failed_record(paper, TIMEOUT, f"no result after {timeout:g} s", time.monotonic() - start)


def audit_chunk(chunk: list[Paper], work: Callable[[Paper], dict], timeout: float) -> list[dict]:
    """The task run on a Dask worker."""
    return [_with_deadline(work, p, timeout) for p in chunk]


def connect(scheduler: str, timeout: float = 30.0):
    from distributed import Client

    return Client(scheduler, timeout=f"{timeout:g}s", set_as_default=False)


def run_dask(papers: Iterable[Paper], work: Callable[[Paper], dict], *, client, chunk: int = 16,
             timeout: float = 300.0, window: int | None = None) -> Iterator[dict]:
    """Yield one record per paper, chunk by chunk, in the order chunks finish."""
    from distributed import as_completed

    threads = sum(client.nthreads().values()) or 1
    window = window or max(4, 2 * threads)
    source = iter(papers)
    singles: list[list[Paper]] = []       # chunks that killed workers, split to find the paper
    in_flight: dict = {}
    done = as_completed(loop=client.loop)

    def submit_next() -> bool:
        batch = singles.pop() if singles else [p for _, p in zip(range(chunk), source)]
        if not batch:
            return False
        fut = client.submit(audit_chunk, batch, work, timeout, pure=False)
        in_flight[fut] = batch
        done.add(fut)
        return True

    try:
        while len(in_flight) < window and submit_next():
            pass
        for fut in done:
            batch = in_flight.pop(fut)
            try:
                recs = fut.result()
            except Exception as exc:  # noqa: BLE001 - KilledWorker and friends: this chunk, not the run
                recs = _after_failure(batch, exc, singles)
            fut.release()
            yield from recs
            while len(in_flight) < window and submit_next():
                pass
    finally:
        for fut in in_flight:
            fut.cancel()


def _after_failure(batch: list[Paper], exc: Exception, singles: list) -> list[dict]:
    if len(batch) > 1:
        singles.extend([p] for p in reversed(batch))
        return []
    return [failed_record(batch[0], CRASHED, f"the Dask task failed: {type(exc).__name__}: {exc}")]
