"""`camlint audit`: per-paper records, the audit's figures, manifest, truth agreement and the reports."""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from conftest import FIXTURES, check_json, invoke, statuses, write_project

MANUSCRIPTS = FIXTURES / "manuscripts"
CNN_BIB = ("\\begin{thebibliography}{1}\\bibitem{selvaraju2017grad} R. R. Selvaraju et al. Grad-CAM: Visual "
           "explanations from deep networks via gradient-based localization. ICCV 2017.\\end{thebibliography}")
CHEFER_BIB = ("\\begin{thebibliography}{1}\\bibitem{chefer2021} H. Chefer, S. Gur, L. Wolf. Transformer "
              "interpretability beyond attention visualization. CVPR 2021.\\end{thebibliography}")


def paper(body: str) -> str:
    return ("\\documentclass{article}\n\\begin{document}\n\\section{Method}\n" + body + "\n\\end{document}\n")


def three_kinds(root: Path) -> Path:
    """A venue folder: CNN citation only, library only, a published adaptation, and a CNN-only paper."""
    write_project(root / "p1_cnn", {"main.tex": paper(
        "We fine-tune a ViT-B/16 and visualise Grad-CAM~\\cite{selvaraju2017grad} heatmaps of the "
        "transformer for each test image.\n" + CNN_BIB)})
    write_project(root / "p2_lib", {"main.tex": paper(
        "We fine-tune a ViT-B/16 and visualise Grad-CAM heatmaps of the transformer, computed with the "
        "pytorch-grad-cam library.")})
    write_project(root / "p3_chefer", {"main.tex": paper(
        "We fine-tune a ViT-B/16 and compute gradient-weighted attention maps of the transformer "
        "following Chefer et al.~\\cite{chefer2021}.\n" + CHEFER_BIB)})
    write_project(root / "p4_resnet", {"main.tex": paper(
        "We train a ResNet-50 and show Grad-CAM heatmaps of its last convolutional layer.")})
    return root


def audit(*args, cwd=None):
    return invoke("audit", *args, cwd=cwd)


def store(out: Path) -> dict[str, dict]:
    return {r["id"]: r for r in map(json.loads, (out / "papers.jsonl").read_text().splitlines())}


def test_one_record_per_paper_read_like_check(tmp_path):
    out = tmp_path / "out"
    result = audit(MANUSCRIPTS, "--out", out, "--jobs", "2")
    assert result.exit_code == 0, result.output
    recs = store(out)
    assert set(recs) == {p.name for p in MANUSCRIPTS.iterdir() if p.is_dir()}
    for pid, rec in recs.items():
        assert rec["outcome"] == "ok" and rec["front_end"] == "latex"
        assert set(rec) >= {"path", "front_end", "uses_cam_on_transformer", "status", "citation", "presets",
                            "findings"}
        _, data = check_json(MANUSCRIPTS / pid / "main.tex")
        doc = data["documents"][0]
        assert rec["uses_cam_on_transformer"] == doc["uses_cam_on_transformer"]
        assert rec["status"] == statuses(doc), pid
    # a paper folder with a supplement and included chapters is one paper, read through main.tex
    assert recs["m07_camspec_link"]["document"].endswith("main.tex")
    assert recs["m10_import"]["document"].endswith("main.tex")
    assert recs["m06_cnn_only"]["citation"] is None and recs["m06_cnn_only"]["uses_cam_on_transformer"] is False
    assert "papers use CAM" not in result.output and "reporting rate per key" in result.output


