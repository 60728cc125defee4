"""Deaths in ICE custody, FY2004 to January 2026: one row per death, counted here by month, fiscal year,
facility type and facility.

Compiler: E. Chin, repository ``etchin/ice-detention-mortality`` (file ``data/all_274_deaths_detailed.csv``,
commit 1db5ab71, 30 January 2026). Licence of the data files: CC BY 4.0; the credit it asks for is in
``ATTRIBUTION`` and says what this project changed. The facts come from ICE's own documents (and, for the newest
rows, from the press): which one each row comes from is its ``Period`` column.

- ``FY2003-2017``: ICE's FOIA list "List of Deaths in ICE Custody, 10/01/2003 to 06/05/2017". The list stops on
  5 June 2017 and the next source starts on 1 October 2017, so June 2017 is counted only to the 5th
  (``partial``) and July-September 2017 are not counted at all (no rows, not zeros); FY2017 is ``partial`` too.
- ``FY2018-2025``: ICE's detainee death reports (one PDF per death). Some rows with this label are dated in
  FY2026 and link a Guardian timeline instead of an ICE report: both are findings, the rows are counted.
- ``Public reporting (CY2026)``: deaths reported by the press in January 2026, not yet in an ICE report.

Quirks, and what this module does about each:
- Two January 2026 rows (and one October 2025 row) are people who died during an enforcement action (shot by
  federal agents, struck by a vehicle while fleeing agents), not in custody. A row is such a death when its cause
  says "not in custody" or its facility is printed as "ICE enforcement action (...)". They are counted in their
  own series (``enforcement_deaths_monthly``), never in the custody counts.
- Facility names and locations are free text with no-break spaces and doubled spaces: every run of white space
  becomes one space. The name is otherwise kept as printed (some carry a state code, "... CA"): it is the key of
  the by-facility series, and the Places crosswalk, not this parser, decides which facility it is.
- Ages are floats ("40.0") and one is blank: kept as whole numbers in the record table, blank when blank.
- ``Facility_Type`` uses ICE's agreement codes (IGSA, DIGSA, SPC, CDF, USMS IGA...) plus "HOSPITAL" and
  "Not stated": kept as printed, as the key of the by-type series.
- The months up to the latest death in the file are counted (a month with no death is a real zero); the month of
  the latest death and its fiscal year end on that date and are ``partial``: the list says nothing of later days.

The text of each record (date, name, age, sex, country, facility, location, type, cause as printed, link) goes to
the reference table ``records``, never into a series: names appear only where a reader opens one record.

Checks (findings naming the row, ``quality_flags.csv``): a link that is not an https URL on www.ice.gov on a row
that does not say it comes from the press (``not-ice-link``); a date outside the span of the source its Period
names (``outside-period``); a date after the day the snapshot is built (``future-date``); the same person on the
same date twice (``duplicate-record``); a facility no facility list of the snapshot knows (``unknown-facility``,
computed when the snapshot is written, with the other sources' tables at hand).

The rate per 100,000 people in detention (``deaths_per_100k_fy``) needs ICE's fiscal-year average daily
population from another source: it is derived when the snapshot is written (``finish``), for the fiscal years
ICE's workbooks cover completely; see the series' definition.
"""
from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pandas as pd

from . import parsing, tidy
from .base import Parsed, Series, Source
from .errors import ParseError

ID = "deaths_in_custody"
ATTRIBUTION = ("Source: E. Chin, ice-detention-mortality (CC BY 4.0), from ICE's list of deaths in custody and "
               "ICE's detainee death reports; changed by this project: counted by month, fiscal year, facility "
               "type and facility, deaths during enforcement actions counted apart, white space in facility "
               "names cleaned")

COLUMNS = ("Name", "Sex", "Age", "Country", "Date_of_Death", "Cause_of_Death", "Facility_Name",
           "Facility_Location", "Facility_Type", "PDF_URL", "Period")

