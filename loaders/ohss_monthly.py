"""DHS OHSS "Immigration Enforcement and Legal Processes Monthly Tables" (XLSX).

Publisher: the Office of Homeland Security Statistics (OHSS), Department of Homeland Security. Landing page:
https://ohss.dhs.gov/topics/immigration/immigration-enforcement/immigration-enforcement-and-legal-processes-monthly
Files: ``https://ohss.dhs.gov/sites/default/files/<YYYY-MM>/<YYYY_MMDD or YY-MMDD>_ohss_immigration-enforcement-
and-legal-processes-tables-<month>-<year>[_2].xlsx``. Cadence: monthly with a lag of about six weeks, from
January 2024 (data through September 2023); whether releases continued after January 2025 is not known.
Every workbook holds the whole history from FY2014, so each is kept as a release and each month is shown from
the latest one. Terms: US federal government work, public domain.

This is the long official baseline of ICE enforcement before 2025: ERO administrative arrests by criminality
from FY2014, initial book-ins into ICE detention by arresting agency, ICE removals and returns, DHS-wide
removals and returns, and CBP encounters, month by month.

Quirks, and what this module does about each:
- About 35 sheets whose names are truncated and may change ("ICE ERO R&R by Arrest Agcy"); each table is
  found by its title in row 2 (e.g. "ERO Administrative Arrests by Criminality: Fiscal Years 2014 to 2024 YTD
  (August 2024)"), not by sheet name. The arrests, book-ins and ICE removals-and-returns tables are required;
  the DHS removals, repatriations and CBP encounter tables are read when present.
- One or two header rows: a row starting "Fiscal Year", "Month", and above it, sometimes, a row of group
  headings ("Convicted Criminals", "Non-Criminal", "USBP", "OFO") that span several columns; the group is
  carried across to the columns it spans. Footnote digits stuck to headings ("Single Adults1") are removed.
- Per fiscal year a "Total" row with the year in column A (the last one a string, "2024 YTD"), then month rows
  with the month name in column B and column A blank (Excel outline groups). Fiscal-year totals are not kept:
  they are sums of the months (up to rounding) and would mix annual with monthly values.
- "NA" (not available) and "X" (not applicable) are missing values, never zeros. Footnotes follow the table.
- Every cell is rounded to the nearest 10 by DHS to protect privacy, so parts do not add up exactly; every row
  is flagged ``rounded``.
- "ICE ERO Removals and Returns" tables count removals and returns together and cannot be split: their series
  say "removals and returns (combined)". Removals alone come from the DHS-wide tables (ICE and CBP together),
  where removals, enforcement returns and administrative returns are separate columns.
- Release date: the date at the start of the file name (``2024_1206`` or ``24-1011``), when OHSS put the file
  out; else the "Data are current as of <date>" note; else the last day of the month in the title. The month
  in the title, "(August 2024)", is the data month; if the tables run past it or stop short of it every row is
  flagged ``stale-header``.
"""
from __future__ import annotations

import datetime as dt
import io
import re
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd
from python_calamine import CalamineWorkbook

from . import fiscal, parsing, tidy
from .base import Series, Source
from .errors import FetchError, ParseError
from .fetch import linked_files, read_page

ID = "ohss_monthly_tables"
LANDING = ("https://ohss.dhs.gov/topics/immigration/immigration-enforcement/"
           "immigration-enforcement-and-legal-processes-monthly")
FILE_RE = re.compile(r"[\w-]*ohss_immigration-enforcement-and-legal-processes-tables-[a-z]+-\d{4}(?:_\d+)?\.xlsx", re.I)
HREF_RE = re.compile(r"""href\s*=\s*["']([^"'#?]+\.xlsx)(?:\?[^"']*)?["']""", re.I)
MISSING = {"NA": "not available", "X": "not applicable", "D": "withheld", "-": "none", "": "blank"}
_MISSING = frozenset(MISSING)

_DHS = (" Monthly, from the DHS Office of Homeland Security Statistics tables; DHS rounds every cell to the "
        "nearest 10, so parts need not add up to totals.")


