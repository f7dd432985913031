"""The item registry: one definition per checklist key, carried everywhere.

A fixture registers a thirteenth key (`seed`) and the schema generator, the judge, `camlint init`,
the checklist output and `camlint sweep` carry it with no other code change."""
from __future__ import annotations

import dataclasses
import importlib.util
import json

import jsonschema
import pytest
import yaml

from camlint.checklist import judge
from camlint.core import items
from camlint.core.item import NOT_APPLICABLE_FORM, Advice, Item, Slot, Status
from camlint.core.keys import DESCRIPTIONS, EXECUTABLE_KEYS, KEYS
from conftest import FIXTURES, ROOT, invoke

PAPER = FIXTURES / "manuscripts" / "m02_swin" / "main.tex"
SWEEP_SPEC = FIXTURES / "verify" / "sweep-open.yaml"


def _seed_slots(value) -> list[bool]:
    if isinstance(value, dict):
        value = value.get("value")
    return [isinstance(value, int) and not isinstance(value, bool)]


SEED = Item(
    "seed", "the random seed of anything random in the computation",
    (Slot("value", "seed value"),), _seed_slots,
    {"title": "Seed", "description": "torch.manual_seed value set before the maps are computed.",
     "anyOf": [{"type": "integer"},
               {"type": "object", "properties": {"value": {"type": "integer"}}, "required": ["value"],
                "additionalProperties": False},
               NOT_APPLICABLE_FORM],
     "examples": [0, {"value": 1234}]},
    "<integer>  or  {value: <integer>}",
    executable=True, sweep=(0, 1), compare=lambda value, depth: value.get("value") if isinstance(value, dict) else value,
    advice=Advice("the seed is not stated", "the seed is mentioned without its value", "Seeds change "
                  "random baselines.", "We fix the seed.", "We set torch.manual_seed(0).", "Give the seed."))


@pytest.fixture
def seed_key(monkeypatch):
    monkeypatch.setenv("CAMLINT_NO_CACHE", "1")      # a cached analysis predates the new key
    items.register(SEED)
    yield SEED
    items.unregister("seed")


def _make_schema_module():
    spec = importlib.util.spec_from_file_location("make_schema", ROOT / "tools" / "make_schema.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_registry_holds_the_twelve_keys_in_checklist_order():
    assert items.names() == ("model", "method", "layer", "location", "target", "tokens", "reshape",
                             "weighting", "heads", "relu", "postprocess", "implementation")
    assert tuple(KEYS) == items.names() and "implementation" not in EXECUTABLE_KEYS
    assert DESCRIPTIONS["reshape"] == items.item("reshape").description


def test_schema_generator_carries_the_new_key(seed_key):
    schema = _make_schema_module().schema()
    assert schema["properties"]["seed"] == seed_key.schema
    assert "13 checklist keys" in schema["description"]
    assert list(schema["properties"])[1:14] == list(items.names())
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors({"seed": 7})) == []
    assert list(validator.iter_errors({"seed": "n/a"})) == []
    assert [e.validator for e in validator.iter_errors({"seed": "seven"})] == ["anyOf"]


def test_judge_carries_the_new_key(seed_key):
    assert judge.statuses({"seed": 0})["seed"] == Status.REPORTED
    assert judge.statuses({})["seed"] == Status.MISSING
    assert judge.status_of("seed", {"text": "a fixed seed"}) == Status.PARTIAL
    assert judge.open_slots("seed", {"text": "a fixed seed"}) == ["seed value"]
    assert judge.status_of("seed", {"value": 3}) == Status.REPORTED


def test_init_carries_the_new_key(seed_key):
    result = invoke("init", PAPER)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert f"seed: TODO  # TODO; choices: {seed_key.choices}" in lines
    assert [line.split(":")[0] for line in lines if not line.startswith("#")][-1] == "seed"


@pytest.mark.parametrize("fmt", ["json", "yaml", "markdown", "latex"])
def test_checklist_output_carries_the_new_key(seed_key, fmt):
    result = invoke("checklist", PAPER, "--format", fmt)
    assert result.exit_code == 0, result.output
    if fmt == "json":
        checklist = json.loads(result.output)[0]["checklist"]
        assert list(checklist) == list(items.names())
        assert checklist["seed"]["status"] == "missing"
    elif fmt == "yaml":
        assert yaml.safe_load(result.output)["checklist"]["seed"]["status"] == "missing"
    elif fmt == "markdown":
        assert "| `seed` | ❌ missing |  |  |" in result.output.splitlines()
    else:
        assert "seed & missing &  &  \\\\" in result.output.splitlines()


def test_check_text_and_json_reports_carry_the_new_key(seed_key):
    text = invoke("check", PAPER, "--format", "text", "--exit-zero").output
    rows = [line.replace("│", " ").split()[:2] for line in text.splitlines()]
    assert ["seed", "missing"] in rows and rows.index(["seed", "missing"]) > rows.index(["implementation", "reported"])
    doc = json.loads(invoke("check", PAPER, "--format", "json", "--exit-zero").output)["documents"][0]
    assert list(doc["checklist"]) == list(items.names())
    assert doc["checklist"]["seed"]["status"] == "missing"


def test_sweep_variant_space_carries_the_new_key(seed_key):
    pytest.importorskip("torch")
    from camlint.verify import sweep as sw

    data = yaml.safe_load(SWEEP_SPEC.read_text())
    assert "seed" in sw.open_keys(data)
    assert "seed" not in sw.open_keys({**data, "seed": 5})
    assert sw.default_axis("seed") == [0, 1]
    variants, dropped, _ = sw.enumerate_variants(data, {}, cap=512)
    assert variants and all(v.choices["seed"] in (0, 1) for v in variants)
    narrowed, _, _ = sw.enumerate_variants(data, {"seed": [1]}, cap=512)
    assert {v.choices["seed"] for v in narrowed} == {1}


def test_the_fixture_leaves_the_registry_as_it_was():
    assert "seed" not in items.names() and len(KEYS) == 12


@pytest.mark.parametrize("change, message", [
    ({"sweep": ()}, "needs a sweep axis"),
    ({"executable": False}, "only executable items are swept"),
    ({"slots": (Slot("value", "seed value", required=False),)}, "no required slot"),
    ({"filled": lambda value: [True, True]}, "2 flags for 1 required slots"),
    ({"filled": lambda value: [False]}, "leaves a required slot open"),
    ({"schema": {**SEED.schema, "anyOf": [{"type": "integer"}]}}, "n/a marker"),
    ({"choices": " "}, "no `camlint init` choices"),
])
def test_an_incomplete_item_fails_when_it_is_made(change, message):
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(SEED, **change)


def test_a_forgotten_piece_or_a_second_registration_fails_at_registration():
    fields = {f.name: getattr(SEED, f.name) for f in dataclasses.fields(SEED)}
    del fields["sweep"]
    with pytest.raises(TypeError, match="sweep"):
        Item(**fields)
    with pytest.raises(ValueError, match="already registered"):
        items.register(items.item("relu"))


def test_status_is_a_string_enum_that_prints_and_serialises_as_before():
    assert Status.NOT_APPLICABLE == "not_applicable" and f"{Status.PARTIAL}" == "partial"
    assert json.dumps({"s": Status.MISSING}) == '{"s": "missing"}'
    assert Status("reported") is Status.REPORTED and Status.NOT_APPLICABLE.label == "n/a"
