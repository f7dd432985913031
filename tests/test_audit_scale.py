"""`camlint audit` at scale: Dask LocalCluster equals the local pool, resume, crashes and timeouts
recorded while the run goes on, progress."""
from __future__ import annotations

import io
import json
import os
import time
from functools import partial
from pathlib import Path

import pytest

from camlint.audit.command import AuditOptions, run_audit
from camlint.audit.papers import papers_from_paths
from camlint.audit.progress import Progress
from camlint.audit.record import audit_paper
from conftest import FIXTURES

MANUSCRIPTS = FIXTURES / "manuscripts"
CRASHER, SLEEPER = "m03_attention_heads", "m05_rollout_only"
N = sum(d.is_dir() for d in MANUSCRIPTS.iterdir())     # one paper per manuscript folder


def papers():
    found, errors = papers_from_paths([MANUSCRIPTS])
    folders = {d.name for d in MANUSCRIPTS.iterdir() if d.is_dir()}   # one paper per manuscript folder
    assert not errors and {p.id for p in found} == folders
    return found


def comparable(out: Path) -> dict[str, dict]:
    recs = {}
    for line in (out / "papers.jsonl").read_text().splitlines():
        rec = json.loads(line)
        rec.pop("seconds")
        assert rec["id"] not in recs, "a paper recorded twice"
        recs[rec["id"]] = rec
    return recs


# Work functions for the worker processes (module level: picklable by reference).
def crashing_work(paper, crash_id):
    if paper.id == crash_id:
        os._exit(3)                      # a real death of the worker process, as a segfault would be
    return audit_paper(paper)


def sleeping_work(paper, sleep_id, seconds):
    if paper.id == sleep_id:
        time.sleep(seconds)
    return audit_paper(paper)


def raising_work(paper, raise_id):
    if paper.id == raise_id:
        raise RuntimeError("boom")
    return audit_paper(paper)


def logging_work(paper, log):
    with open(log, "a", encoding="utf-8") as fh:
        fh.write(paper.id + "\n")
    return audit_paper(paper)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    run_audit(papers(), AuditOptions(out=out, jobs=2, chunk=3))
    return comparable(out)


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None,
                                  silence_logs=40) as c:
        with distributed.Client(c, timeout="30s") as client:
            yield c, client


def test_one_worker_and_two_workers_agree(tmp_path, local_run):
    run_audit(papers(), AuditOptions(out=tmp_path, jobs=1))
    assert comparable(tmp_path) == local_run
    assert all(r["outcome"] == "ok" for r in local_run.values())


def test_a_crashing_paper_is_recorded_and_the_run_goes_on(tmp_path, local_run):
    run_audit(papers(), AuditOptions(out=tmp_path, jobs=2, chunk=4), work=partial(crashing_work, crash_id=CRASHER))
    recs = comparable(tmp_path)
    assert recs[CRASHER]["outcome"] == "crashed" and "exit status 3" in recs[CRASHER]["error"]
    assert {k: v for k, v in recs.items() if k != CRASHER} == {k: v for k, v in local_run.items() if k != CRASHER}
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["outcomes"]["crashed"] == 1 and summary["read"] == N - 1
    assert "crashed" in (tmp_path / "summary.md").read_text()


def test_a_paper_past_the_timeout_is_recorded_and_the_run_goes_on(tmp_path):
    start = time.monotonic()
    run_audit(papers(), AuditOptions(out=tmp_path, jobs=2, chunk=4, timeout=3.0),
              work=partial(sleeping_work, sleep_id=SLEEPER, seconds=600))
    assert time.monotonic() - start < 120
    recs = comparable(tmp_path)
    assert recs[SLEEPER]["outcome"] == "timeout" and len(recs) == N
    assert sum(r["outcome"] == "ok" for r in recs.values()) == N - 1


def test_resume_skips_finished_papers_and_drops_a_torn_line(tmp_path, local_run):
    run_audit(papers(), AuditOptions(out=tmp_path, jobs=2))
    lines = (tmp_path / "papers.jsonl").read_text().splitlines(keepends=True)
    kept = lines[:5]
    (tmp_path / "papers.jsonl").write_text("".join(kept) + lines[5][:40])    # interrupted mid-write
    log = tmp_path / "ran.txt"
    result = run_audit(papers(), AuditOptions(out=tmp_path, jobs=2, resume=True), work=partial(logging_work, log=log))
    done_before = {json.loads(x)["id"] for x in kept}
    ran = set(log.read_text().split())
    assert ran == {p.id for p in papers()} - done_before and result.skipped == 5 and result.ran == N - 5
    assert comparable(tmp_path) == local_run
    log.unlink()
    result = run_audit(papers(), AuditOptions(out=tmp_path, jobs=2, resume=True), work=partial(logging_work, log=log))
    assert result.ran == 0 and not log.exists()


def test_progress_line_shows_done_rate_eta_and_failures():
    stream = io.StringIO()
    p = Progress(4, stream=stream, every=0)
    for outcome in ("ok", "crashed", "ok"):
        p.advance({"outcome": outcome})
    p.finish()
    text = stream.getvalue()
    assert "audit: 3/4 papers" in text and "/s, ETA " in text and "1 failed" in text
    assert "audit: 3 papers in " in text


# Dask last: the in-process cluster's threads are still up when a module-scoped fixture ends.
def test_dask_local_cluster_equals_the_local_run(tmp_path, cluster, local_run):
    c, _ = cluster
    result = run_audit(papers(), AuditOptions(out=tmp_path, scheduler=c.scheduler_address, chunk=5))
    assert result.ran == N
    assert comparable(tmp_path) == local_run
    assert json.loads((tmp_path / "summary.json").read_text())["papers"] == N


def test_dask_records_errors_and_timeouts_and_goes_on(tmp_path, cluster):
    _, client = cluster
    run_audit(papers(), AuditOptions(out=tmp_path / "a", chunk=4), client=client,
              work=partial(raising_work, raise_id=CRASHER))
    recs = comparable(tmp_path / "a")
    assert recs[CRASHER]["outcome"] == "error" and "RuntimeError: boom" in recs[CRASHER]["error"]
    assert len(recs) == N and sum(r["outcome"] == "ok" for r in recs.values()) == N - 1
    run_audit(papers(), AuditOptions(out=tmp_path / "b", chunk=4, timeout=3.0), client=client,
              work=partial(sleeping_work, sleep_id=SLEEPER, seconds=8))
    recs = comparable(tmp_path / "b")
    assert recs[SLEEPER]["outcome"] == "timeout" and len(recs) == N
    assert sum(r["outcome"] == "ok" for r in recs.values()) == N - 1