# What each Period label stands for: the dates its source covers and whether it is the press. The FOIA list's
# dates are in its title; the death reports start with FY2018; the press rows are calendar 2026.
PERIODS = {
    "FY2003-2017": (dt.date(2003, 10, 1), dt.date(2017, 6, 5), False),
    "FY2018-2025": (dt.date(2017, 10, 1), dt.date(2025, 9, 30), False),
    "Public reporting (CY2026)": (dt.date(2026, 1, 1), dt.date(2026, 12, 31), True),
}
# The Period from whose first row the compilation runs on without a break to its latest death: ICE's detainee
# death reports, then press reports of deaths ICE has not reported yet. Its coverage starts at its first row, not
# on 1 October 2017: the compiler does not say the list holds every report from that day, its first is dated
# 10 April 2018 in the copy held, and ICE itself gave 9 deaths in custody for FY2018 (``ICE_FY_TOTALS``) where the
# list has 6. The FOIA list covers the span its title gives. Between the two, nothing is counted, not even zeros
# (``coverage``); a month or fiscal year the coverage starts or stops inside is ``partial-coverage``.
CONTINUOUS_FROM = "FY2018-2025"
# ICE's own totals of deaths in custody by fiscal year, where one is sourced: {fiscal year: (deaths, where ICE
# said it, the day, the page it was read on)}. A year missing here has no total sourced in this project (not a
# total of zero); the ``fy_totals`` table says so for each year the list counts.
ICE_FY_TOTALS = {
    # ICE's statement printed by WTVM: "a total of 9 detainee deaths ... for all of Fiscal Year 2018".
    2018: (9, "WTVM News Leader 9 (Columbus, Georgia)", dt.date(2019, 7, 26),
           "https://www.wtvm.com/2019/07/26/stewart-detention-center-officials-speak-death-man-ice-custody/"),
}

ADP_SERIES = "ice_detention_stats.adp_total_fytd"
# A fiscal year's rate needs ICE's average over (nearly) the whole year: the last release of a year runs to a
# date in late September (FY2021's to the 11th). A year whose latest average ends before this day of September
# is not complete enough to stand for the year.
ADP_MIN_END = (9, 1)

_CUSTODY_DEF = (" Counted from a compilation (E. Chin, ice-detention-mortality) of ICE's FOIA list of deaths in "
                "custody (1 October 2003 to 5 June 2017), ICE's detainee death reports (in the copy held, from "
                "10 April 2018, not from the start of FY2018) and, for deaths not yet in an ICE report, press "
                "reporting (late 2025 and January 2026). 6 June 2017 to 9 April 2018 is covered by neither and "
                "is not counted: FY2017, FY2018 and the months where a source starts or stops are marked as covered "
                "only in part, and ICE's own FY2018 total (9 deaths) is higher than the list's. Deaths of people shot or "
                "hurt during enforcement actions, outside custody, are left out (see the enforcement series). "
                "The list ends in January 2026; the last month is counted only to its latest death.")

SERIES = (
    Series(f"{ID}.deaths_monthly", "Deaths in ICE custody, monthly", "deaths", "ICE", "deaths", "monthly",
           "Deaths of people held in ICE custody in the calendar month, by date of death." + _CUSTODY_DEF,
           ID, measure="flow"),
    Series(f"{ID}.deaths_fy", "Deaths in ICE custody, by fiscal year", "deaths", "ICE", "deaths", "annual",
           "Deaths of people held in ICE custody in the fiscal year (1 October to 30 September), by date of "
           "death: the way ICE counts them. FY2017 runs only to 5 June 2017, FY2018 only from 10 April 2018 and "
           "FY2026 only to the latest death in the list." + _CUSTODY_DEF, ID, measure="flow"),
    Series(f"{ID}.deaths_fy_by_facility_type", "Deaths in ICE custody by facility type, by fiscal year",
           "deaths", "ICE", "deaths", "annual",
           "Deaths in ICE custody in the fiscal year by the type of place where they happened, as the list "
           "prints it: ICE's agreement codes (IGSA, DIGSA, SPC, CDF, USMS IGA and others), a hospital, or "
           "'Not stated'." + _CUSTODY_DEF, ID, breakdown="facility type", measure="flow"),
    Series(f"{ID}.deaths_fy_by_facility", "Deaths in ICE custody by facility, by fiscal year", "deaths", "ICE",
           "deaths", "annual",
           "Deaths in ICE custody in the fiscal year by the facility or hospital the list names, spelled as "
           "printed (white space cleaned). The same facility may appear under more than one spelling." +
           _CUSTODY_DEF, ID, breakdown="facility", measure="flow"),
    Series(f"{ID}.enforcement_deaths_monthly", "Deaths during ICE enforcement actions (not in custody), monthly",
           "deaths", "ICE", "deaths", "monthly",
           "People who died during an immigration enforcement action, outside detention (shot by federal "
           "agents, or struck by a vehicle while fleeing them), as the compilation records them from press "
           "reporting in October 2025 and January 2026. Never part of the custody counts. The compilation "
           "looked for such deaths only in those months: a month without a row is not a count of zero.",
           ID, measure="flow"),
    Series(f"{ID}.deaths_per_100k_fy", "Deaths in ICE custody per 100,000 people in detention, by fiscal year",
           "deaths", "ICE", "deaths per 100,000 people in detention", "annual",
           "Deaths in ICE custody in the fiscal year (this source's yearly count) divided by ICE's average daily "
           "population in detention over that fiscal year (the 'FY Overall' figure of the year's last ICE "
           "detention-statistics workbook, series ice_detention_stats.adp_total_fytd, all arresting agencies), "
           "times 100,000. Only for fiscal years 2019 to 2025, whose workbooks this snapshot holds to late "
           "September (FY2021's and FY2022's averages end on 11 and 24 September). No rate before FY2019: no "
           "published average daily population for those years is held here. None for FY2026: both the count "
           "and the average cover only part of the year. Derived when the snapshot is written, from the two "
           "sources named.", ID, measure="level"),
)
DERIVED = (f"{ID}.deaths_per_100k_fy",)
FINISH_FLAGS = ("unknown-facility",)


