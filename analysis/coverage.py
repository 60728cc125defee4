"""Which chosen series have no figures in a view's date range, when their data start and end, and the range
where they do have data: so an empty or half-empty chart says why and offers a way out.

Pure functions of the snapshot and the view.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pandas as pd

from analysis.view import View, chosen_rows, split_ref, view_range
from loaders import data as cdata
from wording import i18n


@dataclass(frozen=True)
class Gap:
    ref: str
    label: str
    first: dt.date  # first data date (start of the first period)
    last: dt.date  # last data date (end of the last period)
    hole: bool = False  # data on both sides of the range: ``first``/``last`` are the nearest periods around it


@dataclass(frozen=True)
class EmptyRange:
    lo: dt.date  # the range the view shows
    hi: dt.date
    gaps: list[Gap]  # chosen series with no figure in it
    suggest: tuple[dt.date, dt.date]  # the range where those series have data
    message: str


def _label(snap: cdata.Snapshot, ref: str, lang: str = "en") -> str:
    sid, key = split_ref(ref)
    return i18n.series_text(sid, "title", lang, snap.info(sid)["title"]) + (f": {key}" if key else "")


def empty_in_range(snap: cdata.Snapshot, view: View) -> EmptyRange | None:
    """The chosen series that have data but none between the view's start and end (as published on
    ``view.as_of`` when set), or None when every series with data has some in the range. Series with no data
    at all (unversioned ones in an as-published view) are left to their own note."""
    rng = view_range(snap, view)
    if rng is None:
        return None
    lang = getattr(view, "lang", "en")
    lo, hi = rng[0], rng[1]
    gaps = []
    for ref in view.series:
        rows = chosen_rows(snap, ref, view.as_of)
        if rows is None or not len(rows):
            continue
        # The same test ``prepare`` cuts the frames with: a period counts if it overlaps the range.
        inside = (rows["end"] >= pd.Timestamp(lo)) & (rows["date"] <= pd.Timestamp(hi))
        if inside.any():
            continue
        before, after = rows[rows["end"] < pd.Timestamp(lo)], rows[rows["date"] > pd.Timestamp(hi)]
        if len(before) and len(after):
            # A hole inside the data: the nearest periods either side, not the whole series.
            gaps.append(Gap(ref, _label(snap, ref, lang), before["date"].max().date(), after["end"].min().date(),
                            hole=True))
        else:
            gaps.append(Gap(ref, _label(snap, ref, lang), rows["date"].min().date(), rows["end"].max().date()))
    if not gaps:
        return None
    suggest = (min(g.first for g in gaps), max(g.last for g in gaps))
    parts = []
    for g in gaps:
        if g.hole:
            parts.append(i18n.t("coverage.hole", lang, label=g.label, first=g.first, last=g.last))
        else:
            parts.append(i18n.t("coverage.ends", lang, label=g.label, date=g.last) if g.last < lo else
                         i18n.t("coverage.starts", lang, label=g.label, date=g.first))
    message = i18n.t("coverage.message", lang, lo=lo, hi=hi, parts="; ".join(parts), first=suggest[0],
                     last=suggest[1])
    return EmptyRange(lo, hi, gaps, suggest, message)
