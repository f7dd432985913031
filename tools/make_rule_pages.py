"""Write rules/CAMxxx-name.md (one page per rule) and rules/README.md from the rule units.

Run after changing a rule; tests/test_rules.py fails while the pages are stale.
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from camlint.rules.explain import GROUPS, page_name, redirect_page, redirect_page_name, rule_page  # noqa: E402
from camlint.rules.registry import BY_CODE, REDIRECTS, RETIRED, RULES  # noqa: E402


def index() -> str:
    lines = ["# camlint rules", "",
             "One page per rule, generated from the rule units in `camlint/rules/` by",
             "`python tools/make_rule_pages.py` (a test keeps them in sync). `camlint explain CODE`",
             "prints the same page.", ""]
    for prefix, group in GROUPS.items():
        rules = [r for r in RULES if r.code.startswith(prefix)]
        if not rules:
            continue
        lines += [f"## {group} ({prefix}xx)", "", "| code | name | item | severity | what it checks |",
                  "|---|---|---|---|---|"]
        for r in rules:
            summary = r.summary.replace("|", "\\|")
            lines.append(f"| [{r.code}]({page_name(r)}) | {r.name} | {r.item or ''} | {r.severity} | {summary} |")
        lines.append("")
    if REDIRECTS:
        lines += ["## Redirected codes", "",
                  "Codes whose concept moved into another rule; selectors and suppressions naming them still "
                  "apply to the new rule, with a warning.", ""]
        lines += [f"- [{old}]({redirect_page_name(old)}) {name}: now [{new}]({page_name(BY_CODE[new])}) "
                  f"{BY_CODE[new].name}" for old, (name, new, _) in REDIRECTS.items()] + [""]
    if RETIRED:
        lines += ["## Retired codes (never reused)", ""] + [f"- {c}: {why}" for c, why in RETIRED.items()] + [""]
    return "\n".join(lines)


def pages() -> dict[str, str]:
    out = {page_name(r): rule_page(r) for r in RULES}
    out.update({redirect_page_name(old): redirect_page(old) for old in REDIRECTS})
    out["README.md"] = index()
    return out


if __name__ == "__main__":
    folder = ROOT / "rules"
    for old in folder.glob("CAM*.md"):
        old.unlink()
    for name, text in pages().items():
        (folder / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(RULES)} rule pages to rules/")
