"""Audit speed and the coordinator's memory: local workers (1 and 2) and a Dask LocalCluster of 2.

Builds N papers (and 4N for the memory check) in a temporary folder by copying the corpus
documents (../shared/corpus/dev, else fixtures/manuscripts) with a varying paragraph each, plus
a manifest spreading them over venues and years. Every run is a fresh Python process (so its
peak resident memory is the coordinator's own; worker processes are separate) with its own
parse cache: first cold (empty cache), then warm (the same run again). Prints, per back end,
papers per second (and per worker), parallel efficiency against one local worker, and the
coordinator's peak memory for N and 4N, and the workers' CPU time (papers per CPU second does
not depend on what else the machine is running). Goal: >= 50 LaTeX papers/s per worker warm, >= 10 cold;
4N peak within 1.2x of the N peak.

`--baseline REV` measures an earlier camlint (a git revision, unpacked to a temporary folder) the
same way in the same run, each row right before the current one, and prints the speed-up
(papers per worker CPU second, current / baseline): a loaded machine slows both alike.

    python bench/audit_speed.py [--n 2000] [--no-4n] [--corpus DIR] [--baseline REV] [--backends local-1,...]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENUES = ("CVF", "NeurIPS", "IEEE Access")
YEARS = (2021, 2022, 2023, 2024, 2025)
BACKENDS = ("local-1", "local-2", "dask-2")


def corpus_documents(corpus: Path) -> list[Path]:
    """Paper folders that hold a main.tex."""
    return sorted(p.parent for p in corpus.glob("*/main.tex"))


def build(folder: Path, n: int, sources: list[Path]) -> Path:
    """n paper folders (copies of the sources, each with its own closing paragraph) and a manifest."""
    folder.mkdir(parents=True, exist_ok=True)
    rows = ["path,id,venue,year"]
    for i in range(n):
        src = sources[i % len(sources)]
        dst = folder / f"p{i:06d}_{src.name}"
        if not dst.exists():
            shutil.copytree(src, dst)
            main = dst / "main.tex"
            text = main.read_text(encoding="utf-8", errors="replace")
            extra = (f"\n\\paragraph{{Replication {i}.}} The experiments were repeated with seed {i} "
                     f"on {1 + i % 8} GPUs; the results changed by less than 0.{i % 10} points.\n")
            cut = text.rfind("\\end{document}")
            main.write_text(text[:cut] + extra + text[cut:] if cut >= 0 else text + extra, encoding="utf-8")
        rows.append(f"{dst.name},{dst.name},{VENUES[i % len(VENUES)]},{YEARS[i % len(YEARS)]}")
    manifest = folder / f"manifest-{n}.csv"
    manifest.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return manifest


def one_run(manifest: Path, backend: str, out: Path) -> dict:
    """Inside the measuring process: audit the manifest on one back end."""
    import camlint
    from camlint.audit.command import AuditOptions, run_audit
    from camlint.audit.papers import read_manifest

    papers, _ = read_manifest(manifest)
    kind, workers = backend.split("-")
    opts = AuditOptions(out=out, jobs=int(workers), force=True)
    if kind == "dask":
        from distributed import Client, LocalCluster

        with LocalCluster(n_workers=int(workers), threads_per_worker=1, processes=True,
                          dashboard_address=None, silence_logs=40) as cluster, Client(cluster) as client:
            result = run_audit(papers, opts, client=client)
    else:
        result = run_audit(papers, opts)
    failed = sum(v for k, v in result.summary["outcomes"].items() if k != "ok")
    workers_cpu = resource.getrusage(resource.RUSAGE_CHILDREN)     # reaped worker (and nanny) processes
    return {"papers": result.ran, "seconds": result.seconds_papers, "reports_s": result.seconds_reports,
            "failed": failed, "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "worker_cpu_s": workers_cpu.ru_utime + workers_cpu.ru_stime, "camlint": camlint.__file__}


def unpack(rev: str, folder: Path) -> Path:
    """The camlint package of git revision `rev`, in `folder` (to import instead of this checkout's)."""
    folder.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev, "camlint", "schemas"], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    return folder


def measure(manifest: Path, backend: str, cache: Path, out: Path, code: Path = ROOT) -> dict:
    env = {**os.environ, "CAMLINT_CACHE_DIR": str(cache), "PYTHONPATH": str(code)}
    proc = subprocess.run([sys.executable, __file__, "--one", str(manifest), backend, str(out)],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=7200)
    if proc.returncode != 0:
        raise SystemExit(f"{backend} failed:\n{proc.stderr[-3000:]}")
    r = json.loads(proc.stdout.strip().splitlines()[-1])
    if not r["camlint"].startswith(str(code)):
        raise SystemExit(f"measured {r['camlint']}, not the camlint of {code}")
    return r