def _s(sid, title, metric, agency, unit, definition, breakdown=""):
    return Series(f"{ID}.{sid}", title, metric, agency, unit, "monthly", definition + _DHS, ID, breakdown=breakdown,
                  measure="flow")


_CRIM = ("Keys: 'Convicted criminals (all)' and its subsets (aggravated felons, felons, misdemeanors, other or "
         "unknown; the subsets are given only from FY2022), and 'Non-criminal (all)' with its two parts (pending "
         "criminal charges, from FY2018; other immigration violators, with neither). Do not stack the '(all)' keys "
         "with their subsets.")

SERIES = (
    _s("ero_arrests", "ICE ERO administrative arrests (DHS OHSS)", "arrests", "ICE", "arrests",
       "Administrative immigration arrests made by ICE Enforcement and Removal Operations in the month, from "
       "FY2014. These are ICE arrests, not book-ins and not CBP apprehensions."),
    _s("ero_arrests_by_criminality", "ICE ERO administrative arrests by criminal record (DHS OHSS)", "arrests", "ICE",
       "arrests", "ERO administrative arrests split by the arrested person's criminal record in ICE's system. "
       + _CRIM, breakdown="criminality"),
    _s("book_ins_total", "Initial book-ins into ICE detention, all arresting agencies (DHS OHSS)", "book-ins",
       "ICE+CBP", "book-ins",
       "People booked into ICE detention in the month, whoever arrested them (CBP or ICE). DHS rounds every cell "
       "to 10 on its own, so the total need not equal CBP plus ICE exactly: over the 131 months of the tables the "
       "total minus CBP minus ICE has median 0 and runs from -10 to +20. A book-in is not an arrest."),
    _s("book_ins_ice", "Initial book-ins into ICE detention after an ICE arrest (DHS OHSS)", "book-ins", "ICE",
       "book-ins", "Book-ins into ICE detention where ICE made the initial arrest. A proxy for ICE arrests that led "
       "to detention, not a count of ICE arrests."),
    _s("book_ins_cbp", "Initial book-ins into ICE detention after a CBP arrest (DHS OHSS)", "book-ins", "CBP",
       "book-ins", "Book-ins into ICE detention of people first arrested by CBP (mostly at the border). Not ICE "
       "arrests."),
    _s("ice_removals_and_returns_total", "ICE removals and returns combined (DHS OHSS)", "removals-and-returns",
       "ICE", "removals and returns",
       "Removals (under an order) and returns (without one) carried out by ICE ERO, counted together: the table "
       "does not separate them. Includes people with another or unknown arresting agency."),
    _s("ice_removals_and_returns_by_arresting_agency", "ICE removals and returns combined, by arresting agency (DHS OHSS)",
       "removals-and-returns", "ICE", "removals and returns",
       "ICE ERO removals and returns together, by the agency that first arrested the person (CBP or ICE).",
       breakdown="arresting agency"),
    _s("ice_removals_and_returns_by_criminality", "ICE removals and returns combined, by criminal record (DHS OHSS)",
       "removals-and-returns", "ICE", "removals and returns",
       "ICE ERO removals and returns together, by criminal record. Before FY2022 the table puts every convicted "
       "person under 'other or unknown'. " + _CRIM, breakdown="criminality"),
    _s("dhs_removals_total", "DHS removals, ICE and CBP together (DHS OHSS)", "removals", "DHS", "removals",
       "Removals under an order of removal completed by ICE or CBP; returns are excluded. Includes removals with "
       "another or unknown arresting agency."),
    _s("dhs_removals_by_arresting_agency", "DHS removals by arresting agency (DHS OHSS)", "removals", "DHS",
       "removals", "DHS removals (not returns) by the agency that first arrested the person (CBP or ICE).",
       breakdown="arresting agency"),
    _s("dhs_removals_by_type", "DHS removals by type (DHS OHSS)", "removals", "DHS", "removals",
       "DHS removals (not returns) by type: expedited removals, reinstatements of earlier removal orders, other "
       "removals.", breakdown="removal type"),
    _s("dhs_enforcement_returns", "DHS enforcement returns (DHS OHSS)", "returns", "DHS", "returns",
       "Returns without an order of removal after an enforcement action (withdrawals in lieu of proceedings, "
       "voluntary returns and departures). Not removals."),
    _s("dhs_administrative_returns", "DHS administrative returns (DHS OHSS)", "returns", "DHS", "returns",
       "Returns by CBP officers at ports of entry after administrative encounters (withdrawn applications where "
       "no proceedings were considered, crew members kept aboard). Not removals."),
    _s("cbp_encounters_total", "CBP encounters nationwide (DHS OHSS)", "encounters", "CBP (USBP+OFO)", "encounters",
       "All CBP encounters, enforcement and administrative, at every border, port and airport. Events, not people."),
    _s("cbp_encounters_by_region", "CBP encounters by region (DHS OHSS)", "encounters", "CBP (USBP+OFO)",
       "encounters", "All CBP encounters by region: southwest land border, northern land border, coastal border, "
       "air ports of entry.", breakdown="region"),
    _s("cbp_encounters_by_type", "CBP encounters by encounter type, enforcement or administrative (DHS OHSS)",
       "encounters", "CBP (USBP+OFO)", "encounters",
       "Nationwide CBP encounters split into enforcement encounters (all Border Patrol encounters, OFO encounters "
       "with enforcement outcomes, Title 42 expulsions) and OFO administrative encounters (cases where no removal "
       "proceedings were considered).", breakdown="encounter type"),
    _s("swb_encounters_total", "CBP encounters at the southwest border (DHS OHSS)", "encounters", "CBP (USBP+OFO)",
       "encounters", "Southwest land border encounters by Border Patrol and OFO together."),
    _s("swb_encounters_usbp", "U.S. Border Patrol encounters at the southwest border (DHS OHSS)", "encounters",
       "USBP", "encounters", "Southwest land border encounters by Border Patrol, between ports of entry."),
    _s("swb_encounters_ofo", "OFO encounters at southwest land ports of entry (DHS OHSS)", "encounters", "OFO",
       "encounters", "Southwest land border encounters by the Office of Field Operations at ports of entry."),
)


