"""Archives: Overleaf zips and arXiv tarballs checked in a private folder; hostile ones refused."""
from __future__ import annotations

import io
import os
import tarfile
import tempfile
import zipfile

import pytest
from conftest import ROOT, doc_of, invoke, statuses

from camlint.inputs import archive

PAPER = ROOT / "examples" / "paper"


def _project_files() -> dict[str, bytes]:
    return {p.relative_to(PAPER).as_posix(): p.read_bytes() for p in sorted(PAPER.rglob("*")) if p.is_file()}


def make_zip(path, files: dict[str, bytes], links: dict[str, str] | None = None):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files.items():
            zf.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o120777 << 16)          # a symbolic link, as `zip -y` stores it
            zf.writestr(info, target)
    return path


def make_tar(path, files: dict[str, bytes], mode="w:gz", extra: list | None = None):
    with tarfile.open(path, mode) as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        for info in extra or []:
            tf.addfile(info)
    return path


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Where archives are unpacked, to see that nothing is left behind or written beside it."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_zip_of_a_latex_project_reports_paths_inside_the_archive(tmp_path, private_tmp):
    z = make_zip(tmp_path / "paper.zip", {f"overleaf/{k}": v for k, v in _project_files().items()})
    doc = doc_of(z)
    latex = doc_of(PAPER / "main.tex")
    assert doc["path"].endswith("paper.zip/overleaf/main.tex")
    assert doc["kind"] == "archive:latex"
    assert statuses(doc) == statuses(latex)
    files = {e["file"] for entry in doc["checklist"].values() for e in entry["evidence"]}
    assert files and all("paper.zip/overleaf/" in f for f in files)
    assert any(f.endswith("paper.zip/overleaf/sections/method.tex") for f in files)
    assert list(private_tmp.iterdir()) == []                # the private folder is gone


@pytest.mark.parametrize("name,mode", [("paper.tar.gz", "w:gz"), ("paper.tgz", "w:gz"), ("paper.tar", "w")])
def test_tarballs_read_like_arxiv_eprints(tmp_path, private_tmp, name, mode):
    t = make_tar(tmp_path / name, _project_files(), mode)
    doc = doc_of(t)
    assert doc["path"].endswith(f"{name}/main.tex")
    assert statuses(doc) == statuses(doc_of(PAPER / "main.tex"))


def test_main_file_found_by_documentclass_or_named_with_main(tmp_path, private_tmp):
    files = _project_files()
    other = b"\\documentclass{article}\\begin{document}We apply Grad-CAM to a ViT-B/16.\\end{document}\n"
    z = make_zip(tmp_path / "two.zip", {**files, "zz/other.tex": other})
    assert doc_of(z)["path"].endswith("two.zip/main.tex")       # shallowest, main.tex first
    result = invoke("check", z, "--main", "zz/other.tex", "--format", "json")
    assert '"path": ' in result.output and "two.zip/zz/other.tex" in result.output
    missing = invoke("check", z, "--main", "nope.tex", "--format", "json").output
    assert "CAM002" in missing and "--main nope.tex" in missing


def _refusal(doc) -> dict:
    found = [f for f in doc["findings"] if f["code"] in ("CAM001", "CAM002", "CAM005")]
    assert found, doc["findings"]
    return found[0]


@pytest.mark.parametrize("member,code", [
    ("../escape.tex", "CAM001"),
    ("a/../../escape.tex", "CAM001"),
    ("/etc/escape.tex", "CAM001"),
    ("C:/Windows/escape.tex", "CAM001"),
    ("inner.zip", "CAM005"),
    ("deep/e-print.tar.gz", "CAM005"),
])
def test_hostile_member_names_refuse_the_archive(tmp_path, private_tmp, member, code):
    files = {"main.tex": _project_files()["main.tex"], member: b"\\documentclass{article}"}
    for made in (make_zip(tmp_path / "h.zip", files), make_tar(tmp_path / "h.tar.gz", files)):
        doc = doc_of(made)
        finding = _refusal(doc)
        assert finding["code"] == code and finding["file"].endswith(made.name)
        assert not doc["uses_cam_on_transformer"]
    assert not (tmp_path / "escape.tex").exists() and not (tmp_path.parent / "escape.tex").exists()
    assert list(private_tmp.iterdir()) == []


def test_links_and_special_files_are_refused(tmp_path, private_tmp):
    sym = tarfile.TarInfo("sections/method.tex")
    sym.type, sym.linkname = tarfile.SYMTYPE, "/etc/passwd"
    hard = tarfile.TarInfo("hard.tex")
    hard.type, hard.linkname = tarfile.LNKTYPE, "main.tex"
    fifo = tarfile.TarInfo("pipe.tex")
    fifo.type = tarfile.FIFOTYPE
    main = {"main.tex": _project_files()["main.tex"]}
    for info, word in ((sym, "link"), (hard, "link"), (fifo, "not a regular file")):
        doc = doc_of(make_tar(tmp_path / "l.tar", main, "w", extra=[info]))
        assert word in _refusal(doc)["message"]
    doc = doc_of(make_zip(tmp_path / "l.zip", main, links={"sections/method.tex": "/etc/passwd"}))
    assert "symbolic link" in _refusal(doc)["message"]
    assert list(private_tmp.iterdir()) == []


def test_too_many_members_refused(tmp_path, private_tmp):
    files = {f"f{i}.tex": b"x" for i in range(archive.MAX_MEMBERS + 1)}
    doc = doc_of(make_zip(tmp_path / "many.zip", files))
    assert "members" in _refusal(doc)["message"]


def test_zip_bomb_refused_by_bytes_actually_unpacked(tmp_path, private_tmp, monkeypatch):
    monkeypatch.setattr(archive, "MAX_UNPACKED_BYTES", 1_000_000)
    doc = doc_of(make_zip(tmp_path / "bomb.zip", {"main.tex": b"\\documentclass{article}", "zeros.tex": b"\0" * 3_000_000}))
    assert "zip bomb" in _refusal(doc)["message"]
    # headers that lie about the size are no way round: the limit counts decompressed bytes
    data = (tmp_path / "bomb.zip").read_bytes()
    with pytest.raises(archive.Refused):
        archive._read_bounded(lambda: zipfile.ZipFile(io.BytesIO(data)).open("zeros.tex"), 1000, "zeros.tex")


def test_damaged_archives_and_archives_without_a_main_file(tmp_path, private_tmp):
    junk = tmp_path / "junk.zip"
    junk.write_bytes(os.urandom(300))
    assert "not a readable zip" in _refusal(doc_of(junk))["message"]
    junk_tar = tmp_path / "junk.tgz"
    junk_tar.write_bytes(b"\x1f\x8b" + os.urandom(300))
    assert _refusal(doc_of(junk_tar))["code"] == "CAM005"
    none = make_zip(tmp_path / "none.zip", {"notes.tex": b"no class here"})
    assert "no main file" in _refusal(doc_of(none))["message"]


def test_members_are_written_only_inside_a_private_folder(tmp_path, private_tmp):
    members = archive.read_members(make_tar(tmp_path / "ok.tar", _project_files(), "w").read_bytes(), "ok.tar")
    with archive.unpacked(members) as root:
        assert root.parent == private_tmp
        assert oct(root.stat().st_mode & 0o777) == "0o700"
        written = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
        assert written == set(members)
    assert not root.exists()
