"""Published aggregates of the Deportation Data Project's record-level ICE arrests (CSV).

DDP's record-level arrests file is not on this project's machines (see ``ddp_records``), but several
aggregates of it were published, each obtained differently. Every series title says how its numbers were
obtained, because that decides how far to trust them:

- ``ddp_weekly_arrests_dedup_2011_2025_sunday_weeks.csv``: national weekly arrests after DDP's de-duplication,
  weeks starting SUNDAY, 2011-09-25 .. 2025-10-12, DIGITISED from the vector figure "Weekly Arrest Counts by
  Source File" in a DDP report (deportationdata/ice, code/arrests-cpang/arrests_post_de-duplication_summary.pdf,
  CC0). Within about half an arrest of the true integers. Flagged ``digitised``. The first week holds one day
  (FY2012 data start on Saturday 2011-10-01), so its row covers 2011-10-01 only; the last week is cut by the
  release's end in mid-October 2025 (DDP's release covered arrests through about 2025-10-15, the end of the
  period the press reported from it), so its row ends 2025-10-15. Both are flagged ``partial``. Sunday weeks of
  FY2024 sum to 112,466, against ICE's published FY2024 total of 113,431.
- ``monthly_arrests_national_texas_austin_oct2022_jul2026.csv``: national, Texas and Austin-area monthly
  arrests, Oct 2022 .. Jul 2026, TAKEN FROM THE DATA embedded in a KUT News chart built from DDP's latest
  release (rows of the joined arrests file = de-duplicated arrests). Exact integers as the chart holds them.
- ``daily_arrests.csv``: daily arrests in five states (TX, WI, IL, MN, OR), 2025-08-02 .. 2026-03-10, from an
  analyst's export of DDP's online data slicer with every row of a suspected duplicate pair removed (so the
  first arrest of each pair is lost too) and probably the un-imputed state. Flagged ``lower-bound`` (Texas is
  77-92% of the KUT monthly Texas series). "NA" there means no arrest recorded that day, stored as 0. One stray
  row dated 2026-09-17 (a future date in the slicer export, after the release's end) is DROPPED here. The last
  day, 2026-03-10, is the release's end and flagged ``partial``.
  ``mn_collateral.csv``: Minnesota daily arrests split into "Collateral" and "Targeted" (ICE's apprehension type,
  recorded from about Aug 2025), same caveats; days with no arrests are absent.
- ``ddp_weekly_enforcement_sep2023_jul2025.csv``: weekly counts, weeks starting MONDAY, 2023-09-04 .. 2025-07-21,
  DIGITISED from a figure in DDP's "ICE core data" paper (graemeblair/ice-core-data-paper). These are RAW ROW
  COUNTS, duplicates included (flag ``with-duplicates``), so they run a few percent above de-duplicated counts.
  Arrests, detainers, stay book-ins and removals are kept; ICE's "encounters" column is left out because the
  catalogue has no metric for ICE encounters (they are neither arrests nor border encounters).
- ``ddp_weekly_arrests_nov2023_feb2025.csv``: weekly arrests, MONDAY weeks 2023-11-13 .. 2025-02-10, DIGITISED
  from two SVG charts on DDP's site (2025-03-21 news post), de-duplicated with DDP's older rule (first row per
  person, day, method and criminality), total and split by criminal conviction. First week partial.
- ``sea_crim_state_month.csv``: Seattle AOR arrests per month by criminality and state, Sep 2023 .. Sep 2025,
  computed by UW Center for Human Rights from DDP's Nov/Dec-2025 release (same de-duplication as the site's).
- ``konczal_ice_arrests_by_state_jan2025_jul2026.csv`` and ``ccij_trump_arrests_by_aor_20250120_20260806.csv``:
  cross-sectional totals (one number per state / AOR over a window) computed by two analysts from DDP's file.
  Stored as one row per member whose ``date``/``end`` span the window.
Licences: DDP's data and report are CC0; the analysts' repositories state no licence (facts only are used).
"""
from __future__ import annotations

import datetime as dt
import io

import pandas as pd

from . import parsing, tidy
from .base import Series, Source
from .errors import ParseError

ID = "ddp_arrests_aggregates"
ATTRIBUTION = ("Source: Deportation Data Project (deportationdata.org) ICE arrest records, as aggregated in the "
               "publications named in each series")