def test_citation_groups_adaptations_and_findings_by_code(tmp_path):
    out = tmp_path / "out"
    assert audit(three_kinds(tmp_path / "venue"), "--out", out).exit_code == 0
    recs = store(out)
    assert recs["p1_cnn"]["citation"] == "cnn_only" and recs["p1_cnn"]["findings"]["CAM401"] == 1
    assert recs["p2_lib"]["citation"] == "library_only" and recs["p2_lib"]["findings"]["CAM402"] == 1
    assert recs["p3_chefer"]["citation"] == "justified"
    assert recs["p3_chefer"]["presets"] == ["chefer2021-attn-gradcam"]
    assert recs["p4_resnet"]["uses_cam_on_transformer"] is False and recs["p4_resnet"]["citation"] is None
    summary = json.loads((out / "summary.json").read_text())
    assert summary["papers"] == 4 and summary["uses_cam_on_transformer"] == 3
    assert {c: v["papers"] for c, v in summary["citation"].items()} == \
        {"cnn_only": 1, "library_only": 1, "justified": 1, "unexplained": 0}
    assert summary["citation"]["cnn_only"]["share"] == pytest.approx(1 / 3, abs=1e-4)
    assert summary["distinct_adaptations"] == 1
    rates = summary["key_rates"]["method"]
    assert sum(v for v in rates.values()) == pytest.approx(1.0, abs=1e-3)
    reported = sum(r["status"]["method"] == "reported" for r in recs.values() if r["uses_cam_on_transformer"])
    assert rates["reported"] == pytest.approx(reported / 3, abs=1e-4)


def test_manifest_columns_venue_year_breakdown_and_unreadable_rows(tmp_path):
    venue = three_kinds(tmp_path / "venue")
    manifest = tmp_path / "papers.csv"
    manifest.write_text(
        "path,id,venue,year,title,notes\n"
        "venue/p1_cnn,A,CVF,2023,\"Birds, bees and ViTs\",x\n"
        "venue/p2_lib/main.tex,B,CVF,2024,Second,\n"
        "venue/p3_chefer,C,NeurIPS,2024,Third,\n"
        "venue/p4_resnet,D,NeurIPS,2023,Fourth,\n"
        "venue/missing,E,NeurIPS,2024,Gone,\n", encoding="utf-8")
    out = tmp_path / "out"
    result = audit("--manifest", manifest, "--out", out)
    assert result.exit_code == 0, result.output
    recs = store(out)
    assert recs["A"]["venue"] == "CVF" and recs["A"]["year"] == 2023 and recs["A"]["title"] == "Birds, bees and ViTs"
    assert recs["B"]["citation"] == "library_only" and recs["C"]["presets"] == ["chefer2021-attn-gradcam"]
    assert recs["E"]["outcome"] == "unreadable" and "missing" in recs["E"]["error"]
    by = json.loads((out / "summary.json").read_text())["by"]
    assert by["venue"]["CVF"]["uses_cam_on_transformer"] == 2
    assert by["venue"]["CVF"]["citation"]["cnn_only"]["share"] == 0.5
    assert by["venue"]["NeurIPS"]["papers"] == 3 and by["venue"]["NeurIPS"]["outcomes"]["unreadable"] == 1
    assert by["year"]["2024"]["citation"]["justified"]["papers"] == 1
    md = (out / "summary.md").read_text()
    assert "### Reporting by venue" in md and "| NeurIPS |" in md and "Papers not audited" in md
    rates = list(csv.DictReader((out / "key_rates.csv").open()))
    assert {(r["grouping"], r["group"]) for r in rates} >= {("all", "all"), ("venue", "CVF"), ("year", "2023")}


@pytest.mark.parametrize("text, message, line", [
    ("file,venue\na,b\n", "needs a `path` column", 1),
    ("path,id\nx,A\ny,A\n", "id 'A' already used on line 2", 3),
    ("path,id\n,A\n", "empty path", 2),
])
def test_bad_manifest_is_an_input_error_at_its_line(tmp_path, text, message, line):
    manifest = tmp_path / "m.csv"
    manifest.write_text(text, encoding="utf-8")
    result = invoke("audit", "--manifest", manifest, "--out", tmp_path / "out")
    assert result.exit_code == 2
    assert f"m.csv:{line}:" in result.output and message in result.output


