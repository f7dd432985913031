"""`camlint verify` and `camlint sweep` reports in every format.

text and markdown are written here (a table of maps, the resolved procedure with its defaults
marked, the sketches whole); json is the verify/sweep payload; sarif, github and the other
finding formats render the spec's document with the CAM6xx findings, like `camlint check`.
Torch-free: the reports are read as plain records.
"""
from __future__ import annotations

import json

from rich.table import Table
from rich.text import Text

from camlint.rules.findings import location
from camlint.formats.markdown_text import cell, code, findings
from camlint.formats.text import string_console
from camlint.safety.sanitize import printable, printable_finding, printable_lines
from camlint.verify.report import pointing_text, tolerance_text


# Procedure fields whose name differs from the spec key a default is reported under.
_FIELD_OF = {"reshape.order": "order", "postprocess.order": "post_order"}
_STYLE = {"error": "red", "warning": "yellow", "info": "cyan"}


def render_verify(fmt: str, report, color: bool = False) -> str:
    if fmt == "json":
        return _json(report.to_json())
    if fmt == "text":
        return verify_text(report, color)
    if fmt == "markdown":
        return printable_lines(verify_markdown(report))
    return _finding_format(fmt, report.document())


def render_sweep(fmt: str, result, color: bool = False) -> str:
    if fmt == "json":
        return _json(result.to_json())
    if fmt == "text":
        return sweep_text(result, color)
    if fmt == "markdown":
        return printable_lines(sweep_markdown(result))
    return _finding_format(fmt, result.document())


def _json(payload: dict) -> str:
    from camlint.formats.json_format import terminal_safe

    return terminal_safe(json.dumps(payload, indent=2, ensure_ascii=False)) + "\n"


def _finding_format(fmt: str, document) -> str:
    from camlint.formats import render

    return render(fmt, [document], [])


def _verdict(r) -> str:
    return ("degenerate" if r.degenerate else "reproduced" if r.reproduced else
            "NOT reproduced" if r.reproduced is False else "computed")


def _overall(report) -> str:
    overall = report.reproduced
    return ("reproduced" if overall else "NOT reproduced" if overall is False
            else "maps computed; nothing declared to compare")


def resolved_rows(env: dict) -> list[tuple[str, str, bool]]:
    """(choice, value, taken from a default) for every choice of the executed procedure."""
    defaults = {}
    for entry in env.get("defaults", []):
        dotted, _, value = entry.partition(" = ")
        defaults[_FIELD_OF.get(dotted, dotted.split(".")[-1])] = dotted
    rows = []
    for key, value in env.get("procedure_resolved", {}).items():
        shown = ", ".join(map(str, value)) if isinstance(value, list) else "-" if value is None else str(value)
        rows.append((key, shown, key in defaults))
    rows.append(("dtype", str(env.get("dtype", "")), "dtype" in defaults))
    return rows


def _pointing_cell(r) -> list[str]:
    """Where the map's maximum is: inside / outside the object box (grown by the tolerance)."""
    if r.localization is None:
        return ["-"]
    return ["inside" if r.localization["pointing"] else "outside"]


def _metric_cells(r) -> list[str]:
    c = r.comparison or {}
    return [f"{c[k]:.4g}" if k in c else "-" for k in ("max_abs", "pearson", "spearman", "top10_iou")]


def verify_text(report, color: bool = False) -> str:
    console, buf = string_console(color, None)
    env = report.environment
    console.print(Text(f"camlint verify {printable(report.spec)}", style="bold"))
    console.print(Text(f"  {env['arch']} ({env['weights']}) on {env['device']}, {env['dtype']}; "
                       f"torch {env['torch']}, timm {env['timm']}; attention: {env['attention_path']}"))
    console.print(Text(f"  procedure: {env['procedure']}"))
    console.print(Text("  resolved (* = camlint's default; state it to be sure): " + "; ".join(
        f"{k}={v}{'*' if d else ''}" for k, v, d in resolved_rows(env))), soft_wrap=True)
    compared = [r.comparison for r in report.results if r.comparison]
    if compared:
        console.print(f"  tolerance: {tolerance_text(compared[0]['tolerance'])}")
    table = Table(title_justify="left")
    boxed = report.localization is not None
    for col in ("input", "class", "max |diff|", "pearson", "spearman", "top-10% IoU") + (
            ("maximum",) if boxed else ()) + ("result",):
        table.add_column(col)
    for r in report.results:
        style = "red" if r.degenerate or r.reproduced is False else "green" if r.reproduced else ""
        table.add_row(Text(printable(r.input)), str(r.predicted if r.predicted is not None else ""), *_metric_cells(r),
                      *(_pointing_cell(r) if boxed else ()), Text(_verdict(r), style=style))
    console.print(table)
    for r in report.results:      # whole, never truncated: a paper prints these
        console.print(Text(f"  sketch {printable(r.input)}: final {r.fingerprint['final']}  raw {r.fingerprint['raw']}"),
                      soft_wrap=True)
    if report.localization is not None:
        console.print(Text(f"  {pointing_text(report.localization)}"), soft_wrap=True)
    _text_findings(console, report.findings)
    console.print(Text(_overall(report), style="bold"))
    return buf.getvalue()


