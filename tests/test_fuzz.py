"""Property tests: the loader, the extractor and the YAML reader never crash on any input, and
10,000 generated manuscripts go through the whole lint (check_file: loader, extractor, judge,
every rule, suppressions) and every output format without a crash.

Seeds are fixed (FUZZ_SEED, printed on failure by hypothesis as @seed(...)): a CI failure is
reproduced by running the same test. CAMLINT_FUZZ_DOCS sets the number of whole-lint documents
(default 10,000: about 100 s on a 2-core machine, run in two worker processes)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from camlint.extract import extract
from camlint.inputs.latex.project import load_project
from camlint.inputs.latex.document import ParseAll, build_units
from camlint.safety.yamlsafe import YAMLInputError, loads
from conftest import FIXTURES

TOKENS = ["\\", "{", "}", "%", "$", "$$", "&", "\\\\", "~", "\n", "\n\n", " ", "[", "]", "#", "^", "_",
          "\\begin{itemize}", "\\end{itemize}", "\\begin{table}", "\\begin{tabular}{ll}", "\\end{tabular}",
          "\\section{Saliency maps}", "\\subsection{x}", "\\item", "\\caption{", "\\footnote{",
          "\\texttt{", "\\verb|", "\\iffalse", "\\fi", "\\begin{comment}", "\\end{comment}",
          "\\begin{camspec}", "\\end{camspec}", "\\input{", "\\newcommand{\\x}{", "\\x", "\\frac{",
          "\\cite{a,b}", "\\times", "14", "×", "Grad-CAM", "ViT-B/16", "last block", "norm1",
          "[CLS]", "logit", "predicted class", "bilinear", "min-max", "ReLU", "\\appendix", "é", "\t",
          "layer: {block: 11}\n", "blocks[-1].norm1"]

latex_text = st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=8)), max_size=60).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(latex_text, latex_text)
def test_loader_and_extractor_never_crash(main_text, other_text):
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        (root / "main.tex").write_text(main_text + "\\input{other}", encoding="utf-8", errors="replace")
        (root / "other.tex").write_text(other_text, encoding="utf-8", errors="replace")
        try:
            project = load_project(root / "main.tex", "main.tex")
        except ValueError:      # a main file that is binary: the documented input error
            return
        doc = build_units(project, ParseAll())
        for unit in doc.units:
            for pos in (0, len(unit.text) // 2, max(len(unit.text) - 1, 0)):
                line, col = unit.line_col(pos)
                assert 1 <= line <= unit.file.n_lines and col >= 1
        result = extract(doc)
        assert isinstance(result.uses_cam, bool)
        for evs in result.evidence.values():
            for ev in evs or []:
                assert ev.line >= 1 and ev.col >= 1


yaml_text = st.lists(st.sampled_from(["a:", " b", "\n", "  ", "- ", "[", "]", "{", "}", ",", "&x ", "*x",
                                      "!!python/object:os.system", "!tag ", "'", '"', "#", ":", "---\n",
                                      "1", "no", "null", "~", "? ", "|", ">", "\t"]), max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(yaml_text)
def test_yaml_reader_only_raises_its_own_error(text):
    try:
        loaded = loads(text)
    except YAMLInputError as exc:
        assert exc.line >= 1 and exc.col >= 1
    else:
        for line, col in loaded.positions.values():
            assert line >= 1 and col >= 1


# -- the whole lint: check_file and every output format --------------------------------------

FUZZ_SEED = 20261203
FUZZ_DOCS = int(os.environ.get("CAMLINT_FUZZ_DOCS", "10000"))
BATCH = 50          # documents per hypothesis example (rendered together, checked in a worker)
TEXT_EVERY = 5      # the rich text format costs ~50 ms a report: every 5th batch renders it


def _manuscript_lines() -> list[str]:
    """Real manuscript lines from the fixtures: sentences, commands, tables, camspec blocks."""
    lines = []
    for path in sorted((FIXTURES / "manuscripts").glob("*/*.tex")):
        text = path.read_bytes().decode("utf-8", errors="replace")
        lines += [ln + "\n" for ln in text.splitlines() if ln.strip()]
    return lines[::3][:400]


FRAGMENTS = _manuscript_lines() + [
    "\\documentclass{article}\n", "\\begin{document}\n", "\\end{document}\n", "\\section{Saliency maps}\n",
    "\\section[", "\\section{", "\\def\\a{", "\\begin{x", "\\DefineVerbatimEnvironment{", "\\begin{verbatim}",
    "\\end{verbatim}", "\\iffalse", "\\fi", "\\verb|", "% camlint: disable=ALL\n",
    "% camlint: disable-next-line=CAM103 -- reason\n", "% camlint: enable=ALL\n", "% camspec: s.yaml\n",
    "\\begin{camspec}\nmodel: 5\nlayer: 2.5\n\\end{camspec}\n",
    "\\begin{camspec}\ncamspec: 1\nmethod: gradcam\nlayer: {block: 11, location: norm1}\n\\end{camspec}\n",
    "\\begin{camspec}\nmodel: &a [*a]\n\\end{camspec}\n", "\\input{other}", "\\input{../x}", "\\input{/etc/passwd}",
    "{", "}", "}}}}", "{{{{", "\\", "&", "$", "%", "#", "^", "_", "~", "\n", "\n\n", "\x1b[31m", "\x1b]0;t\x07",
    "\x9b", "\x85", "\u202e", "\t", "\r\n", "é", "ß", "×", "—", "🙂", "\ufeff", "[CLS]", "ViT-B/16", "Grad-CAM",
    "the last block", "norm1", "logit of the predicted class", "min-max", "ReLU", "bilinear",
]
_SHM = Path("/dev/shm") if Path("/dev/shm").is_dir() else None

# every code point class a hostile file may hold: ASCII, LaTeX specials, C0/C1 controls, accents,
# CJK, emoji, bidi overrides, lone surrogates (written as invalid UTF-8)
_ALPHABET = ([chr(c) for c in range(32, 127)] + [chr(c) for c in range(0, 32)] + [chr(c) for c in range(0x7f, 0xa0)]
             + list("éüßñçÅ×—–…€") + ["漢", "字", "🙂", "\u202e", "\u2066", "\ufeff", "\ud800", "\udfff"])


def compose_document(number: int) -> str:
    """A document made from `number`: up to 16 pieces, each a real manuscript line, a LaTeX
    construct or a few random characters (one hypothesis draw per document keeps 10,000 cheap;
    the number reproduces the document)."""
    import random

    rng = random.Random(number)
    pieces = []
    for _ in range(rng.randrange(17)):
        if rng.random() < 0.75:
            pieces.append(rng.choice(FRAGMENTS))
        else:
            pieces.append("".join(rng.choice(_ALPHABET) for _ in range(rng.randrange(1, 7))))
    return "".join(pieces)


fuzz_document = st.integers(min_value=0, max_value=2**63).map(compose_document)


def _check_batch(job: tuple[int, list[str]]) -> int:
    """Lint every document of a batch and render the reports in every format (in a worker)."""
    import json

    from camlint.check import check_file
    from camlint.core.errors import InputError
    from camlint.formats import FORMATS, HUMAN_READABLE, render
    from camlint.rules.registry import BY_CODE

    number, docs = job
    os.environ["CAMLINT_NO_CACHE"] = "1"     # in the worker only: the parse cache is tested apart
    reports = []
    with tempfile.TemporaryDirectory(dir=_SHM) as d:
        root = Path(d)
        (root / "other.tex").write_text("Grad-CAM on our ViT at the last block.\n{")
        (root / "s.yaml").write_text("camspec: 1\nmodel: 5\nheads: [1]\n")
        for i, text in enumerate(docs):
            main = root / f"doc{i}.tex"
            main.write_bytes(text.encode("utf-8", "surrogatepass"))
            try:
                rep = check_file(main)
            except InputError as exc:      # e.g. NUL bytes: the documented input error
                assert exc.message and exc.file
                continue
            for f in rep.findings:
                assert f.code in BY_CODE and f.line >= 1 and f.col >= 1, f
            reports.append(rep)
        for fmt in FORMATS:
            if fmt == "text" and number % TEXT_EVERY:
                continue
            out = render(fmt, reports, [])
            if fmt in HUMAN_READABLE:
                assert not any(c in out for c in ("\x1b", "\x9b", "\x07")), fmt
            elif reports:
                json.loads(out)
    return len(docs)


_RUN = {"docs": 0, "batches": 0, "pool": None}


@pytest.fixture(scope="module")
def workers():
    """Two worker processes for the module; at the end, the number of documents is checked."""
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=2) as pool:
        _RUN["pool"] = pool
        yield pool
    print(f"\nwhole-lint fuzzing: {_RUN['docs']} documents, seed {FUZZ_SEED}")
    assert _RUN["docs"] >= FUZZ_DOCS


def _batches(docs: list[str]) -> list:
    half = len(docs) // 2
    _RUN["batches"] += 2
    return [(_RUN["batches"] - 1, docs[:half]), (_RUN["batches"], docs[half:])]


@seed(FUZZ_SEED)
@settings(max_examples=max(1, FUZZ_DOCS // (2 * BATCH)), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.lists(fuzz_document, min_size=2 * BATCH, max_size=2 * BATCH))
def test_whole_lint_and_every_format_never_crash(workers, docs):
    """2 x BATCH documents per example, checked in two worker processes."""
    done = sum(workers.map(_check_batch, _batches(docs)))
    assert done == len(docs)
    _RUN["docs"] += done
