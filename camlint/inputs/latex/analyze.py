"""The LaTeX front end: a manuscript (and its camspec blocks or supplement) -> Analysis."""
from __future__ import annotations

import re
from pathlib import Path

from camlint.checklist import judge
from camlint.core import schema
from camlint.checklist.analysis import Analysis, SpecSource
from camlint.core.architectures import architecture_of, architecture_of_weights, has_prefix_tokens
from camlint.inputs.cache import ParseCache
from camlint.core.errors import InputError
from camlint.extract import extract, relevant
from camlint.extract.freetext import structured
from camlint.rules.findings import Evidence
from camlint.core.keys import KEYS, MISSING, NOT_APPLICABLE, PARTIAL, REPORTED
from camlint.inputs.latex.bibliography import bibliography
from camlint.inputs.latex.project import Project, load_project
from camlint.inputs.latex.document import build_units
from camlint.inputs.latex.macros import collect_macros
from camlint.core.presets import apply_presets
from camlint.rules.base import Hit
from camlint.rules.input import INCLUDE_MISSING, INCLUDE_OUTSIDE_PROJECT, UNREADABLE_INPUT
from camlint.rules.spec import CAMSPEC_UNREADABLE
from camlint.safety.paths import LinkLoop, display_path, resolved_inside, unnameable
from camlint.inputs.camspec import ignores_of, source_from, spec_evidence, spec_preset
from camlint.rules.suppress import parse_comment
from camlint.safety.yamlsafe import YAMLInputError, load_file, loads

_RANK = {REPORTED: 3, PARTIAL: 2, MISSING: 1, NOT_APPLICABLE: 0}
_CAMSPEC_DIRECTIVE = re.compile(r"^\s*camspec\s*:\s*(\S+)\s*$")


def analyze_latex(path: Path, display: str, spec: Path | None = None, use_cache: bool = True) -> Analysis:
    try:
        project = load_project(path, display)
    except ValueError as exc:
        raise InputError(str(exc), display) from None
    cache = ParseCache(path, collect_macros(project)) if use_cache else None
    doc = build_units(project, relevant, cache)
    if cache is not None:
        cache.save()
    return analyze_units(project, doc, bibliography(project), display, spec)


def analyze_units(project: Project, doc, bib: dict, display: str, spec: Path | None = None,
                  kind: str = "latex") -> Analysis:
    """Text units (from any front end) -> Analysis: extraction, camspecs, suppressions, merge."""
    ex = extract(doc, bib)
    a = Analysis(path=display, kind=kind, uses_cam=ex.uses_cam, prose=ex)
    a.anchor = ex.anchor or (display, 1, 1)
    a.problems.extend(project.problems)
    a.problems.extend(doc.problems)
    a.segments = list(project.segments)
    a.sections = {(s.file, s.line): s.title for s in doc.sections if s.title}
    for f in project.files:
        for c in f.comments:
            d = parse_comment(c.text, f.display, c.line, c.col)
            if d is not None:
                a.suppressions.append(d)
    a.specs.extend(_embedded_specs(project, doc, a.problems))
    a.specs.extend(_linked_specs(project, a.problems))
    if spec is not None:
        a.specs.append(_supplement(spec))
    for src in a.specs:
        raw = src.positions.data   # as written: src.data has the keys of the wrong type dropped
        a.problems.extend(schema.validate(raw, src.positions, src.file) if not src.embedded
                          else _shifted(schema.validate(raw, src.positions, src.file), src.line_offset))
        a.suppressions.extend(ignores_of(src))
    _merge(a, ex, project)
    return a


def _shifted(problems: list[Hit], offset: int) -> list[Hit]:
    return [p.shifted(offset) for p in problems]


def _embedded_specs(project: Project, doc, problems: list) -> list[SpecSource]:
    out = []
    for u in doc.units:
        if not u.is_camspec:
            continue
        f = u.file
        text = f.text[u.raw.start:u.raw.end]
        begin_line, _ = f.line_col(u.raw.start)
        try:
            loaded = loads(text)
        except YAMLInputError as exc:
            problems.append(CAMSPEC_UNREADABLE.hit(f"camspec block is not readable YAML: {exc.message}",
                                                   f.display, begin_line + exc.line - 1, exc.col))
            continue
        out.append(source_from(loaded, f.display, line_offset=begin_line - 1, embedded=True,
                               base_dir=f.path.resolve().parent))
    return out


