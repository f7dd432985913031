"""The camspec schema: well-formed, documented, current, accepts the examples, rejects errors."""
from __future__ import annotations

import json

import jsonschema
import pytest

from camlint.core.keys import KEYS
from camlint.core.resources import camspec_schema
from camlint.core.schema import validate
from camlint.safety.yamlsafe import loads
from conftest import FIXTURES, ROOT

COMPLETE = ["vit-b16-pgc-complete.yaml", "attention-gradcam-chefer.yaml", "swin-t-stage4.yaml",
            "deit-small-distilled.yaml", "complete.json"]


def _walk_properties(schema, path=""):
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            yield f"{path}.{name}".lstrip("."), sub
            yield from _walk_properties(sub, f"{path}.{name}")
        for key in ("anyOf", "oneOf", "allOf"):
            for sub in schema.get(key, []):
                yield from _walk_properties(sub, path)
        if "items" in schema:
            yield from _walk_properties(schema["items"], path + "[]")


def test_schema_is_valid_2020_12_with_id():
    schema = camspec_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"].endswith("2020-12/schema")
    assert schema["$id"].endswith("camspec-1.schema.json")


def test_top_level_keys_are_the_checklist():
    props = camspec_schema()["properties"]
    assert all(k in props for k in KEYS)


def test_every_property_has_title_and_description():
    missing = [p for p, sub in _walk_properties(camspec_schema())
               if not (sub.get("title") and sub.get("description"))]
    assert missing == []


def test_schema_file_is_generated_from_the_source():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_schema", ROOT / "tools" / "make_schema.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.render() == (ROOT / "schemas" / "camspec-1.schema.json").read_text(encoding="utf-8")


def test_schema_examples_validate():
    schema = camspec_schema()
    validator = jsonschema.Draft202012Validator(schema)
    for ex in schema["examples"]:
        assert list(validator.iter_errors(ex)) == []


@pytest.mark.parametrize("name", COMPLETE)
def test_complete_examples_have_no_schema_problem(name):
    path = FIXTURES / "specs" / name
    loaded = loads(path.read_text(encoding="utf-8"))
    assert validate(loaded.data, loaded, name) == []


def _problems(text: str):
    loaded = loads(text)
    return validate(loaded.data, loaded, "s.yaml")


BASE = {"model": "{arch: vit_base_patch16_224, weights: augreg2_in21k_ft_in1k}", "method": "gradcam",
        "layer": "{block: -1}", "location": "F1", "target": "{kind: logit, class: predicted}",
        "tokens": "{drop: [cls]}", "reshape": "{grid: [14, 14]}", "weighting": "gap_gradients",
        "heads": "n/a", "relu": "after_combination",
        "postprocess": "{normalize: minmax, upsample: bilinear}",
        "implementation": "{library: pytorch-grad-cam, version: '1.5.4'}"}


def spec_with(**override) -> str:
    items = {**BASE, **override}
    return "".join(f"{k}: {v}\n" for k, v in items.items() if v is not None)


@pytest.mark.parametrize("override, code, line, words", [
    ({"layer": "{block: eleven}"}, "CAM301", 3, "layer.block must be an integer"),
    ({"location": "F7"}, "CAM301", 4, "'F7' is not one of"),
    ({"target": "{kind: logit, clas: predicted}"}, "CAM302", 5, "unknown key 'clas'"),
    ({"target": "{kind: probability, class: predicted}"}, "CAM303", 5, "read as 'softmax'"),
    ({"reshape": "{grid: [14, 14, 3]}"}, "CAM301", 7, "at most 2"),
    ({"relu": "no"}, "CAM303", 10, "read as 'none'"),
    ({"implementation": "{library: x, version: 1.5, url: 3}"}, "CAM301", 12, "implementation.url must be a string"),
    ({"heads": "n/a\ncolour: red"}, "CAM302", 10, "unknown key 'colour'"),
])
def test_each_error_class_is_rejected_at_its_line(override, code, line, words):
    problems = _problems(spec_with(**override))
    assert problems, "expected a problem"
    first = problems[0]
    assert (first.code, first.line) == (code, line), problems
    assert words in first.message


def test_placeholders_are_not_schema_errors():
    assert _problems(spec_with(postprocess="{normalize: minmax, upsample: TBD}")) == []


def test_inputs_need_an_image_or_a_tensor():
    problems = _problems(spec_with() + "inputs:\n  - {name: cat}\n")
    assert [(p.code, p.line) for p in problems] == [("CAM301", 14)]
    assert "needs one of 'image', 'tensor'" in problems[0].message


def test_json_spec_lines_are_reported_too():
    data = json.loads((FIXTURES / "specs" / "complete.json").read_text())
    data["layer"] = {"block": "last"}
    text = json.dumps(data, indent=2)
    problems = _problems(text)
    assert problems[0].code == "CAM301"
    assert text.splitlines()[problems[0].line - 1].strip().startswith('"block"')