def _fail(msg: str, name: str) -> ParseError:
    return ParseError(msg, source=ID, file=name)


def clean(text: str) -> str:
    """Every run of white space (no-break spaces included) as one space, ends trimmed."""
    return re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()


def fiscal_year(d: dt.date) -> int:
    return d.year + 1 if d.month >= 10 else d.year


def is_enforcement(cause: str, facility: str) -> bool:
    """A death during an enforcement action, outside custody (see the module notes)."""
    return "not in custody" in cause.lower() or facility.lower().startswith("ice enforcement action")


def read_records(content: bytes, name: str) -> list[dict]:
    """The file's rows, checked and cleaned; a bad one is a ``ParseError`` naming its line and field."""
    out = []
    for n, raw in parsing.csv_rows(content, COLUMNS, source=ID, file=name):
        rec = {h: clean(v) for h, v in raw.items()}
        where: dict[str, Any] = dict(source=ID, file=name, row=f"row {n}")
        try:
            d = dt.date.fromisoformat(rec["Date_of_Death"])
        except ValueError:
            raise _fail(f"row {n} field 'Date_of_Death': {rec['Date_of_Death']!r} is not a YYYY-MM-DD date",
                        name) from None
        parsing.plausible(d, rec["Date_of_Death"], source=ID, file=name, row=n, field="Date_of_Death")
        if rec["Period"] not in PERIODS:
            raise _fail(f"row {n} field 'Period': {rec['Period']!r} is not one of {sorted(PERIODS)}", name)
        if not rec["Facility_Name"]:
            raise _fail(f"row {n} field 'Facility_Name': empty", name)
        age = parsing.number(rec["Age"], field="Age", **where) if rec["Age"] else None
        if age is not None and not (0 <= age < 120 and age == int(age)):
            raise _fail(f"row {n} field 'Age': {rec['Age']!r} is not an age in whole years", name)
        out.append({
            "row": n, "date": d, "name": rec["Name"], "age": "" if age is None else str(int(age)),
            "sex": rec["Sex"], "country": rec["Country"], "facility": rec["Facility_Name"],
            "location": rec["Facility_Location"], "facility_type": rec["Facility_Type"] or "Not stated",
            "cause": rec["Cause_of_Death"], "link": rec["PDF_URL"], "period": rec["Period"],
            "enforcement": is_enforcement(rec["Cause_of_Death"], rec["Facility_Name"]),
        })
    if not out:
        raise _fail("no data rows", name)
    return out


def _months(first: dt.date, last: dt.date):
    m = first.replace(day=1)
    while m <= last:
        yield m
        m = (m + dt.timedelta(days=32)).replace(day=1)


