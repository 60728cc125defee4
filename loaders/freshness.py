"""How fresh each source of the snapshot is, judged against its declared cadence: one rule for the page, the
headline cards and ``python -m loaders status``.

These are facts about the data, so they live on the data side: the snapshot's rows say which releases are held,
its manifest says each source's cadence and the last day its data cover, and ``data/publication_status.csv``
(hand-edited, each row with its evidence) says which releases are known to exist beyond those held. A source's
publication status in words (``status_words``) is written here in English, for ``python -m loaders releases
--latest`` and for the page alike; the analysis layer (``analysis.status``) builds the publication status
records, the blackouts and the words of the page in every language on top of this. Nothing here prints catalogue
text: the English words of ``command_status`` and ``status_words`` are the data side's own.
"""
from __future__ import annotations

import csv
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from . import data as cdata
from . import memo, registry

# ---------------------------------------------------------------- the declared facts (data/publication_status.csv)

DECLARED = cdata.DATA / "publication_status.csv"
KINDS = {"mirror", "release", "blackout", "stopped", "claim", "continues"}
COLUMNS = ["source", "kind", "start", "end", "target", "reason", "statement", "evidence_source", "verified"]
# Why a publisher released nothing, when the evidence says (a blackout row's ``reason``): a short code that a
# chart puts in words beside the span ("No ICE release (federal shutdown)"), in every language (``blackout.
# reason_<code>`` in locales/). Empty when the reason is not known: the chart then says only that none came.
REASONS = {"", "shutdown", "funding_lapse"}
# Sources whose cadence_days mean "not published on a schedule" (fixed files, curated by hand).
UNSCHEDULED_DAYS = 3650


class DeclaredError(ValueError):
    pass


def read_declared(path: Path | str = DECLARED) -> pd.DataFrame:
    """The declared facts, checked row by row: a bad row is refused with the file, row and field named.
    Read again only when the file changes (every chart with blackouts asks for them)."""
    path = Path(path)
    if not path.exists():
        return pd.DataFrame(columns=COLUMNS)
    return _declared_as_of(path, declared_stamp(path))


@memo.kept(size=1)  # keyed by value: the file and its stamp, so an edited file is read again
def _declared_as_of(path: Path, stamp) -> pd.DataFrame:
    return _read_declared(path)


def declared_stamp(path: Path | str = DECLARED) -> tuple[str, int | None, int | None]:
    """What identifies one version of the declared file by value: its path, modification time and size. Memos
    of what is computed from the file are keyed by this, never by the identity of the frame read from it (a frame
    freed when the file changes can hand its id to the next one, and an id key would then serve stale entries)."""
    path = Path(path)
    try:
        stamp = path.stat()
    except FileNotFoundError:
        return (str(path), None, None)
    return (str(path), stamp.st_mtime_ns, stamp.st_size)


def _read_declared(path: Path) -> pd.DataFrame:
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:  # a file from before the reason column: no reason known
        r.setdefault("reason", "")
    if rows and set(COLUMNS) - set(rows[0]):
        raise DeclaredError(f"{path.name}: missing column(s) {sorted(set(COLUMNS) - set(rows[0]))}")
    for i, r in enumerate(rows, start=2):
        _check_declared_row(r, f"{path.name} row {i}")
    return pd.DataFrame(rows, columns=COLUMNS)


def _check_declared_row(r: dict[str, str], where: str) -> None:
    """One declared fact: its codes, dates, verification and evidence, and what its kind needs."""
    if r["reason"] not in REASONS:
        raise DeclaredError(f"{where} field 'reason': {r['reason']!r} is not one of {sorted(REASONS - {''})} "
                            "(or empty when the reason is not known)")
    if r["kind"] not in KINDS:
        raise DeclaredError(f"{where} field 'kind': {r['kind']!r} is not one of {sorted(KINDS)}")
    _check_declared_dates(r, where)
    if r["verified"] not in ("yes", "no"):
        raise DeclaredError(f"{where} field 'verified': {r['verified']!r} must be 'yes' or 'no'")
    if not r["statement"].strip() or not r["evidence_source"].strip():
        raise DeclaredError(f"{where}: every fact needs a statement and the source of its evidence")
    if r["kind"] in ("blackout", "release", "stopped") and not r["start"]:
        raise DeclaredError(f"{where} field 'start': a {r['kind']} needs a date")
    if r["kind"] in ("mirror", "continues") and not r["target"]:
        raise DeclaredError(f"{where} field 'target': a {r['kind']} row names a source or series")


