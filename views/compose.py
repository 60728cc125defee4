"""One view -> one figure, for the page and the command line alike.

``render`` is the only place that decides what goes on a chart: the prepared series, the events in view and
the reported figures that measure the same thing. The page and ``python -m charts export`` both call it, so
an exported chart is the chart on the page.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace

import pandas as pd
import plotly.graph_objects as go

from analysis import deaths as DV
from analysis.view import Prepared, View, chosen_rows, displayed_table, prepare
from figures.alt import alt_text
from figures.core import band_notes, build_totals_figure, build_view_figure, per_day_coverage_notes, source_lines, unit_phrase
from figures.events import filter_events
from figures.labels import localised_label
from figures.layout import Size, size_of
from loaders import data as cdata
from loaders.memo import Memo
from loaders.reported_figures import METRICS as REPORTED_METRICS
from wording import i18n
from wording.i18n import translated_events

# Which reported-figure metrics can sit beside which series: (series metric, shown per day?) -> metrics. Only
# figures of the panel's own measure: a book-in is not an arrest, and an arrest target belongs with arrests.
REPORTED_MATCH = {
    ("arrests", True): {"ice_arrests_per_day", "target_per_day"},
    ("arrests", False): {"ice_arrests"},
    ("book-ins", True): {"ice_book_ins_per_day"},
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
    figure: go.Figure
    size: str | Size = "page"
    totals: list[Prepared] | None = None  # one total over a period each: drawn as bars (``totals_figure``)
    # ``prepared`` holds every series in view; ``series`` (below) those drawn as lines.
    totals_figure: object = None
    alt: str = ""
    # What the chart left out and why, in the view's language (a series with no data in the range): drawn in
    # the figure's footer and written into the CSV's comment lines.
    notes: list[str] = field(default_factory=list)
    # Values derived from this render alone (the events table, the source lines), kept once computed: the page
    # shares one Rendered between sessions and reruns (page.context.rendered). Read them, never change them.
    # ``loaders.memo``: keyed by name, a fixed few, so unbounded; the memo lives and dies with this render (a
    # ``dataclasses.replace`` copy gets its own).
    _memo: Memo = field(default_factory=Memo, init=False, repr=False, compare=False)

    def memo(self, name: str, build):
        """``build()``, computed once for this render and kept under ``name``."""
        return self._memo.keep(name, build)

    @property
    def series(self) -> list[Prepared]:
        return [p for p in self.prepared if not is_period_total(p)]

    @property
    def title(self) -> str:
        """The chart's title as plain text (for file names and CSV headers)."""
        fig = self.figure
        return getattr(fig, "_title_plain", "") if fig is not None else ""


def _with_period_dates(reported: pd.DataFrame) -> pd.DataFrame:
    """The reported figures with their periods as dates (a few ms, once per view drawn: the page keeps each
    render, page.cache)."""
    return reported.assign(period_start=pd.to_datetime(reported["period_start"]),
                           period_end=pd.to_datetime(reported["period_end"]))


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
    r = _with_period_dates(reported).copy(deep=False)  # a column is added below: never to the shared frame
    # Which series each figure sits beside (its panel on the chart): the first whose metrics it matches.
    ref_for: dict[str, str] = {}
    for p in prepared:
        info = snap.info(p.series_id)
        per_day = p.unit.endswith("per day") or info["frequency"] == "daily"
        for m in REPORTED_MATCH.get((info["metric"], per_day), set()):
            ref_for.setdefault(m, p.ref)
    if "ice_arrests_per_day" in ref_for:  # single-day counts sit beside the per-day series (see below)
        ref_for.setdefault("ice_arrests", ref_for["ice_arrests_per_day"])
    r["panel_ref"] = r["metric"].map(ref_for)
    one_day = r["period_start"] == r["period_end"]
    # A count for a single day is a per-day figure as it stands (ICE's daily posts): it may sit on a per-day chart.
    daily_counts = one_day & r["metric"].isin({"ice_arrests"}) & bool(wanted & {"ice_arrests_per_day"})
    r = r[(r["metric"].isin(wanted) | daily_counts) & r["panel_ref"].notna()]
    r = r[(r["period_end"] >= pd.Timestamp(lo)) & (r["period_start"] <= pd.Timestamp(hi))]
    return r if len(r) else None


