"""The rule catalogue: registered, documented, pages in sync, and every rule fires on its bad
example and stays silent on its good one (plus the extra cases in fixtures/rules/)."""
from __future__ import annotations

import importlib
import json
import pkgutil
import re

import pytest
import yaml

import camlint.rules as rules_pkg
from camlint.core.keys import KEYS
from camlint.rules.registry import BY_CODE, RETIRED, RULES
from camlint.rules.base import Rule
from camlint.rules.verify import VERIFY_ONLY
from conftest import FIXTURES, ROOT, invoke
from rule_cases import findings_of

GROUP_OF = {"0": None, "1": "completeness", "2": "consistency", "3": "spec", "4": "citation", "5": "artifacts", "6": "verify"}


def test_every_rule_defined_is_registered():
    defined = set()
    for mod in pkgutil.iter_modules(rules_pkg.__path__):
        module = importlib.import_module(f"camlint.rules.{mod.name}")
        for v in vars(module).values():
            items = v if isinstance(v, tuple) else (v,)
            defined |= {r.code for r in items if isinstance(r, Rule)}
    assert defined == set(BY_CODE)


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_metadata(rule):
    assert re.fullmatch(r"CAM[0-6]\d\d", rule.code) and rule.code not in RETIRED
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)+", rule.name)
    assert rule.item is None or rule.item in KEYS
    for field in ("summary", "rationale", "bad", "good", "hint"):
        assert len(getattr(rule, field).strip()) > 10, field
    assert rule.bad != rule.good


def test_completeness_rules_cover_every_key_in_order():
    codes = [f"CAM1{i:02d}" for i in range(1, 13)]
    assert [BY_CODE[c].item for c in codes] == list(KEYS)


def test_rule_pages_are_in_sync():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_rule_pages", ROOT / "tools" / "make_rule_pages.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    want = mod.pages()
    have = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "rules").glob("*.md")}
    assert set(have) == set(want), "rules/ has stale or missing pages: run tools/make_rule_pages.py"
    for name, text in want.items():
        assert have[name] == text, f"{name} is stale: run tools/make_rule_pages.py"


LINT_RULES = [r for r in RULES if r.code not in VERIFY_ONLY]


@pytest.mark.parametrize("rule", LINT_RULES, ids=[r.code for r in LINT_RULES])
def test_bad_example_fires(rule, tmp_path):
    """Verify-only rules (CAM6xx) fire when verify or sweep runs: tests/test_verify_findings.py."""
    found = findings_of(tmp_path, rule.example_format, rule.bad, rule.code)
    assert found, f"{rule.code} did not fire on its bad example"


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_good_example_is_silent(rule, tmp_path):
    assert findings_of(tmp_path, rule.example_format, rule.good, rule.code) == []


CASES = [(path.stem, case) for path in sorted((FIXTURES / "rules").glob("CAM*.yml"))
         for case in yaml.safe_load(path.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("code, case", CASES, ids=[f"{c}-{k['name']}" for c, k in CASES])
def test_rule_case(code, case, tmp_path):
    found = findings_of(tmp_path, case["format"], case["text"], code)
    assert bool(found) is case["fires"], found
    if case.get("line"):
        assert found[0]["line"] == case["line"]


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_explain_every_code(rule):
    out = invoke("explain", rule.code).output
    assert out.startswith(f"# {rule.code} {rule.name}") and rule.hint in out
    assert invoke("explain", rule.name).output == out


def test_explain_unknown_code_is_a_usage_error():
    assert invoke("explain", "CAM999").exit_code == 2


def test_rules_json_lists_every_rule():
    rows = json.loads(invoke("rules", "--format", "json").output)
    assert [r["code"] for r in rows] == [r.code for r in RULES]
    assert {"code", "name", "item", "severity", "group", "summary"} <= set(rows[0])
    assert "CAM103" in invoke("rules").output
