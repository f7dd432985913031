"""Content-addressed cache of parsed paragraphs, for repeated runs on the same manuscript.

Parsing LaTeX is the slow part of a check. A paragraph's units depend only on its raw text and
the project's macros, so they are stored under the hash of both, in one JSON file per
manuscript in the user's cache folder (never in the paper's folder). Only the entries used by
the latest run are kept, so the file stays the size of the project. Any failure to read or
write the cache is ignored: it only ever saves time.

An entry is trusted only if it is intact and consistent with the text it claims to stand for:
its key is the hash of the camlint version, the macros and the paragraph; it carries an HMAC
of key and content under a random per-user key (cache folder, mode 0600), so an edited entry
cannot be re-signed without that key; its shape is validated; and every run of text it copied verbatim from the
paragraph must still match the paragraph. Anything else is ignored and the paragraph reparsed,
so a damaged or tampered cache file cannot change a report.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from camlint import __version__

FORMAT = 3   # bumped whenever the text a paragraph converts to changes
_KINDS = {"text", "caption", "footnote", "row", "item", "heading", "title", "code"}


def cache_dir() -> Path | None:
    if os.environ.get("CAMLINT_NO_CACHE"):
        return None
    if os.environ.get("CAMLINT_CACHE_DIR"):
        return Path(os.environ["CAMLINT_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "camlint"


class ParseCache:
    def __init__(self, main: Path, macros: dict[str, str], folder: Path | None = None):
        self.folder = folder if folder is not None else cache_dir()
        name = hashlib.sha256(str(main.resolve()).encode()).hexdigest()[:24]
        self.secret = _secret(self.folder) if self.folder else None
        self.path = self.folder / f"parse-{name}.json" if self.folder and self.secret else None
        self.macros = macros
        # hashed once: prefixing every paragraph with the macros was quadratic in their number
        self.salt = _sha(f"{__version__}/{FORMAT}/" + json.dumps(macros, sort_keys=True))
        self.old: dict = self._load()
        self.new: dict = {}
        self.hits = self.misses = 0

    def _load(self) -> dict:
        if self.path is None:
            return {}
        try:
            from camlint.safety.safeio import read_regular

            data = json.loads(read_regular(self.path, MAX_CACHE_BYTES, "cache file"))
            entries = data["entries"] if data.get("format") == FORMAT else {}
            return entries if isinstance(entries, dict) else {}
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            return {}

    def units(self, f, start: int, chunk: str, section, macros, convert) -> list:
        from camlint.inputs.latex.units import Citation, Unit

        if self.path is None:     # no cache folder: nothing to look up or to sign
            return convert(chunk, f, section, start, macros)
        key = _sha(self.salt + chunk)
        stored = self.new.get(key) or self.old.get(key)
        entry = stored["units"] if stored is not None and _valid(self.secret, key, stored, chunk) else None
        if entry is not None:
            self.hits += 1
            self.new[key] = stored
            return [Unit(u["kind"], f, section, u["float"], u["text"], u["out"],
                         [start + s for s in u["src"]], u["exact"],
                         [Citation(p, tuple(k)) for p, k in u["cites"]]) for u in entry]
        self.misses += 1
        units = convert(chunk, f, section, start, macros)
        entry = [{"kind": u.kind, "float": u.float_env, "text": u.text, "out": u.out,
                  "src": [s - start for s in u.src], "exact": u.exact,
                  "cites": [[c.position, list(c.keys)] for c in u.cites]} for u in units]
        self.new[key] = {"units": entry, "sum": _checksum(self.secret, key, entry)}
        return units

    def save(self) -> None:
        if self.path is None or self.misses == 0 and len(self.new) == len(self.old):
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".parse-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                # dumps, not dump: only the one-shot encoder is the C one (same text, several times faster)
                fh.write(json.dumps({"format": FORMAT, "entries": self.new}))
            os.replace(tmp, self.path)
        except OSError:
            pass


MAX_CACHE_BYTES = 256 * 1024 * 1024


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _secret(folder: Path) -> bytes | None:
    """The per-user HMAC key of the cache (made on first use); None when it cannot be had, or
    cannot be trusted: a key that is a link, or that someone else owns or may read or write (a
    shared /tmp cache, a key planted by another user). Only the key matters: without it no entry
    can be signed, so a folder others may write into can lose entries, never forge them."""
    path = folder / "hmac.key"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(fd, "wb") as fh:
                fh.write(os.urandom(32))
        except FileExistsError:
            pass
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as fh:
            if not _private(os.fstat(fh.fileno())):
                return None
            key = fh.read(33)
        return key if len(key) == 32 else None
    except (OSError, ValueError):
        return None


def _private(st: os.stat_result) -> bool:
    """A regular file owned by this user that no one else may read or write."""
    import stat

    if not stat.S_ISREG(st.st_mode):
        return False
    if not hasattr(os, "geteuid"):       # Windows: the user's profile folder is private already
        return True
    return st.st_uid == os.geteuid() and not st.st_mode & 0o077


def _checksum(secret: bytes | None, key: str, entry: list) -> str:
    import hmac

    body = (key + json.dumps(entry, sort_keys=True, ensure_ascii=True)).encode()
    return hmac.new(secret or b"", body, hashlib.sha256).hexdigest()


def _valid(secret: bytes | None, key: str, stored, chunk: str) -> bool:
    """Whether a stored entry is intact (checksum), of the right shape, and agrees with the
    paragraph it was parsed from (every verbatim run)."""
    try:
        entry = stored["units"]
        import hmac

        if not isinstance(entry, list) or not hmac.compare_digest(str(stored.get("sum")), _checksum(secret, key, entry)):
            return False
        return all(_unit_ok(u, chunk) for u in entry)
    except (TypeError, KeyError, AttributeError, ValueError):
        return False


def _unit_ok(u: dict, chunk: str) -> bool:
    text, out, src, exact, cites = u["text"], u["out"], u["src"], u["exact"], u["cites"]
    if not (u["kind"] in _KINDS and isinstance(u["float"], str) and isinstance(text, str)):
        return False
    if not (isinstance(out, list) and isinstance(src, list) and isinstance(exact, list)
            and len(out) == len(src) == len(exact) and isinstance(cites, list)):
        return False
    ints = out + src + [c[0] for c in cites]
    if not all(type(i) is int for i in ints) or not all(type(e) is bool for e in exact):
        return False
    if out != sorted(out) or any(not 0 <= o <= len(text) for o in out) or any(not 0 <= s <= len(chunk) for s in src):
        return False
    if not all(len(c) == 2 and isinstance(c[1], list) and all(isinstance(k, str) for k in c[1]) for c in cites):
        return False
    bounds = out[1:] + [len(text)]
    for o, s, e, stop in zip(out, src, exact, bounds):
        run = text[o:stop]
        # a verbatim run is the paragraph's text with line breaks as spaces (table & as |)
        if e and run != chunk[s:s + len(run)].replace("\n", " ") and \
                run != chunk[s:s + len(run)].replace("\n", " ").replace("&", "|"):
            return False
    return True
