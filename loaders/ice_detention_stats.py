"""ICE detention-statistics workbooks ("Detention Management" FY spreadsheets).

Publisher: U.S. Immigration and Customs Enforcement, Enforcement and Removal Operations, under the FY2020 DHS
appropriations act (H.R. 1158 Sec. 218). Landing page: https://www.ice.gov/detain/detention-management, which
links the current fiscal year's workbook under https://www.ice.gov/doclib/detention/<name>.xlsx.
Cadence: about every two weeks during the fiscal year (paused in the Oct-Nov 2025 shutdown); an end-of-year file
follows. Terms: U.S. government work, public domain. ICE says the data "fluctuate until locked" after the year ends.

Every release is a vintage: each row carries the release date it came from, so earlier releases stay queryable and
revisions between releases can be listed. The dates, each read from the workbook, each saying what it is:
- ``release``: the date in the file name (the day ICE posted it). Undated names (``FY24_detentionStats.xlsx``,
  ``FY19-detentionstats.xlsx``: ICE reuses them for the end-of-year file) carry no date, so for them the release is
  the latest date the workbook states (the IIDS date, or a later footnote date: the earliest day the file can
  have been published). So is a file saved under a downloader's own name (``download (3).xlsx``: its fiscal
  year from the Detention sheet's titles), with a ``dated-from-contents`` finding; ``releases.csv`` marks every
  release dated this way (``dated_from_contents``). A browser's copy suffix (``... (1).xlsx``) and a Wayback
  capture-time prefix are the downloader's, never read as ICE's date.
- each table's own date, from the Footnotes sheet, where column A names the table and column B dates it:
  the detention tables (ADP, length of stay) and the book-ins table "data are updated through MM/DD/YYYY"
  (FY19-FY20: "filtered through"), the removals table its own "updated through", the currently-detained table
  "ICE National Docket data are a snapshot as of MM/DD/YYYY". Headcounts (``detained_*``) have date = end = the
  docket date; the month holding a monthly table's date is partial (flag ``partial``, ``end`` = that date), so
  per-day rates divide by the days the month really covers; FY-to-date ADP is dated at the detention tables' date,
  FY-to-date removals at the removals date (key = fiscal year as parsed; the snapshot stores them from October 1
  to that date, ``tidy.fytd_periods``). ICE's FY Overall ADP only works out if the partial month runs to the
  footnote date (``ice_checks`` recomputes it for every release). A table without a footnote takes a neighbour's
  date, else the IIDS date; ``releases.csv`` records which (``*_from``).
- the IIDS date (``data_date`` in ``releases.csv``): "Data Source: ICE Integrated Decision Support (IIDS),
  MM/DD/YYYY" (FY19-FY21: "Source: ...") at the top of the Facilities sheet. It dates the facility list only; it
  differs from the footnote dates in almost every release (2026-02-12: IIDS 02-05, tables 02-07).
- Sheets are chosen by the fiscal year they hold, by name or else by their titles (a workbook can carry another
  year's leftover sheet); a table whose title names another year is left out. See ``loaders.workbook``.

No release is refused whole for a fault in one table or row (issue 39; the 88 mid-year releases of FY2021-FY2025
in release_history each had one): the table or row is left out with a finding naming file, sheet, row and reason,
and the rest is kept. Only a workbook of which nothing can be read, or without the IIDS line, is refused.
- A file named for one fiscal year holding only another year's Detention and Facilities sheets is that year's
  release (``FY24_detentionStats11152024`` holds FY2025's: ``year-from-contents``).
- A Detention sheet of another year only (``Detention FY20 YTD`` in ``FY21_detentionStats060921``, ``Detention
  EOFY2020`` in ``...10282021``): the detention tables are left out (``table-unread``), the facility list, ATD and
  the other sheets kept. A headline table that is missing or unreadable is left out the same way.
- A date in the name that is no date of the fiscal year's release window (ICE's typos ``...07222020`` saved in July
  2021, ``FY23_detentionStats01192022`` saved in January 2023) is overruled: the release is dated as an undated
  file is, from the workbook's own dates (``name-date-overruled``; ``dated_from_contents`` in ``releases.csv``).
- Footnotes of another year (FY2020's "filtered through 06/20/2020" in four FY2021 files) date no table: those
  tables fall back to a neighbour's date or the IIDS date (``other-year-footnote``).
- A table dated after the release's own date (ATD "as of 12/02/2024" in the 2023-12-07 release, the same typo in
  three other releases of Nov-Dec 2023) is left out (``table-unread``).
- Rows: a negative figure (ATD lengths in program of -7 and -5.4 in the 2023-12-07 release), a figure that is not
  finite or not whole where the series counts, and a row printed more than once with different figures are left
  out; a row printed twice with the same figures (ATD's 'Total' in the 2022-08-09 release) is kept once; each with
  a ``row-dropped`` finding (``ice_tables.sieve``). A facility row whose Level A-D cells hold text that is not a
  number, or a negative level, is left out the same way; a blank level beside figures is a level with nobody in it
  (the 2022-07-08 release leaves Level A blank from row 54 on; its facility figures are flagged
  ``facility-mismatch``, summing to 24% of the national ADP).

The tables are declared as data in ``TABLES`` (``loaders.workbook.TableSpec``) and read by ``read_table``.

Quirks, and what this module does about each:
- File names: MMDDYYYY (``FY25_detentionStats09242025``), MMDDYY (``FY21_detentionStats060921``), YYMMDD
  (``FY23_detentionStats230316``), MMDD without a year (``FY21_detention-stats_0301``), with or without ``_``, a
  letter suffix (``03172022b``), ``detentionstats`` in any case, and Wayback copies prefixed with the capture time
  (``20250106074944-FY25_...``). Six-digit dates are read as MMDDYY unless that is not a date inside the fiscal
  year window (Oct 1 before the FY to Mar 31 after it), then as YYMMDD; the FY in the name decides.
- Sheet names drift and carry stray spaces (``Facilities EOYFY20 ``, `` ICLOS and Detainees``): sheets are found by
  pattern (``^\\s*Detention``, ``^\\s*Facilities``), tables by their title text anywhere on the sheet, columns by
  header text. Row numbers are never assumed (the ADP table moved from row 51 in FY19 to row 90 in FY25).
- Labels carry trailing spaces (``ICE  ``, ``Average ``); every label is stripped before it is compared.
- Future months are 0 (or blank, FY26) rather than empty: a month starting after the table's date is dropped as
  missing unless it holds a non-zero figure; then the header date must be stale and the rows are flagged
  ``stale-header`` (ICE's 2025-02-14 release said Jan 21 while its data ran into February).
- The Footnotes sheet says "... data are updated through MM/DD/YYYY" (usually 2-5 days after the IIDS date). When
  it is more than ``STALE_DAYS`` after the IIDS date the header date is stale and the whole file is flagged.
- FY19 splits ADP into two criminality rows (``Convicted Criminal``, ``Non-Criminal``) instead of three.
- The family removals row is "Removals with a FAMU Identifier" from FY24 on but "Removals with an FRC/FSC
  Detention" before; those are different measures and go to different series.
- Facility names repeat within a release (two ``CLINTON COUNTY JAIL``s): a repeated name gets " (CITY, ST)".
- Facility FYTD average population = the sum of the four classification-level columns (Level A-D), which
  partition each facility's ADP. The facility list leaves out facilities with nobody held at the pull and HOLD,
  hospital, hotel and similar sites, so its sum is normally 94-100% of the national FY ADP (real files:
  0.945-0.995); outside ``FACILITY_RATIO`` the release is flagged ``facility-mismatch``.
Known bad releases this module's checks catch (see ``check``): 2025-02-27 (ICE and CBP columns of the
currently-detained table swapped; TRAC 2025-02-28), 2025-02-14 (stale header date), 2025-07-17 (facility ADPs
summing to 42,221 against a national figure of 45,562 ADP / 56,816 detained).
"""
from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from dataclasses import dataclass, field
from html.parser import HTMLParser
from urllib.parse import urljoin, urlparse