def per_cpu(r: dict) -> float:
    return r["papers"] / r["worker_cpu_s"] if r["worker_cpu_s"] else 0.0


def row(label: str, r: dict, workers: int, base: float | None, old: dict | None = None) -> str:
    rate = r["papers"] / r["seconds"]
    eff = f"{rate / (workers * base):6.0%}" if base else "     -"
    speedup = f"{per_cpu(r) / per_cpu(old):>9.2f}x" if old and per_cpu(old) else ""
    return (f"{label:<27}{r['papers']:>7}{r['seconds']:>9.1f}{rate:>10.1f}{rate / workers:>12.1f}{eff:>8}"
            f"{r['worker_cpu_s']:>9.1f}{per_cpu(r):>10.1f}{r['peak_mib']:>11.0f}{r['failed']:>7}{speedup}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--no-4n", action="store_true", help="skip the 4N memory check")
    ap.add_argument("--corpus", type=Path, default=None)
    ap.add_argument("--baseline", metavar="REV", help="also measure camlint at this git revision, row by row")
    ap.add_argument("--backends", default=",".join(BACKENDS), help="comma-separated subset of " + ", ".join(BACKENDS))
    ap.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(one_run(Path(args.one[0]), args.one[1], Path(args.one[2]))))
        return
    corpus = args.corpus or next((c for c in (ROOT.parent / "shared" / "corpus" / "dev", ROOT / "fixtures" / "manuscripts")
                                  if c.is_dir()))
    sources = corpus_documents(corpus)
    with tempfile.TemporaryDirectory(prefix="camlint-audit-bench-") as tmp:
        tmp = Path(tmp)
        t = time.perf_counter()
        sizes = [args.n] + ([] if args.no_4n else [4 * args.n])
        manifests = {n: build(tmp / "papers", n, sources) for n in sizes}
        codes = {"": ROOT}
        if args.baseline:
            codes = {"base ": unpack(args.baseline, tmp / "baseline"), "": ROOT}
        print(f"built {max(sizes)} papers from {len(sources)} documents of {corpus} in {time.perf_counter() - t:.1f} s; "
              f"{os.cpu_count()} CPUs" + (f"; baseline: {args.baseline}" if args.baseline else ""))
        print(f"{'run':<27}{'papers':>7}{'seconds':>9}{'papers/s':>10}{'per worker':>12}{'eff.':>8}"
              f"{'CPU s':>9}{'per CPU-s':>10}{'peak MiB':>11}{'failed':>7}" + ("  speed-up" if args.baseline else ""))
        print("(CPU s: the workers' CPU time; per CPU-s: papers per worker CPU second, robust to a loaded machine)")
        backends = [b for b in BACKENDS if b in args.backends.split(",")]
        peaks = run_all(sizes, manifests, codes, args.n, tmp, backends)
        if len(sizes) == 2:
            for backend, p in peaks.items():
                print(f"coordinator peak memory {backend}: N {p[sizes[0]]:.0f} MiB, 4N {p[sizes[1]]:.0f} MiB, "
                      f"ratio {p[sizes[1]] / p[sizes[0]]:.2f} (goal <= 1.20)")


def run_all(sizes: list[int], manifests: dict, codes: dict, n0: int, tmp: Path, backends: list[str]) -> dict:
    """Every back end, cold then warm (warm for N only), each code (baseline, current) in turn."""
    base, peaks = {}, {}
    for n in sizes:
        for backend in backends:
            workers = int(backend.split("-")[1])
            for state in ("cold", "warm"):
                if n != n0 and state == "warm":
                    continue
                old = None
                for tag, code in codes.items():
                    cache = tmp / f"cache-{tag.strip() or 'current'}-{n}-{backend}"
                    r = measure(manifests[n], backend, cache, tmp / f"out-{n}-{backend}", code)
                    if backend == "local-1":
                        base[(tag, n, state)] = r["papers"] / r["seconds"]
                    ref = None if backend == "local-1" else base.get((tag, n, state))
                    print(row(f"{tag}{backend} {state} N={n}", r, workers, ref, old if not tag else None), flush=True)
                    old = r
                    if not tag:
                        peaks.setdefault(backend, {})[n] = max(peaks.get(backend, {}).get(n, 0), r["peak_mib"])
    return peaks


if __name__ == "__main__":
    main()
