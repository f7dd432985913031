"""The document model every non-LaTeX front end fills: the LaTeX front end's own types.

A front end lays its text out as lines of one virtual source file (a PDF's lines in reading
order, a Markdown file's own lines), then declares headings, text units and code blocks on
those lines. The result is a `Project` and a `DocumentText` exactly like the LaTeX front end's,
so the same extraction, rules and judge read it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from camlint.inputs.references import citations
from camlint.inputs.latex.document import cam_sections, read_raw_flags
from camlint.inputs.latex.project import Project
from camlint.inputs.latex.source import RawBlock, SourceFile
from camlint.inputs.latex.structure import Chunk, Outline
from camlint.inputs.latex.units import DocumentText, Section, Unit, UnitBuilder


@dataclass
class Piece:
    """A run of a unit's text on one line of the virtual source file."""
    line: int      # 1-based
    column: int    # 0-based
    text: str


class ModelBuilder:
    def __init__(self, path: Path | None, display: str, lines: list[str]):
        text = "\n".join(lines)
        starts, pos = [], 0
        for ln in lines:
            starts.append(pos)
            pos += len(ln) + 1
        self.file = SourceFile(path, display, text, masked=text, line_starts=starts or [0])
        self.doc = DocumentText()
        self.outline = Outline(self.doc.sections, display)
        self.bibliography: dict[str, str] = {}     # citation key -> reference text, where the input has a list
        self._chunks: list[Chunk] = []

    @property
    def section(self) -> Section:
        """The section in effect."""
        return self.outline.current

    def offset(self, line: int, col: int = 0) -> int:
        """Offset of (1-based line, 0-based column) in the virtual text."""
        return self.file.line_starts[line - 1] + col

    def heading(self, line: int, title: str, level: int, appendix: bool = False) -> None:
        """A heading: levels 1-3 open a section (as \\section..\\subsubsection do), deeper ones do not."""
        self.outline.heading(title, level, self.file.display, line, appendix)
        self.unit("heading", [Piece(line, 0, title)])

    def abstract(self, line: int) -> None:
        self.outline.abstract(self.file.display, line)

    def unit(self, kind: str, pieces: list[Piece], float_env: str = "", joins=None) -> None:
        """pieces in order; joins[i]: what goes before piece i (default a space)."""
        unit = Unit(kind, self.file, self.section, float_env)
        b = UnitBuilder(unit)
        for i, piece in enumerate(pieces):
            start = self.offset(piece.line, piece.column)
            sep = joins[i] if joins is not None else (" " if i else "")
            if sep:
                b.add(sep, start)
            b.add(piece.text, start, exact=True)
        b.finish()
        if not unit.text.strip():
            return
        unit.cites.extend(citations(unit.text))
        self.doc.units.append(unit)
        first, last = pieces[0].line, pieces[-1].line
        self._chunks.append(Chunk(self.file, self.offset(first), self.offset(last) + len(self.file.line_text(last)),
                                  self.section.index))

    def code(self, first: int, last: int, env: str = "") -> None:
        """Lines first..last (1-based, inclusive) are a code block; env "camspec" makes it a camspec."""
        start = self.offset(first)
        end = self.offset(last) + len(self.file.line_text(last))
        raw = RawBlock(env or "verbatim", start, start, end, True)
        unit = Unit("code", self.file, self.section, raw=raw)
        b = UnitBuilder(unit)
        b.add(self.file.text[start:end], start, exact=True)
        b.finish()
        self.doc.units.append(unit)

    def finish(self, root: Path) -> tuple[Project, DocumentText]:
        """The project and the document, with only the units that may matter (as build_units keeps)."""
        project = Project(root, self.file, files=[self.file],
                          segments=[(self.file.display, 1, max(self.file.n_lines, 1))])
        from camlint.extract import relevant

        read_raw_flags(project, self._chunks, relevant, self.doc)
        cam = cam_sections(self.doc, relevant)
        self.doc.units = [u for u in self.doc.units if u.kind in ("heading", "code")
                          or relevant(u.text, u.section.index in cam)]
        return project, self.doc

