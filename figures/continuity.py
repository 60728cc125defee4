"""Continuity view: every source that measures one thing on one chart, each in its own style, and how far
they agree where they overlap.

A reader sees which source carries the story after the official one stopped (ICE's workbook after April
2026: TRAC's copy of its July release, DDP's daily counts from ICE's records, reported figures). Agreement is
computed, never asserted: for each declared pair, the median absolute percentage difference over the days or
periods both cover, with the number of comparisons and the span, drawn inside the figure.
"""
from __future__ import annotations

import datetime as dt
import textwrap
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from analysis.study import daily_values
from figures.blackouts import add_blackouts
from figures.core import break_gaps
from loaders import clock
from loaders import data as cdata
from loaders.text import html_text
from wording import i18n


@dataclass(frozen=True)
class Member:
    series: str
    label: str
    style: dict  # plotly line/marker style
    mode: str = "lines+markers"


class Measure(TypedDict):
    title: str
    unit: str  # "people" or "per day"
    members: tuple[Member, ...]  # drawn in this order
    pairs: tuple[tuple[str, str], ...]  # (other, reference) series ids whose agreement is computed


_B, _O, _G, _P, _S, _GR = "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#6b6b6b"
MEASURES: dict[str, Measure] = {
    "detained": dict(
        title="People in ICE detention, every source",
        unit="people",
        members=(
            Member("ice_detention_stats.detained_total", "ICE's workbook (headcount on the data date)",
                   dict(line=dict(color=_B, width=3), marker=dict(size=6))),
            Member("trac_detention.detained_total", "TRAC's table of ICE's releases",
                   dict(line=dict(color=_O, width=2, dash="dash"), marker=dict(size=6, symbol="square"))),
            Member("ddp_facility_daily.detained_midnight", "DDP: people held at midnight, from ICE's records",
                   dict(line=dict(color=_G, width=1.2)), "lines"),
            Member("reported_figures.detained_population", "Reported by officials or the press (claims)",
                   dict(marker=dict(color=_GR, size=9, symbol="diamond-open", line=dict(width=2))), "markers"),
        ),
        pairs=(("trac_detention.detained_total", "ice_detention_stats.detained_total"),
               ("ddp_facility_daily.detained_midnight", "ice_detention_stats.detained_total")),
    ),
    "arrests": dict(
        title="ICE arrests and book-ins per day, every source",
        unit="per day",
        members=(
            Member("ice_detention_stats.book_ins_ice", "ICE's workbook: book-ins after ICE arrests (monthly)",
                   dict(line=dict(color=_B, width=3, shape="hv"), marker=dict(size=6))),
            Member("trac_detention.book_ins_ice", "TRAC: book-ins after ICE arrests (monthly)",
                   dict(line=dict(color=_O, width=2, dash="dash", shape="hv"), marker=dict(size=6, symbol="square"))),
            Member("ohss_monthly_tables.book_ins_ice", "DHS monthly tables: book-ins after ICE arrests",
                   dict(line=dict(color=_S, width=2, dash="dot", shape="hv"))),
            Member("ohss_monthly_tables.ero_arrests", "DHS monthly tables: ICE ERO administrative arrests",
                   dict(line=dict(color=_G, width=2, dash="dot", shape="hv")), "lines"),
            Member("ddp_records.arrests_daily", "DDP records: ICE arrests per day",
                   dict(line=dict(color=_P, width=1)), "lines"),
            Member("ddp_arrests_aggregates.weekly_national_digitised", "DDP: ICE arrests per week (digitised chart)",
                   dict(line=dict(color=_P, width=1.5)), "lines"),
            Member("ddp_arrests_aggregates.monthly_national_chart_data", "DDP: ICE arrests per month (news chart data)",
                   dict(line=dict(color=_P, width=2.5, dash="longdash", shape="hv"), marker=dict(size=6, symbol="triangle-up"))),
            Member("reported_figures.ice_arrests_per_day", "Arrests per day reported by officials or the press (claims)",
                   dict(marker=dict(color=_GR, size=9, symbol="diamond-open", line=dict(width=2))), "markers"),
        ),
        pairs=(("trac_detention.book_ins_ice", "ice_detention_stats.book_ins_ice"),
               ("ohss_monthly_tables.book_ins_ice", "ice_detention_stats.book_ins_ice"),
               ("ddp_arrests_aggregates.weekly_national_digitised", "ohss_monthly_tables.ero_arrests"),
               ("ddp_arrests_aggregates.monthly_national_chart_data", "ddp_arrests_aggregates.weekly_national_digitised")),
    ),
}


