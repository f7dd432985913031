"""Train the per-key line ranker (camlint/extract/line_ranker.json.gz) from labelled corpora.

    pip install -e '.[train]'
    python tools/train_line_ranker.py ../shared/corpus/dev fixtures/corpus/set*   # write the weights
    python tools/train_line_ranker.py ../shared/corpus/dev --cv-only                   # cross-validation only

For every checklist key, a logistic regression over the TF-IDF features of a line with its
neighbours and its section title (camlint.extract.linefeatures: the same code scores lines at
lint time). Positive lines: the labelled `line` and `also` lines of reported and partial items;
negative: every other non-blank line of the document. Deterministic: same corpus, same file
(the file records a hash of its inputs; tests/test_line_ranker.py checks it).

Cross-validation (folds of whole documents) prints, per key and overall, the share of reported
items whose labelled line the ranker puts first, and chooses each key's acceptance threshold
(the score above which a line is a candidate at lint time).
"""
from __future__ import annotations

import argparse
import bisect
import gzip
import hashlib
import json
import math
import sys
from collections import Counter
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from camlint.core.keys import KEYS  # noqa: E402
from camlint.extract import linefeatures as LF  # noqa: E402
from camlint.inputs.latex.project import load_project  # noqa: E402
from camlint.inputs.latex.structure import Chunk, scan_structure  # noqa: E402
from camlint.inputs.latex.units import DocumentText  # noqa: E402

OUT = ROOT / "camlint" / "extract" / "line_ranker.json.gz"
PARAMS = {"C": 4.0, "min_df": 2, "keep_per_key": 1500, "class_weight": "balanced", "folds": 4}
NEAR = 2       # lines: as score.py counts evidence


def line_titles(project, doc: DocumentText, pending: list):
    """display -> titles(line): the title of the section of the raw paragraph (or heading, code
    block) the line stands in, which is the section its text unit gets when it is parsed."""
    starts: dict[str, list[tuple[int, str]]] = {}
    for item in pending:
        f, start = (item.file, item.start) if isinstance(item, Chunk) else (item.file, item.src[0] if item.src else 0)
        section = doc.sections[item.section] if isinstance(item, Chunk) else item.section
        starts.setdefault(f.display, []).append((start, section.title or ""))
    out = {}
    for f in project.files:
        items = sorted(starts.get(f.display, []), key=lambda x: x[0])
        offsets = [s for s, _ in items]

        def titles(line: int, f=f, items=items, offsets=offsets) -> str:
            end = f.line_starts[line] if line < len(f.line_starts) else len(f.text)
            i = bisect.bisect_left(offsets, end) - 1
            return items[i][1] if i >= 0 else ""
        out[f.display] = titles
    return out


def document_lines(folder: Path) -> list[tuple[str, int, Counter]]:
    """(file, line, raw terms) of every non-blank line of one manuscript (all its files)."""
    project = load_project(folder / "main.tex", "main.tex")
    doc = DocumentText()
    pending = scan_structure(project, doc)
    titles = line_titles(project, doc, pending)
    out = []
    for f in project.files:
        lines = LF.FileLines(f.masked)
        for number in lines.numbers:
            out.append((f.display, number, LF.raw_terms(lines.context(number, titles[f.display](number)))))
    return out


def positives(record: dict) -> dict[str, set[tuple[str, int]]]:
    out = {}
    for key in KEYS:
        item = record["items"][key]
        wanted = set()
        if item["status"] in ("reported", "partial") and item.get("file") and item.get("line"):
            wanted.add((item["file"], item["line"]))
            for extra in item.get("also") or []:
                f, _, ln = str(extra).rpartition(":")
                if ln.isdigit():
                    wanted.add((f, int(ln)))
        out[key] = wanted
    return out


def fit(docs: list[dict]) -> dict:
    """Vocabulary, IDF and one pruned logistic regression per key, from the documents' lines."""
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    df: Counter = Counter()
    n = 0
    for d in docs:
        for _, _, terms in d["lines"]:
            df.update(terms.keys())
            n += 1
    idf = {t: round(w, 4) for t, w in      # rounded as shipped: training reads what linting reads
           LF.idf_of(Counter({t: c for t, c in df.items() if c >= PARAMS["min_df"]}), n).items()}
    rows = [LF.weigh(terms, idf) for d in docs for _, _, terms in d["lines"]]
    vec = DictVectorizer(sort=True)
    X = vec.fit_transform(rows).tocsr()
    X.indices, X.indptr = X.indices.astype("int32"), X.indptr.astype("int32")   # liblinear's index type
    names = vec.get_feature_names_out()
    model = {"idf": idf, "keys": {}}
    for key in KEYS:
        y = [int((f, ln) in d["pos"][key]) for d in docs for f, ln, _ in d["lines"]]
        if sum(y) == 0:
            continue
        lr = LogisticRegression(C=PARAMS["C"], class_weight=PARAMS["class_weight"], solver="liblinear",
                                max_iter=2000, random_state=0).fit(X, y)
        coef = lr.coef_[0]
        top = sorted(range(len(coef)), key=lambda i: (-abs(coef[i]), names[i]))[:PARAMS["keep_per_key"]]
        model["keys"][key] = {"bias": float(lr.intercept_[0]),
                              "weights": {str(names[i]): float(coef[i]) for i in sorted(top) if coef[i]}}
    return model


