"""The view <-> widgets <-> address bar. A link is read once, when a session opens, into the widgets' session
state; after that the widgets are the truth and every run writes the view back into the address bar."""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from views import data as vdata
from views.data import DEFAULT_START, View
from views.event_study import DATE_CHOICE
from views.link import ROOMS, study_from_query, study_to_query, tab_from_query, tab_to_query, trends_to_query, view_from_link
from wording import i18n

from . import lang as plang
from .context import Page

# Streamlit forgets a widget's value when a run does not draw it: the page builds one room a run, and a fragment
# run forgets the widgets of its fragment it does not draw (most of the trends tab's sit in sections built only
# while open). Writing each value back makes it ordinary session state that outlives such runs; the sections'
# own keys ("x_...") are kept too, so they stay open or closed as the reader left them.
# Drawn by the range-and-chart fragment (page.trends.range_and_chart), kept at each of its runs:
RANGE_WIDGETS = ("w_preset", "w_range", "w_export_size", "x_events_legend", "x_data", "x_exports")
# Drawn by the trends panel's fragment around it (page.trends.trends_panel), kept at each of its runs:
PANEL_WIDGETS = ("w_series", "w_extra", "w_gran", "w_perday", "w_roll", "w_index_on", "w_index_at", "w_index_event",
                 "w_log", "w_fiscal", "w_asof_on", "w_asof", "w_band", "w_events", "w_cats", "w_evtext", "w_reported",
                 "w_big_sid", "w_big_keys", "x_breakdowns", "x_options")
# Every kept widget, written back at the start of each full run.
KEPT_WIDGETS = PANEL_WIDGETS + RANGE_WIDGETS + ("w_study_series", "w_study_event", "w_study_days", "w_study_date",
                                                "w_study_vintage", "w_study_size", "w_lang", "w_sep")


def lazy_expander(label: str, key: str):
    """An expander whose contents are built only while it is open (``.open``; opening or closing it reruns the
    fragment it is in). Its key belongs in the lists above. The trends tab sent about 80 elements on every change
    of the date range, most of them inside closed expanders and under the chart."""
    return st.expander(label, key=key, on_change="rerun")


# The event study's settings live in the address bar beside the view, the open room too (``views.link``: the
# link format). The session keeps the room's name under "tab", never its label, so a change of language keeps
# the reader where they were.
# The study's settings by the widget that holds each.
STUDY_WIDGETS = {"series": "w_study_series", "event": "w_study_event", "days": "w_study_days",
                 "date": "w_study_date", "vintage": "w_study_vintage"}
# The rooms' labels in every language (locales/*.toml, page.tab.*) -> the room's name.
TAB_NAMES = {i18n.t(f"page.tab.{name}", lang): name for lang in i18n.LANGS for name in ROOMS}


def tab_label(name: str, lang: str = "en") -> str:
    return i18n.t(f"page.tab.{name}", lang)


def tab_labels(lang: str = "en") -> list[str]:
    return [tab_label(name, lang) for name in ROOMS]


def sync_tab(name: str | None) -> str | None:
    """Write the open room into the address bar (after the rooms, which rewrite the rest); return its name."""
    tab = tab_to_query(name)
    if tab:
        st.query_params["tab"] = tab["tab"]
    elif "tab" in st.query_params:
        del st.query_params["tab"]
    return name if name in ROOMS else None


def seed_study_from_url(q: dict, options: list[str]) -> None:
    ss = st.session_state
    asked = study_from_query(q, options)
    for name, key in STUDY_WIDGETS.items():
        if name in asked:
            ss[key] = asked[name]
    if "date" in asked:
        ss.setdefault("w_study_event", DATE_CHOICE)


def widget_values(v0: View, options: list[str], bounds: tuple[dt.date, dt.date], today: dt.date) -> dict:
    """The widgets' session state for a view (the inverse of ``current_view``)."""
    lo, hi = bounds
    return {
        "w_series": [r for r in v0.series if r in options],
        "w_extra": [r for r in v0.series if r not in options],
        "w_preset": v0.preset,
        # Clamped like the link's own dates: the picker refuses (raises on) a value outside its bounds.
        "w_range": tuple(min(max(d, lo), hi) for d in (v0.start or DEFAULT_START, v0.end or today)),
        "w_gran": v0.granularity, "w_perday": v0.per_day, "w_roll": v0.rolling,
        "w_index_on": bool(v0.index_at or v0.index_event), "w_index_at": v0.index_at or DEFAULT_START,
        "w_index_event": v0.index_event, "w_log": v0.log, "w_fiscal": v0.fiscal_axis,
        "w_asof_on": v0.as_of is not None, "w_asof": v0.as_of or today, "w_band": v0.band,
        "w_events": v0.events, "w_cats": v0.categories, "w_evtext": v0.event_text, "w_reported": v0.reported,
    }


def seed(page: Page, events: pd.DataFrame) -> None:
    """On a session's first run: the link's view (checked by the same code as ``python -m charts export
    --query``: whatever it says, the page renders, and every change made to it is listed above the chart)."""
    ss = st.session_state
    if "view_seeded" in ss:
        return
    today = vdata.today()
    link = st.query_params.to_dict()
    v0, link_notes = view_from_link(link, page.snap, events=events, today=today)
    if not v0.series:
        v0.series = [r for r in View().series if r in page.options] or page.options[:1]
        if link.get("series"):
            link_notes.append(plang.t("page.no_series_drawable"))
    ss["link_notes"] = link_notes
    ss.update(widget_values(v0, page.options, page.range_bounds(today), today))
    seed_study_from_url(link, page.options)
    ss["tab"] = tab_from_query(link)  # read once, like the view: after this the room switcher is the truth
    ss["view_seeded"] = True
    ss["seeded_query"] = None  # set by the first run of the trends panel


def keep_widgets(keys: tuple[str, ...] = KEPT_WIDGETS) -> None:
    """Write each widget's value back as session state (before the widget is drawn this run)."""
    ss = st.session_state
    for k in keys:
        if k in ss:
            ss[k] = ss[k]


def current_view() -> View:
    s = st.session_state
    preset = s["w_preset"]
    rng = s["w_range"] if isinstance(s["w_range"], (tuple, list)) and len(s["w_range"]) == 2 else (None, None)
    index_event = s["w_index_event"] if s["w_index_on"] and s["w_index_event"] else ""
    return View(
        series=list(s["w_series"]) + list(s["w_extra"]),
        preset=preset, start=rng[0] if preset == "custom" else None, end=rng[1] if preset == "custom" else None,
        granularity=s["w_gran"], per_day=s["w_perday"], rolling=s["w_roll"],
        index_at=s["w_index_at"] if s["w_index_on"] and not index_event else None, index_event=index_event,
        log=s["w_log"], fiscal_axis=s["w_fiscal"], as_of=s["w_asof"] if s["w_asof_on"] else None,
        events=s["w_events"], categories=list(s["w_cats"]), event_text=s["w_evtext"], reported=s["w_reported"],
        band=bool(s.get("w_band", False)), lang=plang.lang(), sep=plang.sep(),
    )


def study_query() -> dict[str, str]:
    ss = st.session_state
    return study_to_query(ss.get("w_study_series"), ss.get("w_study_event"), ss.get("w_study_date"),
                          ss.get("w_study_vintage", "latest"), ss.get("w_study_days"))


def sync_url(view: View) -> None:
    st.query_params.from_dict({**trends_to_query(view), **study_query()})
