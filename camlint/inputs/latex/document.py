"""A LaTeX project -> the document model (DocumentText), in two passes.

Pass 1 (camlint.inputs.latex.structure) finds sections, headings, code blocks and raw paragraph chunks
without parsing anything. Only paragraphs that may matter are then parsed (the relevance, a cheap
regex over the raw chunk): a full pylatexenc parse of a 1 MB project takes seconds, most of it
on text that says nothing about CAM.
"""
from __future__ import annotations

import bisect
import re
from typing import Protocol

from camlint.inputs.latex.convert import convert_chunk
from camlint.inputs.latex.macros import collect_macros, uses_of
from camlint.inputs.latex.project import Project
from camlint.inputs.latex.structural import structural_problems
from camlint.inputs.latex.structure import Chunk, scan_structure
from camlint.inputs.latex.units import DocumentText, RawSize, Section, Unit


class Relevance(Protocol):
    """Which raw paragraphs are parsed (camlint.extract's relevance is the one checks use)."""

    def __call__(self, chunk: str, in_cam_section: bool) -> bool:
        """Parse this raw paragraph?"""

    def cam(self, raw: str) -> bool:
        """The raw text (a section title) mentions CAM."""

    def widen(self, sections: list[Section], cam_sections: set[int]) -> set[int]:
        """The sections parsed in full, given those that mention CAM."""

    def flags(self, raw: str) -> dict[str, list[int]]:
        """name -> offsets where the raw text says something that flags its section."""

    def sizes(self, raw: str) -> list[tuple[int, int, int]]:
        """(offset, priority, side) of statements of the network's input size."""


class ParseAll:
    """A relevance that parses every paragraph (tests, tools)."""

    def __call__(self, chunk: str, in_cam_section: bool) -> bool:
        return True

    def cam(self, raw: str) -> bool:
        return False

    def widen(self, sections: list[Section], cam_sections: set[int]) -> set[int]:
        return cam_sections

    def flags(self, raw: str) -> dict[str, list[int]]:
        return {}

    def sizes(self, raw: str) -> list[tuple[int, int, int]]:
        return []


def build_units(project: Project, relevant: Relevance, cache=None) -> DocumentText:
    """Units of every paragraph that may matter.

    `relevant(raw_chunk, in_cam_section)` decides which paragraphs are parsed: all paragraphs of
    a section that mentions CAM, elsewhere only those that name a model, a library, a method.
    """
    doc = DocumentText()
    doc.macros = cache.macros if cache is not None and getattr(cache, "macros", None) is not None \
        else collect_macros(project)
    for f in project.files:
        doc.problems.extend(structural_problems(f))
    pending = scan_structure(project, doc)        # pass 1: sections and raw chunks, nothing parsed
    read_raw_flags(project, pending, relevant, doc)
    cam = relevant.widen(doc.sections, cam_sections(doc, relevant) | _cam_headings(pending, relevant))
    says = uses_of(doc.macros, lambda body: relevant(body, False))   # \\hires for HiResCAM
    pointed = _pointed_labels(pending, cam)
    for item in pending:                          # pass 2: parse what matters
        if isinstance(item, Unit):
            doc.units.append(item)
            continue
        f, start = item.file, item.start
        chunk = f.masked[start:item.end]
        to_float = bool(pointed) and bool(set(_LABEL.findall(chunk)) & pointed)
        if relevant(chunk, item.section in cam) or (says is not None and says.search(chunk)) or to_float:
            section = doc.sections[item.section]
            if cache is not None:
                units = cache.units(f, start, chunk, section, doc.macros, convert_chunk)
            else:
                units = convert_chunk(chunk, f, section, start, doc.macros)
            doc.units.extend(units)
            if to_float:
                doc.pointed_floats.update((u.file.display, u.section.index, u.float_env) for u in units if u.float_env)
    return doc


_REF = re.compile(r"\\(?:[cC]|auto|name|v)?ref\*?\s*\{([^{}]*)\}")
_LABEL = re.compile(r"\\label\s*\{([^{}]*)\}")


def _pointed_labels(pending: list, cam: set[int]) -> set[str]:
    """Labels that paragraphs of the sections about CAM refer to (\\ref{tab:settings}): the float
    that carries one describes the CAM settings wherever it stands."""
    keys: set[str] = set()
    for item in pending:
        if isinstance(item, Chunk) and item.section in cam:
            for group in _REF.findall(item.file.masked[item.start:item.end]):
                keys.update(k.strip() for k in group.split(",") if k.strip())
    return keys


def _cam_headings(pending: list, relevant: Relevance) -> set[int]:
    """A run-in heading that names the method (\\paragraph{Gradient-weighted attention.}) makes
    its section one about CAM: the paragraphs under it give the settings."""
    return {u.section.index for u in pending if isinstance(u, Unit) and u.kind == "heading" and relevant.cam(u.text)}


def cam_sections(doc: DocumentText, relevant: Relevance) -> set[int]:
    """Sections whose raw text or title mentions CAM (read_raw_flags first)."""
    found = set(doc.raw_flags.get("cam", ()))
    return found | {s.index for s in doc.sections if s.title and relevant.cam(s.title)}


def read_raw_flags(project: Project, pending: list, relevant: Relevance, doc: DocumentText) -> None:
    """Which sections mention CAM or a transformer, and state an input size, in their raw text
    (one regex pass per file; only the text of `pending`'s chunks counts)."""
    chunks: dict[str, list[Chunk]] = {}
    macro_flags = {name: uses_of(doc.macros, lambda body, n=name: bool(relevant.flags(body).get(n)))
                   for name in relevant.flags("")}
    for item in pending:
        if isinstance(item, Chunk):
            chunks.setdefault(item.file.display, []).append(item)
    for f in project.files:
        spans = chunks.get(f.display, [])
        if not spans:
            continue
        starts = [c.start for c in spans]

        def section_at(pos: int) -> int | None:
            i = bisect.bisect_right(starts, pos) - 1
            return spans[i].section if i >= 0 and spans[i].start <= pos < spans[i].end else None

        for name, positions in _flags(f.masked, relevant, macro_flags).items():
            for pos in positions:
                sec = section_at(pos)
                if sec is not None:
                    doc.raw_flags.setdefault(name, set()).add(sec)
        for pos, prio, size in relevant.sizes(f.masked):
            sec = section_at(pos)
            if sec is not None:
                doc.raw_sizes.append(RawSize(prio, size, sec, pos))


def _flags(raw: str, relevant: Relevance, macro_flags: dict) -> dict[str, list[int]]:
    """The relevance's flags of raw text, plus where it uses a macro that says what a flag looks
    for (a section that writes \\hires for HiResCAM mentions CAM)."""
    found = relevant.flags(raw)
    for name, rx in macro_flags.items():
        if rx is not None:
            found[name] = list(found.get(name, ())) + [m.start() for m in rx.finditer(raw)]
    return found
