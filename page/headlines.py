"""The headline cards above the tabs."""
from __future__ import annotations

import datetime as dt

import streamlit as st

from analysis.overview import headlines
from page.releases_view import card_status

from . import lang as plang
from .cache import kept
from .context import Page

PER_ROW = 3


@kept(8)
def headline_figures(snap, today: dt.date, lang: str = "en", sep: str = ",") -> list:
    # Depends only on the snapshot, the day (overdue badges) and the reader's language and separators: 30-40 ms
    # saved on every rerun.
    return headlines(snap, today, lang, sep)


def show_headlines(page: Page) -> list:
    """Draw the cards; return the headline figures drawn."""
    t, num = plang.t, plang.number
    hs = headline_figures(page.snap, dt.date.today(), plang.lang(), plang.sep())
    for i, h in enumerate(hs):
        if i % PER_ROW == 0:
            cols = st.columns(PER_ROW)
        with cols[i % PER_ROW].container(border=True):
            # The delta is the like-for-like comparison the card names (previous snapshot, previous full month,
            # same point of the previous fiscal year, same month a year earlier), never a mix of windows.
            change = None if h.change is None else ("-" if h.change < 0 else "+") + num(abs(h.change))  # as "{:+,.0f}"
            delta = t("page.card.change", change=change, comparison=h.comparison) if h.change is not None else None
            st.metric(h.label, t("common.not_available") if h.value is None else num(h.value), delta=delta,
                      delta_color="off", help=h.definition)
            st.caption(t("page.card.caption", statement=h.statement, scope=h.scope)
                       + ("" if h.change is not None else
                          t("page.card.no_change", comparison=h.comparison[:1].upper() + h.comparison[1:]))
                       + t("page.card.dates", date=h.data_date, release=h.release_note, publisher=h.publisher,
                           title=h.title))
            # The source's publication status (Releases tab).
            st.caption(card_status(page.snap, h.source, lang=plang.lang()))
            if h.fixed_file:
                st.badge(t("page.card.fixed", days=h.age_days), color="gray", help=t("page.card.fixed_help"))
            elif h.newer_release:
                # The source published again after the release these figures come from; the snapshot is behind.
                st.badge(t("page.card.newer", release=h.newer_release.isoformat(), days=h.age_days), color="orange",
                         help=t("page.card.newer_help"))
            elif h.overdue_days:
                st.badge(t("page.card.overdue", overdue=h.overdue_days, days=h.age_days), color="orange",
                         help=t("page.card.overdue_help"))
            elif h.age_days is not None:
                st.badge(t("page.card.age", days=h.age_days), color="gray")
    return hs
