"""Issue 11 item 6 and issue 13 "reports for a review": verify and sweep speak in registered
CAM6xx findings at spec lines, and every format (text, json, markdown, sarif, github) carries them."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

torch = pytest.importorskip("torch")
pytest.importorskip("timm")

from camlint.formats.verification import render_sweep, render_verify  # noqa: E402
from camlint.rules.verify import VERIFY_ONLY  # noqa: E402
from conftest import FIXTURES, SHARED, run_cli  # noqa: E402

SPEC = FIXTURES / "verify" / "vit-tiny-random.yaml"
FORMATS = ("text", "json", "markdown", "sarif", "github")


def _line_of(spec: Path, text: str) -> int:
    return next(i for i, line in enumerate(spec.read_text().splitlines(), 1) if text in line)


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """The fixture at the last block's F6 (a constant map) with disc's artifact swapped for square's."""
    folder = tmp_path_factory.mktemp("verify") / "verify"
    shutil.copytree(FIXTURES / "verify", folder)
    spec = folder / SPEC.name
    text = spec.read_text().replace("location: F1", "location: F6").replace(
        "method: {name: gradcam, preset: pytorch-grad-cam-vit}", "method: gradcam")
    spec.write_text(text.replace("{input: disc, map: maps/disc.png}", "{input: disc, map: maps/square.png}"))
    from camlint.verify.run import verify

    return spec, verify(spec, device="cpu", force=True)


def test_verify_findings_are_registered_rules_at_spec_lines(broken):
    spec, report = broken
    by_code = {f.code: f for f in report.findings}
    assert {"CAM601", "CAM602"} <= set(by_code) and report.reproduced is False
    disc = next(f for f in report.findings if f.code == "CAM601" and "for input disc" in f.message)
    assert disc.line == _line_of(spec, "{input: disc, map: maps/square.png}")
    assert by_code["CAM602"].line == _line_of(spec, "location: F6")
    assert "patch-token gradients at F3-F6 are exactly zero" in by_code["CAM602"].message
    assert all(f.file == by_code["CAM601"].file and f.file.endswith(SPEC.name) for f in report.findings)
    # --force: check predicted the degenerate map at the same line; verify's observation replaces it
    assert report.lint is not None and any(f.code == "CAM602" for f in report.lint.findings)
    degenerate = [f for f in report.findings if f.code == "CAM602"]
    assert len(degenerate) == len(report.results) and all("F3-F6 are exactly zero" in f.message for f in degenerate)


def test_every_format_carries_the_verify_findings(broken):
    _, report = broken
    out = {fmt: render_verify(fmt, report) for fmt in FORMATS}
    for fmt, text in out.items():
        assert "CAM601" in text and "CAM602" in text, fmt
    data = json.loads(out["json"])
    assert data["reproduced"] is False and {f["code"] for f in data["findings"]} >= {"CAM601", "CAM602"}
    assert any(f["code"] == "CAM601" for r in data["results"] for f in r["findings"])
    assert "::error file=" in out["github"] and "title=CAM601 map-not-reproduced" in out["github"]
    md = out["markdown"]
    assert "**Result: NOT reproduced**" in md and "| `disc` |" in md
    for r in report.results:          # sketches whole, never cut
        assert r.fingerprint["final"] in md and r.fingerprint["final"] in out["text"]
    _validate_sarif(json.loads(out["sarif"]))


