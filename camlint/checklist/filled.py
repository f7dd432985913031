"""The filled reporting checklist of a document (key, status, value, where stated), in several forms."""
from __future__ import annotations

import json
import os

from camlint.core import items
from camlint.core.item import Status
from camlint.core.display import short_value
from camlint.formats.markdown_text import cell, code
from camlint.rules.findings import location

# How a Markdown table shows a status (the checklist command and the markdown report).
MARKDOWN_STATUS = {Status.REPORTED: "✅ reported", Status.PARTIAL: "⚠️ partial", Status.MISSING: "❌ missing",
                   Status.NOT_APPLICABLE: "— n/a"}


def where_stated(e, doc_path: str) -> str:
    """Evidence location relative to the document's folder (sections/method.tex:19)."""
    base = os.path.dirname(doc_path)
    rel = os.path.relpath(e.file, base) if base else e.file
    return location(e, rel if not rel.startswith('..') else e.file)


def section_ref(e) -> str:
    """Where a value is stated, as a reader of the PDF finds it: the section (or the camspec key)."""
    name = os.path.basename(e.file)
    if not e.section:
        return name
    if os.path.splitext(name)[1].lower() in (".yaml", ".yml", ".json"):
        return f"{name}, key {e.section}"
    return f"§ {e.section}"


def _unique(items) -> list[str]:
    return list(dict.fromkeys(items))


def checklist_rows(rep) -> list[dict]:
    """One row per key: the whole value (never cut), sections and file:line locations."""
    rows = []
    for item in items.items():
        key = item.key
        entry = rep.checklist[key]
        rows.append({"key": key, "status": entry.status, "value": short_value(entry.value, limit=None),
                     "sections": ", ".join(_unique(section_ref(e) for e in entry.evidence[:3])),
                     "where": ", ".join(where_stated(e, rep.path) for e in entry.evidence[:3]),
                     "description": item.description})
    return rows


def _latex_escape(text: str) -> str:
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
            "§": r"\S{}", "<": r"\textless{}", ">": r"\textgreater{}"}
    return "".join(repl.get(c, c) for c in str(text))


BREAK_AFTER = "_/.-:,=@"
MAX_UNBROKEN = 16     # characters: a weights tag or a fingerprint must wrap inside a column


def latex_wrappable(text: str) -> str:
    """Escaped for LaTeX, with a break opportunity after separators and inside long runs."""
    out, run = [], 0
    for c in str(text):
        out.append(_latex_escape(c))
        run = 0 if c.isspace() else run + 1
        if c in BREAK_AFTER or run >= MAX_UNBROKEN:
            out.append(r"\allowbreak{}")
            run = 0
    return "".join(out)


def as_latex(reports) -> str:
    """A table that fits the text width as pasted: tabularx, wrapped values, section references."""
    out = []
    for rep in reports:
        out += ["% Reporting checklist for Grad-CAM on Vision Transformers, filled by camlint.",
                "% Needs \\usepackage{tabularx} in the preamble.",
                "\\begin{table}[htbp]", "\\centering", "\\small",
                "\\begin{tabularx}{\\linewidth}{@{}l l >{\\raggedright\\arraybackslash}X "
                ">{\\raggedright\\arraybackslash}p{0.26\\linewidth}@{}}", "\\hline",
                "Item & Status & Value & Where stated \\\\", "\\hline"]
        for row in checklist_rows(rep):
            out.append(" & ".join([row["key"], Status(row["status"]).label, latex_wrappable(row["value"]),
                                   latex_wrappable(row["sections"])]) + " \\\\")
        out += ["\\hline", "\\end{tabularx}",
                f"\\caption{{Reporting checklist ({_latex_escape(os.path.basename(rep.path))}).}}",
                "\\end{table}", ""]
    return "\n".join(out)


def as_markdown(reports) -> str:
    out = []
    for rep in reports:
        out += [f"### Reporting checklist: {code(rep.path)}", "", "| item | status | value | where stated |",
                "|---|---|---|---|"]
        out += [f"| `{r['key']}` | {MARKDOWN_STATUS[r['status']]} | {cell(r['value'])} | "
                f"{cell(_both(r))} |"
                for r in checklist_rows(rep)]
        out.append("")
    return "\n".join(out)


def _both(row: dict) -> str:
    return f"{row['sections']} ({row['where']})" if row["sections"] else ""


def as_json(reports) -> str:
    return json.dumps([{"path": r.path, "uses_cam_on_transformer": r.uses_cam_on_transformer,
                        "checklist": {k: r.checklist[k].to_json() for k in items.names()}} for r in reports],
                      indent=2, ensure_ascii=False) + "\n"


def as_yaml(reports) -> str:
    import yaml

    data = [{"path": r.path, "uses_cam_on_transformer": r.uses_cam_on_transformer,
             "checklist": {k: {"status": str(r.checklist[k].status), "value": r.checklist[k].value,
                               "where": [f"{e.file}:{e.line}" for e in r.checklist[k].evidence]}
                           for k in items.names()}} for r in reports]
    return yaml.safe_dump(data if len(data) > 1 else data[0], sort_keys=False, allow_unicode=True)


RENDERERS = {"markdown": as_markdown, "latex": as_latex, "yaml": as_yaml, "json": as_json}


def render(fmt: str, reports) -> str:
    """The checklist in `fmt`, safe to print: file names and values come from the submission, and
    a folder named with an OSC sequence reached the terminal (markdown) or a bidirectional
    override stood raw in the YAML and JSON. JSON is escaped as `--format json` escapes it."""
    from camlint.formats.json_format import terminal_safe
    from camlint.safety.sanitize import printable_lines

    text = RENDERERS[fmt](reports)
    return terminal_safe(text) if fmt == "json" else printable_lines(text)
