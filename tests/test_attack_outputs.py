"""Hostile inputs found by the attack pass of 5 Dec: each test fails on the code before its fix."""
from __future__ import annotations

import json
import xml.dom.minidom

import pytest

from conftest import invoke

# U+FFFE and U+FFFF are no XML 1.0 characters: a value carrying them made the JUnit report
# unparseable (expat: "not well-formed (invalid token)")
SPEC = 'camspec: 1\nmodel:\n  arch: "vit_tiny\\ufffe\\uffff"\nweighting: "gap\\uffff"\n'


def test_noncharacters_in_a_value_keep_the_junit_report_well_formed(tmp_path):
    (tmp_path / "spec.yaml").write_text(SPEC)
    result = invoke("check", tmp_path / "spec.yaml", "--format", "junit", "--no-cache")
    assert result.exit_code in (0, 1), result.output
    xml.dom.minidom.parseString(result.stdout.encode("utf-8"))
    assert "\ufffe" not in result.stdout and "\uffff" not in result.stdout


def test_printable_drops_noncharacters():
    from camlint.safety.sanitize import printable

    assert printable("a\ufffeb\uffffc") == "abc"


# A folder of the submission named with an OSC sequence and a bidirectional override reached the
# terminal raw through `check --show-settings` (the configuration's path) and through `checklist`
# (markdown: the document's path; YAML and JSON: the override, unescaped).
BAD_DIR = "x\x1b]0;PWN\x07y\u202e"
RAW = ("\x1b", "\x07", "\u202e")


@pytest.fixture
def hostile_folder(tmp_path):
    folder = tmp_path / BAD_DIR
    folder.mkdir()
    (folder / "main.tex").write_text("\\documentclass{article}\n\\begin{document}\nGrad-CAM on ViT-B/16.\n"
                                     "\\end{document}\n")
    (folder / ".camlint.toml").write_text('select = ["ALL"]\n')
    return folder


def test_show_settings_prints_no_terminal_controls_from_a_folder_name(hostile_folder):
    result = invoke("check", hostile_folder, "--show-settings")
    assert ".camlint.toml" in result.stdout and not any(c in result.stdout for c in RAW), repr(result.stdout[:200])


@pytest.mark.parametrize("fmt", ["markdown", "latex", "yaml", "json"])
def test_the_checklist_prints_no_terminal_controls_from_a_folder_name(hostile_folder, fmt):
    result = invoke("checklist", hostile_folder / "main.tex", "--format", fmt)
    assert result.exit_code == 0, result.output
    assert "main.tex" in result.stdout and not any(c in result.stdout for c in RAW), repr(result.stdout[:200])
    if fmt == "json":                    # escaped, not lost
        assert json.loads(result.stdout)[0]["path"] == str(hostile_folder / "main.tex")


def test_verify_spec_errors_print_no_bidi_override_or_escape(tmp_path):
    """`camlint verify` printed a declared file's name with its U+202E override raw (its own
    sanitiser knew only C0 and C1 controls)."""
    spec = tmp_path / "spec.yaml"
    spec.write_text("camspec: 1\nmodel: {arch: vit_tiny_patch16_224, weights: {random_init: {seed: 0}}}\n"
                    'inputs:\n  - {image: "d\\e]0;PWN\\aisc\\u202e.png"}\n')
    result = invoke("verify", spec)
    assert result.exit_code == 2 and "internal error" not in result.output
    assert "isc" in result.output and not any(c in result.output for c in RAW), repr(result.output[-300:])


def test_the_verify_text_report_prints_no_controls_from_a_declared_file_name(tmp_path):
    """A reported map named `d<OSC>...<U+202E>.png` with a wrong sha256: the text report of
    `verify --force` printed the name raw in its CAM503 line."""
    pytest.importorskip("timm")
    import shutil

    from conftest import ROOT

    fixture = ROOT / "fixtures" / "verify"
    for sub in ("images", "maps"):
        shutil.copytree(fixture / sub, tmp_path / sub)
    shutil.copy(tmp_path / "maps" / "disc.png", tmp_path / "maps" / "d\x1b]0;X\x07\u202e.png")
    spec = (fixture / "vit-tiny-random.yaml").read_text().replace(
        "{input: disc, map: maps/disc.png}",
        '{input: disc, map: "maps/d\\e]0;X\\a\\u202e.png", sha256: "' + "0" * 64 + '"}')
    (tmp_path / "s.yaml").write_text(spec)
    result = invoke("verify", tmp_path / "s.yaml", "--device", "cpu", "--force", "--format", "text")
    assert result.exit_code == 1, result.output[-500:]
    assert "CAM503" in result.stdout and not any(c in result.stdout for c in RAW), repr(result.stdout[-400:])


@pytest.mark.parametrize("name", ["a b#1%.tex", "c:x?y.tex", "ré sumé.tex"])
def test_sarif_uris_are_uri_references_whatever_the_file_is_named(tmp_path, monkeypatch, name):
    """A relative path went into artifactLocation.uri as is: `a b#1%.tex` made '#1%.tex' a
    fragment (and '%.t' a bad escape), `c:x?y.tex` a URI of scheme 'c' with a query."""
    import re
    from urllib.parse import unquote, urlsplit

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / name).write_text("\\documentclass{article}\n\\begin{document}\nGrad-CAM on ViT-B/16.\n"
                                         "\\end{document}\n")
    monkeypatch.chdir(tmp_path)
    result = invoke("check", f"sub/{name}", "--format", "sarif", cwd=tmp_path)
    locations = [loc["physicalLocation"]["artifactLocation"] for r in json.loads(result.stdout)["runs"][0]["results"]
                 for loc in r["locations"]]
    assert locations
    for loc in locations:
        uri = loc["uri"]
        assert re.fullmatch(r"(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/]|%[0-9A-F]{2})*", uri), uri
        parts = urlsplit(uri)
        assert not parts.scheme and not parts.query and not parts.fragment, uri
        assert unquote(uri) == f"sub/{name}"