def _rows(snap: cdata.Snapshot, sid: str) -> pd.DataFrame:
    """Each period from the latest release; for reported figures every row (each is its own claim)."""
    keys = snap.keys(sid)
    if sid.startswith("reported_figures."):
        return snap.by_series[sid][["date", "end", "value", "release", "flag", "file", "key"]].sort_values("date")
    key = "" if "" in keys else (keys[-1] if keys else "")
    return cdata.series_rows(snap, sid, key)


def _is_flow(snap: cdata.Snapshot, sid: str) -> bool:
    return cdata.is_flow(snap.info(sid))


def _per_day(df: pd.DataFrame, flow: bool) -> pd.DataFrame:
    if not flow or df.empty:
        return df
    return df.assign(value=df["value"].to_numpy() / cdata.days_covered(df))


def agreement(snap: cdata.Snapshot, other: str, ref: str) -> dict | None:
    """Median absolute % difference of ``other`` from ``ref`` over what both cover.

    Headcounts are compared on the reference's dates (the other's value that day, or within 3 days: TRAC
    dates its copy a few days after ICE's data date). Flows are compared per day over each complete period
    of the reference that the other covers in full.
    """
    if other not in snap.by_series or ref not in snap.by_series:
        return None
    r, o = _rows(snap, ref), _rows(snap, other)
    r = r[~r["flag"].str.contains("partial", regex=False)]
    o = o[~o["flag"].str.contains("partial", regex=False)]
    flow = _is_flow(snap, ref)
    od = daily_values(o, flow=_is_flow(snap, other), max_carry_days=1 if not flow else 1)
    if od.empty or r.empty:
        return None
    diffs, dates = [], []
    if flow:
        rr = _per_day(r, True)
        for row in rr.itertuples():
            span = pd.date_range(row.date, row.end, freq="D")
            got = od.reindex(span)
            if got.isna().any() or not row.value:
                continue
            diffs.append(abs(got.mean() - row.value) / row.value)
            dates.append(row.date)
    else:
        for row in r.itertuples():
            for lag in (0, 1, -1, 2, -2, 3, -3):
                v = od.get(row.end + pd.Timedelta(days=lag))
                if v is not None and not np.isnan(v):
                    if row.value:
                        diffs.append(abs(v - row.value) / row.value)
                        dates.append(row.end)
                    break
    if not diffs:
        return dict(other=other, ref=ref, n=0, median_pct=None, start=None, end=None)
    return dict(other=other, ref=ref, n=len(diffs), median_pct=float(np.median(diffs) * 100),
                start=min(dates).date(), end=max(dates).date())


def agreement_text(snap: cdata.Snapshot, a: dict, lang: str = "en") -> str:
    def short(sid):
        title = snap.info(sid)["title"]
        return title if lang == "en" else i18n.series_text(sid, "title", lang, title)
    if not a["n"]:
        return i18n.t("continuity.no_overlap", lang, other=short(a["other"]), ref=short(a["ref"]))
    return i18n.t("continuity.agreement", lang, other=short(a["other"]), ref=short(a["ref"]),
                  pct=f"{a['median_pct']:.1f}", n=a["n"],
                  what=i18n.t("continuity.periods" if _is_flow(snap, a["ref"]) else "continuity.dates", lang),
                  start=a["start"].isoformat(), end=a["end"].isoformat())


def _label(mem: Member, lang: str) -> str:
    """A member's legend label in ``lang`` (the English is ``Member.label``)."""
    return mem.label if lang == "en" else i18n.t(f"continuity.member.{mem.series.replace('.', '__')}", lang)


@dataclass(frozen=True)
class _Drawn:  # what add_blackouts needs of a prepared series
    series_id: str
    label: str