from . import ice_checks, ice_tables, parsing
from .base import FISCAL_YTD, Parsed, Series, Source, table_frame
from .errors import FetchError, ParseError
from .fetch import read_page
from .ice_checks import FACILITY_RATIO, SWAP_TOLERANCE  # noqa: F401 (re-exported)
from .tidy import frame_from_columns, value_rules
from .workbook import (
    MONTHS,
    Sheet,
    TableRead,
    TableSpec,
    choose_sheet,
    column_letter,
    content_fiscal_year,
    data_sheets,
    fiscal_year_of,
    label,
    month_cells,
    norm,
    open_workbook,
    read_sheet,
    read_table,
    sections,
    unplaced_columns,
)

ID = "ice_detention_stats"
LANDING = "https://www.ice.gov/detain/detention-management"
ATTRIBUTION = "Source: U.S. Immigration and Customs Enforcement, detention statistics (ice.gov/detain/detention-management)"
STALE_DAYS = 10
AGENCIES = {"ice": "ICE", "cbp": "CBP", "total": "ICE+CBP"}
CRIMINALITY = {
    "convicted criminal": "Convicted criminal",
    "pending criminal charges": "Pending criminal charges",
    "other immigration violator": "Other immigration violator",
    "non-criminal": "Non-criminal",
}

_DATES = (" Release = the date in the file name (or the IIDS date for undated end-of-year files). Each table is "
          "dated by its own footnote in the workbook: book-ins and detention tables 'data are updated through', "
          "the headcount ICE's National Docket 'snapshot as of', removals their own 'updated through' date.")
_WHO = {"ice": "arrested by ICE (mostly interior arrests)",
        "cbp": "arrested by CBP (mostly at or near the border) and handed to ICE; not ICE arrests",
        "total": "whoever arrested them (ICE or CBP)"}
_WHO_SHORT = {"ice": "ICE-arrested", "cbp": "CBP-arrested", "total": "all"}


def _series() -> tuple[Series, ...]:
    out = []
    for a, agency in AGENCIES.items():
        out += [
            Series(f"{ID}.detained_{a}", f"People in ICE detention, {_WHO_SHORT[a]} (ICE release)", "detained", agency,
                   "people", "biweekly",
                   f"Headcount of people held in ICE detention on the docket snapshot date, {_WHO[a]}. A one-day count, not an "
                   "average." + _DATES, ID, measure="level", bounds="count"),
            Series(f"{ID}.detained_{a}_by_criminality", f"People in ICE detention by criminality, {_WHO_SHORT[a]} "
                   "(ICE release)", "detained", agency, "people", "biweekly",
                   f"Headcount in ICE detention on the docket snapshot date, {_WHO[a]}, split by ICE's criminality label: "
                   "convicted, pending criminal charges, or other immigration violator (neither)." + _DATES, ID,
                   breakdown="criminality", measure="level", bounds="count"),
            Series(f"{ID}.book_ins_{a}", f"Initial book-ins into ICE detention, {_WHO_SHORT[a]}, monthly (ICE release)",
                   "book-ins", agency, "book-ins", "monthly",
                   f"People booked into ICE detention for the first time in the month, {_WHO[a]}. A book-in is not an "
                   "arrest: arrests that end without detention are missing and transfers from jails are included. "
                   "The month holding the table's data-through date is partial and covers only the days to it." + _DATES,
                   ID, measure="flow",
                   bounds="count"),
            Series(f"{ID}.adp_{a}", f"Average daily population in ICE detention, {_WHO_SHORT[a]}, monthly (ICE release)",
                   "adp", agency, "people", "monthly",
                   f"Average number of people in ICE detention at the midnight count over the month's days, {_WHO[a]}. "
                   "An average, not a headcount on any one day." + _DATES, ID, measure="level"),
            Series(f"{ID}.adp_{a}_by_criminality", f"Average daily population in ICE detention by criminality, "
                   f"{_WHO_SHORT[a]}, monthly (ICE release)", "adp", agency, "people", "monthly",
                   f"Monthly average daily population, {_WHO[a]}, by ICE's criminality label (FY2019: convicted / "
                   "non-criminal only)." + _DATES, ID, breakdown="criminality", measure="level"),
            Series(f"{ID}.adp_{a}_fytd", f"Average daily population in ICE detention, {_WHO_SHORT[a]}, fiscal year to "
                   "date (ICE release)", "adp", agency, "people", "release",
                   f"Average daily population from October 1 to the detention tables' data-through date ('FY Overall'), "
                   f"{_WHO[a]}. One figure per release, to that date (the chart puts it there, one line per fiscal year)."
                   + _DATES,
                   ID, breakdown="fiscal year", measure="level", period=FISCAL_YTD),
            Series(f"{ID}.alos_{a}", f"Average length of stay in ICE detention, {_WHO_SHORT[a]}, monthly (ICE release)",
                   "alos", agency, "days", "monthly",
                   f"ICE's average length of stay in days for detention stays of people {_WHO[a]}, by month of release "
                   "from custody as ICE computes it. Not the time today's detainees have been held." + _DATES,
                   ID, measure="level"),
            Series(f"{ID}.alos_{a}_by_criminality", f"Average length of stay by criminality, {_WHO_SHORT[a]}, monthly "
                   "(ICE release)", "alos", agency, "days", "monthly",
                   f"As the average length of stay, {_WHO[a]}, by ICE's criminality label." + _DATES, ID,
                   breakdown="criminality", measure="level"),
        ]
    out += [
        Series(f"{ID}.removals_fytd", "ICE removals, fiscal year to date (ICE release)", "removals", "ICE", "removals",
               "release",
               "Removals carried out by ICE counted cumulatively since October 1 of the fiscal year up to the removals "
               "table's data-through date. "
               "ICE's figure includes returns and expulsions of people turned over to ICE. One figure per release, to "
               "that date (the chart puts it there, one line per fiscal year); it only grows within a year." + _DATES,
               ID, breakdown="fiscal year", measure="level", period=FISCAL_YTD,
               bounds="count"),
        Series(f"{ID}.removals_famu_fytd", "ICE removals of family-unit members, fiscal year to date (ICE release)",
               "removals", "ICE", "removals", "release",
               "Removals since October 1 of people carrying ICE's family-unit (FAMU) identifier, cumulative to the "
               "removals table's data-through date. Printed from FY2024; not the same measure as removals after "
               "family-centre detention." + _DATES,
               ID, breakdown="fiscal year", measure="level", period=FISCAL_YTD, bounds="count", part_of=f"{ID}.removals_fytd"),
        Series(f"{ID}.removals_family_detention_fytd", "ICE removals after family-centre detention, fiscal year to "
               "date (ICE release)", "removals", "ICE", "removals", "release",
               "Removals since October 1 of people held in a family residential or staging centre (FRC/FSC), "
               "cumulative to the removals table's data-through date. Printed up to FY2023; later releases print FAMU "
               "removals instead." + _DATES,
               ID, breakdown="fiscal year", measure="level", period=FISCAL_YTD, bounds="count", part_of=f"{ID}.removals_fytd"),
        Series(f"{ID}.facility_adp_fytd", "Average daily population by detention facility, fiscal year to date "
               "(ICE release)", "facility-adp", "ICE+CBP", "people", "release",
               "Each listed facility's average daily population from October 1 to the IIDS date of the Facilities "
               "sheet (the sum of its "
               "classification-level columns). Facilities with nobody held at the pull, and hold rooms, hospitals and "
               "hotels, are not listed, so the sum falls a little short of the national figure. Key = facility name; "
               "city, state, field office and type are in the facilities table." + _DATES,
               ID, breakdown="facility", measure="level", period=FISCAL_YTD),
    ]
    return tuple(out)


