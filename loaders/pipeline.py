"""Fetch -> parse -> validate -> write, for every source; the snapshot and its manifest.

The snapshot (``data/`` by default) holds:
- ``observations/<source>.csv``: the tidy rows of each source, every release kept (git-diffable, sorted);
- ``series.csv``: the catalogue of every declared series;
- ``quality_flags.csv``: what the integrity checks found (never silently corrected);
- ``manifest.json``: per source and per raw file: URL, retrieval time, sha256, bytes, rows, date range,
  release and data dates, licence.

Nothing is written until every file of every source in the run has parsed and validated; then each file is
replaced atomically and the manifest last, so a failure at any step leaves the previous snapshot as it was.
"""
from __future__ import annotations

import contextlib
import datetime as dt
import functools
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pandas as pd
from filelock import FileLock, Timeout
from tqdm import tqdm

from . import events, limits, origins, parts, registry, snapshot, tidy, totals
from .base import Parsed, Source
from .errors import LoaderError, LockedError, ParseError, ValidationError
from .fetch import MAX_SIDECAR_BYTES, fetch, make_session, read_sidecar, sha256_bytes, sidecar_path
from .findings import FLAG_COLUMNS, mark_findings
from .findings import with_findings as _with
from .parse_cache import ParseCache
from .parts import Part
from .snapshot import SnapshotError
from .stored import StoredText, csv_text, file_facts, fytd_series, stored_rows, stored_text

PROJECT = Path(__file__).resolve().parent.parent
DATA = PROJECT / "data"
RAW = DATA / "raw"


def _without_codes(flag: str, drop: set[str]) -> str:
    """A row's ";"-joined flag codes without those in ``drop`` (the codes a source's finish step recomputes)."""
    return ";".join(c for c in flag.split(";") if c and c not in drop)


# ---------------------------------------------------------------- finding and parsing raw files

def file_kind(name: str) -> str:
    ext = name.lower().rsplit(".", 1)[-1]
    return {"xlsx": "xlsx", "json": "json", "csv": "csv", "parquet": "parquet"}.get(ext, ext)


def find_raw_files(source: Source, raw_dir: Path | None) -> list[Path]:
    """This source's raw files under ``raw_dir`` (either layout), one per content, sorted by name; with no
    ``raw_dir``, only the files curated in the project itself (``project_files``)."""
    found: dict[str, Path] = {}
    folder = Path(raw_dir) if raw_dir is not None else None
    for pattern in source.raw_globs if folder is not None else ():
        for p in sorted(folder.glob(pattern)) if folder is not None else ():
            # Anything but a folder is taken, so that a FIFO or device among the raw files is refused by name
            # (``limits.read_regular``) instead of silently skipped.
            if not p.is_dir() and not p.name.endswith((".meta.json", ".part")) and p.name not in found:
                found[p.name] = p
    for rel in source.project_files:
        p = PROJECT / rel
        if p.is_file():
            found.setdefault(p.name, p)
    return [found[k] for k in sorted(found)]


def parse_bytes(source: Source, content: bytes, name: str) -> pd.DataFrame:
    """Parse one raw file and validate the result. Any failure is a ``LoaderError`` naming source and file."""
    return parse_file(source, content, name).obs


def parse_file(source: Source, content: bytes, name: str, *, validate: bool = True) -> Parsed:
    """Like ``parse_bytes``, keeping the reference tables a parser may return beside the observations.

    ``validate=False`` leaves the tidy checks to the caller, which must validate the rows before using them
    (``parse_files`` checks all of a source's files in one pass)."""
    return _finish(source, _parse_raw(source, content, name), name, validate=validate)


def _parse_raw(source: Source, content: bytes, name: str):
    """The content checks and the parser's own output, any failure a ``LoaderError`` naming source and file."""
    # Decided by the bytes, not the name: a zip bomb named .bin is still a zip.
    readable = limits.check_content(content, source=source.id, name=name, max_rows=source.max_rows,
                                    kind=source.extra.get("file_kind") or file_kind(name),
                                    streamed=bool(source.extra.get("streamed")))
    try:
        return source.parse(readable, name)
    except LoaderError:
        raise
    except Exception as e:  # a parser bug or an input it never foresaw: still name the file
        raise ParseError(f"unexpected {type(e).__name__}: {e}", source=source.id, file=name) from e


def _frames_of(source: Source, out, name: str) -> Parsed:
    """A parser's output as frames; a failure while building them names the file, as a failure inside the
    parser does."""
    try:
        parsed = out if isinstance(out, Parsed) else Parsed(out)
        return Parsed(parsed.obs, dict(parsed.tables))
    except LoaderError:
        raise
    except Exception as e:
        raise ParseError(f"unexpected {type(e).__name__}: {e}", source=source.id, file=name) from e


def _finish(source: Source, out, name: str, *, validate: bool) -> Parsed:
    parsed = _frames_of(source, out, name)
    # Parsers normally hand back tidy.frame(...) already; build it again only when they did not.
    df = parsed.obs if list(parsed.obs.columns) == tidy.COLUMNS else tidy.frame(parsed.obs)
    df["file"] = tidy.repeat_text(name, df.index)
    if validate:
        df = tidy.validate(df, source=source.id, series_ids={s.id for s in source.series}, file=name,
                            whole=tidy.value_rules(source.series))
    _check_table_names(source, parsed.tables, name)
    return Parsed(df, dict(parsed.tables))


