"""The result types every front end produces and every output format reads."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from camlint.core.severity import SEVERITIES, SEVERITY_RANK, Severity  # noqa: F401  (re-exported)
from camlint.core.keys import KEYS, MISSING

if TYPE_CHECKING:   # annotations only
    from camlint.rules.base import Rule



@dataclass(frozen=True)
class Hit:
    """What a check (or a loader) yields; the engine adds the rule's metadata to make a Finding."""
    message: str
    file: str
    line: int
    col: int = 1
    hint: str | None = None          # overrides the rule's hint when more specific
    severity: Severity | None = None  # overrides the rule's default (e.g. partial -> warning)
    rule: Rule | None = None         # set by loaders (Rule.hit); a check's hits belong to its rule

    @property
    def code(self) -> str | None:
        return self.rule.code if self.rule is not None else None

    def shifted(self, lines: int) -> Hit:
        """The same hit `lines` further down (YAML read out of a camspec block in a .tex file)."""
        return replace(self, line=self.line + lines)


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    item: str | None          # checklist key, or None for input problems
    severity: Severity
    message: str
    hint: str
    file: str
    line: int                 # 1-based
    col: int                  # 1-based
    section: str = ""         # enclosing section title: stable across revisions (fingerprints)
    suppressed: str | None = None   # the reason given by a suppression, when suppressed
    page: int | None = None   # PDFs: the page; `line` is then the line on that page

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in
               ("code", "name", "item", "severity", "message", "hint", "file", "line", "col")}
        if self.page is not None:
            out["page"] = self.page
        if self.section:
            out["section"] = self.section
        if self.suppressed is not None:
            out["suppressed"] = self.suppressed
        return out


@dataclass(frozen=True)
class Evidence:
    file: str
    line: int
    col: int
    text: str
    section: str = field(default="", compare=False)   # enclosing section (or camspec key): for citations
    page: int | None = None   # PDFs: the page; `line` is then the line on that page

    def to_json(self) -> dict:
        out = {"file": self.file, "line": self.line, "col": self.col, "text": self.text}
        if self.page is not None:
            out["page"] = self.page
        return out


def location(item, file: str | None = None) -> str:
    """Where a finding or evidence points: `main.pdf page 3 line 12` in a PDF, else `main.tex:12`."""
    file = item.file if file is None else file
    if getattr(item, "page", None):
        return f"{file} page {item.page} line {item.line}".lstrip()
    return f"{file}:{item.line}" if file else f"line {item.line}"


@dataclass
class ChecklistEntry:
    status: str = MISSING
    value: object = None
    evidence: list[Evidence] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"status": self.status, "value": self.value,
                "evidence": [e.to_json() for e in self.evidence]}


@dataclass
class DocumentReport:
    path: str
    kind: str                                   # "latex" | "spec"
    uses_cam_on_transformer: bool = True
    checklist: dict[str, ChecklistEntry] = field(default_factory=lambda: {k: ChecklistEntry() for k in KEYS})
    findings: list[Finding] = field(default_factory=list)
    suppressed: list[Finding] = field(default_factory=list)
    spec: dict | None = None                    # the effective camspec (embedded or supplement)
    presets: list[str] = field(default_factory=list)   # published adaptations followed (camlint presets)

    def to_json(self) -> dict:
        out = {
            "path": self.path,
            "kind": self.kind,
            "uses_cam_on_transformer": self.uses_cam_on_transformer,
            "checklist": {k: self.checklist[k].to_json() for k in KEYS},
            "findings": [f.to_json() for f in self.findings],
        }
        if self.suppressed:
            out["suppressed"] = [f.to_json() for f in self.suppressed]
        return out

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in SEVERITIES}
        for f in self.findings:
            out[f.severity] += 1
        return out


MAX_PER_RULE_AND_FILE = 50


def cap_per_rule_and_file(findings, limit: int = MAX_PER_RULE_AND_FILE) -> list[Finding]:
    """At most `limit` findings of one rule in one file: past `limit - 1`, the rest become one
    finding, in the place of the first of them, saying how many there are (a file of 300k stray
    braces gives a short report, not 300k lines). One pass; memory bounded by what is kept."""
    out: list[Finding] = []
    seen: dict[tuple[str, str], int] = {}
    overflow: dict[tuple[str, str], list] = {}     # key -> [index in out, count]
    for f in findings:
        key = (f.code, f.file)
        n = seen[key] = seen.get(key, 0) + 1
        if n == limit:
            overflow[key] = [len(out), 1]
        elif n > limit:
            overflow[key][1] += 1
            continue
        out.append(f)
    for (code, file), (i, more) in overflow.items():
        if more > 1:
            out[i] = replace(out[i], message=f"{more} more {code} findings in {file} from here, not listed "
                                             f"(camlint lists at most {limit} per rule and file); the first: "
                                             f"{out[i].message}")
    return out
