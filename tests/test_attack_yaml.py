"""Hostile YAML found by the attack pass of 5 Dec: each test fails on the code before its fix."""
from __future__ import annotations

import pytest

from camlint.safety.yamlsafe import YAMLInputError, loads
from conftest import invoke

# An explicit type tag on text of another shape reached PyYAML's constructors unchecked:
# KeyError (!!bool), IndexError (!!int "", !!float "-"), AttributeError (!!timestamp) became
# "internal error" instead of a message at the value's line.
BAD = ['!!bool abc', '!!bool ""', '!!int ""', '!!int "-"', '!!int "_"', '!!float ""',
       '!!timestamp abc', '!!null abc']
GOOD = [('!!bool yes', True), ('!!int "12"', 12), ('!!float "1"', 1.0), ('!!null ""', None),
        ('!!str 12', "12"), ('!!timestamp 2020-01-01', "2020-01-01")]


@pytest.mark.parametrize("value", BAD)
def test_an_explicit_tag_on_text_of_another_type_is_an_input_error_at_its_line(value):
    with pytest.raises(YAMLInputError) as info:
        loads(f"camspec: 1\nlayer:\n  block: {value}\n")
    assert (info.value.line, info.value.col) == (3, 10)


@pytest.mark.parametrize("value, expected", GOOD)
def test_an_explicit_tag_on_text_of_its_type_still_reads(value, expected):
    assert loads(f"x: {value}\n").data == {"x": expected}


def test_the_cli_names_the_file_and_line_and_exits_2(tmp_path):
    (tmp_path / "spec.yaml").write_text("camspec: 1\nlayer: {block: !!bool abc}\n")
    result = invoke("check", tmp_path / "spec.yaml", "--no-cache")
    assert result.exit_code == 2 and "internal error" not in result.output
    assert "spec.yaml:2:16" in result.output and "not a valid !!bool" in result.output
