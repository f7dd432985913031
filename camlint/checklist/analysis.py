"""What the front ends know about one document; the input of every rule."""
from __future__ import annotations

from dataclasses import dataclass, field

from camlint.rules.findings import Evidence, Hit
from camlint.core.keys import KEYS


@dataclass
class SpecSource:
    """A camspec read from a supplement file or from a camspec block in a .tex file."""
    file: str                     # display path of the file holding it
    data: dict
    positions: object             # LoadedYAML (path -> line, col)
    line_offset: int = 0          # lines before the YAML starts (camspec environment in .tex)
    embedded: bool = False
    base_dir: object = None       # folder that relative paths in the spec resolve against

    def position(self, path: tuple) -> tuple[int, int]:
        line, col = self.positions.position(path)
        return line + self.line_offset, col


@dataclass
class Analysis:
    path: str                                   # display path of the document
    kind: str                                   # "latex" | "spec"
    uses_cam: bool = True
    values: dict = field(default_factory=dict)           # key -> camspec-shaped value
    statuses: dict = field(default_factory=dict)         # key -> status
    evidence: dict = field(default_factory=lambda: {k: [] for k in KEYS})
    problems: list[Hit] = field(default_factory=list)    # found by the loaders, each naming its rule
    specs: list[SpecSource] = field(default_factory=list)
    prose: object = None                        # camlint.extract.Extraction for LaTeX documents
    anchor: tuple[str, int, int] = ("", 1, 1)   # where document-level findings point
    sections: dict = field(default_factory=dict)  # (file, line) -> section title, for fingerprints
    suppressions: list = field(default_factory=list)  # camlint.rules.suppress.Directive
    segments: list = field(default_factory=list)  # reading order: (file, first_line, last_line)
    arch: object = None                         # camlint.core.architectures.ArchInfo when the model is known
    page_lines: list = field(default_factory=list)  # PDFs: the first (virtual) line of each page

    def order(self, file: str, line: int) -> int:
        """Position of (file, line) in reading order across included files (for disable regions)."""
        base = 0
        for seg_file, first, last in self.segments:
            if seg_file == file and first <= line <= last:
                return base + (line - first)
            base += last - first + 1
        return base + line  # not in any segment: after everything read

    def where(self, key: str) -> tuple[str, int, int]:
        """Where a finding about `key` points: its first evidence, else the document anchor."""
        ev: list[Evidence] = self.evidence.get(key) or []
        if ev:
            return ev[0].file, ev[0].line, ev[0].col
        return self.anchor
