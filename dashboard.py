"""The page: headline figures, then tabs for trends against events, the event study, places, sources and
methods, and releases.

It only lays out: each piece is in ``page/`` and each computation in ``charts`` or ``loaders``. It reads the
processed snapshot through a cache, keeps the view in the URL, never downloads and never parses a spreadsheet
(refresh with ``python -m loaders update``). Data-derived text is shown with plain-text elements only.
"""
from __future__ import annotations

import streamlit as st

from page import context, state
from page import lang as plang
from page.headlines import show_headlines
from page.sources import sources_panel
from page.study import study_panel
from page.trends import trends_panel

plang.seed()  # the link's language (lang=es) and number separators (sep=.), read once per session
st.set_page_config(page_title=plang.t("page.title"), layout="wide")
page = context.load()
st.title(plang.t("page.title"))
if not page.ids:
    st.error(plang.t("page.empty_snapshot"))
    st.stop()

events = context.session_events(page)
state.seed(page, events)
state.keep_widgets()
plang.switch()  # after keep_widgets: a widget's value cannot be written back once it is drawn
show_headlines(page)

# Lazy tabs: only the open tab is built and sent to the browser; switching tabs reruns the page.
tab_trends, tab_study, tab_places, tab_sources, tab_releases = st.tabs(
    state.tab_labels(plang.lang()), key="tab", on_change="rerun", default=state.tab_default(plang.lang()))

with tab_trends:
    if tab_trends.open is not False:
        trends_panel(page)
with tab_study:
    if tab_study.open:
        study_panel(page, events)
with tab_places:
    if tab_places.open:
        from charts.places_page import places_panel
        places_panel(page.snap)
with tab_sources:
    if tab_sources.open:
        sources_panel(page)
with tab_releases:
    if tab_releases.open:
        from releases_view import releases_panel
        releases_panel(page.snap, lang=plang.lang())
state.sync_tab(st.session_state.get("tab"))
context.settle_heap()  # once per server: see there (a full collection after every run cost 60-90 ms)
