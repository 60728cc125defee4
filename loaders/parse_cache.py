"""Work kept between rebuilds, so that a rebuild redoes only what its inputs changed.

A rebuild used to parse every raw file on every run: 5.5 s of CPU for 20 ICE workbooks, and the ICE folder went
from 20 to over 100 releases (issue 39). Two kinds of entry are kept in a folder outside the tracked tree
(``data/raw-cache/`` for ``python -m loaders rebuild --out data``, git-ignored), each used only when nothing that
made it has changed. Only sources that ask for it (``Source.cache_parses``) are kept.

**A file's parse** (``ParseCache.get``/``put``), keyed by the sha256 of the entry format, the source id, the file's
bytes (their sha256) and name (ICE's names carry the release date), and the digest of the code that parse runs
(``parse_digest``): the source's own module and every ``loaders`` module it imports, directly or not, with the two
modules that run a parser (``pipeline.py``, ``limits.py``), and the versions of the packages that read the bytes.
That digest is the one mechanism that tells an old parse from a new one: an edit to the parser makes new entries
without anyone bumping a number, and an edit to an unrelated loader (another source, the snapshot writer) leaves
the ICE entries valid.

**A file's part** (``ParseCache.get_part``/``put_part``; ``loaders.parts``) of its source's result: its rows
validated, checked on their own (``Source.check_file``) and marked, its findings, each row's stored key, date,
flag and CSV line, its reference tables and its manifest facts. Keyed by the entry format, the source id, the
file's bytes and name and ``result_digest`` (all that runs after the parse). Kept only for a source whose checks
are split per file and across files; then a rebuild after one new release parses, validates and checks that
file alone, and puts the result together from the parts (``parts.assemble``).

**A source's result** (``ParseCache.get_result``/``put_result``): its rows validated and checked, its findings,
its files' manifest entries, its reference tables and its rows as the CSV text the snapshot holds, with the
facts its manifest entry gives of them (rows, first and last date). Keyed by the
entry format, the source id, every input file's name, bytes and download record (in order), and the digest of
everything that runs after the parse (``result_digest``: every ``loaders/*.py``, and the tables beside them that
decide a file's origin), and the bytes of the origins table in use (``loaders.origins.PATH``, which may be kept
elsewhere). A rebuild whose inputs are all unchanged (a warm full rebuild) takes the whole source from
here: no rows are read, validated, checked or formatted again.

An entry is one zip file: ``meta.json`` (the key and what it was made from) and its frames as Arrow IPC (read three
times faster than parquet, 9 ms against 29 ms for a FY2026 workbook whose parse takes 75 ms); reference tables,
a part's findings and its lines are kept as text (the rebuild keeps reference tables as text,
``pipeline.combine_tables``; a small Arrow member costs a millisecond to read however few its rows). An entry is
used only when every member reads whole with its checksum and its key is the one asked for;
anything else -- a cut-off write, a flipped byte, another code's entry, a file that is no zip -- is
ignored, the work done again, and the entry rewritten. Entries are written to a temporary name and renamed, so a
rebuild stopped half-way leaves no half-written entry under a real name. The snapshot a rebuild writes is the same
bytes with and without the cache, warm or cold (tests/test_parse_cache.py compares them byte for byte).
"""
from __future__ import annotations

import ast
import functools
import hashlib
import importlib.metadata
import io
import json
import os
import sys
import tempfile
import zipfile
from pathlib import Path

import pandas as pd
from pyarrow import feather

from .base import Parsed, Source
from .parts import FINDING_COLUMNS, LINE_COLUMNS, ArrowRows, Part
from .stored import StoredText

FORMAT = 5  # the layout of an entry; a change makes every older entry a miss (1: parquet members; 2: no results;
#            3: a parse's tables as Arrow members; 4: no parts, a result without its manifest facts)
HERE = Path(__file__).resolve().parent
# What runs a parser besides the source's own modules (``pipeline._parse_raw``, ``_frames_of``).
PARSE_RUNNERS = ("pipeline", "limits")
# The packages that turn a file's bytes into frames: their version is part of what made a parse.
PARSE_PACKAGES = ("pandas", "numpy", "pyarrow", "python-calamine", "openpyxl")


