"""`camlint audit`: the reporting audit of many papers."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from camlint.cli.commands.common import EXIT_INPUT, EXIT_OK


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--manifest", type=click.Path(path_type=Path, dir_okay=False),
              help="CSV of papers: a path column (relative to the CSV), optional id, venue, year, title.")
@click.option("--root", type=click.Path(path_type=Path, file_okay=False, exists=True),
              help="Folder the manifest's rows must lie in (default: the manifest's folder).")
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False), default=Path("camlint-audit"),
              show_default=True, help="Folder for papers.jsonl, summary.json/.md, report.html and the CSVs.")
@click.option("--truth", type=click.Path(path_type=Path, dir_okay=False),
              help="Hand labels (the corpus labels.yaml format): print camlint's agreement with them.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Local worker processes (default: CPUs).")
@click.option("--scheduler", help="Run on a Dask cluster (tcp://host:8786); needs camlint[audit].")
@click.option("--chunk", type=click.IntRange(min=1), default=None, help="Papers per task (default 8 local, 16 Dask).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True,
              help="Seconds one paper may take before it is recorded as timed out.")
@click.option("--resume", is_flag=True, help="Continue the run in --out, skipping papers already recorded.")
@click.option("--force", is_flag=True, help="Start over, replacing the run in --out.")
@click.option("--progress/--no-progress", default=None, help="Progress line on stderr (default: on a terminal).")
def audit(paths, manifest, root, out_dir, truth, jobs, scheduler, chunk, timeout, resume, force, progress):
    """The reporting audit of many papers: per-paper JSONL, summary, Markdown, HTML and CSV."""
    from camlint.core.errors import InputError
    from camlint.safety.safe_write import UnsafeTarget

    if bool(paths) == bool(manifest) or (root and not manifest):
        click.echo("camlint: give either PATH... or --manifest FILE (--root goes with --manifest)", err=True)
        sys.exit(EXIT_INPUT)
    from camlint.audit import papers as P
    from camlint.audit.command import AuditOptions, render_text, run_audit

    try:
        if manifest:
            found, errors = P.read_manifest(manifest, root)
        else:
            found, errors = P.papers_from_paths(list(paths))
        for err in errors:
            click.echo(f"camlint: {err}", err=True)
        if errors and not found:
            sys.exit(EXIT_INPUT)
        opts = AuditOptions(out=out_dir, jobs=jobs or 0, scheduler=scheduler, chunk=chunk or 0, timeout=timeout,
                            resume=resume, force=force, truth=truth,
                            progress=sys.stderr.isatty() if progress is None else progress)
        result = run_audit(found, opts)
    except InputError as exc:
        click.echo(f"camlint: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    except ImportError as exc:
        click.echo(f"camlint: --scheduler needs dask.distributed ({exc.name} is missing): "
                   "pip install 'camlint[audit]'", err=True)
        sys.exit(EXIT_INPUT)
    except (OSError, UnsafeTarget) as exc:   # no Dask scheduler there, an output not writable or a link
        click.echo(f"camlint: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    click.echo(render_text(result), nl=False)
    sys.exit(EXIT_INPUT if errors else EXIT_OK)
