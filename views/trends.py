"""The Trends room's pieces beside its chart: the choices its controls offer, the series a granularity leaves at
their own frequency, each drawn series' label, the events table as a reader reads it and its CSV, and, for an
as-published view, the series that cannot be placed on a date and the revisions published after it. The chart
itself is ``views.compose.render``'s; the page lays these out."""
from __future__ import annotations

import datetime as dt

import pandas as pd

from analysis import view as aview
from figures.events import events_csv, events_legend_table, number_events
from figures.labels import localised_label
from loaders import asof
from loaders import data as cdata
from wording import citation, i18n

from .compose import Rendered
from .data import Snapshot, View

PRESETS = aview.PRESETS
"""The date-range presets the range control offers, by name (their English words are ``page.preset.*``'s)."""

GRANULARITIES = aview.GRANULARITIES
"""The frequencies the granularity control offers, by name."""

ROLLING = aview.ROLLING
"""The rolling averages the control offers, by number of days (0: none)."""


def granularity_kept(snap: Snapshot, view: View) -> list[tuple[str, str]]:
    """The chosen series the view's granularity leaves at their own frequency (``analysis.view.regrouped``), as
    (reference, the series' frequency); none when the view keeps every series' own frequency."""
    if view.granularity == "native":
        return []
    kept = []
    for ref in view.series:
        sid, _, key = ref.partition("|")
        if sid not in snap.by_series or aview.regrouped(cdata.series_rows(snap, sid, key), view.granularity):
            continue
        kept.append((ref, str(snap.info(sid)["frequency"])))
    return kept


def series_labels(r: Rendered, lang: str) -> dict[str, str]:
    """Each drawn series' label in ``lang``, by "id|key"."""
    return {p.series_id + "|" + p.key: localised_label(p, lang) for p in r.prepared}


def series_label(p, lang: str) -> str:
    """One drawn series' label (``Rendered.prepared``) in ``lang``."""
    return localised_label(p, lang)


def link_words(event: dict, lang: str) -> str:
    """What an event's link is, in ``lang``: the original report, or no link (the original's address was not
    found) with how to cite it (``wording.citation``; never the copy it was read at)."""
    return citation.no_link_note(event, lang) or i18n.t("page.events_table.link_original", lang)


def events_reader_table(events: pd.DataFrame, lang: str) -> pd.DataFrame:
    """The events table as a reader reads it: the precision of each date and what each link is in words of
    ``lang`` (the columns keep their field names; the page labels them)."""
    table = events_legend_table(events, lang).copy()
    table["date_precision"] = [i18n.t(f"page.events_table.precision_{p}", lang)
                               if i18n.has(f"page.events_table.precision_{p}", lang) else p
                               for p in table["date_precision"]]
    rows = number_events(events).to_dict("records")  # the table's rows, in its order
    if len(rows) == len(table):
        table["link"] = [link_words(e, lang) for e in rows]
    return table


def events_file(events: pd.DataFrame, lang: str) -> bytes:
    """The events drawn, as the CSV a reader downloads."""
    return events_csv(events, lang=lang)


def revisions_after(snap: Snapshot, r: Rendered, as_of: dt.date) -> pd.DataFrame:
    """Every change to a drawn series' published values in a release after ``as_of``, one row a change."""
    return asof.revisions_after(snap, [p.series_id for p in r.prepared], as_of)


def not_versioned(snap: Snapshot, view: View) -> list[str]:
    """In an as-published view, the chosen series that record no release dates (left out of the chart)."""
    return asof.unversioned(snap, view.series) if view.as_of else []
