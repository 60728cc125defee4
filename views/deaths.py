"""Deaths in ICE custody as the Places room shows them: the period the deaths maps cover, the records of a period
(optionally with the deaths during an enforcement action), a search through them, one record and its report's
description, a facility's deaths, and whether a trends chart draws a deaths series. Counts and matches are
``analysis.deaths``'s; the page lays them out in plain-text elements."""
from __future__ import annotations

import datetime as dt

import pandas as pd

from analysis import deaths as DV
from analysis.view import INAUGURATION, view_range

from .data import Snapshot


def page_period(snap: Snapshot, view, today: dt.date) -> tuple[dt.date, dt.date]:
    """The page's date range (the one the Trends room draws for ``view``), or 20 January 2025 to ``today`` when
    there is no view or it has no range."""
    rng = view_range(snap, view) if view is not None else None
    return (rng[0], rng[1]) if rng else (INAUGURATION, today)


def coverage_notes(recs: pd.DataFrame, start: dt.date, end: dt.date, lang: str = "en") -> list[str]:
    """What the death records cannot say about the period (years the list does not cover, reports still due)."""
    return DV.coverage_notes(recs, start, end, lang)


def period_records(recs: pd.DataFrame, start: dt.date, end: dt.date, enforcement: bool) -> pd.DataFrame:
    """The deaths in custody in the period, with the deaths during an enforcement action when ``enforcement``,
    in date order."""
    return pd.concat([DV.in_period(recs, start, end)] + ([DV.in_period(recs, start, end, custody=False)]
                                                         if enforcement else [])).sort_values("day")


def search(period: pd.DataFrame, query: str) -> pd.DataFrame:
    """The records of ``period`` that match the reader's search text (all of them for an empty search)."""
    return DV.search_records(period, query)


def record(recs: pd.DataFrame, row: str) -> dict | None:
    """One death's record by its row mark (None when there is none such)."""
    return DV.record(recs, row)


def report_text(rec: dict, lang: str = "en") -> str:
    """What the record's link opens (ICE's report or the press reporting), in words."""
    return DV.report_text(rec, lang)


def at_facility(recs: pd.DataFrame, places, facility_id: str) -> pd.DataFrame:
    """The deaths the list puts at one facility of ``places`` (``views.places.places_data``)."""
    return DV.at_facility(recs, places, facility_id)


def draws_deaths(rendered) -> bool:
    """Whether a rendered trends view draws a series of the deaths list."""
    return rendered is not None and any(p.source == DV.SOURCE for p in getattr(rendered, "prepared", []) or [])