def _check_table_names(source: Source, tables: dict, name: str) -> None:
    """Each reference table is a DataFrame under a name that can be a file name."""
    for tname, t in tables.items():
        if not isinstance(t, pd.DataFrame) or not tname.replace("_", "").isalnum():
            raise ParseError(f"reference table {tname!r} is not a named DataFrame", source=source.id, file=name)


def file_entry(source: Source, path: Path, content: bytes, facts: tuple, *, origin: dict | None = None,
               digest: str | None = None) -> dict:
    """The manifest entry of one raw file; ``facts``: ``stored.file_facts`` of its tidy rows; ``origin`` its
    checked origin and ``digest`` its sha256 when the caller has them already (``_Intake`` does)."""
    # Every file must have a recorded origin (a download sidecar or a row in loaders/origins.csv) whose
    # checksum matches: a file of unknown origin raises here, so no snapshot is built from it.
    if origin is None:
        origin = origins.origin_for(source.id, path, content)
    side = read_sidecar(path, source=source.id)
    url = side.get("url") or origin["official_url"]
    rows, releases, date_min, date_max = facts
    return {
        "name": path.name,
        "url": url,
        "retrieved": side.get("retrieved") or origin["date_accessed"] or None,
        "origin": origin,
        "sha256": digest or sha256_bytes(content),
        "bytes": len(content),
        "rows": rows,
        "date_min": date_min,
        "date_max": date_max,
        "release": releases[-1] if releases else None,
        "data_date": date_max,
        "licence": source.licence,
    }


def parse_files(source: Source, items, each=None, cache: ParseCache | None = None
                ) -> tuple[pd.DataFrame, dict[str, list[pd.DataFrame]]]:
    """Parse ``(name, bytes)`` files of one source and validate all their rows in one pass: (observations in
    canonical order, reference tables by name as a list of frames). ``each(name, content, parsed)`` is called
    after each file. The rebuild's path (``build_source``); a problem still names its file and row
    (``tidy.validate``). With ``cache``, a file parsed before by the same parsing code is not parsed again
    (``loaders.parse_cache``); the rows are validated all the same."""
    frames: list[pd.DataFrame] = []
    tables: dict[str, list[pd.DataFrame]] = {}
    for name, content in items:
        raw = cache.get(source, content, name) if cache is not None else None
        if raw is None:
            raw = _frames_of(source, _parse_raw(source, content, name), name)
            if cache is not None:
                cache.put(source, content, name, raw)
        parsed = _finish(source, raw, name, validate=False)
        frames.append(parsed.obs)
        for tname, t in parsed.tables.items():
            tables.setdefault(tname, []).append(t)
        if each:
            each(name, content, parsed)
    if not frames:
        return tidy.empty(), tables
    obs = frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)
    obs = tidy.validate(obs, source=source.id, series_ids={s.id for s in source.series},
                        whole=tidy.value_rules(source.series))
    return obs, tables


class _Intake:
    """The files of one source in their order, each one's origin checked before its bytes are read as rows, and
    each one's manifest entry.

    A file byte for byte the same as one read before it, or as one already ``held`` (manifest entries of the
    current snapshot), is a re-post: ICE put FY25_detentionStats09242025.xlsx up again as ...09252025.xlsx.
    It is not read again (that would count one release twice, under two dates); its entry records its origin
    and ``same_bytes_as``, and ``repost_findings`` says so in the quality findings. ``preread``: files' bytes the
    caller read already (``_read_inputs``), by name."""

    def __init__(self, source: Source, paths: list[Path], progress=None, *, held: Sequence[dict] = (),
                 preread: dict[str, tuple[bytes, str]] | None = None):
        self.source, self.paths, self.progress, self.preread = source, paths, progress, preread or {}
        self.entries: list[dict] = []
        self.by_name = {p.name: p for p in paths}
        self.first = {f["sha256"]: f for f in held if f.get("sha256") and not f.get("same_bytes_as")}
        self.checked: dict[str, tuple[dict, str]] = {}  # name -> (origin, sha256), checked before it is read
        self.reposts: list[tuple[dict, str]] = []  # (entry, sha256): its release is the first file's, once read

    def files(self):
        """(name, bytes, sha256) of each file to read, in order; call ``read`` after each."""
        source = self.source
        for p in self.paths:
            content, digest = self.preread.get(p.name) or (None, None)
            if content is None:
                content = limits.read_regular(p, source.max_bytes, source=source.id)
                digest = sha256_bytes(content)
            # The origin (or the download record beside the file: its sha256 and its declared host) is checked
            # before anything parses the bytes: a file that would be refused for its origin must not first cost
            # what a parse of it costs (issue 32: a hostile 201 KB parquet took 2 GB before being refused).
            origin = origins.origin_for(source.id, p, content, digest=digest)
            self.checked[p.name] = (origin, digest)
            if digest in self.first:
                entry = file_entry(source, p, content, file_facts(tidy.empty()), origin=origin, digest=digest)
                entry["same_bytes_as"] = self.first[digest]["name"]
                self.entries.append(entry)
                self.reposts.append((entry, digest))
                if self.progress:
                    self.progress.update(1)
                continue
            self.first[digest] = {"name": p.name}
            yield p.name, content, digest

    def read(self, name: str, content: bytes, facts: tuple) -> None:
        """Record the manifest entry of a file just read; ``facts``: ``stored.file_facts`` of its rows."""
        origin, digest = self.checked[name]
        self.entries.append(file_entry(self.source, self.by_name[name], content, facts, origin=origin, digest=digest))
        self.first[digest] = self.entries[-1]
        if self.progress:
            self.progress.update(1)

    def done(self) -> list[dict]:
        """Every file's manifest entry, once every file yielded has been ``read``."""
        for entry, digest in self.reposts:
            entry["release"] = self.first[digest].get("release")
        return self.entries