# ---------------------------------------------------------------- reading one table

@dataclass
class Table:
    sheet: str
    title: str
    columns: list[tuple[str, str]]  # (group heading, column heading) for columns C onward
    months: list[tuple[str, int, list]]  # (ISO month start, sheet row number, values of columns C onward)
    notes: list[str] = field(default_factory=list)

    def column(self, label: str, group: str = "", *, file: str) -> int:
        """Index of the column whose heading (and group heading, if given) match, case-insensitively."""
        for i, (g, c) in enumerate(self.columns):
            if _norm(c) == _norm(label) and (not group or _norm(g) == _norm(group)):
                return i
        raise ParseError(f"sheet {self.sheet!r}: no column {label!r}" + (f" under {group!r}" if group else "")
                         + f"; columns are {self.columns}", source=ID, file=file)


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", str(s).replace("/ ", "/")).strip().lower()


def _heading(v) -> str:
    s = re.sub(r"\s+", " ", str(v)).strip()
    return re.sub(r"(?<=[a-z)])\d+$", "", s)  # a footnote marker glued to the heading: "Single Adults1"


def _fiscal_year(v) -> tuple[int, bool] | None:
    if isinstance(v, (int, float)) and not isinstance(v, bool) and 1990 <= v <= 2100 and v == int(v):
        return int(v), False
    m = re.fullmatch(r"(?:FY\s*)?(\d{4})(?:\.0)?\s*(YTD)?", str(v).strip(), re.I)
    return (int(m[1]), bool(m[2])) if m else None