SERIES = _series() + ice_tables.SERIES  # the rest of the workbook's tables: declared in ice_tables
WHOLE = value_rules(SERIES)  # series id -> whole numbers only (``ice_tables.sieve`` checks each row by it)


# ---------------------------------------------------------------- discovery

class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.hrefs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            href = dict(attrs).get("href")
            if href:
                self.hrefs.append(href.strip())


def find_workbook_links(html: str, base: str = LANDING) -> list[str]:
    """The landing page's .xlsx links whose name contains 'detentionstats', as absolute https://www.ice.gov URLs."""
    p = _Links()
    p.feed(html)
    out: list[str] = []
    for h in p.hrefs:
        url = urljoin(base, h)
        u = urlparse(url)
        name = u.path.rsplit("/", 1)[-1].lower()
        if not name.endswith(".xlsx") or "detentionstats" not in name.replace("-", "").replace("_", ""):
            continue
        url = u._replace(scheme="https", netloc="www.ice.gov", fragment="").geturl()
        if url not in out:
            out.append(url)
    return out


def discover(session) -> list[str]:
    """Read the landing page (the file name changes with every release) and return the workbook link(s)."""
    links = find_workbook_links(read_page(session, LANDING, source=ID), LANDING)
    if not links:
        raise FetchError(f"the landing page {LANDING} has no .xlsx link containing 'detentionstats'; "
                         "the page layout or the file naming changed", source=ID)
    return links


# ---------------------------------------------------------------- dates

def fiscal_year_from_name(name: str) -> int | None:
    m = re.search(r"FY\s*(\d{2,4})", _strip_wayback(name), re.I)
    if not m:
        return None
    y = int(m[1])
    return y + 2000 if y < 100 else y


def _strip_wayback(name: str) -> str:
    """The file's own name: without a Wayback capture-time prefix ("20250106074944-") or a browser's copy
    suffix ("... (1).xlsx"); both are a downloader's, neither is ICE's date."""
    base = re.sub(r"^\d{14}-", "", name.rsplit("/", 1)[-1])
    return re.sub(r"\s*\(\d+\)(\.xlsx)?$", r"\1", base, flags=re.I)


def is_ice_name(name: str) -> bool:
    """Whether a file name is ICE's own naming ("FY25_detentionStats02272025.xlsx", "FY24_detentionStats.xlsx"),
    dated or not, rather than a name a downloader gave it ("download (3).xlsx")."""
    return re.search(r"detention[-_ ]?stats", _strip_wayback(name), re.I) is not None


def _in_window(d: dt.date, fy: int) -> bool:
    return dt.date(fy - 1, 10, 1) <= d <= dt.date(fy + 1, 3, 31)


_date = parsing.date_or_none


def release_date_from_name(name: str, fy: int | None = None) -> dt.date | None:
    """The release date written in a file name, or None for an undated (end-of-year) name.

    Raises ``ParseError`` when digits are present but make no date inside the fiscal year's window.
    """
    base = _strip_wayback(name)
    fy = fy or fiscal_year_from_name(base)
    stem = re.sub(r"\.xlsx$", "", base, flags=re.I)
    m = re.search(r"detention[-_ ]?stats[-_ ]?(\d{4,8})[a-z]?$", stem, re.I)
    if not m:
        return None
    s = m[1]
    cands: list[dt.date | None] = []
    if len(s) == 8:
        cands = [_date(int(s[4:]), int(s[:2]), int(s[2:4])), _date(int(s[:4]), int(s[4:6]), int(s[6:]))]
    elif len(s) == 6:  # MMDDYY first (the usual order), YYMMDD when that is no date in the FY window
        cands = [_date(2000 + int(s[4:]), int(s[:2]), int(s[2:4])), _date(2000 + int(s[:2]), int(s[2:4]), int(s[4:]))]
    elif len(s) == 4 and fy:  # MMDD: the year follows from the fiscal year (Oct-Dec belong to the year before)
        mm = int(s[:2])
        cands = [_date(fy - 1 if mm >= 10 else fy, mm, int(s[2:]))]
    for c in cands:
        if c and (fy is None or _in_window(c, fy)):
            return c
    raise ParseError(f"file name date {s!r} is no date inside fiscal year {fy}'s release window", source=ID, file=name)


month_end = parsing.month_end


# ---------------------------------------------------------------- the tables, declared as data

def _agency_of(lab: str) -> str | None:
    low = lab.lower()
    if low in ("total", "average", "total average"):
        return "total"
    if low.startswith("ice"):
        return "ice"
    if low.startswith("cbp"):
        return "cbp"
    return None


def _agency_row(lab: str):
    a = _agency_of(lab)
    return {"agency": a} if a else None


def _criminality_row(lab: str):
    if lab.lower() == "total":
        return {"key": ""}
    k = CRIMINALITY.get(lab.lower())
    return {"key": k} if k else None


def _block_row(lab: str):
    """ADP / ALOS: an agency row ('CBP Average', 'ICE Average', 'Average') then its criminality rows."""
    k = CRIMINALITY.get(lab.lower())
    if k:
        return {"key": k}
    a = _agency_of(lab)
    return {"agency": a, "key": ""} if a else None


def _removals_row(lab: str):
    low = lab.lower()
    if low == "total":
        return {"series": "removals_fytd"}
    if "famu" in low:
        return {"series": "removals_famu_fytd"}
    if re.search(r"\b(frc|fsc)\b|family", low):
        return {"series": "removals_family_detention_fytd"}
    return {}  # another removals line: not one of ours


