"""What every piece of the page reads: the snapshot and the lookups built from it (cached once per server,
read-only, shared by sessions), the events in force for this session, and the reported figures."""
from __future__ import annotations

import datetime as dt
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from views import data as vdata
from views import events as ve
from views.compose import Rendered, render
from views.data import RangeGap, Snapshot, View

from .cache import kept

DATA = vdata.DATA


@dataclass(frozen=True)
class Page:
    snap: Snapshot
    ids: list[str]
    titles: dict[str, str]  # series id -> title
    options: list[str]  # the series picker's choices: "id" or "id|key" for small breakdowns
    big_breakdowns: list[str]  # series with more than 15 members: picked in their own expander
    reported: pd.DataFrame | None
    # Where this deployment keeps readers' saved events and whether it saves at all (DASHBOARD_EVENTS_FILE,
    # DASHBOARD_EVENTS_SAVE, DASHBOARD_PUBLIC: see loaders.events.user_events_setting).
    events_setting: ve.EventsSetting

    def ref_label(self, ref: str) -> str:
        sid, _, key = ref.partition("|")
        title = self.titles[sid] if sid in self.titles else self.snap.info(sid)["title"]
        return title + (f": {key}" if key else "")

    def range_bounds(self, today: dt.date) -> tuple[dt.date, dt.date]:
        return range_bounds(self.snap, today)

    def cache_key(self) -> tuple:
        """What a page is made from, for the page's cache (page.cache): the rest follows from the snapshot."""
        return (self.snap, self.reported, repr(self.events_setting))


@kept(1)
def snapshot() -> Snapshot:
    # Every session gets the same object, read once per server.
    return vdata.open_snapshot(DATA)


@kept(4)
def series_index(snap: Snapshot) -> tuple[dict[str, str], list[str], list[str]]:
    # Pure functions of the snapshot, computed once rather than on every rerun (read-only, like the snapshot):
    # formatting several hundred picker labels through the catalogue cost 30-50 ms a rerun.
    return vdata.series_index(snap)


@kept(4)
def range_bounds(snap: Snapshot, today: dt.date) -> tuple[dt.date, dt.date]:
    return vdata.range_bounds(snap, today)


@kept(4)
def checked_events(user_path: str, signature: tuple | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    # (bundled + local events, rows of the local file that were not loaded), kept per state of the file
    # (``file_signature``): a file changed by hand, by another server or by a repair is read again on the next
    # run of any session. Kept by path alone, fresh sessions drew a stale copy until a restart (issue 32). The
    # bundled events come from the snapshot, checked by the rebuild that wrote it.
    return ve.checked_events(snapshot(), user_path)


def file_signature(path) -> tuple | None:
    """What changes whenever the file's bytes do: modification time (ns), size, inode (an atomic replace makes a
    new one) and status-change time; None when there is no file. One ``stat`` a run, no read."""
    try:
        s = os.stat(path)
    except OSError:
        return None
    return (s.st_mtime_ns, s.st_size, s.st_ino, s.st_ctime_ns)


def local_events(page: Page) -> tuple[pd.DataFrame, pd.DataFrame]:
    path = str(page.events_setting.path)
    return checked_events(path, file_signature(path))


# Rendered views, shared by sessions (page.cache): a reader who changes the date range back, or opens the page on
# the default view, gets the chart already built (render() is 30-70 ms; a hit costs well under 1 ms). The key is
# everything render() reads: the snapshot, the view, the events in force, the reported figures, the size, and
# the day (the chart's "Generated on" line and the presets' "today" fallback).
@kept(64)
def _render(snap: Snapshot, view: View, events: pd.DataFrame | None, reported: pd.DataFrame | None,
            size, day: dt.date) -> Rendered:
    # The day is the chart's: its "generated on" line and its sources' ages (analysis.status.chart_age_notes).
    return render(snap, view, events=events, reported=reported, size=size, generated_on=day)


def rendered(page: Page, view: View, events: pd.DataFrame | None, size="page") -> Rendered:
    """``views.compose.render`` of the view, built once per view, day and inputs. The result is shared by
    every session: read it, never change it."""
    return _render(page.snap, view, events, page.reported, size, vdata.today())


def is_rendered(page: Page, view: View, events: pd.DataFrame | None, size="page") -> bool:
    return _render.holds(page.snap, view, events, page.reported, size, vdata.today())


@kept(64)
def _view_facts(snap: Snapshot, view: View) -> tuple[tuple | None, RangeGap | None]:
    return vdata.view_facts(snap, view)


def view_facts(page: Page, view: View) -> tuple[tuple | None, RangeGap | None]:
    """(``analysis.view.view_range``, ``analysis.coverage.empty_in_range``) of the view: pure functions of the
    read-only snapshot and the view (neither reads the day), kept per view like ``rendered``."""
    return _view_facts(page.snap, view)


# The other date-range presets of the view drawn, built in the background once it is drawn: the range is what
# readers change most, and a preset drawn for the first time made the reader wait for its render (about 40-60 ms
# of server time, and the browser after it); kept in the stores above, so the next session finds them too. One
# worker: it never takes more than one core from the sessions' own runs, and a view already kept is skipped.
_PREFETCH = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prefetch-presets")
_QUEUED: set = set()


def prefetch(page: Page, view: View, events: pd.DataFrame | None, size="page") -> list[str]:
    """Queue the view's other presets (those not kept yet) for building in the background; return them."""
    queued = []
    for preset, other in vdata.other_presets(view):
        name = (repr(other), size)
        if is_rendered(page, other, events, size) or name in _QUEUED:
            continue
        _QUEUED.add(name)
        _PREFETCH.submit(_build, page, other, events, size, name)
        queued.append(preset)
    return queued


def _build(page: Page, view: View, events, size, name: tuple) -> None:
    try:
        rendered(page, view, events, size)
        view_facts(page, view)
    except Exception:  # noqa: BLE001 (a view that cannot be drawn is drawn, with its message, when chosen)
        pass
    finally:
        _QUEUED.discard(name)


def load() -> Page:
    snap = snapshot()
    titles, options, big = series_index(snap)
    # The events setting is read on every run (cheap): a deployment's environment decides it.
    return Page(snap=snap, ids=snap.series_ids(), titles=titles, options=options, big_breakdowns=big,
                reported=snap.reported,
                events_setting=ve.events_setting(st.get_option("server.address")))


def bundled_events(page: Page) -> pd.DataFrame:
    """The bundled events and the reader's local file (its refused rows: ``local_refused``)."""
    return local_events(page)[0]


def local_refused(page: Page) -> pd.DataFrame:
    return local_events(page)[1]


def session_events(page: Page) -> pd.DataFrame:
    """The events in force for this session: bundled and local, plus the rows of a file uploaded this visit."""
    base = bundled_events(page)
    uploaded = st.session_state.get("uploaded_events")
    if uploaded is None or uploaded.empty:
        return base
    return ve.with_uploaded(base, uploaded)


