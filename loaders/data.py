"""Reading the processed snapshot (``data/``). Pure pandas: no Streamlit, no network, no spreadsheets.

It belongs to the data side: the command line (``python -m loaders status``) reads the snapshot with it, and the
analysis layer, the figures and the page's view layer import it from here. The page keeps ``load_snapshot``'s
result in its cache (page/cache.py); the command-line export calls it directly, so both draw the same figures
from the same rows.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv

from loaders import events as lev
from loaders import reported_figures, tidy
from loaders.base import FISCAL_YTD, MEASURES
from loaders.memo import Memo
from loaders.snapshot import SnapshotError, read_generation

DATA = Path(__file__).resolve().parent.parent / "data"
# How many values one snapshot keeps (``Snapshot.memo``): far more than a page with every series and option
# asks for (about 8 per series and view option), so it only drops what a long-running server stopped asking for.
MEMO_SIZE = 16384


@dataclass
class Snapshot:
    obs: pd.DataFrame  # every tidy row of every source, all releases; date/end/release as datetime64
    catalogue: pd.DataFrame  # indexed by series id
    manifest: dict
    flags: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)  # "<source>.<name>" -> reference table
    by_series: dict[str, pd.DataFrame] = field(default_factory=dict)
    # The curated files as the rebuild checked them: the bundled events (None in a snapshot built before they
    # travelled inside it) and every reported figure with its source columns (None without that source).
    events: pd.DataFrame | None = None
    reported: pd.DataFrame | None = None
    # Values computed from this snapshot alone and asked for many times per page run (catalogue rows, sorted
    # breakdown members, a series' rows and shapes, blackouts), kept once computed (``loaders.memo``: keyed by
    # value; the memo lives and dies with this snapshot). A snapshot is read-only once loaded, so they cannot go
    # stale; the kept objects are shared: don't mutate. Bounded, since some keys carry a day or a view's options.
    # Not an argument: a copy made with ``dataclasses.replace`` (other rows) starts with its own, empty memo.
    memo: Memo = field(default_factory=lambda: Memo(MEMO_SIZE), init=False, repr=False, compare=False)
    # In a key of ``loaders.memo.kept`` (the page's shared values) a snapshot counts by identity, held by the entry.
    MEMO_BY_IDENTITY: ClassVar[bool] = True

    def series_ids(self) -> list[str]:
        return [s for s in self.catalogue.index if s in self.by_series]

    def info(self, series_id: str) -> pd.Series:
        return self.memo.keep(("info", series_id), lambda: self.catalogue.loc[series_id])

    def source_entry(self, source_id: str) -> dict:
        return self.manifest.get("sources", {}).get(source_id, {})

    def keys(self, series_id: str) -> list[str]:
        df = self.by_series.get(series_id)
        if df is None:
            return []
        return list(self.memo.keep(("keys", series_id), lambda: sorted(df["key"].unique())))


def load_snapshot(data_dir: Path | str = DATA) -> Snapshot:
    """Every file of one generation of the snapshot in ``data_dir`` (``loaders.snapshot.read_generation``).

    The files are read together and checked against the manifest's checksums, so a page started while an
    update switches generations gets the old one or the new one, never observations of one with the manifest
    of the other; a damaged snapshot is a ``SnapshotError`` saying which files, never a partial chart.
    """
    _, manifest, files = read_generation(data_dir)

    def csv(rel: str, **kw) -> pd.DataFrame:
        return pd.read_csv(io.BytesIO(files[rel]), keep_default_na=False, **kw)

    frames = [read_observations(files[rel])
              for rel in sorted(files) if rel.startswith("observations/") and rel.endswith(".csv")]
    obs = pd.concat(frames, ignore_index=True) if frames else tidy.empty()
    catalogue = (read_catalogue(files["series.csv"]) if "series.csv" in files
                 else pd.DataFrame(columns=["id", "measure"]).set_index("id"))
    obs, catalogue = drawn_layout(obs, catalogue)
    for c in ("date", "end"):
        obs[c] = pd.to_datetime(obs[c], format="%Y-%m-%d")
    obs["release"] = pd.to_datetime(obs["release"].replace("", None), format="%Y-%m-%d")
    for c in ("series", "key", "flag", "file"):
        obs[c] = obs[c].fillna("")
    flags = csv("quality_flags.csv", dtype=str) if "quality_flags.csv" in files else pd.DataFrame()
    tables = {rel[len("tables/"):-len(".csv")]: csv(rel, dtype=str)
              for rel in sorted(files) if rel.startswith("tables/") and rel.endswith(".csv")}
    by_series = {sid: g.reset_index(drop=True) for sid, g in obs.groupby("series", sort=True)}
    events = lev.from_snapshot(files[lev.SNAPSHOT_FILE]) if lev.SNAPSHOT_FILE in files else None
    reported = reported_figures.from_table(tables.get(reported_figures.ROWS_TABLE))
    return Snapshot(obs, catalogue, manifest, flags, tables, by_series, events=events, reported=reported)


OBS_DTYPES = {"series": str, "key": str, "flag": str, "file": str, "date": str, "end": str, "release": str,
              "value": "float64"}


def read_observations(content: bytes) -> pd.DataFrame:
    """One ``observations/<source>.csv`` as a frame: text columns as text (an empty field is ""), ``value`` as
    float64 (an empty field is NaN).

    Read by Arrow's CSV reader, which gives the same frame as pandas' own reader (``_read_observations_pandas``;
    ``tests/test_page_cache.py`` compares them) in a third of the time: ICE's file went from 9 to 39 MB with its
    release history (issue 39), and the page reads it when its server starts. A file Arrow cannot read the same
    way (a column not in ``OBS_DTYPES``, a value that is no number) is read by pandas, which names the problem."""
    try:
        return _read_observations_arrow(content)
    except (pa.ArrowInvalid, KeyError, ValueError):
        return _read_observations_pandas(content)


def _read_observations_pandas(content: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(content), keep_default_na=False, dtype=OBS_DTYPES, na_values={"value": [""]})


def _read_observations_arrow(content: bytes) -> pd.DataFrame:
    end = content.find(b"\n")
    header = next(csv.reader([content[:end if end >= 0 else len(content)].decode("utf-8")]), [])
    if not header or len(set(header)) != len(header) or any(c not in OBS_DTYPES for c in header):
        raise KeyError("columns")
    types = {c: pa.float64() if OBS_DTYPES[c] == "float64" else pa.string() for c in header}
    table = pacsv.read_csv(
        io.BytesIO(content), parse_options=pacsv.ParseOptions(newlines_in_values=True),
        convert_options=pacsv.ConvertOptions(column_types=types, strings_can_be_null=False,
                                             quoted_strings_can_be_null=False, null_values=[""]))
    return table.to_pandas(types_mapper={pa.string(): pd.StringDtype(na_value=np.nan)}.get)


def drawn_layout(obs: pd.DataFrame, catalogue: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The snapshot stores fiscal-year-to-date series by period (1 October to the data date, the breakdown member
    as key); the page draws each of them one point per release at its data date, one line per fiscal year
    (``loaders.tidy.fytd_points``), so its lines and the keys in its addresses stay as they were. ``obs`` with
    ISO text dates."""
    if "period" not in catalogue or "breakdown" not in catalogue:
        return obs, catalogue
    fy = catalogue.index[catalogue["period"] == FISCAL_YTD]
    if not len(fy):
        return obs, catalogue
    obs = tidy.fytd_points(obs, {sid: catalogue.at[sid, "breakdown"] for sid in fy})
    catalogue = catalogue.copy()
    catalogue.loc[fy, "breakdown"] = [tidy.drawn_breakdown(catalogue.at[sid, "breakdown"], FISCAL_YTD) for sid in fy]
    return obs, catalogue