# The fiscal-year column of the monthly tables, as ICE spells it (ADP and length of stay: 'FY Overall'; book-ins:
# 'Total'), found by its label wherever it sits right of the table's title.
OVERALL = ("FY Overall", "Total", "FY Total")
DETENTION_SHEET = r"^\s*Detention\b"
FACILITIES_SHEET = r"^\s*Facilities\b"
TABLES = (
    TableSpec("detained", r"Currently Detained by Criminality and Arresting Agency", DETENTION_SHEET,
              heading="ICE Currently Detained by Criminality and Arresting Agency",
              columns=("ICE", "CBP", "Total"), rows=_criminality_row, date="docket",
              series={"": "detained_{agency}", "key": "detained_{agency}_by_criminality"},
              notes="A headcount on the National Docket snapshot date ('snapshot as of' in the footnotes)."),
    TableSpec("book_ins", r"Initial Book-?Ins by Arresting Agency and Month", DETENTION_SHEET,
              heading="ICE Initial Book-Ins by Arresting Agency and Month",
              columns=tuple(MONTHS), rows=_agency_row, fy_column=OVERALL, date="book_ins",
              series={"": "book_ins_{agency}"},
              notes="Monthly; months after the footnote date are 0 or blank (missing, not zero)."),
    TableSpec("adp", r"Average Daily Population by Arresting Agency", DETENTION_SHEET,
              heading="ICE Average Daily Population by Arresting Agency, Month and Criminality",
              columns=tuple(MONTHS), rows=_block_row, fy_column=OVERALL, date="detention",
              series={"": "adp_{agency}", "key": "adp_{agency}_by_criminality", "overall": "adp_{agency}_fytd"},
              notes="'FY Overall' is the average over the fiscal year's days to the footnote date."),
    TableSpec("alos", r"Average Length of Stay by Arresting Agency", DETENTION_SHEET,
              heading="ICE Average Length of Stay by Arresting Agency, Month and Criminality",
              columns=tuple(MONTHS), rows=_block_row, fy_column=OVERALL, date="detention", required=False,
              series={"": "alos_{agency}", "key": "alos_{agency}_by_criminality"}),
    TableSpec("removals", r"^ICE Removals\b", DETENTION_SHEET, heading="ICE Removals", layout="pairs",
              rows=_removals_row, max_rows=5, date="removals", series={"": "{series}"},
              notes="Label rows ('Total', 'Removals with a FAMU Identifier') with the number a column or two right."),
)
TABLE = {t.name: t for t in TABLES}

# Which footnote section dates which table: (table date, regex on the section label, phrase before the date).
FOOTNOTES = (
    ("detention", r"Average Daily Population", r"(?:updated|filtered) through"),
    ("book_ins", r"Initial Book-?Ins", r"(?:updated|filtered) through"),
    ("removals", r"^(?:EO)?(?:FY\s*\d{4}\s*(?:YTD\s*)?)?ICE Removals\s*$", r"(?:updated|filtered) through"),
    ("docket", r"Currently Detained", r"snapshot as(?: of)?"),
)
# When a table has no footnote of its own: the dates to try instead, in order (the IIDS date last).
FALLBACK = {"detention": ("book_ins",), "book_ins": ("detention",), "removals": ("detention", "book_ins"),
            "docket": (), "iids": ()}


@dataclass
class ReleaseDates:
    """Every date one workbook gives, each with where it came from."""

    iids: dt.date  # the Facilities sheet's "Data Source: ICE Integrated Decision Support (IIDS), MM/DD/YYYY"
    footnotes: dict[str, dt.date] = field(default_factory=dict)  # table date -> its footnote's date

    def of(self, which: str) -> dt.date:
        for k in (which, *FALLBACK.get(which, ())):
            if k in self.footnotes:
                return self.footnotes[k]
        return self.iids

    def source_of(self, which: str) -> str:
        for k in (which, *FALLBACK.get(which, ())):
            if k in self.footnotes:
                return "footnote" if k == which else f"footnote of the {k} table"
        return "IIDS date (no footnote)"


def footnote_dates(sh: Sheet | None) -> dict[str, dt.date]:
    """Each table's own date from the Footnotes sheet: column A names the table, column B says "... data are
    updated through MM/DD/YYYY" or "... a snapshot as of MM/DD/YYYY". The first dated sentence of a table's
    section is its date (later sentences of a section describe other data: USCIS files, ICLOS)."""
    if sh is None:
        return {}
    out: dict[str, dt.date] = {}
    rules = [(k, re.compile(lab, re.I), re.compile(phrase + r"\s+(\d{1,2}/\d{1,2}/\d{4})", re.I))
             for k, lab, phrase in FOOTNOTES]
    for _row, section, text in sections(sh):
        for k, lab_rx, phrase_rx in rules:
            if k in out:
                continue
            if not lab_rx.search(section):
                continue
            m = phrase_rx.search(text)
            if m and (d := parsing.find_mdy(m[1])):
                out[k] = d
    return out


# ---------------------------------------------------------------- reading the tables

def _monthly(t: TableRead, fy: int):
    """(fields, month start or None for the FY-overall column, value) for every cell of a monthly table; in the
    ADP and ALOS blocks a criminality row belongs to the agency row above it."""
    agency, last = None, None
    for r, start, v in month_cells(t, fy, OVERALL):
        if r is not last:
            last = r
            f = dict(r.fields)
            if "agency" in f:
                agency = f["agency"]
            elif agency is None and t.spec.rows is _block_row:
                raise t.fail(f"row {r.row}: criminality row {r.label!r} before any agency row")
            f.setdefault("agency", agency)
            f.setdefault("key", "")
        yield f, start, v


def _series_id(spec: TableSpec, f, part: str = "") -> str:
    if isinstance(spec.series, str):
        raise TypeError(f"table {spec.name!r}: its series must map a part to an id template")
    return spec.series[part if part else ("key" if f.get("key") else "")].format(**f)


def _read_detained(t: TableRead):
    out = []
    for r in t.rows:
        for col, a in (("ICE", "ice"), ("CBP", "cbp"), ("Total", "total")):
            v = t.number(r, col, lenient=False)
            if v is None:
                raise t.fail(f"row {r.row} column {col!r}: blank where a count belongs")
            out.append((_series_id(t.spec, {"agency": a, **r.fields}), r.fields["key"], v))
    if not any(k == "" for _, k, _ in out):
        raise t.fail("no 'Total' row")
    return out


# A column past the table's date is a stub when each of its figures, per day it can cover (to the release
# date), is under this share of its row's rate in the month before: 7 book-ins against ~1,000 a day.
STUB_SHARE = 0.25


def _stub_columns(t: TableRead, fy: int, through: dt.date, release: dt.date) -> dict[dt.date, tuple[int, float]]:
    """Month start -> (figures, the first) of each month column past ``through`` that holds only stub figures.
    A column with real figures is left alone: that is a stale header date (``stale-header``), not a stub."""
    cells: dict[int, dict[dt.date, float]] = {}
    for r, start, v in month_cells(t, fy):
        if start is not None and v is not None:
            cells.setdefault(r.row, {})[start] = v
    last = through.replace(day=1)
    out: dict[dt.date, tuple[int, float]] = {}
    for start in sorted({m for row in cells.values() for m in row if m > through}):
        days = max(1, (min(release, month_end(start)) - start).days + 1)
        figures, stub = [], True
        for row in cells.values():
            v = row.get(start) or 0
            if not v:
                continue
            figures.append(v)
            before = row.get(last) or 0
            rate_before = before / max(1, (min(through, month_end(last)) - last).days + 1)
            stub = stub and rate_before > 0 and v / days < STUB_SHARE * rate_before
        if figures and stub:
            out[start] = (len(figures), figures[0])
    return out