def build_source(source: Source, paths: list[Path], progress=None, *, held: Sequence[dict] = (),
                 cache: ParseCache | None = None, preread: dict[str, tuple[bytes, str]] | None = None
                 ) -> tuple[pd.DataFrame, list[dict], dict]:
    """All of ``paths`` parsed and validated (``parse_files``), their manifest entries (``_Intake``: a re-post is
    not parsed again) and reference tables."""
    intake = _Intake(source, paths, progress, held=held, preread=preread)
    obs, tables = parse_files(source, ((n, c) for n, c, _ in intake.files()), lambda name, content, parsed:
                              intake.read(name, content, file_facts(parsed.obs)), cache)
    return obs, intake.done(), {k: combine_tables(v) for k, v in tables.items()}


def build_parts(source: Source, paths: list[Path], progress, cache: ParseCache, preread: dict[str, tuple[bytes, str]]
                ) -> tuple[list[Part], list[dict], dict]:
    """``build_source`` for a source put together from per-file parts (``loaders.parts``): each file's part,
    kept or made from its (kept) parse, with the manifest entries and the combined reference tables. A row
    that fails validation raises ``ValidationError`` (the caller then names it as the whole-source path does)."""
    intake = _Intake(source, paths, progress, preread=preread)
    files = list(intake.files())  # (name, bytes, sha256) of each file read (a re-post is not)
    got: dict[str, Part] = {}
    todo: list[tuple[str, Parsed]] = []  # files without a kept part: made together below
    for name, content, digest in files:
        part = cache.get_part(source, content, name, digest)
        if part is not None:
            got[name] = part
            continue
        raw = cache.get(source, content, name, digest)
        if raw is None:
            raw = _frames_of(source, _parse_raw(source, content, name), name)
            cache.put(source, content, name, raw, digest)
        todo.append((name, _finish(source, raw, name, validate=False)))
    made = [name for name, _ in todo]
    got.update(zip(made, parts.make_parts(source, todo)))
    tables: dict[str, list[pd.DataFrame]] = {}
    for name, content, digest in files:
        if name in made:
            cache.put_part(source, content, name, got[name], digest)
        for tname, t in got[name].tables.items():
            tables.setdefault(tname, []).append(t)
        intake.read(name, content, got[name].facts)
    return [got[n] for n, _, _ in files], intake.done(), {k: combine_tables(v) for k, v in tables.items()}


def _origins_table() -> bytes:
    """The bytes of the origins table ``origins.origin_for`` reads (a file's manifest entry carries its row)."""
    try:
        return Path(origins.PATH).read_bytes()
    except OSError:
        return b""


def _read_inputs(source: Source, paths: list[Path]) -> list[tuple[str, bytes, bytes | None, str]]:
    """(name, bytes, download record's bytes or None, sha256 of the bytes) of each of ``paths``: what a kept
    result is keyed by. Each file is hashed here once; the origin check, the keys and the manifest reuse it."""
    out = []
    for p in paths:
        side = sidecar_path(p)
        content = limits.read_regular(p, source.max_bytes, source=source.id)
        out.append((p.name, content, limits.read_regular(side, MAX_SIDECAR_BYTES, source=source.id)
                    if os.path.lexists(side) else None, sha256_bytes(content)))
    return out


def repost_findings(source_id: str, files: list[dict]) -> pd.DataFrame:
    """One finding per file that repeats another's bytes (``build_source``): read once, under the first name."""
    rows = [{"source": source_id, "series": "", "key": "", "date": "", "release": f.get("release") or "",
             "file": f["name"], "flag": "reposted",
             "message": f"byte for byte the same file as {f['same_bytes_as']} (sha256 {f['sha256'][:12]}…): read "
                        "once, as that release, and not counted as a release of its own"}
            for f in files if f.get("same_bytes_as")]
    return pd.DataFrame(rows, columns=FLAG_COLUMNS)


def parse_findings(source_id: str, tables: dict) -> pd.DataFrame:
    """What a parser found about its files (its "findings" reference table: a table it could not read, figures
    it corrected), as quality findings. Kept as a table, so an update keeps the findings of files it holds."""
    t = tables.get("findings")
    if t is None or t.empty:
        return pd.DataFrame(columns=FLAG_COLUMNS)
    return t.assign(source=source_id).reindex(columns=FLAG_COLUMNS, fill_value="").astype(str)


def combine_tables(parts: list[pd.DataFrame]) -> pd.DataFrame:
    t = pd.concat(parts, ignore_index=True).astype(str).drop_duplicates()
    return t.sort_values(list(t.columns), kind="mergesort").reset_index(drop=True)


def apply_checks(source: Source, obs: pd.DataFrame, *, validated: bool = False,
                 tables: dict[str, pd.DataFrame] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run the source's integrity checks (``check`` over its rows, ``check_tables`` over its reference
    ``tables`` when given); mark the flagged rows; return (obs, flags). ``validated``: ``obs`` is
    ``build_source``'s output as it came (validated and in canonical order), not checked a second time."""
    if not validated:
        obs = tidy.validate(obs, source=source.id, series_ids={s.id for s in source.series},
                            whole=tidy.value_rules(source.series))
    if obs.empty or (source.check is None and (source.check_tables is None or not tables)):
        return obs, pd.DataFrame(columns=FLAG_COLUMNS)
    found = [source.check(obs)] if source.check is not None else []
    if source.check_tables is not None and tables:
        found.append(source.check_tables(tables))
    found = [f for f in found if f is not None and not f.empty]
    if not found:
        return obs, pd.DataFrame(columns=FLAG_COLUMNS)
    return mark_findings(source.id, obs, pd.concat(found, ignore_index=True) if len(found) > 1 else found[0])


