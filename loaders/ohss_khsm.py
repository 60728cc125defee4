"""DHS OHSS Key Homeland Security Metrics (KHSM): CBP Encounters, U.S. Border Patrol workbook (XLSX).

Publisher: the Office of Homeland Security Statistics (OHSS), Department of Homeland Security. Landing page:
https://ohss.dhs.gov/khsm/cbp-encounters . The workbook ("KHSM Encounters (USBP) fy25m11.xlsx", spaces and
brackets in the name) gives Border Patrol encounters month by month from FY2000: the longest official series
of border apprehensions. Cadence: monthly while it was updated; each file holds the whole history, so each is
kept as a release and each month is shown from the latest one. Terms: US federal government work, public domain.

Border Patrol (USBP) encounters are apprehensions between ports of entry (and Title 42 expulsions while that
order ran). They are not port-of-entry inadmissibles (CBP's Office of Field Operations) and not ICE arrests.

Quirks, and what this module does about each:
- 16 sheets (Annual/Monthly x Count, Citizenship, Region, Family Status, Sector and their pairs). Only
  ``Monthly Count`` (nationwide) and ``Monthly Region`` are read; sheets are found by name, case-insensitively.
  The sector and citizenship sheets are left out: each release repeats 25 years of history, and they would add
  thousands of rows per release to the snapshot for series the page does not show.
- The header is ``Fiscal\\nYear`` with a line break inside the cell; headings are compared with all white
  space collapsed.
- Months are written ``"01 October"`` ... ``"12 September"``: a fiscal-year order prefix, then the name. The
  prefix is checked against the name (a mismatch is an error, not a guess); October to December belong to the
  calendar year before the fiscal year's number.
- Values are rounded to the nearest 10 by DHS, so the regions need not add up to the nationwide count and a
  month can differ by a few encounters from CBP's exact public file (FY2025 October, Southwest: 56,530 here,
  56,520 in CBP's CSV). Every row is flagged ``rounded``; both sources are kept.
- Release date: the file name tag ``fyYYmMM`` reads as fiscal year YY, calendar month MM (``fy25m11`` =
  November 2024, the workbook's last month), taken as the last day of that month: the data date, a lower bound
  on the publication date. Without a tag, the last month in the workbook is used. If the tag and the last month
  disagree every row is flagged ``stale-header``.
"""
from __future__ import annotations

import datetime as dt
import io
import re

import pandas as pd
from python_calamine import CalamineError, CalamineWorkbook

from . import fiscal, tidy
from .base import Series, Source
from .errors import FetchError, ParseError
from .fetch import linked_files, read_page

ID = "ohss_khsm"
LANDING = "https://ohss.dhs.gov/khsm/cbp-encounters"
MONTH_RE = re.compile(r"^(\d{1,2})\s+([A-Za-z]+)$")
TAG_RE = re.compile(r"fy(\d\d)m(\d\d)", re.I)
# The landing page's link to the USBP workbook; spaces may come encoded (%20) or not.
HREF_RE = re.compile(r"""href\s*=\s*["']([^"'#?]*KHSM(?:%20|\s|_|-)*Encounters"""
                     r"""(?:%20|\s|_|-)*(?:\(|%28)?USBP[^"'#?]*\.xlsx)["']""", re.I)

_DEF = (" USBP encounters are Border Patrol apprehensions between ports of entry, plus Title 42 expulsions from "
        "March 2020 to May 2023; they are events, not people, and not ICE arrests or port-of-entry inadmissibles. "
        "From the DHS Key Homeland Security Metrics workbook, FY2000 onward; DHS rounds every value to the nearest "
        "10.")

SERIES = (
    Series(f"{ID}.usbp_encounters", "U.S. Border Patrol encounters nationwide (DHS KHSM)", "encounters", "USBP",
           "encounters", "monthly", "Border Patrol encounters on all borders and coasts in the month." + _DEF, ID,
           measure="flow"),
    Series(f"{ID}.usbp_encounters_by_region", "U.S. Border Patrol encounters by border region (DHS KHSM)",
           "encounters", "USBP", "encounters", "monthly",
           "Border Patrol encounters by region: Southwest Land Border, Northern Land Border, Coastal Border." + _DEF,
           ID, breakdown="region", measure="flow"),
)

# sheet name -> (series id, name of the breakdown column or None)
SHEETS = {"monthly count": ("usbp_encounters", None), "monthly region": ("usbp_encounters_by_region", "region")}


def _norm(v) -> str:
    return re.sub(r"\s+", " ", str(v)).strip().lower()


def _month(v, fy: int, *, sheet: str, row: int, name: str) -> dt.date:
    m = MONTH_RE.match(str(v).strip())
    month = fiscal.month_number(m[2]) if m else None
    if not m or month is None or int(m[1]) != fiscal.FISCAL_POSITION[month]:
        raise ParseError(f"sheet {sheet!r} row {row} column 'Month': {v!r} is not a fiscal month like '01 October'",
                         source=ID, file=name)
    return fiscal.month_start(fy, month)


def _fy(v, *, sheet: str, row: int, name: str) -> int:
    try:
        fy = int(float(str(v).strip()))
    except ValueError:
        fy = 0
    if not 1990 <= fy <= 2100:
        raise ParseError(f"sheet {sheet!r} row {row} column 'Fiscal Year': {v!r} is not a fiscal year",
                         source=ID, file=name)
    return fy


