"""Markdown: the checklist table and the findings, ready for a pull request or a review."""
from __future__ import annotations

from camlint.checklist.filled import MARKDOWN_STATUS as ICON
from camlint.checklist.filled import checklist_rows
from camlint.formats.markdown_text import cell, code, findings
from camlint.core.keys import KEYS


def document(rep) -> str:
    out = [f"### camlint: {code(rep.path)}", ""]
    if not rep.uses_cam_on_transformer:
        return "\n".join(out + ["No CAM-style method applied to a transformer was found: nothing to report.", ""])
    out += ["| item | status | value | where stated |", "|---|---|---|---|"]
    for row in checklist_rows(rep):
        out.append(f"| `{row['key']}` | {ICON[row['status']]} | {cell(row['value'])} | {cell(row['where'])} |")
    out.append("")
    out += findings(rep.findings)
    if rep.suppressed:
        out += ["Suppressed: " + ", ".join(f"{f.code} at {code(f'{f.file}:{f.line}')} ({cell(f.suppressed)})" for f in rep.suppressed), ""]
    return "\n".join(out)


def summary(reports) -> str:
    if len(reports) < 2:
        return ""
    counts = {s: sum(1 for r in reports for f in r.findings if f.severity == s) for s in ("error", "warning", "info")}
    cam = [r for r in reports if r.uses_cam_on_transformer]
    out = [f"### camlint summary: {len(reports)} documents", "",
           f"Findings: {counts['error']} errors, {counts['warning']} warnings, {counts['info']} info.", "",
           "| item | documents reporting it |", "|---|---|"]
    for key in KEYS:
        n = sum(1 for r in cam if r.checklist[key].status == "reported")
        out.append(f"| `{key}` | {n} / {len(cam)} |")
    from camlint.inputs.kinds import describe

    out += ["", "Read by: " + "; ".join(f"{code(r.path)} ({describe(r.kind)})" for r in reports)]
    return "\n".join(out + [""])


def render(reports, errors=(), **_) -> str:
    parts = [f"> **camlint could not read** {code(e.where() or e.file)}: {cell(e.message)}\n" for e in errors]
    parts += [document(r) for r in reports]
    parts.append(summary(reports))
    return "\n".join(p for p in parts if p)