# ---------------------------------------------------------------- writing the snapshot

def catalogue_frame(with_rows: set[str] | None = None) -> pd.DataFrame:
    """The declared series as a table; with ``with_rows``, only those (the series a snapshot holds rows of). The
    breakdown is what the stored rows' key holds."""
    rows = [dict(asdict(s), breakdown=tidy.stored_breakdown(s.breakdown, s.period),
                 national_total=totals.national_total(s.id))
            for s in registry.catalogue() if with_rows is None or s.id in with_rows]
    return pd.DataFrame(rows).sort_values("id", kind="mergesort").reset_index(drop=True)


def source_entry(source: Source, stored: StoredText, files: list[dict]) -> dict:
    return {
        "id": source.id,
        "title": source.title,
        "publisher": source.publisher,
        "landing_page": source.landing_page,
        "licence": source.licence,
        "cadence": source.cadence,
        "cadence_days": source.cadence_days,
        "attribution": source.attribution,
        "rows": stored.rows,
        "date_min": stored.date_min,
        "date_max": stored.date_max,
        "latest_release": max((f["release"] for f in files if f.get("release")), default=None),
        # What ``release`` means for this source: a publication day, an estimate of one, or a data date.
        "release_dated": source.release_dated,
        "release_rule": source.release_rule,
        "files": sorted(files, key=lambda f: f["name"]),
    }


def read_manifest(data_dir: Path) -> dict:
    """The current generation's manifest; a damaged one is a ``SnapshotError`` naming the file and field."""
    return snapshot.read_manifest(data_dir)


def current_generation(data_dir: Path) -> tuple[dict, dict[str, bytes]]:
    """(manifest, {path: bytes}) of the current generation, every file checked; empty when there is none."""
    if not snapshot.is_snapshot_folder(data_dir):
        return {"sources": {}}, {}
    _, man, files = snapshot.read_generation(data_dir)
    return man, files


def _frame_of(data: bytes | None) -> pd.DataFrame | None:
    return None if data is None else pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)


class _GenerationView:
    """What ``Source.finish`` may read of the generation being written: each source's rows and reference
    tables, from the new results or, for sources carried over, from the current generation."""

    def __init__(self, results: dict, keep: list[str], cur_man: dict, cur_files: dict[str, bytes]):
        self.results, self.keep, self.cur_man, self.cur_files = results, keep, cur_man, cur_files

    def obs(self, source_id: str) -> pd.DataFrame | None:
        if source_id in self.results:
            return self.results[source_id][0]
        if source_id in self.keep:
            return load_source_observations(Path("."), source_id, self.cur_files)
        return None

    def table(self, source_id: str, name: str) -> pd.DataFrame | None:
        if source_id in self.results:
            return self.results[source_id][3].get(name)
        if source_id in self.keep:
            t = (self.cur_man["sources"][source_id].get("tables") or {}).get(name)
            return _frame_of(self.cur_files.get(t["file"])) if t else None
        return None


def _carried(sid: str, cur_man: dict, cur_files: dict[str, bytes], old_flags: pd.DataFrame | None) -> tuple:
    """A source of the current generation as a result (rows, findings, files, tables), to be finished again."""
    entry = cur_man["sources"][sid]
    obs = tidy.validate(load_source_observations(Path("."), sid, cur_files), source=sid,
                        series_ids={s.id for s in registry.get(sid).series})
    tables = {}
    for tname, t in (entry.get("tables") or {}).items():
        frame = _frame_of(cur_files.get(t.get("file", "")))
        if frame is None:
            raise SnapshotError(f"source {sid} is kept from the current snapshot, but its {t.get('file')} is "
                                "missing; nothing was written. Restore the snapshot or rebuild that source")
        tables[tname] = frame
    flags = (old_flags[old_flags["source"] == sid].reset_index(drop=True) if old_flags is not None and len(old_flags)
             else pd.DataFrame(columns=FLAG_COLUMNS))
    return obs, flags, list(entry.get("files") or []), tables


def finish_sources(results: dict[str, tuple], other: _GenerationView) -> dict[str, tuple]:
    """Each result whose source has a ``finish`` step with its derived rows and cross-source findings replaced
    by fresh ones (so a rebuild, an update of an input source and a carried-over copy all give the same)."""
    out = dict(results)
    for sid in sorted(results):
        src = registry.get(sid)
        if src.finish is None:
            continue
        obs, flags, files, tables = results[sid]
        obs = obs[~obs["series"].isin(src.derived)].copy()
        if src.finish_flags:  # the marks of the last finish step go with its findings
            drop = set(src.finish_flags)
            obs["flag"] = obs["flag"].map(functools.partial(_without_codes, drop=drop))
        if len(flags):
            flags = flags[~flags["flag"].isin(src.finish_flags)]
        rows, found = src.finish(obs, tables, other)
        if rows is not None and len(rows):
            stray = sorted(set(rows["series"]) - set(src.derived))
            if stray:
                raise LoaderError(f"finish step gave rows of series {stray} not declared as derived", source=sid)
            obs = tidy.validate(pd.concat([obs, rows], ignore_index=True), source=sid,
                                series_ids={s.id for s in src.series})
        if found is not None and len(found):
            stray = sorted(set(found["flag"]) - set(src.finish_flags))
            if stray:
                raise LoaderError(f"finish step gave findings {stray} not declared in finish_flags", source=sid)
            obs, found = mark_findings(src.id, obs, found)
            flags = _with(flags, found)
        out[sid] = (obs.reset_index(drop=True), flags, files, tables)
    return out


