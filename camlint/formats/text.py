"""Terminal output (rich): findings grouped by file with the source line, then the checklist."""
from __future__ import annotations

import io
import os
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from camlint.core.display import short_value
from camlint.safety.safeio import read_regular
from camlint.safety.sanitize import printable
from camlint.rules.findings import location
from camlint.core.keys import KEYS

_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}
_STATUS_STYLE = {"reported": "green", "partial": "yellow", "missing": "red", "not_applicable": "dim"}


@lru_cache(maxsize=256)
def _lines(path: str) -> tuple[str, ...]:
    """The lines of a reported file (regular files only: never a FIFO or device)."""
    from camlint.inputs.latex.source import MAX_FILE_BYTES, decode

    try:
        return tuple(decode(read_regular(Path(path), MAX_FILE_BYTES)).splitlines())
    except (OSError, ValueError):
        return ()


def _source_line(path: str, line: int) -> str | None:
    lines = _lines(path)
    return printable(lines[line - 1]) if 0 < line <= len(lines) else None


def _around(line: str, col: int, width: int = 100) -> str:
    """The source line, cut to `width` characters around the reported column."""
    if len(line) <= width:
        return line
    start = max(0, min(col - 1 - width // 3, len(line) - width))
    return ("…" if start else "") + line[start:start + width] + ("…" if start + width < len(line) else "")


def string_console(color: bool | None, width: int | None) -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    width = width or int(os.environ.get("COLUMNS", 0) or 110)
    console = Console(file=buf, force_terminal=bool(color), no_color=not color, width=width,
                      highlight=False, soft_wrap=False, emoji=False)
    return console, buf


def render(reports, errors=(), *, color: bool | None = None, width: int | None = None, quiet: bool = False,
           **_) -> str:
    """`quiet`: the findings only (no checklist tables, summary or totals)."""
    console, buf = string_console(color, width)
    for rep in reports:
        _render_report(console, rep, quiet)
    if quiet:
        return buf.getvalue()
    if len(reports) > 1:
        console.print(summary_table(reports))
        from camlint.inputs.kinds import describe

        console.print(Text("Read by:"))
        for r in reports:
            console.print(Text(f"  {describe(r.kind)}: {r.path}"))
    totals = defaultdict(int)
    for rep in reports:
        for f in rep.findings:
            totals[f.severity] += 1
    parts = [f"{totals[s]} {s}{'s' if totals[s] != 1 else ''}" for s in ("error", "warning", "info") if totals[s]]
    docs = f"{len(reports)} document{'s' if len(reports) != 1 else ''}"
    console.print(Text(f"{docs} checked: " + (", ".join(parts) if parts else "no findings"),
                       style="bold"))
    return buf.getvalue()


def _render_report(console: Console, rep, quiet: bool = False) -> None:
    if quiet and not rep.findings:
        return
    console.print(Text(rep.path, style="bold underline"))
    if not rep.uses_cam_on_transformer and not quiet:
        console.print("  no CAM-style method applied to a transformer was found: nothing to report")
    by_file = defaultdict(list)
    for f in rep.findings:
        by_file[f.file].append(f)
    for file, findings in by_file.items():
        shown = None
        for f in findings:
            head = Text(f"  {location(f)}  " if f.page else f"  {f.file}:{f.line}:{f.col}  ")
            head.append(f"{f.severity:<7}", style=_STYLE[f.severity])
            head.append(f" {f.code} ", style="bold")
            head.append(f"{f.name}: ", style="dim")
            head.append(f.message)
            console.print(head)
            src = None if f.page else _source_line(f.file, f.line)   # no source lines in a PDF
            if src is not None and src.strip() and shown != (f.file, f.line):
                console.print(Text(f"      {f.line:>4} | {_around(src.rstrip(), f.col)}", style="dim"))
                shown = (f.file, f.line)
            console.print(Text(f"           hint: {f.hint}", style="italic"))
    for f in rep.suppressed:
        console.print(Text(f"  {f.file}:{f.line}:{f.col}  suppressed {f.code}: {f.suppressed or 'no reason given'}",
                           style="dim"))
    if rep.uses_cam_on_transformer and not quiet:
        console.print(checklist_table(rep))
    console.print()


def summary_table(reports) -> Table:
    """Many documents: how many report each key."""
    cam = [r for r in reports if r.uses_cam_on_transformer]
    table = Table(title=f"Summary: {len(reports)} documents, {len(cam)} use CAM on a transformer",
                  title_justify="left")
    table.add_column("key")
    for status in ("reported", "partial", "missing", "not_applicable"):
        table.add_column(status, justify="right")
    for key in KEYS:
        counts = [sum(1 for r in cam if r.checklist[key].status == s)
                  for s in ("reported", "partial", "missing", "not_applicable")]
        table.add_row(key, *(str(c) for c in counts))
    return table


def _where(e, doc_path: str) -> str:
    from camlint.checklist.filled import where_stated

    return location(e, "") if e.file == doc_path else where_stated(e, doc_path)


def checklist_table(rep) -> Table:
    table = Table(title=f"Checklist: {rep.path}", title_justify="left", expand=False)
    table.add_column("key")
    table.add_column("status")
    table.add_column("value", overflow="fold", max_width=60)
    table.add_column("where stated", overflow="fold")
    for key in KEYS:
        entry = rep.checklist[key]
        where = ", ".join(_where(e, rep.path) for e in entry.evidence[:2])
        table.add_row(key, Text(entry.status, style=_STATUS_STYLE[entry.status]),
                      Text(short_value(entry.value)), Text(where))
    return table
