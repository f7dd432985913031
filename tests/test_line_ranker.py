"""The learned line ranker (camlint.extract.ranker): one featurisation for training and linting,
weights that the training script reproduces, and a first stage that finds nothing by itself."""
from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import pytest

from conftest import ROOT, doc_of, statuses, write_project

sys.path.insert(0, str(ROOT / "tools"))
import train_line_ranker as T  # noqa: E402

from camlint.extract import linefeatures as LF  # noqa: E402
from camlint.extract import ranker  # noqa: E402
from camlint.inputs.latex.analyze import analyze_latex  # noqa: E402

PREAMBLE = "\\documentclass{article}\n\\begin{document}\n"

# The grid, the token handling and the rectification are stated in a large setup section that
# never names the method: outside the CAM scope the vocabulary reads.
SETUP_PAPER = PREAMBLE + r"""\section{Introduction}
Dermatologists want to see which regions drive a classifier's decision.
\section{Model}
We fine-tune a DeiT-S/16 from the timm checkpoint \texttt{deit\_small\_patch16\_224.fb\_in1k} on our images.
\section{Explaining the classifier}
We apply Grad-CAM to the fine-tuned DeiT-S/16 and compare its maps with the lesion masks.
The maps are min-max normalised and bilinearly upsampled to the input resolution.
\section{Experimental setup}
Training runs for 30 epochs with AdamW and a batch size of 64 on a single GPU.

Crops are resized to 224 pixels and randomly flipped; the learning rate follows a cosine schedule.

We take the first LayerNorm of the eleventh block as the hooked module.
Once the class token is discarded, the 196 remaining patch tokens are laid out as a 14 x 14 grid.
Negative values of the weighted sum are set to zero before any normalisation.

Lesion masks were drawn by two dermatologists and merged by union.

Each experiment is repeated with three seeds.
\section{Results}
The maps agree with the masks in 71\% of the test images.
\end{document}
"""


def _without_ranker(monkeypatch, path: Path) -> dict:
    monkeypatch.setattr(ranker, "propose_mentions", lambda *a, **k: None)
    a = analyze_latex(path, "main.tex", use_cache=False)
    monkeypatch.undo()
    return {k: str(v) for k, v in a.statuses.items()}


def test_featurisation_is_the_same_in_training_and_at_lint_time(shared_dir):
    folder = shared_dir / "corpus" / "dev" / "b06_pedestrian"      # main.tex and two \input files
    trained = {(f, line): terms for f, line, terms in T.document_lines(folder)}
    a = analyze_latex(folder / "main.tex", "main.tex", use_cache=False)
    scorer = ranker.LineScorer()
    compared = 0
    for s in a.prose.sentences:
        line = s.line_col(len(s.text) - len(s.text.lstrip()))[0]
        linted = scorer.vector(s.unit.file, line, s.section.title or "")
        assert linted == LF.weigh(trained[(s.unit.file.display, line)], scorer.model["idf"]), (s.unit.file.display, line)
        compared += 1
    assert compared > 30 and {f for f, _ in trained} == {"main.tex", "sec/method.tex", "sec/experiments.tex"}


def test_the_shipped_weights_record_the_inputs_they_were_trained_from(shared_dir):
    data = json.loads(gzip.decompress((ROOT / "camlint" / "extract" / ranker.WEIGHTS).read_bytes()))
    # the dev corpus, the shipped sets, linefeatures.py and the training script as they are now:
    # retrain when one changes
    corpora = [shared_dir / "corpus" / "dev", *sorted((ROOT / "fixtures" / "corpus").glob("set*"))]
    assert data["trained_on"] == ",".join(c.name for c in corpora)
    assert data["inputs_sha256"] == T.inputs_hash(corpora), \
        "retrain: python tools/train_line_ranker.py ../shared/corpus/dev fixtures/corpus/set*"
    assert data["params"] == T.PARAMS and set(data["keys"]) == set(T.KEYS)
    assert (ROOT / "camlint" / "extract" / ranker.WEIGHTS).stat().st_size < 1_000_000
    assert all(set(k["weights"]) <= set(data["idf"]) for k in data["keys"].values())


