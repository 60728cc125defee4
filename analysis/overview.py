"""Headline figures: the latest value of a few key measures, each saying exactly what period and scope it covers,
compared like with like, with its real release date (or the fact that there is none) and its age.

Each headline names candidate series; the one with the most recent data is used (the first listed on a tie),
so the page keeps working while sources come and go, and always says which series it shows. Every card gives
one sentence a reader can quote ("July 2026 average: 1,584 arrests a day") and names its comparison:

- ``latest``: what the shown series measures (its catalogue ``measure``) decides how it is summarised:
  - a level (a headcount) as ``snapshot``: the latest snapshot, against the previous snapshot in the series;
  - a flow as ``month-per-day``: the latest *full* calendar month's average per day (daily counts summed to
    months first), against the previous full month's average per day. A partial month is never blended in: it
    is named and left out;
- ``fytd`` (fiscal year to date): the latest fiscal year's figure and its daily pace, against the previous
  fiscal year at the same point (a release whose data date is within a week of the same day), or a statement
  that the snapshot has no such release;
- ``month-total`` (a monthly count): the latest full month, against the same month a year earlier (same
  length, same season).

Release dates: only sources whose files carry their publication date (ICE's dated file names, DHS's dated
tables) give a release date; for the others (TRAC's snapshot dates, CBP's data months, chart data) the card
says that no publication date is recorded instead of passing a data date off as one.
"""
from __future__ import annotations

import contextvars
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import pandas as pd

from analysis import status  # read through the module at call time: a test replaces status.publication_status
from loaders import data as cdata
from wording import i18n

# (label, how, ((candidate series, scope in words), ...))
HEADLINES = (
    ("People in ICE detention", "latest",
     (("ice_detention_stats.detained_total", "headcount, all arresting agencies (ICE and CBP)"),
      ("trac_detention.detained_total", "headcount, all arresting agencies (ICE and CBP)"))),
    ("ICE arrests per day (monthly average)", "latest",
     (("ddp_records.arrests_daily", "ICE ERO administrative arrests, national, de-duplicated"),
      # KUT's chart data is not DDP's own series: its SOURCES note leaves part of what it counts unverified.
      ("ddp_arrests_aggregates.monthly_national_chart_data",
       "KUT News's monthly count of DDP's ICE arrest records, national: all de-duplicated arrests by its code, "
       "though its chart's headline says arrests with detention"))),
    ("ICE book-ins per day (monthly average)", "latest",
     (("ice_detention_stats.book_ins_ice", "initial book-ins into detention after ICE arrests (not arrests)"),
      ("trac_detention.book_ins_ice", "initial book-ins into detention after ICE arrests (not arrests)"))),
    ("ICE removals, fiscal year to date", "fytd",
     (("ice_detention_stats.removals_fytd", "ICE removals as ICE counts them, including returns"),)),
    ("CBP encounters, latest full month", "month-total",
     (("cbp_encounters.nationwide_total", "nationwide, all of CBP"),
      ("cbp_encounters.nationwide_by_state", "nationwide, all of CBP (the sum of CBP's counts by state)"),
      ("cbp_encounters.swb_total", "southwest land border only, all of CBP"),
      ("ohss_khsm.usbp_encounters", "U.S. Border Patrol only, nationwide"))),
)
# Breakdowns whose members add up to a total the files do not give: the card sums the members month by month
# (CBP's state files carry no nationwide total; the AOR files that do are not always held). Its scope says so.
SUMMED_OVER_KEYS = ("cbp_encounters.nationwide_by_state",)
# Sources whose files carry their own publication date (for ICE, only files dated in their name).
PUBLISHED_RELEASES = status.PUBLICATION_DATED
UNIT_WORDS = {"arrests": "arrests", "book-ins": "book-ins", "people": "people", "removals": "removals",
              "encounters": "encounters"}


