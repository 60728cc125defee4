"""The Event study tab's computations, from the snapshot and the events: the events offered and the one the
tab opens on (the events file's ``study_default`` flag), the study's numbers, its figure and its CSV.

Pure functions; the page caches them and lays the results out. The arithmetic is ``analysis.study``.
"""
from __future__ import annotations

import datetime as dt

import pandas as pd

from analysis.study import StudyResult, carry_days, study, study_window_series, x_title_in
from analysis.view import INAUGURATION, View, digits_for, export_decimals, source_decimals, split_ref
from figures.core import build_study_figure, source_lines
from loaders import asof
from loaders import data as cdata
from views.compose import render
from wording import i18n

DATE_CHOICE = "(a date)"  # the choice that studies a date typed in rather than an event
# Which figures the study reads: each period's latest figure, or the figure the first release printed for it
# (what a reader knew at the time, before any revision: ``loaders.asof.first_published``).
VINTAGES = ("latest", "first")


def study_rows(snap: cdata.Snapshot, ref: str, vintage: str = "latest") -> pd.DataFrame:
    """The rows a study reads for ``ref``: the latest figures, or with ``vintage`` "first" each period as first
    published. An unknown vintage is refused by name rather than read as the latest."""
    if vintage not in VINTAGES:
        raise ValueError(f"unknown vintage {vintage!r}; use one of {', '.join(VINTAGES)}")
    sid, key = split_ref(ref)
    rows = asof.first_published(snap, sid, key) if vintage == "first" else cdata.series_rows(snap, sid, key)
    # A period its source covers only in part is spread over the days covered, not the whole period.
    return cdata.clip_to_coverage(rows, cdata.coverage_spans(snap, str(snap.info(sid)["source"])))


def vintage_note(vintage: str, lang: str = "en") -> list[str]:
    """The footer line saying the study reads figures as first published ([] for the latest figures)."""
    return [i18n.t("study.first_published_note", lang)] if vintage == "first" else []


def event_choices(events: pd.DataFrame | None) -> tuple[list[str], dict[str, str]]:
    """The choices of the event picker (a date, then every event by date) and each event's label."""
    choices, labels = [DATE_CHOICE], {}
    if events is not None and len(events):
        for row in events.sort_values("date").itertuples():
            choices.append(str(row.id))
            labels[str(row.id)] = f"{pd.Timestamp(row.date).date()} {row.title}"
    return choices, labels


def default_event(events: pd.DataFrame | None) -> str | None:
    """The id of the event flagged ``study_default`` (a bundled one before a reader's own), or None."""
    if events is None or not len(events) or "study_default" not in events.columns:
        return None
    flagged = events[events["study_default"].fillna(False).astype(bool)]
    if not len(flagged):
        return None
    bundled = flagged[flagged["origin"] == "bundled"] if "origin" in flagged.columns else flagged
    return str((bundled if len(bundled) else flagged)["id"].iloc[0])


def event_date(events: pd.DataFrame, event_id: str) -> dt.date:
    return pd.Timestamp(events.loc[events["id"].astype(str) == event_id, "date"].iloc[0]).date()


def default_date(events: pd.DataFrame | None) -> dt.date:
    """The date the date picker starts on: the default event's, else the inauguration."""
    ev = default_event(events)
    return event_date(events, ev) if ev else INAUGURATION


def study_numbers(snap: cdata.Snapshot, ref: str, on: dt.date, window: int, vintage: str = "latest"
                  ) -> tuple[bool, pd.Timestamp, pd.Timestamp, StudyResult]:
    """(is the series a flow, its first date, its last end date, the study around ``on``), on the latest
    figures or, with ``vintage`` "first", on each period's figure as first published."""
    sid, key = split_ref(ref)
    info = snap.info(sid)
    flow = cdata.is_flow(info)
    rows = study_rows(snap, ref, vintage)
    # Weekly and monthly series are compared in whole periods, others in days (analysis.study.study).
    res = study(rows, on, window, flow=flow, max_carry_days=carry_days(info["frequency"]))
    return flow, rows["date"].min(), rows["end"].max(), res