def read_table(sheet: str, rows: list[list], file: str) -> Table:
    """One OHSS monthly table: title, headings, and the month rows of every fiscal year."""
    title = next((str(r[0]).strip() for r in rows[:4] if r and "fiscal year" in str(r[0]).lower()), "")
    head = next((i for i, r in enumerate(rows[:12]) if len(r) > 2 and _norm(r[0]) == "fiscal year"
                 and _norm(r[1]) == "month"), None)
    if head is None:
        raise ParseError(f"sheet {sheet!r}: no header row starting 'Fiscal Year', 'Month' in the first 12 rows",
                         source=ID, file=file)
    width = len(rows[head])
    groups = _column_groups(rows, head, width)
    columns = [(groups[j], _heading(rows[head][j])) for j in range(2, width)]
    months, notes = _month_rows(sheet, rows, head, file)
    if not months:
        raise ParseError(f"sheet {sheet!r}: no month rows under the header", source=ID, file=file)
    dates = [m[0] for m in months]
    if len(set(dates)) != len(dates):
        dup = next(d for d in dates if dates.count(d) > 1)
        raise ParseError(f"sheet {sheet!r}: month {dup} appears twice", source=ID, file=file)
    return Table(sheet, title, columns, months, notes)


def _column_groups(rows: list[list], head: int, width: int) -> list[str]:
    """Each column's group heading, from the row above the header ("" when that row holds none)."""
    groups = [""] * width
    above = rows[head - 1] if head >= 1 else []
    if head >= 1 and not _norm(above[0]) and any(str(x).strip() for x in above[2:]):
        g = ""
        for j in range(2, width):
            cell = _heading(above[j]) if j < len(above) else ""
            g = cell or g  # a group heading spans the blank cells after it (merged cells)
            groups[j] = g
    return groups


def _month_rows(sheet: str, rows: list[list], head: int, file: str) -> tuple[list, list[str]]:
    """The rows under the header: (month start, row number, values) for each month row, each fiscal year
    named by its Total row, and the other non-empty rows as notes."""
    width = len(rows[head])
    months, notes, fy = [], [], None
    for i in range(head + 1, len(rows)):
        r = list(rows[i]) + [""] * (width - len(rows[i]))
        a, b = r[0], str(r[1]).strip()
        fy_here = _fiscal_year(a)
        if _norm(b) == "total" and fy_here:
            fy = fy_here[0]
            continue
        # Month rows leave column A blank; accept a repeated fiscal year there too rather than drop the row.
        month = fiscal.month_number(b)
        if month and (not str(a).strip() or fy_here):
            if str(a).strip() and fy_here:
                fy = fy_here[0]
            if fy is None:
                raise ParseError(f"sheet {sheet!r} row {i + 1}: month {b!r} before any fiscal-year Total row",
                                 source=ID, file=file)
            start = fiscal.month_start(fy, month).isoformat()
            vals = [parsing.number(r[j], source=ID, file=file, row=f"sheet {sheet!r} row {i + 1}",
                                   field=_heading(rows[head][j]), missing=_MISSING, field_kind="column")
                    for j in range(2, width)]
            months.append((start, i + 1, vals))
            continue
        if str(a).strip() or b:
            notes.append(" ".join(str(x) for x in r if str(x).strip()))
    return months, notes


def _crim_key(group: str, label: str) -> str | None:
    g, lab = _norm(group), _norm(label)
    if "non-criminal" in g:
        if lab.startswith("total"):
            return "Non-criminal (all)"
        return "Non-criminal: " + label.replace("/ ", "/").lower()
    if "convicted" in g:
        if lab.startswith("total"):
            return "Convicted criminals (all)"
        return "Convicted: " + label.replace("/ ", "/").lower()
    return None


@dataclass(frozen=True)
class Spec:
    title: re.Pattern
    # (table, file name) -> (series, key, column index) for each value column the table gives.
    picks: Callable[[Table, str], list[tuple[str, str, int]]]
    required: bool = False


def _fixed(*items: tuple[str, str, str, str]):
    def pick(t: Table, file: str):
        return [(sid, key, t.column(label, group, file=file)) for sid, key, label, group in items]
    return pick


def _by_criminality(total_sid: str | None, crim_sid: str):
    def pick(t: Table, file: str):
        out = [] if total_sid is None else [(total_sid, "", t.column("Total", "", file=file))]
        for i, (g, c) in enumerate(t.columns):
            key = _crim_key(g, c)
            if key:
                out.append((crim_sid, key, i))
        if len({k for _, k, _ in out}) < 3:
            raise ParseError(f"sheet {t.sheet!r}: no criminality columns found in {t.columns}", source=ID, file=file)
        return out
    return pick


