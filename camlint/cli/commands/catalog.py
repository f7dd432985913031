"""`camlint presets`, `camlint schema`, `camlint rules`, `camlint explain`: what camlint knows."""
from __future__ import annotations

import sys

import click

from camlint.cli.commands.common import EXIT_INPUT, emit


@click.command()
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
def presets(fmt):
    """List the presets of published adaptations and what each fixes."""
    from camlint.core.presets import PRESETS

    if fmt == "json":
        import json

        click.echo(json.dumps([{"name": p.name, "title": p.title, "citation": p.citation, "summary": p.summary,
                                "fixes": p.fixes} for p in PRESETS], indent=2))
        return
    for p in PRESETS:
        click.echo(f"{p.name}\n  {p.title}\n  {p.citation}\n  {p.summary}\n  fixes: {', '.join(p.fixes)}\n")


@click.command()
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the schema to FILE.")
def schema(output):
    """Print the camspec JSON Schema."""
    from camlint.core.resources import SCHEMA_FILE, schema_dir

    emit((schema_dir() / SCHEMA_FILE).read_text(encoding="utf-8"), output)


@click.command()
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
def rules(fmt):
    """List every rule: code, name, checklist key, default severity."""
    from camlint.rules.explain import rules_json, rules_table

    from camlint.cli.terminal import use_color

    color = use_color()
    click.echo(rules_json() if fmt == "json" else rules_table(color), nl=False, color=color)


@click.command()
@click.argument("code")
def explain(code):
    """Explain a rule: what it checks, why it matters, bad and good examples, how to fix."""
    from camlint.rules.explain import explain_code

    page = explain_code(code)
    if page is None:
        click.echo(f"camlint: unknown rule {code!r} (camlint rules lists them)", err=True)
        sys.exit(EXIT_INPUT)
    click.echo(page, nl=False)