def _text_findings(console, findings) -> None:
    # a declared file's name is the submission's: a map named with an OSC sequence reached the
    # terminal (the colours are ours, so the strings are cleaned, not the output)
    for f in map(printable_finding, findings):
        head = Text(f"  {f.file}:{f.line}:{f.col}  ")
        head.append(f"{f.severity:<7}", style=_STYLE[f.severity])
        head.append(f" {f.code} ", style="bold")
        head.append(f"{f.name}: ", style="dim")
        head.append(f.message)
        console.print(head, soft_wrap=True)


def verify_markdown(report) -> str:
    env = report.environment
    out = [f"### camlint verify: {code(report.spec)}", "", f"**Result: {_overall(report)}**", "",
           f"{env['arch']} ({cell(env['weights'])}) on {env['device']}, {env['dtype']}; torch {env['torch']}, "
           f"timm {env['timm']}, camlint {env['camlint']}; attention path: {env['attention_path']}.", ""]
    compared = [r.comparison for r in report.results if r.comparison]
    if compared:
        out += [f"Tolerance: {tolerance_text(compared[0]['tolerance'])}.", ""]
    boxed = report.localization is not None
    out += ["| input | class | max \\|diff\\| | pearson | spearman | top-10% IoU |" + (" maximum |" if boxed else "")
            + " result | sketch (final) |", "|---|---|---|---|---|---|" + ("---|" if boxed else "") + "---|---|"]
    for r in report.results:
        cls = r.predicted if r.predicted is not None else ""
        out.append(f"| {code(r.input, in_table=True)} | {cls} | " + " | ".join(_metric_cells(r) + (_pointing_cell(r) if boxed else []))
                   + f" | {_verdict(r)} | {code(r.fingerprint['final'], in_table=True)} |")
    if report.localization is not None:
        out += ["", pointing_text(report.localization)[0].upper() + pointing_text(report.localization)[1:] + "."]
    out += ["", "<details><summary>Resolved procedure (<b>*</b> = camlint's default, not stated in the spec)"
            "</summary>", "", "| choice | value |", "|---|---|"]
    mark = " **\\***"
    out += [f"| {k}{mark if d else ''} | {cell(v)} |" for k, v, d in resolved_rows(env)]
    out += ["", "</details>", ""]
    return "\n".join(out + findings(report.findings))


def sweep_text(r, color: bool = False) -> str:
    from camlint.verify.sweep_report import median_agreement

    console, buf = string_console(color, None)
    console.print(Text(f"camlint sweep {printable(r.spec)}", style="bold"))
    console.print(Text(f"  open keys: {', '.join(r.open_keys) or 'none'}; {len(r.variants)} procedures, "
                       f"{r.distinct} distinct maps; inputs: {printable(', '.join(r.inputs))}"))
    table = Table(title_justify="left")
    for col in ("#", "procedure (open choices)", "median Spearman to others") + (
            ("pointing", "energy in box") if r.localization else ()):
        table.add_column(col)
    for i, v in enumerate(r.variants):
        med = median_agreement(r, i)
        row = [str(i), Text(printable(v.label)), "constant map" if i in r.degenerate else "-" if med is None else f"{med:.2f}"]
        if r.localization:
            row += [f"{r.localization[i]['pointing_rate']:.2f}", f"{r.localization[i]['energy_in_box']:.2f}"]
        table.add_row(*row)
    console.print(table)
    for k, c in enumerate(r.clusters[:8]):
        console.print(f"  cluster {k + 1}: " + ", ".join(f"#{i}" for i in c))
    for label, why in r.dropped[:10]:
        console.print(Text(printable(f"  dropped {label}: {why}"), style="dim"))
    _text_findings(console, r.findings)
    console.print(Text(r.verdict, style="bold"))
    return buf.getvalue()


def sweep_markdown(r) -> str:
    from camlint.verify.sweep_report import median_agreement

    out = [f"### camlint sweep: {code(r.spec)}", "", f"**{cell(r.verdict)}**", "",
           f"Open keys: {', '.join(f'`{k}`' for k in r.open_keys) or 'none'}; {len(r.variants)} procedures, "
           f"{r.distinct} distinct maps on the first input; inputs: {', '.join(code(n) for n in r.inputs)}.",
           "", "| # | procedure (open choices) | median Spearman to others | cluster |"
           + (" pointing | energy in box |" if r.localization else ""),
           "|---|---|---|---|" + ("---|---|" if r.localization else "")]
    cluster_of = {i: k + 1 for k, c in enumerate(r.clusters) for i in c}
    for i, v in enumerate(r.variants):
        med = median_agreement(r, i)
        agree = "constant map" if i in r.degenerate else "-" if med is None else f"{med:.2f}"
        row = f"| {i} | {cell(v.label)} | {agree} | {cluster_of.get(i, '-')} |"
        if r.localization:
            row += f" {r.localization[i]['pointing_rate']:.2f} | {r.localization[i]['energy_in_box']:.2f} |"
        out.append(row)
    out.append("")
    if r.dropped:
        out += [f"Dropped ({len(r.dropped)}): " + "; ".join(f"{cell(lab)} ({cell(why)})"
                                                           for lab, why in r.dropped[:10]), ""]
    return "\n".join(out + findings(r.findings))
