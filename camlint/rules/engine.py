"""Run the rules over an Analysis and assemble the DocumentReport."""
from __future__ import annotations

import bisect
from dataclasses import replace

from camlint.checklist.analysis import Analysis
from camlint.core.severity import Severity
from camlint.rules.findings import ChecklistEntry, DocumentReport, Finding, cap_per_rule_and_file
from camlint.core.keys import KEYS, NOT_APPLICABLE
from camlint.core.presets import find_preset, preset_name
from camlint.rules.base import Hit, Rule
from camlint.rules.registry import RULES
from camlint.rules.suppress import apply as apply_suppressions


def _section_of(analysis: Analysis, file: str, line: int) -> str:
    """Title of the section enclosing (file, line): fingerprints survive moved lines."""
    starts = sorted(ln for (f, ln) in analysis.sections if f == file)
    i = bisect.bisect_right(starts, line) - 1
    return analysis.sections[(file, starts[i])] if i >= 0 else ""


def _hits_by_rule(analysis: Analysis, config) -> dict[Rule, list[Hit]]:
    """The hits of every enabled rule, less those a rule that fired supersedes.

    A superseding rule is run even when disabled: disabling the precise rule must not bring
    back the vague finding it replaces."""
    wanted = {r for r in RULES if config is None or config.enabled(r)}
    run = wanted | {r for r in RULES if wanted.intersection(r.supersedes)}
    hits = {rule: list(rule.hits(analysis)) for rule in RULES if rule in run}
    superseded = {old for rule, found in hits.items() if found for old in rule.supersedes}
    return {rule: found for rule, found in hits.items() if rule in wanted and rule not in superseded}


def findings_of(analysis: Analysis, config=None) -> list[Finding]:
    out: list[Finding] = []
    for rule, hits in _hits_by_rule(analysis, config).items():
        for hit in hits:
            if config is not None and config.ignored_in(rule, hit.file):
                continue
            severity = Severity(hit.severity or rule.severity)
            if config is not None:
                severity = config.severity_for(rule, severity)
            out.append(Finding(
                code=rule.code, name=rule.name, item=rule.item, severity=severity,
                message=hit.message, hint=hit.hint or rule.hint,
                file=hit.file, line=hit.line, col=hit.col,
                section=_section_of(analysis, hit.file, hit.line)))
    out.sort(key=lambda f: (f.file != analysis.path, f.file, f.line, f.col, f.code))
    return out


def report_of(analysis: Analysis, config=None) -> DocumentReport:
    rep = DocumentReport(path=analysis.path, kind=analysis.kind, uses_cam_on_transformer=analysis.uses_cam)
    for key in KEYS:
        status = analysis.statuses.get(key, NOT_APPLICABLE)
        if not analysis.uses_cam:
            rep.checklist[key] = ChecklistEntry(NOT_APPLICABLE, None, [])
            continue
        rep.checklist[key] = ChecklistEntry(status, analysis.values.get(key), [
            replace(e, section=e.section or _section_of(analysis, e.file, e.line))
            for e in analysis.evidence.get(key) or []])
    findings = findings_of(analysis, config)
    if config is not None:
        findings, suppressed = apply_suppressions(analysis, findings)
        rep.suppressed = suppressed
    rep.findings = cap_per_rule_and_file(findings)
    rep.spec = analysis.specs[0].data if analysis.specs else None
    rep.presets = presets_followed(analysis)
    return rep


def presets_followed(analysis: Analysis) -> list[str]:
    """Names of the published adaptations the document cites or names (prose) or sets (camspec)."""
    names = [p.name for p, _ in (getattr(analysis.prose, "presets", None) or [])]
    for src in analysis.specs:
        preset = find_preset(name) if (name := preset_name(src.data)) else None
        if preset is not None:
            names.append(preset.name)
    return list(dict.fromkeys(names))
