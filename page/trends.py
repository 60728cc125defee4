"""The Trends and events tab: series picker, chart options, events controls, the chart and what goes with it
(definitions, events legend, data, revisions when as published), then the downloads."""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from charts.asof import revisions_after, unversioned
from charts.compose import Rendered
from charts.coverage import EmptyRange
from charts.events import events_csv, events_legend_table
from charts.figures import source_lines
from charts.plain import markdown_literal
from charts.view import GRANULARITIES, PRESETS, ROLLING, View

from . import context, exports, state, uploads
from .context import Page


def link_notes(view: View) -> list[str]:
    """What was changed in the link as opened; the notes go once the reader changes the view."""
    ss = st.session_state
    query = view.to_query()
    if ss.get("seeded_query") is None:
        ss["seeded_query"] = query
    elif query != ss["seeded_query"]:
        ss["link_notes"] = []
    notes = ss.get("link_notes") or []
    if notes:
        with st.container(key="link_notes"):
            for note in notes:
                st.info(markdown_literal(note))
    return notes


def series_picker(page: Page) -> list[str]:
    """The series and the date range; return the series chosen."""
    c1, c2 = st.columns([3, 2])
    with c1:
        chosen = st.multiselect("Series", page.options, key="w_series", format_func=page.ref_label,
                                help="Each series says what it counts: arrests are not book-ins, ICE is not CBP.")
    with c2:
        st.selectbox("Date range", list(PRESETS), key="w_preset", format_func=PRESETS.get)
        if st.session_state["w_preset"] == "custom":
            lo_bound, hi_bound = page.range_bounds(dt.date.today())
            st.date_input("Custom range", key="w_range", min_value=lo_bound, max_value=hi_bound)
        else:
            preset_caption(page, state.current_view())
    return chosen


def preset_caption(page: Page, view: View) -> str:
    """Say what the date range preset counts from (the chosen series' latest figure, not today) and the dates
    it means; return the text shown ("" when the series have no data)."""
    rng = context.view_facts(page, view)[0]
    if rng is None:
        return ""
    lo, hi, _, last = rng
    if view.preset == "all":
        text = f"All the chosen series' data: {lo} to {hi}."
    elif view.preset == "since-2025-01-20":
        text = f"{lo} to the latest figure of the chosen series ({last}), not to today."
    else:
        text = (f"Counted from the latest figure of the chosen series ({last}), not from today: "
                f"{lo} to {hi}.")
    st.caption(text)
    return text


def breakdown_picker(page: Page) -> list[str]:
    """Members of the big breakdowns (facilities, states, ...); return those on the chart."""
    if not page.big_breakdowns:
        return []
    snap, ss = page.snap, st.session_state
    with st.expander("Breakdowns with many members (facilities, states, field offices, countries)"):
        b_sid = st.selectbox("Series with a breakdown", page.big_breakdowns, format_func=lambda s: snap.info(s)["title"],
                             key="w_big_sid")
        picked = st.multiselect(f"{snap.info(b_sid)['breakdown'].capitalize()} (up to 8)", snap.keys(b_sid),
                                max_selections=8, key="w_big_keys")
        if st.button("Add to chart", key="w_big_add"):
            ss["w_extra"] = list(dict.fromkeys(list(ss["w_extra"]) + [f"{b_sid}|{k}" for k in picked]))[:12]
            st.rerun()
        if ss["w_extra"]:
            st.multiselect("Breakdown members on the chart", ss["w_extra"], key="w_extra", format_func=page.ref_label)
    return list(ss["w_extra"])


def chart_options(events: pd.DataFrame) -> None:
    """Granularity, per day, rolling average, index, log scale, fiscal axis, as published, reported figures."""
    ss = st.session_state
    with st.expander("Chart options", expanded=False):
        o1, o2, o3 = st.columns(3)
        with o1:
            st.radio("Granularity", list(GRANULARITIES), key="w_gran", format_func=GRANULARITIES.get, horizontal=True)
            st.checkbox("Show period totals per day", key="w_perday",
                        help="Monthly or weekly totals divided by the days each period covers.")
            st.radio("Rolling average", list(ROLLING), key="w_roll", format_func=ROLLING.get, horizontal=True)
        with o2:
            st.checkbox("Index = 100 at a date or event", key="w_index_on")
            if ss["w_index_on"]:
                st.date_input("Index date", key="w_index_at")
                if events is not None and len(events):
                    ev_ids = [""] + events.sort_values("date")["id"].astype(str).tolist()
                    labels = {str(r.id): f"{pd.Timestamp(r.date).date()} {r.title}" for r in events.itertuples()}
                    st.selectbox("...or at an event", ev_ids, key="w_index_event",
                                 format_func=lambda e: "(use the date)" if e == "" else labels.get(e, e))
            st.checkbox("Log scale", key="w_log")
            st.checkbox("Fiscal-year axis labels", key="w_fiscal", help="US fiscal years start on 1 October.")
        with o3:
            st.checkbox("As published on a date", key="w_asof_on",
                        help="Only releases out by that date; later revisions are listed below the chart.")
            if ss["w_asof_on"]:
                st.date_input("Published on or before", key="w_asof")
            st.checkbox("Show reported figures", key="w_reported",
                        help="Figures stated by officials or the press, drawn as dashed period markers.")


