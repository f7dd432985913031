"""Markdown and plain text (README.md, supplement.md, .txt), and folder mode over every input."""
from __future__ import annotations

import shutil

from conftest import FIXTURES, ROOT, doc_of, invoke, statuses

from camlint.inputs.markdown import analyze_markdown

README = """\
# ViT saliency for chest X-rays

We fine-tune `vit_base_patch16_224.augreg2_in21k_ft_in1k` from timm on our scans.

## Method

Maps are computed with **Grad-CAM** at the output of the LayerNorm before attention
in the last block; the target is the raw logit of the predicted class.

```python
target_layers = [model.blocks[-1].norm1]
cam = GradCAM(model=model, target_layers=target_layers)
```

- The [CLS] token is dropped and the 196 patch tokens are reshaped to 14 x 14 (row-major).

```camspec
relu: after_combination
implementation: {library: pytorch-grad-cam, version: 1.5.4}
```

## Related work

Attention rollout is another option.
"""


def test_markdown_headings_sections_code_and_camspec(tmp_path):
    path = tmp_path / "README.md"
    path.write_text(README)
    a = analyze_markdown(path, "README.md")
    sections = {s.section.title: s.section.role for s in a.prose.sentences}
    assert sections["Method"] == "method" and sections["Related work"] == "related"
    titles = [s.text for s in a.prose.sentences if s.unit.kind == "title"]
    assert titles == ["ViT saliency for chest X-rays"]            # the single `#` is the title
    doc = doc_of(path)
    st = statuses(doc)
    assert doc["kind"] == "markdown"
    assert st["model"] == st["layer"] == st["location"] == st["target"] == st["tokens"] == "reported"
    # the camspec block counts like the LaTeX camspec environment, at its own lines
    impl = doc["checklist"]["implementation"]
    assert impl["status"] == "reported" and impl["value"] == {"library": "pytorch-grad-cam", "version": "1.5.4"}
    assert impl["evidence"][0]["line"] == README.splitlines().index(
        "implementation: {library: pytorch-grad-cam, version: 1.5.4}") + 1
    relu = doc["checklist"]["relu"]["evidence"][0]
    assert relu["line"] == README.splitlines().index("relu: after_combination") + 1
    # positions are the file's own: the model is on line 3, at its column
    ev = doc["checklist"]["model"]["evidence"][0]
    assert ev["line"] == 3 and README.splitlines()[2][ev["col"] - 1:].startswith("vit_base_patch16")


def test_fenced_code_is_a_code_unit_like_a_latex_listing():
    from camlint.inputs.markdown import _Reader
    from camlint.inputs.model import ModelBuilder

    lines = README.split("\n")
    b = ModelBuilder(None, "README.md", lines)
    _Reader(b, lines, plain=False).read()
    code = [u for u in b.doc.units if u.kind == "code"]
    assert [u.raw.env for u in code] == ["verbatim", "camspec"]
    assert code[0].text.startswith("target_layers = [model.blocks[-1].norm1]")
    assert code[0].line_col(0) == (lines.index("target_layers = [model.blocks[-1].norm1]") + 1, 1)


def test_unreadable_camspec_block_is_a_finding_at_its_line(tmp_path):
    path = tmp_path / "supplement.md"
    path.write_text("# Supplement\n\nWe use Grad-CAM on a ViT-B/16.\n\n```camspec\nmethod: [unclosed\n```\n")
    doc = doc_of(path)
    bad = [f for f in doc["findings"] if f["code"] == "CAM305"]
    assert bad and bad[0]["line"] >= 6


def test_plain_text_numbered_headings(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("Saliency notes\n\n1 Introduction\n\nViTs are popular.\n\n2 Method\n\n"
                    "We apply Grad-CAM to a ViT-B/16 at the output of the last block.\n")
    a = analyze_markdown(path, "notes.txt", plain=True)
    roles = {s.section.title: s.section.role for s in a.prose.sentences}
    assert roles == {"": "front", "Introduction": "introduction", "Method": "method"}
    assert doc_of(path)["kind"] == "text"


def test_folder_mode_finds_every_kind_of_input_and_names_its_front_end(tmp_path):
    folder = tmp_path / "submissions"
    proj = folder / "latex"
    shutil.copytree(ROOT / "examples" / "paper", proj)
    shutil.copy(FIXTURES / "pdf" / "two_column.pdf", proj / "main.pdf")      # that project's output: skipped
    shutil.copy(FIXTURES / "pdf" / "two_column.pdf", folder / "reviewer_copy.pdf")
    (folder / "README.md").write_text(README)
    (folder / "todo.txt").write_text("Nothing about saliency maps here.\n")
    (folder / "CHANGELOG.md").write_text("# Changes\n\nFixed a typo.\n")
    import zipfile

    with zipfile.ZipFile(folder / "overleaf.zip", "w") as zf:
        for p in (ROOT / "examples" / "paper").rglob("*"):
            if p.is_file():
                zf.write(p, p.relative_to(ROOT / "examples" / "paper").as_posix())
    result = invoke("check", folder, "--format", "json")
    import json

    docs = {d["path"].split("submissions/")[-1]: d["kind"] for d in json.loads(result.stdout)["documents"]}
    assert docs == {"README.md": "markdown", "latex/main.tex": "latex", "overleaf.zip/main.tex": "archive:latex",
                    "reviewer_copy.pdf": "pdf"}
    text = invoke("check", folder, "--format", "text").output
    assert "Read by:" in text and "  PDF: " in text and "  Markdown: " in text and "  LaTeX in an archive: " in text