def score(model: dict, key: str, terms: Counter) -> float:
    from camlint.extract.ranker import dot
    return dot(model["keys"][key], LF.weigh(terms, model["idf"]))


def load_corpus(corpus: Path) -> list[dict]:
    labels = yaml.safe_load((corpus / "labels.yaml").read_text(encoding="utf-8"))
    docs = []
    for doc_id in sorted(labels):
        docs.append({"id": doc_id, "folder": corpus / doc_id, "record": labels[doc_id],
                     "pos": positives(labels[doc_id]), "lines": document_lines(corpus / doc_id)})
    return docs


def inputs_hash(corpora) -> str:
    """Hash of what the weights are made from: the corpora's files (in the order given), the
    featurisation, this script."""
    h = hashlib.sha256()
    corpora = [corpora] if isinstance(corpora, Path) else list(corpora)
    for corpus in corpora:
        for p in sorted(p for p in corpus.rglob("*") if p.is_file()):
            h.update(f"{corpus.name}/{p.relative_to(corpus).as_posix()}".encode() + b"\0" + p.read_bytes() + b"\0")
    for p in (ROOT / "camlint" / "extract" / "linefeatures.py", Path(__file__).resolve()):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    h.update(json.dumps(PARAMS, sort_keys=True).encode())
    return h.hexdigest()


def _hit(wanted: set, file: str, line: int, near: int) -> bool:
    return any(f == file and abs(ln - line) <= near for f, ln in wanted)


def traced_analysis(folder: Path, fold_model: dict) -> tuple[dict, dict]:
    """camlint's own statuses and first evidence lines for one manuscript with the ranker held
    back, and what the ranker (this fold's weights) would propose: key -> [(score, found, first
    evidence line)] for its best candidate sentences, where `found` says what the key's parsers
    read there (None, "vague" or "concrete")."""
    from camlint.extract import mentions as Mn
    from camlint.extract import ranker
    from camlint.extract.vocab import vocabulary
    from camlint.inputs.latex.analyze import analyze_latex

    trace = {}

    def record(key, sentences, scorer, threshold):
        ranked = sorted(((scorer.sentence_score(key, s), i, s) for i, s in enumerate(sentences)),
                        key=lambda x: (-x[0], x[1]))[:ranker.MAX_CANDIDATES]
        trace[key] = []
        for sc, _, s in ranked:
            found = Mn.find(vocabulary(), key, s)
            kind = None if not found else "vague" if all(m.vague for m in found) else "concrete"
            trace[key].append((sc, kind, found[0].position()[:2] if found else None))
        return []

    saved = ranker.model, ranker.candidates
    ranker.model, ranker.candidates = (lambda: fold_model), record
    try:
        a = analyze_latex(folder / "main.tex", "main.tex", use_cache=False)
    finally:
        ranker.model, ranker.candidates = saved
    vocab = {k: (str(a.statuses[k]), (a.evidence[k][0].file, a.evidence[k][0].line) if a.evidence[k] else None)
             for k in KEYS}
    return vocab, trace


def cross_validate(docs: list[dict], compare: bool) -> dict:
    """Leave-documents-out folds: top-1 figures per key, and the out-of-fold scores per key."""
    folds = PARAMS["folds"]
    tally: Counter = Counter()
    scored: dict[str, list[tuple[float, bool]]] = {k: [] for k in KEYS}
    for fold in range(folds):
        train = [d for i, d in enumerate(docs) if i % folds != fold]
        model = fit(train)
        for d in (d for i, d in enumerate(docs) if i % folds == fold):
            if compare:
                for k in model["keys"].values():
                    k.setdefault("threshold", 0.0)
                vocab, d["trace"] = traced_analysis(d["folder"], model)
                d["vocab"] = vocab
            for key, ranker in model["keys"].items():
                scores = [(score(model, key, terms), f, ln) for f, ln, terms in d["lines"]]
                scored[key].extend((s, (f, ln) in d["pos"][key]) for s, f, ln in scores)
                if d["record"]["items"][key]["status"] != "reported" or not d["record"]["uses_cam_on_transformer"]:
                    continue
                top = max(scores, key=lambda x: x[0])
                wanted = d["pos"][key]
                tally["items"] += 1
                tally[f"items:{key}"] += 1
                tally["ranker_exact"] += _hit(wanted, top[1], top[2], 0)
                tally["ranker_near"] += _hit(wanted, top[1], top[2], NEAR)
                tally[f"ranker_near:{key}"] += _hit(wanted, top[1], top[2], NEAR)
                if compare:
                    status, ev = vocab[key]
                    v_hit = ev is not None and status != "missing" and _hit(wanted, ev[0], ev[1], NEAR)
                    tally["vocab_near"] += v_hit
                    tally[f"vocab_near:{key}"] += v_hit
                    tally["combined_near"] += v_hit if status != "missing" else _hit(wanted, top[1], top[2], NEAR)
    return {"tally": tally, "scored": scored}


