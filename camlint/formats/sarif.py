"""SARIF 2.1.0 for GitHub code scanning and other SARIF consumers.

partialFingerprints are keyed on rule + checklist key + enclosing section (+ file), not on
line numbers: manuscript lines move between revisions, sections rarely do.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from urllib.parse import quote

from camlint import __version__
from camlint.rules.explain import GROUPS, rule_page
from camlint.rules.registry import BY_CODE, RULES

INFORMATION_URI = "https://github.com/camlint/camlint"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _uri(path: str) -> dict:
    p = path.replace(os.sep, "/")
    if os.path.isabs(p):
        return {"uri": Path(p).as_uri()}
    # a URI reference (SARIF 3.10.2): a file named `a b#1%.tex` or `c:x.tex` was written as is, so
    # '#' began a fragment and ':' a scheme; a name that is not UTF-8 keeps its own bytes
    return {"uri": quote(p.encode("utf-8", "surrogateescape"), safe="/"), "uriBaseId": "%SRCROOT%"}


def fingerprint(f, occurrence: int) -> str:
    key = f"{f.code}|{f.item or ''}|{f.section}|{f.file}|{occurrence}"
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def fingerprinted(reports, suppressed: bool = False):
    """(report, finding, fingerprint); findings alike in rule, item, section and file are told
    apart by their order of occurrence, not by their line. Suppressed findings are counted
    too (yielded only with `suppressed=True`), so suppressing one never renames another."""
    seen: dict = {}
    for rep in reports:
        every = sorted([*rep.findings, *rep.suppressed], key=lambda f: (f.file != rep.path, f.file, f.line, f.col))
        for f in every:
            base = (f.code, f.item, f.section, f.file)
            seen[base] = seen.get(base, -1) + 1
            if suppressed or f.suppressed is None:
                yield rep, f, fingerprint(f, seen[base])


def _rule_descriptor(rule) -> dict:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.rationale},
        "help": {"text": f"{rule.hint}", "markdown": rule_page(rule)},
        "helpUri": f"{INFORMATION_URI}/blob/main/rules/{rule.code}-{rule.name}.md",
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"tags": [GROUPS[rule.code[:4]]] + ([rule.item] if rule.item else [])},
    }


def _result(rep, f, print_: str, index: dict) -> dict:
    result = {
        "ruleId": f.code,
        "ruleIndex": index[f.code],
        "level": LEVEL[f.severity],
        "message": {"text": f"{f.message}{f' (page {f.page} line {f.line})' if f.page else ''}. Hint: {f.hint}"},
        "locations": [{"physicalLocation": {
            "artifactLocation": _uri(f.file),
            "region": {"startLine": max(f.line, 1), "startColumn": max(f.col, 1)},
        }}],
        "partialFingerprints": {"camlintFindingHash/v1": print_},
        "properties": {"checklistItem": f.item, "document": rep.path, "section": f.section,
                       **({"page": f.page} if f.page else {})},   # PDFs: startLine counts on this page
    }
    if f.suppressed is not None:   # listed, as code-scanning consumers expect, and marked suppressed
        result["suppressions"] = [{"kind": "inSource", "status": "accepted", "justification": f.suppressed}]
    return result


def payload(reports, errors=()) -> dict:
    index = {r.code: i for i, r in enumerate(RULES)}
    results = []
    for rep, f, print_ in fingerprinted(reports, suppressed=True):
        results.append(_result(rep, f, print_, index))

    notifications = [{"level": "error", "message": {"text": e.message},
                      "locations": [{"physicalLocation": {"artifactLocation": _uri(e.file),
                                                          **({"region": {"startLine": e.line, "startColumn": max(e.col, 1)}}
                                                             if e.line else {})}}]}
                     for e in errors if e.file]
    run = {
        "tool": {"driver": {"name": "camlint", "version": __version__, "semanticVersion": __version__,
                            "informationUri": INFORMATION_URI,
                            "rules": [_rule_descriptor(r) for r in RULES]}},
        "results": results,
        "columnKind": "unicodeCodePoints",
        "originalUriBaseIds": {"%SRCROOT%": {"uri": Path.cwd().as_uri() + "/"}},
        "invocations": [{"executionSuccessful": not errors,
                         "toolExecutionNotifications": notifications}],
    }
    return {"$schema": "https://json.schemastore.org/sarif-2.1.0.json", "version": "2.1.0", "runs": [run]}


def render(reports, errors=(), **_) -> str:
    assert all(f.code in BY_CODE for r in reports for f in r.findings)
    return json.dumps(payload(reports, errors), indent=2) + "\n"
