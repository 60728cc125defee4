"""The headline cards above the rooms: each one sentence a reader can quote (figure, period, scope, source) in
plain type; the comparison, publication, staleness and method are one click away, in the card's popover."""
from __future__ import annotations

import datetime as dt

import streamlit as st

from page.releases_view import card_status
from views import data as vdata
from views.headlines import Card, age_caption, card_sentence, cards
from wording.plain import markdown_literal

from . import lang as plang
from .cache import kept
from .context import Page


@kept(8)
def headline_figures(snap, today: dt.date, lang: str = "en", sep: str = ",") -> list:
    # Depends only on the snapshot, the day (overdue badges) and the reader's language and separators: 30-40 ms
    # saved on every rerun.
    return cards(snap, today, lang, sep)


def card_details(page: Page, h: Card) -> None:
    """What the sentence leaves out: the comparison, the statement as the series gives it (a partial month left
    out), the full scope, dates and publication, the source's publication status, staleness and the method."""
    t, num = plang.t, plang.number
    # The comparison is like for like (previous snapshot, previous full month, same point of the previous fiscal
    # year, same month a year earlier), never a mix of windows.
    if h.change is not None:
        change = ("-" if h.change < 0 else "+") + num(abs(h.change))  # as "{:+,.0f}"
        st.text(t("page.card.change", change=change, comparison=h.comparison))
    else:
        st.text(h.comparison[:1].upper() + h.comparison[1:] + ".")
    st.text(t("page.card.caption", statement=h.statement, scope=h.scope)
            + t("page.card.dates", date=h.data_date, release=h.release_note, publisher=h.publisher, title=h.title))
    st.text(card_status(page.snap, h.source, vdata.today(), lang=plang.lang()))  # the Releases tab's words
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
    st.caption(t("page.card.method", definition=h.definition))


def show_age(h: Card) -> None:
    if h.age:
        st.caption(age_caption(h))


def show_headlines(page: Page) -> list:
    """Draw the cards; return the headline figures drawn."""
    t = plang.t
    hs = headline_figures(page.snap, vdata.today(), plang.lang(), plang.sep())
    # Three to a row on a desktop, one swiped row on a phone (page.browser.CSS).
    with st.container(key="headline_cards", horizontal=True, gap="small"):
        for i, h in enumerate(hs):
            with st.container(border=True, key=f"card_{i}"):
                st.markdown(f"**{markdown_literal(h.label)}**")
                st.markdown(card_sentence(h) if h.quote else markdown_literal(t("common.not_available")))
                show_age(h)
                with st.popover(t("page.card.more"), key=f"card_more_{i}"):
                    card_details(page, h)
    return hs