def _check_declared_dates(r: dict[str, str], where: str) -> None:
    """A declared fact's start and end: each empty or a real date, the end not before the start."""
    for f in ("start", "end"):
        if r[f]:
            try:
                dt.date.fromisoformat(r[f])
            except ValueError:
                raise DeclaredError(f"{where} field '{f}': {r[f]!r} is not a real YYYY-MM-DD date") from None
    if r["start"] and r["end"] and r["end"] < r["start"]:
        raise DeclaredError(f"{where}: 'end' {r['end']} is before 'start' {r['start']}")


def cadence_days(snap: cdata.Snapshot, source: str) -> int:
    try:
        return int(snap.source_entry(source).get("cadence_days") or 0)
    except (TypeError, ValueError):
        return 0


# ---------------------------------------------------------------- freshness (one place for the page, the cards
# and `python -m loaders status`: each once computed its own age from its own date, and they disagreed)

@dataclass(frozen=True)
class Freshness:
    data_date: dt.date | None  # the last day the data cover
    release: dt.date | None  # the latest release held (shown beside the data's date, never in its place)
    newer_release: dt.date | None  # a release known to exist after the held one, not in this snapshot
    age_days: int | None  # days from the data's own date to today
    overdue_days: int | None  # days past the cadence, counted from the latest release known; None when on time
    reference: bool  # a reference table or fixed file: used as it is, never called overdue


def freshness(today: dt.date, data_date: dt.date | None, release: dt.date | None = None, cadence_days: int = 0,
              known_releases=(), reference: bool = False) -> Freshness:
    """How fresh a figure is. Its age runs from the data's own date (a release can publish old data); lateness
    runs from the latest release known, held or declared, so a known newer release makes the figure behind,
    not the source overdue. Sources without a schedule and reference tables are never overdue."""
    newer = max((d for d in known_releases if d and (release is None or d > release)), default=None)
    last = newer or release or data_date
    unscheduled = reference or not cadence_days or cadence_days >= UNSCHEDULED_DAYS
    overdue = (today - last).days - cadence_days if last and not unscheduled else None
    return Freshness(data_date, release, newer, (today - data_date).days if data_date else None,
                     overdue if overdue and overdue > 0 else None, reference)


def is_reference(snap: cdata.Snapshot, source: str) -> bool:
    """A source that declares no series (only lookup tables, such as Census population for per-capita rates)
    or whose files are never updated."""
    src = registry.SOURCES.get(source)
    fixed = "fixed file" in str(snap.source_entry(source).get("cadence", ""))
    return fixed or (src is not None and not src.series and bool(snap.source_entry(source).get("tables")))


def declared_releases(declared: pd.DataFrame, source: str) -> list[dt.date]:
    mine = declared[(declared["source"] == source) & (declared["kind"] == "release")]
    return [dt.date.fromisoformat(s) for s in mine["start"] if s]


def releases_held(snap: cdata.Snapshot, source: str) -> list[pd.Timestamp]:
    """Every release date among a source's rows, oldest first (the analysis layer keeps the same list per
    snapshot: ``loaders.ledger.releases_of``)."""
    days: set[pd.Timestamp] = set()
    for sid, df in snap.by_series.items():
        if sid.split(".", 1)[0] == source:
            days.update(pd.Timestamp(r) for r in df["release"].dropna().unique())
    return sorted(days)


def source_freshness(snap: cdata.Snapshot, source: str, today: dt.date | None = None,
                     declared: pd.DataFrame | None = None,
                     releases: Callable[[cdata.Snapshot, str], list[pd.Timestamp]] = releases_held) -> Freshness:
    """A source's freshness: data to the manifest's last day, the latest release held, and the releases
    declared in data/publication_status.csv. ``releases`` lists a source's releases held: the page passes its
    reader that keeps the answer per snapshot; the command line reads them once per source."""
    today = today or dt.date.today()
    declared = read_declared() if declared is None else declared
    entry = snap.source_entry(source)
    held = releases(snap, source)
    data_to = entry.get("date_max")
    return freshness(today, dt.date.fromisoformat(str(data_to)[:10]) if data_to else None,
                     held[-1].date() if held else None, cadence_days(snap, source),
                     declared_releases(declared, source), is_reference(snap, source))


