"""Content-addressed cache of parsed paragraphs, for repeated runs on the same manuscript.

Parsing LaTeX is the slow part of a check. A paragraph's units depend only on its raw text and
the project's macros, so they are stored under the hash of both, in one JSON file per
manuscript in the user's cache folder (never in the paper's folder). Only the entries used by
the latest run are kept, so the file stays the size of the project. Any failure to read or
write the cache is ignored: it only ever saves time.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from camlint import __version__

FORMAT = 1


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
        self.path = self.folder / f"parse-{name}.json" if self.folder else None
        self.macros = macros
        self.salt = f"{__version__}/{FORMAT}/" + json.dumps(macros, sort_keys=True)
        self.old: dict = self._load()
        self.new: dict = {}
        self.hits = self.misses = 0

    def _load(self) -> dict:
        if self.path is None:
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return data["entries"] if data.get("format") == FORMAT else {}
        except (OSError, ValueError, KeyError, TypeError):
            return {}

    def units(self, f, start: int, chunk: str, section, macros, convert) -> list:
        from camlint.latex.units import Unit

        key = hashlib.sha256((self.salt + chunk).encode("utf-8", "surrogatepass")).hexdigest()
        entry = self.old.get(key)
        if entry is None:
            entry = self.new.get(key)
        if entry is not None:       # an empty list too: a paragraph that yields no units is a hit
            self.hits += 1
            self.new[key] = entry
            return [Unit(u["kind"], f, section, u["float"], u["text"], u["out"],
                         [start + s for s in u["src"]], u["exact"],
                         [(p, tuple(k)) for p, k in u["cites"]]) for u in entry]
        self.misses += 1
        units = convert(chunk, f, section, start, macros)
        self.new[key] = [{"kind": u.kind, "float": u.float_env, "text": u.text, "out": u.out,
                          "src": [s - start for s in u.src], "exact": u.exact,
                          "cites": [[p, list(k)] for p, k in u.cites]} for u in units]
        return units

    def save(self) -> None:
        if self.path is None or self.misses == 0 and len(self.new) == len(self.old):
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".parse-", suffix=".tmp")
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"format": FORMAT, "entries": self.new}, fh)
            os.replace(tmp, self.path)
        except OSError:
            pass