def write_snapshot(out_dir: Path, results: dict[str, tuple], *, replace_all: bool = False,
                   carry: tuple[str, ...] | list[str] = (), current: tuple[dict, dict] | None = None,
                   texts: dict[str, StoredText] | None = None) -> None:
    """Write a new generation holding ``results`` and switch it in (``snapshot.Generation``).

    ``results`` maps source id -> (observations, flags, file entries, reference tables); it has all been
    validated already. Sources of the current generation not in ``results`` are copied unchanged into the new
    one: all of them, or with ``replace_all`` only those in ``carry`` (a full rebuild drops nothing else but
    sources no longer registered). ``current`` is the checked current generation, when the caller read it.
    ``texts``: a source's rows already as the snapshot stores them (``stored.StoredText``), used for a source
    without a ``finish`` step (whose rows are what ``results`` holds).
    """
    out_dir = Path(out_dir)
    cur_man, cur_files = current if current is not None else current_generation(out_dir)
    keep = [sid for sid in cur_man.get("sources", {}) if sid not in results
            and (not replace_all or sid in carry) and sid in registry.SOURCES]
    old_flags = _frame_of(cur_files.get("quality_flags.csv"))
    results = dict(results)
    # A source with a ``finish`` step is never copied as bytes: its derived rows and cross-source findings read
    # other sources, which may be the ones being replaced now.
    for sid in [s for s in keep if registry.get(s).finish is not None]:
        keep.remove(sid)
        results[sid] = _carried(sid, cur_man, cur_files, old_flags)
    results = finish_sources(results, _GenerationView(results, keep, cur_man, cur_files))
    manifest: dict[str, Any] = {"sources": {sid: cur_man["sources"][sid] for sid in keep}}
    new_flags = [old_flags[old_flags["source"].isin(keep)]] if old_flags is not None and len(old_flags) else []
    with snapshot.Generation(out_dir, curated_dir=DATA) as gen:
        for sid in keep:
            rels = [f"observations/{sid}.csv"] + [t["file"] for t in (cur_man["sources"][sid].get("tables") or {}).values()]
            for rel in rels:
                if rel not in cur_files:
                    raise SnapshotError(f"source {sid} is kept from the current snapshot, but its {rel} is missing; "
                                        "nothing was written. Restore the snapshot or rebuild that source")
                gen.add(rel, cur_files[rel])
        for sid, (obs, flags, files, tables) in sorted(results.items()):
            stored = (texts or {}).get(sid) if registry.get(sid).finish is None else None
            if stored is None:
                stored = stored_text(obs)
            gen.add(f"observations/{sid}.csv", stored.text)
            entry = source_entry(registry.get(sid), stored, files)
            entry["tables"] = {}
            for tname, t in sorted(tables.items()):
                gen.add(f"tables/{sid}.{tname}.csv", t.to_csv(index=False, lineterminator="\n"))
                entry["tables"][tname] = {"file": f"tables/{sid}.{tname}.csv", "rows": int(len(t))}
            manifest["sources"][sid] = entry
            new_flags.append(flags)
        present = [f for f in new_flags if len(f)]
        allflags = pd.concat(present, ignore_index=True) if present else pd.DataFrame(columns=FLAG_COLUMNS)
        allflags = stored_rows(allflags[FLAG_COLUMNS]).sort_values(FLAG_COLUMNS, kind="mergesort")
        gen.add("quality_flags.csv", csv_text(allflags))
        # The snapshot's catalogue lists the series it holds rows of: a declared series whose files are not held
        # (DDP's record-level files, CBP's by-area file) stays declared in its loader and comes back with them.
        held = {s for _sid, (obs, *_rest) in results.items() for s in obs["series"].unique()}
        for sid in keep:
            held |= set(pd.read_csv(io.BytesIO(cur_files[f"observations/{sid}.csv"]), usecols=["series"],
                                    dtype=str)["series"].unique())
        gen.add("series.csv", csv_text(catalogue_frame(held)))
        # The curated events, checked here once (a bad row stops the build naming it), travel inside the
        # generation like every source's rows: the page and the exports read them from what they draw.
        gen.add(events.SNAPSHOT_FILE, events.snapshot_csv(events.read_bundled(DATA / "events.csv")))
        manifest["sources"] = dict(sorted(manifest["sources"].items()))
        manifest["format"] = "tidy observations v1: " + ",".join(tidy.COLUMNS)
        gen.commit(manifest)


# ---------------------------------------------------------------- commands

@contextlib.contextmanager
def update_lock(data_dir: Path):
    """One writer at a time: a second ``update`` or ``rebuild`` into the same folder stops with a clear message.

    ``filelock`` takes an OS lock (flock on Unix, msvcrt on Windows) that the system releases when the holder
    dies, so a killed writer never blocks the next one, and the command line imports on every platform."""
    Path(data_dir).mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(Path(data_dir) / ".update.lock"), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise LockedError(f"another update is already writing {data_dir}; wait for it to finish and try again") from None
    try:
        yield
    finally:
        lock.release()