# Figures of a neighbouring measure a reader would expect beside a panel (they were once drawn there): when no
# panel shows their measure they are left off, and the footer says how many and of what (``withheld_reported``).
NEIGHBOURS = {
    ("arrests", True): {"ice_book_ins_per_day"},
    ("book-ins", True): {"ice_arrests_per_day", "target_per_day"},
    ("arrests", False): {"ice_book_ins"},
    ("book-ins", False): {"ice_arrests"},
}


def withheld_reported(reported: pd.DataFrame | None, snap, prepared: list[Prepared], view: View,
                      lo: dt.date, hi: dt.date, drawn: pd.DataFrame | None) -> dict[str, int]:
    """How many reported figures in the period, of a measure next to the one drawn, were not drawn because no
    panel shows their measure: {catalogue measure: count}."""
    if reported is None or reported.empty or not view.reported or view.index_at or view.index_event:
        return {}
    near = set()
    for p in prepared:
        info = snap.info(p.series_id)
        near |= NEIGHBOURS.get((info["metric"], p.unit.endswith("per day") or info["frequency"] == "daily"), set())
    r = _with_period_dates(reported)
    r = r[r["metric"].isin(near) & (r["period_end"] >= pd.Timestamp(lo)) & (r["period_start"] <= pd.Timestamp(hi))]
    if drawn is not None:
        r = r[~r["row"].isin(drawn["row"])]
    out: dict[str, int] = {}
    for m in r["metric"]:
        out[REPORTED_METRICS[m][0]] = out.get(REPORTED_METRICS[m][0], 0) + 1
    return out


def select_events(events: pd.DataFrame | None, view: View, lo: dt.date, hi: dt.date) -> pd.DataFrame | None:
    if events is None or events.empty or not view.events:
        return None
    return filter_events(events, lo, hi, categories=view.categories or None, text=view.event_text or None)


def event_date(events: pd.DataFrame | None, event_id: str) -> dt.date | None:
    if events is None or not event_id or "id" not in events:
        return None
    hit = events[events["id"].astype(str) == str(event_id)]
    return pd.Timestamp(hit["date"].iloc[0]).date() if len(hit) else None


def is_period_total(p: Prepared) -> bool:
    """One value over a long span (a cross-section total such as arrests by state over 19 months): a bar, not
    a point on a date axis."""
    f = p.frame
    return bool(len(f)) and f["date"].nunique() == 1 and bool(((f["end"] - f["date"]).dt.days >= 90).all())


def totals_phrase(p: Prepared, info, lang: str = "en") -> str:
    """What one bar of a totals chart is: "arrests in total", or "arrests per day, averaged over the period"."""
    if lang == "en":
        ph = unit_phrase(p, info)[1]
        return ph.replace(" per day", " per day, averaged over the period") if ph.endswith("per day") else \
            ph.replace(" (total over each period)", " in total").replace(", total over each period shown", " in total")
    en = unit_phrase(p, info)[1]
    base = i18n.unit(str(info.get("unit", "")), lang)
    if en.endswith("per day"):
        return i18n.t("phrase.per_day_averaged", lang, unit=unit_phrase(p, info, lang)[1])
    if "total over each period" in en:
        return i18n.t("phrase.total_in_total", lang, unit=base)
    return unit_phrase(p, info, lang)[1]


def no_data_notes(snap: cdata.Snapshot, view: View, empty: list[Prepared], lo: dt.date, hi: dt.date) -> list[str]:
    """One note per series left off the chart for having no data between ``lo`` and ``hi``, saying where its
    data are (as published on ``view.as_of``, when set)."""
    lang = getattr(view, "lang", "en")
    out = []
    for p in empty:
        rows = chosen_rows(snap, p.ref, view.as_of)
        name = localised_label(p, lang)
        if rows is None or not len(rows):
            out.append(i18n.t("figure.no_data_at_all", lang, series=name))
            continue
        out.append(i18n.t("figure.no_data_in_range", lang, series=name, start=i18n.date(lo, lang),
                          end=i18n.date(hi, lang), first=i18n.date(rows["date"].min(), lang),
                          last=i18n.date(rows["end"].max(), lang)))
    return out


