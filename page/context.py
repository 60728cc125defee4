"""What every piece of the page reads: the snapshot and the lookups built from it (cached once per server,
read-only, shared by sessions), the events in force for this session, and the reported figures."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from charts import data as cdata
from charts.view import data_bounds
from loaders import events as lev

DATA = cdata.DATA


@dataclass(frozen=True)
class Page:
    snap: cdata.Snapshot
    ids: list[str]
    titles: dict[str, str]  # series id -> title
    options: list[str]  # the series picker's choices: "id" or "id|key" for small breakdowns
    big_breakdowns: list[str]  # series with more than 15 members: picked in their own expander
    reported: pd.DataFrame | None
    # Where this deployment keeps readers' saved events and whether it saves at all (DASHBOARD_EVENTS_FILE,
    # DASHBOARD_EVENTS_SAVE, DASHBOARD_PUBLIC: see loaders.events.user_events_setting).
    events_setting: lev.UserEventsSetting

    def ref_label(self, ref: str) -> str:
        sid, _, key = ref.partition("|")
        title = self.titles[sid] if sid in self.titles else self.snap.info(sid)["title"]
        return title + (f": {key}" if key else "")

    def range_bounds(self, today: dt.date) -> tuple[dt.date, dt.date]:
        return range_bounds(self.snap, today)


@st.cache_resource(show_spinner=False)
def snapshot() -> cdata.Snapshot:
    # cache_resource hands every session the same object; cache_data would copy the frames on every rerun.
    return cdata.load_snapshot(DATA)


def series_options(snap: cdata.Snapshot) -> list[str]:
    opts = []
    for sid in snap.series_ids():
        if sid.startswith("reported_figures."):
            continue  # claims, not series: drawn as period markers beside the series they speak to
        info = snap.info(sid)
        keys = snap.keys(sid)
        if not info["breakdown"] or keys == [""]:
            opts.append(sid)
        elif len(keys) <= 15:
            opts += [f"{sid}|{k}" for k in keys]
    return opts


@st.cache_resource(show_spinner=False)
def series_index(_snap: cdata.Snapshot) -> tuple[dict[str, str], list[str], list[str]]:
    # Pure functions of the snapshot, computed once rather than on every rerun (read-only, like the snapshot):
    # formatting several hundred picker labels through the catalogue cost 30-50 ms a rerun.
    ids = _snap.series_ids()
    titles = {sid: _snap.info(sid)["title"] for sid in ids}
    big = [sid for sid in ids if _snap.info(sid)["breakdown"] and len(_snap.keys(sid)) > 15]
    return titles, series_options(_snap), big


@st.cache_resource(show_spinner=False, max_entries=2)
def range_bounds(_snap: cdata.Snapshot, today: dt.date) -> tuple[dt.date, dt.date]:
    return data_bounds(_snap, today)


@st.cache_resource(show_spinner=False)
def checked_events(user_path: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    # (bundled + local events, rows of the local file that were not loaded); cleared after a save. The bundled
    # events come from the snapshot, checked by the rebuild that wrote it; only the reader's own file is read here.
    return lev.load_events_checked(user_path=user_path, bundled=bundled_from_snapshot(snapshot()))


def bundled_from_snapshot(snap: cdata.Snapshot) -> pd.DataFrame:
    if snap.events is None:
        raise cdata.SnapshotError("this snapshot holds no events (built before they travelled inside it): run "
                                  "`python -m loaders rebuild`")
    return snap.events


def load() -> Page:
    snap = snapshot()
    titles, options, big = series_index(snap)
    # The events setting is read on every run (cheap): a deployment's environment decides it.
    return Page(snap=snap, ids=snap.series_ids(), titles=titles, options=options, big_breakdowns=big,
                reported=snap.reported, events_setting=lev.user_events_setting())


def bundled_events(page: Page) -> pd.DataFrame:
    """The bundled events and the reader's local file (its refused rows: ``local_refused``)."""
    return checked_events(str(page.events_setting.path))[0]


def local_refused(page: Page) -> pd.DataFrame:
    return checked_events(str(page.events_setting.path))[1]


def session_events(page: Page) -> pd.DataFrame:
    """The events in force for this session: bundled and local, plus the rows of a file uploaded this visit."""
    base = bundled_events(page)
    uploaded = st.session_state.get("uploaded_events")
    if uploaded is None or uploaded.empty:
        return base
    return lev.merge_events(base, uploaded)[0]
