"""Folder mode: which YAML/JSON files are camspecs (declared or named), and what a named file gets."""
from __future__ import annotations

import json

from conftest import invoke

PAPER = ("\\documentclass{article}\n\\begin{document}\n\\section{Saliency maps}\n"
         "We compute Grad-CAM maps of our ViT-B/16 at an intermediate layer.\n\\end{document}\n")
HYDRA = ("defaults:\n  - _self_\nmodel:\n  name: vit_base_patch16_224\n  pretrained: true\n"
         "layer: blocks.11\nmethod: adamw\ntarget: label\ntrainer:\n  max_epochs: 30\n")
SPEC_BODY = "model: {arch: vit_base_patch16_224, weights: augreg2_in21k_ft_in1k}\nmethod: gradcam\n"


def _write(root, files: dict):
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _documents(root, *extra) -> list[str]:
    result = invoke("check", ".", "--format", "json", *extra, cwd=root)
    assert result.exit_code in (0, 1), result.output
    return sorted(d["path"] for d in json.loads(result.stdout)["documents"])


def test_a_hydra_config_is_not_a_camspec(tmp_path):
    _write(tmp_path, {"paper/main.tex": PAPER, "conf/train-config.yaml": HYDRA,
                      "conf/model/vit.yaml": "model:\n  layer: 11\n", "data.json": '{"model": 1, "layer": 2, "target": 3}',
                      "supplement/camspec.yaml": "camspec: 1\n" + SPEC_BODY,
                      "supplement/flow.yaml": "{camspec: 1, method: gradcam}\n",
                      "supplement/spec.json": '{\n  "camspec": 1,\n  "method": "gradcam"\n}\n'})
    assert _documents(tmp_path) == ["paper/main.tex", "supplement/camspec.yaml", "supplement/flow.yaml",
                                    "supplement/spec.json"]


def test_named_yaml_is_a_camspec_in_folder_mode(tmp_path):
    """Named by a `% camspec:` link, by --spec, or by the configuration's `camspecs`."""
    _write(tmp_path, {"paper/main.tex": PAPER.replace("\\begin{document}", "% camspec: ../supp/linked.yaml\n"
                                                                           "\\begin{document}"),
                      "supp/linked.yaml": SPEC_BODY, "supp/given.yaml": SPEC_BODY, "supp/configured.yaml": SPEC_BODY,
                      "conf/train.yaml": HYDRA})
    assert _documents(tmp_path) == ["paper/main.tex", "supp/linked.yaml"]
    assert _documents(tmp_path, "--spec", "supp/given.yaml") == ["paper/main.tex", "supp/given.yaml",
                                                                  "supp/linked.yaml"]
    (tmp_path / ".camlint.toml").write_text("camspecs = ['supp/conf*.yaml']\n")
    assert _documents(tmp_path) == ["paper/main.tex", "supp/configured.yaml", "supp/linked.yaml"]


def test_an_explicit_yaml_is_validated_and_the_missing_key_is_said(tmp_path):
    _write(tmp_path, {"train-config.yaml": HYDRA, "spec.yaml": "camspec: 1\n" + SPEC_BODY})
    result = invoke("check", "train-config.yaml", cwd=tmp_path)
    assert result.exit_code == 1 and "CAM30" in result.stdout       # still validated as a camspec
    assert "no top-level `camspec: 1` key" in result.stderr and "train-config.yaml" in result.stderr
    declared = invoke("check", "spec.yaml", cwd=tmp_path)
    assert "camspec: 1" not in declared.stderr
    machine = invoke("check", "train-config.yaml", "--format", "json", cwd=tmp_path)
    assert json.loads(machine.stdout)["documents"][0]["path"] == "train-config.yaml" and machine.stderr == ""