def _iids_date(sh: Sheet) -> dt.date:
    """The Facilities sheet's "Data Source: ICE Integrated Decision Support (IIDS), MM/DD/YYYY" date."""
    for row in sh.rows[:15]:
        for v in row:
            if isinstance(v, str) and "IIDS" in v:
                if (d := parsing.find_mdy(v)):
                    return d
                break  # the row's first IIDS line holds no date: the next rows are looked at
    raise sh.fail("no 'Data Source: ICE Integrated Decision Support (IIDS), MM/DD/YYYY' line in its first 15 rows")


def _read_facilities(sh: Sheet, findings: list) -> tuple[dt.date, list[dict]]:
    """The IIDS date and the facility list: name, place, field office, type and FYTD ADP (sum of Levels A-D).
    A list that cannot be read is left out (``table-unread``), a facility row that cannot be read is left out
    (``row-dropped``); the release keeps the rest."""
    data_date = _iids_date(sh)
    try:
        hr, cols = _facility_header(sh)
    except ParseError as e:
        findings.append(_unread("facilities", f"sheet {sh.name!r}", e))
        return data_date, []
    la, lb, lc, ld = (cols[k] for k in ("Level A", "Level B", "Level C", "Level D"))
    c_name, c_city, c_state, c_aor, c_type = (cols[k] for k in ("Name", "City", "State", "AOR", "Type Detailed"))
    width = max(cols.values()) + 1
    blank = frozenset({"", "-"})
    num = parsing.number
    out = []
    # A few thousand rows a rebuild: the columns are looked up once, the four levels read without a generator,
    # and a number cell (nearly all of them) taken as it is before any parsing, as below.
    for r in range(hr + 1, len(sh.rows)):
        row = sh.rows[r]
        if len(row) < width:
            row = list(row) + [None] * (width - len(row))
        name = label(row[c_name])
        cells = (row[la], row[lb], row[lc], row[ld])
        levels = [v if type(v) is float else num(v, lenient=True, missing=blank) for v in cells]
        state = label(row[c_state])
        if not name or (not state and all(x is None for x in levels)):
            break  # a blank row, or the footnotes under the list (text in the label column only)
        if fault := _level_fault(cells, levels):
            findings.append(_facility_dropped(sh, r, name, data_date, fault))
            continue
        # FY19 lists a facility with blank figures (MAIN - FOLKSTON IPC): kept in the table, no observation.
        out.append({"name": name, "city": label(row[c_city]), "state": state,
                    "aor": label(row[c_aor]), "type": label(row[c_type]),
                    "adp": None if all(x is None for x in levels) else float(sum(x for x in levels if x is not None))})
    if not out:
        findings.append(_unread("facilities", f"sheet {sh.name!r}", sh.fail(f"no facility rows below header row "
                                                                             f"{hr + 1}")))
    return data_date, out


def _facility_dropped(sh: Sheet, r: int, name: str, data_date: dt.date, fault: str) -> dict:
    return {"series": f"{ID}.facility_adp_fytd", "key": name, "date": data_date.isoformat(), "flag": "row-dropped",
            "message": f"sheet {sh.name!r} table 'facilities' row {r + 1} ({name!r}): {fault}; the row is left out "
                       "and the rest of the release kept"}


def _facility_header(sh: Sheet) -> tuple[int, dict[str, int]]:
    """The facility list's header row (0-based) and its columns by label."""
    # found by its titles wherever they are: a column or rows put before the list move it (not in column A)
    top = sh.label_column
    hr = next((r for r, row in enumerate(sh.rows[:30]) if len(row) > top and label(row[top]) == "Name"), None)
    if hr is None:
        raise sh.fail(f"table 'facilities' not found (no header row starting with 'Name' in column "
                      f"{column_letter(top)} in the first 30 rows)")
    cols: dict[str, int] = {}
    for c, v in enumerate(sh.rows[hr]):
        cols.setdefault(label(v), c)
    need = ["Name", "City", "State", "AOR", "Type Detailed", "Level A", "Level B", "Level C", "Level D"]
    miss = [k for k in need if k not in cols]
    if miss:
        raise sh.fail(f"table 'facilities' (header row {hr + 1}): column(s) {miss} not found")
    return hr, cols


def _level_fault(cells, levels: list) -> str | None:
    """Why a facility row's Level A-D cells cannot be read as its average population, or None. A blank cell
    beside figures is a level with nobody in it (ICE's 2022-07-08 release leaves Level A blank from row 54 on,
    where the rows above print 0); text that is no number ('n/a', '#REF!') is a fault."""
    bad = [label(c) for c, x in zip(cells, levels) if x is None and label(c) not in ("", "-")]
    if bad:
        return f"its Level A-D cells hold text that is not a number ({', '.join(repr(b) for b in bad)})"
    if any(x is not None and x < 0 for x in levels):
        return f"a Level A-D cell is negative ({', '.join(f'{x:g}' for x in levels if x is not None and x < 0)})"
    return None


def _header_sheet_date(sh: Sheet | None) -> dt.date | None:
    """A date printed on the Header sheet, if ICE printed one (most releases print none)."""
    if sh is None:
        return None
    for row in sh.rows:
        for v in row:
            if isinstance(v, dt.datetime):
                return v.date()
            if isinstance(v, dt.date):
                return v
            if isinstance(v, str) and (d := parsing.find_mdy(v)):
                return d
    return None


def _fiscal_year_from_title(sh: Sheet) -> int | None:
    for row in sh.rows[:30]:
        for v in row:
            m = re.search(r"FY\s*(20\d\d)", str(v or ""))
            if m:
                return int(m[1])
    return None


def _check_title_year(t: TableRead | None, fy: int) -> None:
    """A table whose title names another fiscal year is another year's table (a leftover sheet or file)."""
    if t is None:
        return
    y = fiscal_year_of(t.title)
    if y is not None and y != fy:
        raise t.fail(f"the title names FY{y}, but the workbook is FY{fy}: this is another year's table")


# ---------------------------------------------------------------- parse

FACILITY_COLUMNS = ["release", "fiscal_year", "key", "name", "city", "state", "aor", "facility_type"]
# What the parser itself found about a file (a secondary table not read, figures corrected where the file proves
# them wrong, a stub column dropped): the "findings" reference table, written into quality_flags.csv by the
# pipeline (``pipeline.parse_findings``) beside the findings ``ice_checks`` makes from the rows.
FINDING_COLUMNS = ["series", "key", "date", "release", "file", "flag", "message"]


