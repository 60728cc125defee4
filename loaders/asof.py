"""The "as published on a date" view's companions: what was revised after that date, and which series cannot
be shown as published then because their rows carry no release date (not versioned).

Pure pandas on the loaded snapshot; the page only lays the results out.
"""
from __future__ import annotations

import datetime as dt

import pandas as pd

from loaders import data as cdata

IDENTITY = ["series", "key", "date"]
REVISION_COLUMNS = IDENTITY + ["previous_release", "previous", "release", "value", "change"]


def revisions_after(snap: cdata.Snapshot, series_ids: list[str], as_of: dt.date) -> pd.DataFrame:
    """Every change of a published value, in a release after ``as_of``, for the given series: one row per
    change (the period, the value before and the release it came from, the new value and its release).

    Changes between two releases both on or before ``as_of`` are left out: the reader of that day saw the later
    one already. Dates come back as ``datetime.date``; rows without a release date cannot be ordered and are
    not revisions of anything.
    """
    obs = snap.obs
    d = obs[obs["series"].isin(list(series_ids)) & obs["release"].notna()]
    d = d.sort_values(IDENTITY + ["release"], kind="mergesort")
    grouped = d.groupby(IDENTITY, sort=False)
    out = d.assign(previous=grouped["value"].shift(), previous_release=grouped["release"].shift())
    out = out[out["previous"].notna() & (out["previous"] != out["value"]) & (out["release"] > pd.Timestamp(as_of))]
    out = out.assign(change=out["value"] - out["previous"])
    for c in ("date", "release", "previous_release"):
        out[c] = out[c].dt.date
    return out[REVISION_COLUMNS].reset_index(drop=True)


def unversioned(snap: cdata.Snapshot, refs: list[str]) -> list[str]:
    """The references (``id`` or ``id|key``) whose rows have no release date at all: files published once, or
    digitised, with nothing saying when each figure came out. An as-published view cannot place them on a date,
    so it leaves them out (``loaders.data.series_rows`` with ``as_of``) and says so."""
    out = []
    for ref in refs:
        sid, _, key = ref.partition("|")  # analysis.view.split_ref; the view imports this module
        df = snap.by_series.get(sid)
        if df is None:
            continue
        rows = df[df["key"] == key]
        if len(rows) and rows["release"].isna().all():
            out.append(ref)
    return out


# ---------------------------------------------------------------- the revision band

BAND_COLUMNS = ["date", "end", "low", "high", "releases", "first_release", "last_revised"]


def _band_rows(snap: cdata.Snapshot, series_id: str, key: str, as_of: dt.date | None) -> pd.DataFrame:
    """The rows a band is made of: every release's figure for each period of one series (one member), one per
    period and release (the last file of a release wins, as in ``loaders.data.series_rows``).

    Left out: rows without a release date (nothing says when they came out); missing values; a period still
    in progress when printed (flag ``partial``: it covers fewer days than the period, so the later whole
    figure completes it rather than revises it, as the ledger says); and figures known to be wrong as printed
    (``tidy.KNOWN_WRONG``: swapped labels are not a revision). With ``as_of``, only releases out by then."""
    df = snap.by_series.get(series_id)
    if df is None:
        return pd.DataFrame(columns=["series", "key", "date", "end", "value", "release", "file"])
    return band_rows(df[df["key"] == key], as_of)


def band_rows(df: pd.DataFrame, as_of: dt.date | None = None) -> pd.DataFrame:
    """``_band_rows`` for any tidy rows (several series and members): sorted by series, key, date and
    release, one row per period and release."""
    keep = df["release"].notna() & df["value"].notna()
    keep &= ~df["flag"].str.contains(rf"(?:^|;)(?:partial|{cdata._WRONG})(?:;|$)", regex=True)
    if as_of is not None:
        keep &= df["release"] <= pd.Timestamp(as_of)
    d = df.loc[keep, ["series", "key", "date", "end", "value", "release", "file"]]
    d = d.sort_values(["series", "key", "date", "release", "file"], kind="mergesort")
    return d.drop_duplicates(["series", "key", "date", "release"], keep="last").reset_index(drop=True)


def revision_band(snap: cdata.Snapshot, series_id: str, key: str = "", *, as_of: dt.date | None = None,
                  per_day: bool = False) -> pd.DataFrame:
    """For each period of one series (one breakdown member): the lowest and the highest value any release
    printed for it (``low``, ``high``), how many releases printed it, the release that printed it first and
    the last release that changed it (``last_revised``: NaT when no release changed the first figure).

    ``per_day``: each release's figure divided by the days it covers first (the chart's per-day line).
    ``as_of``: the band as a reader saw it on that date (releases out by then). Rows that cannot be placed
    in a release, partial periods and known-wrong figures are left out (``_band_rows``). One row per period,
    sorted by date; ``end`` is the latest release's."""
    d = _band_rows(snap, series_id, key, as_of)
    if per_day and len(d):
        spans = cdata.coverage_spans(snap, str(snap.info(series_id)["source"]))
        d = d.assign(value=d["value"].to_numpy(dtype="float64") / cdata.days_covered(d, spans))
    return band_table(d, ["date"])[BAND_COLUMNS]


def band_table(d: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """The band of each period in ``d`` (band rows, sorted by ``by`` then release, one per period and release),
    grouped by ``by`` (the last of which is ``date``): ``BAND_COLUMNS`` and ``revisions``, how many releases
    changed the figure the one before had printed."""
    cols = by + [c for c in BAND_COLUMNS if c != "date"] + ["revisions"]
    if d.empty:
        return pd.DataFrame({c: pd.Series(dtype="datetime64[ns]" if c in ("date", "end", "first_release", "last_revised")
                                          else "object" if c in by else "float64") for c in cols})
    same_period = pd.Series(True, index=d.index)
    for c in by:
        same_period &= d[c].eq(d[c].shift())
    changed = same_period & d["value"].ne(d["value"].shift())
    g = d.groupby(by, sort=True)
    out = pd.DataFrame({
        "end": g["end"].last(),
        "low": g["value"].min(),
        "high": g["value"].max(),
        "releases": g["release"].count().astype("float64"),
        "first_release": g["release"].first(),
        "last_revised": d["release"].where(changed).groupby([d[c] for c in by]).max(),
        "revisions": changed.groupby([d[c] for c in by]).sum().astype("float64"),
    }).reset_index()
    return out[cols]


def first_published(snap: cdata.Snapshot, series_id: str, key: str = "") -> pd.DataFrame:
    """One series (one member) as first published: each period's figure from the earliest release that printed
    it, in ``loaders.data.series_rows``' columns. A figure printed while its period was still in progress
    (flag ``partial``) is not the period's first figure when a later release printed the whole period; rows
    without a release date (published once) are kept as they are, having no earlier version."""
    df = snap.by_series.get(series_id)
    if df is None:
        return pd.DataFrame(columns=["date", "end", "value", "release", "flag", "file"])
    df = df[(df["key"] == key) & df["value"].notna()]
    partial = df["flag"].str.contains(r"(?:^|;)partial(?:;|$)", regex=True)
    whole = set(df.loc[~partial, "date"])
    df = df[~(partial & df["date"].isin(whole))]
    df = df.sort_values(["date", "release", "file"], kind="mergesort", na_position="last")
    df = df.drop_duplicates("date", keep="first")
    return df[["date", "end", "value", "release", "flag", "file"]].reset_index(drop=True)
