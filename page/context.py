"""What every piece of the page reads: the snapshot and the lookups built from it (cached once per server,
read-only, shared by sessions), the events in force for this session, and the reported figures."""
from __future__ import annotations

import datetime as dt
import gc
import os
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace

import pandas as pd
import streamlit as st

from analysis import data as cdata
from charts.compose import Rendered, render
from analysis.coverage import EmptyRange, empty_in_range
from analysis.view import View, data_bounds, view_range
from loaders import events as lev
from analysis.view import PRESETS

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


@st.cache_resource(show_spinner=False, max_entries=4)
def checked_events(user_path: str, signature: tuple | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    # (bundled + local events, rows of the local file that were not loaded), kept per state of the file
    # (``file_signature``): a file changed by hand, by another server or by a repair is read again on the next
    # run of any session. Kept by path alone, fresh sessions drew a stale copy until a restart (issue 32). The
    # bundled events come from the snapshot, checked by the rebuild that wrote it.
    return lev.load_events_checked(user_path=user_path, bundled=bundled_from_snapshot(snapshot()))


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


def bundled_from_snapshot(snap: cdata.Snapshot) -> pd.DataFrame:
    if snap.events is None:
        raise cdata.SnapshotError("this snapshot holds no events (built before they travelled inside it): run "
                                  "`python -m loaders rebuild`")
    return snap.events


class Kept:
    """A bounded, thread-safe store of values built from the page's read-only objects, shared by sessions.
    Each entry keeps the objects it was built from, so an id is never matched to another object. Not
    ``st.cache_resource``: the presets of a view are also built here by a background thread (``prefetch``),
    which has no script run of its own."""

    def __init__(self, size: int):
        self._size, self._lock, self._entries = size, threading.Lock(), OrderedDict()

    def get(self, key: tuple, sources: tuple):
        with self._lock:
            hit = self._entries.get(key)
            if hit is None or any(a is not b for a, b in zip(hit[0], sources)):
                return None
            self._entries.move_to_end(key)
            return hit[1]

    def put(self, key: tuple, sources: tuple, value) -> None:
        with self._lock:
            self._entries[key] = (sources, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def get_or_build(self, key: tuple, sources: tuple, build):
        """The kept value, or ``build()`` kept and returned (built outside the lock: two sessions asking at once
        may both build it; either result is the same)."""
        value = self.get(key, sources)
        if value is None:
            value = build()
            self.put(key, sources, value)
        return value

    def __contains__(self, key: tuple) -> bool:
        with self._lock:
            return key in self._entries


# Rendered views, shared by sessions: a reader who changes the date range back, or opens the page on the default
# view, gets the chart already built (render() is 30-70 ms; a hit costs well under 1 ms). The key is everything
# render() reads: the view (its repr holds every field), the day (the chart's "Generated on" line and the
# presets' "today" fallback), the size, and which snapshot, events and reported figures. Those three are the
# page's own read-only objects (cached above; a reader's upload makes a new events frame), named by identity:
# hashing their contents would cost 3-7 ms a run.
_RENDERED = Kept(64)


def _render_key(page: Page, view: View, events, size) -> tuple[tuple, tuple]:
    sources = (page.snap, events, page.reported)
    return (repr(view), dt.date.today(), size, *map(id, sources)), sources


def rendered(page: Page, view: View, events: pd.DataFrame | None, size="page") -> Rendered:
    """``charts.compose.render`` of the view, built once per view, day and inputs. The result is shared by
    every session: read it, never change it."""
    key, sources = _render_key(page, view, events, size)
    return _RENDERED.get_or_build(key, sources, lambda: render(page.snap, view, events=events,
                                                               reported=page.reported, size=size))


_VIEW_FACTS = Kept(64)


def view_facts(page: Page, view: View) -> tuple[tuple | None, EmptyRange | None]:
    """(``analysis.view.view_range``, ``analysis.coverage.empty_in_range``) of the view: pure functions of the
    read-only snapshot and the view (neither reads the day), kept per view like ``rendered``."""
    return _VIEW_FACTS.get_or_build((repr(view), id(page.snap)), (page.snap,),
                                    lambda: (view_range(page.snap, view), empty_in_range(page.snap, view)))


# The other date-range presets of the view drawn, built in the background once it is drawn: the range is what
# readers change most, and a preset drawn for the first time made the reader wait for its render (about 40-60 ms
# of server time, and the browser after it); kept in the stores above, so the next session finds them too. One
# worker: it never takes more than one core from the sessions' own runs, and a view already kept is skipped.
_PREFETCH = ThreadPoolExecutor(max_workers=1, thread_name_prefix="prefetch-presets")
_QUEUED: set = set()


def prefetch(page: Page, view: View, events: pd.DataFrame | None, size="page") -> list[str]:
    """Queue the view's other presets (those not kept yet) for building in the background; return them."""
    queued = []
    for preset in PRESETS:
        if preset in ("custom", view.preset):
            continue
        other = replace(view, preset=preset, start=None, end=None)
        key = _render_key(page, other, events, size)[0]
        if key in _RENDERED or key in _QUEUED:
            continue
        _QUEUED.add(key)
        _PREFETCH.submit(_build, page, other, events, size, key)
        queued.append(preset)
    return queued


def _build(page: Page, view: View, events, size: str, key: tuple) -> None:
    try:
        rendered(page, view, events, size)
        view_facts(page, view)
    except Exception:  # noqa: BLE001 (a view that cannot be drawn is drawn, with its message, when chosen)
        pass
    finally:
        _QUEUED.discard(key)


def load() -> Page:
    snap = snapshot()
    titles, options, big = series_index(snap)
    # The events setting is read on every run (cheap): a deployment's environment decides it.
    return Page(snap=snap, ids=snap.series_ids(), titles=titles, options=options, big_breakdowns=big,
                reported=snap.reported,
                events_setting=lev.user_events_setting(server_address=st.get_option("server.address")))


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
    return lev.merge_events(base, uploaded)[0]


_SETTLED = threading.Lock()
_settled = False


def settle_heap() -> bool:
    """Once per server process, after the first complete run: move every object alive then (the imported
    libraries, the snapshot, the lookups above) out of the garbage collector's sight (``gc.freeze``); return
    whether this call did it.

    Why: Streamlit runs a full collection after every script run (``runner.postScriptGC``), holding the
    interpreter lock, so the run's last messages wait for it. Over this page's 140,000 long-lived objects that
    took 60-90 ms of every rerun, most of the server's time for a change of the date range. Objects made later
    are collected as before; only cyclic garbage among the frozen ones (built once and kept) is never freed."""
    global _settled
    with _SETTLED:
        if _settled:
            return False
        gc.collect()
        gc.freeze()
        _settled = True
        return True
