"""Hostile inputs found by the attack pass of 5 Dec: each test fails on the code before its fix."""
from __future__ import annotations

import xml.dom.minidom

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
