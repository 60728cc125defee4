"""The Event study tab: mean per day in windows before and after a date or event, and a year earlier."""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from charts import event_study as es
from charts import export
from charts.figures import EXPORT_SIZES, SIZES
from charts.study import StudyResult

from . import state
from .context import Page

# The study's numbers and figure are pure functions of their inputs and the snapshot; cached (read-only) so a
# rerun caused by another control does not recompute them (40-70 ms a rerun).
@st.cache_resource(show_spinner=False, max_entries=64)
def study_numbers(_snap, ref: str, on: dt.date, window: int):
    return es.study_numbers(_snap, ref, on, window)


@st.cache_resource(show_spinner=False, max_entries=32)
def study_figure(_snap, ref: str, on: dt.date, window: int, **kw):
    return es.study_figure(_snap, ref, on, window, **kw)


@st.cache_resource(show_spinner=False, max_entries=64)
def full_range_sources(_snap, ref: str) -> tuple[str, ...]:
    return es.full_range_sources(_snap, ref)


def study_controls(page: Page, events: pd.DataFrame) -> tuple[str, str, int, dt.date, str]:
    """Series, event (or date) and window; return (series, event choice, days, date, the date's label)."""
    ss = st.session_state
    choices, labels = es.event_choices(events)
    # Defaults go into session state before the widgets exist (a widget given both a default and a state
    # value warns on the page); values from the address bar were put there when the page opened.
    if ss.get("w_study_series") not in page.options:
        ss["w_study_series"] = ss["w_series"][0] if ss["w_series"] and ss["w_series"][0] in page.options else page.options[0]
    if ss.get("w_study_event") not in choices:
        ss["w_study_event"] = es.default_event(events) or es.DATE_CHOICE
    ss.setdefault("w_study_days", state.DEFAULT_STUDY_DAYS)
    ss.setdefault("w_study_date", es.default_date(events))
    s1, s2, s3 = st.columns([3, 3, 1])
    ref = s1.selectbox("Series", page.options, key="w_study_series", format_func=page.ref_label)
    choice = s2.selectbox("Event", choices, key="w_study_event", format_func=lambda e: labels.get(e, e))
    window = int(s3.number_input("Days", min_value=7, max_value=365, step=1, key="w_study_days"))
    if choice == es.DATE_CHOICE:
        on = st.date_input("Date", key="w_study_date")
        return ref, choice, window, on, f"{on}"
    return ref, choice, window, es.event_date(events, choice), labels[choice]


def study_metrics(res: StudyResult) -> None:
    w = res.window_label
    m1, m2, m3 = st.columns(3)
    m1.metric(f"Mean per day, {w} before", f"{res.before.mean_per_day:,.1f}")
    m2.metric(f"Mean per day, {w} from the date" if res.unit == "days" else f"Mean per day, {w} after",
              f"{res.after.mean_per_day:,.1f}",
              delta=f"{res.change:+,.1f} ({res.change_pct:+.1f}%)" if res.change_pct is not None else None,
              delta_color="off")
    if res.year_earlier_change is not None:
        m3.metric("Same windows a year earlier: change", f"{res.year_earlier_change:+,.1f}",
                  delta=f"{res.year_earlier_change_pct:+.1f}%" if res.year_earlier_change_pct is not None else None,
                  delta_color="off")
    st.caption(res.note)
    st.dataframe(res.table(), hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.1f") for c in
        ("mean per day before", "mean per day after", "change", "change %")})


def study_downloads(page: Page, ref: str, on: dt.date, window: int, res: StudyResult, win: pd.DataFrame,
                    fig_kw: dict) -> str:
    """The study's CSV and images; return the image size chosen."""
    size = st.radio("Image size", list(EXPORT_SIZES), key="w_study_size", horizontal=True,
                    format_func=lambda k: f"{k}: {SIZES[k].description}")
    stem = export.slug(f"event study {fig_kw['title']} {res.window_label}")
    e1, e2, e3 = st.columns(3)
    e1.download_button("Study data (CSV)", data=lambda: es.study_csv(fig_kw["title"], res, win, fig_kw["sources"]),
                       file_name=f"{stem}.csv", mime="text/csv", on_click="ignore", key="dl_study_csv")
    if export.find_browser():
        def img(fmt: str, size=size) -> bytes:
            f = study_figure(page.snap, ref, on, window, **fig_kw, size=size)[0]
            out = export.to_image(f, fmt, width=SIZES[size].width, height=int(f.layout.height),
                                  scale=SIZES[size].scale if fmt == "png" else 1)
            return export.svg_with_alt(out, fig_kw["title"], res.note) if fmt == "svg" else out
        e2.download_button("Study PNG", data=lambda: img("png"), file_name=f"{stem}-{size}.png", mime="image/png",
                           on_click="ignore", key="dl_study_png")
        e3.download_button("Study SVG", data=lambda: img("svg"), file_name=f"{stem}-{size}.svg",
                           mime="image/svg+xml", on_click="ignore", key="dl_study_svg")
    return size


def study_panel(page: Page, events: pd.DataFrame) -> StudyResult:
    """The tab; return the study shown."""
    st.caption("Mean per day in a window before and after a date, and the same windows a year earlier. "
               "This describes what happened around the date; it does not show that the event caused it.")
    ref, _, window, on, on_label = study_controls(page, events)
    state.sync_url(state.current_view())
    info = page.snap.info(ref.partition("|")[0])
    flow, first_date, last_date, res = study_numbers(page.snap, ref, on, window)
    unit = info["unit"] + (" per day" if flow else "")
    if res.before.mean_per_day is None or res.after.mean_per_day is None:
        what = "whole " + res.unit if res.unit != "days" else f"data within {window} days"
        st.info(f"This series has no data on one side of {on} ({what}); it runs {first_date.date()} to "
                f"{last_date.date()}. {res.note}")
        return res
    study_metrics(res)
    w = res.window_label
    fig_kw = dict(title=f"{page.ref_label(ref)} around {on_label}",
                  subtitle=f"{w} before and after {on}, and the same windows a year earlier ({unit})",
                  unit=unit, sources=full_range_sources(page.snap, ref), today=dt.date.today())
    fig, win = study_figure(page.snap, ref, on, window, **fig_kw)
    st.plotly_chart(fig, width="stretch", key="study_chart", config={"displaylogo": False},
                    alt=f"Event study: {fig_kw['title']}. {res.note} Mean per day before "
                        f"{res.before.mean_per_day:,.1f}, after {res.after.mean_per_day:,.1f}.")
    st.caption("Descriptive, not causal: many things change at once, and monthly data spread evenly over "
               "their days hide what happened within a month.")
    study_downloads(page, ref, on, window, res, win, fig_kw)
    return res