def _imports(module: str) -> set[str]:
    """The ``loaders`` modules that ``loaders.<module>`` imports (relative or absolute), read from its source."""
    tree = ast.parse((HERE / f"{module}.py").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1 or base == "loaders" or base.startswith("loaders."):
                base = base.removeprefix("loaders").lstrip(".")
                if base:
                    found.add(base.split(".")[0])
                else:  # ``from . import a, b``
                    found.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("loaders."))
    return {m for m in found if (HERE / f"{m}.py").is_file()}


def import_closure(module: str) -> list[str]:
    """``module`` and every ``loaders`` module it imports, directly or through others, in name order."""
    seen: set[str] = set()
    todo = [module]
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(_imports(m) - seen)
    return sorted(seen)


def _digest(names: list[str], extra: list[str]) -> str:
    h = hashlib.sha256()
    for n in names:
        h.update(n.encode() + b"\0" + (HERE / n).read_bytes() + b"\0")
    for e in extra:
        h.update(e.encode() + b"\0")
    return h.hexdigest()


def _versions(packages) -> list[str]:
    out = [sys.version.split()[0]]
    for p in packages:
        try:
            out.append(f"{p}={importlib.metadata.version(p)}")
        except importlib.metadata.PackageNotFoundError:
            out.append(f"{p}=none")
    return out


@functools.lru_cache(maxsize=None)
def parse_digest(module: str) -> str:
    """sha256 over the code a parse by ``loaders.<module>`` runs: that module's import closure within ``loaders``,
    the modules that run parsers (``PARSE_RUNNERS``) and the reading packages' versions."""
    mods = set(PARSE_RUNNERS) | (set(import_closure(module)) if (HERE / f"{module}.py").is_file() else set())
    return _digest([f"{m}.py" for m in sorted(mods)], _versions(PARSE_PACKAGES) + [module])


@functools.lru_cache(maxsize=1)
def result_digest() -> str:
    """sha256 over everything a source's result comes from besides its inputs: all of ``loaders`` (validation,
    the checks, the origins and their tables), and the packages' versions."""
    names = sorted(p.name for p in HERE.iterdir() if p.suffix in (".py", ".csv") and p.is_file())
    return _digest(names, _versions(PARSE_PACKAGES))


def _module_of(source: Source) -> str:
    return getattr(source.parse, "__module__", "").removeprefix("loaders.")