# A release that holds this much fewer rows than the snapshot for a source is refused unless told
# (``--allow-shrink``): sources only grow release by release, so a big drop means a missing or cut file.
SHRINK_LIMIT = 0.10


def _names(items, n: int = 8) -> str:
    items = list(items)
    return ", ".join(items[:n]) + (f" (and {len(items) - n} more)" if len(items) > n else "")


def check_shrink(results: dict[str, tuple], cur_man: dict, allow_shrink: bool) -> None:
    """Refuse a write that shrinks any source by more than ``SHRINK_LIMIT`` (all of them named)."""
    if allow_shrink:
        return
    shrunk = []
    for sid, r in sorted(results.items()):
        old = int(cur_man.get("sources", {}).get(sid, {}).get("rows") or 0)
        new = len(r[0])
        if old and new < old * (1 - SHRINK_LIMIT):
            shrunk.append(f"{sid} from {old:,} to {new:,} rows ({(new - old) / old:+.0%})")
    if shrunk:
        raise SnapshotError(f"refusing a snapshot that shrinks {len(shrunk)} source(s) by more than "
                            f"{SHRINK_LIMIT:.0%}: {'; '.join(shrunk)}. Nothing was written; check the raw files, "
                            "or pass --allow-shrink if the drop is intended")


def curated_sources() -> list[str]:
    """The sources whose every input is curated in the project itself (no raw folder needed to rebuild them)."""
    return [sid for sid, src in registry.SOURCES.items() if src.project_files and not src.raw_globs]


def rebuild(raw_dir: Path | None, out_dir: Path, source_ids: list[str] | None = None, progress: bool = False, *,
            allow_missing: bool = False, allow_shrink: bool = False, cache_dir: Path | None = None) -> dict:
    """Regenerate the snapshot from a folder of raw files. Deterministic: same inputs, same bytes.

    ``cache_dir``: a folder of earlier parses and results (``loaders.parse_cache``): a file whose bytes, name and
    parsing code are unchanged is not parsed again, and a source whose every input and the code are unchanged is
    taken whole; the snapshot is the same bytes either way.

    Never deletes what it was not asked to replace: a registered source without raw files (a mistyped
    ``--raw``, an incomplete cache) and raw files the current snapshot holds rows from but the raw folder
    lacks are refused by name, unless ``allow_missing``, which keeps their current rows as they are. Sources
    marked ``optional_raw`` (not in the bundled snapshot) keep their current rows without being asked.

    With no ``raw_dir`` only the curated inputs are rebuilt (``curated_sources`` and the events, which every
    write checks and copies in): the other sources are carried over as they are, so a clone with no raw files
    can take an edited ``data/events.csv`` or ``data/reported_figures.csv`` into its snapshot.
    """
    out_dir = Path(out_dir)
    if raw_dir is None:
        curated = curated_sources()
        other = [sid for sid in source_ids or () if sid not in curated]
        if source_ids is None or other:
            raise LoaderError(f"without a raw folder only the curated sources ({', '.join(curated)}) can be "
                              f"rebuilt{'; not ' + ', '.join(other) if other else ''}; nothing was written")
        if not snapshot.read_manifest(out_dir).get("sources"):
            raise LoaderError(f"{out_dir} holds no snapshot to carry the other sources from; rebuild it from a "
                              "raw folder first; nothing was written")
    ids = list(dict.fromkeys(source_ids or registry.SOURCES))
    for sid in ids:
        registry.get(sid)
    if raw_dir is not None and not Path(raw_dir).is_dir():
        raise LoaderError(f"raw folder {raw_dir} does not exist or is not a folder; nothing was written")
    snapshot.check_out_folder(out_dir, DATA)
    plan = {sid: find_raw_files(registry.get(sid), raw_dir) for sid in ids}
    cache = ParseCache(cache_dir) if cache_dir is not None else None
    with update_lock(out_dir):
        snapshot.cleanup(out_dir)
        try:
            cur_man, cur_files = current_generation(out_dir)
            damaged = None
        except SnapshotError as e:  # a full rebuild may repair it, as long as nothing is copied from it
            cur_man, cur_files, damaged = {"sources": {}}, {}, e
        empty = [sid for sid, paths in plan.items() if not paths]
        required = [sid for sid in empty if not (registry.get(sid).optional_raw and source_ids is None)]
        if required and not allow_missing:
            raise SnapshotError(
                f"no raw files under {raw_dir} for {len(required)} source(s): {_names(required)}. Nothing was "
                "written. Check --raw, name the sources to rebuild, or pass --allow-missing to keep their "
                "current rows")
        lost = {}
        for sid, paths in plan.items():
            had = {f["name"] for f in cur_man.get("sources", {}).get(sid, {}).get("files", [])}
            gone = sorted(had - {p.name for p in paths}) if paths else []
            if gone:
                lost[sid] = gone
        if lost and not allow_missing:
            raise SnapshotError(
                f"raw files that the current snapshot holds rows from are missing under {raw_dir}: "
                + "; ".join(f"{sid}: {_names(g, 4)}" for sid, g in lost.items())
                + ". Nothing was written. Rebuild from the folder that holds them, or pass --allow-missing to "
                "keep their rows")
        carry = [sid for sid in empty if sid in cur_man.get("sources", {})]
        if damaged and (carry or lost or source_ids is not None):
            raise damaged
        results: dict[str, tuple] = {}
        texts: dict[str, StoredText] = {}  # sources' rows already as the snapshot stores them (kept results)
        with _bar(sum(len(v) for v in plan.values()), "parsing", progress) as bar:
            for sid, paths in plan.items():
                if not paths:
                    continue
                results[sid], text = _source_result(registry.get(sid), paths, bar, cache, lost.get(sid),
                                                    (out_dir, cur_man, cur_files))
                if text is not None:
                    texts[sid] = text
        check_shrink(results, cur_man, allow_shrink)
        write_snapshot(out_dir, results, replace_all=source_ids is None, carry=carry, current=(cur_man, cur_files),
                       texts=texts)
    return {sid: len(r[0]) for sid, r in results.items()}