def coverage(dated_periods, through: dt.date) -> list[tuple[dt.date, dt.date]]:
    """The spans of days the list covers, from its rows' (date, Period) pairs: the FOIA list's declared span,
    then from the first row of ``CONTINUOUS_FROM`` to ``through`` (the latest death)."""
    firsts: dict[str, dt.date] = {}
    for d, period in dated_periods:
        firsts[period] = min(d, firsts.get(period, d))
    spans = [(start, min(end, through)) for label, (start, end, press) in PERIODS.items()
             if not press and label != CONTINUOUS_FROM and start <= through]
    if CONTINUOUS_FROM in firsts:
        spans.append((firsts[CONTINUOUS_FROM], through))
    return sorted(spans)


def gaps(spans: list[tuple[dt.date, dt.date]]) -> list[tuple[dt.date, dt.date]]:
    """The days between the spans ``coverage`` gives: no source of the list covers them."""
    return [(a[1] + dt.timedelta(days=1), b[0] - dt.timedelta(days=1)) for a, b in zip(spans, spans[1:])
            if b[0] > a[1] + dt.timedelta(days=1)]


def _span(start: dt.date, end: dt.date, through: dt.date) -> tuple[dt.date, str]:
    """The last day a period is counted to, and its flag: a period still running at the list's latest death
    is cut there (``partial``); where a source stops inside one is ``coverage``'s to say."""
    if end > through:
        return through, "partial"
    return end, ""


def counts(records: list[dict], name: str) -> pd.DataFrame:
    """The tidy rows: custody deaths by month, fiscal year, type and facility; enforcement deaths by month."""
    custody = [r for r in records if not r["enforcement"]]
    dates = [r["date"] for r in records]
    first, through = min(dates), max(dates)
    counted = (_custody_by_month(custody, first, through) + _custody_by_fiscal_year(custody, first, through)
               + _enforcement_by_month(records))
    rows = []
    for sid, start, end, value, key in counted:
        last, flag = _span(start, end, through)
        rows.append({"series": f"{ID}.{sid}", "key": key, "date": start.isoformat(), "end": last.isoformat(),
                     "value": float(value), "flag": flag, "file": name})
    return tidy.mark_coverage(tidy.frame(rows), coverage(((r["date"], r["period"]) for r in records), through))


# One count: (series id without the source, period start, period end, deaths, key)
_Count = tuple[str, dt.date, dt.date, int, str]


def _custody_by_month(custody: list[dict], first: dt.date, through: dt.date) -> list[_Count]:
    """Deaths in custody in every month from the list's first death to its latest (0 in a month with none)."""
    by_month: dict[dt.date, int] = {}
    for r in custody:
        m = r["date"].replace(day=1)
        by_month[m] = by_month.get(m, 0) + 1
    return [("deaths_monthly", m, parsing.month_end(m), by_month.get(m, 0), "") for m in _months(first, through)]


def _custody_by_fiscal_year(custody: list[dict], first: dt.date, through: dt.date) -> list[_Count]:
    """Deaths in custody in every fiscal year (0 in a year with none), then by facility type and by facility."""
    by_fy: dict[int, int] = {}
    by_type: dict[tuple[int, str], int] = {}
    by_fac: dict[tuple[int, str], int] = {}
    for r in custody:
        fy = fiscal_year(r["date"])
        by_fy[fy] = by_fy.get(fy, 0) + 1
        by_type[fy, r["facility_type"]] = by_type.get((fy, r["facility_type"]), 0) + 1
        by_fac[fy, r["facility"]] = by_fac.get((fy, r["facility"]), 0) + 1
    out: list[_Count] = [("deaths_fy", dt.date(fy - 1, 10, 1), dt.date(fy, 9, 30), by_fy.get(fy, 0), "")
                         for fy in range(fiscal_year(first), fiscal_year(through) + 1)]
    out += [("deaths_fy_by_facility_type", dt.date(fy - 1, 10, 1), dt.date(fy, 9, 30), v, k)
            for (fy, k), v in sorted(by_type.items())]
    out += [("deaths_fy_by_facility", dt.date(fy - 1, 10, 1), dt.date(fy, 9, 30), v, k)
            for (fy, k), v in sorted(by_fac.items())]
    return out