def _quantity(v, *, sheet: str, row: int, name: str) -> float | None:
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    s = str(v).strip().replace(",", "")
    if s in ("", "NA", "X", "D", "-"):
        return None
    try:
        return float(s)
    except ValueError:
        raise ParseError(f"sheet {sheet!r} row {row} column 'Quantity': {v!r} is not a number", source=ID,
                         file=name) from None


def read_sheet(sheet: str, rows: list[list], key_column: str | None, name: str) -> list[tuple[dt.date, str, float]]:
    """(month start, key, value) for every data row of a Monthly sheet."""
    head = next((i for i, r in enumerate(rows[:5]) if r and _norm(r[0]) == "fiscal year"), None)
    if head is None:
        raise ParseError(f"sheet {sheet!r}: no header row starting 'Fiscal Year'", source=ID, file=name)
    cols = [_norm(c) for c in rows[head]]
    need = ["fiscal year", "month", "quantity"] + ([key_column] if key_column else [])
    missing = [c for c in need if c not in cols]
    if missing:
        raise ParseError(f"sheet {sheet!r}: missing column(s) {missing}; header is {rows[head]}", source=ID, file=name)
    ci = {c: cols.index(c) for c in need}
    out, seen = [], set()
    for i in range(head + 1, len(rows)):
        r = rows[i]
        if not any(str(x).strip() for x in r):
            continue
        n = i + 1
        fy = _fy(r[ci["fiscal year"]], sheet=sheet, row=n, name=name)
        start = _month(r[ci["month"]], fy, sheet=sheet, row=n, name=name)
        key = str(r[ci[key_column]]).strip() if key_column else ""
        if (start, key) in seen:
            raise ParseError(f"sheet {sheet!r} row {n}: {start:%Y-%m} {key!r} appears twice", source=ID, file=name)
        seen.add((start, key))
        v = _quantity(r[ci["quantity"]], sheet=sheet, row=n, name=name)
        if v is not None:
            out.append((start, key, v))
    if not out:
        raise ParseError(f"sheet {sheet!r}: no data rows", source=ID, file=name)
    return out


def release_of(name: str, last_month: dt.date) -> tuple[str, str]:
    """(release date, flag): the month in the file name's fyYYmMM tag, else the last month (see the docstring)."""
    last_end = fiscal.month_end(last_month).isoformat()
    m = TAG_RE.search(name)
    if not m or not 1 <= int(m[2]) <= 12:
        return last_end, ""
    named = fiscal.month_end(fiscal.month_start(2000 + int(m[1]), int(m[2]))).isoformat()
    return named, "" if named == last_end else "stale-header"


def parse(content: bytes, name: str = "") -> pd.DataFrame:
    try:
        wb = CalamineWorkbook.from_filelike(io.BytesIO(content))
        names = {_norm(s): s for s in wb.sheet_names}
    except Exception as e:  # calamine raises its own error types for broken workbooks
        raise ParseError(f"not a readable XLSX workbook ({type(e).__name__}: {e})", source=ID, file=name) from None
    found = {}
    for wanted, (sid, key_column) in SHEETS.items():
        if wanted not in names:
            raise ParseError(f"no sheet named {wanted!r} (sheets: {wb.sheet_names})", source=ID, file=name)
        sheet = names[wanted]
        try:
            cells = wb.get_sheet_by_name(sheet).to_python()
        except CalamineError as e:  # the zip opened but this sheet's XML is broken
            raise ParseError(f"sheet {sheet!r} is not readable ({type(e).__name__}: {e})", source=ID, file=name) from None
        found[sid] = read_sheet(sheet, cells, key_column, name)
    last = max(d for recs in found.values() for d, _, _ in recs)
    release, extra = release_of(name, last)
    flag = "rounded" + (";" + extra if extra else "")
    rows = [{"series": f"{ID}.{sid}", "key": key, "date": d, "end": fiscal.month_end(d), "value": v,
             "release": release, "flag": flag}
            for sid, recs in found.items() for d, key, v in recs]
    out = tidy.frame(rows)
    out["file"] = name
    return out


def discover(session) -> list[str]:
    """The USBP encounters workbook(s) linked from the KHSM CBP-encounters page."""
    urls = linked_files(read_page(session, LANDING, source=ID), LANDING, HREF_RE)
    if not urls:
        raise FetchError(f"no KHSM USBP encounters workbook linked from {LANDING}; has the page changed?", source=ID)
    return urls


SOURCE = Source(
    id=ID,
    title="DHS OHSS Key Homeland Security Metrics: U.S. Border Patrol encounters (XLSX)",
    publisher="Office of Homeland Security Statistics, U.S. Department of Homeland Security",
    landing_page=LANDING,
    licence="US government work, public domain",
    cadence="monthly while updated (the copy here runs to November 2024)",
    cadence_days=60,
    release_dated="data date",
    release_rule="the last day of the month in the file name's fyYYmMM tag, else of the last month",
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.xlsx", "ohss-khsm/KHSM Encounters*.xlsx"),
    discover=discover,
    allowed_hosts=("ohss.dhs.gov",),
    attribution="Source: DHS Office of Homeland Security Statistics, Key Homeland Security Metrics (rounded to 10)",
    extra={"file_kind": "xlsx"},
)
