"""The lint path never imports torch or timm (camlint paper.tex starts at once)."""
from __future__ import annotations

import subprocess
import sys

from conftest import FIXTURES, ROOT

PROBE = """
import sys
from camlint.cli.main import main
try:
    main([{args}], standalone_mode=False)
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'timm', 'numpy', 'torchvision'))
print('HEAVY', heavy)
"""


def _heavy_modules(*args: str) -> str:
    code = PROBE.format(args=", ".join(repr(a) for a in args))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    return out.stdout.strip().splitlines()[-1]


def test_checking_a_manuscript_does_not_import_torch():
    assert _heavy_modules("check", str(ROOT / "examples" / "paper" / "main.tex")) == "HEAVY []"


def test_checking_a_spec_does_not_import_torch():
    assert _heavy_modules("check", str(FIXTURES / "specs" / "vit-b16-pgc-complete.yaml")) == "HEAVY []"


def test_version_does_not_import_the_linter():
    code = "import sys; from camlint.cli.main import main\ntry:\n main(['--version'])\nexcept SystemExit: pass\n" \
           "print('X', 'pylatexenc' in sys.modules, 'jsonschema' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip().endswith("X False False")