def _source_result(src: Source, paths: list[Path], bar, cache: ParseCache | None, lost: list[str] | None,
                   current: tuple[Path, dict, dict[str, bytes]]) -> tuple[tuple, StoredText | None]:
    """One source's (obs, flags, files, tables) for ``rebuild``, and its rows as the snapshot stores them when
    kept in ``cache``. ``lost``: names of files the snapshot holds rows from that the raw folder lacks
    (--allow-missing)."""
    # A source whose inputs and code are what made a kept result is taken whole from the cache: a warm rebuild
    # of 108 ICE releases spent 5 s re-validating, re-checking and re-formatting the same 250,000 rows
    # (``loaders.parse_cache``). Rows kept through --allow-missing are never cached.
    pre = _read_inputs(src, paths) if cache is not None and src.cache_parses and not lost else None
    rkey = cache.result_key(src, [(n, d, side) for n, _, side, d in pre], _origins_table()) \
        if cache is not None and pre is not None else None
    kept = cache.get_result(src, rkey) if cache is not None else None
    if kept is not None:
        if bar:
            bar.update(len(paths))
        return kept[:4], kept[4]
    if cache is not None and pre is not None and parts.can_split(src) and len({p.name for p in paths}) == len(paths):
        # Put together from per-file parts: a new file costs its own work and the comparisons across files.
        try:
            got, files, tables = build_parts(src, paths, bar, cache, {n: (c, d) for n, c, _, d in pre})
        except ValidationError:  # said below as a rebuild without the cache says it (the row within its file)
            pass
        else:
            obs, flags, stored = parts.assemble(src, got, tables)
            flags = _with(_with(flags, repost_findings(src.id, files)), parse_findings(src.id, tables))
            cache.put_result(src, rkey, obs, flags, files, tables, stored)
            return (obs, flags, files, tables), stored
    obs, files, tables = build_source(src, paths, bar, cache=cache, preread={n: (c, d) for n, c, _, d in pre or ()})
    if lost:  # --allow-missing: the missing files' rows stay as they are, validated with the new ones
        out_dir, cur_man, cur_files = current
        old = load_source_observations(out_dir, src.id, cur_files)
        obs = pd.concat([old[old["file"].isin(lost)], obs], ignore_index=True)
        files += [f for f in cur_man["sources"][src.id]["files"] if f["name"] in lost]
        for tname, t in (cur_man["sources"][src.id].get("tables") or {}).items():
            prev = _frame_of(cur_files.get(t.get("file", "")))
            if prev is not None:
                tables[tname] = combine_tables([prev] + ([tables[tname]] if tname in tables else []))
    obs, flags = apply_checks(src, obs, validated=not lost, tables=tables)
    flags = _with(_with(flags, repost_findings(src.id, files)), parse_findings(src.id, tables))
    if cache is None or rkey is None:
        return (obs, flags, files, tables), None
    stored = stored_text(obs)  # as write_snapshot writes it
    cache.put_result(src, rkey, obs, flags, files, tables, stored)
    return (obs, flags, files, tables), stored


def load_source_observations(data_dir: Path, source_id: str, files: dict[str, bytes] | None = None) -> pd.DataFrame:
    """One source's rows in the current generation (from ``files`` when the caller read it already)."""
    if files is None:
        _, files = current_generation(data_dir)
    data = files.get(f"observations/{source_id}.csv")
    if data is None:
        return tidy.empty()
    # back in the drawn layout the loaders work in (checks, finish steps, merging with a new release)
    return tidy.fytd_points(tidy.frame(pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)),
                            fytd_series())


