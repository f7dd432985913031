"""GitHub Actions workflow commands (annotations), plus the checklist in the step summary.

GitHub shows at most 10 annotations per severity per step, so when GITHUB_STEP_SUMMARY is set
the full checklist table is appended there as Markdown.
"""
from __future__ import annotations

import os

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(f) -> str:
    props = ",".join([f"file={escape_property(f.file)}", f"line={f.line}", f"col={f.col}",
                      f"title={escape_property(f'{f.code} {f.name}')}"])
    return f"::{LEVEL[f.severity]} {props}::{escape_data(f'{f.message}. Hint: {f.hint}')}"


def render(reports, errors=(), **_) -> str:
    lines = [f"::error file={escape_property(e.file)},line={e.line or 1}::{escape_data(e.message)}" for e in errors]
    lines += [annotation(f) for rep in reports for f in rep.findings]
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        from camlint.formats.markdown import render as markdown

        try:
            with open(summary, "a", encoding="utf-8") as fh:
                fh.write(markdown(reports, errors))
        except OSError:
            pass
    return "\n".join(lines) + ("\n" if lines else "")
