"""TRAC (Syracuse University) detention tables.

Publisher: Transactional Records Access Clearinghouse, which re-keys every ICE detention-statistics release
into JSON tables on its quick-facts pages. Landing page: https://tracreports.org/immigration/quickfacts/
Cadence: follows ICE's roughly biweekly releases, with gaps when ICE stops publishing.
Terms: TRAC asks to be credited wherever its figures are used; the page shows "Source: TRAC" beside them.

Quirks, and what this module does about each:
- ``pop_agen_table.json`` holds the whole history on every fetch (newest first), so a new download replaces
  the old one (update replaces the rows of a file by those of a new file of the same name). Dates are
  MM/DD/YYYY and are TRAC's own snapshot dates, which differ by
  days from ICE's data-pull dates (TRAC 09/21/2025 = ICE file of 09/24/2025, pulled 09/15/2025). They are kept
  as TRAC gives them.
- ``book_in_agen_program_table.json``: ``period_date`` is DDMONYY (``01JUN26``); months not yet reached have
  ``ice: null`` and ``total: 0`` -> missing, never zero; there is no Sep-2024 row at all (a real gap, kept as a
  gap); ``f_latest_period = 1`` marks the latest complete month, so later months are partial.
- ``facilities.json`` and ``atd_pop_table.json`` carry numbers as padded strings with thousands separators
  ("               1,878").
The parser recognises which table it was given from the record keys, not from the file name.
"""
from __future__ import annotations

import datetime as dt
import json
import re

import pandas as pd

from . import parsing, tidy
from .base import FISCAL_YTD, Parsed, Series, Source
from .errors import ParseError

ID = "trac_detention"
BASE = "https://tracreports.org/immigration/detentionstats/"
ATTRIBUTION = "Source: TRAC, Syracuse University (tracreports.org), from ICE detention statistics"

CRIM = {"conv": "Convicted criminal", "pend": "Pending criminal charges", "other": "Other immigration violator"}
_TRAC_DEF = (" TRAC re-keys ICE's detention-statistics releases; the date is TRAC's snapshot date, which in most "
             "releases is the day of ICE's own headcount snapshot (the workbook's National Docket date), not the "
             "release date.")

SERIES = (
    Series(f"{ID}.detained_total", "People in ICE detention, all arresting agencies (TRAC)", "detained", "ICE+CBP",
           "people", "biweekly",
           "Headcount of people held in ICE detention on the snapshot date, whoever arrested them (ICE or CBP)." + _TRAC_DEF,
           ID, measure="level"),
    Series(f"{ID}.detained_ice", "People in ICE detention arrested by ICE (TRAC)", "detained", "ICE", "people",
           "biweekly", "Headcount in ICE detention of people whose arresting agency was ICE (interior arrests)." + _TRAC_DEF,
           ID, measure="level"),
    Series(f"{ID}.detained_cbp", "People in ICE detention arrested by CBP (TRAC)", "detained", "CBP", "people",
           "biweekly", "Headcount in ICE detention of people arrested by CBP (mostly at or near the border) and handed "
           "to ICE. These are not ICE arrests." + _TRAC_DEF, ID, measure="level"),
    Series(f"{ID}.detained_total_by_criminality", "People in ICE detention by criminality (TRAC)", "detained",
           "ICE+CBP", "people", "biweekly",
           "Headcount in ICE detention split by ICE's criminality label: convicted, pending charges, or other "
           "immigration violator (no conviction or charge)." + _TRAC_DEF, ID, breakdown="criminality", measure="level"),
    Series(f"{ID}.detained_ice_by_criminality", "ICE-arrested people in detention by criminality (TRAC)", "detained",
           "ICE", "people", "biweekly", "As above, for people ICE arrested." + _TRAC_DEF, ID, breakdown="criminality",
           measure="level"),
    Series(f"{ID}.detained_cbp_by_criminality", "CBP-arrested people in detention by criminality (TRAC)", "detained",
           "CBP", "people", "biweekly", "As above, for people CBP arrested." + _TRAC_DEF, ID, breakdown="criminality",
           measure="level"),
    Series(f"{ID}.book_ins_ice", "Initial book-ins into ICE detention after an ICE arrest, monthly (TRAC)",
           "book-ins", "ICE", "book-ins", "monthly",
           "People booked into ICE detention for the first time in the month, where ICE made the arrest. A proxy for "
           "ICE arrests, not a count of them: arrests that end without detention are missing, and custody pick-ups "
           "from jails are included." + _TRAC_DEF, ID, measure="flow"),
    Series(f"{ID}.book_ins_cbp", "Initial book-ins into ICE detention after a CBP arrest, monthly (TRAC)", "book-ins",
           "CBP", "book-ins", "monthly",
           "People booked into ICE detention for the first time in the month after an arrest by CBP. Not ICE arrests."
           + _TRAC_DEF, ID, measure="flow"),
    Series(f"{ID}.book_ins_total", "Initial book-ins into ICE detention, all arresting agencies, monthly (TRAC)",
           "book-ins", "ICE+CBP", "book-ins", "monthly",
           "All initial book-ins into ICE detention in the month, ICE and CBP arrests together." + _TRAC_DEF, ID,
           measure="flow"),
    Series(f"{ID}.facility_adp", "Average daily population by detention facility, fiscal year to date (TRAC)",
           "facility-adp", "ICE+CBP", "people", "biweekly",
           "Fiscal-year-to-date average daily population of each facility, as of the TRAC snapshot date." + _TRAC_DEF,
           ID, breakdown="facility", measure="level", period=FISCAL_YTD),
    Series(f"{ID}.atd_total", "People in Alternatives to Detention (TRAC)", "atd", "ICE", "people", "biweekly",
           "People enrolled in ICE's Alternatives to Detention monitoring programme on the snapshot date (not in "
           "detention)." + _TRAC_DEF, ID, measure="level"),
    Series(f"{ID}.atd_by_aor", "People in Alternatives to Detention by field office (TRAC)", "atd", "ICE", "people",
           "biweekly", "ATD enrolment by ICE field office (area of responsibility)." + _TRAC_DEF, ID, breakdown="aor",
           measure="level"),
)