def ranker_finds(docs: list[dict], th: dict, delta: float) -> Counter:
    """Out of fold, what the ranker adds where the vocabulary says missing, at thresholds th + delta:
    finds of stated items (and whether the cited line is the labelled one), false finds."""
    out: Counter = Counter()
    for d in docs:
        for key, cands in d.get("trace", {}).items():
            label = d["record"]["items"][key]["status"]
            if d["vocab"][key][0] != "missing" or (key == "heads" and label == "not_applicable"):
                continue
            found = [(kind, at) for sc, kind, at in cands if kind and sc >= th[key] + delta]
            if not found:
                continue
            if label in ("reported", "partial"):
                out["found"] += 1
                out["found_line"] += _hit(d["pos"][key], *found[0][1], NEAR)
            else:
                out["false"] += 1
                out[f"false:{key}"] += 1
    return out


def thresholds(scored: dict[str, list[tuple[float, bool]]]) -> dict[str, float]:
    """Per key, the score above which a line counts as a candidate: the out-of-fold F1 optimum."""
    out = {}
    for key, pairs in scored.items():
        if not pairs:
            continue
        pairs = sorted(pairs, key=lambda x: -x[0])
        total = sum(p for _, p in pairs)
        best, tp = (0.0, 0.0), 0
        for k, (s, p) in enumerate(pairs, 1):
            tp += p
            f1 = 2 * tp / (k + total) if total else 0.0
            if f1 > best[0]:
                best = (f1, s)
        out[key] = round(best[1], 4)
    return out


def report(cv: dict, th: dict) -> None:
    t = cv["tally"]
    share = lambda a, b: f"{a / b:.3f}" if b else "-"  # noqa: E731
    print(f"{'key':15} {'items':>5} {'ranker@1':>9} {'vocab':>7} {'thresh':>7}")
    for key in KEYS:
        n = t[f"items:{key}"]
        print(f"{key:15} {n:5d} {share(t[f'ranker_near:{key}'], n):>9} {share(t[f'vocab_near:{key}'], n):>7} "
              f"{th.get(key, float('nan')):7.3f}")
    n = t["items"]
    print(f"reported items {n}: ranker first line exact {share(t['ranker_exact'], n)}, within {NEAR} lines "
          f"{share(t['ranker_near'], n)}; vocabulary {share(t['vocab_near'], n)}; "
          f"vocabulary, ranker where it says missing {share(t['combined_near'], n)}")


def report_finds(docs: list[dict], th: dict) -> None:
    stated = sum(1 for d in docs for k in d.get("trace", {}) if d["vocab"][k][0] == "missing"
                 and d["record"]["items"][k]["status"] in ("reported", "partial"))
    print(f"stated items the vocabulary misses (out of fold, ranked keys): {stated}")
    for delta in (0.0, -0.5, -1.0, -1.5, -2.0, -3.0):
        c = ranker_finds(docs, th, delta)
        falses = ", ".join(f"{k[6:]} {v}" for k, v in sorted(c.items()) if k.startswith("false:"))
        print(f"threshold {delta:+.1f}: found {c['found']} (line right {c['found_line']}), false finds {c['false']} {falses}")


def write(model: dict, th: dict, corpora: list[Path]) -> None:
    """Compact, byte-reproducible: rounded numbers, sorted keys. The whole IDF table ships (a
    line's norm counts every known feature); the weights only where a key uses them."""
    used = {t for k in model["keys"].values() for t in k["weights"]}
    data = {"format": 1, "trained_on": ",".join(c.name for c in corpora), "inputs_sha256": inputs_hash(corpora), "params": PARAMS,
            "idf": model["idf"],
            "keys": {k: {"bias": round(v["bias"], 5), "threshold": th[k],
                         "weights": {t: round(w, 5) for t, w in v["weights"].items()}}
                     for k, v in model["keys"].items()}}
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    with open(OUT, "wb") as fh, gzip.GzipFile(fileobj=fh, mode="wb", mtime=0, filename="") as gz:
        gz.write(raw)
    print(f"wrote {OUT.relative_to(ROOT)}: {OUT.stat().st_size} bytes, {len(model['idf'])} features, {len(used)} weighted")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("corpus", type=Path, nargs="+", help="labelled corpus folders (labels.yaml + documents)")
    ap.add_argument("--cv-only", action="store_true", help="print the cross-validation figures, write nothing")
    ap.add_argument("--compare", action="store_true", help="also score the vocabulary's evidence lines")
    args = ap.parse_args(argv)
    corpora = [c.resolve() for c in args.corpus]
    docs = [d for c in corpora for d in load_corpus(c)]
    cv = cross_validate(docs, args.compare)
    th = thresholds(cv["scored"])
    report(cv, th)
    if args.compare:
        report_finds(docs, th)
    if not args.cv_only:
        write(fit(docs), th, corpora)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