@dataclass
class Headline:
    label: str
    series_id: str
    title: str
    value: float | None
    unit: str
    period: str  # what the value covers, in words ("July 2026", "on 2026-07-11", "FY2026 to 2026-04-04")
    data_date: dt.date | None
    release: dt.date | None  # the publication date, only where the source records one
    source: str
    publisher: str
    previous: float | None  # the like-for-like comparison value (see ``comparison``)
    previous_release: dt.date | None  # publication date of the compared figure, when recorded
    overdue_days: int | None  # days past the source's cadence, None when on time
    definition: str
    statement: str = ""  # the sentence a reader would quote
    scope: str = ""
    comparison: str = ""  # what the value is compared with, in words, or why there is no comparison
    release_note: str = ""  # "released 2026-04-09" or why no release date is given
    age_days: int | None = None  # days from the data date to today
    fixed_file: bool = False  # a file that is never updated (no overdue badge can apply)
    # A release the source is known to have published after the one this card's figures come from (declared in
    # data/publication_status.csv), not held in the snapshot: the card is behind, the source is not overdue.
    newer_release: dt.date | None = None
    # The card's one sentence: figure, period, scope and source ("65,765 people were held in ICE detention on
    # 11 July 2026 (a one-day headcount ...; TRAC)."); everything else on the card is one click away.
    quote: str = ""
    figure: str = ""  # the figure as written in ``quote`` (the page sets it in bold)
    # Under the sentence, on the card itself: its data date and age and, when the source is overdue by its own
    # cadence or a newer release is not held, that it is (analysis.status.age_sentences, the chart's words too).
    age: tuple[str, ...] = ()

    @property
    def change(self) -> float | None:
        if self.value is None or self.previous is None:
            return None
        return self.value - self.previous


# The words of the cards, by language (locales/*.toml, "head.*"): set for one call of ``headlines``. A context
# variable, not a module dict: the page's sessions run in threads, and two readers' cards (one in Spanish, one
# in English) may be built at the same moment; each thread sees only its own call's language.
# Its default is read-only: a default is shared by every thread that has not set the variable.
_LANG_VAR: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar(
    "headline_lang", default=MappingProxyType({"lang": "en", "sep": ","}))
LABEL_KEYS = ("detained", "arrests", "book_ins", "removals", "encounters")  # HEADLINES, in order
SCOPE_KEYS = {"headcount, all arresting agencies (ICE and CBP)": "headcount_all",
              "ICE ERO administrative arrests, national, de-duplicated": "ero_arrests",
              "initial book-ins into detention after ICE arrests (not arrests)": "book_ins",
              "ICE removals as ICE counts them, including returns": "removals",
              ("KUT News's monthly count of DDP's ICE arrest records, national: all de-duplicated arrests by its code, "
               "though its chart's headline says arrests with detention"): "kut_arrests",
              "nationwide, all of CBP (the sum of CBP's counts by state)": "cbp_nationwide_states",
              "nationwide, all of CBP": "cbp_nationwide", "southwest land border only, all of CBP": "cbp_swb",
              "U.S. Border Patrol only, nationwide": "usbp"}


def _t(key: str, **fields) -> str:
    return i18n.t("head." + key, _LANG_VAR.get()["lang"], **fields)


def _n(v: float) -> str:
    return i18n.number(v, _LANG_VAR.get()["lang"], _LANG_VAR.get()["sep"])


def _month_name(ts) -> str:
    return i18n.month(pd.Timestamp(ts), _LANG_VAR.get()["lang"])


def _fy(fy: str) -> str:
    return _t("fy", year=fy.removeprefix("FY"))


