"""Archives (Overleaf .zip exports, arXiv .tar.gz e-prints): checked inside a private folder.

Every member is vetted before anything is written: a path that is absolute or climbs out with
`..`, a link, a device or FIFO, a nested archive, a duplicate name, too many members or too many
bytes once uncompressed (counted while decompressing, not taken from the headers) refuses the
whole archive with a finding. Accepted members are written, without following any link, into a
fresh folder only this user can read, which is removed afterwards. Reports name files as
`paper.zip/sections/method.tex`.
"""
from __future__ import annotations

import bz2
import io
import lzma
import os
import re
import shutil
import stat
import struct
import tarfile
import tempfile
import zipfile
import zlib
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from camlint.checklist.analysis import Analysis
from camlint.inputs.kinds import front_end_of
from camlint.inputs.latex.analyze import analyze_latex
from camlint.inputs.readers import analyze, paginate
from camlint.inputs.textfile import read_limited
from camlint.rules.engine import report_of
from camlint.rules.base import Rule
from camlint.rules.input import INCLUDE_MISSING, INCLUDE_OUTSIDE_PROJECT, UNREADABLE_INPUT
from camlint.safety.paths import utf8_name

MAX_ARCHIVE_BYTES = 64 * 1024 * 1024       # the archive file itself
MAX_MEMBERS = 2000
MAX_UNPACKED_BYTES = 128 * 1024 * 1024     # all members together, uncompressed
MAX_NAME = 1024                            # characters in a member's path
NESTED = (".zip", ".tar", ".tgz", ".gz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tbz2", ".txz")
MAIN_NAMES = ("main.tex", "ms.tex", "paper.tex", "manuscript.tex", "article.tex")
_DOCUMENTCLASS = re.compile(rb"^[^%\n]*\\documentclass", re.M)
_HEAD = 64 * 1024


class Refused(Exception):
    """A hostile or oversized archive: (the rule it breaks, message)."""

    def __init__(self, rule: Rule, message: str):
        super().__init__(message)
        self.rule, self.message = rule, message


def check_archive(path: Path, display: str, *, spec: Path | None = None, config=None, main: str | None = None):

    data = read_limited(path, MAX_ARCHIVE_BYTES)
    try:
        members = read_members(data, path.name.lower())
        with unpacked(members) as root:
            inner = find_main(root, members, main)
            analysis = _analyze_inner(root / inner, f"{display}/{inner}", spec)
            return paginate(report_of(analysis, config), analysis)
    except Refused as exc:
        a = Analysis(path=display, kind="archive", uses_cam=False)
        a.anchor = (display, 1, 1)
        a.problems.append(exc.rule.hit(
            exc.message, display, 1, 1,
            hint="Check the unpacked sources instead, after looking at what the archive holds."))
        return report_of(a, config)


def _analyze_inner(file: Path, display: str, spec: Path | None):
    kind = front_end_of(file)
    if kind is None:
        analysis = analyze_latex(file, display, spec=spec, use_cache=False)   # no cache for a temporary path
    elif kind == "archive":
        raise Refused(UNREADABLE_INPUT, "nested archive named as the main file")
    else:
        analysis = analyze(file, display, kind, spec=spec)
    analysis.kind = f"archive:{analysis.kind}"
    return analysis


def _check_name(name: str, folder: bool = False) -> str:
    """The member's relative POSIX path, or Refused."""
    if len(name) > MAX_NAME:
        raise Refused(INCLUDE_OUTSIDE_PROJECT, f"member name {name[:60]!r}... is over {MAX_NAME} characters")
    if not utf8_name(name):   # tar decodes other bytes to lone surrogates, which no report can encode
        raise Refused(UNREADABLE_INPUT, f"member name {ascii(name)} is not UTF-8 text")
    if "\x00" in name or any(ord(c) < 32 for c in name):
        raise Refused(INCLUDE_OUTSIDE_PROJECT, f"member name {name!r} has control characters")
    norm = name.replace("\\", "/")
    if norm.startswith("/") or re.match(r"^[A-Za-z]:", norm):
        raise Refused(INCLUDE_OUTSIDE_PROJECT, f"member {name!r} has an absolute path")
    parts = [p for p in PurePosixPath(norm).parts if p not in ("", ".")]
    if ".." in parts:
        raise Refused(INCLUDE_OUTSIDE_PROJECT, f"member {name!r} climbs out of the archive with '..'")
    if not parts and not folder:
        raise Refused(INCLUDE_OUTSIDE_PROJECT, f"member {name!r} has an empty path")
    return "/".join(parts)


