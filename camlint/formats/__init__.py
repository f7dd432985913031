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


def render(fmt: str, reports, errors=(), **options) -> str:
    module = importlib.import_module(f"camlint.formats.{FORMATS[fmt]}")
    return module.render(reports, errors, **options)