def parse(content: bytes, name: str = "") -> Parsed:
    """One workbook -> its tidy rows (headline tables, the other tables of ``ice_tables``, facility ADPs) and its
    reference tables: ``releases`` (one row: the release and every date it gives), ``facilities`` and
    ``findings`` (what the parser found about the file). A table or row that cannot be read is left out with a
    finding and the rest kept; only a workbook of which nothing can be read is refused."""
    wb = open_workbook(content, name, ID)
    findings: list[dict] = []  # what the parser found about this file: the "findings" table, one row each
    fy, fy_from = _fiscal_year(wb, name, findings)
    det, fac, fn, hd = _sheets(wb, fy, name, findings)
    iids, facilities = _read_facilities(fac, findings)
    dates = ReleaseDates(iids, _footnotes_of_year(footnote_dates(fn), fy, findings))
    rel = _dating(name, iids, dates, _header_sheet_date(hd), fy)
    rows = _headline_rows(det, fy, dates, rel.release, findings)
    # every other table, each dated by its own footnote
    rows += ice_tables.read(wb, fy=fy, name=name, release=rel.release, iids=iids, sheets=(det, fn),
                            findings=findings, whole=WHOLE, named=rel.named is not None)
    keys, repeated = _facility_keys(facilities)
    rows += [(f"{ID}.facility_adp_fytd", k, iids, iids, f["adp"], "listed-twice" if k in repeated else "")
             for k, f in zip(keys, facilities) if f["adp"] is not None]
    if not rows:
        raise ParseError("no table of the workbook could be read: " + "; ".join(f["message"] for f in findings[:3]),
                         source=ID, file=name)
    release, release_from = _release_of(name, rel, rows)
    findings += _dating_findings(name, rel, release, release_from, fy, fy_from)
    releases = _release_row(name, fy, release, release_from, rel, dates, det, fac)
    fac_rows = [[release.isoformat(), fy, k, f["name"], f["city"], f["state"], f["aor"], f["type"]]
                for k, f in zip(keys, facilities)]
    find_rows = [[f["series"], f["key"], f["date"], release.isoformat(), name, f["flag"], f["message"]]
                 for f in findings]
    return Parsed(frame_from_columns(_columns(rows, release, rel.file_flag)),
                  {"releases": table_frame(list(releases), [list(releases.values())]),
                   "facilities": table_frame(FACILITY_COLUMNS, fac_rows),
                   "findings": table_frame(FINDING_COLUMNS, find_rows)})


def _footnotes_of_year(dates: dict[str, dt.date], fy: int, findings: list) -> dict[str, dt.date]:
    """The footnote dates that can date fiscal year ``fy``'s tables (October before it to March after it). ICE
    left FY2020's Footnotes sheet in several FY2021 releases (060921, 061121, 10072021, 10282021: "filtered
    through 06/20/2020"); a date of another year dates no table of this one, so those tables fall back to a
    neighbour's date or the IIDS date (``ReleaseDates.of``), with an ``other-year-footnote`` finding."""
    lo, hi = dt.date(fy - 1, 10, 1), dt.date(fy + 1, 3, 31)
    out = {k: d for k, d in dates.items() if lo <= d <= hi}
    for k, d in sorted(dates.items()):
        if k not in out:
            findings.append({"series": "", "key": "", "date": d.isoformat(), "flag": "other-year-footnote",
                             "message": f"the Footnotes sheet dates the {k} tables {d}, outside fiscal year {fy}: "
                                        "another year's footnote, not used; those tables take another date of "
                                        "the release"})
    return out


def _dating_findings(name: str, rel: _Dating, release: dt.date, from_: str, fy: int, fy_from: str) -> list[dict]:
    """Findings on how the release was dated, when nothing in the name vouches for the date: a downloader's name
    ("download (3).xlsx"), or a name whose date cannot be a release date of its fiscal year (ICE's
    FY21_detentionStats07222020: saved in July 2021). ICE's own undated end-of-year names are dated the same way
    and marked in ``dated_from_contents`` only."""
    how = f"the release is dated {release} from the workbook itself ({from_.split(' (')[0]}), the earliest day it " \
          "can have been published, not a known publication date"
    if rel.name_fault:
        return [{"series": "", "key": "", "date": release.isoformat(), "flag": "name-date-overruled",
                 "message": f"{rel.name_fault}: {how}"}]
    if not rel.named and not is_ice_name(name):
        return [{"series": "", "key": "", "date": release.isoformat(), "flag": "dated-from-contents",
                 "message": f"the file name {name!r} carries no ICE date: {how}; its fiscal year, FY{fy}, is read "
                            f"from {fy_from}"}]
    return []


def _fiscal_year(wb, name: str, findings: list) -> tuple[int, str]:
    """The workbook's fiscal year and where it was read. Sheets are taken by what they hold: the year of each
    Detention and Facilities sheet is the one its name gives, else the one its titles name. The file name's
    year stands when a sheet holds it (a leftover sheet of another year beside it is set aside later); when
    every such sheet holds one other year, the workbook is a release of that year, whatever its name says (ICE's
    FY24_detentionStats11152024 holds only FY2025 sheets), with a ``year-from-contents`` finding."""
    named = fiscal_year_from_name(name)
    held = {s: fiscal_year_of(s) or content_fiscal_year(read_sheet(wb, s, name, ID).rows)
            for s in data_sheets(wb, DETENTION_SHEET) + data_sheets(wb, FACILITIES_SHEET)}
    years = {y for y in held.values() if y is not None}
    if named is not None and (named in years or len(years) != 1):
        return named, "the file name"
    if len(years) != 1:
        raise ParseError("fiscal year not found in the file name, and the Detention and Facilities sheets do not "
                         f"name one: {_named_years(held)}", source=ID, file=name)
    fy = years.pop()
    if named is not None:
        findings.append({"series": "", "key": "", "date": "", "flag": "year-from-contents",
                         "message": f"the file name says FY{named}, but its Detention and Facilities sheets hold "
                                    f"FY{fy} ({_named_years(held)}): the workbook is read as a FY{fy} release"})
    return fy, "the Detention and Facilities sheets"


def _named_years(held: dict[str, int | None]) -> str:
    return ", ".join(f"{s!r} {'FY%d' % y if y else 'no year'}" for s, y in held.items()) or "no such sheets"


def _sheets(wb, fy: int, name: str, findings: list) -> tuple[Sheet | None, Sheet, Sheet | None, Sheet | None]:
    """The Detention, Facilities, Footnotes and Header sheets of fiscal year ``fy`` (the last two may be absent).
    A workbook whose only Detention sheet is another year's (ICE's FY21_detentionStats060921 carries FY2020's
    'Detention FY20 YTD') keeps its other sheets: each headline table gets a ``table-unread`` finding."""
    try:
        det = choose_sheet(wb, DETENTION_SHEET, "Detention", fy=fy, file=name, source=ID)
    except ParseError as e:
        det = None
        findings += [_unread(t.name, f"no Detention sheet of FY{fy}", e) for t in TABLES if t.required]
    return (det,
            choose_sheet(wb, FACILITIES_SHEET, "Facilities", fy=fy, file=name, source=ID),
            choose_sheet(wb, r"foot\s*notes?", "Footnotes", fy=fy, file=name, source=ID, required=False),
            choose_sheet(wb, r"^\s*Header\s*$", "Header", fy=fy, file=name, source=ID, required=False))