def test_paths_or_manifest_and_no_silent_overwrite(tmp_path):
    assert audit("--out", tmp_path / "o").exit_code == 2
    venue = three_kinds(tmp_path / "venue")
    assert audit(venue, "--out", tmp_path / "o").exit_code == 0
    again = audit(venue, "--out", tmp_path / "o")
    assert again.exit_code == 2 and "--resume" in again.output
    assert audit(venue, "--out", tmp_path / "o", "--force").exit_code == 0


def _labels(recs: dict, flip: tuple[str, str]) -> str:
    """Labels in the corpus format equal to the records, except one key of one paper."""
    out = {}
    for pid, rec in recs.items():
        items = {k: {"status": s, "value": None, "file": None, "line": None} for k, s in rec["status"].items()}
        out[pid] = {"uses_cam_on_transformer": rec["uses_cam_on_transformer"], "items": items,
                    "inconsistencies": []}
    pid, key = flip
    old = out[pid]["items"][key]["status"]
    out[pid]["items"][key]["status"] = "missing" if old != "missing" else "reported"
    return json.dumps(out)


def test_truth_agreement_per_key_and_rates_side_by_side(tmp_path):
    venue = three_kinds(tmp_path / "venue")
    assert audit(venue, "--out", tmp_path / "first").exit_code == 0
    recs = store(tmp_path / "first")
    labels = tmp_path / "labels.yaml"
    labels.write_text(_labels(recs, ("p1_cnn", "method")), encoding="utf-8")
    result = audit(venue, "--out", tmp_path / "out", "--truth", labels)
    assert result.exit_code == 0, result.output
    truth = json.loads((tmp_path / "out" / "summary.json").read_text())["truth"]
    assert truth["matched"] == 4 and truth["uses_cam_accuracy"] == 1.0
    assert truth["keys"]["method"]["status_accuracy"] == 0.75
    assert all(v["status_accuracy"] == 1.0 for k, v in truth["keys"].items() if k != "method")
    m = truth["keys"]["method"]
    assert m["camlint"]["reported"] - m["labels"]["reported"] == pytest.approx(1 / 3, abs=1e-3)
    assert truth["max_reported_gap_points"] == pytest.approx(33.3, abs=0.1)
    assert re.search(r"method\s+75\.0%\s+100\.0% / 66\.7%", result.output)


def test_bad_truth_file_stops_before_the_run(tmp_path):
    labels = tmp_path / "labels.yaml"
    labels.write_text("a:\n  uses_cam_on_transformer: maybe\n  items: {}\n", encoding="utf-8")
    result = audit(three_kinds(tmp_path / "venue"), "--out", tmp_path / "out", "--truth", labels)
    assert result.exit_code == 2 and "labels.yaml:1:" in result.output
    assert not (tmp_path / "out" / "papers.jsonl").exists()


def test_dev_corpus_agreement(shared_dir, tmp_path):
    """The measured figure of the issue: camlint's audit of the labelled corpus next to the labels."""
    dev = shared_dir / "corpus" / "dev"
    result = audit(dev, "--truth", dev / "labels.yaml", "--out", tmp_path / "out")
    assert result.exit_code == 0, result.output
    truth = json.loads((tmp_path / "out" / "summary.json").read_text())["truth"]
    assert truth["matched"] == truth["labelled"] and truth["no_record"] == []
    assert truth["status_accuracy"] >= 0.85 and truth["uses_cam_accuracy"] >= 0.9
    assert "largest gap in a key's reporting rate" in result.output


