"""`camlint checklist --format latex|markdown`: fits the page as pasted, cites sections, cuts nothing."""
from __future__ import annotations

import json
import re

from camlint.core.display import short_value
from conftest import FIXTURES, ROOT, run_cli

M02 = FIXTURES / "manuscripts" / "m02_swin" / "main.tex"
TESTBED = ROOT / "examples" / "testbed" / "testbed.yaml"     # a sha256 of 64 hex digits
UNESCAPE = {r"\_": "_", r"\{": "{", r"\}": "}", r"\S{}": "§", r"\&": "&", r"\%": "%", r"\#": "#", r"\$": "$"}


def _rows(latex: str) -> list[list[str]]:
    body = latex.split("\\hline")[2]
    return [line[:-len(" \\\\")].split(" & ") for line in body.strip().splitlines()]


def _plain(cell: str) -> str:
    cell = cell.replace(r"\allowbreak{}", "")
    for escaped, char in UNESCAPE.items():
        cell = cell.replace(escaped, char)
    return cell


def _full_values(path) -> dict[str, str]:
    data = json.loads(run_cli("checklist", path, "--format", "json").stdout)[0]["checklist"]
    return {k: short_value(v["value"], limit=None) for k, v in data.items()}


def test_latex_checklist_wraps_within_the_text_width():
    for path in (M02, TESTBED):
        out = run_cli("checklist", path, "--format", "latex").stdout
        spec = re.search(r"^\\begin\{tabularx\}\{\\linewidth\}\{(.*)\}$", out, re.M)
        assert spec, out
        # two natural-width columns (item, status) and two that wrap (X and a fixed share of the width)
        assert re.fullmatch(r"@\{\}l l >\{.*\}X >\{.*\}p\{0\.\d+\\linewidth\}@\{\}", spec.group(1)), spec.group(1)
        for item, status, value, where in _rows(out):
            assert len(item) <= len("implementation") and status in ("reported", "partial", "missing", "n/a")
            for cell in (value, where):     # no unbreakable run a narrow column cannot wrap
                for piece in re.split(r"\\allowbreak\{\}|\s+", cell):
                    assert len(_plain(piece)) <= 16, (piece, cell)


def test_latex_checklist_cuts_nothing_and_cites_sections():
    for path in (M02, TESTBED):
        out = run_cli("checklist", path, "--format", "latex").stdout
        assert "…" not in out and not re.search(r"\.tex:\d+", out)
        full = _full_values(path)
        for item, _, value, _ in _rows(out):
            assert _plain(value) == full[item]
    m02 = run_cli("checklist", M02, "--format", "latex").stdout
    assert "ms\\_\\allowbreak{}in1k" in m02                   # the weights tag, whole
    where = {row[0]: row[3] for row in _rows(m02)}
    assert _plain(where["model"]) == "§ Approach" and _plain(where["target"]) == "§ Explaining the detector"
    testbed = run_cli("checklist", TESTBED, "--format", "latex").stdout
    digest = (TESTBED.parent / "weights" / "vit_testbed.safetensors.sha256").read_text().split()[0]
    assert len(digest) == 64 and digest in _plain(testbed)
    assert _plain({row[0]: row[3] for row in _rows(testbed)}["model"]) == "testbed.yaml, key model"


def test_markdown_checklist_cuts_nothing_and_cites_sections():
    out = run_cli("checklist", M02, "--format", "markdown").stdout
    assert "…" not in out
    assert "swin_tiny_patch4_window7_224.ms_in1k |" in out
    assert "| § Approach (main.tex:5, main.tex:4) |" in out
