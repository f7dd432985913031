"""Whole-document results for the audit, so that a paper seen before costs a folder read, not a check.

The parse cache (camlint.inputs.cache) saves the LaTeX parse, but a warm check still extracts, judges
and runs the rules, most of a warm paper's time. A document's result depends only on the files
of its folder (no front end reads outside the main file's folder; a folder named as a paper is
resolved to its primary document from its own files), on the working directory (paths are
shown relative to it), and on camlint's own code and vocabulary. So the result is stored under
the hash of all of them: every entry of the folder, at any depth (name, type, and the content
of every regular file; a link's target as written), the working directory, and the bytes of
camlint's package files.
Anything in the folder that changes (a file edited, added, removed, renamed) gives another key,
and the paper is checked again.

Entries are signed like the parse cache's (HMAC under the per-user key), so an edited cache
file cannot change a record. A folder too large to read cheaply (a flat folder of many
submissions) is not cached: its papers are checked as usual. Any failure to read or write the
cache is ignored: it only ever saves time.
"""
from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import stat
import tempfile
from pathlib import Path

from camlint.inputs.cache import _secret, cache_dir

FORMAT = 1
MAX_ENTRIES = 256                  # entries of a paper's folder tree worth fingerprinting
MAX_BYTES = 64 * 1024 * 1024       # bytes hashed per paper; past either limit the paper is not cached
MAX_DEPTH = 32
MAX_ENTRY_FILE_BYTES = 16 * 1024 * 1024
DOCUMENT_FIELDS = ("document", "front_end", "uses_cam_on_transformer", "status", "citation", "presets",
                   "findings", "details")


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """camlint's own code and data (every package file), once per process: a changed rule,
    phrase or vocabulary entry changes every key, with or without a new version number."""
    import camlint

    top = Path(camlint.__file__).resolve().parent
    h = hashlib.sha256()
    for path in sorted(top.rglob("*")):
        if path.suffix in (".py", ".yaml", ".yml", ".json") and "__pycache__" not in path.parts and path.is_file():
            h.update(path.relative_to(top).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _listing(folder: Path) -> list[tuple] | None:
    """(name, file type, link target or size, path) of every entry below `folder`, links not
    followed; None past the limits (checked before any file is read) or when unreadable."""
    out: list[tuple] = []
    total, stack = 0, [("", str(folder), 0)]
    while stack:
        rel, path, depth = stack.pop()
        with os.scandir(path) as it:
            entries = sorted(it, key=lambda e: e.name)
        if len(out) + len(entries) > MAX_ENTRIES or depth > MAX_DEPTH:
            return None
        subdirs = []
        for e in entries:
            st = e.stat(follow_symlinks=False)
            name, kind = f"{rel}/{e.name}", stat.S_IFMT(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                out.append((name, kind, os.readlink(e.path), None))
            elif stat.S_ISREG(st.st_mode):
                total += st.st_size
                out.append((name, kind, st.st_size, e.path))
            else:
                out.append((name, kind, None, None))
                if stat.S_ISDIR(st.st_mode):
                    subdirs.append((name, e.path, depth + 1))
        stack.extend(reversed(subdirs))
    return out if total <= MAX_BYTES else None


def _hash_file(h, path: str) -> bool:
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
                 | getattr(os, "O_CLOEXEC", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):    # swapped since the listing: not cacheable now
            return False
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return True
            h.update(chunk)
    finally:
        os.close(fd)


def folder_fingerprint(folder: Path) -> str | None:
    """Hash of every entry below `folder` and of every regular file's bytes; None when too large
    or unreadable."""
    h = hashlib.sha256()
    try:
        listing = _listing(folder)
        if listing is None:
            return None
        for name, kind, extra, path in listing:
            h.update(f"{name}\0{kind}\0{extra}\0".encode("utf-8", "surrogateescape"))
            if path is not None and not _hash_file(h, path):
                return None
    except (OSError, RecursionError):
        return None
    return h.hexdigest()


class ResultCache:
    """get/put of one document's result fields, one signed file per document in the cache folder."""

    def __init__(self, folder: Path | None = None):
        self.folder = folder if folder is not None else cache_dir()
        self.secret = _secret(self.folder) if self.folder else None

    def key(self, target: Path) -> str | None:
        """The key of the result for `target` (a document, or a folder to resolve to its primary
        document) as things stand now; None: do not cache. Paths are shown relative to the
        working directory, so that is part of the key too."""
        if self.secret is None:
            return None
        tree = folder_fingerprint(target if target.is_dir() else target.parent)
        if tree is None:
            return None
        ident = json.dumps([FORMAT, code_digest(), str(target), os.getcwd(), tree])
        return hashlib.sha256(ident.encode("utf-8", "surrogateescape")).hexdigest()

    def _path(self, target: Path) -> Path:
        name = hashlib.sha256(str(target).encode("utf-8", "surrogateescape")).hexdigest()[:24]
        return self.folder / f"result-{name}.json"

    def _sign(self, key: str, body: str) -> str:
        return hmac.new(self.secret, (key + "\0" + body).encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()

    def get(self, target: Path, key: str) -> dict | None:
        from camlint.safety.safeio import read_regular

        try:
            stored = json.loads(read_regular(self._path(target), MAX_ENTRY_FILE_BYTES, "cache file"))
            body = stored["body"]
            if stored.get("key") != key or not isinstance(body, str) or \
                    not hmac.compare_digest(str(stored.get("sum")), self._sign(key, body)):
                return None
            fields = json.loads(body)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return None
        return fields if isinstance(fields, dict) and tuple(fields) == DOCUMENT_FIELDS else None

    def put(self, target: Path, key: str, fields: dict) -> None:
        try:
            body = json.dumps(fields, ensure_ascii=False)
            text = json.dumps({"format": FORMAT, "key": key, "sum": self._sign(key, body), "body": body})
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".result-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            try:
                os.replace(tmp, self._path(target))
            except OSError:
                os.unlink(tmp)
                raise
        except (OSError, ValueError, TypeError):
            pass


def result_cache() -> ResultCache | None:
    """The result cache of the cache folder in effect (its key is read once per process)."""
    folder = cache_dir()
    return _cache_in(folder) if folder is not None else None


@functools.lru_cache(maxsize=8)
def _cache_in(folder: Path) -> ResultCache | None:
    cache = ResultCache(folder)
    return cache if cache.secret is not None else None