WEEKLY_DATA_START = dt.date(2011, 10, 1)
WEEKLY_RELEASE_END = dt.date(2025, 10, 15)
STRAY_FUTURE_ROW = "2026-09-17"

_DDP = (" Counted from ICE's record-level arrest data released to the Deportation Data Project under FOIA. "
        "Administrative arrests by ICE ERO only (not CBP, not book-ins).")


def _s(name, title, metric, unit, freq, definition, breakdown=""):
    # Every series here counts arrests (or enforcement records) over each row's period: all flows.
    return Series(f"{ID}.{name}", title, metric, "ICE", unit, freq, definition, ID, breakdown=breakdown,
                  measure="flow")


SERIES = (
    _s("weekly_national_digitised", "ICE arrests per week, 2011-2025 (DDP report chart, digitised)", "arrests",
       "arrests", "weekly",
       "Arrests per Sunday-to-Saturday week after DDP removed repeat records of the same arrest, read off the vector "
       "chart in a DDP report (accurate to about half an arrest). Shown per day it is the weekly total / 7."
       + _DDP),
    _s("monthly_national_chart_data", "ICE arrests per month, national (KUT News chart data from DDP)", "arrests",
       "arrests", "monthly",
       "De-duplicated arrests per calendar month, taken from the data embedded in a KUT News chart made from DDP's "
       "latest release (arrests through 2026-08-06; the partial August 2026 was left out by the chart)." + _DDP),
    _s("monthly_texas_chart_data", "ICE arrests per month in Texas (KUT News chart data from DDP)", "arrests",
       "arrests", "monthly", "As the national monthly series, for arrests recorded in Texas." + _DDP),
    _s("monthly_austin_area_chart_data", "ICE arrests per month in the Austin area (KUT News chart data from DDP)",
       "arrests", "arrests", "monthly",
       "As the national monthly series, for arrests whose city is one of about 100 spellings of Central Texas "
       "towns chosen by the chart's author." + _DDP),
    _s("daily_by_state_lower_bound", "ICE arrests per day in five states (DDP data slicer export; lower bound)",
       "arrests", "arrests", "daily",
       "Arrests per day in Texas, Wisconsin, Illinois, Minnesota and Oregon from an analyst's export of DDP's data "
       "slicer. Both rows of every suspected duplicate pair were removed, so real arrests are undercounted "
       "(Texas runs at 77-92% of the KUT monthly figure): use the day-to-day shape, not the level." + _DDP,
       breakdown="state"),
    _s("daily_minnesota_by_type_lower_bound", "ICE arrests per day in Minnesota, collateral vs targeted "
       "(DDP data slicer export; lower bound)", "arrests", "arrests", "daily",
       "Minnesota arrests per day split by ICE's apprehension type: 'Targeted' (the person ICE set out to arrest) "
       "or 'Collateral' (someone else met during the operation); recorded from about Aug 2025. Same duplicate "
       "removal and undercount as the five-state series." + _DDP, breakdown="apprehension type"),
    _s("paper_weekly_raw_digitised", "ICE enforcement records per week, raw rows incl. duplicates (DDP paper "
       "chart, digitised)", "arrests", "records", "weekly",
       "Rows per Monday-to-Sunday week in four of ICE's record-level tables, read off a chart in DDP's 'ICE core "
       "data' paper: arrests (by arrest date), detainers (by date prepared), detention stays (by book-in date) and "
       "removals (by departure date). Raw counts: repeat records of one event are included. DDP warns the removals "
       "table of this period is incomplete. The key names the table; each table is a different measure.",
       breakdown="table"),
    _s("site_weekly_digitised", "ICE arrests per week, Nov 2023 - Feb 2025 (DDP website chart, digitised)",
       "arrests", "arrests", "weekly",
       "Arrests per Monday-to-Sunday week, read off a chart on DDP's website (March 2025 release), after DDP's "
       "older de-duplication (one row per person, day, method and criminality)." + _DDP),
    _s("site_weekly_by_conviction_digitised", "ICE arrests per week by criminal conviction (DDP website chart, "
       "digitised)", "arrests", "arrests", "weekly",
       "The website's weekly arrests split into people with a criminal conviction and people without one "
       "(pending charges or none)." + _DDP, breakdown="conviction"),
    _s("seattle_aor_monthly_by_criminality", "ICE arrests per month in the Seattle field office by criminality "
       "(UWCHR from DDP)", "arrests", "arrests", "monthly",
       "Arrests made by the Seattle Area of Responsibility (Alaska, Oregon, Washington) per month, by ICE's "
       "criminality label, computed by the University of Washington Center for Human Rights from DDP's "
       "Nov/Dec-2025 release." + _DDP, breakdown="criminality"),
    _s("seattle_aor_monthly_by_state", "ICE arrests per month in the Seattle field office by state (UWCHR from DDP)",
       "arrests", "arrests", "monthly",
       "As above, by the state ICE recorded ('(not recorded)' where blank, 'Other' for states outside the AOR)."
       + _DDP, breakdown="state"),
    _s("total_by_state_2025_2026", "ICE arrests by state, Jan 2025 - Jul 2026 total (analyst's count from DDP)",
       "arrests", "arrests", "irregular",
       "Total de-duplicated arrests per state (with DDP's imputed state) from 2025-01-01 to 2026-07-31, computed by "
       "Mike Konczal from DDP's latest file; about 1.5% of arrests with no state are not included." + _DDP,
       breakdown="state"),
    _s("total_by_aor_2025_2026", "ICE arrests by field office, 20 Jan 2025 - 6 Aug 2026 total (analyst's count from "
       "DDP)", "arrests", "arrests", "irregular",
       "Total arrests per ICE field office (AOR) from 2025-01-20 to 2026-08-06, after dropping DDP's likely "
       "duplicates, computed by the Center for Constitutional Integrity from two DDP releases. AORs sum to "
       "547,776, below the same analysis's national 549,499 because some office names did not match." + _DDP,
       breakdown="aor"),
)


