"""`camlint check`, `camlint checklist` and `camlint init`: reading manuscripts and camspecs."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from camlint.cli.commands.common import (EXIT_FINDINGS, EXIT_INPUT, EXIT_OK, FAIL_LEVELS, emit,
                                         redirected_rule_warnings, usage_error)
from camlint.cli.terminal import COLOR_CHOICES


def _formats() -> tuple[str, ...]:
    from camlint.formats import FORMATS

    return tuple(FORMATS)


CHECK_FORMATS = _formats()


# Formats for people: with nothing checked, the error message on stderr is the whole answer.
_HUMAN_FORMATS = ("text", "concise", "markdown")


@click.command()
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

    from camlint.cli.config import CliOverrides
    from camlint.core.errors import InputError
    from camlint.cli.runner import run_check
    from camlint.rules.selectors import check_selectors, split_values

    if no_cache and not os.environ.get("CAMLINT_NO_CACHE"):
        # through the environment, so that worker processes see it too; only for this command
        # (camlint used in-process, as the tests do, must not keep it for the next call)
        os.environ["CAMLINT_NO_CACHE"] = "1"
        click.get_current_context().call_on_close(lambda: os.environ.pop("CAMLINT_NO_CACHE", None))
    overrides = CliOverrides(select=select, ignore=ignore, extend_select=extend_select,
                             fail_on=fail_on, format=fmt)
    try:
        with redirected_rule_warnings():
            for flag, values in (("--select", select), ("--ignore", ignore), ("--extend-select", extend_select)):
                check_selectors(split_values(values), "", flag)
            if show_settings:
                _show_settings(paths[0] if str(paths[0]) != "-" else Path(stdin_filename or "-"), config_file,
                               overrides)
            if output:
                from camlint.cli.terminal import check_writable

                check_writable(output, (*paths, spec, config_file))
            from camlint.cli.terminal import StdinDocument

            with StdinDocument(paths, stdin_filename) as (files, displays):
                result = run_check(files, spec=spec, overrides=overrides, config_file=config_file,
                                   progress=sys.stderr.isatty() and not quiet, displays=displays,
                                   main=main_name, output=Path(output) if output else None)
    except InputError as exc:   # a bad option, configuration file or output path: a usage error
        usage_error(exc)
    _report(result, output, color, quiet, statistics)
    if result.errors:
        sys.exit(EXIT_INPUT)
    sys.exit(EXIT_FINDINGS if result.failed and not exit_zero else EXIT_OK)


def _show_settings(path: Path, config_file, overrides) -> None:
    from camlint.cli.runner import _config_for

    click.echo(_config_for(path, config_file, overrides, {}).show(), nl=False)
    sys.exit(EXIT_OK)


def _report(result, output, color, quiet: bool, statistics: bool) -> None:
    from camlint.formats import render, statistics as stats
    from camlint.safety.sanitize import printable
    from camlint.cli.terminal import use_color

    fmt = result.format
    color = use_color(color, sys.stdout, bool(output))
    if statistics:
        text = stats(result.reports, as_json=fmt == "json")
    elif result.reports or fmt not in _HUMAN_FORMATS:
        text = render(fmt, result.reports, result.errors, color=color, quiet=quiet, fail_on=result.fail_on)
    else:
        text = ""
    if output:      # a document found in a named folder is an input too
        from camlint.cli.terminal import refuse_input
        from camlint.core.errors import InputError

        try:
            refuse_input(Path(output), [r.path for r in result.reports])
        except InputError as exc:
            usage_error(exc)
    emit(text, output, color)
    for err in result.errors:
        click.echo(f"camlint: {err}", err=True)
    for note in result.notes if fmt in _HUMAN_FORMATS and not quiet else ():   # machine formats stay clean
        click.echo(f"camlint: note: {printable(note)}", err=True)
    from camlint.cli.discover import ORDINARY_SKIPS

    for path, why in result.skipped if not quiet else ():   # check DIR: what was not read, and why (stderr)
        if fmt == "text" or why not in ORDINARY_SKIPS:
            click.echo(f"camlint: skipped {printable(path)}: {why}", err=True)


def single_report(path: Path, spec: Path | None):
    """Check one document for checklist/init; exit 2 with a message when it cannot be read."""
    from camlint.cli.config import CliOverrides
    from camlint.cli.runner import run_check

    result = run_check([path], spec=spec, overrides=CliOverrides())
    for err in result.errors:
        click.echo(f"camlint: {err}", err=True)
    if result.errors or not result.reports:
        sys.exit(EXIT_INPUT)
    return result.reports


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(("markdown", "latex", "yaml", "json")), default="markdown")
@click.option("--spec", type=click.Path(path_type=Path, dir_okay=False), help="A camspec supplement to combine.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to FILE.")
def checklist(paths, fmt, spec, output):
    """The filled reporting checklist (key, status, value, where stated)."""
    from camlint.checklist.filled import render
    from camlint.core.errors import InputError
    from camlint.cli.terminal import check_writable

    try:
        if output:
            check_writable(output, (*paths, spec))
    except InputError as exc:
        usage_error(exc)
    reports = [r for p in paths for r in single_report(p, spec)]
    emit(render(fmt, reports), output)


@click.command()
@click.argument("path", type=click.Path(path_type=Path, exists=True, dir_okay=False))
@click.option("--output", "-o", type=click.Path(path_type=Path, dir_okay=False),
              help="Write the camspec to FILE (default: print it; camlint writes nowhere unasked).")
@click.option("--force", is_flag=True, help="Overwrite an existing file (never through a link).")
def init(path, output, force):
    """Write a camspec.yaml pre-filled with what the manuscript states, TODOs for the rest."""
    from camlint.cli.init import template
    from camlint.safety.safe_write import UnsafeTarget, refuse_link, write_atomic

    from camlint.cli.terminal import refuse_input
    from camlint.core.errors import InputError

    try:
        if output is not None:
            refuse_link(output)
            refuse_input(output, (path,))
    except (UnsafeTarget, InputError) as exc:
        click.echo(f"camlint: {exc}", err=True)
        sys.exit(EXIT_INPUT)
    if output is not None and output.exists() and not force:
        click.echo(f"camlint: {output} exists; use --force to overwrite it", err=True)
        sys.exit(EXIT_INPUT)
    report = single_report(path, None)[0]
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