def test_a_retrain_is_deterministic_and_ranks_the_stated_lines_first(shared_dir):
    pytest.importorskip("sklearn")
    corpus = shared_dir / "corpus" / "dev"
    docs = [d for d in T.load_corpus(corpus) if d["id"].startswith(("a0", "b0"))][:6]
    first, second = T.fit(docs[:5]), T.fit(docs[:5])
    assert first == second
    held_out = docs[5]
    lines = held_out["lines"]
    best = max(lines, key=lambda x: T.score(first, "reshape", x[2]))
    assert (best[0], best[1]) in held_out["pos"]["reshape"] or not held_out["pos"]["reshape"]


def test_the_ranker_finds_what_the_cam_scope_misses_and_the_parsers_read_it(tmp_path, monkeypatch):
    path = write_project(tmp_path, {"main.tex": SETUP_PAPER})
    before = _without_ranker(monkeypatch, path)
    found = ("layer", "location", "tokens", "reshape", "relu")   # layer: "the eleventh block", line 15
    assert {before[k] for k in found} == {"missing"}
    doc = doc_of(path)
    after = statuses(doc)
    assert {after[k] for k in found} == {"reported"}
    assert doc["checklist"]["reshape"]["value"] == {"grid": [14, 14]}
    assert doc["checklist"]["tokens"]["value"] == {"drop": ["cls"]}
    assert doc["checklist"]["location"]["value"] == "F1"        # the first LayerNorm: pre-attention
    assert [e["line"] for e in doc["checklist"]["location"]["evidence"]] == [15]
    assert [e["line"] for e in doc["checklist"]["reshape"]["evidence"]] == [16]
    assert [e["line"] for e in doc["checklist"]["relu"]["evidence"]] == [17]
    # nothing else changed: the ranker only adds where a parser reads a proposed line
    assert {k: v for k, v in after.items() if k not in found} == {k: v for k, v in before.items() if k not in found}


CNN_BASELINE_PAPER = PREAMBLE + r"""\section{Model}
We fine-tune a ViT-B/16 from the timm checkpoint \texttt{vit\_base\_patch16\_224.augreg\_in21k}.
\section{Explaining the classifier}
We apply Grad-CAM to the fine-tuned ViT-B/16 and compare its maps with the lesion masks.
\section{Baselines}
A ResNet-50 trained on the same crops serves as the convolutional baseline; Grad-CAM explains it too.

For the ResNet-50, the 7 x 7 activations of layer4 are weighted by their averaged gradients.

Negative values of the ResNet-50 map are set to zero and it is bilinearly upsampled.

Training of both networks runs for 30 epochs with AdamW.

Each experiment is repeated with three seeds.
\section{Results}
The maps agree with the masks in 71\% of the test images.
\end{document}
"""


def test_lines_about_a_cnn_baseline_are_proposed_but_fill_nothing(tmp_path):
    path = write_project(tmp_path, {"main.tex": CNN_BASELINE_PAPER})
    a = analyze_latex(path, "main.tex", use_cache=False)
    scorer = ranker.LineScorer()
    relu_th = scorer.model["keys"]["relu"]["threshold"]
    proposed = ranker.candidates("relu", a.prose.sentences, scorer, relu_th)
    assert any("ResNet-50 map" in s.text for s in proposed)        # the ranker alone would take it
    got = statuses(doc_of(path))
    assert got["relu"] == got["reshape"] == got["weighting"] == got["layer"] == "missing"


NEGATIVE_PAPER = PREAMBLE + r"""\section{Model}
We fine-tune a ViT-B/16 on aerial scenes.
\section{Attention rollout}
We explain the ViT with attention rollout over all twelve blocks.
The rollout of the class token is reshaped to a 14 x 14 grid and bilinearly upsampled.
Negative values are set to zero before the maps are min-max normalised.
\section{Results}
Rollout maps cover the buildings in most scenes.
\end{document}
"""


def test_a_paper_without_cam_on_a_transformer_stays_not_applicable(tmp_path):
    path = write_project(tmp_path, {"main.tex": NEGATIVE_PAPER})
    a = analyze_latex(path, "main.tex", use_cache=False)
    scorer = ranker.LineScorer()
    proposed = ranker.candidates("reshape", a.prose.sentences, scorer, scorer.model["keys"]["reshape"]["threshold"])
    assert any("reshaped to a 14" in s.text for s in proposed)
    doc = doc_of(path)
    assert doc["uses_cam_on_transformer"] is False
    assert set(statuses(doc).values()) == {"not_applicable"}
