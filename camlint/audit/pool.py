"""Local worker processes for the audit: chunks out, one record back per paper as it finishes.

Each worker gets a chunk of papers at a time and sends every record back as soon as it has it,
so the coordinator always knows which paper a worker is on. A paper that runs past the timeout
gets its worker killed and a `timeout` record; a worker that dies (segfault, out of memory,
os._exit) leaves a `crashed` record for the paper it was on. Either way the rest of that chunk
goes back to the queue, a fresh worker takes the slot, and the run goes on.
"""
from __future__ import annotations

import multiprocessing as mp
import signal
import time
from collections import deque
from multiprocessing.connection import wait
from typing import Callable, Iterable, Iterator

from camlint.audit.papers import Paper
from camlint.audit.record import CRASHED, ERROR, TIMEOUT, failed_record

# Cached tables the front end builds on first use (vocabulary regexes, the LaTeX parser context, the
# schema), and the digest of camlint's own files that keys the result cache.
WARM_UP = (("camlint.extract.vocab", "vocabulary"), ("camlint.inputs.latex.convert", "latex_context"),
           ("camlint.core.schema", "validator"), ("camlint.audit.resultcache", "code_digest"))
# Modules a check imports on first use.
PRELOAD = ("camlint.inputs.latex.analyze", "camlint.inputs.latex.bibliography", "camlint.cli.discover", "camlint.cli.config",
           "camlint.inputs", "camlint.core.presets", "camlint.rules.suppress", "camlint.rules.selectors")


def _serve(conn, work: Callable[[Paper], dict]) -> None:
    """Worker process: audit the papers of each chunk received, one record sent per paper."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the coordinator decides when workers stop
    while True:
        try:
            chunk = conn.recv()
        except (EOFError, OSError):
            return
        if chunk is None:
            return
        for paper in chunk:
            try:
                rec = work(paper)
            except Exception as exc:  # noqa: BLE001 - a custom `work` that raises is this paper's error
                rec = failed_record(paper, ERROR, f"{type(exc).__name__}: {exc}")
            conn.send(rec)


class _Worker:
    def __init__(self, ctx, work):
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, work), daemon=True)
        self.proc.start()
        child.close()
        self.papers: deque[Paper] = deque()
        self.since = 0.0              # when the paper at the head of `papers` started

    def give(self, chunk: list[Paper]) -> None:
        if not self.papers:           # busy: its current paper's clock keeps running
            self.since = time.monotonic()
        self.papers.extend(chunk)
        self.conn.send(chunk)

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.proc.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()
        self.conn.close()


def _preload() -> None:
    """Import the front end and the rules and build their tables once, before forking: every worker
    (and every one started after a crash or a timeout) inherits them instead of spending its
    first paper's time, about a second, building them again."""
    import importlib

    import camlint.rules.registry  # noqa: F401

    for module in PRELOAD:
        try:
            importlib.import_module(module)
        except ImportError:                     # renamed elsewhere: workers import their own
            pass
    for module, builder in WARM_UP:
        try:
            getattr(importlib.import_module(module), builder)()
        except (ImportError, AttributeError):   # renamed elsewhere: only a warm-up, workers build their own
            pass


def run_local(papers: Iterable[Paper], work: Callable[[Paper], dict], *, jobs: int, chunk: int = 8,
              timeout: float = 300.0) -> Iterator[dict]:
    """Yield one record per paper, in the order they finish."""
    ctx = mp.get_context()
    if ctx.get_start_method() == "fork":
        _preload()
    source = iter(papers)
    requeued: deque[Paper] = deque()
    workers = [_Worker(ctx, work) for _ in range(max(1, jobs))]

    def next_chunk() -> list[Paper]:
        out = []
        while requeued and len(out) < chunk:
            out.append(requeued.popleft())
        for paper in source:
            out.append(paper)
            if len(out) >= chunk:
                break
        return out

    def top_up(w: _Worker) -> None:
        """Keep a second chunk queued behind the one a worker is on, so that it never waits for
        the coordinator (which a loaded machine may not schedule at once)."""
        while len(w.papers) <= chunk:
            c = next_chunk()
            if not c:
                return
            w.give(c)

    try:
        for w in workers:
            top_up(w)
        while any(w.papers for w in workers):
            yield from _step(workers, ctx, work, timeout, requeued, top_up)
    finally:
        for w in workers:
            w.stop(kill=bool(w.papers))


def _step(workers: list[_Worker], ctx, work, timeout: float, requeued: deque, top_up) -> Iterator[dict]:
    busy = [w for w in workers if w.papers]
    now = time.monotonic()
    wait_for = max(0.0, min(w.since + timeout for w in busy) - now)
    ready = set(wait([x for w in busy for x in (w.conn, w.proc.sentinel)], timeout=wait_for))
    for i, w in enumerate(workers):
        if not w.papers:
            continue
        if w.conn in ready or w.proc.sentinel in ready:
            while w.papers and w.conn.poll():
                try:
                    rec = w.conn.recv()
                except (EOFError, OSError):
                    break
                w.papers.popleft()
                w.since = time.monotonic()
                yield rec
            if w.papers and not w.proc.is_alive():
                code = w.proc.exitcode
                yield failed_record(w.papers.popleft(), CRASHED, f"the worker process died (exit status {code})",
                                    time.monotonic() - w.since)
                workers[i] = _replace(w, ctx, work, requeued)
                continue
        elif time.monotonic() - w.since >= timeout:
            yield failed_record(w.papers.popleft(), TIMEOUT, f"no result after {timeout:g} s",
                                time.monotonic() - w.since)
            workers[i] = _replace(w, ctx, work, requeued)
            continue
        top_up(w)
    for w in workers:
        top_up(w)


def _replace(w: _Worker, ctx, work, requeued: deque) -> _Worker:
    """Put the rest of a dead or killed worker's chunk back in front of the queue; start a fresh one."""
    requeued.extendleft(reversed(w.papers))
    w.papers.clear()
    w.stop(kill=True)
    return _Worker(ctx, work)