def _validate_sarif(sarif: dict) -> None:
    schema_path = SHARED / "data" / "sarif-schema-2.1.0.json"
    if not schema_path.exists():
        pytest.skip("../shared/data/sarif-schema-2.1.0.json is not available here (CI has it)")
    import jsonschema

    schema = json.loads(schema_path.read_text())
    assert list(jsonschema.validators.validator_for(schema)(schema).iter_errors(sarif)) == []
    rules = {r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert VERIFY_ONLY <= rules


def test_resolved_procedure_marks_defaults(broken):
    _, report = broken
    md = render_verify("markdown", report)
    assert "| gradients_from **\\*** | patch_tokens |" in md and "| location | F6 |" in md


def test_determinism_is_checked_on_the_first_input_unless_repeat(tmp_path, monkeypatch):
    """A run that is not deterministic (noise on every second computation) is CAM603 at `runtime:`."""
    import camlint.verify.run as run

    real, calls, passes = run._batch_maps, [], []

    def noisy(r, xs, group):
        maps = real(r, xs, group)
        calls.extend(r.spec.inputs[n].name for n in group)
        passes.append(group)
        bump = 1e-3 if len(passes) % 2 == 0 else 0.0
        return [(raw, final + bump, ps) for raw, final, ps in maps]

    monkeypatch.setattr(run, "_batch_maps", noisy)
    report = run.verify(SPEC, device="cpu")
    assert calls == ["disc", "disc", "square"]
    found = [f for f in report.findings if f.code == "CAM603"]
    assert len(found) == 1 and found[0].line == _line_of(SPEC, "runtime:") and "disc" in found[0].message
    assert report.environment["determinism_checked_on"] == "the first input"
    calls.clear()
    passes.clear()
    report = run.verify(SPEC, device="cpu", repeat=True)
    assert calls == ["disc", "disc", "square", "square"]
    assert len([f for f in report.findings if f.code == "CAM603"]) == 2


def test_cli_markdown_report_to_a_file_and_exit_status(broken, tmp_path):
    spec, _ = broken
    target = tmp_path / "review.md"
    proc = run_cli("verify", spec, "--force", "--format", "markdown", "-o", target)
    assert proc.returncode == 1, proc.stderr
    text = target.read_text()
    assert text.startswith("### camlint verify:") and "CAM601" in text and proc.stdout == ""


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    from camlint.verify import sweep as sw

    spec = FIXTURES / "verify" / "sweep-open.yaml"
    return spec, sw.sweep(spec, sw.load_space(None), cap=64, device="cpu")


def test_sweep_findings_and_formats(swept):
    spec, result = swept
    codes = {f.code: f for f in result.findings}
    assert set(codes) == {"CAM602", "CAM606"}       # open keys admit disagreeing maps and constant ones
    assert codes["CAM602"].severity == "warning" and "F4 logit drop-cls" in codes["CAM602"].message
    assert codes["CAM602"].message.startswith(f"{len(result.degenerate)} of {len(result.variants)} procedures")
    assert codes["CAM606"].line == 1        # every open key is absent from this spec: its top
    assert "open keys location, target, tokens, heads" in codes["CAM606"].message
    out = {fmt: render_sweep(fmt, result) for fmt in FORMATS}
    for fmt, text in out.items():
        assert "CAM606" in text, fmt
    assert json.loads(out["json"])["findings"][0]["code"] in ("CAM602", "CAM606")
    assert "| # | procedure (open choices) |" in out["markdown"] and result.verdict in out["markdown"]
    _validate_sarif(json.loads(out["sarif"]))


def test_value_from_default_is_a_lint_warning_at_its_key(tmp_path):
    spec = tmp_path / "camspec.yaml"
    data = yaml.safe_load(SPEC.read_text())
    data["method"] = "gradcam"
    data["postprocess"] = {"normalize": "minmax", "upsample": "bilinear"}
    spec.write_text(yaml.safe_dump(data, sort_keys=False))
    proc = run_cli("check", spec, "--format", "json")
    found = [f for d in json.loads(proc.stdout)["documents"] for f in d["findings"] if f["code"] == "CAM604"]
    by_line = {f["line"]: f["message"] for f in found}
    post = by_line[_line_of(spec, "postprocess:")]
    assert "postprocess.order = normalize_then_upsample" in post and "postprocess.eps = 1e-07" in post
    assert "postprocess.normalize" not in post and all(f["severity"] == "warning" for f in found)
    assert "tokens.gradients_from = patch_tokens" in by_line[_line_of(spec, "tokens:")]
    assert len(found) == 2          # one finding per stated key, naming every default under it