def command_status(table: pd.DataFrame, snap: cdata.Snapshot | None, today: dt.date | None = None,
                   declared: pd.DataFrame | None = None) -> pd.DataFrame:
    """``python -m loaders status``: the data side's table (rows, latest release, data date per source) with each
    held source's freshness from ``freshness``, the same judgement the cards and the Releases tab give."""
    today = today or dt.date.today()
    declared = read_declared() if declared is None else declared
    out = table.copy()
    out["newer_release_known"] = ""
    for i, r in out.iterrows():
        if r["status"] != "held" or snap is None:
            continue
        f = source_freshness(snap, r["source"], today, declared)
        out.at[i, "age_days"] = f.age_days if f.age_days is not None else ""
        out.at[i, "newer_release_known"] = f.newer_release.isoformat() if f.newer_release else ""
        if f.reference:
            tables = sum(int(t.get("rows", 0)) for t in (snap.source_entry(r["source"]).get("tables") or {}).values())
            out.at[i, "status"] = f"reference ({tables} table rows)" if tables else "reference"
        elif f.overdue_days:
            out.at[i, "status"] = f"overdue ({f.overdue_days} days past cadence"\
                + (f", counted from the known {f.newer_release.isoformat()} release, not held)" if f.newer_release else ")")
        else:
            out.at[i, "status"] = "ok" + (f" (newer release {f.newer_release.isoformat()} known, not held)"
                                          if f.newer_release else "")
    return out


# ---------------------------------------------------------------- the publication status in words (`status` on the
# Releases tab and the cards, `python -m loaders releases --latest`): English words, which ``analysis.status``
# turns into the reader's language (``status_text``)

def open_silence(declared: pd.DataFrame, source: str) -> dt.date | None:
    """The start of a declared span with no release that runs to today, or None: a declared ``blackout`` row
    with no end, or a publisher that ``stopped`` (a fact about the publisher, with its evidence). Spans computed
    from the snapshot (``analysis.status.blackouts``) never count: they only say that no file is held."""
    mine = declared[declared["source"] == source]
    starts = [r.start for r in mine.itertuples() if r.kind == "stopped" or (r.kind == "blackout" and not r.end)]
    return max((dt.date.fromisoformat(s) for s in starts), default=None)


def status_words(snap: cdata.Snapshot, source: str, fresh: Freshness, today: dt.date, declared: pd.DataFrame) -> str:
    """A source's publication status in words (English) on ``today``: its freshness ``fresh``
    (``source_freshness``) with what the snapshot and the declared facts add (a stopped publisher, a reference
    table, a source the snapshot lacks, a declared open span with no release)."""
    mine = declared[declared["source"] == source]
    known_last = fresh.newer_release or fresh.release
    in_snap = any(s.split(".", 1)[0] == source for s in snap.by_series)
    return _status_words(source, fresh, mine[mine["kind"] == "stopped"], bool(snap.source_entry(source).get("tables")),
                         in_snap, cadence_days(snap, source), (today - known_last).days if known_last else None,
                         open_silence(declared, source) is not None)


def _status_words(source: str, fresh: Freshness, stopped: pd.DataFrame, has_tables: bool, in_snap: bool, cad: int,
                  days_since: int | None, covered: bool) -> str:
    """A source's publication status in words (English): stopped, a reference table, no data, unscheduled, not
    versioned, on time, late, or how long no release came; and a newer release known but not held."""
    held_last = fresh.release
    if len(stopped):
        r = stopped.iloc[0]
        words = "publication stopped" + ("" if r["verified"] == "yes" else " (reported, not verified)")
    elif fresh.reference and has_tables:
        words = "reference table, used as it is (not tracked for lateness)"
    elif not in_snap and not held_last:
        words = "no data in this snapshot" + (" (record-level files not downloaded)" if source == "ddp_records" else "")
    elif not cad or cad >= UNSCHEDULED_DAYS:
        words = "not published on a schedule (fixed or curated files)"
    elif not held_last or days_since is None:  # days_since is known whenever a release is held
        words = "not versioned"
    elif days_since <= cad:
        words = "on time"
    elif days_since <= 2 * cad:
        words = f"late ({fresh.overdue_days} days past its {cad}-day cadence)"
    elif covered:  # a declared span says nothing was published: the count of days is a fact about the publisher
        words = f"no release for {days_since} days"
    else:  # only what this project holds: a missing file is not proof that nothing was published
        words = f"no release in this snapshot for {days_since} days"
    if fresh.newer_release and not len(stopped):
        # The snapshot is behind a release known to exist: say which, so the lateness is not read as the
        # publisher's.
        words += f"; a newer release of {fresh.newer_release.isoformat()} is known, not held"
    return words
