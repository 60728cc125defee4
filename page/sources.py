"""The Sources and methods tab: files read, publication status, series definitions, words, comparisons,
known data problems and the snapshot's integrity flags."""
from __future__ import annotations

import streamlit as st

from charts import methods
from charts import sources as csources
from releases_view import status_dataframe

from .context import Page

# Built once from the snapshot (read-only), not on every rerun.
@st.cache_resource(show_spinner=False)
def sources_tables(_snap):
    return csources.sources_tables(_snap)


def sources_panel(page: Page) -> None:
    snap = page.snap
    files_table, catalogue_table, notes_table = sources_tables(snap)
    st.subheader("Sources and files")
    st.dataframe(files_table, hide_index=True, column_config={"url": st.column_config.LinkColumn("official url"),
                                                             "read from": st.column_config.LinkColumn("read from"),
                                                             "archive copy": st.column_config.LinkColumn("archive copy")})
    st.subheader("Publication status")  # built in releases_view; the Releases tab has the evidence in full
    st.dataframe(status_dataframe(snap), hide_index=True)
    st.subheader("Series definitions")
    st.dataframe(catalogue_table, hide_index=True)
    st.subheader("What the words mean")
    for head, body in methods.DEFINITIONS:
        st.markdown(f"**{head}.** {body}")
    st.subheader("Where sources measure the same thing")
    st.dataframe(csources.comparisons_table(), hide_index=True)
    st.subheader("Known data-quality problems and what the dashboard does")
    st.dataframe(notes_table, hide_index=True)
    if len(snap.flags):
        st.text(f"Integrity checks flagged {len(snap.flags)} item(s) in the current snapshot:")
        st.dataframe(snap.flags, hide_index=True)
