"""Command line: `camlint [check] PATH...`, `camlint schema`, `camlint rules`, `camlint explain`.

Exit status: 0 nothing at or above the fail level, 1 findings, 2 usage error or unreadable input.
Heavy modules are imported inside commands so that `camlint --version` starts at once.
"""
from __future__ import annotations

import sys

import click

from camlint import __version__
from camlint.cli.commands.audit import audit
from camlint.cli.commands.catalog import explain, presets, rules, schema
from camlint.cli.commands.check import check, checklist, init
from camlint.cli.commands.common import EXIT_INPUT
from camlint.cli.commands.verify import sweep, verify


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


for _command in (check, checklist, init, presets, verify, sweep, audit, schema, rules, explain):
    main.add_command(_command)


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
