"""The page's Releases tab: publication status per source, what's new in each latest release (copyable,
with its citation), the ledger of every release, and the continuity charts.

Streamlit lives in the page only (``dashboard.py`` and ``page/``); everything shown is built by ``analysis.ledger``,
``analysis.status`` and ``figures.continuity`` from the snapshot. Data-derived text goes through plain-text
elements (``st.text``, ``st.code``, dataframes), never Markdown or HTML.
"""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from analysis import ledger, status
from analysis.status import status_text
from figures import continuity
from loaders import data as cdata
from wording import i18n

from . import clock
from .cache import kept


@kept(4)
def _ledger(snap: cdata.Snapshot, lang: str = "en", separators: str = ",") -> pd.DataFrame:
    return ledger.ledger(snap, lang=lang, separators=separators)


@kept(8)
def _revisions_by_release(snap: cdata.Snapshot, source: str) -> pd.DataFrame:
    return ledger.revisions_by_release(snap, source)


@kept(8)
def _revisions_by_month(snap: cdata.Snapshot, source: str) -> pd.DataFrame:
    return ledger.revisions_by_month(snap, source)


@kept(4)
def _status(snap: cdata.Snapshot, today: dt.date) -> list[status.Status]:
    return status.publication_status(snap, today)


@kept(4)
def _continuity(snap: cdata.Snapshot, measure: str, today: dt.date, lang: str = "en"):
    return continuity.continuity_figure(snap, measure, generated_on=today, lang=lang)


def citation_block(snap: cdata.Snapshot, today: dt.date, lang: str = "en") -> str:
    """What's new, with the sources and the retrieval line, ready to paste."""
    return ledger.citation_text(snap, lang=lang) + "\n" + i18n.t("releases.read_on", lang, date=today.isoformat())


def releases_panel(snap: cdata.Snapshot, today: dt.date | None = None, lang: str = "en") -> None:
    def t(key: str, **fields) -> str:
        return i18n.t("releases." + key, lang, **fields)

    today = today or clock.today()
    st.subheader(t("status"))
    st.caption(t("status_help"))
    statuses = _status(snap, today)
    st.dataframe(status.status_table(statuses, lang), hide_index=True)
    for s in statuses:
        if s.status.startswith(("publication stopped", "no release")) and (s.evidence or s.continues):
            with st.expander(f"{s.title}: {status.status_text(s.status, lang)}"):
                for e in s.evidence:
                    st.text(i18n.t("status.evidence_line", lang, statement=i18n.declared_text(e["key"], lang, e["statement"]),
                                   source=e["source"],
                                   unverified="" if e["verified"] else i18n.t("status.evidence_unverified", lang)))
                if s.continues:
                    st.text(t("continue"))
                    for c in s.continues:
                        when = (i18n.t("status.cell_data_to", lang, date=c["data_through"]) if c["data_through"]
                                else i18n.t("status.cell_no_data", lang))
                        st.text(f"- {i18n.series_text(c['series'], 'title', lang, c['title'])} ({when}): "
                                f"{i18n.declared_text(c['key'], lang, c['note'])}")

    st.subheader(t("whats_new"))
    st.caption(t("whats_new_help"))
    st.code(citation_block(snap, today, lang), language=None, wrap_lines=True)

    st.subheader(t("every_release"))
    # The cells in the page's language, numbers with its separators (page/lang.py keeps them as w_sep).
    table = _ledger(snap, lang, st.session_state.get("w_sep", ","))
    sources = list(dict.fromkeys(table["source"]))
    first = sources.index("ice_detention_stats") if "ice_detention_stats" in sources else 0
    pick = st.selectbox(t("source"), sources, index=first, key="releases_source")
    st.dataframe(table[table["source"] == pick].iloc[::-1], hide_index=True)
    st.subheader(t("revisions_by_release"))
    st.caption(t("revisions_by_release_help"))
    st.dataframe(_revisions_by_release(snap, pick).iloc[::-1], hide_index=True)
    st.subheader(t("revisions_by_month"))
    st.caption(t("revisions_by_month_help"))
    st.dataframe(_revisions_by_month(snap, pick), hide_index=True)

    st.subheader(t("continuity"))
    for measure in ("detained", "arrests"):
        st.plotly_chart(_continuity(snap, measure, today, lang), key=f"continuity_{measure}")

    st.subheader(t("missing"))
    pres = ledger.catalogue_presence(snap)
    missing = pres[~pres["in_snapshot"]]
    if missing.empty:
        st.text(t("none_missing"))
    else:
        st.dataframe(missing[["id", "title", "data"]], hide_index=True)


def card_status(snap: cdata.Snapshot, source: str, today: dt.date | None = None, lang: str = "en") -> str:
    """One line for a headline card: the source's publication status in words, with its last release."""
    today = today or clock.today()
    for s in _status(snap, today):
        if s.source == source:
            last = i18n.t("status.card_last", lang, date=s.last_release_known.isoformat()) if s.last_release_known else ""
            held = (i18n.t("status.card_held", lang, date=s.last_release_held.isoformat())
                    if s.last_release_held and s.last_release_held != s.last_release_known else "")
            return i18n.t("status.card", lang, status=status_text(s.status, lang), last=last, held=held)
    return ""


@kept(16)
def _whats_new_text(snap: cdata.Snapshot, sources: tuple[str, ...], lang: str = "en") -> str:
    return ledger.citation_text(snap, list(sources), lang=lang)


def citation_with_whats_new(snap: cdata.Snapshot, citation: str, sources, lang: str = "en") -> str:
    """A view's citation followed by what's new in the latest release of each of its sources."""
    new = _whats_new_text(snap, tuple(dict.fromkeys(sources)), lang)
    return citation + ("\n" + i18n.t("news.whats_new", lang) + new if new else "")


def status_dataframe(snap: cdata.Snapshot, today: dt.date | None = None, lang: str = "en") -> pd.DataFrame:
    """The publication-status table, for the Sources view."""
    return status.status_table(_status(snap, today or clock.today()), lang)
