"""`camlint audit`: run the papers not yet in the store, then write the summary and the reports.

Output folder: papers.jsonl (the store), summary.json, summary.md, report.html, papers.csv and
key_rates.csv. The coordinator keeps tallies and a sort index, never the records themselves.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

from camlint.audit.papers import Paper
from camlint.audit.record import FAILED, UNREADABLE, audit_paper
from camlint.audit.store import Store, records, well_formed
from camlint.audit.summary import summarize
from camlint.check import display_path
from camlint.core.errors import InputError

STORE, SUMMARY_JSON, SUMMARY_MD, HTML, PAPERS_CSV, RATES_CSV = (
    "papers.jsonl", "summary.json", "summary.md", "report.html", "papers.csv", "key_rates.csv")


@dataclass
class AuditOptions:
    out: Path = Path("camlint-audit")
    jobs: int = 0                       # 0: one per CPU
    scheduler: str | None = None        # a Dask scheduler address; None: local processes
    chunk: int = 0                      # papers per task; 0: 8 locally, 16 on Dask
    timeout: float = 300.0              # seconds per paper
    resume: bool = False
    force: bool = False
    truth: Path | None = None
    progress: bool = False


@dataclass
class AuditResult:
    summary: dict
    truth: dict | None
    ran: int
    skipped: int
    written: list[Path]
    seconds_papers: float = 0.0         # auditing the papers (the rate is ran / this)
    seconds_reports: float = 0.0        # summary, truth agreement and report files


def sorted_records(path: Path) -> Iterator[dict]:
    """The store's records ordered by id, reading one at a time (the index is ids and offsets)."""
    index = []
    with open(path, "rb") as fh:
        offset = 0
        for line in fh:
            if line.endswith(b"\n"):
                try:
                    rec = json.loads(line)
                except (ValueError, RecursionError):
                    rec = None
                rid = rec["id"] if well_formed(rec) else None    # what store.records would yield
                if isinstance(rid, str):
                    index.append((rid, offset))
            offset += len(line)
    index.sort()
    with open(path, "rb") as fh:
        for _, off in index:
            fh.seek(off)
            yield json.loads(fh.readline())


def _backend(todo: list[Paper], opts: AuditOptions, work: Callable, client):
    if client is not None:
        from camlint.audit.dask_run import run_dask

        return run_dask(todo, work, client=client, chunk=opts.chunk or 16, timeout=opts.timeout)
    from camlint.audit.pool import run_local

    return run_local(todo, work, jobs=opts.jobs or os.cpu_count() or 1, chunk=opts.chunk or 8,
                     timeout=opts.timeout)


def run_audit(papers: list[Paper], opts: AuditOptions, *, work: Callable[[Paper], dict] = audit_paper,
              client=None, progress_stream=None) -> AuditResult:
    from camlint.audit.progress import Progress

    labels = None
    if opts.truth is not None:
        from camlint.audit.truth import load_labels

        labels = load_labels(opts.truth)      # a bad label file stops the run before it starts
    store = Store(opts.out / STORE)
    if store.path.exists() and not (opts.resume or opts.force):
        raise InputError("already holds an audit: --resume continues it, --force starts over",
                         display_path(store.path))
    finished = store.finished_ids() if opts.resume else set()
    todo = [p for p in papers if p.id not in finished]
    progress = Progress(len(todo), skipped=len(papers) - len(todo), stream=progress_stream) if opts.progress else None
    own_client = None
    if opts.scheduler and client is None:      # connect first: a wrong address leaves no half-made run
        from camlint.audit.dask_run import connect

        client = own_client = connect(opts.scheduler)
    start = time.perf_counter()
    try:
        store.open(resume=opts.resume)
        for rec in _backend(todo, opts, work, client):
            store.write(rec)
            if progress:
                progress.advance(rec)
    finally:
        store.close()
        if own_client is not None:
            own_client.close()
    if progress:
        progress.finish()
    mid = time.perf_counter()
    result = _write_outputs(opts, store.path, labels, ran=len(todo), skipped=len(papers) - len(todo))
    result.seconds_papers, result.seconds_reports = mid - start, time.perf_counter() - mid
    return result


def _write_outputs(opts: AuditOptions, store_path: Path, labels, ran: int, skipped: int) -> AuditResult:
    from camlint.audit import reports
    from camlint.audit.html import write_html
    from camlint.safety.safe_write import write_atomic

    summary = summarize(records(store_path))
    truth = None
    if labels is not None:
        from camlint.audit.truth import agreement

        truth = agreement(labels, records(store_path))
    out = opts.out
    write_atomic(out / SUMMARY_JSON, json.dumps({**summary, "truth": truth}, indent=2) + "\n")
    not_audited = (r for r in sorted_records(store_path) if r["outcome"] in (*FAILED, UNREADABLE))
    write_atomic(out / SUMMARY_MD, reports.markdown(summary, not_audited, truth))
    reports.write_papers_csv(out / PAPERS_CSV, sorted_records(store_path))
    reports.write_rates_csv(out / RATES_CSV, summary)
    write_html(out / HTML, summary, lambda: sorted_records(store_path), truth=truth)
    written = [out / n for n in (STORE, SUMMARY_JSON, SUMMARY_MD, HTML, PAPERS_CSV, RATES_CSV)]
    return AuditResult(summary, truth, ran, skipped, written)


def render_text(result: AuditResult) -> str:
    """What the terminal shows at the end: the audit's table, the agreement, the files."""
    from camlint.audit.record import CITATION_LABELS, CITATIONS
    from camlint.audit.reports import pct
    from camlint.audit.truth import render_text as truth_text
    from camlint.core.keys import KEYS

    s = result.summary
    o = s["outcomes"]
    rate = f", {result.ran / result.seconds_papers:.1f}/s" if result.ran and result.seconds_papers else ""
    lines = [f"audited {s['papers']} papers ({result.ran} now{rate}, {result.skipped} from before): {s['read']} read, "
             f"{o['unreadable']} unreadable, {o['error'] + o['crashed'] + o['timeout']} failed; "
             f"{s['uses_cam_on_transformer']} use CAM on a transformer"]
    for tag, c in zip("abcd", CITATIONS):
        lines.append(f"  ({tag}) {pct(s['citation'][c]['share']):>6}  {CITATION_LABELS[c]}")
    lines.append(f"  distinct published adaptations cited: {s['distinct_adaptations']}")
    lines.append("reporting rate per key (reported / partial / missing):")
    for k in KEYS:
        r = s["key_rates"][k]
        lines.append(f"  {k:<15}{pct(r['reported']):>7} {pct(r['partial']):>7} {pct(r['missing']):>7}")
    text = "\n".join(lines) + "\n"
    if result.truth is not None:
        text += truth_text(result.truth)
    return text + "wrote " + ", ".join(display_path(p) for p in result.written) + "\n"