def _unread(table: str, where: str, e: ParseError) -> dict:
    """A ``table-unread`` finding (``ice_tables.unread_finding``'s sentence) for a table of this module."""
    detail = re.sub(r"^\[[^\]]*\] ", "", str(e))
    detail = re.sub(r"^(?:sheet '[^']*':? )?(?:table '[^']*'[:,]? )?", "", detail)
    detail = re.sub(r"^no Detention sheet for fiscal year \d+; ", "", detail)
    return {"series": "", "key": "", "date": "", "flag": "table-unread",
            "message": f"table {table!r} ({where}) not read: {detail}; the release is kept with its other "
                       "tables and this table's series have no rows from it"}


@dataclass
class _Dating:
    """A workbook's release date as its name and dates give it, and the evidence of a stale header date."""

    iids: dt.date  # the Facilities sheet's IIDS date
    named: dt.date | None  # the date in the file name
    latest: dt.date  # the latest date the workbook states (IIDS or a footnote)
    release: dt.date  # the name's date, else ``latest``
    through: dt.date | None  # the latest of the detention, book-ins and removals footnote dates
    header_date: dt.date | None
    stale: list[str]
    name_fault: str = ""  # why the digits in the name are no release date (then ``named`` is None)

    @property
    def file_flag(self) -> str:
        return "stale-header" if self.stale else ""


def _dating(name: str, iids: dt.date, dates: ReleaseDates, header_date: dt.date | None, fy: int) -> _Dating:
    try:
        named, name_fault = release_date_from_name(name, fy), ""
    except ParseError as e:  # a typo in ICE's name (FY21_detentionStats07222020): dated from the contents
        named, name_fault = None, re.sub(r"^\[[^\]]*\] ", "", str(e))
    # An undated (end-of-year) name: the file cannot have come out before the latest date it states, which is the
    # IIDS date or, when the docket snapshot is later (FY2020: IIDS 09-30, docket 10-02), the docket date.
    latest = max([iids, *dates.footnotes.values()])
    # The latest of the detention, book-ins and removals footnote dates: the stale-header evidence.
    through = max((d for k, d in dates.footnotes.items() if k != "docket"), default=None)
    stale: list[str] = []
    if through and (through - iids).days > STALE_DAYS:
        stale.append(f"footnotes say the data run to {through}, {(through - iids).days} days after the "
                     f"IIDS header date {iids}")
    if header_date and abs((header_date - iids).days) > STALE_DAYS:
        stale.append(f"Header sheet date {header_date} vs IIDS date {iids}")
    if named and iids > named:
        stale.append(f"IIDS date {iids} is after the release date {named}")
    return _Dating(iids, named, latest, named or latest, through, header_date, stale, name_fault)


def _headline_rows(det: Sheet | None, fy: int, dates: ReleaseDates, release: dt.date, findings: list) -> list[tuple]:
    """The headline tables (``TABLES``) as rows (series, key, date, end, value, flag): headcounts at the docket
    date, the monthly tables month by month, fiscal-year-to-date removals at the removals date. A table that
    cannot be read is left out with a ``table-unread`` finding (issue 39), a row that cannot be kept with a
    ``row-dropped`` one (``ice_tables.sieve``); without a Detention sheet of the year (``_sheets`` said so)
    there are none."""
    rows: list[tuple] = []
    if det is None:
        return rows
    for t in TABLES:
        start = len(rows)
        try:
            rows += _headline_table(det, t, fy, dates, release, findings)
        except ParseError as e:
            del rows[start:]
            findings.append(_unread(t.name, f"sheet {det.name!r}", e))
            continue
        ice_tables.sieve(rows, start, f"sheet {det.name!r} table {t.name!r}", findings, WHOLE)
    return rows


def _headline_table(det: Sheet, spec: TableSpec, fy: int, dates: ReleaseDates, release: dt.date,
                    findings: list) -> list[tuple]:
    """One headline table's rows; a ParseError naming sheet and table when it cannot be read."""
    t = read_table(det, spec)
    if t is None:  # ``read_table`` raises for a required table; only an optional one comes back as None
        return []
    _check_title_year(t, fy)
    if spec.name == "detained":
        docket = dates.of("docket")
        return [(ID + "." + sid, key, docket, docket, v, "") for sid, key, v in _read_detained(t)]
    if spec.name == "removals":
        return _removals_rows(t, fy, dates.of("removals"))
    if spec.name == "book_ins" and {r.fields.get("agency") for r in t.rows} != set(AGENCIES):
        raise t.fail("expected rows for ICE, CBP and Total")
    if spec.name != "book_ins" and {r.fields.get("agency") for r in t.rows if "agency" in r.fields} != set(AGENCIES):
        raise t.fail("expected CBP, ICE and overall blocks")
    return _monthly_rows(t, fy, dates.of(_date_name(spec)), release, findings)


def _date_name(spec: TableSpec) -> str:
    """The name of the release date a headline table's figures carry (``ReleaseDates.of``)."""
    if not isinstance(spec.date, str):
        raise TypeError(f"table {spec.name!r}: a headline table names its date, not {spec.date!r}")
    return spec.date


def _monthly_rows(t: TableRead, fy: int, d: dt.date, release: dt.date, findings: list) -> list[tuple]:
    """A monthly headline table (book-ins, ADP, length of stay) dated by its own date ``d``: a month per row, and
    the fiscal-year ADP ('FY Overall') at ``d``. A book-ins column past ``d`` holding a stub (7 book-ins in
    December in a release whose footnote says data run to 2024-11-30) is dropped, with a finding; not a partial
    month, not stale evidence."""
    book_ins = t.spec.name == "book_ins"
    stubs = _stub_columns(t, fy, d, release) if book_ins else {}
    for start, (n, example) in sorted(stubs.items()):
        findings.append({"series": "", "key": "", "date": start.isoformat(), "flag": "stub-column",
                         "message": f"table {t.spec.name!r}: the {start:%Y-%m} column lies past the table's "
                                    f"data-through date {d} (its footnote) and was dropped ({n} figures, e.g. "
                                    f"{example:g})"})
    _column_findings(t, findings)
    rows = []
    for f, start, v in _monthly(t, fy):
        if start is None:
            if "overall" in t.spec.series and not f["key"] and v is not None:
                rows.append((ID + "." + _series_id(t.spec, f, "overall"), f"FY{fy}", d, d, v, ""))
        elif start not in stubs and (row := _month_row(_series_id(t.spec, f), "" if book_ins else f["key"],
                                                       start, v, d, release)):
            rows.append(row)
    return rows


def _column_findings(t: TableRead, findings: list) -> None:
    """A ``column-unread`` finding for each header column of a monthly table that cannot be placed (a label that
    is no month nor the fiscal-year column), and for a fiscal-year column the table's series need but its header
    row does not have: their figures are left out, said so, and the rest of the table is kept."""
    where = f"table {t.spec.name!r} (sheet {t.sheet.name!r})"
    header_row = t.rows[0].row - 1 if t.rows else t.at[0] + 2
    for lab, cc in unplaced_columns(t, MONTHS):
        findings.append({"series": "", "key": "", "date": "", "flag": "column-unread",
                         "message": f"{where}: column {lab!r} ({column_letter(cc)}{header_row}) is not a column this "
                                    "table is read by; its figures are left out and the rest of the table kept"})
    if "overall" in t.spec.series and not any(norm(k) in {norm(o) for o in t.spec.fy_column} for k in t.header):
        findings.append({"series": "", "key": "", "date": "", "flag": "column-unread",
                         "message": f"{where}: no fiscal-year column ({t.spec.fy_column[0]!r}) in header row "
                                    f"{header_row}; the table's fiscal-year-to-date figures have no row from this "
                                    "release and the rest of the table is kept"})


