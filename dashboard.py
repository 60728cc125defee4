"""The page: headline figures, then rooms (tabs) for trends against events, the event study, places, sources and
methods, and releases.

It only lays out: each piece is in ``page/``, and what a room shows is assembled by the view layer (``views``)
and written out by the outputs (``charts``); the page imports nothing below them. It reads the
processed snapshot through a cache, keeps the view in the URL, never downloads and never parses a spreadsheet
(refresh with ``python -m loaders update``). Data-derived text is shown with plain-text elements only.
"""
from __future__ import annotations

import streamlit as st

from page import browser, context, state
from page import lang as plang
from page.headlines import show_headlines
from page.releases_view import releases_panel
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
# The reader's screen, when narrow: the chart is laid out for it; Enter commits a date (page/browser.py). Asked
# first: on a phone the page is ordered for the chart to start within the first screen (page.browser.phone_layout).
browser.width()
phone = browser.phone_layout()
plang.switch(folded=phone)  # after keep_widgets: a widget's value cannot be written back once it is drawn
if not phone:
    show_headlines(page)

# The rooms: only the open one is built and sent to the browser; choosing another reruns the page. A
# segmented control rather than st.tabs: a tab panel watches every change inside it for a focusable element
# (forcing the browser to recompute styles each time), which made every chart update in the trends room about
# a quarter slower in the browser (BENCHMARKS.md, page speed).
room = st.segmented_control(plang.t("page.rooms"), state.ROOMS, key="tab", required=True,
                            format_func=lambda name: state.tab_label(name, plang.lang()),
                            label_visibility="collapsed")
with st.container(key=f"room_{room}"):
    if room == "trends":
        trends_panel(page)
    elif room == "study":
        study_panel(page, events)
    elif room == "places":
        # Imported when the room opens: the maps and the places join cost 80-280 ms (median 150 ms, five runs on
        # this 2-core machine) on top of the other rooms at the first page load, for a room most readers never open.
        from page.places_page import places_panel
        places_panel(page.snap)
    elif room == "sources":
        sources_panel(page)
    elif room == "releases":
        releases_panel(page.snap, lang=plang.lang())
if phone:  # under the room's own contents: five cards pushed a phone's chart a screen down
    show_headlines(page)
state.sync_tab(room)
plang.sync_link()  # last, like the room: every room's link keeps the reader's language (lang=es, sep=.)