class ParseCache:
    """A folder of kept work: one zip per file's parse, one per source's result (see the module notes)."""

    def __init__(self, folder: Path | str):
        self.folder = Path(folder)
        self.hits = self.misses = 0

    # ---------------------------------------------------------------- a file's parse

    def key(self, source: Source, content: bytes, name: str, digest: str | None = None) -> str | None:
        """The parse entry's key, or None for a source that does not ask for its work to be kept. ``digest``: the
        bytes' sha256 when the caller has it (each file is hashed once per rebuild)."""
        if not source.cache_parses:
            return None
        parts = [str(FORMAT), "parse", source.id, parse_digest(_module_of(source)),
                 digest or hashlib.sha256(content).hexdigest(), name]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def _path(self, source: Source, key: str) -> Path:
        return self.folder / source.id / f"{key}.zip"

    def get(self, source: Source, content: bytes, name: str, digest: str | None = None) -> Parsed | None:
        """The kept parse of this file, or None (not kept, or an entry that cannot be trusted)."""
        key = self.key(source, content, name, digest)
        if key is None:
            return None
        got = _read(self._path(source, key), key)
        if got is None:
            self.misses += 1
            return None
        self.hits += 1
        return Parsed(got["obs"], _tables_of(got["text:tables.json"]))

    def put(self, source: Source, content: bytes, name: str, parsed: Parsed, digest: str | None = None) -> None:
        """Keep ``parsed`` for this file; a failure to write costs the entry, never the rebuild."""
        key = self.key(source, content, name, digest)
        if key is not None:
            _write(self._path(source, key), key, {"source": source.id, "file": name}, {"obs": parsed.obs},
                   {"tables.json": _tables_text(parsed.tables)})

    # ---------------------------------------------------------------- a file's part of its source's result

    def part_key(self, source: Source, content: bytes, name: str, digest: str | None = None) -> str | None:
        """The part entry's key: the file's bytes and name, and everything after the parse (``result_digest``)."""
        if not source.cache_parses:
            return None
        parts = [str(FORMAT), "part", source.id, result_digest(), digest or hashlib.sha256(content).hexdigest(), name]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def _part_path(self, source: Source, key: str) -> Path:
        return self.folder / source.id / "parts" / f"{key}.zip"

    def get_part(self, source: Source, content: bytes, name: str, digest: str | None = None) -> Part | None:
        """The kept part of this file (``loaders.parts``), or None."""
        key = self.part_key(source, content, name, digest)
        got = _read(self._part_path(source, key), key, arrow=("obs",)) if key is not None else None
        if got is None:
            return None
        meta = got["meta"]
        lines = None
        if meta["has_lines"]:  # no field of these rows holds a line break (``parts._lines``): one text each
            rows = got["obs"].table.num_rows
            lines = pd.DataFrame({c: _split(got[f"text:{c}"], rows) for c in LINE_COLUMNS}, dtype=object)
        findings = pd.DataFrame(json.loads(got["text:findings.json"]), columns=FINDING_COLUMNS, dtype=object)
        return Part(got["obs"], findings, lines, _tables_of(got["text:tables.json"]), tuple(meta["facts"]))

    def put_part(self, source: Source, content: bytes, name: str, part: Part, digest: str | None = None) -> None:
        key = self.part_key(source, content, name, digest)
        if key is None:
            return
        # Small or textual members are kept as text: an Arrow member costs a millisecond to read however small
        # (0.1 s for 107 files' few findings), and the lines are read back by splitting one string.
        texts = {"tables.json": _tables_text(part.tables),
                 "findings.json": json.dumps(part.findings.reindex(columns=FINDING_COLUMNS).astype(str)
                                             .to_numpy().tolist())}
        if part.lines is not None:
            texts |= {c: "\n".join(part.lines[c].tolist()) for c in LINE_COLUMNS}
        _write(self._part_path(source, key), key,
               {"source": source.id, "file": name, "facts": list(part.facts), "has_lines": part.lines is not None},
               {"obs": part.obs}, texts)

    # ---------------------------------------------------------------- a source's result

    def result_key(self, source: Source, inputs: list[tuple[str, str, bytes | None]],
                   context: bytes = b"") -> str | None:
        """The result entry's key for ``inputs``: (name, sha256 of the bytes, download record's bytes or None) of
        every file the source is built from, in the order the rebuild reads them; ``context``: anything else the result
        is read from (the origins table in use, which a deployment or a test may keep elsewhere); None when
        the source keeps no work."""
        if not source.cache_parses:
            return None
        parts = [str(FORMAT), "result", source.id, result_digest(), hashlib.sha256(context).hexdigest()]
        for name, digest, side in inputs:
            parts += [name, digest,
                      "-" if side is None else hashlib.sha256(side).hexdigest()]
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def get_result(self, source: Source, key: str | None) -> tuple | None:
        """(obs, flags, files, tables, stored) kept under ``key``, or None; ``stored``: a ``StoredText``."""
        if key is None:
            return None
        got = _read(self.folder / source.id / "results" / f"{key}.zip", key)
        if got is None:
            return None
        meta = got["meta"]
        tables = {t: got[f"table-{t}"] for t in meta["tables"]}
        return (got["obs"], got["flags"], meta["files"], tables,
                StoredText(got["text:obs.csv"], *meta["stored"]))

    def put_result(self, source: Source, key: str | None, obs: pd.DataFrame, flags: pd.DataFrame,
                   files: list[dict], tables: dict[str, pd.DataFrame], stored: StoredText) -> None:
        if key is None:
            return
        frames = {"obs": obs, "flags": flags} | {f"table-{t}": df for t, df in tables.items()}
        _write(self.folder / source.id / "results" / f"{key}.zip", key,
               {"source": source.id, "files": files, "tables": sorted(tables), "stored": list(stored[1:])},
               frames, {"obs.csv": stored.text})