def study_window(snap: cdata.Snapshot, ref: str, on: dt.date, window: int, *, flow: bool,
                 vintage: str = "latest") -> tuple[pd.DataFrame, str]:
    """The figure's data (both windows) and its x-axis title. A flow's values per day are rounded as the chart's
    CSV rounds them (``analysis.view.export_decimals``: the published total comes back when multiplied by the
    days); a level's are the published values."""
    sid, key = split_ref(ref)
    rows = study_rows(snap, ref, vintage)
    win, title = study_window_series(rows, on, window, flow=flow, max_carry_days=carry_days(snap.info(sid)["frequency"]))
    if flow and len(rows):
        days = float(cdata.days_covered(rows).max())
        win = win.assign(value=win["value"].round(export_decimals(source_decimals(rows["value"]), digits_for(days))))
    return win, title


def study_figure(snap: cdata.Snapshot, ref: str, on: dt.date, window: int, *, title: str, subtitle: str,
                 unit: str, sources: tuple[str, ...], today: dt.date, size: str = "page", lang: str = "en",
                 sep: str = ",", vintage: str = "latest"):
    """(the figure, the data it draws); its own words (footer, note, axis) in ``lang``."""
    flow, _, _, res = study_numbers(snap, ref, on, window, vintage)
    win, x_title = study_window(snap, ref, on, window, flow=flow, vintage=vintage)
    # The returned data keeps the English window names (the CSV's); the figure's legend is in ``lang``.
    shown = win if lang == "en" else win.assign(window=win["window"].map(
        {"around the date": i18n.t("study.window_around", lang), "a year earlier": i18n.t("study.window_year", lang)}))
    return build_study_figure(shown, title=title, subtitle=subtitle, unit=unit, sources=list(sources),
                              generated_on=today, size=size,
                              x_title=x_title if lang == "en" else x_title_in(res.unit, lang),
                              notes=[res.note_in(lang)] + vintage_note(vintage, lang), lang=lang, sep=sep), win


def full_range_sources(snap: cdata.Snapshot, ref: str, lang: str = "en") -> tuple[str, ...]:
    """The source lines for a series over all its data (the study reads outside any chart range)."""
    return tuple(source_lines(snap, render(snap, View(series=[ref], preset="all")).prepared, lang))


def study_numbers_text(res: StudyResult, lang: str = "en", sep: str = ",") -> dict[str, str | None]:
    """The study's numbers as the page prints them, through the reader's locale: "+110,6" where the thousands
    mark is "." (Spanish "75.000"), never "+110.6", which reads as a hundred and ten thousand six hundred there.
    Keys: before, after (means), change ("+110.6 (+15.8%)"), year_change, year_change_pct (None when missing)."""
    num = lambda v, signed=False: i18n.number(v, lang, sep, 1, signed=signed)  # noqa: E731
    pct = lambda v: i18n.t("study.pct", lang, value=num(v, True))  # noqa: E731
    return {
        "before": num(res.before.mean_per_day), "after": num(res.after.mean_per_day),
        "change": (f"{num(res.change, True)} ({pct(res.change_pct)})" if res.change_pct is not None else
                   num(res.change, True) if res.change is not None else None),
        "year_change": num(res.year_earlier_change, True) if res.year_earlier_change is not None else None,
        "year_change_pct": pct(res.year_earlier_change_pct) if res.year_earlier_change_pct is not None else None,
    }


def study_table_text(res: StudyResult, lang: str = "en", sep: str = ",") -> pd.DataFrame:
    """``res.table(lang)`` with its numbers written through the locale (means to one decimal, changes signed),
    for the page: a table's own number format knows no reader's decimal mark."""
    table = res.table(lang)
    for key, signed in (("mean_before", False), ("mean_after", False), ("change", True), ("change_pct", True)):
        col = i18n.t(f"study.col_{key}", lang)
        table[col] = [i18n.number(v, lang, sep, 1, signed=signed) for v in table[col]]
    return table


Study = StudyResult
"""One event study's result (means before and after, the year-earlier comparison, its notes): the page reads its
fields to lay out the metrics, so the type is part of the view layer's interface."""