def render(snap: cdata.Snapshot, view: View, *, events: pd.DataFrame | None = None,
           reported: pd.DataFrame | None = None, generated_on: dt.date | None = None, size: str | Size = "page") -> Rendered:
    """The view drawn for ``size`` (page, full, article, social: see ``figures.core.SIZES``)."""
    index_date = event_date(events, view.index_event) if view.index_event else None
    prepared, lo, hi = prepare(snap, view, index_date=index_date)
    totals = [p for p in prepared if is_period_total(p)]
    series = [p for p in prepared if not is_period_total(p)]
    # A series with no data in the range gets no panel (an empty panel with a made-up 0-4 axis says nothing):
    # it is left off the figure and a note names it, with where its data are. With no data at all in the
    # range the chart is not drawn (the callers say so).
    drawn = [p for p in series if len(p.frame)] or series
    notes = no_data_notes(snap, view, [p for p in series if not len(p.frame)], lo, hi) \
        if len(drawn) < len(series) else []
    series = drawn
    if any(p.source == DV.SOURCE for p in series):
        # What the list of deaths cannot say about the range (a span no source covers, a fiscal year covered in
        # part with ICE's own total beside the list's count): in the footer and the CSV, as on the deaths maps.
        notes = notes + DV.coverage_notes(DV.records(snap), lo, hi, getattr(view, "lang", "en"), ends=False)
    # Periods shown per day that their source covers only in part, with the days each is divided by.
    notes = notes + per_day_coverage_notes(snap, series, getattr(view, "lang", "en"))
    ev = select_events(events, view, lo, hi) if series else None  # events are drawn on the date axis only
    if ev is not None and getattr(view, "lang", "en") != "en":
        # Titles and descriptions in the view's language (ids, dates kept).
        ev = translated_events(ev, view.lang, getattr(view, "sep", ","))
    rep = select_reported(reported, snap, series, view, lo, hi) if series else None
    withheld = withheld_reported(reported, snap, series, view, lo, hi, rep) if series else {}
    fig = build_view_figure(snap, view, series, lo, hi, events_in_view=ev, reported=rep, withheld=withheld,
                            generated_on=generated_on, size=size, notes=notes) if series else None
    tfig = None
    if totals:
        lang = getattr(view, "lang", "en")
        phrases = [totals_phrase(p, snap.info(p.series_id), lang) for p in totals]
        tfig = build_totals_figure(snap, view, totals, phrases=phrases, generated_on=generated_on, size=size)
        if fig is None:
            fig = tfig  # a view of totals only: the bars are the chart
    # The CSV's comment lines say what the band columns are, as the figure's footer does (drawn there by
    # build_view_figure; added here after it so the footer does not carry them twice).
    csv_notes = notes + (band_notes(series, view, getattr(view, "lang", "en")) if view.band and series else [])
    r = Rendered(view, prepared, lo, hi, displayed_table(prepared), ev, rep, fig, size, totals, tfig, notes=csv_notes)
    if fig is not None:
        r.alt = alt_text(r, snap)
    return r


def sources_of(snap: cdata.Snapshot, r: Rendered) -> list[str]:
    """The rendered view's source lines (who published each series drawn, which release, how far its data run),
    in the view's language; built once per render and kept with it."""
    return r.memo("source_lines", lambda: source_lines(snap, r.prepared, r.view.lang))


ChartSize = Size
"""A chart's size (width, fonts, plot height, legend place): the page builds a narrower one for a phone's column
from the page's size (``size_with``), so the type is part of the view layer's interface."""


def size_with(base: str = "page", **changes) -> Size:
    """The named chart size, with ``changes`` made to it (a phone's column width, a shorter plot)."""
    return replace(size_of(base), **changes)
