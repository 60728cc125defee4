"""What every room reads: the processed snapshot, opened once, and the lookups the page builds from it (the
series picker's choices, the date bounds, a view's range and the gap in it, the other date-range presets).

The page keeps these in its cache (``page.cache``) and passes the snapshot to the rooms' view functions; it never
reads the data side itself."""
from __future__ import annotations

import datetime as dt
from dataclasses import replace

from analysis import view as aview
from analysis.coverage import EmptyRange, empty_in_range
from loaders import clock, memo
from loaders import data as cdata

Snapshot = cdata.Snapshot
"""The processed snapshot (read-only): the page holds one per server and hands it to every view function, so it
names the type in its annotations."""

View = aview.View
"""What a link asks the Trends and Study rooms for (series, range, options): the page's widgets hold one, so the
type is part of the view layer's interface (``views.link`` reads and writes it)."""

DEFAULT_START = aview.INAUGURATION
"""Where a view's date range starts when nothing else says (20 January 2025): the page's date pickers start
there, as the links do."""

RangeGap = EmptyRange
"""The chosen series with no figures in a view's range, with a range where they have some: the page offers it as
a button."""

DATA = cdata.DATA
"""The folder of the bundled snapshot."""

today = clock.today
"""The day the page counts from (``loaders.clock``): today, or the day ``DASHBOARD_TODAY`` names; the exports
made on the command line count from the same day."""

TODAY_ENV = clock.ENV
"""The name of the variable that sets the day (``DASHBOARD_TODAY``)."""

kept = memo.kept
"""The project's one memo (``loaders.memo``), for the page's values built from what the view layer hands it: the
snapshot and the places join count by identity (they are read-only once built), everything else by value. The
page keeps every value through it (``page.cache``), so it follows the same keying rule as every layer below."""


def open_snapshot(folder=DATA) -> Snapshot:
    """The processed snapshot in ``folder`` (checked as it is read)."""
    return cdata.load_snapshot(folder)


def series_options(snap: Snapshot) -> list[str]:
    """The series picker's choices: "id", or "id|key" for each member of a breakdown of 15 or fewer (reported
    figures are claims, not series: drawn as period markers beside the series they speak to)."""
    opts = []
    for sid in snap.series_ids():
        if sid.startswith("reported_figures."):
            continue
        info = snap.info(sid)
        keys = snap.keys(sid)
        if not info["breakdown"] or keys == [""]:
            opts.append(sid)
        elif len(keys) <= 15:
            opts += [f"{sid}|{k}" for k in keys]
    return opts


def series_index(snap: Snapshot) -> tuple[dict[str, str], list[str], list[str]]:
    """(title of each series, the picker's choices, the series with more than 15 members, picked apart)."""
    ids = snap.series_ids()
    titles = {sid: snap.info(sid)["title"] for sid in ids}
    big = [sid for sid in ids if snap.info(sid)["breakdown"] and len(snap.keys(sid)) > 15]
    return titles, series_options(snap), big


def range_bounds(snap: Snapshot, today: dt.date) -> tuple[dt.date, dt.date]:
    """The first and last dates a view's range can take."""
    return aview.data_bounds(snap, today)


def view_facts(snap: Snapshot, view: View) -> tuple[tuple | None, RangeGap | None]:
    """(the dates the view draws, the chosen series with no figures in them): neither reads the day."""
    return aview.view_range(snap, view), empty_in_range(snap, view)


def other_presets(view: View) -> list[tuple[str, View]]:
    """The view under each other date-range preset (not "custom", not its own), by preset name."""
    return [(preset, replace(view, preset=preset, start=None, end=None)) for preset in aview.PRESETS
            if preset not in ("custom", view.preset)]
