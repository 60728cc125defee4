"""The Sources and methods tab: files read, publication status, series definitions, words, comparisons,
known data problems and the snapshot's integrity flags."""
from __future__ import annotations

import streamlit as st

from page.releases_view import status_dataframe
from views import sources as vs
from wording import i18n, methods

from . import lang as plang
from .cache import kept
from .context import Page
from .lang import t


# Built once from the snapshot (read-only), not on every rerun.
@kept(4)
def sources_tables(snap):
    return vs.sources_tables(snap)


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
    st.dataframe(vs.catalogue_in(catalogue_table, lang), hide_index=True)
    st.subheader(t("page.sources.words"))
    for head, body in methods.texts("DEFINITIONS", lang):
        st.markdown(f"**{head}.** {body}")
    # The glossary: one rendering per term, shown in both languages whichever the page is in.
    st.subheader(t("page.sources.glossary"))
    st.dataframe(i18n.glossary_rows(lang), hide_index=True)
    st.subheader(t("page.sources.comparisons"))
    st.dataframe(vs.comparisons(lang), hide_index=True)
    st.subheader(t("page.sources.problems"))
    st.dataframe(vs.problems(notes_table, lang), hide_index=True)
    if len(snap.flags):
        st.text(plang.plural("page.sources.flags", len(snap.flags)))
        st.dataframe(vs.flags_explained(snap.flags, lang, plang.sep()), hide_index=True)
