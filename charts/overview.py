"""Headline figures: the latest value of a few key measures, each with its dates, source, change against
the previous release and a staleness badge.

Each headline names candidate series; the one with the most recent data is used (the first listed on a tie),
so the page keeps working while sources come and go, and always says which series it shows.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pandas as pd

from . import data as cdata
from .study import daily_values

# (label, how, candidates). how: "latest" = the latest value; "last30" = mean per day over the last 30 days
# of data; "last-period" = the latest complete period's total.
HEADLINES = (
    ("People in ICE detention", "latest",
     ("ice_detention_stats.detained_total", "trac_detention.detained_total")),
    ("ICE arrests per day, last 30 days of data", "last30",
     ("ddp_records.arrests_daily", "ddp_arrests_aggregates.monthly_national_chart_data")),
    ("ICE book-ins per day, last 30 days of data", "last30",
     ("ice_detention_stats.book_ins_ice", "trac_detention.book_ins_ice")),
    ("ICE removals, fiscal year to date", "latest",
     ("ice_detention_stats.removals_fytd",)),
    ("Border encounters, latest month", "last-period",
     ("cbp_encounters.swb_total", "cbp_encounters.nationwide_total", "ohss_khsm.usbp_encounters")),
)


@dataclass
class Headline:
    label: str
    series_id: str
    title: str
    value: float | None
    unit: str
    period: str  # what the value covers, in words
    data_date: dt.date | None
    release: dt.date | None
    source: str
    publisher: str
    previous: float | None
    previous_release: dt.date | None
    overdue_days: int | None  # days past the source's cadence, None when on time
    definition: str

    @property
    def change(self) -> float | None:
        if self.value is None or self.previous is None:
            return None
        return self.value - self.previous


def _compute(df: pd.DataFrame, how: str, flow: bool) -> tuple[float | None, str, dt.date | None]:
    if df.empty:
        return None, "", None
    if how == "last30":
        daily = daily_values(df, flow=flow)
        end = daily.index.max()
        part = daily[daily.index > end - pd.Timedelta(days=30)]
        return float(part.mean()), f"{part.index.min().date()} to {end.date()}", end.date()
    if how == "last-period":
        full = df[~df["flag"].str.contains("partial")]
        row = (full if len(full) else df).iloc[-1]
        return float(row["value"]), f"{row['date']:%B %Y}", row["end"].date()
    row = df.iloc[-1]
    return float(row["value"]), f"on {row['end'].date()}", row["end"].date()


def headlines(snap: cdata.Snapshot, today: dt.date | None = None) -> list[Headline]:
    today = today or dt.date.today()
    out = []
    for label, how, candidates in HEADLINES:
        present = [c for c in candidates if c in snap.by_series]
        if not present:
            continue
        # The freshest figure wins (ICE's own workbook when it is as recent as its mirrors); the card names it.
        sid = max(present, key=lambda c: (snap.by_series[c]["end"].max(), -present.index(c)))
        info = snap.info(sid)
        flow = str(info.get("per_day_ok")) == "True"
        # Fiscal-year-to-date series are keyed by fiscal year: the headline is the latest year's.
        keys = snap.keys(sid)
        key = "" if "" in keys else max(keys)
        rows = cdata.series_rows(snap, sid, key)
        value, period, data_date = _compute(rows, how, flow)
        releases = sorted(snap.by_series[sid]["release"].dropna().unique())
        release = pd.Timestamp(releases[-1]).date() if releases else None
        prev = prev_rel = None
        if len(releases) > 1:
            prev_rel = pd.Timestamp(releases[-2]).date()
            prev, _, _ = _compute(cdata.series_rows(snap, sid, key, pd.Timestamp(prev_rel)), how, flow)
        entry = snap.source_entry(info["source"])
        latest = release or data_date
        cadence = int(entry.get("cadence_days") or 0)
        overdue = (today - latest).days - cadence if latest and cadence else None
        unit = info["unit"] + (" per day" if how == "last30" else "")
        out.append(Headline(label, sid, info["title"] + (f" ({key})" if key else ""), value, unit, period, data_date, release, info["source"],
                            entry.get("publisher", info["source"]), prev, prev_rel,
                            overdue if overdue and overdue > 0 else None, info["definition"]))
    return out