def chart(page: Page, view: View, events: pd.DataFrame, *, explained: bool = False) -> Rendered | None:
    """Draw the chart for the view; return what was rendered, or None when there is nothing to draw
    (``explained``: a notice above already says why the range is empty)."""
    if not view.series:
        st.info("Choose at least one series above.")
        return None
    try:
        r = context.rendered(page, view, events)  # built once per view and day, shared by sessions
    except ValueError as e:  # more series or units than one chart can draw distinctly: the reason, not a chart
        st.warning(str(e))
        return None
    if r.figure is None or r.table.empty:
        if not explained:
            st.info(f"No figures for these series between {r.lo} and {r.hi}. Widen the date range or pick another series.")
        return None
    # No camera button: the page's chart leaves the event list to the table below; the downloads under
    # it are laid out for their size and list every event inside the image.
    st.plotly_chart(r.figure, width="stretch", key="trend_chart", alt=r.alt, config={
        "displaylogo": False, "modeBarButtonsToRemove": ["toImage"]})
    if r.totals_figure is not None and r.totals_figure is not r.figure:
        st.plotly_chart(r.totals_figure, width="stretch", key="totals_chart", config={"displaylogo": False})
    return r


def chart_notes(page: Page, r: Rendered) -> None:
    """Under the chart: data date and sources, each series' definition, the events legend, the data."""
    latest = r.table.sort_values("end").iloc[-1]
    st.text(f"Data to {latest['end']} (latest point: {latest['value']:,.0f} {latest['unit']}, "
            f"{latest['label']}).\n" + "\n".join(r.memo("source_lines", lambda: source_lines(page.snap, r.prepared))))
    for p in r.prepared:
        with st.popover(f"What is: {p.label[:70]}"):
            st.text(page.snap.info(p.series_id)["definition"])
    if r.events is not None and len(r.events):
        with st.container(key="events_legend"):
            st.subheader("Events on the chart")
            st.dataframe(r.memo("events_legend", lambda: events_legend_table(r.events)), hide_index=True,
                         column_config={"source_url": st.column_config.LinkColumn("source link")})
            st.download_button("Events in view (CSV with citations)", data=lambda ev=r.events: events_csv(ev),
                               file_name="events.csv", mime="text/csv", on_click="ignore", key="dl_events")
    with st.expander("Data behind the chart", expanded=False):
        st.dataframe(r.table, hide_index=True)


def as_of_revisions(page: Page, r: Rendered, as_of: dt.date) -> pd.DataFrame:
    """The revisions published after the as-of date to the series drawn; return them."""
    rev = revisions_after(page.snap, [p.series_id for p in r.prepared], as_of)
    st.subheader(f"Revisions published after {as_of}")
    if len(rev):
        st.dataframe(rev, hide_index=True)
    else:
        st.text("No later revisions to these periods.")
    return rev


def not_versioned_note(page: Page, view: View) -> list[str]:
    """In an as-published view, name the chosen series that record no release dates (left out); return them."""
    left_out = unversioned(page.snap, view.series) if view.as_of else []
    if left_out:
        names = "; ".join(page.ref_label(ref) for ref in left_out)
        st.info(f"Not versioned, so left out of the view as published on {view.as_of}: {names}. These files "
                "record no release date for their figures, so what was out by that date cannot be told.")
    return left_out


def _show_range(lo: dt.date, hi: dt.date) -> None:
    st.session_state.update({"w_preset": "custom", "w_range": (lo, hi)})


def range_gap_notice(page: Page, view: View) -> EmptyRange | None:
    """Name the chosen series with no figures in the range, when their data start or end, and offer a button
    that sets the range where they have data; return what was found."""
    gap = context.view_facts(page, view)[1]
    if gap is None:
        return None
    lo_bound, hi_bound = page.range_bounds(dt.date.today())
    lo, hi = max(gap.suggest[0], lo_bound), min(gap.suggest[1], hi_bound)
    with st.container(key="range_gap"):
        st.info(markdown_literal(gap.message))
        st.button(f"Show {lo} to {hi}", key="w_range_fix", on_click=_show_range, args=(lo, hi))
    return gap


@st.fragment
def trends_panel(page: Page) -> View:
    """The trends tab. A fragment: a change to one of its controls reruns only this panel, not the headlines
    (the other tabs are not built while this one is open). Returns the view drawn."""
    events = context.session_events(page)
    uploads.local_events_report(page)
    link_notes(state.current_view())
    series_picker(page)
    breakdown_picker(page)
    chart_options(events)
    events = uploads.events_controls(page, events)
    view = state.current_view()
    state.sync_url(view)
    not_versioned_note(page, view)
    gap = range_gap_notice(page, view) if view.series else None
    r = chart(page, view, events, explained=gap is not None)
    if r is not None:
        chart_notes(page, r)
        if view.as_of:
            as_of_revisions(page, r, view.as_of)
        exports.downloads(page, r, events, view.to_query())
    return view