def _read_csv(content: bytes, name: str, required: list[str]) -> pd.DataFrame:
    try:
        df = pd.read_csv(io.BytesIO(content), dtype=str, keep_default_na=False, skipinitialspace=True)
    except Exception as e:
        raise ParseError(f"not a readable CSV ({e})", source=ID, file=name) from None
    missing = [c for c in required if c not in df.columns]
    if missing:
        raise ParseError(f"missing column(s) {missing}; found {list(df.columns)}", source=ID, file=name)
    return df


_NA = frozenset({"", "NA"})


def parse_cpang_weekly(df: pd.DataFrame, name: str) -> list[dict]:
    rows = []
    last = max(df["week_start_sunday"])
    for i, r in enumerate(df.itertuples(index=False), start=2):
        start = parsing.iso_date(r.week_start_sunday, source=ID, file=name, row=i, field="week_start_sunday")
        if start.weekday() != 6:
            raise ParseError(f"row {i} field 'week_start_sunday': {start} is not a Sunday", source=ID, file=name)
        v = parsing.number(r.arrests_dedup_rounded, source=ID, file=name, row=i, field="arrests_dedup_rounded", missing=_NA)
        date, end, flag = start, start + dt.timedelta(days=6), "digitised"
        if r.partial_week_flag.strip():
            flag = "digitised;partial"
            if start < WEEKLY_DATA_START <= end:
                date = WEEKLY_DATA_START
            elif r.week_start_sunday == last and start <= WEEKLY_RELEASE_END < end:
                end = WEEKLY_RELEASE_END
        rows.append({"series": f"{ID}.weekly_national_digitised", "date": date, "end": end, "value": v, "flag": flag})
    return rows


def parse_kut_monthly(df: pd.DataFrame, name: str) -> list[dict]:
    rows = []
    for i, r in enumerate(df.itertuples(index=False), start=2):
        start = parsing.iso_date(r.month_start, source=ID, file=name, row=i, field="month_start")
        for col, sid in (("national", "monthly_national_chart_data"), ("texas", "monthly_texas_chart_data"),
                         ("austin_area", "monthly_austin_area_chart_data")):
            v = parsing.number(getattr(r, col), source=ID, file=name, row=i, field=col, missing=_NA)
            if v is not None:
                rows.append({"series": f"{ID}.{sid}", "date": start, "end": parsing.month_end(start), "value": v})
    return rows


STATES5 = ["TEXAS", "WISCONSIN", "ILLINOIS", "MINNESOTA", "OREGON"]


