"""The result types every front end produces and every output format reads."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from camlint.keys import KEYS, MISSING

SEVERITIES = ("error", "warning", "info")
SEVERITY_RANK = {"info": 1, "warning": 2, "error": 3}


@dataclass(frozen=True)
class Finding:
    code: str
    name: str
    item: str | None          # checklist key, or None for input problems
    severity: str
    message: str
    hint: str
    file: str
    line: int                 # 1-based
    col: int                  # 1-based
    section: str = ""         # enclosing section title: stable across revisions (fingerprints)
    suppressed: str | None = None   # the reason given by a suppression, when suppressed

    def to_json(self) -> dict:
        out = {k: getattr(self, k) for k in
               ("code", "name", "item", "severity", "message", "hint", "file", "line", "col")}
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

    def to_json(self) -> dict:
        return asdict(self)


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