def read_catalogue(content: bytes, name: str = "series.csv") -> pd.DataFrame:
    """The catalogue, indexed by series id, with its declared values checked: ``measure`` is "flow" or
    "level" (``loaders.base.MEASURES``), never a string that merely looks like one. A catalogue written before
    ``measure`` existed, or with an unknown value, is refused naming the file, row and field: every per-day,
    resampling and headline decision reads it, so a guess here would print wrong numbers."""
    cat = pd.read_csv(io.BytesIO(content), dtype=str, keep_default_na=False)
    for col in ("id", "measure"):
        if col not in cat.columns:
            raise SnapshotError(f"{name} has no {col!r} column (columns: {list(cat.columns)}); rebuild the snapshot "
                                "with `python -m loaders rebuild`")
    bad = ~cat["measure"].isin(list(MEASURES))
    if bad.any():
        i = int(bad.to_numpy().nonzero()[0][0])
        raise SnapshotError(f"{name} row {i + 2} (series {cat['id'].iloc[i]!r}) field 'measure': "
                            f"{cat['measure'].iloc[i]!r} is not one of {sorted(MEASURES)}")
    return cat.set_index("id")


def series_rows(snap: Snapshot, series_id: str, key: str = "", as_of: pd.Timestamp | None = None) -> pd.DataFrame:
    """One series (one breakdown member), each period from the latest release (or as published on ``as_of``)."""
    df = snap.by_series.get(series_id)
    if df is None:
        return pd.DataFrame(columns=["date", "end", "value", "release", "flag", "file"])
    df = df[df["key"] == key]
    if as_of is not None:
        # Rows without a release date (files published once, digitised charts) cannot be placed on a date:
        # an as-published view leaves them out (``loaders.asof.unversioned`` names them) rather than showing
        # figures that may not have existed then.
        df = df[df["release"].notna() & (df["release"] <= as_of)]
    df = df.sort_values(["date", "release", "file"], kind="mergesort", na_position="first")
    df = _known_wrong_do_not_win(df).drop_duplicates("date", keep="last")
    return df[["date", "end", "value", "release", "flag", "file"]].reset_index(drop=True)


