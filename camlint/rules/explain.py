"""`camlint rules` and `camlint explain`, and the rule pages under rules/: all from the rule units."""
from __future__ import annotations

import json

from camlint.rules.registry import BY_CODE, BY_NAME, REDIRECTS, RULES, redirect

GROUPS = {
    "CAM0": "Input and suppressions", "CAM1": "Completeness", "CAM2": "Consistency",
    "CAM3": "Spec and schema", "CAM4": "Citation and justification",
    "CAM5": "Reproducibility artifacts", "CAM6": "Verification",
}


def find_rule(code_or_name: str):
    return BY_CODE.get(code_or_name.upper()) or BY_NAME.get(code_or_name.lower())


def rules_json() -> str:
    rows = [{"code": r.code, "name": r.name, "item": r.item, "severity": r.severity,
             "group": GROUPS[r.code[:4]], "summary": r.summary} for r in RULES]
    return json.dumps(rows, indent=2) + "\n"


def rules_table(color: bool = False) -> str:
    from camlint.formats.text import string_console
    from rich.table import Table
    from rich.text import Text

    console, buf = string_console(color, None)
    table = Table(title="camlint rules", title_justify="left")
    for col in ("code", "name", "item", "severity", "summary"):
        table.add_column(col, overflow="fold")
    for r in RULES:
        table.add_row(*(Text(x) for x in (r.code, r.name, r.item or "", r.severity, r.summary)))
    console.print(table)
    return buf.getvalue()


def _block(text: str, lang: str) -> str:
    return f"```{lang}\n{text.rstrip()}\n```"


def rule_page(rule) -> str:
    """The Markdown page of a rule (rules/CAMxxx-name.md and `camlint explain`)."""
    lang = "yaml" if rule.example_format == "yaml" else "latex"
    item = f"`{rule.item}`" if rule.item else "none (document level)"
    replaces = [f"Where it fires, it replaces {', '.join(f'{r.code} ({r.name})' for r in rule.supersedes)}, "
                "which says the same less precisely.", ""] if rule.supersedes else []
    return "\n".join([
        f"# {rule.code} {rule.name}",
        "",
        f"Group: {GROUPS[rule.code[:4]]}. Checklist item: {item}. Default severity: {rule.severity}.",
        "",
        *replaces,
        "## What it checks",
        "",
        rule.summary,
        "",
        "## Why it matters",
        "",
        rule.rationale,
        "",
        "## Bad",
        "",
        _block(rule.bad, lang),
        "",
        "## Good",
        "",
        _block(rule.good, lang),
        "",
        "## How to fix",
        "",
        rule.hint,
        "",
        "## Suppress",
        "",
        _suppress_text(rule),
        "",
    ])


def _suppress_text(rule) -> str:
    from camlint.rules.verify import ALSO_FROM_VERIFY, VERIFY_ONLY

    verified = ("Reported by `camlint verify` or `camlint sweep` from re-executing the spec, at the spec line "
                "it concerns; fix the spec, the artifact or the tolerance (the exit status of verify is 1 "
                "for an error-level finding).")
    if rule.code in VERIFY_ONLY:
        return verified
    lint = (f"`% camlint: disable-next-line={rule.code} -- reason` before the line, "
            f"`% camlint: disable={rule.code} -- reason` for the rest of the document, or "
            f"`x-camlint-ignore: [\"{rule.code} -- reason\"]` in a camspec file.")
    if rule.code in ALSO_FROM_VERIFY:
        return f"What `camlint check` predicts: {lint}\n\nWhat `camlint verify` observes: {verified}"
    return lint


def explain_rule(rule) -> str:
    return rule_page(rule)


def redirect_page(old: str) -> str:
    """The page of a code that moved into another rule (rules/CAM207-... keeps old links alive)."""
    name, new, why = REDIRECTS[old]
    rule = BY_CODE[new]
    return "\n".join([
        f"# {old} {name}: now {rule.code} {rule.name}",
        "",
        f"{old} ({name}) is now [{rule.code} {rule.name}]({page_name(rule)}): {why}.",
        "",
        f"A selector (`select`, `ignore`, `--select`, `per-file-ignores`, `severity`) or a suppression "
        f"that names {old} or {name} applies to {rule.code}, with a warning (CAM010 for a suppression); "
        f"write {rule.code}.",
        "",
    ])


def explain_code(code: str) -> str | None:
    """`camlint explain CODE`: the rule's page; for a redirected code, where it went and the new page."""
    rule = find_rule(code)
    if rule is not None:
        return explain_rule(rule)
    moved = redirect(code)
    if moved is None:
        return None
    return redirect_page(moved[0]) + "\n" + explain_rule(moved[1])


def page_name(rule) -> str:
    return f"{rule.code}-{rule.name}.md"


def redirect_page_name(old: str) -> str:
    return f"{old}-{REDIRECTS[old][0]}.md"
