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
import fcntl
import json
import os
import shutil
import tempfile
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

from . import origins, registry, tidy
from .base import Parsed, Source
from .errors import LoaderError, LockedError, ParseError
from .fetch import atomic_write_text, check_zip, fetch, make_session, read_sidecar, sha256_bytes, sidecar_path

PROJECT = Path(__file__).resolve().parent.parent
DATA = PROJECT / "data"
RAW = DATA / "raw"
SHARED_RAW = PROJECT.parent / "shared" / "data"
FLAG_COLUMNS = ["source", "series", "key", "date", "release", "file", "flag", "message"]


# ---------------------------------------------------------------- finding and parsing raw files

def file_kind(name: str) -> str:
    ext = name.lower().rsplit(".", 1)[-1]
    return {"xlsx": "xlsx", "json": "json", "csv": "csv", "parquet": "parquet"}.get(ext, ext)


def find_raw_files(source: Source, raw_dir: Path) -> list[Path]:
    """This source's raw files under ``raw_dir`` (either layout), one per content, sorted by name."""
    raw_dir = Path(raw_dir)
    found: dict[str, Path] = {}
    for pattern in source.raw_globs:
        for p in sorted(raw_dir.glob(pattern)):
            if p.is_file() and not p.name.endswith((".meta.json", ".part")) and p.name not in found:
                found[p.name] = p
    for rel in source.project_files:
        p = PROJECT / rel
        if p.is_file():
            found.setdefault(p.name, p)
    return [found[k] for k in sorted(found)]


def parse_bytes(source: Source, content: bytes, name: str) -> pd.DataFrame:
    """Parse one raw file and validate the result. Any failure is a ``LoaderError`` naming source and file."""
    return parse_file(source, content, name).obs


def parse_file(source: Source, content: bytes, name: str) -> Parsed:
    """Like ``parse_bytes``, keeping the reference tables a parser may return beside the observations."""
    if file_kind(name) == "xlsx":
        check_zip(content, source=source.id, name=name)
    try:
        out = source.parse(content, name)
    except LoaderError:
        raise
    except Exception as e:  # a parser bug or an input it never foresaw: still name the file
        raise ParseError(f"unexpected {type(e).__name__}: {e}", source=source.id, file=name) from e
    parsed = out if isinstance(out, Parsed) else Parsed(out)
    # Parsers normally hand back tidy.frame(...) already; build it again only when they did not.
    df = parsed.obs if list(parsed.obs.columns) == tidy.COLUMNS else tidy.frame(parsed.obs)
    df["file"] = name
    df = tidy.validate(df, source=source.id, series_ids={s.id for s in source.series}, file=name)
    for tname, t in parsed.tables.items():
        if not isinstance(t, pd.DataFrame) or not tname.replace("_", "").isalnum():
            raise ParseError(f"reference table {tname!r} is not a named DataFrame", source=source.id, file=name)
    return Parsed(df, dict(parsed.tables))


def file_entry(source: Source, path: Path, content: bytes, df: pd.DataFrame) -> dict:
    # Every file must have a recorded origin (a download sidecar or a row in loaders/origins.csv) whose
    # checksum matches: a file of unknown origin raises here, so no snapshot is built from it.
    origin = origins.origin_for(source.id, path, content)
    side = read_sidecar(path)
    url = side.get("url") or origin["official_url"]
    releases = sorted(r for r in df["release"].unique() if r)
    return {
        "name": path.name,
        "url": url,
        "retrieved": side.get("retrieved") or origin["date_accessed"] or None,
        "origin": origin,
        "sha256": sha256_bytes(content),
        "bytes": len(content),
        "rows": int(len(df)),
        "date_min": df["date"].min() if len(df) else None,
        "date_max": df["end"].max() if len(df) else None,
        "release": releases[-1] if releases else None,
        "data_date": df["end"].max() if len(df) else None,
        "licence": source.licence,
    }