def _enforcement_by_month(records: list[dict]) -> list[_Count]:
    """Deaths during enforcement, in the months that have any."""
    enf: dict[dt.date, int] = {}
    for r in records:
        if r["enforcement"]:
            m = r["date"].replace(day=1)
            enf[m] = enf.get(m, 0) + 1
    return [("enforcement_deaths_monthly", m, parsing.month_end(m), v, "") for m, v in sorted(enf.items())]


def fy_totals(records: list[dict]) -> pd.DataFrame:
    """Each fiscal year the list counts, its count of deaths in custody beside ICE's own total where one is
    sourced (``ICE_FY_TOTALS``), and whether the list covers the whole year: the table a reader checks the
    list's yearly counts against."""
    custody = [r for r in records if not r["enforcement"]]
    through = max(r["date"] for r in records)
    spans = coverage(((r["date"], r["period"]) for r in records), through)
    rows = []
    for fy in range(fiscal_year(min(r["date"] for r in records)), fiscal_year(through) + 1):
        a, b = dt.date(fy - 1, 10, 1), dt.date(fy, 9, 30)
        covered = [(max(a, lo), min(b, hi)) for lo, hi in spans if lo <= b and hi >= a]
        ice = ICE_FY_TOTALS.get(fy)
        rows.append({"fiscal_year": str(fy), "list_deaths": str(sum(fiscal_year(r["date"]) == fy for r in custody)),
                     "list_covers_from": covered[0][0].isoformat() if covered else "",
                     "list_covers_to": covered[-1][1].isoformat() if covered else "",
                     "whole_year": "yes" if any(lo <= a and b <= hi for lo, hi in spans) else "no",
                     "ice_total": str(ice[0]) if ice else "", "ice_total_outlet": ice[1] if ice else "",
                     "ice_total_date": ice[2].isoformat() if ice else "", "ice_total_url": ice[3] if ice else ""})
    return pd.DataFrame(rows, columns=FY_TOTAL_COLUMNS)


FY_TOTAL_COLUMNS = ["fiscal_year", "list_deaths", "list_covers_from", "list_covers_to", "whole_year", "ice_total",
                    "ice_total_outlet", "ice_total_date", "ice_total_url"]


RECORD_COLUMNS = ["row", "date", "fiscal_year", "custody", "name", "age", "sex", "country", "facility", "location",
                  "facility_type", "cause", "link", "link_kind", "period", "file"]


def _link_kind(r: dict) -> str:
    if re.fullmatch(r"https://www\.ice\.gov/\S+", r["link"]):
        return "ICE"
    return "press" if PERIODS[r["period"]][2] else "other"


def record_table(records: list[dict], name: str) -> pd.DataFrame:
    rows = [{"row": str(r["row"]), "date": r["date"].isoformat(), "fiscal_year": str(fiscal_year(r["date"])),
             "custody": "enforcement action" if r["enforcement"] else "in custody", "name": r["name"],
             "age": r["age"], "sex": r["sex"], "country": r["country"], "facility": r["facility"],
             "location": r["location"], "facility_type": r["facility_type"], "cause": r["cause"], "link": r["link"],
             "link_kind": _link_kind(r), "period": r["period"], "file": name} for r in records]
    return pd.DataFrame(rows, columns=RECORD_COLUMNS)


def parse(content: bytes, name: str = "") -> Parsed:
    records = read_records(content, name)
    spans = coverage(((r["date"], r["period"]) for r in records), max(r["date"] for r in records))
    return Parsed(counts(records, name), {"records": record_table(records, name), "fy_totals": fy_totals(records),
                                          tidy.COVERAGE_TABLE: tidy.coverage_table(spans)})


# ---------------------------------------------------------------- checks

def _finding(rec, flag: str, message: str) -> dict:
    """A finding about one record: it marks the custody count of that record's month (or the enforcement
    series' month), and names the row by line, date and facility, never by the person's name."""
    series = f"{ID}.enforcement_deaths_monthly" if rec["custody"] != "in custody" else f"{ID}.deaths_monthly"
    month = rec["date"][:8] + "01"
    return {"series": series, "key": "", "date": month, "release": "", "file": rec["file"], "flag": flag,
            "message": f"{rec['file']} row {rec['row']} ({rec['date']}, {rec['facility']}): {message}"}


