"""Output formats: each a pure function of the reports (and input errors) to a string."""
from __future__ import annotations

import importlib

# format name -> module in camlint.formats with a render(reports, errors, **options) function
FORMATS: dict[str, str] = {
    "text": "text",
    "concise": "concise",
    "json": "json_format",
    "sarif": "sarif",
    "github": "github",
    "junit": "junit",
    "gitlab": "gitlab",
    "markdown": "markdown",
}


# formats a person reads: every string from the input is made printable (camlint.safety.sanitize);
# the JSON formats escape control characters themselves
HUMAN_READABLE = ("text", "concise", "markdown", "github", "junit")


def render(fmt: str, reports, errors=(), **options) -> str:
    module = importlib.import_module(f"camlint.formats.{FORMATS[fmt]}")
    if fmt not in HUMAN_READABLE:
        return module.render(reports, errors, **options)
    from camlint.safety.sanitize import printable_error, printable_lines, printable_report

    out = module.render([printable_report(r) for r in reports], [printable_error(e) for e in errors], **options)
    # the text format's own colours are escape sequences; its input strings are clean already
    return out if fmt == "text" and options.get("color") else printable_lines(out)


def statistics(reports, as_json: bool = False) -> str:
    """--statistics: how many findings each rule raised, most frequent first."""
    counts: dict = {}
    for rep in reports:
        for f in rep.findings:
            counts[(f.code, f.name)] = counts.get((f.code, f.name), 0) + 1
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0][0]))
    if as_json:
        import json

        return json.dumps([{"code": c, "name": n, "count": k} for (c, n), k in rows], indent=2) + "\n"
    return "".join(f"{k:>5}  {c}  {n}\n" for (c, n), k in rows)