def continuity_spec(snap: cdata.Snapshot, measure: str, *, start: dt.date = dt.date(2023, 10, 1),
                    end: dt.date | None = None, generated_on: dt.date | None = None, lang: str = "en") -> dict:
    m = MEASURES[measure]
    unit = i18n.t(f"continuity.unit_{measure}", lang)
    traces, shown, to_dates = [], [], {}
    data_last: list[dt.date] = []  # each drawn source's last date, whatever the period
    for mem in m["members"]:
        if mem.series not in snap.by_series:
            continue
        df = _rows(snap, mem.series)
        per_day = m["unit"] == "per day" and _is_flow(snap, mem.series)
        if m["unit"] == "per day" and not per_day and snap.info(mem.series)["frequency"] != "daily" \
                and not mem.series.endswith("_per_day"):
            continue
        # Periods still in progress at the data date are left out: per day they swing with the days counted.
        df = _per_day(df[~df["flag"].str.contains("partial", regex=False)], per_day)
        if len(df):
            data_last.append(df["end"].max().date())
        df = df[(df["end"] >= pd.Timestamp(start)) & ((df["date"] <= pd.Timestamp(end)) if end else True)]
        if df.empty:
            continue
        label = _label(mem, lang)
        to_dates[label] = df["end"].max().date()
        # A source with months it did not publish (or this project does not hold) is not joined across them.
        x, y = break_gaps(df["date"].to_numpy(), df["value"].to_numpy(dtype="float64"))
        xs = [None if pd.isna(v) else pd.Timestamp(v).strftime("%Y-%m-%d") for v in x]
        ys = [None if np.isnan(v) else float(v) for v in y]
        hover = "%{x|%Y-%m-%d}: %{y:,.0f}<extra>" + html_text(label[:50]) + "</extra>"
        named = i18n.t("continuity.data_to", lang, label=label, date=to_dates[label].isoformat())
        traces.append(dict(type="scatter", x=xs, y=ys, name=html_text(named), mode=mem.mode,
                           hovertemplate=hover, **mem.style))
        shown.append(_Drawn(mem.series, named))
    agreements = [a for o, r in m["pairs"] if (a := agreement(snap, o, r))]
    notes = [i18n.t("continuity.overlap", lang, text=" ".join(agreement_text(snap, a, lang) for a in agreements)
                    if agreements else i18n.t("continuity.no_two", lang))]
    if measure == "arrests":
        notes.append(i18n.t("continuity.book_ins_note", lang))
    notes.append(i18n.t("continuity.shaded", lang))
    notes.append(i18n.t("figure.generated_on", lang, date=(generated_on or clock.today()).isoformat()))
    footer = [w for t in notes for w in textwrap.wrap(t, 160, break_long_words=False)]
    hi = end or max(to_dates.values(), default=None) or clock.today()
    # An end chosen past every source's last date gives way to that date in the subtitle (the axis still runs to
    # the end chosen); an end inside the data stays.
    said_end = min(hi, max(data_last)) if data_last else hi
    layout = dict(
        paper_bgcolor="white", plot_bgcolor="white", font=dict(color="#2a3f5f"),
        title=dict(text=f"<b>{html_text(i18n.t(f'continuity.title_{measure}', lang))}</b><br>"
                        "<span style='font-size:13px;color:#6b6b6b'>"
                        + html_text(i18n.t("continuity.subtitle", lang, start=start.isoformat(), end=said_end.isoformat(),
                                           unit=unit)) + "</span>",
                   x=0.01, xanchor="left", y=0.97, yanchor="top"),
        height=560 + 16 * len(footer), margin=dict(l=60, r=20, t=90, b=170 + 16 * len(footer)),
        legend=dict(orientation="h", yanchor="top", y=-0.08, x=0, xanchor="left"),
        yaxis=dict(gridcolor="#EBF0F8", title=unit, rangemode="tozero"),
        xaxis=dict(gridcolor="#EBF0F8", range=[start.isoformat(), hi.isoformat()]),
        hovermode="closest",
        annotations=[dict(text="<br>".join(html_text(t) for t in footer), xref="paper", yref="paper", x=0, y=0,
                          xanchor="left", yanchor="top", yshift=-150, showarrow=False, align="left",
                          font=dict(size=11, color="#6b6b6b"), name="continuity-notes")],
    )
    spec = {"data": traces, "layout": layout}
    spec = add_blackouts(spec, snap, shown, start, hi, lang=lang)
    spec["agreements"] = agreements
    return spec


def continuity_figure(snap: cdata.Snapshot, measure: str, **kw):
    spec = continuity_spec(snap, measure, **kw)
    spec.pop("agreements")
    return go.Figure(spec)
