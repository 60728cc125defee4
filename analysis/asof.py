"""The "as published on a date" view's companions: what was revised after that date, and which series cannot
be shown as published then because their rows carry no release date (not versioned).

Pure pandas on the loaded snapshot; the page only lays the results out.
"""
from __future__ import annotations

import datetime as dt

import pandas as pd

from analysis import data as cdata
from analysis.view import split_ref

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
    so it leaves them out (``analysis.data.series_rows`` with ``as_of``) and says so."""
    out = []
    for ref in refs:
        sid, key = split_ref(ref)
        df = snap.by_series.get(sid)
        if df is None:
            continue
        rows = df[df["key"] == key]
        if len(rows) and rows["release"].isna().all():
            out.append(ref)
    return out