def _dmy(v, *, name: str, i: int) -> dt.date:
    m = re.fullmatch(r"(\d{2})([A-Za-z]{3})(\d{2})", str(v).strip())
    try:
        if not m:
            raise ValueError
        return dt.datetime.strptime(f"{m[1]}{m[2].title()}{m[3]}", "%d%b%y").date()
    except ValueError:
        raise ParseError(f"record {i + 1} field 'period_date': {v!r} is not a DDMONYY date", source=ID, file=name) from None


def _records(content: bytes, name: str) -> list[dict]:
    try:
        data = json.loads(content.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ParseError(f"not valid JSON ({e})", source=ID, file=name) from None
    if not isinstance(data, list) or not data:
        raise ParseError("expected a non-empty JSON list of records", source=ID, file=name)
    for i, r in enumerate(data):
        if not isinstance(r, dict):
            raise ParseError(f"record {i + 1} is not an object", source=ID, file=name)
    return data


def _need(r: dict, fields, *, name: str, i: int):
    miss = [f for f in fields if f not in r]
    if miss:
        raise ParseError(f"record {i + 1} lacks field(s) {miss}", source=ID, file=name)


def parse(content: bytes, name: str = "") -> pd.DataFrame:
    recs = _records(content, name)
    keys = set(recs[0])
    if "total_all" in keys:
        rows = _parse_population(recs, name)
    elif "period_date" in keys:
        rows = _parse_book_ins(recs, name)
    elif "type_detailed" in keys:
        rows = _parse_facilities(recs, name)
        df = tidy.frame(rows)
        df["file"] = name
        # City, state and type are attributes, not figures: kept as a reference table for the Places view.
        return Parsed(df, {"facilities": _facility_table(recs)})
    elif "atd_technology" in keys:
        rows = _parse_atd(recs, name)
    else:
        raise ParseError(f"unrecognised TRAC table (fields {sorted(keys)[:8]})", source=ID, file=name)
    df = tidy.frame(rows)
    df["file"] = name
    return df


def _parse_population(recs, name):
    rows = []
    for i, r in enumerate(recs):
        _need(r, ["date", "ice_all", "cbp_all", "total_all"], name=name, i=i)
        d = parsing.mdy(r["date"], source=ID, file=name, row=f"record {i + 1}", field="date")
        for agency, sid in (("total", "detained_total"), ("ice", "detained_ice"), ("cbp", "detained_cbp")):
            v = parsing.number(r[f"{agency}_all"], source=ID, file=name, row=f"record {i + 1}", field=f"{agency}_all")
            if v is not None:
                rows.append({"series": f"{ID}.{sid}", "date": d, "value": v, "release": d})
            for code, label in CRIM.items():
                f = f"{agency}_{code}"
                v = parsing.number(r.get(f), source=ID, file=name, row=f"record {i + 1}", field=f)
                if v is not None:
                    rows.append({"series": f"{ID}.{sid}_by_criminality", "key": label, "date": d, "value": v, "release": d})
    return rows


def _parse_book_ins(recs, name):
    rows = []
    for i, r in enumerate(recs):
        _need(r, ["period_date", "ice", "cbp", "total", "download_date"], name=name, i=i)
        start = _dmy(r["period_date"], name=name, i=i)
        release = parsing.mdy(r["download_date"], source=ID, file=name, row=f"record {i + 1}", field="download_date")
        end = parsing.month_end(start)
        ice = parsing.number(r["ice"], source=ID, file=name, row=f"record {i + 1}", field="ice")
        cbp = parsing.number(r["cbp"], source=ID, file=name, row=f"record {i + 1}", field="cbp")
        if ice is None and cbp is None:
            continue  # a month not reached yet: TRAC writes total 0, which is not a real zero
        total = parsing.number(r["total"], source=ID, file=name, row=f"record {i + 1}", field="total")
        # A month that ends after the release date was still running when TRAC loaded it.
        flag = "partial" if end > release else ""
        for sid, v in (("book_ins_ice", ice), ("book_ins_cbp", cbp), ("book_ins_total", total)):
            if v is not None:
                rows.append({"series": f"{ID}.{sid}", "date": start, "end": min(end, release) if flag else end,
                             "value": v, "release": release, "flag": flag})
    return rows


def _parse_facilities(recs, name):
    rows = []
    for i, r in enumerate(recs):
        _need(r, ["name", "count", "download_date"], name=name, i=i)
        if str(r["name"]).strip().lower() == "total":
            continue
        d = parsing.mdy(r["download_date"], source=ID, file=name, row=f"record {i + 1}", field="download_date")
        v = parsing.number(r["count"], source=ID, file=name, row=f"record {i + 1}", field="count")
        if v is not None:
            rows.append({"series": f"{ID}.facility_adp", "key": str(r["name"]).strip(), "date": d, "value": v, "release": d})
    return rows


def _facility_table(recs) -> pd.DataFrame:
    cols = {"name": "name", "detention_facility_city": "city", "detention_facility_state": "state",
            "detention_facility_zip": "zip", "type_detailed": "type", "download_date": "download_date"}
    rows = [{new: str(r.get(old) if r.get(old) is not None else "").strip() for old, new in cols.items()}
            for r in recs if str(r.get("name") or "").strip().lower() not in ("total", "")]
    return pd.DataFrame(rows, columns=list(cols.values()))


def _parse_atd(recs, name):
    rows = []
    for i, r in enumerate(recs):
        _need(r, ["aor", "atd_technology", "count_num", "download_date"], name=name, i=i)
        d = parsing.mdy(r["download_date"], source=ID, file=name, row=f"record {i + 1}", field="download_date")
        v = parsing.number(r["count_num"], source=ID, file=name, row=f"record {i + 1}", field="count_num")
        if v is None or r.get("family_unit", "All") != "All":
            continue
        aor, tech = str(r["aor"]).strip(), str(r["atd_technology"]).strip()
        if aor == "" and tech == "Total":
            rows.append({"series": f"{ID}.atd_total", "date": d, "value": v, "release": d})
        elif aor and tech == "All":
            rows.append({"series": f"{ID}.atd_by_aor", "key": aor, "date": d, "value": v, "release": d})
    return rows


SOURCE = Source(
    id=ID,
    title="TRAC immigration detention quick facts (JSON tables)",
    publisher="Transactional Records Access Clearinghouse (TRAC), Syracuse University",
    landing_page="https://tracreports.org/immigration/quickfacts/",
    licence="Free to use with attribution to TRAC (see tracreports.org terms)",
    cadence="about every two weeks, after each ICE release",
    cadence_days=21,
    release_dated="data date",
    release_rule="TRAC's snapshot date, mostly the day of ICE's own headcount",
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.json", "trac-detention/pop_agen_table.json", "trac-detention/book_in_agen_program_table.json",
               "trac-detention/facilities.json", "trac-detention/atd_pop_table.json"),
    download_urls=tuple(BASE + n for n in ("pop_agen_table.json", "book_in_agen_program_table.json",
                                           "facilities.json", "atd_pop_table.json")),
    allowed_hosts=("tracreports.org",),
    attribution=ATTRIBUTION,
    # The real tables are 14-110 KB; a 47 MB one took 36 s and 1.7 GB to parse. 100x headroom.
    max_bytes=10_000_000,
    max_rows=200_000,
    extra={"file_kind": "json"},
)