def _full_months(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows covering a whole calendar month and not flagged partial."""
    whole = (rows["date"].dt.day == 1) & (rows["end"] == rows["date"] + pd.offsets.MonthEnd(0))
    return rows[whole & ~rows["flag"].str.contains("partial")]


def _monthly(daily_or_monthly: pd.DataFrame, info) -> pd.DataFrame:
    """A daily flow summed to calendar months (a month is full only when every day is present); other series
    as they are."""
    if info["frequency"] != "daily" or not cdata.is_flow(info):
        return daily_or_monthly
    d = daily_or_monthly.assign(month=daily_or_monthly["date"].dt.to_period("M"))
    g = d.groupby("month").agg(value=("value", "sum"), n=("value", "size"), release=("release", "max"),
                               file=("file", "last")).reset_index()
    g["date"] = g["month"].dt.start_time
    g["end"] = g["month"].dt.end_time.dt.normalize()
    g["flag"] = ["" if n == e.day else "partial" for n, e in zip(g["n"], g["end"])]
    return g[["date", "end", "value", "release", "flag", "file"]]


def _summed(snap: cdata.Snapshot, sid: str) -> pd.DataFrame:
    """A breakdown's members summed per period, each member from its latest release; a period is kept only
    when every member that has the period comes from the same release (never one file's state added to
    another's)."""
    parts = [cdata.series_rows(snap, sid, k) for k in snap.keys(sid)]
    rows = pd.concat([p for p in parts if len(p)], ignore_index=True)
    g = rows.groupby(["date", "end"]).agg(value=("value", "sum"), release=("release", "max"),
                                          n_releases=("release", "nunique"),
                                          flag=("flag", lambda f: ";".join(sorted({x for x in f if x}))),
                                          file=("file", "last")).reset_index()
    g = g[g["n_releases"] <= 1].sort_values("date", kind="mergesort")
    return g[["date", "end", "value", "release", "flag", "file"]].reset_index(drop=True)


def _unit_word(info) -> str:
    return UNIT_WORDS.get(str(info.get("unit", "")), str(info.get("unit", "")))


def _release(snap: cdata.Snapshot, source: str, row) -> tuple[dt.date | None, str]:
    """(publication date, words). Only sources recording a publication date give one."""
    rel = row.get("release")
    if source in PUBLISHED_RELEASES and rel is not None and not pd.isna(rel):
        releases = snap.tables.get("ice_detention_stats.releases")
        if source == "ice_detention_stats" and releases is not None and "release_date_from" in releases:
            how = releases.set_index("file")["release_date_from"].to_dict().get(row.get("file"), "")
            if how and how != "file name":
                return None, _t("undated_file", file=row.get('file'), date=pd.Timestamp(row['end']).date())
        return pd.Timestamp(rel).date(), _t("released", date=pd.Timestamp(rel).date())
    return None, _t("no_release_date", date=pd.Timestamp(row['end']).date())


def _snapshot(rows, unit, scope):
    last = rows.iloc[-1]
    value, day = float(last["value"]), last["end"].date()
    statement = _t("headcount_on", date=day, n=_n(value), unit=unit)
    if len(rows) > 1:
        prev = rows.iloc[-2]
        return (value, _t("on", date=day), day, statement, float(prev["value"]),
                _t("vs_snapshot", n=_n(prev['value']), date=prev['end'].date()), prev, last)
    return value, _t("on", date=day), day, statement, None, _t("no_earlier_snapshot"), None, last


def _month_per_day(rows, unit, scope):
    full = _full_months(rows)
    if full.empty:
        return None, "", None, _t("no_full_month"), None, "", None, rows.iloc[-1]
    last = full.iloc[-1]
    days = last["end"].day
    value = float(last["value"]) / days
    month = _month_name(last['date'])
    statement = _t("month_average", month=month, n=_n(value), unit=unit)
    later = rows[rows["date"] > last["date"]]
    if len(later):
        p = later.iloc[-1]
        statement += _t("partial_not_used", month=_month_name(p['date']), date=p['end'].date())
    before = full[full["date"] == last["date"] - pd.offsets.MonthBegin(1)]
    if len(before):
        b = before.iloc[-1]
        prev = float(b["value"]) / b["end"].day
        return (value, month, last["end"].date(), statement, prev,
                _t("vs_previous_month", month=_month_name(b['date']), n=_n(prev)), b, last)
    return value, month, last["end"].date(), statement, None, _t("no_previous_month"), None, last


def _fytd(rows_by_key, unit, scope):
    fy = max(rows_by_key)
    rows = rows_by_key[fy]
    last = rows.iloc[-1]
    value, day = float(last["value"]), last["end"].date()
    start = dt.date(day.year if day.month >= 10 else day.year - 1, 10, 1)
    days = (day - start).days + 1
    statement = _t("fytd", fy=_fy(fy), date=day, n=_n(value), unit=unit, pace=_n(value / days), days=days)
    statement = statement[:1].upper() + statement[1:]  # "año fiscal 2026 ..." opens a sentence
    prev_fy = f"FY{int(fy[2:]) - 1}"
    target = pd.Timestamp(day) - pd.DateOffset(years=1)
    prev_rows = rows_by_key.get(prev_fy)
    if prev_rows is not None and len(prev_rows):
        gap = (prev_rows["end"] - target).abs()
        if gap.min() <= pd.Timedelta(days=7):
            p = prev_rows.loc[gap.idxmin()]
            return (value, _t("fy_to", fy=_fy(fy), date=day), day, statement, float(p["value"]),
                    _t("vs_previous_fy", fy=_fy(prev_fy), date=p['end'].date(), n=_n(p['value'])), p, last)
    return (value, _t("fy_to", fy=_fy(fy), date=day), day, statement, None, _t("no_previous_fy", fy=_fy(prev_fy)),
            None, last)


def _month_total(rows, unit, scope):
    full = _full_months(rows)
    if full.empty:
        return None, "", None, _t("no_full_month"), None, "", None, rows.iloc[-1]
    last = full.iloc[-1]
    value, month = float(last["value"]), _month_name(last['date'])
    statement = _t("month_total", month=month, scope=scope, n=_n(value), unit=unit)
    statement = statement[:1].upper() + statement[1:]  # "agosto de 2025, ..." opens a sentence
    year_before = full[full["date"] == last["date"] - pd.DateOffset(years=1)]
    if len(year_before):
        b = year_before.iloc[-1]
        return (value, month, last["end"].date(), statement, float(b["value"]),
                _t("vs_year_before", month=_month_name(b['date']), n=_n(b['value'])), b, last)
    return value, month, last["end"].date(), statement, None, _t("no_year_before"), None, last


def _source_name(source: str, title: str, publisher: str) -> str:
    """A short name of where the figure comes from, for the quote: the catalogue's own (``head.source.*``), else
    the series title's closing parenthesis ("(TRAC)"), else the publisher."""
    key = "head.source." + source
    if i18n.has(key, _LANG_VAR.get()["lang"]):
        return i18n.t(key, _LANG_VAR.get()["lang"])
    tail = title.rstrip()
    if tail.endswith(")") and "(" in tail:
        return tail[tail.rindex("(") + 1:-1]
    return publisher


def _quote(card: str, value: float | None, row, data_date: dt.date | None, fy: str, scope_key: str, source: str) -> str:
    """The card's sentence in the reader's language ("head.quote.<card>"), every field filled: the templates use
    what their card's figure is (a day, a month, a fiscal year to a date)."""
    if value is None or data_date is None:
        return ""
    lang = _LANG_VAR.get()["lang"]
    start = dt.date(data_date.year if data_date.month >= 10 else data_date.year - 1, 10, 1)
    days = (data_date - start).days + 1
    return _t("quote." + card, n=_n(value), date=i18n.date(data_date, lang), month=_month_name(row["date"]),
              fy=_fy(fy) if fy else "", pace=_n(value / days), days=days,
              scope=_t("quote_scope." + scope_key), source=source)


def headlines(snap: cdata.Snapshot, today: dt.date | None = None, lang: str = "en", sep: str = ",") -> list[Headline]:
    """The cards, every word in ``lang`` and every number with ``sep`` as its thousands mark."""
    token = _LANG_VAR.set({"lang": i18n.check_lang(lang), "sep": i18n.check_separators(sep, lang)})
    try:
        return _headlines(snap, today or dt.date.today(), lang)
    finally:
        _LANG_VAR.reset(token)


def _headlines(snap: cdata.Snapshot, today: dt.date, lang: str) -> list[Headline]:
    # Releases known (declared in data/publication_status.csv) but not held in this snapshot, by source.
    known_releases = {s.source: s.last_release_known for s in status.publication_status(snap, today)
                      if s.last_release_known and (not s.last_release_held or s.last_release_known > s.last_release_held)}
    out = []
    for n_card, (label, how, candidates) in enumerate(HEADLINES):
        if lang != "en":
            label = _t("label." + LABEL_KEYS[n_card])
            candidates = tuple((c, _t("scope." + SCOPE_KEYS[sc])) for c, sc in candidates)
        present = [(c, scope) for c, scope in candidates if c in snap.by_series]
        if not present:
            continue
        # The freshest figure wins (ICE's own workbook when it is as recent as its mirrors); the card names it.
        ids = [c for c, _ in present]
        sid = max(ids, key=lambda c: (snap.by_series[c]["end"].max(), -ids.index(c)))
        scope = dict(present)[sid]
        info = snap.info(sid)
        unit = i18n.unit(_unit_word(info), lang)
        if how == "latest":
            # A flow is never shown as one day's snapshot, nor a level divided by the days of a month.
            how = "month-per-day" if cdata.is_flow(info) else "snapshot"
        if how == "fytd":
            by_key = {k: cdata.series_rows(snap, sid, k) for k in snap.keys(sid) if k}
            got = _fytd(by_key, unit, scope)
        else:
            rows = _summed(snap, sid) if sid in SUMMED_OVER_KEYS else cdata.series_rows(snap, sid, "")
            rows = _monthly(rows, info) if how == "month-per-day" else rows
            got = {"snapshot": _snapshot, "month-per-day": _month_per_day, "month-total": _month_total}[how](rows, unit, scope)
        value, period, data_date, statement, prev, comparison, prev_row, row = got
        english_scope = next(sc for c, sc in HEADLINES[n_card][2] if c == sid)
        # The release and staleness go by the newest row of the series (a partial month included), which is
        # the latest the source has published, even when the headline itself uses an earlier full month.
        newest = snap.by_series[sid].sort_values(["end", "release"], na_position="first").iloc[-1]
        release, release_note = _release(snap, info["source"], newest if how != "fytd" else row)
        prev_release = _release(snap, info["source"], prev_row)[0] if prev_row is not None else None
        entry = snap.source_entry(info["source"])
        cadence = int(entry.get("cadence_days") or 0)
        fixed = "fixed file" in str(entry.get("cadence", ""))
        # The same judgement as the Releases tab and `python -m loaders status` (analysis.status.freshness):
        # age from the card's data date, lateness from the latest release known, held or declared.
        fresh = status.freshness(today, data_date, release or newest["end"].date(), cadence,
                                 [known_releases.get(info["source"])], reference=fixed)
        overdue, age, newer = fresh.overdue_days, fresh.age_days, fresh.newer_release
        age_words = tuple(status.age_sentences(status.age_of(snap, info["source"], fresh, today), lang))
        title = i18n.series_text(sid, "title", lang, info["title"])
        if how == "fytd":
            title += f" ({_fy(max(k for k in snap.keys(sid) if k))})"
        per_day = i18n.unit(_unit_word(info) + " per day", lang) if how == "month-per-day" else unit
        definition = i18n.localise_numbers(i18n.series_text(sid, "definition", lang, info["definition"]), _LANG_VAR.get()["sep"])
        publisher = entry.get("publisher", info["source"])
        fy = max(k for k in snap.keys(sid) if k) if how == "fytd" else ""
        quote = _quote(LABEL_KEYS[n_card], value, row, data_date, fy, SCOPE_KEYS[english_scope],
                       _source_name(info["source"], i18n.series_text(sid, "title", lang, info["title"]), publisher))
        out.append(Headline(label, sid, title, value, per_day, period,
                            data_date, release, info["source"], publisher, prev,
                            prev_release, overdue, definition,
                            statement=statement, scope=scope, comparison=comparison, release_note=release_note,
                            age_days=age, fixed_file=fixed, newer_release=newer, quote=quote,
                            figure=_n(value) if value is not None else "", age=age_words))
    return out