def _month_row(sid: str, key: str, start: dt.date, value, through: dt.date, release: dt.date) -> tuple | None:
    """A monthly figure: partial when the table's own date falls inside the month, missing when ICE's 0 or blank
    stands for a month not reached yet, and a real figure after the table's date is stale evidence."""
    if value is None:
        return None
    end = month_end(start)
    if start > through:
        if value == 0:
            return None  # ICE prints 0 for months not reached yet: missing, not zero
        # a real figure for a month after the table's own date: the file's dates are stale
        return ID + "." + sid, key, start, min(end, release), value, "partial;stale-header"
    if end > through:
        return ID + "." + sid, key, start, through, value, "partial"
    return ID + "." + sid, key, start, end, value, ""


def _removals_rows(rem: TableRead, fy: int, d: dt.date) -> list[tuple]:
    """Fiscal-year-to-date removals (the total, and the family line ICE prints that year) at the removals date."""
    seen: dict[str, float] = {}
    for r in rem.rows:
        sid, v = r.fields.get("series"), r.cells["value"]
        if sid and sid not in seen and isinstance(v, float):  # always a float: ``read_table`` keeps numbered rows only
            seen[sid] = v
    if "removals_fytd" not in seen:
        raise rem.fail(f"(row {rem.at[0] + 1}): no 'Total' removals row with a number")
    return [(ID + "." + sid, f"FY{fy}", d, d, v, "") for sid, v in seen.items()]


def _release_of(name: str, rel: _Dating, rows: list[tuple]) -> tuple[dt.date, str]:
    """The release date and where it was read. An undated file cannot have come out before the last day any of
    its tables covers: the other tables (ATD, bonds) carry dates of their own, sometimes after every footnote
    date (FY2021: ATD to 2021-10-23)."""
    release = rel.release
    if not rel.named:
        release = max([release, *(r[3] for r in rows)])
    why = ("file name date not a possible release date" if rel.name_fault else
           "undated file name" if is_ice_name(name) else "no ICE date in the file name")
    return release, ("file name" if rel.named else f"IIDS data date ({why})" if release == rel.iids
                     else f"latest footnote date ({why})" if release == rel.latest
                     else f"latest date a table covers ({why})")


def _release_row(name: str, fy: int, release: dt.date, release_from: str, rel: _Dating, dates: ReleaseDates,
                 det: Sheet | None, fac: Sheet) -> dict:
    """The ``releases`` table's row: the release, each table's own date and where it was read (its footnote, a
    neighbour's, or the IIDS date)."""
    iso_or_blank = lambda d: d.isoformat() if d else ""  # noqa: E731 (dates that may be missing)
    return {
        "file": name, "fiscal_year": fy, "release_date": release.isoformat(),
        "release_date_from": release_from, "dated_from_contents": not rel.named,
        "data_date": rel.iids.isoformat(), "footnote_data_through": iso_or_blank(rel.through),
        "header_sheet_date": iso_or_blank(rel.header_date), "stale_header": "; ".join(rel.stale),
        "detention_data_through": dates.of("detention").isoformat(),
        "detention_data_through_from": dates.source_of("detention"),
        "book_ins_data_through": dates.of("book_ins").isoformat(),
        "book_ins_data_through_from": dates.source_of("book_ins"),
        "removals_data_through": dates.of("removals").isoformat(),
        "removals_data_through_from": dates.source_of("removals"),
        "docket_as_of": dates.of("docket").isoformat(), "docket_as_of_from": dates.source_of("docket"),
        "detention_sheet": det.name if det is not None else "", "facilities_sheet": fac.name}


def _columns(rows: list[tuple], release: dt.date, file_flag: str) -> dict[str, list]:
    """Rows (series, key, date, end, value, flag) as the tidy columns, dates as ISO text, each row's flag with
    the file's own (``stale-header``) merged in."""
    series, key, date, end, value, flag = (list(c) for c in zip(*rows)) if rows else ([] for _ in range(6))
    return {"series": series, "key": key, "date": [d.isoformat() for d in date], "end": [d.isoformat() for d in end],
            "value": value, "release": [release.isoformat()] * len(series),
            "flag": [";".join(sorted({c for x in (f, file_flag) for c in x.split(";") if c})) for f in flag]}


def _facility_keys(facilities: list[dict]) -> tuple[list[str], set[str]]:
    """One key per facility row, and the keys of rows that repeat a facility already listed.

    A name shared by facilities in different places gets its city and state ("CLINTON COUNTY JAIL (LOCK HAVEN,
    PA)"). A facility listed more than once at the same place (NASSAU COUNTY CORRECTIONAL CENTER, East Meadow,
    NY, twice in the 2025-07-07 release, with different figures) keeps every listing as printed: the first
    under the key it would have alone, so its series joins the other releases', each further one told apart as
    "(listing 2 of 2)". The rows are flagged ``listed-twice`` and ``ice_checks`` says which facility it was.
    """
    places: dict[str, set] = {}
    for f in facilities:
        places.setdefault(f["name"], set()).add((f["city"], f["state"]))
    base = [f"{f['name']} ({f['city']}, {f['state']})" if len(places[f["name"]]) > 1 else f["name"]
            for f in facilities]
    total, seen = Counter(base), Counter[str]()
    keys, repeated = [], set()
    for b in base:
        seen[b] += 1
        k = b if seen[b] == 1 else f"{b} (listing {seen[b]} of {total[b]})"
        keys.append(k)
        if total[b] > 1:
            repeated.add(k)
    return keys, repeated


def check(obs):
    """The integrity checks (``ice_checks``) over a tidy frame, with the rules this catalogue declares."""
    return ice_checks.check(obs, series=SERIES)


def check_file(obs):
    """The checks of ``check`` that read one file's rows at a time (``ice_checks.check_file``)."""
    return ice_checks.check_file(obs, series=SERIES)


SOURCE = Source(
    id=ID,
    title="ICE detention statistics workbooks (every release, FY2019 on)",
    publisher="U.S. Immigration and Customs Enforcement (ICE), Enforcement and Removal Operations",
    landing_page=LANDING,
    licence="Public domain (U.S. government work)",
    cadence="about every two weeks during the fiscal year",
    cadence_days=21,
    release_dated="published",
    release_rule="the date in the workbook's name (ICE's release), else the dates inside it",
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.xlsx", "ice-detention-stats/original_xlsx/*.xlsx",
               "ice-detention-stats/original_xlsx_wayback/*.xlsx", "ice-detention-stats/release_history/*.xlsx"),
    discover=discover,
    allowed_hosts=("www.ice.gov",),
    browser_user_agent=True,
    attribution=ATTRIBUTION,
    check=check,
    check_file=check_file,
    check_across=ice_checks.check_across,
    cache_parses=True,
)