def build_source(source: Source, paths: list[Path], progress=None) -> tuple[pd.DataFrame, list[dict], dict]:
    frames, entries, tables = [], [], {}
    for p in paths:
        content = p.read_bytes()
        parsed = parse_file(source, content, p.name)
        frames.append(parsed.obs)
        for tname, t in parsed.tables.items():
            tables.setdefault(tname, []).append(t)
        entries.append(file_entry(source, p, content, parsed.obs))
        if progress:
            progress.update(1)
    obs = pd.concat(frames, ignore_index=True) if frames else tidy.empty()
    return obs, entries, {k: combine_tables(v) for k, v in tables.items()}


def combine_tables(parts: list[pd.DataFrame]) -> pd.DataFrame:
    t = pd.concat(parts, ignore_index=True).astype(str).drop_duplicates()
    return t.sort_values(list(t.columns), kind="mergesort").reset_index(drop=True)


def apply_checks(source: Source, obs: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run the source's integrity checks; mark the flagged rows; return (obs, flags)."""
    obs = tidy.validate(obs, source=source.id, series_ids={s.id for s in source.series})
    if source.check is None or obs.empty:
        return obs, pd.DataFrame(columns=FLAG_COLUMNS)
    flags = source.check(obs)
    if flags is None or flags.empty:
        return obs, pd.DataFrame(columns=FLAG_COLUMNS)
    flags = flags.assign(source=source.id)
    for c in FLAG_COLUMNS:
        if c not in flags:
            flags[c] = ""
    flags = flags[FLAG_COLUMNS].astype(str).sort_values(FLAG_COLUMNS, kind="mergesort").drop_duplicates()
    # Mark every observation a check points at (match on the fields the check gave; "" matches any).
    obs = obs.copy()
    for f in flags.itertuples(index=False):
        m = pd.Series(True, index=obs.index)
        for col in ("series", "key", "date", "release", "file"):
            val = getattr(f, col)
            if val:
                m &= obs[col] == val
        if m.any():
            obs.loc[m, "flag"] = obs.loc[m, "flag"].map(lambda x, code=f.flag: _add_flag(x, code))
    return obs, flags.reset_index(drop=True)


def _add_flag(existing: str, code: str) -> str:
    codes = [c for c in existing.split(";") if c]
    if code not in codes:
        codes.append(code)
    return ";".join(sorted(codes))


# ---------------------------------------------------------------- writing the snapshot

def format_values(v: pd.Series) -> pd.Series:
    """Integers without '.0', others as Python's shortest repr: stable text for git diffs and rebuilds."""
    arr = v.to_numpy(dtype="float64")
    whole = np.isfinite(arr) & (arr == np.round(arr)) & (np.abs(arr) < 2**53)
    out = np.where(whole, pd.Series(arr).round().astype("Int64").astype(str), pd.Series(arr).map(repr))
    return pd.Series(out, index=v.index)


def csv_text(df: pd.DataFrame) -> str:
    out = df.copy()
    if "value" in out:
        out["value"] = format_values(out["value"])
    return out.to_csv(index=False, lineterminator="\n")


def catalogue_frame() -> pd.DataFrame:
    rows = [asdict(s) for s in registry.catalogue()]
    return pd.DataFrame(rows).sort_values("id", kind="mergesort").reset_index(drop=True)


def source_entry(source: Source, obs: pd.DataFrame, files: list[dict]) -> dict:
    return {
        "id": source.id,
        "title": source.title,
        "publisher": source.publisher,
        "landing_page": source.landing_page,
        "licence": source.licence,
        "cadence": source.cadence,
        "cadence_days": source.cadence_days,
        "attribution": source.attribution,
        "rows": int(len(obs)),
        "date_min": obs["date"].min() if len(obs) else None,
        "date_max": obs["end"].max() if len(obs) else None,
        "latest_release": max((f["release"] for f in files if f.get("release")), default=None),
        "files": sorted(files, key=lambda f: f["name"]),
    }


def read_manifest(data_dir: Path) -> dict:
    p = Path(data_dir) / "manifest.json"
    if not p.exists():
        return {"sources": {}}
    return json.loads(p.read_text("utf-8"))


def write_snapshot(out_dir: Path, results: dict[str, tuple], *, replace_all: bool = False) -> None:
    """Write the given sources' observations, tables and flags, the catalogue, then the manifest (last).

    ``results`` maps source id -> (observations, flags, file entries, reference tables); it has all been
    validated already.
    With ``replace_all`` the manifest and flags hold exactly these sources; otherwise they are merged into
    what is there.
    """
    out_dir = Path(out_dir)
    (out_dir / "observations").mkdir(parents=True, exist_ok=True)
    manifest = {"sources": {}} if replace_all else read_manifest(out_dir)
    flags_path = out_dir / "quality_flags.csv"
    old_flags = pd.DataFrame(columns=FLAG_COLUMNS)
    if not replace_all and flags_path.exists():
        old_flags = pd.read_csv(flags_path, dtype=str, keep_default_na=False)
    texts: dict[Path, str] = {}
    new_flags = [old_flags[~old_flags["source"].isin(results)]]
    for sid, (obs, flags, files, tables) in sorted(results.items()):
        texts[out_dir / "observations" / f"{sid}.csv"] = csv_text(obs)
        entry = source_entry(registry.get(sid), obs, files)
        entry["tables"] = {}
        for tname, t in sorted(tables.items()):
            texts[out_dir / "tables" / f"{sid}.{tname}.csv"] = t.to_csv(index=False, lineterminator="\n")
            entry["tables"][tname] = {"file": f"tables/{sid}.{tname}.csv", "rows": int(len(t))}
        manifest["sources"][sid] = entry
        new_flags.append(flags)
    if replace_all:
        for stale in (out_dir / "observations").glob("*.csv"):
            if stale.stem not in results:
                stale.unlink()
        for stale in (out_dir / "tables").glob("*.csv"):
            if stale.name not in {f"{sid}.{t}.csv" for sid, r in results.items() for t in r[3]}:
                stale.unlink()
    allflags = pd.concat([f for f in new_flags if len(f)], ignore_index=True) if any(len(f) for f in new_flags) \
        else pd.DataFrame(columns=FLAG_COLUMNS)
    allflags = allflags[FLAG_COLUMNS].sort_values(FLAG_COLUMNS, kind="mergesort")
    texts[flags_path] = csv_text(allflags)
    texts[out_dir / "series.csv"] = csv_text(catalogue_frame())
    manifest["sources"] = dict(sorted(manifest["sources"].items()))
    manifest["format"] = "tidy observations v1: " + ",".join(tidy.COLUMNS)
    for path, text in texts.items():
        atomic_write_text(path, text)
    atomic_write_text(out_dir / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")


# ---------------------------------------------------------------- commands

@contextlib.contextmanager
def update_lock(data_dir: Path):
    """One writer at a time: a second ``update`` or ``rebuild`` into the same folder stops with a clear message."""
    Path(data_dir).mkdir(parents=True, exist_ok=True)
    path = Path(data_dir) / ".update.lock"
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LockedError(f"another update is already writing {data_dir}; wait for it to finish and try again") from None
        yield
    finally:
        os.close(fd)


def rebuild(raw_dir: Path, out_dir: Path, source_ids: list[str] | None = None, progress: bool = False) -> dict:
    """Regenerate the snapshot from a folder of raw files. Deterministic: same inputs, same bytes."""
    ids = source_ids or list(registry.SOURCES)
    plan = {sid: find_raw_files(registry.get(sid), raw_dir) for sid in ids}
    bar = _bar(sum(len(v) for v in plan.values()), "parsing", progress)
    results = {}
    with update_lock(out_dir):
        for sid, paths in plan.items():
            if not paths:
                continue
            src = registry.get(sid)
            obs, files, tables = build_source(src, paths, bar)
            obs, flags = apply_checks(src, obs)
            results[sid] = (obs, flags, files, tables)
        if bar:
            bar.close()
        write_snapshot(out_dir, results, replace_all=source_ids is None)
    return {sid: len(r[0]) for sid, r in results.items()}


def load_source_observations(data_dir: Path, source_id: str) -> pd.DataFrame:
    p = Path(data_dir) / "observations" / f"{source_id}.csv"
    if not p.exists():
        return tidy.empty()
    df = pd.read_csv(p, dtype=str, keep_default_na=False)
    return tidy.frame(df)


def update(source_ids: list[str], data_dir: Path = DATA, raw_dir: Path = RAW, session_factory=make_session,
           progress: bool = False) -> dict:
    """Download the current files of each source, parse, validate, and merge into the snapshot.

    All sources are fetched and parsed first; the snapshot is written only if every one succeeded.
    """
    data_dir, raw_dir = Path(data_dir), Path(raw_dir)
    for sid in source_ids:
        registry.get(sid)  # an unknown id fails before anything is created
    results, summary, staged = {}, {}, {}
    with update_lock(data_dir), _staging(raw_dir, source_ids) as staging:
        manifest = read_manifest(data_dir)
        for sid in source_ids:
            src = registry.get(sid)
            session = session_factory(browser_ua=src.browser_user_agent)
            urls = list(src.discover(session)) or list(src.download_urls)
            if not urls:
                raise LoaderError("no download URL found", source=sid)
            bar = _bar(len(urls), f"downloading {sid}", progress)
            fetched = []
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
            if bar:
                bar.close()
            if not fetched:
                summary[sid] = "not modified"
                continue
            new_obs, new_files, new_tables = build_source(src, fetched)
            old = load_source_observations(data_dir, sid)
            names = {p.name for p in fetched}
            obs = pd.concat([old[~old["file"].isin(names)], new_obs], ignore_index=True)
            obs, flags = apply_checks(src, obs)
            old_files = [f for f in manifest.get("sources", {}).get(sid, {}).get("files", []) if f["name"] not in names]
            tables = {}
            for tname, t in new_tables.items():
                old_t = data_dir / "tables" / f"{sid}.{tname}.csv"
                prev = [pd.read_csv(old_t, dtype=str, keep_default_na=False)] if old_t.exists() else []
                tables[tname] = combine_tables(prev + [t])
            results[sid] = (obs, flags, old_files + new_files, tables)
            summary[sid] = f"{len(new_obs)} rows from {len(fetched)} new file(s)"
        if results:
            write_snapshot(data_dir, results)
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
    if not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def status(data_dir: Path = DATA, today: dt.date | None = None) -> pd.DataFrame:
    """What the snapshot holds and how old each source is against its cadence."""
    today = today or dt.date.today()
    man = read_manifest(data_dir)
    rows = []
    for sid, src in registry.SOURCES.items():
        e = man["sources"].get(sid)
        if not e:
            rows.append({"source": sid, "rows": 0, "latest_release": "", "data_to": "", "age_days": "", "status": "missing"})
            continue
        latest = e.get("latest_release") or e.get("date_max") or ""
        age = (today - dt.date.fromisoformat(latest)).days if latest else None
        state = "ok" if age is not None and age <= src.cadence_days else "overdue"
        rows.append({"source": sid, "rows": e["rows"], "latest_release": latest, "data_to": e.get("date_max") or "",
                     "age_days": age, "status": state})
    return pd.DataFrame(rows)


def _bar(total: int, desc: str, enabled: bool):
    if not enabled or total == 0:
        return None
    from tqdm import tqdm
    return tqdm(total=total, desc=desc, unit="file")
