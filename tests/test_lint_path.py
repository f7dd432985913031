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
heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'timm', 'numpy', 'torchvision', 'sklearn', 'scipy'))
ranker = sys.modules.get('camlint.extract.ranker')     # its weights loaded: it scored lines
print('RANKER', bool(ranker and ranker.model.cache_info().currsize))
print('HEAVY', heavy)
"""


def _heavy_modules(*args: str, ranker: bool | None = None) -> str:
    code = PROBE.format(args=", ".join(repr(a) for a in args))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    lines = out.stdout.strip().splitlines()
    assert ranker is None or lines[-2] == f"RANKER {ranker}", out.stdout[-300:]
    return lines[-1]


def test_checking_a_manuscript_does_not_import_torch():
    assert _heavy_modules("check", str(ROOT / "examples" / "paper" / "main.tex")) == "HEAVY []"


def test_the_line_ranker_scores_lines_without_numpy_or_scikit_learn(tmp_path):
    # the grid is stated outside the CAM section only: the learned ranker runs, in pure Python
    (tmp_path / "main.tex").write_text(r"""\documentclass{article}\begin{document}
\section{Explanations}
We apply Grad-CAM to a fine-tuned ViT-B/16.
\section{Setup}
Training runs for 30 epochs with AdamW.

We take the first LayerNorm of the eleventh block as the hooked module.
Once the class token is discarded, the 196 patch tokens are laid out as a 14 x 14 grid.

Each experiment is repeated with three seeds.
\end{document}
""", encoding="utf-8")
    assert _heavy_modules("check", str(tmp_path / "main.tex"), ranker=True) == "HEAVY []"


def test_checking_a_spec_does_not_import_torch():
    assert _heavy_modules("check", str(FIXTURES / "specs" / "vit-b16-pgc-complete.yaml")) == "HEAVY []"


def test_version_does_not_import_the_linter():
    code = "import sys; from camlint.cli.main import main\ntry:\n main(['--version'])\nexcept SystemExit: pass\n" \
           "print('X', 'pylatexenc' in sys.modules, 'jsonschema' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.strip().endswith("X False False")