def _regions(t: Table, file: str):
    out = [("cbp_encounters_total", "", t.column("Total", "Total CBP", file=file))]
    for i, (g, c) in enumerate(t.columns):
        if _norm(g) == "total cbp" and _norm(c) != "total":
            out.append(("cbp_encounters_by_region", c, i))
    out += [("cbp_encounters_by_type", "Enforcement encounters", t.column("Total", "Enforcement Encounters", file=file)),
            ("cbp_encounters_by_type", "Administrative encounters",
             t.column("Total", "Administrative Encounters", file=file))]
    return out


SPECS = (
    Spec(re.compile(r"^ERO Administrative Arrests by Criminality", re.I),
         _by_criminality("ero_arrests", "ero_arrests_by_criminality"), required=True),
    Spec(re.compile(r"^Book-Ins to ICE Detention by (Initial )?Arresting Agency", re.I),
         _fixed(("book_ins_total", "", "Total", ""), ("book_ins_cbp", "", "CBP", ""), ("book_ins_ice", "", "ICE", "")),
         required=True),
    Spec(re.compile(r"^ICE ERO Removals and Returns by (Initial )?Arresting Agency", re.I),
         _fixed(("ice_removals_and_returns_total", "", "Total", ""),
                ("ice_removals_and_returns_by_arresting_agency", "CBP", "CBP", ""),
                ("ice_removals_and_returns_by_arresting_agency", "ICE", "ICE", "")), required=True),
    Spec(re.compile(r"^ICE ERO Removals and Returns by Criminality", re.I),
         _by_criminality(None, "ice_removals_and_returns_by_criminality")),
    Spec(re.compile(r"^DHS Removals by (Initial )?Arresting Agency", re.I),
         _fixed(("dhs_removals_total", "", "Total", ""), ("dhs_removals_by_arresting_agency", "CBP", "CBP", ""),
                ("dhs_removals_by_arresting_agency", "ICE", "ICE", ""))),
    Spec(re.compile(r"^DHS Repatriations by Type", re.I),
         _fixed(("dhs_removals_by_type", "Expedited removals", "Expedited Removals", "DHS Removals"),
                ("dhs_removals_by_type", "Reinstatements of removal orders", "Reinstatements of Removal Orders",
                 "DHS Removals"),
                ("dhs_removals_by_type", "Other removals", "Other Removals", "DHS Removals"),
                ("dhs_enforcement_returns", "", "Total Enforcement Returns", "DHS Enforcement Returns"),
                ("dhs_administrative_returns", "", "Total Administrative Returns", "DHS Administrative Returns"))),
    Spec(re.compile(r"^Nationwide CBP Encounters by Encounter Type and Region", re.I), _regions),
    Spec(re.compile(r"^CBP SW Border Encounters by Agency and Family Status", re.I),
         _fixed(("swb_encounters_total", "", "Total", "Total CBP"), ("swb_encounters_usbp", "", "Total", "USBP"),
                ("swb_encounters_ofo", "", "Total", "OFO"))),
)


# ---------------------------------------------------------------- release and data dates

TITLE_MONTH_RE = re.compile(r"\((January|February|March|April|May|June|July|August|September|October|November|"
                            r"December)\s+(\d{4})\)\s*$", re.I)
NAME_DATE_RE = re.compile(r"^(?:(\d{4})_(\d{2})(\d{2})|(\d{2})-(\d{2})(\d{2}))_")
CURRENT_RE = re.compile(r"current as of (\w+ \d{1,2}, \d{4})", re.I)


