"""The filled reporting checklist of a document (key, status, value, where stated), in several forms."""
from __future__ import annotations

import json
import os

from camlint.display import short_value
from camlint.keys import DESCRIPTIONS, KEYS


def where_stated(e, doc_path: str) -> str:
    """Evidence location relative to the document's folder (sections/method.tex:19)."""
    base = os.path.dirname(doc_path)
    rel = os.path.relpath(e.file, base) if base else e.file
    from camlint.findings import location

    return location(e, rel if not rel.startswith('..') else e.file)


def checklist_rows(rep) -> list[dict]:
    rows = []
    for key in KEYS:
        entry = rep.checklist[key]
        rows.append({"key": key, "status": entry.status, "value": short_value(entry.value, 80),
                     "where": ", ".join(where_stated(e, rep.path) for e in entry.evidence[:3]),
                     "description": DESCRIPTIONS[key]})
    return rows


def _latex_escape(text: str) -> str:
    repl = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
            "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}
    return "".join(repl.get(c, c) for c in str(text))


def as_latex(reports) -> str:
    out = []
    for rep in reports:
        out += ["% Reporting checklist for Grad-CAM on Vision Transformers, filled by camlint.",
                "\\begin{table}[h]", "\\centering", "\\small",
                "\\begin{tabular}{llp{0.42\\linewidth}l}", "\\hline",
                "Item & Status & Value & Where stated \\\\", "\\hline"]
        for row in checklist_rows(rep):
            out.append(" & ".join(_latex_escape(row[k]) for k in ("key", "status", "value", "where")) + " \\\\")
        out += ["\\hline", "\\end{tabular}",
                f"\\caption{{Reporting checklist ({_latex_escape(os.path.basename(rep.path))}).}}",
                "\\end{table}", ""]
    return "\n".join(out)


def as_markdown(reports) -> str:
    from camlint.formats.markdown import ICON, _cell

    out = []
    for rep in reports:
        out += [f"### Reporting checklist: `{rep.path}`", "", "| item | status | value | where stated |",
                "|---|---|---|---|"]
        out += [f"| `{r['key']}` | {ICON[r['status']]} | {_cell(r['value'])} | {_cell(r['where'])} |"
                for r in checklist_rows(rep)]
        out.append("")
    return "\n".join(out)


def as_json(reports) -> str:
    return json.dumps([{"path": r.path, "uses_cam_on_transformer": r.uses_cam_on_transformer,
                        "checklist": {k: r.checklist[k].to_json() for k in KEYS}} for r in reports],
                      indent=2, ensure_ascii=False) + "\n"


def as_yaml(reports) -> str:
    import yaml

    data = [{"path": r.path, "uses_cam_on_transformer": r.uses_cam_on_transformer,
             "checklist": {k: {"status": r.checklist[k].status, "value": r.checklist[k].value,
                               "where": [f"{e.file}:{e.line}" for e in r.checklist[k].evidence]}
                           for k in KEYS}} for r in reports]
    return yaml.safe_dump(data if len(data) > 1 else data[0], sort_keys=False, allow_unicode=True)


RENDERERS = {"markdown": as_markdown, "latex": as_latex, "yaml": as_yaml, "json": as_json}