def update(source_ids: list[str], data_dir: Path = DATA, raw_dir: Path = RAW, session_factory=make_session,
           progress: bool = False, *, allow_shrink: bool = False) -> dict:
    """Download the current files of each source, parse, validate, and merge into the snapshot.

    All sources are fetched and parsed first; the snapshot is written only if every one succeeded. A damaged
    current snapshot is refused (merging into it would carry the damage into the new generation), and so is
    a release that shrinks a source by more than ``SHRINK_LIMIT`` unless ``allow_shrink``.
    """
    data_dir, raw_dir = Path(data_dir), Path(raw_dir)
    for sid in source_ids:
        registry.get(sid)  # an unknown id fails before anything is created
    snapshot.check_out_folder(data_dir, DATA)
    results, summary, staged = {}, {}, {}
    with update_lock(data_dir), _staging(raw_dir, source_ids) as staging:
        snapshot.cleanup(data_dir)
        manifest, cur_files = current_generation(data_dir)
        for sid in source_ids:
            src = registry.get(sid)
            session = session_factory(browser_ua=src.browser_user_agent)
            urls = list(src.discover(session)) or list(src.download_urls)
            if not urls:
                raise LoaderError("no download URL found", source=sid)
            fetched = []
            with _bar(len(urls), f"downloading {sid}", progress) as bar:
                for url in urls:
                    name = url.rsplit("/", 1)[-1].split("?")[0]
                    # Downloads land in a staging folder: the cached copy is the last good one until the new
                    # file has parsed and the snapshot is written (a bad body must not replace it).
                    dest = staging[sid] / name
                    kind = src.extra.get("file_kind") or file_kind(name)
                    got = fetch(url, dest, source=sid, kind=kind, session=session, max_bytes=src.max_bytes,
                                allowed_hosts=src.allowed_hosts, previous=raw_dir / sid / name)
                    if not got.not_modified:
                        fetched.append(dest)
                        staged[dest] = raw_dir / sid / name
                    if bar:
                        bar.update(1)
            if not fetched:
                summary[sid] = "not modified"
                continue
            held = manifest.get("sources", {}).get(sid, {}).get("files", [])
            new_obs, new_files, new_tables = build_source(src, fetched, held=[f for f in held if f["name"] not in
                                                                          {p.name for p in fetched}])
            old = load_source_observations(data_dir, sid, cur_files)
            names = {p.name for p in fetched}
            obs = pd.concat([old[~old["file"].isin(names)], new_obs], ignore_index=True)
            old_files = [f for f in manifest.get("sources", {}).get(sid, {}).get("files", []) if f["name"] not in names]
            tables = {}
            old_tables = manifest.get("sources", {}).get(sid, {}).get("tables") or {}
            for tname in sorted(set(new_tables) | set(old_tables)):
                prev = _frame_of(cur_files.get((old_tables.get(tname) or {}).get("file", "")))
                parts = ([prev] if prev is not None else []) + ([new_tables[tname]] if tname in new_tables else [])
                tables[tname] = combine_tables(parts)
            obs, flags = apply_checks(src, obs, tables=tables)
            files = old_files + new_files
            results[sid] = (obs, _with(_with(flags, repost_findings(sid, files)), parse_findings(sid, tables)), files, tables)
            summary[sid] = f"{len(new_obs)} rows from {len(fetched)} new file(s)"
        if results:
            check_shrink(results, manifest, allow_shrink)
            write_snapshot(data_dir, results, current=(manifest, cur_files))
        for tmp, final in staged.items():
            os.replace(tmp, final)
            os.replace(sidecar_path(tmp), sidecar_path(final))
    return summary


@contextlib.contextmanager
def _staging(raw_dir: Path, source_ids: list[str]):
    """A fresh ``.incoming-<pid>-*`` folder per source inside the raw cache (same filesystem, so moves are
    atomic), removed afterwards whatever happened. Leftovers of a killed run are removed first; those of a
    live process are not (two updates into different snapshots may share one raw cache)."""
    made = {}
    try:
        for sid in source_ids:
            d = Path(raw_dir) / sid
            d.mkdir(parents=True, exist_ok=True)
            for old in d.glob(".incoming-*"):
                if not _alive(old.name.split("-")[1]):
                    shutil.rmtree(old, ignore_errors=True)
            made[sid] = Path(tempfile.mkdtemp(prefix=f".incoming-{os.getpid()}-", dir=d))
        yield made
    finally:
        for d in made.values():
            shutil.rmtree(d, ignore_errors=True)


def _alive(pid: str) -> bool:
    return snapshot.alive(pid)


def status(data_dir: Path = DATA, today: dt.date | None = None) -> pd.DataFrame:
    """What the snapshot holds: rows, latest release and the data's last day per source, and the age of that day.

    A source whose files do not match the manifest is "damaged" and its rows are not given (the manifest's
    count would describe files that are not there); a corrupt manifest is a ``SnapshotError``.
    """
    today = today or dt.date.today()
    man = read_manifest(data_dir)
    problems = snapshot.verify(data_dir) if snapshot.is_snapshot_folder(data_dir) else []
    rows = []
    for sid in registry.SOURCES:
        e = man["sources"].get(sid)
        if not e:
            rows.append({"source": sid, "rows": 0, "latest_release": "", "data_to": "", "age_days": "", "status": "missing"})
            continue
        mine = [f"observations/{sid}.csv"] + [t.get("file", "") for t in (e.get("tables") or {}).values()]
        if any(f"/{rel}:" in p for p in problems for rel in mine) or (
                "snapshot_files" in man and f"observations/{sid}.csv" not in man["snapshot_files"]):
            rows.append({"source": sid, "rows": "", "latest_release": e.get("latest_release") or "",
                         "data_to": e.get("date_max") or "", "age_days": "", "status": "damaged"})
            continue
        # How fresh the source is (against its cadence, from the data's own date, with releases known but not
        # held) is judged in one place, loaders.freshness, which `python -m loaders status` applies to
        # this table: here only what the files say.
        data_to = e.get("date_max") or ""
        age = (today - dt.date.fromisoformat(data_to[:10])).days if data_to else None
        rows.append({"source": sid, "rows": e["rows"], "latest_release": e.get("latest_release") or "",
                     "data_to": data_to, "age_days": age, "status": "held"})
    return pd.DataFrame(rows)


@contextlib.contextmanager
def _bar(total: int, desc: str, enabled: bool):
    """A progress bar on stderr, closed (ending its line) before anything else is printed, even on an error."""
    if not enabled or total == 0:
        yield None
        return
    bar = tqdm(total=total, desc=desc, unit="file", file=sys.stderr)
    try:
        yield bar
    finally:
        bar.close()
