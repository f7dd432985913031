"""The audit for people and spreadsheets: a Markdown summary and CSV files (streamed from the store)."""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterable

from camlint.audit.record import CITATION_LABELS, CITATIONS
from camlint.core.keys import KEYS, REPORTED, STATUSES
from camlint.safety.safe_write import open_for_writing
from camlint.safety.sanitize import printable

# The 2026 hand audit of 175 papers (shared/taxonomy.md), shown next to the run's own shares.
HAND_AUDIT = {"cnn_only": "58% (101)", "library_only": "10% (17)", "justified": "15% (26)"}
PAPER_COLUMNS = ("id", "path", "venue", "year", "title", "outcome", "error", "front_end",
                 "uses_cam_on_transformer", "citation", "presets", *KEYS, "findings", "seconds")


def pct(x) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def _md(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _group_table(groups: dict, grouping: str) -> list[str]:
    head = f"| {grouping} | papers | CAM on ViT | " + " | ".join(f"({c})" for c in "abc") + " | " + \
        " | ".join(KEYS) + " |"
    out = [f"### Reporting by {grouping}", "",
           "Columns (a)-(c): shares of the citation groups; key columns: share of papers reporting the key.", "",
           head, "|" + "---|" * (5 + len(KEYS))]
    for name, t in groups.items():
        cells = [pct(t["citation"][c]["share"]) for c in CITATIONS[:3]]
        cells += [pct(t["key_rates"][k][REPORTED]) for k in KEYS]
        out.append(f"| {_md(name)} | {t['papers']} | {t['uses_cam_on_transformer']} | " + " | ".join(cells) + " |")
    return out + [""]


def markdown(summary: dict, failures: Iterable[dict], truth: dict | None = None, limit: int = 50) -> str:
    o = summary["outcomes"]
    lines = ["# camlint audit", "",
             f"{summary['papers']} papers: {summary['read']} read, {o['unreadable']} unreadable, "
             f"{o['error']} errors, {o['crashed']} crashed, {o['timeout']} timed out. "
             f"**{summary['uses_cam_on_transformer']}** use a CAM method on a transformer; the shares below are of those.",
             "", "## How the transformer adaptation is justified", "",
             "| | group | papers | share | hand audit (175 papers) |", "|---|---|---|---|---|"]
    for tag, c in zip("abcd", CITATIONS):
        lines.append(f"| ({tag}) | {CITATION_LABELS[c]} | {summary['citation'][c]['papers']} | "
                     f"{pct(summary['citation'][c]['share'])} | {HAND_AUDIT.get(c, '')} |")
    presets = ", ".join(f"`{p}` ({n})" for p, n in summary["adaptations_cited"].items()) or "none"
    lines += ["", f"Distinct published adaptations cited: **{summary['distinct_adaptations']}**: {presets}.", "",
              "## Per-key reporting rates", "", "| key | " + " | ".join(s.replace("_", " ") for s in STATUSES) + " |",
              "|---|" + "---|" * len(STATUSES)]
    for k in KEYS:
        lines.append(f"| {k} | " + " | ".join(pct(summary["key_rates"][k][s]) for s in STATUSES) + " |")
    lines.append("")
    for grouping, groups in summary.get("by", {}).items():
        lines += _group_table(groups, grouping)
    if truth:
        lines += ["## Agreement with the hand labels", "", "```", truth_text(truth).rstrip(), "```", ""]
    failed = [f for _, f in zip(range(limit + 1), failures)]
    if failed:
        lines += ["## Papers not audited", "", "| paper | outcome | message |", "|---|---|---|"]
        lines += [f"| {_md(f['id'])} | {f['outcome']} | {_md(f.get('error') or '')} |" for f in failed[:limit]]
        if len(failed) > limit:
            lines.append(f"\n(first {limit} shown; the CSV and the JSONL list all)")
    return "\n".join(lines) + "\n"


def truth_text(truth: dict) -> str:
    from camlint.audit.truth import render_text

    return render_text(truth)


def _safe_cell(value) -> str:
    """Spreadsheets run cells that start with = + - @ as formulas: quote them. Terminal controls in a
    paper's file name or title are dropped (the CSV is often looked at with cat)."""
    text = "" if value is None else printable(str(value))
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def paper_row(rec: dict) -> list[str]:
    status = rec.get("status") or {}
    values = {**rec, **{k: status.get(k) for k in KEYS},
              "presets": ";".join(rec.get("presets") or []),
              "findings": ";".join(f"{c}:{n}" for c, n in (rec.get("findings") or {}).items()),
              "uses_cam_on_transformer": {True: "yes", False: "no"}.get(rec.get("uses_cam_on_transformer"), "")}
    return [_safe_cell(values.get(c)) for c in PAPER_COLUMNS]


def write_papers_csv(path: Path, records: Iterable[dict]) -> None:
    with open_for_writing(path, newline="") as fh:
        w = csv.writer(fh)
        w.writerow(PAPER_COLUMNS)
        for rec in records:
            w.writerow(paper_row(rec))


def write_rates_csv(path: Path, summary: dict) -> None:
    """One row per (grouping, group, key): counts and shares of each status."""
    with open_for_writing(path, newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["grouping", "group", "cam_papers", "key", *STATUSES, *(f"{s}_share" for s in STATUSES)])
        tallies = [("all", "all", summary)] + [(g, name, t) for g, groups in summary.get("by", {}).items()
                                              for name, t in groups.items()]
        for grouping, name, t in tallies:
            for k in KEYS:
                w.writerow([grouping, _safe_cell(name), t["uses_cam_on_transformer"], k,
                            *(t["key_status_counts"][k][s] for s in STATUSES),
                            *("" if t["key_rates"][k][s] is None else t["key_rates"][k][s] for s in STATUSES)])
