"""Run a rule example (LaTeX snippet, multi-file LaTeX, or camspec YAML) through the real CLI."""
from __future__ import annotations

import re
from pathlib import Path

from conftest import check_json

TEMPLATE = ("\\documentclass{{article}}\n\\begin{{document}}\n\\section{{Class-activation maps}}\n"
            "We explain our ViT-B/16 classifier with class-activation maps.\n{example}\n\\end{{document}}\n")


def write_case(tmp: Path, fmt: str, text: str) -> Path:
    if fmt == "yaml":
        path = tmp / "camspec.yaml"
        path.write_text(text, encoding="utf-8")
        return path
    if "%% file:" in text:
        parts = re.split(r"^%% file: (\S+)\n", text, flags=re.M)
        for name, body in zip(parts[1::2], parts[2::2]):
            p = tmp / name
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(_encoded(body.replace("<NUL>", "\x00")))
        return tmp / parts[1]
    path = tmp / "main.tex"
    path.write_text(TEMPLATE.format(example=text), encoding="utf-8")
    return path


def _encoded(body: str) -> bytes:
    """UTF-8, except <LATIN1>...</LATIN1> spans, written in latin-1 (a damaged file)."""
    parts = re.split(r"<LATIN1>(.*?)</LATIN1>", body, flags=re.S)
    return b"".join(p.encode("latin-1" if i % 2 else "utf-8") for i, p in enumerate(parts))


def findings_of(tmp: Path, fmt: str, text: str, code: str) -> list[dict]:
    path = write_case(tmp, fmt, text)
    _, data = check_json(path, cwd=tmp)
    if data.get("errors"):
        return [{"code": "INPUT", **e} for e in data["errors"]]
    return [f for d in data["documents"] for f in d["findings"] if f["code"] == code]
