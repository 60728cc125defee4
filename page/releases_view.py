"""The page's Releases tab: publication status per source, what's new in each latest release (copyable,
with its citation), the ledger of every release, and the continuity charts.

Streamlit lives in the page only (``dashboard.py`` and ``page/``); everything shown is built by ``views.releases``
from the snapshot. Data-derived text goes through plain-text elements (``st.text``, ``st.code``, dataframes),
never Markdown or HTML.
"""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from views import data as vdata
from views import releases as vr
from views.data import Snapshot
from wording import i18n

from .cache import kept


@kept(4)
def _ledger(snap: Snapshot, lang: str = "en", separators: str = ",") -> pd.DataFrame:
    return vr.release_ledger(snap, lang, separators)


@kept(8)
def _revisions_by_release(snap: Snapshot, source: str) -> pd.DataFrame:
    return vr.revisions_by_release(snap, source)


@kept(8)
def _revisions_by_month(snap: Snapshot, source: str) -> pd.DataFrame:
    return vr.revisions_by_month(snap, source)


@kept(4)
def _status(snap: Snapshot, today: dt.date) -> list:
    return vr.statuses(snap, today)


@kept(4)
def _continuity(snap: Snapshot, measure: str, today: dt.date, lang: str = "en"):
    return vr.continuity_figure(snap, measure, today, lang)


def citation_block(snap: Snapshot, today: dt.date, lang: str = "en") -> str:
    """What's new, with the sources and the retrieval line, ready to paste."""
    return vr.citation_block(snap, today, lang)


def releases_panel(snap: Snapshot, today: dt.date | None = None, lang: str = "en") -> None:
    def t(key: str, **fields) -> str:
        return i18n.t("releases." + key, lang, **fields)

    today = today or vdata.today()
    st.subheader(t("status"))
    st.caption(t("status_help"))
    statuses = _status(snap, today)
    st.dataframe(vr.status_table(statuses, lang), hide_index=True)
    for heading, lines in vr.stopped_notes(statuses, lang):
        with st.expander(heading):
            for line in lines:
                st.text(line)

    st.subheader(t("whats_new"))
    st.caption(t("whats_new_help"))
    st.code(citation_block(snap, today, lang), language=None, wrap_lines=True)

    st.subheader(t("every_release"))
    # The cells in the page's language, numbers with its separators (page/lang.py keeps them as w_sep).
    table = _ledger(snap, lang, st.session_state.get("w_sep", ","))
    sources, first = vr.ledger_sources(table)
    pick = st.selectbox(t("source"), sources, index=first, key="releases_source")
    st.dataframe(table[table["source"] == pick].iloc[::-1], hide_index=True)
    st.subheader(t("revisions_by_release"))
    st.caption(t("revisions_by_release_help"))
    st.dataframe(_revisions_by_release(snap, pick), hide_index=True)
    st.subheader(t("revisions_by_month"))
    st.caption(t("revisions_by_month_help"))
    st.dataframe(_revisions_by_month(snap, pick), hide_index=True)

    st.subheader(t("continuity"))
    for measure in ("detained", "arrests"):
        st.plotly_chart(_continuity(snap, measure, today, lang), key=f"continuity_{measure}")

    st.subheader(t("missing"))
    missing = vr.missing_sources(snap)
    if missing.empty:
        st.text(t("none_missing"))
    else:
        st.dataframe(missing, hide_index=True)


def card_status(snap: Snapshot, source: str, today: dt.date | None = None, lang: str = "en") -> str:
    """One line for a headline card: the source's publication status in words, with its last release."""
    return vr.card_status(_status(snap, today or vdata.today()), source, lang)


@kept(16)
def _whats_new_text(snap: Snapshot, sources: tuple[str, ...], lang: str = "en") -> str:
    return vr.whats_new_text(snap, sources, lang)


def citation_with_whats_new(snap: Snapshot, citation: str, sources, lang: str = "en") -> str:
    """A view's citation followed by what's new in the latest release of each of its sources."""
    return vr.with_whats_new(citation, _whats_new_text(snap, tuple(dict.fromkeys(sources)), lang), lang)


def status_dataframe(snap: Snapshot, today: dt.date | None = None, lang: str = "en") -> pd.DataFrame:
    """The publication-status table, for the Sources view."""
    return vr.status_table(_status(snap, today or vdata.today()), lang)