def _vet(name: str, seen: set, count: int, total: int) -> str:
    rel = _check_name(name)
    if count > MAX_MEMBERS:
        raise Refused(UNREADABLE_INPUT, f"more than {MAX_MEMBERS} members")
    if total > MAX_UNPACKED_BYTES:
        raise Refused(UNREADABLE_INPUT, f"more than {MAX_UNPACKED_BYTES // 2**20} MB once uncompressed (a zip bomb?)")
    if rel.lower().endswith(NESTED):
        raise Refused(UNREADABLE_INPUT, f"nested archive {rel}: unpack it and check its contents instead")
    if rel in seen:
        raise Refused(UNREADABLE_INPUT, f"member {rel} appears twice")
    seen.add(rel)
    return rel


def read_members(data: bytes, name: str) -> dict[str, bytes]:
    """Relative path -> content of every regular member, or Refused."""
    if name.endswith(".zip"):
        return _zip_members(data)
    return _tar_members(data)


# zipfile parses the whole central directory into objects before its length can be checked: a
# 64 MB zip of 1.4 million empty members took 400 MB. Entries past ~1 KB each are not written by
# any tool; the directory's size is read from the end record first.
MAX_DIRECTORY_BYTES = MAX_MEMBERS * 4096


def _directory_bytes(data: bytes) -> int:
    try:
        end = zipfile._EndRecData(io.BytesIO(data))     # private, but the only way before ZipFile()
        return 0 if end is None else int(end[zipfile._ECD_SIZE])
    except (AttributeError, IndexError, TypeError, ValueError, OSError, struct.error):
        return 0                                        # ZipFile() itself says what is wrong


def _zip_members(data: bytes) -> dict[str, bytes]:
    if (size := _directory_bytes(data)) > MAX_DIRECTORY_BYTES:
        raise Refused(UNREADABLE_INPUT, f"its central directory is {size // 1024} KB: room for more members "
                                        f"than the limit of {MAX_MEMBERS}")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise Refused(UNREADABLE_INPUT, f"not a readable zip archive ({exc})") from None
    out: dict[str, bytes] = {}
    seen: set = set()
    total = 0
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise Refused(UNREADABLE_INPUT, f"{len(infos)} members, over the limit of {MAX_MEMBERS}")
    try:
        for count, info in enumerate(infos, 1):
            total += _zip_member(zf, info, count, total, seen, out)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError, ValueError, zlib.error) as exc:
        raise Refused(UNREADABLE_INPUT, f"damaged zip archive ({exc})") from None
    return out


def _zip_member(zf, info, count: int, total: int, seen: set, out: dict) -> int:
    """Vet and read one zip member; the bytes it added."""
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        raise Refused(INCLUDE_OUTSIDE_PROJECT, f"member {info.filename!r} is a symbolic link")
    if info.is_dir():
        _check_name(info.filename, folder=True)
        return 0
    if stat.S_IFMT(mode) and not stat.S_ISREG(mode):   # no type bits at all: a plain file (writestr)
        raise Refused(INCLUDE_OUTSIDE_PROJECT, f"member {info.filename!r} is not a regular file")
    if info.flag_bits & 0x1:
        raise Refused(UNREADABLE_INPUT, f"member {info.filename!r} is encrypted")
    rel = _vet(info.filename, seen, count, total + info.file_size)
    out[rel] = _read_bounded(lambda: zf.open(info), MAX_UNPACKED_BYTES - total, rel)
    return len(out[rel])


# A tar's own headers (folders, pax records, long names) are read in full by tarfile, so the whole
# stream is decompressed here first, never past the unpacked limit plus room for headers.
_TAR_LIMIT = MAX_UNPACKED_BYTES + (MAX_MEMBERS + 1) * 4 * 512


def _decompressed(data: bytes, limit: int = _TAR_LIMIT) -> bytes:
    """The tar stream inside a .gz/.bz2/.xz (or `data` itself), Refused past `limit` bytes.

    Concatenated streams are read one after another; trailing bytes that do not start another are
    padding. Input goes in by offsets, in chunks that double within a stream: the remainder
    handed to each new stream was a copy of the rest of the file, and 400 KB of empty gzip members
    took 6 s (64 MB: days)."""
    make = _DECOMPRESSORS.get(data[:6]) or _DECOMPRESSORS.get(data[:3]) or _DECOMPRESSORS.get(data[:2])
    if make is None:
        return data
    out, total, pos, view = [], 0, 0, memoryview(data)
    try:
        while pos < len(data):
            dec, chunk = make(), 256
            while not dec.eof:
                if pos >= len(data):
                    raise Refused(UNREADABLE_INPUT, "a truncated compressed tar archive")
                part = dec.decompress(view[pos:pos + chunk], limit + 1 - total)
                pos, chunk, total = pos + min(chunk, len(data) - pos), min(chunk * 2, 1 << 20), total + len(part)
                out.append(part)
                if total > limit:
                    raise Refused(UNREADABLE_INPUT, f"more than {limit // 2**20} MB once uncompressed (a bomb?)")
            pos -= len(dec.unused_data)                      # at most one chunk: no copy of the rest
            if data[pos:pos + 2] != data[:2]:                # not another stream: trailing padding
                break
    except (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError) as exc:
        raise Refused(UNREADABLE_INPUT, f"not a readable compressed tar archive ({exc})") from None
    return b"".join(out)