def record_findings(records: pd.DataFrame, today: dt.date | None = None) -> pd.DataFrame:
    """The row-level checks over the record table (see the module notes)."""
    today = today or dt.date.today()
    out = []
    seen: dict[tuple, str] = {}
    for rec in records.to_dict("records"):
        d = dt.date.fromisoformat(rec["date"])
        if rec["link_kind"] == "other":
            out.append(_finding(rec, "not-ice-link",
                                f"report link {rec['link']!r} is not an https URL on www.ice.gov, and the row's "
                                f"Period ({rec['period']}) does not say it comes from press reporting"))
        start, end, _ = PERIODS[rec["period"]]
        if not start <= d <= end:
            out.append(_finding(rec, "outside-period",
                                f"dated {rec['date']} (FY{fiscal_year(d)}), outside the span its Period "
                                f"{rec['period']!r} stands for ({start.isoformat()} to {end.isoformat()})"))
        if d > today:
            out.append(_finding(rec, "future-date", f"dated {rec['date']}, after the day this snapshot was built "
                                                    f"({today.isoformat()})"))
        who = (rec["file"], rec["name"].casefold(), rec["date"])
        if rec["name"] and who in seen:
            out.append(_finding(rec, "duplicate-record",
                                f"the same person and date as row {seen[who]} of the same file"))
        seen.setdefault(who, rec["row"])
    return pd.DataFrame(out, columns=["series", "key", "date", "release", "file", "flag", "message"])


# Words the facility lists abbreviate (ICE's workbooks print "ADAMS COUNTY DET CENTER"): written out on both
# sides before names are compared.
_WORDS = {"DET": "DETENTION", "CTR": "CENTER", "CNTR": "CENTER", "CORR": "CORRECTIONAL", "FAC": "FACILITY",
          "CO": "COUNTY", "PROC": "PROCESSING", "CORRECTIONS": "CORRECTIONAL", "JAIL": "JAIL", "ST": "SAINT",
          "STE": "SAINTE", "REG": "REGIONAL", "FED": "FEDERAL", "SPC": "SERVICE PROCESSING CENTER",
          "CDF": "CONTRACT DETENTION FACILITY", "IPC": "ICE PROCESSING CENTER"}