def parse_five_states(df: pd.DataFrame, name: str) -> list[dict]:
    df = df[df["apprehension_date"] != STRAY_FUTURE_ROW]
    last = max(df["apprehension_date"])
    rows = []
    for i, r in enumerate(df.itertuples(index=False), start=2):
        d = parsing.iso_date(r.apprehension_date, source=ID, file=name, row=i, field="apprehension_date")
        flag = "lower-bound;partial" if r.apprehension_date == last else "lower-bound"
        for st in STATES5:
            v = parsing.number(getattr(r, st), source=ID, file=name, row=i, field=st, missing=_NA)
            rows.append({"series": f"{ID}.daily_by_state_lower_bound", "key": st.title(), "date": d,
                         "value": 0.0 if v is None else v, "flag": flag})
    return rows


def parse_mn_collateral(df: pd.DataFrame, name: str) -> list[dict]:
    rows = []
    for i, r in enumerate(df.itertuples(index=False), start=2):
        d = parsing.iso_date(r.apprehension_date, source=ID, file=name, row=i, field="apprehension_date")
        for col in ("Collateral", "Targeted"):
            v = parsing.number(getattr(r, col), source=ID, file=name, row=i, field=col, missing=_NA)
            if v is not None:
                rows.append({"series": f"{ID}.daily_minnesota_by_type_lower_bound", "key": col, "date": d,
                             "value": v, "flag": "lower-bound"})
    return rows


PAPER_TABLES = {"arrests_digitized": "arrests", "detainers_digitized": "detainers",
                "detentions_digitized": "detention stay book-ins", "removals_digitized": "removals"}


def parse_paper_weekly(df: pd.DataFrame, name: str) -> list[dict]:
    rows = []
    for i, r in enumerate(df.to_dict("records"), start=2):
        start = parsing.iso_date(r["week_start_monday"], source=ID, file=name, row=i, field="week_start_monday")
        if start.weekday() != 0:
            raise ParseError(f"row {i} field 'week_start_monday': {start} is not a Monday", source=ID, file=name)
        for col, key in PAPER_TABLES.items():
            v = parsing.number(r[col], source=ID, file=name, row=i, field=col, missing=_NA)
            if v is not None:
                rows.append({"series": f"{ID}.paper_weekly_raw_digitised", "key": key, "date": start,
                             "end": start + dt.timedelta(days=6), "value": round(v), "flag": "digitised;with-duplicates"})
    return rows


def parse_site_weekly(df: pd.DataFrame, name: str) -> list[dict]:
    rows = []
    for i, r in enumerate(df.to_dict("records"), start=2):
        start = parsing.iso_date(r["week_start_monday"], source=ID, file=name, row=i, field="week_start_monday")
        end = start + dt.timedelta(days=6)
        flag = "digitised;partial" if r["first_or_partial_week_flag"].strip() else "digitised"
        total = parsing.number(r["arrests_total_rounded"], source=ID, file=name, row=i, field="arrests_total_rounded",
                               missing=_NA)
        rows.append({"series": f"{ID}.site_weekly_digitised", "date": start, "end": end, "value": total, "flag": flag})
        for col, key in (("arrests_convicted_digitized", "Criminal conviction"),
                         ("arrests_not_convicted_digitized", "No criminal conviction")):
            v = parsing.number(r[col], source=ID, file=name, row=i, field=col, missing=_NA)
            if v is not None:  # a split marked NA is not published for that week: no row, as in the paper tables
                rows.append({"series": f"{ID}.site_weekly_by_conviction_digitised", "key": key, "date": start,
                             "end": end, "value": round(v), "flag": flag})
    return rows


def parse_seattle(df: pd.DataFrame, name: str) -> list[dict]:
    recs = []
    for i, r in enumerate(df.to_dict("records"), start=2):
        m = parsing.iso_date(r["month"], source=ID, file=name, row=i, field="month")
        n = parsing.number(r["n"], source=ID, file=name, row=i, field="n", missing=_NA)
        st = r["apprehension_state"].strip()
        recs.append({"month": m, "crim": r["apprehension_criminality"].strip(),
                     "state": "(not recorded)" if st in ("", "NA") else ("Other" if st == "other" else st.title()),
                     "n": n})
    t = pd.DataFrame(recs)
    rows = []
    for col, sid in (("crim", "seattle_aor_monthly_by_criminality"), ("state", "seattle_aor_monthly_by_state")):
        for (m, key), n in t.groupby(["month", col])["n"].sum().items():
            rows.append({"series": f"{ID}.{sid}", "key": key, "date": m, "end": parsing.month_end(m), "value": n})
    return rows