_DECOMPRESSORS = {b"\x1f\x8b": lambda: zlib.decompressobj(wbits=31),   # one gzip member each
                  b"BZh": bz2.BZ2Decompressor, b"\xfd7zXZ\x00": lzma.LZMADecompressor}


def _tar_members(data: bytes) -> dict[str, bytes]:
    try:
        tf = tarfile.open(fileobj=io.BytesIO(_decompressed(data)), mode="r:")
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise Refused(UNREADABLE_INPUT, f"not a readable tar archive ({exc})") from None
    out: dict[str, bytes] = {}
    seen: set = set()
    total = count = 0
    try:
        while True:
            info = tf.next()       # headers only: data is skipped unless read below
            if info is None:
                break
            count += 1
            if count > MAX_MEMBERS:     # folders count too: 200,000 of them fit in a 1 MB .tar.gz
                raise Refused(UNREADABLE_INPUT, f"more than {MAX_MEMBERS} members")
            if info.issym() or info.islnk():
                raise Refused(INCLUDE_OUTSIDE_PROJECT, f"member {info.name!r} is a link")
            if info.isdir():
                _check_name(info.name, folder=True)
                continue
            if not info.isreg():
                raise Refused(INCLUDE_OUTSIDE_PROJECT, f"member {info.name!r} is not a regular file")
            rel = _vet(info.name, seen, count, total + info.size)
            out[rel] = _read_bounded(lambda: tf.extractfile(info), info.size, rel)
            total += len(out[rel])
    except (tarfile.TarError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise Refused(UNREADABLE_INPUT, f"damaged archive ({exc})") from None
    finally:
        tf.close()
    return out


def _read_bounded(opener, limit: int, rel: str) -> bytes:
    with opener() as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise Refused(UNREADABLE_INPUT, f"{rel} unpacks to more than the size limit (a zip bomb?)")
    return data


@contextmanager
def unpacked(members: dict[str, bytes]):
    """A private temporary folder holding the members; removed on exit."""
    root = Path(tempfile.mkdtemp(prefix="camlint-archive-"))     # mode 0700
    try:
        for rel, content in members.items():
            _write_member(root, rel, content)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _write_member(root: Path, rel: str, content: bytes) -> None:
    dest = root.joinpath(*rel.split("/"))
    try:
        dest.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(dest, flags, 0o600)
    except (FileExistsError, NotADirectoryError, IsADirectoryError):    # `a` and `a/b.tex` both members
        raise Refused(UNREADABLE_INPUT, f"{rel} and another member are a file and a folder of the same name") from None
    except OSError as exc:
        raise Refused(UNREADABLE_INPUT, f"cannot unpack {rel} ({exc.strerror or exc})") from None
    with os.fdopen(fd, "wb") as fh:
        fh.write(content)


def find_main(root: Path, members: dict[str, bytes], main: str | None) -> str:
    """The member to check: --main NAME, else the .tex with \\documentclass (main.tex first)."""
    if main:
        want = main.replace("\\", "/").strip("/")
        hits = [r for r in members if r == want] or [r for r in members if r.rsplit("/", 1)[-1] == want]
        if len(hits) != 1:
            raise Refused(INCLUDE_MISSING,
                          f"--main {main}: {'no such member' if not hits else 'several members match'}")
        return hits[0]
    mains = [r for r, c in members.items() if r.lower().endswith(".tex") and _DOCUMENTCLASS.search(c[:_HEAD])]
    if mains:
        return min(mains, key=lambda r: (r.count("/"), r.rsplit("/", 1)[-1].lower() not in MAIN_NAMES, r))
    others = [r for r in members if front_end_of(Path(r)) in ("pdf", "markdown")]
    if len(others) == 1:
        return others[0]
    raise Refused(INCLUDE_MISSING, "no main file: no .tex file with \\documentclass (name one with --main NAME)")
