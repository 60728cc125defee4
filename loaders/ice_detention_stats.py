"""ICE detention-statistics workbooks ("Detention Management" FY spreadsheets).

Publisher: U.S. Immigration and Customs Enforcement, Enforcement and Removal Operations, under the FY2020 DHS
appropriations act (H.R. 1158 Sec. 218). Landing page: https://www.ice.gov/detain/detention-management, which
links the current fiscal year's workbook under https://www.ice.gov/doclib/detention/<name>.xlsx.
Cadence: about every two weeks during the fiscal year (paused in the Oct-Nov 2025 shutdown); an end-of-year file
follows. Terms: U.S. government work, public domain. ICE says the data "fluctuate until locked" after the year ends.

Every release is a vintage: each row carries the release date it came from, so earlier releases stay queryable and
revisions between releases can be listed. Two dates matter for every figure:
- ``release``: the date in the file name (the day ICE posted it). Undated names (``FY24_detentionStats.xlsx``,
  ``FY19-detentionstats.xlsx``: ICE reuses them for the end-of-year file) carry no date, so for them the release is
  the IIDS data date read from the workbook itself (the earliest day the file can have been published).
- the data date: the ICE Integrated Decision Support (IIDS) pull date from the line "Data Source: ICE Integrated
  Decision Support (IIDS), MM/DD/YYYY" (FY19-FY21: "Source: ...") at the top of the Facilities sheet. Snapshot
  figures (people detained today) have date = end = data date; fiscal-year-to-date figures (removals, facility
  average population) are one point per release at the data date, with the fiscal year as ``key``; the month that
  holds the data date is partial (flag ``partial``, ``end`` = data date).

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
- Future months are 0 (or blank, FY26) rather than empty: a month starting after the data date is dropped as
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

import calendar
import datetime as dt
import io
import re
from html.parser import HTMLParser
from urllib.parse import urljoin, urlparse

import numpy as np
import pandas as pd

from . import ice_tables, tidy
from .base import Parsed, Series, Source
from .errors import FetchError, ParseError
from .fetch import read_page

ID = "ice_detention_stats"
LANDING = "https://www.ice.gov/detain/detention-management"
ATTRIBUTION = "Source: U.S. Immigration and Customs Enforcement, detention statistics (ice.gov/detain/detention-management)"
STALE_DAYS = 10
FACILITY_RATIO = (0.94, 1.02)
SWAP_TOLERANCE = 0.01
MONTHS = ["Oct", "Nov", "Dec", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep"]
AGENCIES = {"ice": "ICE", "cbp": "CBP", "total": "ICE+CBP"}
CRIMINALITY = {
    "convicted criminal": "Convicted criminal",
    "pending criminal charges": "Pending criminal charges",
    "other immigration violator": "Other immigration violator",
    "non-criminal": "Non-criminal",
}

_DATES = (" Release = the date in the file name (or the data date for undated end-of-year files); the data date is "
          "ICE's IIDS pull date printed on the Facilities sheet.")
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
                   f"Headcount of people held in ICE detention on the data date, {_WHO[a]}. A one-day count, not an "
                   "average." + _DATES, ID),
            Series(f"{ID}.detained_{a}_by_criminality", f"People in ICE detention by criminality, {_WHO_SHORT[a]} "
                   "(ICE release)", "detained", agency, "people", "biweekly",
                   f"Headcount in ICE detention on the data date, {_WHO[a]}, split by ICE's criminality label: "
                   "convicted, pending criminal charges, or other immigration violator (neither)." + _DATES, ID,
                   breakdown="criminality"),
            Series(f"{ID}.book_ins_{a}", f"Initial book-ins into ICE detention, {_WHO_SHORT[a]}, monthly (ICE release)",
                   "book-ins", agency, "book-ins", "monthly",
                   f"People booked into ICE detention for the first time in the month, {_WHO[a]}. A book-in is not an "
                   "arrest: arrests that end without detention are missing and transfers from jails are included. "
                   "The month holding the data date is partial." + _DATES, ID, per_day_ok=True),
            Series(f"{ID}.adp_{a}", f"Average daily population in ICE detention, {_WHO_SHORT[a]}, monthly (ICE release)",
                   "adp", agency, "people", "monthly",
                   f"Average number of people in ICE detention at the midnight count over the month's days, {_WHO[a]}. "
                   "An average, not a headcount on any one day." + _DATES, ID),
            Series(f"{ID}.adp_{a}_by_criminality", f"Average daily population in ICE detention by criminality, "
                   f"{_WHO_SHORT[a]}, monthly (ICE release)", "adp", agency, "people", "monthly",
                   f"Monthly average daily population, {_WHO[a]}, by ICE's criminality label (FY2019: convicted / "
                   "non-criminal only)." + _DATES, ID, breakdown="criminality"),
            Series(f"{ID}.adp_{a}_fytd", f"Average daily population in ICE detention, {_WHO_SHORT[a]}, fiscal year to "
                   "date (ICE release)", "adp", agency, "people", "release",
                   f"Average daily population from October 1 to the data date ('FY Overall'), {_WHO[a]}. One point per "
                   "release at its data date; key = fiscal year." + _DATES, ID, breakdown="fiscal year"),
            Series(f"{ID}.alos_{a}", f"Average length of stay in ICE detention, {_WHO_SHORT[a]}, monthly (ICE release)",
                   "alos", agency, "days", "monthly",
                   f"ICE's average length of stay in days for detention stays of people {_WHO[a]}, by month of release "
                   "from custody as ICE computes it. Not the time today's detainees have been held." + _DATES, ID),
            Series(f"{ID}.alos_{a}_by_criminality", f"Average length of stay by criminality, {_WHO_SHORT[a]}, monthly "
                   "(ICE release)", "alos", agency, "days", "monthly",
                   f"As the average length of stay, {_WHO[a]}, by ICE's criminality label." + _DATES, ID,
                   breakdown="criminality"),
        ]
    out += [
        Series(f"{ID}.removals_fytd", "ICE removals, fiscal year to date (ICE release)", "removals", "ICE", "removals",
               "release",
               "Removals carried out by ICE counted cumulatively since October 1 of the fiscal year up to the data date. "
               "ICE's figure includes returns and expulsions of people turned over to ICE. One point per release at its "
               "data date; key = fiscal year; it only grows within a year." + _DATES, ID, breakdown="fiscal year"),
        Series(f"{ID}.removals_famu_fytd", "ICE removals of family-unit members, fiscal year to date (ICE release)",
               "removals", "ICE", "removals", "release",
               "Removals since October 1 of people carrying ICE's family-unit (FAMU) identifier, cumulative to the data "
               "date. Printed from FY2024; not the same measure as removals after family-centre detention." + _DATES,
               ID, breakdown="fiscal year"),
        Series(f"{ID}.removals_family_detention_fytd", "ICE removals after family-centre detention, fiscal year to "
               "date (ICE release)", "removals", "ICE", "removals", "release",
               "Removals since October 1 of people held in a family residential or staging centre (FRC/FSC), "
               "cumulative to the data date. Printed up to FY2023; later releases print FAMU removals instead." + _DATES,
               ID, breakdown="fiscal year"),
        Series(f"{ID}.facility_adp_fytd", "Average daily population by detention facility, fiscal year to date "
               "(ICE release)", "facility-adp", "ICE+CBP", "people", "release",
               "Each listed facility's average daily population from October 1 to the data date (the sum of its "
               "classification-level columns). Facilities with nobody held at the pull, and hold rooms, hospitals and "
               "hotels, are not listed, so the sum falls a little short of the national figure. Key = facility name; "
               "city, state, field office and type are in the facilities table." + _DATES, ID, breakdown="facility"),
    ]
    return tuple(out)


SERIES = _series() + ice_tables.SERIES  # the rest of the workbook's tables: declared in ice_tables
_IDS = {s.id for s in SERIES}


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
    return re.sub(r"^\d{14}-", "", name.rsplit("/", 1)[-1])


def _in_window(d: dt.date, fy: int) -> bool:
    return dt.date(fy - 1, 10, 1) <= d <= dt.date(fy + 1, 3, 31)


def _date(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


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


def month_start(fy: int, label: str) -> dt.date:
    i = MONTHS.index(label)
    return dt.date(fy - 1 if i < 3 else fy, (i + 9) % 12 + 1, 1)


def month_end(d: dt.date) -> dt.date:
    return d.replace(day=calendar.monthrange(d.year, d.month)[1])


_MDY = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")


def _mdy(s: str) -> dt.date | None:
    m = _MDY.search(s)
    return _date(int(m[3]), int(m[1]), int(m[2])) if m else None


# ---------------------------------------------------------------- workbook access

def _label(v) -> str:
    """A cell as a label: whitespace runs collapsed (labels carry stray and doubled spaces). Runs on every
    cell searched, so it avoids a regex."""
    if v is None:
        return ""
    return " ".join(v.split()) if isinstance(v, str) else " ".join(str(v).split())


def _num(v) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v) if np.isfinite(v) else None
    s = str(v).strip().replace(",", "")
    if s in ("", "-"):
        return None
    try:
        return float(s)
    except ValueError:
        return None


class _Sheet:
    def __init__(self, name: str, rows: list[list], file: str):
        self.name, self.rows, self.file = name, rows, file

    def cell(self, r: int, c: int):
        if 0 <= r < len(self.rows) and 0 <= c < len(self.rows[r]):
            return self.rows[r][c]
        return None

    def fail(self, what: str) -> ParseError:
        return ParseError(f"sheet {self.name!r}: {what}", source=ID, file=self.file)

    def find_title(self, pattern: str, table: str, required: bool = True) -> tuple[int, int] | None:
        rx = re.compile(pattern, re.I)
        for r, row in enumerate(self.rows):
            for c, v in enumerate(row):
                if isinstance(v, str) and v and rx.search(_label(v)):
                    return r, c
        if required:
            raise self.fail(f"table {table!r} not found (no cell matching /{pattern}/)")
        return None

    def header(self, r: int, c: int, table: str) -> tuple[int, dict[str, int]]:
        """The first non-empty row below a title: header labels from column c to the first blank."""
        for hr in range(r + 1, min(r + 4, len(self.rows))):
            if _label(self.cell(hr, c)):
                cols, cc = {}, c
                while _label(self.cell(hr, cc)):
                    cols.setdefault(_label(self.cell(hr, cc)), cc)
                    cc += 1
                return hr, cols
        raise self.fail(f"table {table!r}: no header row below its title (row {r + 1})")

    def body(self, hr: int, c: int) -> list[int]:
        """Data rows below a header, to the first row whose first cell is blank."""
        out, r = [], hr + 1
        while r < len(self.rows) and _label(self.cell(r, c)):
            out.append(r)
            r += 1
        return out


def _open(content: bytes, name: str):
    from python_calamine import CalamineWorkbook

    try:
        return CalamineWorkbook.from_filelike(io.BytesIO(content))
    except Exception as e:  # calamine raises its own error types for broken zips/XML
        raise ParseError(f"not a readable workbook ({type(e).__name__}: {e})", source=ID, file=name) from None


def _sheet(wb, pattern: str, what: str, name: str, required: bool = True) -> _Sheet | None:
    rx = re.compile(pattern, re.I)
    hits = [s for s in wb.sheet_names if rx.search(s)]
    if not hits:
        if not required:
            return None
        raise ParseError(f"no {what} sheet (no sheet name matching /{pattern}/; sheets: {wb.sheet_names})",
                         source=ID, file=name)
    s = hits[0]
    from python_calamine import CalamineError
    try:
        cells = wb.get_sheet_by_name(s).to_python(skip_empty_area=False)
    except CalamineError as e:  # the zip opened but this sheet's XML is broken (corrupt or cut-off download)
        raise ParseError(f"sheet {s!r} is not readable ({type(e).__name__}: {e})", source=ID, file=name) from None
    return _Sheet(s, cells, name)


# ---------------------------------------------------------------- table readers

def _monthly_columns(sh: _Sheet, cols: dict[str, int], table: str) -> dict[str, int]:
    months = {m: cols[m] for m in MONTHS if m in cols}
    if len(months) != 12:
        raise sh.fail(f"table {table!r}: month columns Oct..Sep not all found (header: {list(cols)})")
    return months


def _agency_of(label: str) -> str | None:
    low = label.lower()
    if low in ("total", "average", "total average"):
        return "total"
    if low.startswith("ice"):
        return "ice"
    if low.startswith("cbp"):
        return "cbp"
    return None


def _read_detained(sh: _Sheet) -> list[tuple[str, str, float]]:
    table = "ICE Currently Detained by Criminality and Arresting Agency"
    r, c = sh.find_title(r"Currently Detained by Criminality and Arresting Agency", table)
    hr, cols = sh.header(r, c, table)
    need = {"ICE": "ice", "CBP": "cbp", "Total": "total"}
    miss = [k for k in need if k not in cols]
    if miss:
        raise sh.fail(f"table {table!r}: column(s) {miss} not found (header: {list(cols)})")
    out = []
    for row in sh.body(hr, c):
        lab = _label(sh.cell(row, c))
        key = "" if lab.lower() == "total" else CRIMINALITY.get(lab.lower())
        if key is None:
            raise sh.fail(f"table {table!r} row {row + 1}: unknown criminality {lab!r}")
        for col, a in need.items():
            v = _num(sh.cell(row, cols[col]))
            if v is None:
                raise sh.fail(f"table {table!r} row {row + 1} column {col!r}: {sh.cell(row, cols[col])!r} is not a number")
            out.append((a, key, v))
    if not any(k == "" for _, k, _ in out):
        raise sh.fail(f"table {table!r}: no 'Total' row")
    return out


def _read_book_ins(sh: _Sheet, fy: int) -> list[tuple[str, dt.date, float | None]]:
    table = "ICE Initial Book-Ins by Arresting Agency and Month"
    r, c = sh.find_title(r"Initial Book-?Ins by Arresting Agency and Month", table)
    hr, cols = sh.header(r, c, table)
    months = _monthly_columns(sh, cols, table)
    out = []
    for row in sh.body(hr, c):
        lab = _label(sh.cell(row, c))
        a = _agency_of(lab)
        if a is None:
            raise sh.fail(f"table {table!r} row {row + 1}: unknown arresting agency {lab!r}")
        for m, col in months.items():
            out.append((a, month_start(fy, m), _num(sh.cell(row, col))))
    if {a for a, _, _ in out} != set(AGENCIES):
        raise sh.fail(f"table {table!r}: expected rows for ICE, CBP and Total")
    return out


def _read_blocks(sh: _Sheet, fy: int, pattern: str, table: str, required: bool):
    """ADP / ALOS tables: an agency row ('CBP Average', 'ICE Average', 'Average') then its criminality rows."""
    at = sh.find_title(pattern, table, required)
    if at is None:
        return None
    hr, cols = sh.header(*at, table)
    months = _monthly_columns(sh, cols, table)
    overall = next((cols[k] for k in cols if k.lower() in ("fy overall", "total", "fy total")), None)
    out, agency = [], None
    for row in sh.body(hr, at[1]):
        lab = _label(sh.cell(row, at[1]))
        crim = CRIMINALITY.get(lab.lower())
        if crim is None:
            agency = _agency_of(lab)
            if agency is None:
                raise sh.fail(f"table {table!r} row {row + 1}: unknown row label {lab!r}")
            key = ""
        elif agency is None:
            raise sh.fail(f"table {table!r} row {row + 1}: criminality row {lab!r} before any agency row")
        else:
            key = crim
        for m, col in months.items():
            out.append((agency, key, month_start(fy, m), _num(sh.cell(row, col))))
        if overall is not None:
            out.append((agency, key, None, _num(sh.cell(row, overall))))
    if {a for a, *_ in out} != set(AGENCIES):
        raise sh.fail(f"table {table!r}: expected CBP, ICE and overall blocks")
    return out


def _read_removals(sh: _Sheet) -> dict[str, float]:
    table = "ICE Removals"
    r, c = sh.find_title(r"^ICE Removals\b", table)
    out: dict[str, float] = {}
    for row in range(r + 1, min(r + 6, len(sh.rows))):
        lab = _label(sh.cell(row, c)).lower()
        if not lab:
            continue
        val = next((v for cc in range(c + 1, c + 5) if (v := _num(sh.cell(row, cc))) is not None), None)
        if val is None:
            continue
        if lab == "total":
            out["removals_fytd"] = val
        elif "famu" in lab:
            out["removals_famu_fytd"] = val
        elif re.search(r"\b(frc|fsc)\b|family", lab):
            out["removals_family_detention_fytd"] = val
    if "removals_fytd" not in out:
        raise sh.fail(f"table {table!r} (row {r + 1}): no 'Total' removals row with a number")
    return out


def _read_facilities(sh: _Sheet) -> tuple[dt.date, list[dict]]:
    data_date = None
    for row in sh.rows[:15]:
        for v in row:
            if isinstance(v, str) and "IIDS" in v:
                data_date = _mdy(v)
                break
        if data_date:
            break
    if data_date is None:
        raise sh.fail("no 'Data Source: ICE Integrated Decision Support (IIDS), MM/DD/YYYY' line in its first 15 rows")
    hr = next((r for r, row in enumerate(sh.rows[:30]) if row and _label(row[0]) == "Name"), None)
    if hr is None:
        raise sh.fail("table 'facilities' not found (no header row starting with 'Name' in the first 30 rows)")
    cols = {}
    for c, v in enumerate(sh.rows[hr]):
        cols.setdefault(_label(v), c)
    need = ["City", "State", "AOR", "Type Detailed", "Level A", "Level B", "Level C", "Level D"]
    miss = [k for k in need if k not in cols]
    if miss:
        raise sh.fail(f"table 'facilities' (header row {hr + 1}): column(s) {miss} not found")
    out = []
    for r in range(hr + 1, len(sh.rows)):
        name = _label(sh.cell(r, 0))
        levels = [_num(sh.cell(r, cols[k])) for k in ("Level A", "Level B", "Level C", "Level D")]
        state = _label(sh.cell(r, cols["State"]))
        if not name or (not state and all(x is None for x in levels)):
            break  # a blank row, or the footnotes under the list (text in column A only)
        if any(x is None for x in levels) and not all(x is None for x in levels):
            raise sh.fail(f"table 'facilities' row {r + 1} ({name!r}): some Level A-D cells are not numbers")
        # FY19 lists a facility with blank figures (MAIN - FOLKSTON IPC): kept in the table, no observation.
        out.append({"name": name, "city": _label(sh.cell(r, cols["City"])), "state": state,
                    "aor": _label(sh.cell(r, cols["AOR"])), "type": _label(sh.cell(r, cols["Type Detailed"])),
                    "adp": None if levels[0] is None else float(sum(levels))})
    if not out:
        raise sh.fail(f"table 'facilities' (header row {hr + 1}): no facility rows")
    return data_date, out


def _footnote_through(wb) -> dt.date | None:
    """The latest 'data are updated through MM/DD/YYYY' date of the Footnotes sheet (Semiannual notes excluded)."""
    sh = _sheet(wb, r"foot\s*notes?", "Footnotes", "", required=False)
    if sh is None:
        return None
    best = None
    for row in sh.rows:
        text = " ".join(str(v) for v in row if v not in (None, ""))
        for m in re.finditer(r"(Book-?ins|Average Daily Population|Removals)[^.]*?updated through (\d{1,2}/\d{1,2}/\d{4})",
                             text, re.I):
            d = _mdy(m[2])
            if d and (best is None or d > best):
                best = d
    return best


def _header_sheet_date(wb) -> dt.date | None:
    """A date printed on the Header sheet, if ICE printed one (most releases print none)."""
    sh = _sheet(wb, r"^\s*Header\s*$", "Header", "", required=False)
    if sh is None:
        return None
    for row in sh.rows:
        for v in row:
            if isinstance(v, dt.datetime):
                return v.date()
            if isinstance(v, dt.date):
                return v
            if isinstance(v, str) and (d := _mdy(v)):
                return d
    return None


def _fiscal_year_from_title(sh: _Sheet) -> int | None:
    for row in sh.rows[:30]:
        for v in row:
            m = re.search(r"FY\s*(20\d\d)", str(v or ""))
            if m:
                return int(m[1])
    return None


# ---------------------------------------------------------------- parse

def parse(content: bytes, name: str = "") -> Parsed:
    wb = _open(content, name)
    det = _sheet(wb, r"^\s*Detention\b", "Detention", name)
    fac = _sheet(wb, r"^\s*Facilities\b", "Facilities", name)
    fy = fiscal_year_from_name(name) or _fiscal_year_from_title(det)
    if fy is None:
        raise ParseError("fiscal year not found in the file name or the Detention sheet's titles", source=ID, file=name)
    data_date, facilities = _read_facilities(fac)
    named = release_date_from_name(name, fy)
    release = named or data_date
    through = _footnote_through(wb)
    header_date = _header_sheet_date(wb)
    detained = _read_detained(det)
    book_ins = _read_book_ins(det, fy)
    adp = _read_blocks(det, fy, r"Average Daily Population by Arresting Agency", "ICE Average Daily Population by "
                       "Arresting Agency, Month and Criminality", required=True)
    alos = _read_blocks(det, fy, r"Average Length of Stay by Arresting Agency", "ICE Average Length of Stay by "
                        "Arresting Agency, Month and Criminality", required=False) or []
    removals = _read_removals(det)

    stale: list[str] = []
    if through and (through - data_date).days > STALE_DAYS:
        stale.append(f"footnotes say the data run to {through}, {(through - data_date).days} days after the "
                     f"IIDS header date {data_date}")
    if header_date and abs((header_date - data_date).days) > STALE_DAYS:
        stale.append(f"Header sheet date {header_date} vs IIDS date {data_date}")
    if named and data_date > named:
        stale.append(f"IIDS date {data_date} is after the release date {named}")
    file_flag = "stale-header" if stale else ""
    covered = max(d for d in (data_date, through) if d)
    rows: list[dict] = []

    def add(series, key, date, end, value, flag=""):
        flags = ";".join(sorted({f for f in (flag, file_flag) if f}))
        rows.append({"series": f"{ID}.{series}", "key": key, "date": date, "end": end, "value": value,
                     "release": release, "flag": flags})

    def add_month(series, key, start, value):
        end = month_end(start)
        if value is None:
            return
        if start > data_date:
            if value == 0:
                return  # ICE prints 0 for months not reached yet: missing, not zero
            if start > covered:
                # a real figure for a month after every date the file gives: its header date is stale
                add(series, key, start, min(month_end(start), release), value, "partial;stale-header")
                return
            add(series, key, start, min(end, covered), value, "partial")
            return
        if end > data_date:
            add(series, key, start, data_date, value, "partial")
        else:
            add(series, key, start, end, value)

    for a, key, v in detained:
        add(f"detained_{a}_by_criminality" if key else f"detained_{a}", key, data_date, data_date, v)
    for a, start, v in book_ins:
        add_month(f"book_ins_{a}", "", start, v)
    fy_key = f"FY{fy}"
    for kind, block in (("adp", adp), ("alos", alos)):
        for a, key, start, v in block:
            if start is None:
                if kind == "adp" and not key and v is not None:
                    add(f"adp_{a}_fytd", fy_key, data_date, data_date, v)
                continue
            add_month(f"{kind}_{a}_by_criminality" if key else f"{kind}_{a}", key, start, v)
    for sid, v in removals.items():
        add(sid, fy_key, data_date, data_date, v)

    for r in ice_tables.read(wb, fy=fy, name=name, release=release):  # every other table, each dated by its own footnote
        add(r["series"].removeprefix(ID + "."), r["key"], r["date"], r["end"], r["value"], r["flag"])

    names = pd.Series([f["name"] for f in facilities])
    dup = set(names[names.duplicated()])
    keys = [f"{f['name']} ({f['city']}, {f['state']})" if f["name"] in dup else f["name"] for f in facilities]
    if len(set(keys)) != len(keys):
        seen = pd.Series(keys)
        raise fac.fail(f"table 'facilities': repeated facility {sorted(set(seen[seen.duplicated()]))[:3]} even with city and state")
    for k, f in zip(keys, facilities):
        if f["adp"] is not None:
            add("facility_adp_fytd", k, data_date, data_date, f["adp"])

    releases = pd.DataFrame([{
        "file": name, "fiscal_year": fy, "release_date": release.isoformat(),
        "release_date_from": "file name" if named else "IIDS data date (undated file name)",
        "data_date": data_date.isoformat(), "footnote_data_through": through.isoformat() if through else "",
        "header_sheet_date": header_date.isoformat() if header_date else "",
        "stale_header": "; ".join(stale)}])
    fac_table = pd.DataFrame([{"release": release.isoformat(), "fiscal_year": fy, "key": k, "name": f["name"],
                               "city": f["city"], "state": f["state"], "aor": f["aor"], "facility_type": f["type"]}
                              for k, f in zip(keys, facilities)])
    return Parsed(tidy.frame(rows), {"releases": releases, "facilities": fac_table})


# ---------------------------------------------------------------- integrity checks

def _finding(series, key, date, release, file, flag, message) -> dict:
    return {"series": series, "key": key, "date": date, "release": release, "file": file, "flag": flag, "message": message}


def _sum_checks(obs: pd.DataFrame) -> list[dict]:
    out = []
    idx = ["date", "release", "file"]
    for base in ("detained", "book_ins", "adp"):
        parts = {}
        for a in AGENCIES:
            s = obs[(obs.series == f"{ID}.{base}_{a}") & (obs.key == "")]
            parts[a] = s.set_index(idx)["value"]
        both = pd.concat(parts, axis=1).dropna()
        gap = (both["ice"] + both["cbp"] - both["total"]).abs()
        bad = gap > 0.5 + 1e-4 * both["total"].abs()
        for (d, r, f), row in both[bad].iterrows():
            out.append(_finding(f"{ID}.{base}_total", "", d, r, f, "sum-mismatch",
                                f"{base}: ICE {row.ice:g} + CBP {row.cbp:g} != total {row.total:g}"))
        if base == "book_ins":
            continue
        for a in AGENCIES:
            tot = parts[a]
            crim = obs[obs.series == f"{ID}.{base}_{a}_by_criminality"].groupby(idx)["value"].sum()
            j = pd.concat([tot.rename("total"), crim.rename("parts")], axis=1).dropna()
            bad = (j["parts"] - j["total"]).abs() > 0.5 + 1e-4 * j["total"].abs()
            for (d, r, f), row in j[bad].iterrows():
                out.append(_finding(f"{ID}.{base}_{a}_by_criminality", "", d, r, f, "sum-mismatch",
                                    f"{base} {AGENCIES[a]}: criminality rows sum to {row.parts:g}, total says {row.total:g}"))
    return out


def _decrease_checks(obs: pd.DataFrame) -> list[dict]:
    out = []
    for sid in ("removals_fytd", "removals_famu_fytd", "removals_family_detention_fytd"):
        s = obs[obs.series == f"{ID}.{sid}"].sort_values(["key", "date", "release", "file"])
        for _, g in s.groupby("key"):
            best = None
            for row in g.itertuples():
                if best is not None and row.date > best.date and row.value < best.value:
                    out.append(_finding(row.series, row.key, row.date, row.release, row.file, "decreased",
                                        f"{sid} fell from {best.value:g} (data date {best.date}, release {best.release}) "
                                        f"to {row.value:g}"))
                if best is None or row.value >= best.value:
                    best = row
    return out


def _detained_frame(obs: pd.DataFrame) -> pd.DataFrame:
    """One row per release: ICE, CBP, total detained and the convicted share of each agency."""
    get = lambda sid, key="": obs[(obs.series == f"{ID}.{sid}") & (obs.key == key)].set_index(["release", "file", "date"])["value"]
    d = pd.concat({"ice": get("detained_ice"), "cbp": get("detained_cbp"),
                   "ice_conv": get("detained_ice_by_criminality", "Convicted criminal"),
                   "cbp_conv": get("detained_cbp_by_criminality", "Convicted criminal")}, axis=1)
    d = d.dropna(subset=["ice", "cbp"]).reset_index().sort_values(["release", "file"]).reset_index(drop=True)
    d["inverted"] = (d["ice_conv"] / d["ice"]) < (d["cbp_conv"] / d["cbp"])
    return d


def _transposition_checks(obs: pd.DataFrame) -> list[dict]:
    """ICE and CBP swapped: consecutive releases whose ICE and CBP counts trade places (within 1%).

    Which of the two is wrong is decided by the criminality mix: people ICE arrests are mostly convicted or
    charged, people CBP hands over mostly are not, so the release whose 'ICE' column has the smaller convicted
    share is the transposed one. A release with that inverted mix is flagged even without a swapping neighbour.
    """
    d = _detained_frame(obs)
    hits: dict[int, str] = {}
    close = lambda x, y: abs(x - y) <= SWAP_TOLERANCE * max(abs(x), abs(y), 1)
    for i in range(len(d) - 1):
        a, b = d.iloc[i], d.iloc[i + 1]
        if close(a.ice, a.cbp) or not (close(a.ice, b.cbp) and close(a.cbp, b.ice)):
            continue
        pair = f"ICE/CBP detained {a.ice:g}/{a.cbp:g} in release {a.release} and {b.ice:g}/{b.cbp:g} in {b.release}"
        guilty = [j for j, r in ((i, a), (i + 1, b)) if r.inverted is True or r.inverted == np.True_]
        for j in guilty or (i, i + 1):
            hits[j] = pair + (" swap; this release's ICE column has the criminality mix of CBP arrests"
                              if guilty else " swap; one of the two has ICE and CBP transposed")
    for j, r in d.iterrows():
        if bool(r.inverted) and j not in hits:
            hits[j] = (f"ICE column has a smaller convicted share ({r.ice_conv / r.ice:.0%}) than CBP's "
                       f"({r.cbp_conv / r.cbp:.0%}): ICE and CBP look transposed")
    out = []
    for j, msg in sorted(hits.items()):
        r = d.iloc[j]
        for sid in ("detained_ice", "detained_cbp", "detained_ice_by_criminality", "detained_cbp_by_criminality"):
            out.append(_finding(f"{ID}.{sid}", "", r.date, r.release, r.file, "transposed", msg))
    return out


def _facility_checks(obs: pd.DataFrame) -> list[dict]:
    fac = obs[obs.series == f"{ID}.facility_adp_fytd"].groupby(["release", "file", "date"])["value"].sum()
    nat = obs[obs.series == f"{ID}.adp_total_fytd"].set_index(["release", "file", "date"])["value"]
    det = obs[obs.series == f"{ID}.detained_total"].set_index(["release", "file", "date"])["value"]
    j = pd.concat({"fac": fac, "nat": nat, "det": det}, axis=1).dropna(subset=["fac", "nat"])
    out = []
    lo, hi = FACILITY_RATIO
    for (r, f, d), row in j.iterrows():
        ratio = row.fac / row.nat if row.nat else np.inf
        if not lo <= ratio <= hi:
            extra = f"; {row.det:g} detained on the data date" if pd.notna(row.det) else ""
            out.append(_finding(f"{ID}.facility_adp_fytd", "", d, r, f, "facility-mismatch",
                                f"facility FYTD ADPs sum to {row.fac:,.0f}, {ratio:.1%} of the national FYTD ADP "
                                f"{row.nat:,.0f} (expected {lo:.0%}-{hi:.0%}){extra}"))
    return out


def _stale_checks(obs: pd.DataFrame) -> list[dict]:
    out = []
    # Findings the parser made from a file's own dates (footnotes, Header sheet, data past the header date).
    for (r, f), g in obs[obs.flag.str.contains("stale-header", regex=False)].groupby(["release", "file"]):
        out.append(_finding("", "", "", r, f, "stale-header",
                            f"{len(g)} rows: the file's header date disagrees with its own data"))
    # Across releases: a new release that repeats the previous data date while its figures changed.
    d = _detained_frame(obs)
    prev = None
    for r in d.itertuples():
        if prev is not None and r.date == prev.date and r.release != prev.release and \
                (r.ice, r.cbp) != (prev.ice, prev.cbp) and (r.ice, r.cbp) != (prev.cbp, prev.ice):
            out.append(_finding("", "", "", r.release, r.file, "stale-header",
                                f"release {r.release} repeats the IIDS data date {r.date} of release {prev.release} "
                                f"but its figures changed (detained ICE {prev.ice:g} -> {r.ice:g})"))
        rel = dt.date.fromisoformat(r.release)
        if (rel - dt.date.fromisoformat(r.date)).days > 21:
            out.append(_finding("", "", "", r.release, r.file, "stale-header",
                                f"IIDS data date {r.date} is {(rel - dt.date.fromisoformat(r.date)).days} days before "
                                f"the release date {r.release} (usually 5-14)"))
        prev = r
    return out


def check(obs: pd.DataFrame) -> pd.DataFrame:
    """Integrity checks over every release: findings are flagged, never corrected."""
    obs = obs[obs.series.str.startswith(ID + ".")]
    found = _sum_checks(obs) + _decrease_checks(obs) + _transposition_checks(obs) + _facility_checks(obs) + \
        _stale_checks(obs)
    cols = ["series", "key", "date", "release", "file", "flag", "message"]
    return pd.DataFrame(found, columns=cols).drop_duplicates().reset_index(drop=True)


SOURCE = Source(
    id=ID,
    title="ICE detention statistics workbooks (every release, FY2019 on)",
    publisher="U.S. Immigration and Customs Enforcement (ICE), Enforcement and Removal Operations",
    landing_page=LANDING,
    licence="Public domain (U.S. government work)",
    cadence="about every two weeks during the fiscal year",
    cadence_days=21,
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.xlsx", "ice-detention-stats/original_xlsx/*.xlsx",
               "ice-detention-stats/original_xlsx_wayback/*.xlsx"),
    discover=discover,
    allowed_hosts=("www.ice.gov",),
    browser_user_agent=True,
    attribution=ATTRIBUTION,
    check=check,
)