_STATES = {"AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY",
           "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH",
           "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "PR", "GU", "VI"}


def facility_match_key(text: str) -> str:
    """A facility name reduced for comparison across lists: upper case, bracketed parts and a trailing state
    code dropped, punctuation removed, the lists' abbreviations written out."""
    t = re.sub(r"\([^)]*\)", " ", str(text).upper())
    words = re.sub(r"[^A-Z0-9 ]+", " ", t).split()
    if len(words) > 1 and words[-1] in _STATES:
        words = words[:-1]
    return " ".join(_WORDS.get(w, w) for w in words)


# The facility lists of the other sources, (source, table, column with the name).
FACILITY_LISTS = (("facility_registry", "facilities", "name"), ("facility_registry", "ice_sheet", "name"),
                  ("ice_detention_stats", "facilities", "name"), ("trac_detention", "facilities", "name"),
                  ("ddp_facility_daily", "facilities", "name"))


def facility_findings(records: pd.DataFrame, table_of) -> pd.DataFrame:
    """A custody death at a facility no facility list of the snapshot names (hospitals, closed jails, places
    the lists spell otherwise): one finding per row, the lists consulted named in the message."""
    known, used = set(), []
    for sid, tname, col in FACILITY_LISTS:
        t = table_of(sid, tname)
        if t is not None and col in t:
            known |= {facility_match_key(v) for v in t[col]}
            used.append(f"{sid}.{tname}")
    if not used:  # no list to look in: saying every facility is unknown would be wrong
        return pd.DataFrame(columns=["series", "key", "date", "release", "file", "flag", "message"])
    padded = " | ".join(sorted(known))

    def listed(name: str) -> bool:
        k = facility_match_key(name)
        # A name of two words or more also counts as known inside a longer listed name ("CAMP EAST MONTANA" in
        # "ERO EL PASO CAMP EAST MONTANA"); one word ("ELOY") would match too much.
        return k in known or (len(k.split()) > 1 and f" {k} " in f" {padded.replace('|', ' | ')} ")

    # A name no list knows says nothing about how many died: the finding marks that facility's own row (its
    # fiscal year in ``deaths_fy_by_facility``), not the month's count, which would then look doubtful on a chart.
    out = [dict(_finding(rec, "unknown-facility",
                         f"facility {rec['facility']!r} is in none of the facility lists held, by name "
                         f"({', '.join(used)})"),
                series=f"{ID}.deaths_fy_by_facility", key=rec["facility"],
                date=dt.date(fiscal_year(dt.date.fromisoformat(rec["date"])) - 1, 10, 1).isoformat())
           for rec in records.to_dict("records") if rec["custody"] == "in custody" and not listed(rec["facility"])]
    return pd.DataFrame(out, columns=["series", "key", "date", "release", "file", "flag", "message"])


def check_tables(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    recs = tables.get("records")
    if recs is None or recs.empty:
        return pd.DataFrame(columns=["series", "key", "date", "release", "file", "flag", "message"])
    return record_findings(recs)


# ---------------------------------------------------------------- derived when the snapshot is written

def fy_adp(adp: pd.DataFrame) -> dict[int, float]:
    """ICE's average daily population over each fiscal year the workbooks cover (nearly) completely: the value
    with the latest end date among the rows keyed to that year, if that date is in September."""
    out: dict[int, float] = {}
    if adp is None or adp.empty:
        return out
    for key, g in adp.groupby("key"):
        m = re.fullmatch(r"FY(\d{4})", str(key))
        if not m:
            continue
        fy = int(m[1])
        last = g.sort_values(["end", "release"], kind="mergesort").iloc[-1]
        end = dt.date.fromisoformat(str(last["end"]))
        if fiscal_year(end) == fy and (end.month, end.day) >= ADP_MIN_END and end.month == 9:
            out[fy] = float(last["value"])
    return out


def rate_rows(own: pd.DataFrame, adp: pd.DataFrame) -> pd.DataFrame:
    """Deaths per 100,000 people in detention for each whole fiscal year with both a count and an average."""
    pop = fy_adp(adp)
    # A year counted only in part (FY2017, FY2026) gets no rate: its count is not the year's.
    years = own[(own["series"] == f"{ID}.deaths_fy") & ~own["flag"].str.contains("partial")]
    rows = []
    for r in years.itertuples(index=False):
        fy = int(str(r.end)[:4])
        if fy in pop and pop[fy] > 0:
            rows.append({"series": f"{ID}.deaths_per_100k_fy", "date": r.date, "end": r.end,
                         "value": round(float(r.value) / pop[fy] * 100_000, 4), "file": r.file})
    return tidy.frame(rows)


def finish(own: pd.DataFrame, tables: dict[str, pd.DataFrame], other) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rate (ICE's population from ``ice_detention_stats``) and the facility check (the other sources'
    facility lists), from the generation being written."""
    adp = other.obs("ice_detention_stats")
    adp = adp[adp["series"] == ADP_SERIES] if adp is not None else None
    rows = rate_rows(own, adp)
    recs = tables.get("records")
    found = facility_findings(recs, other.table) if recs is not None and len(recs) else None
    return rows, found


SOURCE = Source(
    id=ID,
    title="Deaths in ICE custody, FY2004 to January 2026 (E. Chin's compilation of ICE's lists and reports)",
    publisher="E. Chin, ice-detention-mortality (compiled from U.S. Immigration and Customs Enforcement documents "
              "and press reporting)",
    landing_page="https://github.com/etchin/ice-detention-mortality",
    licence="CC BY 4.0 (data files of the repository, LICENSE-DATA); underlying facts from ICE documents",
    cadence="irregular: the compiler adds deaths as ICE posts its reports; the copy held here was taken on "
            "30 January 2026 and ends in January 2026",
    cadence_days=3650,
    release_dated="none",
    release_rule="no release date: one list, updated in place",
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.csv", "deaths-in-custody/all_*_deaths_detailed.csv"),
    attribution=ATTRIBUTION,
    max_bytes=5_000_000,
    max_rows=100_000,
    check_tables=check_tables,
    finish=finish,
    derived=DERIVED,
    finish_flags=FINISH_FLAGS,
    extra={"file_kind": "csv"},
)