def _linked_specs(project: Project, problems: list) -> list[SpecSource]:
    """`% camspec: path/to/spec.yaml` comments, resolved inside the project folder; each file
    read once (a 400 KB spec named by 200 comments was parsed 200 times: 35 s)."""
    out, seen, resolved = [], set(), {}
    for f in project.files:
        for c in f.comments:
            m = _CAMSPEC_DIRECTIVE.match(c.text)
            if not m:
                continue
            try:
                target = _inside(f.path.parent / m.group(1), project.root, resolved)
            except LinkLoop:
                problems.append(UNREADABLE_INPUT.hit(f"camspec file {m.group(1)} is a link that loops; not read",
                                                     f.display, c.line, c.col))
                continue
            if target is None:
                why = unnameable(f.path.parent / m.group(1))    # placed nowhere: not "outside"
                problems.append(INCLUDE_MISSING.hit(f"camspec file {m.group(1)[:80]!r} {why}; not read", f.display,
                                                    c.line, c.col) if why else INCLUDE_OUTSIDE_PROJECT.hit(
                    f"camspec file {m.group(1)} is outside the project folder; not read", f.display, c.line, c.col))
                continue
            if target not in seen and not target.is_file():
                problems.append(INCLUDE_MISSING.hit(f"camspec file {m.group(1)} not found", f.display, c.line, c.col))
                continue
            if target in seen:
                continue
            seen.add(target)
            disp = str(Path(f.display).parent / m.group(1)) if Path(f.display).parent != Path(".") else m.group(1)
            try:
                out.append(source_from(load_file(target), disp, base_dir=target.parent))
            except YAMLInputError as exc:
                problems.append(CAMSPEC_UNREADABLE.hit(f"camspec file {m.group(1)} is not readable: {exc.message}",
                                                       disp, exc.line, exc.col))
    return out


def _inside(path: Path, root: Path, memo: dict) -> Path | None:
    """resolved_inside once per path: 40,000 `% camspec: x.yaml` comments resolved it 40,000 times."""
    if path not in memo:
        try:
            memo[path] = resolved_inside(path, root)
        except LinkLoop as exc:
            memo[path] = exc
    if isinstance(memo[path], LinkLoop):
        raise memo[path]
    return memo[path]


def _supplement(spec: Path) -> SpecSource:
    disp = display_path(spec)
    try:
        return source_from(load_file(spec), disp, base_dir=spec.resolve().parent)
    except YAMLInputError as exc:
        raise InputError(exc.message, disp, exc.line, exc.col) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", disp) from None


def _lines_of(src: SpecSource, project: Project) -> list[str]:
    f = project.by_display(src.file)
    if f is not None:
        return f.text.splitlines()
    try:
        return Path(src.file).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def _merge(a: Analysis, ex, project: Project) -> None:
    """Spec values and prose values, key by key: the better-reported one leads, both are evidence."""
    values = dict(ex.values)
    evidence = {k: list(ex.evidence.get(k) or []) for k in KEYS}
    for src in a.specs:
        spec_ev = spec_evidence(src, _lines_of(src, project))
        for key in KEYS:
            if key not in src.data:
                continue
            spec_value = src.data[key]
            s_status = judge.status_of(key, spec_value)
            if isinstance(spec_value, str) and s_status == PARTIAL:
                spec_value, s_status = _read_words(key, spec_value, s_status)
            p_status = judge.status_of(key, values.get(key))
            # an embedded camspec leads over the prose it sits in; a separate supplement only
            # leads where the manuscript says less
            leads = _RANK[s_status] >= _RANK[p_status] if src.embedded else _RANK[s_status] > _RANK[p_status]
            if s_status == NOT_APPLICABLE or leads:
                values[key] = spec_value
                evidence[key] = spec_ev.get(key, []) + evidence[key]
            else:
                evidence[key] = evidence[key] + spec_ev.get(key, [])
    _apply_presets(a, ex, values, evidence)
    a.values = values
    a.arch = _architecture(values, ex.input_size)
    model = values.get("model")
    names = [model.get("arch"), model.get("weights")] if isinstance(model, dict) else [model]
    a.statuses = judge.statuses(values, prefix_tokens=has_prefix_tokens(a.arch, names, ex.model_names),
                                spatial_map=ex.conv_stage)
    a.evidence = {k: _dedupe(evidence[k]) for k in KEYS}


def _architecture(values: dict, input_size: int | None):
    """The architecture, from the model name or, when that says less, from the weights' id
    (microsoft/beit-base-patch16-384 names the patch and the input size that "BEiT-B" does not)."""
    arch = architecture_of(values, input_size)
    model = values.get("model")
    weights = model.get("weights") if isinstance(model, dict) else None
    # "ViT-Base" with weights google/vit-base-patch32-224: the name leaves the patch to a default
    name = model.get("arch") if isinstance(model, dict) else None
    no_patch = isinstance(name, str) and not re.search(r"patch\s*\d|/\s*\d", name, re.I)
    if isinstance(weights, str) and (arch is None or not arch.size_known or no_patch):
        alt = architecture_of_weights(weights, input_size)
        if alt is not None and (arch is None or alt.size_known):
            return alt
    return arch


def _read_words(key: str, text: str, status: str) -> tuple[object, str]:
    """A spec value written in words: read with the prose vocabulary, keep it if it says more."""
    value = structured(key, text)
    if value is not None and _RANK[judge.status_of(key, value)] > _RANK[status]:
        return value, judge.status_of(key, value)
    return text, status


def _apply_presets(a: Analysis, ex, values: dict, evidence: dict) -> None:
    """A followed preset (cited in the prose, or `preset:` in a camspec) fixes its keys."""
    in_specs = [spec_preset(src, a.problems) for src in a.specs]
    apply_presets(list(ex.presets) + [p for p in in_specs if p], values, evidence)


def _dedupe(items: list[Evidence]) -> list[Evidence]:
    out, seen = [], set()
    for e in items:
        if (e.file, e.line) not in seen:
            seen.add((e.file, e.line))
            out.append(e)
    return out
