"""`camlint verify` and `camlint sweep`: re-executing a camspec with torch + timm.

torch and timm are imported inside the commands (after the progress line has started), so that
the rest of camlint never pays for them.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from camlint.cli.commands.common import EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, emit
from camlint.cli.commands.progress import StderrProgress
from camlint.safety.sanitize import printable

VERIFY_FORMATS = ("text", "json", "markdown", "sarif", "github")


def spec_errors(spec: Path, messages: list[str]) -> None:
    """Exit 2 with one line per problem, each naming its file (and line where known)."""
    for message in messages:
        located = re.match(r"\S+:\d+[:]", message) or message.startswith(("--", str(spec)))
        text = f"camlint: {message}" if located else f"camlint: {spec}: {message}"
        # the sanitiser of every other format: bidirectional overrides and lone surrogates too
        click.echo(printable(text), err=True)
    sys.exit(EXIT_INPUT)


def _engine_or_exit(command: str, progress) -> None:
    """Import torch and timm (seconds on a cold start) under the progress line; exit 2 without them."""
    progress("loading torch and timm")
    try:
        import timm  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        progress.close()
        click.echo(f"camlint: {command} needs torch and timm ({exc.name} is missing): "
                   "pip install 'camlint[verify]'", err=True)
        sys.exit(EXIT_INPUT)


def _require_file(spec: Path) -> None:
    if not spec.is_file():
        click.echo(f"camlint: {spec}: no such file", err=True)
        sys.exit(EXIT_INPUT)


@click.command()
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--device", type=click.Choice(("auto", "cpu", "cuda")), default="auto",
              help="auto uses CUDA when there is a GPU.")
@click.option("--maps-out", type=click.Path(path_type=Path, file_okay=False),
              help="Write each final map (.npy, float32 H x W) and an overlay (.png) here.")
@click.option("--format", "fmt", type=click.Choice(VERIFY_FORMATS), default="text", show_default=True,
              help="markdown: a report to paste into a review; sarif, github: findings at spec lines.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to FILE.")
@click.option("--repeat", is_flag=True, help="Check determinism on every input (default: the first input only).")
@click.option("--force", is_flag=True, help="Run even when camlint check finds errors in the spec "
              "(values camlint cannot execute safely are still refused).")
def verify(spec, device, maps_out, fmt, output, repeat, force):
    """Re-execute a complete camspec with torch + timm and compare with the reported maps.

    Exit status: 0 everything declared is reproduced (or nothing was declared to compare),
    1 a map is not reproduced or degenerate, 2 a bad spec or input."""
    from camlint.core.errors import InputError

    _require_file(spec)
    with StderrProgress(f"verify {spec.name}") as progress:
        _engine_or_exit("verify", progress)
        from camlint.verify.run import verify as run_verify
        from camlint.verify.spec import SpecError

        try:
            _check_output(output)
            report = run_verify(spec, device=device, maps_out=maps_out, progress=progress, force=force,
                                repeat=repeat, output=Path(output) if output else None, keep_maps=False)
        except SpecError as exc:
            progress.close()
            spec_errors(spec, exc.messages)
        except InputError as exc:
            progress.close()
            click.echo(f"camlint: {exc}", err=True)
            sys.exit(EXIT_INPUT)
    _emit_report("verify", fmt, report, output)
    sys.exit(EXIT_FINDINGS if report.reproduced is False else EXIT_OK)


def _check_output(output) -> None:
    """-o FILE of verify and sweep: a file in a folder camlint may write to (SpecError if not)."""
    from camlint.verify.run import writable_folder
    from camlint.verify.spec import SpecError

    if output:
        writable_folder(Path(output).absolute().parent, "-o")
        if Path(output).is_dir():
            raise SpecError([f"-o {output}: is a folder"])


def _emit_report(command: str, fmt: str, report, output) -> None:
    from camlint.formats.verification import render_sweep, render_verify
    from camlint.cli.terminal import use_color

    color = use_color("auto", sys.stdout, bool(output)) if fmt == "text" else False
    render = render_verify if command == "verify" else render_sweep
    emit(render(fmt, report, color), output, color)


@click.command()
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Folder for grid__INPUT.png, agreement.json and sweep.json (camlint writes nowhere else).")
@click.option("--space", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="YAML mapping open keys to candidate values (default: camlint's space).")
@click.option("--max-variants", type=click.IntRange(1, 4096), default=64, show_default=True,
              help="Cap on the number of procedures (a seeded sample beyond it).")
@click.option("--agree", type=click.FloatRange(-1, 1), default=0.8, show_default=True,
              help="Spearman above which two maps count as agreeing (clusters).")
@click.option("--device", type=click.Choice(("auto", "cpu", "cuda")), default="auto")
@click.option("--format", "fmt", type=click.Choice(VERIFY_FORMATS), default="text", show_default=True,
              help="markdown: a report to paste into a review; sarif, github: findings at spec lines.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to FILE.")
@click.option("--force", is_flag=True, help="Run even when camlint check finds errors in the spec.")
@click.option("--maps-out", type=click.Path(path_type=Path, file_okay=False),
              help="Write every procedure's map of every input here (INPUT__vNN.npy, NN the table's row; variants.json).")
def sweep(spec, out_dir, space, max_variants, agree, device, fmt, output, force, maps_out):
    """Every procedure the open keys of SPEC admit: maps side by side, agreement, localisation."""
    from camlint.core.errors import InputError

    _require_file(spec)
    with StderrProgress(f"sweep {spec.name}") as progress:
        _engine_or_exit("sweep", progress)
        from camlint.verify import sweep as sw
        from camlint.verify.spec import SpecError
        from camlint.verify.sweep_report import write_outputs, write_variant_maps

        try:
            _check_output(output)
            result = sw.sweep(spec, sw.load_space(space), cap=max_variants, device=device, agree=agree,
                              out=out_dir, force=force, progress=progress, maps_out=maps_out,
                              output=Path(output) if output else None)
            progress("writing the grid and the agreement matrix")
            written = write_outputs(result, out_dir)
            if maps_out is not None:
                written += write_variant_maps(result, maps_out)[:1]
        except SpecError as exc:
            progress.close()
            spec_errors(spec, exc.messages)
        except InputError as exc:
            progress.close()
            click.echo(f"camlint: {exc}", err=True)
            sys.exit(EXIT_INPUT)
    _emit_report("sweep", fmt, result, output)
    if fmt == "text":
        click.echo("wrote " + ", ".join(str(p) for p in written), err=bool(output))