def _tables_text(tables: dict[str, pd.DataFrame]) -> str:
    # A parse's reference tables are a few small tables: as one JSON text they read in a fraction of a
    # millisecond, where one Arrow member each cost 3 ms to read (0.9 s for 107 ICE releases).
    return json.dumps({t: {"columns": [str(c) for c in df.columns], "rows": df.astype(str).to_numpy().tolist()}
                       for t, df in tables.items()}, sort_keys=True)


def _tables_of(text: str) -> dict[str, pd.DataFrame]:
    return {t: pd.DataFrame(v["rows"], columns=v["columns"], dtype=object) for t, v in json.loads(text).items()}


def _split(text: str, n: int) -> list[str]:
    """The ``n`` values joined by line breaks in ``text``."""
    return text.split("\n") if n else []


def _arrow(df: pd.DataFrame) -> bytes:
    buf = io.BytesIO()
    df.reset_index(drop=True).to_feather(buf)
    return buf.getvalue()


def _write(path: Path, key: str, meta: dict, frames: dict[str, pd.DataFrame], texts: dict[str, str]) -> None:
    """One entry, written whole under a temporary name and renamed; a failure costs the entry only."""
    # Arrow reads text back as pandas' string type: the columns held as Python objects are said so, and made
    # objects again when read, so that what is read is what was kept, to the dtype.
    meta = dict(meta, format=FORMAT, key=key, frames=sorted(frames), texts=sorted(texts),
                object_columns={n: [c for c in df.columns if df[c].dtype == object] for n, df in frames.items()})
    try:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
            z.writestr("meta.json", json.dumps(meta, sort_keys=True))
            for n, df in frames.items():
                z.writestr(f"{n}.arrow", _arrow(df))
            for n, text in texts.items():
                z.writestr(f"text-{n}", text.encode("utf-8"))
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".part-", suffix=".zip")
        with os.fdopen(fd, "wb") as f:
            f.write(buf.getvalue())
        os.replace(tmp, path)
    except OSError:
        return


def _read(path: Path, key: str, arrow: tuple[str, ...] = ()) -> dict | None:
    """The entry at ``path`` if it is whole and is the one for ``key``: its frames by name, its texts as
    ``text:<name>`` and its ``meta``; else None. The frames named in ``arrow`` come as Arrow tables
    (``parts.ArrowRows``), made into pandas frames later, many at once."""
    try:
        with zipfile.ZipFile(path) as z:
            # Every member is read whole below, and reading a member whole checks its CRC (a mismatch raises),
            # so a flipped byte is caught without a first pass over the bytes (``testzip``).
            meta = json.loads(z.read("meta.json"))
            if meta.get("format") != FORMAT or meta.get("key") != key:
                return None
            out: dict = {"meta": meta}
            for n in meta["frames"]:
                if n in arrow:
                    out[n] = ArrowRows(feather.read_table(io.BytesIO(z.read(f"{n}.arrow"))),
                                       tuple(meta["object_columns"][n]))
                    continue
                df = pd.read_feather(io.BytesIO(z.read(f"{n}.arrow")))
                for c in meta["object_columns"][n]:
                    df[c] = df[c].astype(object)
                out[n] = df
            for n in meta["texts"]:
                out[f"text:{n}"] = z.read(f"text-{n}").decode("utf-8")
    except Exception:  # noqa: BLE001 - missing, cut off, not a zip, not Arrow: all mean "do it again"
        return None
    return out