def release_of(name: str, notes: list[str], data_month: str | None) -> str:
    """The file name's date, else the "current as of" date, else the end of the title's data month."""
    m = NAME_DATE_RE.match(name.rsplit("/", 1)[-1])
    if m:
        y, mo, d = (m[1], m[2], m[3]) if m[1] else ("20" + m[4], m[5], m[6])
        try:
            return dt.date(int(y), int(mo), int(d)).isoformat()
        except ValueError:
            pass
    for n in notes:
        c = CURRENT_RE.search(n)
        if c:
            try:
                return dt.datetime.strptime(c[1], "%B %d, %Y").date().isoformat()
            except ValueError:
                pass
    if data_month:
        return fiscal.month_end(dt.date.fromisoformat(data_month)).isoformat()
    return ""


def title_month(title: str) -> str | None:
    m = TITLE_MONTH_RE.search(title)
    month = fiscal.month_number(m[1]) if m else None
    return dt.date(int(m[2]), month, 1).isoformat() if m and month else None


# ---------------------------------------------------------------- parse

def _sheets(content: bytes, name: str) -> dict[str, list[list]]:
    try:
        wb = CalamineWorkbook.from_filelike(io.BytesIO(content))
        return {s: wb.get_sheet_by_name(s).to_python() for s in wb.sheet_names}
    except Exception as e:  # calamine raises its own error types for broken workbooks
        raise ParseError(f"not a readable XLSX workbook ({type(e).__name__}: {e})", source=ID, file=name) from None


def parse(content: bytes, name: str = "") -> pd.DataFrame:
    sheets = _sheets(content, name)
    titled = {}
    for sheet, rows in sheets.items():
        title = next((str(r[0]).strip() for r in rows[:4] if r and "fiscal year" in str(r[0]).lower()), "")
        if title:
            titled[sheet] = title
    tables: list[tuple[Table, list]] = []
    for spec in SPECS:
        hit = [s for s, t in titled.items() if spec.title.search(t)]
        if not hit:
            if spec.required:
                raise ParseError(f"no sheet whose title matches {spec.title.pattern!r}; titles are "
                                 f"{sorted(titled.values())[:40]}", source=ID, file=name)
            continue
        t = read_table(hit[0], sheets[hit[0]], name)
        tables.append((t, spec.picks(t, name)))
    data_month = title_month(tables[0][0].title)
    notes = [n for t, _ in tables for n in t.notes]
    release = release_of(name, notes, data_month)
    tidy_rows: list[dict] = []
    for t, picks in tables:
        last = max(m[0] for m in t.months)
        flag = "rounded" if data_month in (None, last) else "rounded;stale-header"
        for start, _row, vals in t.months:
            end = fiscal.month_end(dt.date.fromisoformat(start)).isoformat()
            for sid, key, col in picks:
                v = vals[col]
                if v is not None:
                    tidy_rows.append({"series": f"{ID}.{sid}", "key": key, "date": start, "end": end, "value": v,
                                      "release": release, "flag": flag})
    out = tidy.frame(tidy_rows)
    out["file"] = name
    return out


# ---------------------------------------------------------------- discovery

def discover(session) -> list[str]:
    """Every monthly-tables workbook the landing page links to (each one is a release)."""
    urls = linked_files(read_page(session, LANDING, source=ID), LANDING, HREF_RE, lambda n: bool(FILE_RE.fullmatch(n)))
    if not urls:
        raise FetchError(f"no monthly-tables workbook linked from {LANDING}; has the page or the file naming changed?",
                         source=ID)
    return urls


SOURCE = Source(
    id=ID,
    title="DHS OHSS Immigration Enforcement and Legal Processes Monthly Tables (XLSX)",
    publisher="Office of Homeland Security Statistics, U.S. Department of Homeland Security",
    landing_page=LANDING,
    licence="US government work, public domain",
    cadence="monthly, about six weeks after the month (continuation after January 2025 unverified)",
    cadence_days=60,
    release_dated="published",
    release_rule="the date at the start of the file name, else the data-currency note, else the last day of the title's month",
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.xlsx", "ohss-monthly-tables/*ohss_immigration-enforcement-and-legal-processes-tables-*.xlsx"),
    discover=discover,
    allowed_hosts=("ohss.dhs.gov",),
    attribution="Source: DHS Office of Homeland Security Statistics, monthly tables (values rounded to 10)",
    extra={"file_kind": "xlsx"},
)