_WRONG = "|".join(sorted(tidy.KNOWN_WRONG))


def _known_wrong_do_not_win(df: pd.DataFrame) -> pd.DataFrame:
    """A figure flagged as wrong as printed (``tidy.KNOWN_WRONG``: labels swapped, a fraction above 1...) does
    not replace an earlier release's figure for the same period: that one stays the latest, with the note flag
    ``later-known-wrong``. Without an earlier figure the flagged one is shown (flagged). ``df`` sorted by date
    and release."""
    wrong = df["flag"].str.contains(rf"(?:^|;)(?:{_WRONG})(?:;|$)", regex=True)
    if not wrong.any():
        return df
    good = df[~wrong]
    overruled = df.loc[wrong & ~df["date"].duplicated(keep="last"), "date"]  # periods a wrong figure would win
    last_good = good.index[~good["date"].duplicated(keep="last") & good["date"].isin(overruled)]
    df = df[~(wrong & df["date"].isin(good["date"]))].copy()
    df.loc[last_good, "flag"] = [";".join(sorted({*f.split(";"), "later-known-wrong"} - {""}))
                                 for f in df.loc[last_good, "flag"]]
    return df


def iso_days(values) -> np.ndarray:
    """Dates (datetime64 values, any unit) as YYYY-MM-DD text in one vectorised step ("NaT" where missing):
    formatting them one by one (``.dt.date.astype(str)``, or Plotly converting datetime64 arrays) cost
    milliseconds a column."""
    return np.datetime_as_string(np.asarray(values).astype("datetime64[D]"), unit="D")


def is_flow(info: pd.Series) -> bool:
    """Whether a catalogue entry counts events over each period (a flow: may be summed, shown per day) rather
    than a level (a value on a date or an average over a period: never summed). Each series declares it once
    (``Series.measure``); the page, the headline cards, resampling, the units and the event study ask here."""
    return info["measure"] == "flow"


def coverage_spans(snap: Snapshot, source: str) -> list[tuple[pd.Timestamp, pd.Timestamp]]:
    """The spans of days ``source`` covers (its ``coverage`` table, ``loaders.tidy.coverage_table``), or [] for a
    source that declares none (every period it publishes is covered whole)."""
    t = snap.tables.get(f"{source}.{tidy.COVERAGE_TABLE}")
    if t is None or not len(t):
        return []
    return [(pd.Timestamp(a), pd.Timestamp(b)) for a, b in zip(t["start"], t["end"])]


def covered_bounds(df: pd.DataFrame, spans=()) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's first and last day covered and how many days of its period are covered: the period itself
    (``date`` to ``end``) unless ``spans`` (``coverage_spans``) cover only part of it. A row no span touches keeps
    its own period."""
    a, b = df["date"].to_numpy("datetime64[ns]"), df["end"].to_numpy("datetime64[ns]")
    own = ((b - a) // np.timedelta64(1, "D")).astype("int64") + 1
    if not len(spans) or not len(df):
        return a, b, own
    days = np.zeros(len(df), dtype="int64")
    first = np.full(len(df), np.datetime64("NaT"), "datetime64[ns]")
    last = first.copy()
    for lo, hi in spans:
        s, e = np.maximum(a, np.datetime64(lo, "ns")), np.minimum(b, np.datetime64(hi, "ns"))
        n = np.clip(((e - s) // np.timedelta64(1, "D")).astype("int64") + 1, 0, None)
        hit = n > 0
        first = np.where(hit & (np.isnat(first) | (s < first)), s, first)
        last = np.where(hit & (np.isnat(last) | (e > last)), e, last)
        days += n
    none = days == 0
    return np.where(none, a, first), np.where(none, b, last), np.where(none, own, days)


def clip_to_coverage(df: pd.DataFrame, spans=()) -> pd.DataFrame:
    """The rows with each period cut to the days its source covers (``covered_bounds``), for readers that spread
    a total over ``date`` to ``end`` (the event study's days). A period with a gap inside keeps the gap's days;
    no source here has one."""
    if not len(spans) or not len(df):
        return df
    first, last, _ = covered_bounds(df, spans)
    return df.assign(date=pd.to_datetime(first), end=pd.to_datetime(last))


def days_covered(df: pd.DataFrame, spans=()) -> np.ndarray:
    """The days each row's value covers: its period, or the part of it its source covers (``spans``,
    ``coverage_spans``: a deaths list that starts on 10 April 2018 covers 174 days of FY2018)."""
    return covered_bounds(df, spans)[2]
