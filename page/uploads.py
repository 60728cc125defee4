"""The "Events on the chart" controls: which events, and a reader's own file (checked row by row, kept for the
visit, saved to the local events file when the deployment allows)."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from views import events as ve
from wording import reason_messages
from wording.plain import markdown_literal

from . import context
from . import lang as plang
from .context import Page
from .lang import plural, t


def events_controls(page: Page, events: pd.DataFrame) -> pd.DataFrame:
    """Draw the events expander; return the events in force after it (an upload adds, a removal takes away)."""
    with st.expander(t("page.events.heading"), expanded=False):
        e1, e2 = st.columns([2, 3])
        with e1:
            st.checkbox(t("page.events.show"), key="w_events")
        cats = sorted(events["category"].unique()) if events is not None and len(events) else []
        with e2:
            # English shows the category codes as before; another language shows their names.
            st.multiselect(t("page.events.categories"), cats, key="w_cats",
                           format_func=ve.category_format(plang.lang()))
        st.text_input(t("page.events.text"), key="w_evtext", max_chars=80)
        st.caption(t("page.events.upload_help", **ve.upload_limits()))
        up = st.file_uploader(t("page.events.upload"), type=["csv"], key="w_upload", on_change=_upload_changed)
        if up is not None:
            return upload_panel(page, up, events)
        kept = st.session_state.get("uploaded_events")
        if kept is not None:
            # Streamlit forgets a file when a run does not draw its uploader (a visit to another room): the
            # uploader comes back empty, but the reader did not remove the file, so its events stay, and say so.
            st.caption(plural("page.events.upload_kept", len(kept),
                         name=markdown_literal(st.session_state.get("uploaded_name", ""))))
            if st.button(t("page.events.upload_forget"), key="w_upload_forget"):
                forget_upload()
                return context.bundled_events(page)  # off the chart on this run, not the next
    return events


def forget_upload() -> None:
    st.session_state.pop("uploaded_events", None)
    st.session_state.pop("uploaded_name", None)


def _upload_changed() -> None:
    """The reader removed the file from the uploader (a new file is checked by the run itself): its events leave
    the chart on the run this starts, since ``session_events`` reads the session before the uploader is drawn.
    Not called when the uploader merely comes back empty after a run that did not draw it."""
    if st.session_state.get("w_upload") is None:
        forget_upload()


def upload_panel(page: Page, up, events: pd.DataFrame) -> pd.DataFrame:
    """Check an uploaded events file, report every row not taken, offer to keep the rest (when allowed);
    return the events in force with the file's rows."""
    try:
        check = ve.check_upload(up.getvalue(), up.name, context.bundled_events(page))
    except Exception:  # noqa: BLE001 (a fault of the page, whose text may name server internals: not shown)
        check = None
    if check is None or check.result is None:  # the validator's own reason for a file it cannot read at all
        why = markdown_literal(check.refused) if check is not None else t("page.events.not_checked")
        st.error(t("page.events.could_not_read", name=markdown_literal(up.name), why=why))
        return events
    res = check.result
    st.session_state["uploaded_events"] = res.accepted
    st.session_state["uploaded_name"] = up.name
    with st.container(key="upload_report"):
        saved = plural("page.events.already_saved", res.already_saved) if res.already_saved else ""
        st.success(plural("page.events.accepted", len(res.accepted), name=markdown_literal(up.name), saved=saved,
                          rejected=plural("page.events.rejected_count", len(res.rejected))))
        if len(res.rejected):
            st.text(t("page.events.rejected_rows"))
            # The reasons are the validator's English (data); the page shows them in the reader's language.
            st.dataframe(reason_messages.rejected_in(res.rejected, plang.lang()), hide_index=True,
                         key="w_upload_rejected")
    if len(res.accepted):
        save_offer(page, res.accepted)
    return res.events


def save_offer(page: Page, accepted: pd.DataFrame) -> bool:
    """The button that keeps uploaded rows in the local events file; return whether they were saved."""
    setting = page.events_setting
    if not setting.save:
        st.caption(markdown_literal(setting.why_not) + t("page.events.this_visit"))
        return False
    if not st.button(t("page.events.keep"), key="w_upload_save"):
        return False
    done = ve.save_events(accepted, setting, context.bundled_events(page))
    if done.outcome == "refused":  # limits, a busy lock, a local file that would lose rows: nothing written
        st.error(t("page.events.not_saved", why=markdown_literal(done.why)))
        return False
    if done.outcome == "failed":
        st.error(t("page.events.not_written", why=markdown_literal(done.why)))
        return False
    context.checked_events.clear()
    st.success(plural("page.events.saved", done.added, added=done.added, total=done.total))
    return True


def local_events_report(page: Page) -> pd.DataFrame:
    """Say which rows of the reader's local events file were not loaded; return them."""
    refused = context.local_refused(page)
    if len(refused):
        # A fresh session must say why some of the reader's own events are missing, not just leave them out.
        with st.container(key="local_events_report"):
            st.warning(plural("page.events.local_refused", refused['row'].nunique(),
                         name=markdown_literal(page.events_setting.path.name)))
            st.dataframe(reason_messages.rejected_in(refused, plang.lang()), hide_index=True, key="w_local_refused")
    return refused
