"""The audit as one self-contained HTML page: figures, plots (inline SVG), a sortable table of the
papers, each linking to its findings. Nothing is fetched from anywhere; rows are written as the
store is read, so the page's size, not the coordinator's memory, grows with the venue."""
from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Callable, Iterable

from camlint.audit import plots
from camlint.audit.record import CITATION_LABELS, CITATIONS, OK
from camlint.audit.reports import HAND_AUDIT, pct
from camlint.core.keys import KEYS, REPORTED, STATUSES
from camlint.safety.sanitize import printable

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em}th,td{border:1px solid #ddd;padding:3px 7px;text-align:left}
th{background:#f3f3f3}table.sortable th{cursor:pointer}table.sortable th:after{content:" \\2195";color:#999}
td.n{text-align:right}.reported{color:#2e7d32}.partial{color:#b26a00}.missing{color:#c62828}
.not_applicable{color:#888}section.paper{border-top:1px solid #ddd;padding:.3em 0}
.fail{color:#c62828}figure{margin:1em 0}code{background:#f5f5f5;padding:0 3px}
"""
SORT_JS = """
document.querySelectorAll('table.sortable').forEach(function(t){
 t.querySelectorAll('th').forEach(function(th,i){th.addEventListener('click',function(){
  var b=t.tBodies[0],rows=Array.from(b.rows),up=th.dataset.dir!=='asc';th.dataset.dir=up?'asc':'desc';
  function v(r){var c=r.cells[i],s=c.dataset.sort!==undefined?c.dataset.sort:c.textContent,n=parseFloat(s);
   return isNaN(n)?s.toLowerCase():n;}
  rows.sort(function(a,c){var x=v(a),y=v(c);if(x===y)return 0;return (x<y?-1:1)*(up?1:-1);});
  rows.forEach(function(r){b.appendChild(r);});});});});
"""


def _e(x) -> str:
    return escape("" if x is None else printable(str(x)))


def _head(summary: dict, title: str) -> str:
    o = summary["outcomes"]
    return (f"<h1>{_e(title)}</h1><p>{summary['papers']} papers; {summary['read']} read; "
            f"{o['unreadable']} unreadable; {o['error'] + o['crashed'] + o['timeout']} failed "
            f"({o['error']} errors, {o['crashed']} crashed, {o['timeout']} timed out); "
            f"<b>{summary['uses_cam_on_transformer']}</b> use a CAM method on a transformer.</p>")


def _citations(summary: dict) -> str:
    rows = "".join(f"<tr><td>{_e(CITATION_LABELS[c])}</td><td class=n>{summary['citation'][c]['papers']}</td>"
                   f"<td class=n>{pct(summary['citation'][c]['share'])}</td><td class=n>{HAND_AUDIT.get(c, '')}</td></tr>"
                   for c in CITATIONS)
    presets = ", ".join(f"<code>{_e(p)}</code> ({n})" for p, n in summary["adaptations_cited"].items()) or "none"
    return ("<h2>How the transformer adaptation is justified</h2><table><tr><th>group</th><th>papers</th>"
            f"<th>share</th><th>hand audit, 175 papers</th></tr>{rows}</table>"
            f"<p>Distinct published adaptations cited: <b>{summary['distinct_adaptations']}</b>: {presets}</p>")


def _key_table(summary: dict) -> str:
    head = "".join(f"<th>{s.replace('_', ' ')}</th>" for s in STATUSES)
    rows = "".join(f"<tr><td>{k}</td>" + "".join(f"<td class=n>{pct(summary['key_rates'][k][s])}</td>"
                                                 for s in STATUSES) + "</tr>" for k in KEYS)
    return f"<table><tr><th>key</th>{head}</tr>{rows}</table>"


def _plots(summary: dict, truth: dict | None) -> str:
    if not plots.available():
        return "<p>(plots need matplotlib: pip install 'camlint[audit]')</p>"
    parts = []
    if summary["uses_cam_on_transformer"]:
        parts.append(plots.key_status_plot(summary["key_rates"]))
    for grouping, groups in summary.get("by", {}).items():
        if any(g["uses_cam_on_transformer"] for g in groups.values()):
            parts.append(plots.group_heatmap(groups, grouping))
            parts.append(plots.group_citation_plot(groups, grouping))
    if truth and truth["matched"]:
        parts.append(plots.truth_plot(truth))
    return "".join(f"<figure>{p}</figure>" for p in parts)


def _truth(truth: dict | None) -> str:
    if not truth:
        return ""
    rows = "".join(f"<tr><td>{k}</td><td class=n>{pct(v['status_accuracy'])}</td><td class=n>{pct(v['camlint'][REPORTED])}"
                   f"</td><td class=n>{pct(v['labels'][REPORTED])}</td></tr>" for k, v in truth["keys"].items())
    return (f"<h2>Agreement with the hand labels</h2><p>{truth['matched']} labelled papers read; status accuracy "
            f"{pct(truth['status_accuracy'])}; uses CAM on a transformer: {pct(truth['uses_cam_accuracy'])}.</p>"
            "<table><tr><th>key</th><th>status accuracy</th><th>reported (camlint)</th><th>reported (labels)</th></tr>"
            f"{rows}</table>")


def _row(n: int, rec: dict) -> str:
    status = rec.get("status") or {}
    reported = sum(1 for k in KEYS if status.get(k) == REPORTED)
    n_find = sum((rec.get("findings") or {}).values())
    outcome = rec["outcome"]
    cls = "" if outcome == OK else " class=fail"
    return (f"<tr><td><a href='#p{n}'>{_e(rec['id'])}</a></td><td>{_e(rec.get('venue'))}</td>"
            f"<td>{_e(rec.get('year'))}</td><td>{_e(rec.get('front_end'))}</td><td{cls}>{_e(outcome)}</td>"
            f"<td>{_e({True: 'yes', False: 'no'}.get(rec.get('uses_cam_on_transformer'), ''))}</td>"
            f"<td>{_e(rec.get('citation'))}</td><td class=n>{reported}</td><td class=n>{n_find}</td></tr>")


def _section(n: int, rec: dict) -> str:
    out = [f"<section class=paper id='p{n}'><h3>{_e(rec['id'])}</h3><p><code>{_e(rec['path'])}</code>"]
    if rec.get("title"):
        out.append(f" {_e(rec['title'])}")
    out.append("</p>")
    if rec["outcome"] != OK:
        out.append(f"<p class=fail>{_e(rec['outcome'])}: {_e(rec.get('error'))}</p></section>")
        return "".join(out)
    status = rec.get("status") or {}
    out.append("<p>" + " ".join(f"<span class={_e(status.get(k))}>{k}: {_e(status.get(k))}</span>;" for k in KEYS)
               + "</p>")
    if rec.get("presets"):
        out.append(f"<p>follows: {_e(', '.join(rec['presets']))}</p>")
    items = "".join(f"<li><code>{_e(c)}</code> {_e(sev)} {_e(f)}:{_e(line)}: {_e(msg)}</li>"
                    for c, sev, f, line, msg in rec.get("details") or [])
    out.append(f"<ul>{items}</ul></section>" if items else "<p>no findings</p></section>")
    return "".join(out)


def write_html(path: Path, summary: dict, records: Callable[[], Iterable[dict]], *, truth: dict | None = None,
               title: str = "camlint audit") -> None:
    from camlint.safety.safe_write import open_for_writing

    with open_for_writing(path) as fh:
        fh.write(f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>{_e(title)}</title>"
                 f"<style>{STYLE}</style></head><body>")
        fh.write(_head(summary, title) + _citations(summary))
        fh.write("<h2>Per-key reporting rates</h2>" + _key_table(summary) + _plots(summary, truth) + _truth(truth))
        fh.write("<h2>Papers</h2><p>Click a column to sort; click a paper for its findings.</p>"
                 "<table class=sortable id=papers><thead><tr><th>paper</th><th>venue</th><th>year</th>"
                 "<th>front end</th><th>outcome</th><th>CAM on ViT</th><th>citation</th><th>keys reported</th>"
                 "<th>findings</th></tr></thead><tbody>")
        for n, rec in enumerate(records()):
            fh.write(_row(n, rec))
        fh.write("</tbody></table><h2>Findings per paper</h2>")
        for n, rec in enumerate(records()):
            fh.write(_section(n, rec))
        fh.write(f"<script>{SORT_JS}</script></body></html>\n")
