"""What every command shares: exit statuses, writing a report, a usage error."""
from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path

import click

EXIT_OK, EXIT_FINDINGS, EXIT_INPUT = 0, 1, 2
FAIL_LEVELS = ("error", "warning", "info")


def emit(text: str, output: str | None, color: bool | None = None) -> None:
    """Print or write a report; `color=True` keeps escape codes click would strip from a pipe."""
    if output:
        from camlint.safety.safe_write import UnsafeTarget, write_atomic

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


def usage_error(exc) -> None:
    click.echo(f"camlint: {exc}", err=True)
    sys.exit(EXIT_INPUT)


@contextmanager
def redirected_rule_warnings():
    """Print `camlint: warning:` once for each selector that names a redirected code (CAM207 ->
    CAM602, as ruff warns of remapped rules); other warnings pass through unchanged."""
    import warnings

    from camlint.rules.selectors import RuleRedirected

    caught: list = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RuleRedirected)
            yield
    finally:      # --show-settings and usage errors exit inside: say it all the same
        seen = set()
        for w in caught:
            if not issubclass(w.category, RuleRedirected):
                warnings.showwarning(w.message, w.category, w.filename, w.lineno)
            elif str(w.message) not in seen:
                seen.add(str(w.message))
                click.echo(f"camlint: warning: {w.message}", err=True)
