"""Command line: `camlint [check] PATH...`, `camlint schema`, `camlint rules`, `camlint explain`.

Exit status: 0 nothing at or above the fail level, 1 findings, 2 usage error or unreadable input.
Heavy modules are imported inside commands so that `camlint --version` starts at once.
"""
from __future__ import annotations

import sys
from pathlib import Path

import click

from camlint import __version__
from camlint.terminal import COLOR_CHOICES

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2
FAIL_LEVELS = ("error", "warning", "info")
def _formats() -> tuple[str, ...]:
    from camlint.formats import FORMATS

    return tuple(FORMATS)


CHECK_FORMATS = _formats()


class DefaultCheckGroup(click.Group):
    """`camlint paper.tex` means `camlint check paper.tex`."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["check", *args]
        elif args and args[0].startswith("-") and args[0] not in ("--help", "-h", "--version"):
            args = ["check", *args]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultCheckGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="camlint", message="%(prog)s %(version)s")
def main():
    """camlint: does the paper say how its Grad-CAM maps of a Vision Transformer were made?

    Checks LaTeX manuscripts (following \\input/\\include) and camspec supplements
    (.yaml, .yml, .json) against the 12-item reporting checklist.
    """


def _emit(text: str, output: str | None, color: bool | None = None) -> None:
    """Print or write a report; `color=True` keeps escape codes click would strip from a pipe."""
    if output:
        from camlint.safe_write import UnsafeTarget, write_atomic

        try:
            write_atomic(Path(output), text)    # never through a link a repository may ship
        except UnsafeTarget as exc:
            click.echo(f"camlint: {output}: cannot write the output: {exc}", err=True)
            sys.exit(EXIT_INPUT)
        except OSError as exc:
            click.echo(f"camlint: {output}: cannot write the output: {exc.strerror or exc}", err=True)
            sys.exit(EXIT_INPUT)
    else:
        click.echo(text, nl=False, color=color)


def _usage_error(exc) -> None:
    click.echo(f"camlint: {exc}", err=True)
    sys.exit(EXIT_INPUT)


# Formats for people: with nothing checked, the error message on stderr is the whole answer.
_HUMAN_FORMATS = ("text", "concise", "markdown")


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(CHECK_FORMATS), default=None,
              help="Output format (default: text, or the config file's).")
@click.option("--fail-on", type=click.Choice(FAIL_LEVELS), default=None,
              help="Lowest severity that makes the exit status 1 (default: error).")
@click.option("--spec", type=click.Path(path_type=Path, dir_okay=False),
              help="A camspec supplement to combine with the manuscript into one report.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to FILE.")
@click.option("--config", "config_file", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="Configuration file (default: found by walking up from each checked file).")
@click.option("--select", multiple=True, help="Only these rules (code, prefix or name); repeatable.")
@click.option("--ignore", multiple=True, help="Skip these rules (code, prefix or name); repeatable.")
@click.option("--extend-select", multiple=True, help="Add rules to the selection; repeatable.")
@click.option("--color", "color", type=click.Choice(COLOR_CHOICES), default="auto", show_default=True,
              help="Colour the text output (auto: on a terminal, unless NO_COLOR; FORCE_COLOR forces it).")
@click.option("--no-color", "color", flag_value="never", hidden=True)
@click.option("--stdin-filename", help="With PATH '-': the name (and so the type and configuration) of stdin.")
@click.option("-q", "--quiet", is_flag=True, help="Findings only: no checklist tables, summary or notes.")
@click.option("--statistics", is_flag=True, help="Count findings per rule instead of listing them.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even with findings (2 still means unreadable input).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the parse cache.")
@click.option("--main", "main_name", default=None, metavar="NAME",
              help="In an archive: the main file (default: the .tex file with \\documentclass).")
@click.option("--show-settings", is_flag=True,
              help="Print the configuration for the first PATH, and where each value came from; check nothing.")
def check(paths, fmt, fail_on, spec, output, config_file, select, ignore, extend_select, color, stdin_filename,
          quiet, statistics, exit_zero, no_cache, main_name, show_settings):
    """Check manuscripts (.tex, .pdf, .md, .txt, .zip/.tar.gz archives) and camspecs; '-' reads stdin."""
    import os

    from camlint.config import CliOverrides
    from camlint.errors import InputError
    from camlint.runner import run_check
    from camlint.selectors import check_selectors, split_values

    if no_cache:
        os.environ["CAMLINT_NO_CACHE"] = "1"
    overrides = CliOverrides(select=select, ignore=ignore, extend_select=extend_select,
                             fail_on=fail_on, format=fmt)
    try:
        for flag, values in (("--select", select), ("--ignore", ignore), ("--extend-select", extend_select)):
            check_selectors(split_values(values), "", flag)
        if show_settings:
            _show_settings(paths[0] if str(paths[0]) != "-" else Path(stdin_filename or "-"), config_file, overrides)
        if output:
            from camlint.terminal import check_writable

            check_writable(output)
        from camlint.terminal import StdinDocument

        with StdinDocument(paths, stdin_filename) as (files, displays):
            result = run_check(files, spec=spec, overrides=overrides, config_file=config_file,
                               progress=sys.stderr.isatty() and not quiet, displays=displays,
                               main=main_name)
    except InputError as exc:   # a bad option, configuration file or output path: a usage error
        _usage_error(exc)
    _report(result, output, color, quiet, statistics)
    if result.errors:
        sys.exit(EXIT_INPUT)
    sys.exit(EXIT_FINDINGS if result.failed and not exit_zero else EXIT_OK)


def _show_settings(path: Path, config_file, overrides) -> None:
    from camlint.runner import _config_for

    click.echo(_config_for(path, config_file, overrides, {}).show(), nl=False)
    sys.exit(EXIT_OK)


def _report(result, output, color, quiet: bool, statistics: bool) -> None:
    from camlint.formats import render, statistics as stats
    from camlint.sanitize import printable
    from camlint.terminal import use_color

    fmt = result.format
    color = use_color(color, sys.stdout, bool(output))
    if statistics:
        text = stats(result.reports, as_json=fmt == "json")
    elif result.reports or fmt not in _HUMAN_FORMATS:
        text = render(fmt, result.reports, result.errors, color=color, quiet=quiet, fail_on=result.fail_on)
    else:
        text = ""
    _emit(text, output, color)
    for err in result.errors:
        click.echo(f"camlint: {err}", err=True)
    for note in result.notes if fmt in _HUMAN_FORMATS and not quiet else ():   # machine formats stay clean
        click.echo(f"camlint: note: {printable(note)}", err=True)
    from camlint.discover import ORDINARY_SKIPS

    for path, why in result.skipped if not quiet else ():   # check DIR: what was not read, and why (stderr)
        if fmt == "text" or why not in ORDINARY_SKIPS:
            click.echo(f"camlint: skipped {printable(path)}: {why}", err=True)


def _single_report(path: Path, spec: Path | None):
    """Check one document for checklist/init; exit 2 with a message when it cannot be read."""
    from camlint.config import CliOverrides
    from camlint.runner import run_check

    result = run_check([path], spec=spec, overrides=CliOverrides())
    for err in result.errors:
        click.echo(f"camlint: {err}", err=True)
    if result.errors or not result.reports:
        sys.exit(EXIT_INPUT)
    return result.reports


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(("markdown", "latex", "yaml", "json")), default="markdown")
@click.option("--spec", type=click.Path(path_type=Path, dir_okay=False), help="A camspec supplement to combine.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to FILE.")
def checklist(paths, fmt, spec, output):
    """The filled reporting checklist (key, status, value, where stated)."""
    from camlint.checklist import RENDERERS
    from camlint.errors import InputError
    from camlint.terminal import check_writable

    try:
        if output:
            check_writable(output)
    except InputError as exc:
        _usage_error(exc)
    reports = [r for p in paths for r in _single_report(p, spec)]
    _emit(RENDERERS[fmt](reports), output)


@main.command()
@click.argument("path", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the camspec to FILE (default: print it; camlint writes nowhere unasked).")
@click.option("--force", is_flag=True, help="Overwrite an existing file (never through a link).")
def init(path, output, force):
    """Write a camspec.yaml pre-filled with what the manuscript states, TODOs for the rest."""
    from camlint.init import template
    from camlint.safe_write import UnsafeTarget, refuse_link, write_atomic

    try:
        if output is not None:
            refuse_link(output)
    except UnsafeTarget as exc:
        click.echo(f"camlint: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    if output is not None and output.exists() and not force:
        click.echo(f"camlint: {output} exists; use --force to overwrite it", err=True)
        sys.exit(EXIT_INPUT)
    report = _single_report(path, None)[0]
    text = template(report)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        write_atomic(output, text)
    except (UnsafeTarget, OSError) as exc:
        click.echo(f"camlint: {output}: cannot write ({exc})", err=True)
        sys.exit(EXIT_INPUT)
    open_keys = sum(1 for k in report.checklist.values() if k.status in ("missing", "partial"))
    click.echo(f"wrote {output} ({open_keys} TODO{'s' if open_keys != 1 else ''} to fill)")


@main.command()
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
def presets(fmt):
    """List the presets of published adaptations and what each fixes."""
    from camlint.presets import PRESETS

    if fmt == "json":
        import json

        click.echo(json.dumps([{"name": p.name, "title": p.title, "citation": p.citation, "summary": p.summary,
                                "fixes": p.fixes} for p in PRESETS], indent=2))
        return
    for p in PRESETS:
        click.echo(f"{p.name}\n  {p.title}\n  {p.citation}\n  {p.summary}\n  fixes: {', '.join(p.fixes)}\n")


def _spec_errors(spec: Path, messages: list[str]) -> None:
    """Exit 2 with one line per problem, each naming its file (and line where known)."""
    import re

    for message in messages:
        located = re.match(r"\S+:\d+[:]", message) or message.startswith(("--", str(spec)))
        text = f"camlint: {message}" if located else f"camlint: {spec}: {message}"
        click.echo(re.sub(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", "?", text), err=True)
    sys.exit(EXIT_INPUT)


@main.command()
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--device", type=click.Choice(("auto", "cpu", "cuda")), default="auto",
              help="auto uses CUDA when there is a GPU.")
@click.option("--maps-out", type=click.Path(path_type=Path, file_okay=False),
              help="Write each final map (.npy, float32 H x W) and an overlay (.png) here.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to FILE.")
@click.option("--force", is_flag=True, help="Run even when camlint check finds errors in the spec "
              "(values camlint cannot execute safely are still refused).")
def verify(spec, device, maps_out, fmt, output, force):
    """Re-execute a complete camspec with torch + timm and compare with the reported maps.

    Exit status: 0 everything declared is reproduced (or nothing was declared to compare),
    1 a map is not reproduced or degenerate, 2 a bad spec or input."""
    if not spec.is_file():
        click.echo(f"camlint: {spec}: no such file", err=True)
        sys.exit(EXIT_INPUT)
    try:
        from camlint.verify.run import render_json, render_text, verify as run_verify
        from camlint.verify.spec import SpecError
    except ImportError as exc:
        click.echo(f"camlint: verify needs torch and timm ({exc.name} is missing): "
                   "pip install 'camlint[verify]'", err=True)
        sys.exit(EXIT_INPUT)
    from camlint.errors import InputError

    try:
        if output:
            from camlint.verify.run import writable_folder

            writable_folder(Path(output).absolute().parent, "-o")
            if Path(output).is_dir():
                raise SpecError([f"-o {output}: is a folder"])
        report = run_verify(spec, device=device, maps_out=maps_out, progress=sys.stderr.isatty(), force=force)
    except SpecError as exc:
        _spec_errors(spec, exc.messages)
    except InputError as exc:
        click.echo(f"camlint: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    from camlint.terminal import use_color

    color = use_color("auto", sys.stdout, bool(output))
    _emit(render_json(report) if fmt == "json" else render_text(report, color), output, color)
    sys.exit(EXIT_FINDINGS if report.reproduced is False else EXIT_OK)


@main.command()
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--out", "out_dir", type=click.Path(path_type=Path, file_okay=False), required=True,
              help="Folder for grid.png, agreement.json and sweep.json (camlint writes nowhere else).")
@click.option("--space", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="YAML mapping open keys to candidate values (default: camlint's space).")
@click.option("--max-variants", type=click.IntRange(1, 4096), default=64, show_default=True,
              help="Cap on the number of procedures (a seeded sample beyond it).")
@click.option("--agree", type=click.FloatRange(-1, 1), default=0.8, show_default=True,
              help="Spearman above which two maps count as agreeing (clusters).")
@click.option("--device", type=click.Choice(("auto", "cpu", "cuda")), default="auto")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
@click.option("--force", is_flag=True, help="Run even when camlint check finds errors in the spec.")
def sweep(spec, out_dir, space, max_variants, agree, device, fmt, force):
    """Every procedure the open keys of SPEC admit: maps side by side, agreement, localisation."""
    if not spec.is_file():
        click.echo(f"camlint: {spec}: no such file", err=True)
        sys.exit(EXIT_INPUT)
    try:
        from camlint.verify import sweep as sw
        from camlint.verify.spec import SpecError
    except ImportError as exc:
        click.echo(f"camlint: sweep needs torch and timm ({exc.name} is missing): pip install 'camlint[verify]'",
                   err=True)
        sys.exit(EXIT_INPUT)
    from camlint.errors import InputError

    try:
        result = sw.sweep(spec, sw.load_space(space), cap=max_variants, device=device, agree=agree, out=out_dir,
                          force=force)
        written = sw.write_outputs(result, out_dir)
    except SpecError as exc:
        _spec_errors(spec, exc.messages)
    except InputError as exc:
        click.echo(f"camlint: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    if fmt == "json":
        import json

        click.echo(json.dumps(result.to_json(), indent=2))
    else:
        click.echo(sw.render_text(result), nl=False)
        click.echo("wrote " + ", ".join(str(p) for p in written))


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--manifest", type=click.Path(path_type=Path, dir_okay=False),
              help="CSV of papers: a path column (relative to the CSV), optional id, venue, year, title.")
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
def audit(paths, manifest, out_dir, truth, jobs, scheduler, chunk, timeout, resume, force, progress):
    """The reporting audit of many papers: per-paper JSONL, summary, Markdown, HTML and CSV."""
    from camlint.errors import InputError

    if bool(paths) == bool(manifest):
        click.echo("camlint: give either PATH... or --manifest FILE", err=True)
        sys.exit(EXIT_INPUT)
    from camlint.audit import papers as P
    from camlint.audit.command import AuditOptions, render_text, run_audit

    try:
        if manifest:
            found, errors = P.read_manifest(manifest), []
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
    except OSError as exc:      # e.g. no Dask scheduler at that address, an output folder not writable
        click.echo(f"camlint: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    click.echo(render_text(result), nl=False)
    sys.exit(EXIT_INPUT if errors else EXIT_OK)


@main.command()
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the schema to FILE.")
def schema(output):
    """Print the camspec JSON Schema."""
    from camlint.resources import SCHEMA_FILE, schema_dir

    _emit((schema_dir() / SCHEMA_FILE).read_text(encoding="utf-8"), output)


@main.command()
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
def rules(fmt):
    """List every rule: code, name, checklist key, default severity."""
    from camlint.explain import rules_json, rules_table

    from camlint.terminal import use_color

    color = use_color()
    click.echo(rules_json() if fmt == "json" else rules_table(color), nl=False, color=color)


@main.command()
@click.argument("code")
def explain(code):
    """Explain a rule: what it checks, why it matters, bad and good examples, how to fix."""
    from camlint.explain import explain_rule, find_rule

    rule = find_rule(code)
    if rule is None:
        click.echo(f"camlint: unknown rule {code!r} (camlint rules lists them)", err=True)
        sys.exit(EXIT_INPUT)
    click.echo(explain_rule(rule), nl=False)


def run() -> None:
    """Console entry point: no traceback ever reaches the user (set CAMLINT_DEBUG=1 to see it)."""
    import os

    try:
        main(standalone_mode=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        click.echo("camlint: interrupted", err=True)
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - last line of defence for users
        if os.environ.get("CAMLINT_DEBUG"):
            raise
        click.echo(f"camlint: internal error ({type(exc).__name__}: {exc}); please report it "
                   "with the input that caused it (CAMLINT_DEBUG=1 shows the traceback)", err=True)
        sys.exit(EXIT_INPUT)


if __name__ == "__main__":  # pragma: no cover
    run()
