"""The Sources and methods tab: files read, publication status, series definitions, words, comparisons,
known data problems and the snapshot's integrity flags."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from analysis import sources as csources
from page.releases_view import status_dataframe
from wording import flag_messages, i18n, methods

from . import lang as plang
from .cache import kept
from .context import Page
from .lang import t


# Built once from the snapshot (read-only), not on every rerun.
@kept(4)
def sources_tables(snap):
    return csources.sources_tables(snap)


def _catalogue_in(table, lang: str):
    """The series definitions with each title and definition in ``lang`` (ids, codes and units' keys kept)."""
    if lang == "en":
        return table
    out = table.copy()
    for col in ("title", "definition", "unit"):
        if col in out:
            out[col] = [i18n.series_text(sid, col, lang, str(v)) for sid, v in zip(out["id"], out[col])]
    return out


def sources_panel(page: Page) -> None:
    snap = page.snap
    lang = plang.lang()
    files_table, catalogue_table, notes_table = sources_tables(snap)
    st.subheader(t("page.sources.files"))
    st.dataframe(files_table, hide_index=True, column_config={"url": st.column_config.LinkColumn("official url"),
                                                             "read from": st.column_config.LinkColumn("read from"),
                                                             "archive copy": st.column_config.LinkColumn("archive copy")})
    st.subheader(t("page.sources.status"))  # built in page/releases_view.py; the Releases tab has the evidence in full
    st.dataframe(status_dataframe(snap, lang=lang), hide_index=True)
    st.subheader(t("page.sources.definitions"))
    st.dataframe(_catalogue_in(catalogue_table, lang), hide_index=True)
    st.subheader(t("page.sources.words"))
    for head, body in methods.texts("DEFINITIONS", lang):
        st.markdown(f"**{head}.** {body}")
    # The glossary: one rendering per term, shown in both languages whichever the page is in.
    st.subheader(t("page.sources.glossary"))
    st.dataframe(i18n.glossary_rows(lang), hide_index=True)
    st.subheader(t("page.sources.comparisons"))
    st.dataframe(csources.comparisons_table() if lang == "en" else
                 pd.DataFrame(methods.texts("COMPARISONS", lang), columns=[t("page.sources.col_measure"),
                                                                           t("page.sources.col_differ")]),
                 hide_index=True)
    st.subheader(t("page.sources.problems"))
    st.dataframe(notes_table if lang == "en" else
                 pd.DataFrame(methods.texts("QUALITY_NOTES", lang), columns=[t("page.sources.col_problem"),
                                                                             t("page.sources.col_does")]),
                 hide_index=True)
    if len(snap.flags):
        st.text(plang.plural("page.sources.flags", len(snap.flags)))
        # quality_flags.csv stays English (data); the reader's language gets each finding explained beside it.
        st.dataframe(snap.flags if lang == "en" else snap.flags.assign(**{t("page.sources.col_explained"): [
            flag_messages.explain(f, m, lang, plang.sep()) for f, m in zip(snap.flags["flag"], snap.flags["message"])]}),
                     hide_index=True)