def parse_totals(df: pd.DataFrame, name: str, key_col: str, sid: str, start: dt.date, end: dt.date) -> list[dict]:
    rows = []
    for i, r in enumerate(df.to_dict("records"), start=2):
        v = parsing.number(r["arrests"], source=ID, file=name, row=i, field="arrests", missing=_NA)
        rows.append({"series": f"{ID}.{sid}", "key": r[key_col].strip(), "date": start, "end": end, "value": v})
    return rows


PARSERS = {
    "ddp_weekly_arrests_dedup_2011_2025_sunday_weeks.csv": (
        ["week_start_sunday", "arrests_dedup_rounded", "partial_week_flag"], parse_cpang_weekly),
    "monthly_arrests_national_texas_austin_oct2022_jul2026.csv": (
        ["month_start", "national", "texas", "austin_area"], parse_kut_monthly),
    "daily_arrests.csv": (["apprehension_date"] + STATES5, parse_five_states),
    "mn_collateral.csv": (["apprehension_date", "Collateral", "Targeted"], parse_mn_collateral),
    "ddp_weekly_enforcement_sep2023_jul2025.csv": (["week_start_monday"] + list(PAPER_TABLES), parse_paper_weekly),
    "ddp_weekly_arrests_nov2023_feb2025.csv": (
        ["week_start_monday", "arrests_total_rounded", "arrests_convicted_digitized",
         "arrests_not_convicted_digitized", "first_or_partial_week_flag"], parse_site_weekly),
    "sea_crim_state_month.csv": (["apprehension_criminality", "month", "apprehension_state", "n"], parse_seattle),
    "konczal_ice_arrests_by_state_jan2025_jul2026.csv": (
        ["state_name", "arrests"],
        lambda df, n: parse_totals(df, n, "state_name", "total_by_state_2025_2026", dt.date(2025, 1, 1),
                                   dt.date(2026, 7, 31))),
    "ccij_trump_arrests_by_aor_20250120_20260806.csv": (
        ["apprehension_aor", "arrests"],
        lambda df, n: parse_totals(df, n, "apprehension_aor", "total_by_aor_2025_2026", dt.date(2025, 1, 20),
                                   dt.date(2026, 8, 6))),
}


def parse(content: bytes, name: str = "") -> pd.DataFrame:
    if name not in PARSERS:
        raise ParseError(f"unknown file; expected one of {sorted(PARSERS)}", source=ID, file=name)
    required, fn = PARSERS[name]
    df = _read_csv(content, name, required)
    df.columns = [c.strip() for c in df.columns]
    if df.empty:
        raise ParseError("no data rows", source=ID, file=name)
    return tidy.frame(fn(df, name))


_FOLDERS = {
    "ddp-cpang-weekly-2011-2025": "ddp_weekly_arrests_dedup_2011_2025_sunday_weeks.csv",
    "gabrielkut-monthly-natl-tx-austin": "monthly_arrests_national_texas_austin_oct2022_jul2026.csv",
    "alyssc-mn-daily-states": "*.csv",
    "ddp-paper-weekly-jul2025": "ddp_weekly_enforcement_sep2023_jul2025.csv",
    "ddp-site-weekly-mar2025": "ddp_weekly_arrests_nov2023_feb2025.csv",
    "uwchr-sea-month": "sea_crim_state_month.csv",
    "crosssection-totals": "*.csv",
}

SOURCE = Source(
    id=ID,
    title="Published aggregates of DDP's record-level ICE arrests (digitised charts, chart data, analysts' counts)",
    publisher="Deportation Data Project and analysts using its data (KUT News, UW Center for Human Rights, others)",
    landing_page="https://deportationdata.org/data/ice.html",
    licence="DDP data and report CC0 1.0; analysts' repositories state no licence (figures used as facts)",
    cadence="fixed files; replaced by the record-level source once it is downloaded",
    cadence_days=3650,
    release_dated="none",
    release_rule="no release date: aggregates published once or digitised from charts",
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.csv",) + tuple(f"ddp-arrests-aggregates/{d}/{f}" for d, f in _FOLDERS.items()),
    attribution=ATTRIBUTION,
    extra={"file_kind": "csv"},
)
