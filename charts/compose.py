"""One view -> one figure, for the page and the command line alike.

``render`` is the only place that decides what goes on a chart: the prepared series, the events in view and
the reported figures that measure the same thing. The page and ``python -m charts export`` both call it, so
an exported chart is the chart on the page.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pandas as pd

from . import data as cdata
from .figures import build_view_figure
from .view import Prepared, View, displayed_table, prepare

# Which reported-figure metrics can sit beside which series: (series metric, shown per day?) -> metrics.
REPORTED_MATCH = {
    ("arrests", True): {"ice_arrests_per_day", "target_per_day", "ice_book_ins_per_day"},
    ("arrests", False): {"ice_arrests"},
    ("book-ins", True): {"ice_book_ins_per_day", "ice_arrests_per_day", "target_per_day"},
    ("book-ins", False): {"ice_book_ins"},
    ("detained", False): {"detained_population"},
    ("removals", False): {"removals"},
}


@dataclass
class Rendered:
    view: View
    prepared: list[Prepared]
    lo: dt.date
    hi: dt.date
    table: pd.DataFrame
    events: pd.DataFrame | None
    reported: pd.DataFrame | None
    figure: object


def select_reported(reported: pd.DataFrame | None, snap, prepared: list[Prepared], view: View,
                    lo: dt.date, hi: dt.date) -> pd.DataFrame | None:
    if reported is None or reported.empty or not view.reported or view.index_at or view.index_event:
        return None
    wanted = set()
    for p in prepared:
        info = snap.info(p.series_id)
        per_day = p.unit.endswith("per day") or info["frequency"] == "daily"
        wanted |= REPORTED_MATCH.get((info["metric"], per_day), set())
    if not wanted:
        return None
    r = reported.assign(period_start=pd.to_datetime(reported["period_start"]),
                        period_end=pd.to_datetime(reported["period_end"]))
    one_day = r["period_start"] == r["period_end"]
    # A count for a single day is a per-day figure as it stands (ICE's daily posts): it may sit on a per-day chart.
    daily_counts = one_day & r["metric"].isin({"ice_arrests"}) & bool(wanted & {"ice_arrests_per_day"})
    r = r[r["metric"].isin(wanted) | daily_counts]
    r = r[(r["period_end"] >= pd.Timestamp(lo)) & (r["period_start"] <= pd.Timestamp(hi))]
    return r if len(r) else None


def select_events(events: pd.DataFrame | None, view: View, lo: dt.date, hi: dt.date) -> pd.DataFrame | None:
    if events is None or events.empty or not view.events:
        return None
    from .events import filter_events
    return filter_events(events, lo, hi, categories=view.categories or None, text=view.event_text or None)


def event_date(events: pd.DataFrame | None, event_id: str) -> dt.date | None:
    if events is None or not event_id or "id" not in events:
        return None
    hit = events[events["id"].astype(str) == str(event_id)]
    return pd.Timestamp(hit["date"].iloc[0]).date() if len(hit) else None


def render(snap: cdata.Snapshot, view: View, *, events: pd.DataFrame | None = None,
           reported: pd.DataFrame | None = None, generated_on: dt.date | None = None) -> Rendered:
    index_date = event_date(events, view.index_event) if view.index_event else None
    prepared, lo, hi = prepare(snap, view, index_date=index_date)
    ev = select_events(events, view, lo, hi)
    rep = select_reported(reported, snap, prepared, view, lo, hi)
    fig = build_view_figure(snap, view, prepared, lo, hi, events_in_view=ev, reported=rep,
                            generated_on=generated_on) if prepared else None
    return Rendered(view, prepared, lo, hi, displayed_table(prepared), ev, rep, fig)
