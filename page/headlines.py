"""The headline cards above the tabs."""
from __future__ import annotations

import datetime as dt

import streamlit as st

from charts.overview import headlines
from releases_view import card_status

from .context import Page

PER_ROW = 3


@st.cache_resource(show_spinner=False, max_entries=2)
def headline_figures(_snap, today: dt.date) -> list:
    # Depends only on the snapshot and the day (overdue badges): 30-40 ms saved on every rerun.
    return headlines(_snap, today)


def show_headlines(page: Page) -> list:
    """Draw the cards; return the headline figures drawn."""
    hs = headline_figures(page.snap, dt.date.today())
    for i, h in enumerate(hs):
        if i % PER_ROW == 0:
            cols = st.columns(PER_ROW)
        with cols[i % PER_ROW].container(border=True):
            # The delta is the like-for-like comparison the card names (previous snapshot, previous full month,
            # same point of the previous fiscal year, same month a year earlier), never a mix of windows.
            delta = f"{h.change:+,.0f} {h.comparison}" if h.change is not None else None
            st.metric(h.label, "n/a" if h.value is None else f"{h.value:,.0f}", delta=delta, delta_color="off",
                      help=h.definition)
            st.caption(f"{h.statement}. Scope: {h.scope}." + ("" if h.change is not None else f" {h.comparison[:1].upper()}{h.comparison[1:]}.")
                       + f" Data date {h.data_date}; {h.release_note}. Source: {h.publisher} ({h.title}).")
            st.caption(card_status(page.snap, h.source))  # the source's publication status (Releases tab)
            if h.fixed_file:
                st.badge(f"Fixed file, not updated; data {h.age_days} days old", color="gray",
                         help="This series comes from a file that is never refreshed; newer figures may exist elsewhere.")
            elif h.overdue_days:
                st.badge(f"Overdue by {h.overdue_days} days; data {h.age_days} days old", color="orange",
                         help="Later than the source's usual release cadence; newer figures may exist.")
            elif h.age_days is not None:
                st.badge(f"Data {h.age_days} days old", color="gray")
    return hs