def test_html_is_self_contained_sortable_and_escapes(tmp_path):
    pytest.importorskip("matplotlib")
    venue = three_kinds(tmp_path / "venue")
    manifest = tmp_path / "papers.csv"
    manifest.write_text("path,id,venue,year,title\nvenue/p1_cnn,<b>x</b>,V1,2024,<script>alert(1)</script>\n"
                        "venue/p3_chefer,ok,V2,2025,Fine\n", encoding="utf-8")
    assert audit("--manifest", manifest, "--out", tmp_path / "out").exit_code == 0
    page = (tmp_path / "out" / "report.html").read_text()
    assert page.count("<svg") >= 3                       # key statuses, venue and year heatmaps...
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert not re.search(r"<(?:link|iframe|object|embed)\b|@import|url\((?!#)", page, re.I)
    for value in re.findall(r"\b(?:src|href)\s*=\s*[\"']?([^\"'\s>]*)", page, re.I):
        assert value.startswith(("#", "data:")), value       # in-page anchors and inline images only
    without_namespaces = re.sub(r"xmlns(?::\w+)?=\"[^\"]*\"", "", page)   # names, never fetched
    assert "http://" not in without_namespaces and "https://" not in without_namespaces
    anchors = set(re.findall(r"href='#(p\d+)'", page))
    assert len(anchors) == 2 and all(f"id='{a}'" in page for a in anchors)
    assert "table class=sortable" in page and "addEventListener('click'" in page


def test_csv_rows_and_formula_cells(tmp_path):
    manifest = tmp_path / "papers.csv"
    three_kinds(tmp_path / "venue")
    manifest.write_text("path,id,title\nvenue/p1_cnn,one,=HYPERLINK(\"x\")\nvenue/p4_resnet,two,plain\n",
                        encoding="utf-8")
    assert audit("--manifest", manifest, "--out", tmp_path / "out").exit_code == 0
    rows = list(csv.DictReader((tmp_path / "out" / "papers.csv").open(encoding="utf-8")))
    assert [r["id"] for r in rows] == ["one", "two"]
    assert rows[0]["title"].startswith("'=") and rows[0]["citation"] == "cnn_only"
    assert "CAM401:1" in rows[0]["findings"] and rows[1]["uses_cam_on_transformer"] == "no"


def test_flat_folder_of_manuscripts_is_one_paper_each_and_main_folders_are_one(tmp_path):
    flat = tmp_path / "flat"
    write_project(flat, {"a.tex": paper("We show Grad-CAM maps of a ViT-B/16."),
                         "b.tex": paper("We show Grad-CAM maps of a ResNet-50."),
                         "sub/main.tex": paper("We show Grad-CAM maps of a DeiT-S.\\subfile{parts/x}"),
                         "sub/parts/x.tex": "\\documentclass[../main.tex]{subfiles}\n\\begin{document}\nMore.\n"
                                            "\\end{document}\n"})
    out = tmp_path / "out"
    assert audit(flat, "--out", out).exit_code == 0
    recs = store(out)
    assert set(recs) == {"a.tex", "b.tex", "sub"}
    assert recs["sub"]["document"].endswith("sub/main.tex")


def test_hostile_inputs_are_recorded_never_fatal(tmp_path):
    import shutil

    venue = tmp_path / "venue"
    venue.mkdir()
    for name in ("cycle_a.tex", "cycle_b.tex", "cp1252.tex", "passwd.tex", "camspec_tag.tex"):
        shutil.copy(FIXTURES / "hostile" / name, venue / name)
    # in a folder a YAML file is a camspec only when it says so
    (venue / "python_tag.yaml").write_text("camspec: 1\n" + (FIXTURES / "hostile" / "python_tag.yaml").read_text())
    out = tmp_path / "out"
    result = audit(venue, "--out", out)
    assert result.exit_code == 0, result.output
    recs = store(out)
    assert recs["python_tag.yaml"]["outcome"] == "unreadable"
    assert re.match(r".*python_tag\.yaml:2:\d+: ", recs["python_tag.yaml"]["error"])
    assert {k: r["outcome"] for k, r in recs.items() if k != "python_tag.yaml"} == \
        {k: "ok" for k in ("cycle_a.tex", "cp1252.tex", "passwd.tex", "camspec_tag.tex")}
