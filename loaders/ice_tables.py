"""The rest of ICE's detention-statistics workbook: every table beyond the seven ``ice_detention_stats`` reads itself.

Each table is declared as data in the one spec type every ICE table uses, ``workbook.TableSpec``: the sheet and
title it is found by, the shape ICE prints it in (``layout``), its columns and the series its figures go to, the
first and last fiscal year whose workbooks carry it, and where its date comes from. Tables of the "grid" shape
(category rows x value columns) are read by the generic ``workbook.read_table``, as the headline tables are; each
other shape has one reader here (``READERS``), named for what ICE prints: "nested" (ATD field offices with their
technologies under them, one sometimes printed without a label), "months" (rows x Oct..Sep, one or two label
columns), "calendar-months" (the bond table's dated month columns), "snapshot-days" (ICLOS's year / month / mid-end
header) and "monthly-blocks" / "quarterly-blocks" (the segregation sheets' repeated period blocks). How a shape's
rows are dated is ``DATING``. Sheets are chosen with ``workbook.choose_sheet_name``, numbers and dates read with
``loaders.parsing``. ``read(wb, ...)`` is called once from ``ice_detention_stats.parse`` and returns tidy rows
(``series,key,date,end,value,flag``); the caller adds release and file.

Which releases carry which table (checked on every workbook in ../shared/data, FY2019-FY2026):

=====================================  =========  =================================================================
table                                  from FY    notes
=====================================  =========  =================================================================
atd_status, atd_aor                    2019       ATD sheet; the FY2023 and FY2024 workbooks also hold another
                                                  year's ATD sheet (``ATD FY24 YTD`` in FY23, ``ATD EOFY23`` in FY24):
                                                  the sheet whose name carries the workbook's fiscal year is read
atd_technology                         2022
atd_court                              2023       "FY26 thru March Court Appearance": fiscal year to the end of the
                                                  month named in the title ("Year End": September 30)
disposition, fear_time, fear_facility  2019/2020  fear tables from FY2020; FRC columns (FY2019-21) became FSC
book_ins_facility, book_outs_facility  2019       "Final Releases" until FY2023, "Final Book Outs" from FY2024
book_outs_reason_annual                2019-2020  one fiscal-year column per criminality
book_outs_reason                       2021       monthly, reason x criminality, with a fiscal-year Total column
adp_facility, alos_facility            2019       not in FY2024 or the FY2025-01 releases (no family facilities);
                                                  back by the 2025-09-24 release
iclos, iclos_detainees                 2022       snapshots on the 15th ("mid") and last day ("end") of each month
bond                                   2022       12 prior months plus the current one, by calendar month
vulnerable                             2022       quarterly segregation placements by reason
segregation                            2024       monthly segregation placements by facility
=====================================  =========  =================================================================

A table is skipped (no rows, no error) in a workbook older than its first fiscal year. In a workbook of a year
that should carry it, a missing title, a missing or renamed column, or an unknown row label is a ``ParseError``
naming the file, sheet and table.

Dates. Every table takes its date from ICE's own text, never from the Facilities sheet's IIDS date:
- the Footnotes section that belongs to the table ("FY2026 ICE Final Book Outs ... updated through 04/04/2026";
  "ICE National Docket data are a snapshot as of ..."; "ICE ICLOS and Detainees Data are updated through ...");
- ATD tables: the "Data from BI Inc. Participants Report, 04.04.2026" line under the table or "as of" in its title.
Snapshot tables (people on ATD, currently detained by disposition) are one point at their as-of date. Fiscal-year-
to-date tables are one point per release at their data-through date, with the fiscal year first in the key
(``FY2026 | Adult | Total``). Monthly tables have one row per month; the month holding the data-through date ends
at it and is flagged ``partial``; a month that starts after it is dropped when ICE prints 0 or nothing there.
Keys join the row labels (and the breakdown column) with `` | ``; totals are kept as rows labelled ``Total``, so
never add keys of one series together.

Cross-check with the Deportation Data Project's parse (tests/test_ice_tables.py, all 15 releases in both): every
figure present in both agrees. The differences, each asserted there so that a new one fails:
- DDP reads the first ATD sheet; in the FY2023 end-of-year workbook that is ``ATD FY24 YTD`` (FY2024 data), so
  its FY2023 ATD figures for that file are another year's. This module reads ``ATD EOFY23``.
- DDP keeps fewer rows: the first two rows of book-ins and book-outs by facility type (not the third), four
  processing dispositions (not "Other"), the first seven groups of book-outs by reason (release-type reasons; not
  removals, transfers, relief or other; in the 2026-04-09 release "Paroled" falls outside its seven), no grand
  total per segregation month, the fiscal year's months only of the bond table, no Total column of the
  disposition table in layouts without a family column, and drops an ATD row repeating another office's (Seattle's
  "Dual Tech" = San Francisco's in 2026-02-12 and 2026-04-09) and a technology row ICE printed without its label
  (2026-02-02). It misses the FY2022 block titled "FY 2022 Quarter 2 Data", and has no fear-decision headcount
  before its 2025-05-09 release. It keeps ICE's 0 for months not reached yet; this module drops them.
- DDP keeps only the latest ICLOS value per population (and a count of non-zero points; both agree).
- DDP does not parse ADP or length of stay by facility type: those are checked against ICE's agency table of the
  same release instead (the facility types partition the same population, so the totals agree to 0.01).
Other quirks: Monthly Bond Statistics in the 2026-04-09 release print the "Total ICE Final Book Outs" and "with
Bond Posted" labels swapped (37,537 "with bond" of 1,124; a "share" of 33.4): the share row equals the swapped
ratio, which proves the swap, so the month's figures are corrected and flagged ``corrected`` with a finding naming
the printed values (``_flag_bond_swaps``); a swap the file does not prove is kept as printed, flagged
``mislabelled`` (DDP keeps them as printed). FY2026 workbooks print 0 in every bond row for the months before
October: a month that is 0 in every row is dropped as missing. The ICLOS year row stops after 2025 in FY2026
files: a month name that does not follow the one before starts the next year. ICE renamed ICLOS populations
between releases ("Individuals" / "Aliens"; "Post-Determination ... with Positive Fear Claim" / "... with a
Positive Fear Determination Still in Custody") and revised the figures with them; keys are kept as printed.
Not read: the Semiannual sheet (arrests, book-ins and removals of armed-forces members, U.S. citizens, parents of
U.S. citizens and TPS nationals by fiscal year), credible-fear parole requests and decisions, stateless detainees
by facility, and the transgender detainee sheet.
"""
from __future__ import annotations

import calendar
import datetime as dt
import math
import re
from typing import Mapping

from .base import FISCAL_YTD, Series
from .errors import ParseError
from .parsing import find_mdy, month_end, number
from .tidy import MAX_VALUE
from .workbook import (
    MONTHS,
    Sheet,
    TableSpec,
    choose_sheet_name,
    column_letter,
    content_fiscal_year,
    fiscal_month_start,
    fiscal_year_of,
    hidden_sheets,
    label,
    match_columns,
    norm,
    read_sheet,
    read_table,
    sections,
)

ID = "ice_detention_stats"
MONTH_NAMES = {m: i for i, m in enumerate(calendar.month_name) if m}
CRIMS = ("Convicted Criminal", "Pending Criminal Charges", "Other Immigration Violator")
# Technologies ATD lists under each field office; any other label in that table is a field office.
TECHNOLOGIES = {"GPS", "SmartLINK", "VoiceID", "TR", "Ankle Monitor", "Wristworn", "Dual Tech", "Dual Technology",
                "No Technology", "No Tech", "SmartLink", "VeriWatch"}
# Labels ICE spells two ways across releases: one spelling so a series does not break in two.
ALIASES = {"Medical Mental": "Medical/Mental Health", "Average": "Total", "Grand Total": "Total",
           "Veriwatch": "VeriWatch", "No Tech": "No Technology", "Dual Technology": "Dual Tech"}


# ---------------------------------------------------------------- declarations

def _table(name: str, sheet: str, title: str, layout: str, period: str, columns: dict, date: tuple, **kw) -> TableSpec:
    """A ``workbook.TableSpec`` written in the order these declarations read best: name, sheet, title, the shape
    ICE prints (``workbook.LAYOUTS``), the period its figures cover, its columns (header label, or a tuple of
    ICE's spellings -> (series id suffix, breakdown member)) and where its date comes from."""
    return TableSpec(name, title, sheet, columns, layout, date=date, period=period, **kw)


_DETENTION = r"^\s*Detention\b"
_ATD = r"^\s*ATD\b"
_F_BOOKOUTS = ("footnote", r"Final (Book ?Outs?|Releases)", r"updated through|filtered through")
_F_BOOKINS = ("footnote", r"Initial Book-?Ins", r"updated through|filtered through")
_F_ADP = ("footnote", r"Average Daily Population", r"updated through|filtered through")
_F_DOCKET = ("footnote", r"Currently Detained Population", r"snapshot as")
_F_FEAR_NOW = ("footnote", r"USCIS Average Time", r"snapshot as")
# FY2020 words it "EOFY2020 ICE Releases data are historic and static. Data are filtered through ..."
_F_FEAR_RELEASES = ("footnote", r"USCIS Average Time", r"(?:Releases?|Book ?Outs?) data[^0-9]*?(?:updated|filtered) through")
_F_ICLOS = ("footnote", r"ICLOS", r"ICL[OS]{2} and Detainees Data are updated through")
_F_BOND = ("footnote", r"Monthly Bond Statistics", r"updated through")
_FSC = ("FSC", "FRC")
_NO_FAMILIES = ((dt.date(2023, 10, 1), dt.date(2025, 9, 30)),)


TABLES: tuple[TableSpec, ...] = (
    _table("atd_technology", _ATD, r"ATD Active Population Counts and Daily Cost by Technology", "grid", "snapshot",
           {"Count": ("atd_by_technology", ""), "Daily Tech Cost": ("atd_daily_cost_by_technology", "")},
           ("atd",), first_fy=2022),
    _table("atd_status", _ATD, r"ATD Active Population by Status", "grid", "snapshot",
           {"Count": ("atd_by_status", ""), "ALIP": ("atd_alip_by_status", "")}, ("atd",)),
    _table("atd_aor", _ATD, r"Active ATD Participants and Average Length in Program", "nested", "snapshot",
           {"Count": ("atd_by_aor", ""), "Average Length in Program": ("atd_alip_by_aor", "")}, ("atd",),
           children=frozenset(TECHNOLOGIES)),
    _table("atd_court_total", _ATD, r"Court Appearance: Total Hearings", "grid", "fytd",
           {"Count": ("atd_court_appearances", "")}, ("atd-court",), first_fy=2023, fy_key=True),
    _table("atd_court_final", _ATD, r"Court Appearance: Final Hearings", "grid", "fytd",
           {"Count": ("atd_court_appearances_final", "")}, ("atd-court",), first_fy=2023, fy_key=True),
    _table("disposition", _DETENTION, r"Currently Detained by Processing Disposition", "grid", "snapshot",
           {_FSC: ("detained_by_disposition", "@"), "Adult": ("detained_by_disposition", "Adult"),
            "Total": ("detained_by_disposition", "Total")}, _F_DOCKET, optional=(_FSC,)),
    _table("fear_time", _DETENTION, r"Average Time from USCIS Fear Decision Service Date to ICE Release", "grid",
           "fytd", {_FSC: ("fear_decision_to_release_days", "@"), "Adult": ("fear_decision_to_release_days", "Adult"),
                    "Total": ("fear_decision_to_release_days", "Total")}, _F_FEAR_RELEASES, first_fy=2020,
           row_fy=True, optional=(_FSC,), header_gap=1),
    _table("fear_facility", _DETENTION, r"USCIS-Established Fear Decisions in an ICE Detention Facility", "grid",
           "snapshot", {"Total Detained": ("detained_with_fear_decision", "")}, _F_FEAR_NOW, first_fy=2020,
           header_gap=1),
    _table("book_ins_facility", _DETENTION, r"Initial Book-?Ins by (Facility Type and )?Criminality", "grid", "fytd",
           {c: ("book_ins_by_facility_type_fytd", c) for c in CRIMS + ("Total",)}, _F_BOOKINS, fy_key=True),
    _table("book_outs_facility", _DETENTION, r"Final (Book ?Outs|Releases)\s*(by Facility Type)?\s*:", "grid", "fytd",
           {"Total": ("book_outs_by_facility_type_fytd", "")}, _F_BOOKOUTS, fy_key=True, header_gap=1),
    _table("book_outs_reason_annual", _DETENTION, r"Final (Book ?Outs|Releases) by Release Reason and Criminality",
           "grid", "fytd", {c: ("book_outs_by_reason_fytd", c) for c in CRIMS + ("Total",)}, _F_BOOKOUTS,
           last_fy=2020, fy_key=True, layouts=("book_outs_reason",)),
    _table("book_outs_reason", _DETENTION, r"Final (Book ?Outs|Releases) by Release Reason, Month and Criminality",
           "months", "monthly", {}, _F_BOOKOUTS, first_fy=2021, label_columns=2,
           total_column="book_outs_by_reason_fytd", month_series="book_outs_by_reason",
           layouts=("book_outs_reason_annual",)),
    _table("adp_facility", _DETENTION, r"Average Daily Population by Facility Type and Month", "months", "monthly",
           {}, _F_ADP, total_column="adp_by_facility_type_fytd", month_series="adp_by_facility_type",
           may_lack=_NO_FAMILIES),
    _table("alos_facility", _DETENTION, r"Average Length of Stay by Facility Type and Month", "months", "monthly",
           {}, _F_ADP, total_column="length_of_stay_by_facility_type_fytd", month_series="length_of_stay_by_facility_type",
           may_lack=_NO_FAMILIES),
    _table("iclos", r"ICLOS", r"^Average In Custody Length of Stay", "snapshot-days", "semimonthly",
           {"": ("iclos_days", "")}, _F_ICLOS, first_fy=2022),
    _table("iclos_detainees", r"ICLOS", r"^Detainees$", "snapshot-days", "semimonthly",
           {"": ("iclos_detainees", "")}, _F_ICLOS, first_fy=2022),
    _table("bond", r"Monthly Bond Statistics", r"Bonded Out (Book Outs|Releases)", "calendar-months", "monthly", {
        ("Total ICE Final Book Outs", "Total ICE Final Releases", "Total ICE Final Book Outs/ ICE Final Releases"):
            ("bond_book_outs_total", ""),
        ("ICE Final Book Outs with Bond Posted", "ICE Final Releases with Bond Posted",
         "ICE Final Book Outs/ ICE Final Releases with Bond Posted"): ("bond_book_outs_bond_posted", ""),
        ("Bond Posted Book Outs/Releases (%)", "Bond Posted Releases (%)", "Bond Posted Book Outs (%)"):
            ("bond_posted_share", ""),
        ("Average Bond Amount ($)",): ("bond_average_amount", ""),
        ("ALOS (Days)",): ("bond_length_of_stay", ""),
    }, _F_BOND, first_fy=2022),
    _table("segregation", r"Monthly Segregation", r"", "monthly-blocks", "monthly",
           {"Placement Count": ("segregation_placements_by_facility", "")}, (), first_fy=2024,
           label_header="Facilities"),
    _table("vulnerable", r"Vulnerable", r"", "quarterly-blocks", "quarterly", {
        "Number of Placements": ("segregation_placements_by_reason", ""),
        "Average Number of Consecutive Days in Segregation": ("segregation_consecutive_days_by_reason", ""),
        "Average Number of Cumulative Days in Segregation": ("segregation_cumulative_days_by_reason", ""),
    }, (), first_fy=2022, label_header="Placement Reason"),
)


TABLE = {t.name: t for t in TABLES}


# ---------------------------------------------------------------- catalogue

_REL = (" Release = the date in the file name (or ICE's data date for undated end-of-year files).")
_KEYS = " Keys join the row and column labels with ' | '; rows labelled Total are ICE's totals: do not add keys up."
_FYTD = (" One figure per release, from October 1 to the data-through date ICE's footnote gives for the table (the "
         "chart puts it at that date, one line per fiscal year).")
_MONTHLY = (" One row per month; the month holding the footnote's data-through date ends there and is flagged "
            "partial.")


# measure: counts in a month or quarter are flows; headcounts, averages, shares and the fiscal-year-to-date
# running totals are levels (a to-date total is one point at its data-through date: dividing it by the one day
# that row covers, or adding the points of successive releases, would be wrong).
def _s(sid, title, metric, agency, unit, freq, definition, breakdown, *, measure, **rules) -> Series:
    return Series(f"{ID}.{sid}", title + " (ICE release)", metric, agency, unit, freq, definition + _REL, ID,
                  breakdown=breakdown, measure=measure, bounds=_BOUNDS.get(sid, ""), **rules)


# Series whose every value is a whole number of people, events or hearings not below 0 (``Series.bounds``).
_COUNTS = ("atd_by_technology", "atd_by_status", "atd_by_aor", "atd_court_appearances", "atd_court_appearances_final",
           "detained_by_disposition", "detained_with_fear_decision", "book_ins_by_facility_type_fytd",
           "book_outs_by_facility_type_fytd", "book_outs_by_reason", "book_outs_by_reason_fytd", "iclos_detainees",
           "bond_book_outs_total", "bond_book_outs_bond_posted", "segregation_placements_by_facility",
           "segregation_placements_by_reason")
_BOUNDS = {**dict.fromkeys(_COUNTS, "count"), "bond_posted_share": "fraction"}


SERIES: tuple[Series, ...] = (
    _s("atd_by_technology", "People in Alternatives to Detention by technology", "atd", "ICE", "people", "release",
       "People actively enrolled in ICE's Alternatives to Detention (ATD) programme on the as-of date of BI Inc.'s "
       "participants report, by the monitoring technology assigned (smartphone app, ankle monitor, wrist-worn "
       "device, none). A headcount of participants, not of people released from detention." + _KEYS,
       "technology", measure="level"),
    _s("atd_daily_cost_by_technology", "Daily technology cost of Alternatives to Detention", "atd", "ICE",
       "dollars per day", "release",
       "What ICE pays per day for the monitoring technology of the ATD participants on the report's as-of date, "
       "by technology; covers technology only, not case management or staff." + _KEYS, "technology", measure="level"),
    _s("atd_by_status", "People in Alternatives to Detention by family status", "atd", "ICE", "people", "release",
       "Active ATD participants on the report's as-of date, split into members of family units (FAMU), single "
       "adults and, up to FY2023, those in the Extended Case Management Service (ECMS)." + _KEYS, "status", measure="level"),
    _s("atd_alip_by_status", "Average length in ATD programme by family status", "atd", "ICE", "days", "release",
       "Average number of days the active ATD participants on the as-of date have been in the programme (ALIP), "
       "by family status. Active participants only." + _KEYS, "status", measure="level"),
    _s("atd_by_aor", "People in Alternatives to Detention by field office and technology", "atd", "ICE", "people",
       "release",
       "Active ATD participants on the as-of date by ICE field office (area of responsibility) and, within it, by "
       "technology: key 'Atlanta' is the office's total, 'Atlanta | SmartLINK' one technology." + _KEYS,
       "field office | technology", measure="level"),
    _s("atd_alip_by_aor", "Average length in ATD programme by field office and technology", "atd", "ICE", "days",
       "release", "Average days in the ATD programme of the active participants on the as-of date, by field office "
       "and technology." + _KEYS, "field office | technology", measure="level"),
    _s("atd_court_appearances", "ATD participants' court hearings attended or missed, fiscal year to date", "atd",
       "ICE", "hearings", "release",
       "Immigration-court hearings of ATD participants whose court dates BI Inc. tracks, from October 1 to the end "
       "of the month the table names: attended, failed to attend, total. Only participants with court tracking are "
       "counted." + _FYTD + _KEYS, "fiscal year | outcome", measure="level", period=FISCAL_YTD),
    _s("atd_court_appearances_final", "ATD participants' final court hearings attended or missed, fiscal year to "
       "date", "atd", "ICE", "hearings", "release",
       "As the hearings series, for final hearings (where the judge decides the case) only." + _FYTD + _KEYS,
       "fiscal year | outcome", measure="level", period=FISCAL_YTD),
    _s("detained_by_disposition", "People in ICE detention by processing disposition and facility type", "detained",
       "ICE+CBP", "people", "release",
       "Headcount in ICE detention on the National Docket snapshot date, by how the case was processed "
       "(expedited removal, notice to appear, reinstated removal order, other) and by facility type: family "
       "residential (FRC, to FY2021) or family staging centre (FSC, from FY2022), adult, total." + _KEYS,
       "disposition | facility type", measure="level"),
    _s("fear_decision_to_release_days", "Average days from a USCIS fear decision to release from ICE detention",
       "fear-screening", "ICE+CBP", "days", "release",
       "For people released from ICE detention in the fiscal year (to the footnote's data-through date) who had a "
       "USCIS credible or reasonable fear decision, the average days from the service date of that decision to "
       "the release; by family or adult facility. Key: release fiscal year | facility type." + _KEYS,
       "fiscal year | facility type", measure="level", period=FISCAL_YTD),
    _s("detained_with_fear_decision", "People in ICE detention with a USCIS fear decision, by facility type",
       "detained", "ICE+CBP", "people", "release",
       "Headcount in ICE detention on the snapshot date of people with a fear decision established by USCIS, by "
       "family or adult facility." + _KEYS, "facility type", measure="level"),
    _s("book_ins_by_facility_type_fytd", "Initial book-ins into ICE detention by facility type and criminality, "
       "fiscal year to date", "book-ins", "ICE+CBP", "book-ins", "release",
       "First book-ins into ICE detention from October 1 to the footnote's data-through date, whoever arrested "
       "the person, by facility type (family or adult) and ICE's criminality label. A book-in is not an arrest."
       + _FYTD + _KEYS, "fiscal year | facility type | criminality", measure="level", period=FISCAL_YTD),
    _s("book_outs_by_facility_type_fytd", "Final book-outs from ICE detention by facility type, fiscal year to "
       "date", "book-outs", "ICE+CBP", "book-outs", "release",
       "People whose ICE detention ended (final book-out; 'final releases' until FY2023) from October 1 to the "
       "data-through date, by facility type. Includes removals: a book-out is not a release into the "
       "country." + _FYTD + _KEYS, "fiscal year | facility type", measure="level", period=FISCAL_YTD),
    _s("book_outs_by_reason", "Final book-outs from ICE detention by reason and criminality, monthly",
       "book-outs", "ICE+CBP", "book-outs", "monthly",
       "People whose ICE detention ended in the month, by ICE's release reason (release to remove, bond, order of "
       "recognizance or supervision, parole, court order, relief granted, transfer...) and criminality. 'Release "
       "to Remove' is a removal, not a release into the country. Printed from FY2021." + _MONTHLY + _KEYS,
       "reason | criminality", measure="flow"),
    _s("book_outs_by_reason_fytd", "Final book-outs from ICE detention by reason and criminality, fiscal year to "
       "date", "book-outs", "ICE+CBP", "book-outs", "release",
       "As the monthly series, summed from October 1 to the data-through date (FY2019-FY2020: ICE's annual table; "
       "from FY2021: the table's Total column)." + _FYTD + _KEYS, "fiscal year | reason | criminality", measure="level",
       period=FISCAL_YTD),
    _s("adp_by_facility_type", "Average daily population in ICE detention by facility type, monthly", "adp",
       "ICE+CBP", "people", "monthly",
       "Average number of people held at the midnight count over the month's days, by facility type (family or "
       "adult) and total. An average, not a headcount." + _MONTHLY + _KEYS, "facility type", measure="level"),
    _s("adp_by_facility_type_fytd", "Average daily population in ICE detention by facility type, fiscal year to "
       "date", "adp", "ICE+CBP", "people", "release",
       "Average daily population from October 1 to the data-through date ('FY Overall'), by facility type."
       + _FYTD + _KEYS, "fiscal year | facility type", measure="level", period=FISCAL_YTD),
    _s("length_of_stay_by_facility_type", "Average length of stay in ICE detention by facility type, monthly", "alos",
       "ICE+CBP", "days", "monthly",
       "ICE's average length of detention stays ending in the month, in days, by facility type. Not the time "
       "today's detainees have been held (see ICLOS)." + _MONTHLY + _KEYS, "facility type", measure="level"),
    _s("length_of_stay_by_facility_type_fytd", "Average length of stay in ICE detention by facility type, fiscal year to "
       "date", "alos", "ICE+CBP", "days", "release",
       "Average length of the detention stays ending from October 1 to the data-through date, by facility type."
       + _FYTD + _KEYS, "fiscal year | facility type", measure="level", period=FISCAL_YTD),
    _s("iclos_days", "Average time in custody so far of people detained (ICLOS)", "iclos", "ICE+CBP", "days",
       "semimonthly",
       "ICE's in-custody length of stay: for the people in detention on the 15th and on the last day of each "
       "month, the average days they had been held by then, by population (adult facilities, family facilities, "
       "single adults and family units with a positive fear determination still held, total). Each point is one "
       "day's snapshot." + _KEYS, "population", measure="level"),
    _s("iclos_detainees", "People in ICE detention by time held so far", "detained", "ICE+CBP", "people",
       "semimonthly",
       "Headcount of people in detention on the 15th and on the last day of each month, by population and by how "
       "long they had been held (0-180 days, 181-365, 366-730, more than 730)." + _KEYS,
       "population | time held", measure="level"),
    _s("bond_book_outs_total", "Final book-outs from ICE detention, monthly (bond table)", "bonds", "ICE+CBP",
       "book-outs", "monthly",
       "All final book-outs (releases until FY2023) in the calendar month, as printed in ICE's Monthly Bond "
       "Statistics, which covers the 12 months before the current one and the current month." + _MONTHLY,
       "", measure="flow"),
    _s("bond_book_outs_bond_posted", "Final book-outs from ICE detention after a bond was posted, monthly", "bonds",
       "ICE+CBP", "book-outs", "monthly",
       "Final book-outs in the month of people for whom a bond was posted." + _MONTHLY, "", measure="flow",
       part_of=f"{ID}.bond_book_outs_total"),
    _s("bond_posted_share", "Share of final book-outs with a bond posted, monthly", "bonds", "ICE+CBP",
       "share (as printed: a fraction, 0.05 = 5%)", "monthly",
       "Bond-posted book-outs divided by all final book-outs in the month, as ICE prints it." + _MONTHLY, "", measure="level",
       share_of=f"{ID}.bond_book_outs_bond_posted / {ID}.bond_book_outs_total"),
    _s("bond_average_amount", "Average bond amount posted, monthly", "bonds", "ICE+CBP", "dollars", "monthly",
       "Average amount of the bonds posted for the month's bond-posted book-outs." + _MONTHLY, "", measure="level"),
    _s("bond_length_of_stay", "Average length of stay before a bond book-out, monthly", "bonds", "ICE+CBP", "days", "monthly",
       "Average days in detention of the people booked out on bond in the month." + _MONTHLY, "", measure="level"),
    _s("segregation_placements_by_facility", "Segregation placements by detention facility, monthly",
       "segregation", "ICE+CBP", "placements", "monthly",
       "Placements of detainees in segregation (restrictive housing) recorded in ICE's Segregation Review "
       "Management System in the calendar month, by facility; key Total = ICE's grand total. A person placed "
       "twice counts twice." + _KEYS, "facility", measure="flow"),
    _s("segregation_placements_by_reason", "Segregation placements by reason, quarterly", "segregation", "ICE+CBP",
       "placements", "quarterly",
       "Segregation placements of people in ICE's vulnerable and special populations in the fiscal quarter, by "
       "placement reason (disciplinary, security threat, medical or mental health, pending investigation, "
       "protective custody); key Total = the grand total. A person placed twice counts twice." + _KEYS,
       "reason", measure="flow"),
    _s("segregation_consecutive_days_by_reason", "Average consecutive days in segregation by reason, quarterly",
       "segregation", "ICE+CBP", "days", "quarterly",
       "Average length in days of one uninterrupted segregation placement of a vulnerable or special-population "
       "detainee, for the quarter's placements, by reason." + _KEYS, "reason", measure="level"),
    _s("segregation_cumulative_days_by_reason", "Average cumulative days in segregation by reason, quarterly",
       "segregation", "ICE+CBP", "days", "quarterly",
       "Average total days in segregation across all placements of the same detainee, for the quarter's "
       "placements, by reason." + _KEYS, "reason", measure="level"),
)


# ---------------------------------------------------------------- helpers

# One label, number and date parser for every source: loaders.workbook and loaders.parsing.
_label, _canon = label, norm
_MISSING = frozenset({"", "-"})


def _maybe_number(v) -> float | None:
    """A cell searched rather than required (is there a figure here?): None for anything not a number."""
    if v.__class__ is float and math.isfinite(v):  # the common cases first, as ``number`` answers them
        return v
    if v is None or v == "":
        return None
    return number(v, lenient=True, missing=_MISSING)


def _cell_number(ctx, sheet: str, table, row: int, field: str, raw) -> float | None:
    """A required cell: None when blank, else a number, or a ParseError naming file, sheet, table, row, column."""
    # Most cells are already finite floats: answer those before building the error's row phrase (what
    # ``number`` would return for them, unchanged).
    if type(raw) is float and math.isfinite(raw):
        return raw
    if raw is None or raw == "":  # a blank cell: None, as ``number`` says for it ("" is a missing marker)
        return None
    return number(raw, source=ID, file=ctx.name, row=f"sheet {sheet!r} table {table.name!r} row {row + 1}",
                  field=field, missing=_MISSING)


def _first_date(text: str) -> dt.date | None:
    """The first date in a sentence; ICE's ATD lines write it with dots ("Participants Report, 04.04.2026")."""
    return find_mdy(re.sub(r"(?<=\d)\.(?=\d)", "/", text or ""))


_DATE = re.compile(r"(\d{1,2})[/.](\d{1,2})[/.](\d{4})")


class _Ctx:
    """One workbook being read: its sheets (each a ``workbook.Sheet``, read once), fiscal year and file name, and
    the error helper."""

    # the release's date and its IIDS date: ``read`` sets them before any table is read
    release: dt.date
    iids: dt.date
    named: bool = False  # ``release`` is the file name's date (a table cannot be dated after it)

    def __init__(self, wb, fy: int, name: str):
        self.wb, self.fy, self.name = wb, fy, name
        self.sheets: dict[str, Sheet] = {}  # sheet name -> its Sheet (the caller's own among them)
        self._chosen: dict[str, str | None] = {}  # sheet pattern -> the sheet chosen for it in this workbook

    def fail(self, sheet: str, table: str, what: str) -> ParseError:
        return ParseError(f"sheet {sheet!r} table {table!r}: {what}", source=ID, file=self.name)

    def sheet_of(self, sheet: str) -> Sheet:
        if sheet not in self.sheets:
            self.sheets[sheet] = read_sheet(self.wb, sheet, self.name, ID)
        return self.sheets[sheet]

    def rows(self, sheet: str) -> list[list]:
        return self.sheet_of(sheet).rows

    def texts(self, sheet: str) -> list[tuple[int, int, str]]:
        """The sheet's non-blank text cells (``Sheet.texts``: built once per sheet, searched by every title)."""
        return self.sheet_of(sheet).texts

    def find(self, sheet: str, pattern: str, start: int = 0) -> tuple[int, int] | None:
        """The first (row-major, from row ``start``) text cell of ``sheet`` matching ``pattern``."""
        return self.sheet_of(sheet).find(pattern, start)

    def sheet(self, pattern: str, table: str) -> str | None:
        """The sheet for ``pattern`` belonging to this workbook's fiscal year (``workbook.choose_sheet_name``:
        FY2023's workbook holds ``ATD FY24 YTD`` beside ``ATD EOFY23``; the error names the candidates)."""
        # Answered once per pattern for this workbook (its sheet names do not change while it is read): the
        # sixteen tables name a handful of sheet patterns. A failure is raised each time, naming its table.
        if pattern in self._chosen:
            return self._chosen[pattern]
        got = self._chosen[pattern] = choose_sheet_name(
            self.wb.sheet_names, pattern, f"{table!r}", fy=self.fy, file=self.name, source=ID, required=False,
            hidden=hidden_sheets(self.wb), content_year=lambda s: content_fiscal_year(self.rows(s)))
        return got


def _cell(rows, r, c):
    if r < 0 or c < 0:
        return None
    try:  # cheaper than two bounds checks on the hundreds of thousands of cells read
        return rows[r][c]
    except IndexError:
        return None


def _blank(v) -> bool:
    """``_label(v) == ""`` without building the label."""
    return v is None or (isinstance(v, str) and not v.strip())


# ---------------------------------------------------------------- dates

def footnote_sections(ctx: _Ctx) -> list[tuple[str, str]] | None:
    """The Footnotes sheet as (section heading, sentence) pairs in order (``workbook.sections``); None when the
    workbook has no Footnotes sheet at all."""
    sheet = ctx.sheet(r"foot\s*notes?", "footnotes")
    if sheet is None:
        return None
    # the caller's own Sheet when it read this one: its sections are worked out already
    sh = ctx.sheet_of(sheet)
    return [(head, text) for _row, head, text in sections(sh)]


def _footnote_date(ctx: _Ctx, notes, table: TableSpec, section: str, phrase: str) -> dt.date:
    sec, ph = re.compile(section, re.I), re.compile(rf"(?:{phrase})\s*(?:of\s*)?(\d{{1,2}}/\d{{1,2}}/\d{{4}})", re.I)
    if notes is None:
        # no Footnotes sheet at all: like the main tables, fall back to the IIDS date (releases.csv says so)
        return ctx.iids
    for head, text in notes:
        if sec.search(head) and (m := ph.search(text)) and (d := _first_date(m[1])):
            return d
    raise ParseError(f"table {table.name!r}: no date in the Footnotes (section /{section}/, phrase /{phrase}/)",
                     source=ID, file=ctx.name)


def _atd_date(ctx: _Ctx, sheet: str, table: TableSpec, r: int, c: int) -> dt.date:
    """An ATD table's as-of date: 'as of M/D/YYYY' in its title, else the first 'Participants Report, M.D.YYYY'
    line below it (ICE prints one under the population tables), else the sheet's first such line."""
    rows = ctx.rows(sheet)
    title = _label(_cell(rows, r, c))
    if (m := re.search(r"as of\s*(\d{1,2}/\d{1,2}/\d{4})", title, re.I)) and (d := _first_date(m[1])):
        return d
    # the hits below the title, then all of them, looked at one by one (the first with a date answers)
    rx = re.compile(r"Participants Report", re.I)
    hits = [(rr, cc) for rr, cc, lab in ctx.texts(sheet) if rx.search(lab)]
    for rr, cc in [h for h in hits if h[0] >= r] + hits:
        if (d := _first_date(_label(_cell(rows, rr, cc)))):
            return d
    raise ctx.fail(sheet, table.name, "no as-of date (no 'as of' in the title, no 'Participants Report' line)")


def _court_period(ctx: _Ctx, sheet: str, table: TableSpec, title: str) -> dt.date:
    """'FY26 thru March Court Appearance...' -> 31 March 2026; 'FY23 Year End ...' -> 30 September 2023. A title
    naming another fiscal year is another year's table (the first FY2025 release, 2024-11-15, prints
    'FY24 thru September' on its FY2025 ATD sheet)."""
    if (named := fiscal_year_of(title)) is not None and named != ctx.fy:
        raise ctx.fail(sheet, table.name, f"title {title!r} names FY{named}, not FY{ctx.fy}: another year's table")
    if re.search(r"year\s*end", title, re.I):
        return dt.date(ctx.fy, 9, 30)
    m = re.search(r"thru\s+([A-Za-z]+)", title, re.I)
    if not m or m[1].capitalize() not in MONTH_NAMES:
        raise ctx.fail(sheet, table.name, f"title {title!r} names no month ('thru <Month>' or 'Year End')")
    month = MONTH_NAMES[m[1].capitalize()]
    return month_end(dt.date(ctx.fy - 1 if month >= 10 else ctx.fy, month, 1))


# ---------------------------------------------------------------- shape readers

def _columns(table: TableSpec) -> Mapping:
    """The table's header label -> target mapping: every shape read here declares one (a tuple of labels is
    only for ``workbook.read_table``'s grid)."""
    if not isinstance(table.columns, Mapping):
        raise TypeError(f"table {table.name!r} ({table.layout}): its columns must be a mapping of label -> target")
    return table.columns


def _header(ctx, sheet, table: TableSpec, rows, r, c, want: Mapping) -> tuple[int, dict[str, tuple]]:
    """Header row below a title at (r, c): the first non-empty row. Columns are matched to ``want`` (label or
    tuple of labels -> target) scanning right from the title column; scanning stops at the first non-empty label
    that is neither wanted nor the row-label header, because the next table often starts in the same row."""
    for hr in range(r + 1, min(r + 4, len(rows))):
        if _label(_cell(rows, hr, c)):
            break
    else:
        raise ctx.fail(sheet, table.name, f"no header row below its title (row {r + 1})")
    spell = {}
    for k, target in want.items():
        for lab in (k if isinstance(k, tuple) else (k,)):
            spell[_canon(lab)] = (k, target)
    found: dict = {}
    header = []
    for cc in range(c + 1, len(rows[hr])):
        lab = _label(rows[hr][cc])
        if not lab:
            continue
        header.append(lab)
        hit = spell.get(lab.lower())
        if hit is None:
            break
        found.setdefault(hit[0], (cc, hit[1]))
    missing = [k if isinstance(k, str) else k[0] for k in want if k not in found and k not in table.optional]
    if missing:
        raise ctx.fail(sheet, table.name, f"column(s) {missing} not found in header row {hr + 1} "
                                          f"(header: {[_label(rows[hr][c])] + header})")
    return hr, found


def _body(rows, hr, c, ncols: int = 1, value_cols=()) -> list[int]:
    """Data rows below a header: to the first row with no label and (when ``value_cols`` are given) no value in
    them either; ICE leaves a label out now and then (FY2026-02-02: a 4 under Atlanta's technologies)."""
    return list(_body_rows(rows, hr, c, ncols, value_cols))


def _body_rows(rows, hr, c, ncols: int = 1, value_cols=()):
    """``_body`` one row at a time, for a reader that stops early (a period block ends at its 'Total' row, while
    the labelled rows below run on through the next blocks)."""
    def labelled(r):
        return any(not _blank(_cell(rows, r, c + i)) for i in range(ncols))

    r = hr + 1
    while r < len(rows):
        # an unlabelled row with figures counts only between labelled rows; at the end of a table it is a
        # stray sum (FY2021: 117,682 under Washington DC's technologies)
        if not labelled(r) and not (
                any(_maybe_number(_cell(rows, r, cc)) is not None for cc in value_cols) and labelled(r + 1)):
            break
        yield r
        r += 1


def _read_grid(ctx, sheet, table: TableSpec, r, c) -> list[tuple[str, str, float]]:
    """Category rows x value columns -> (series suffix, key, value), read by the generic ``workbook.read_table``."""
    t = read_table(ctx.sheet_of(sheet), table)
    if t is None:  # only an optional table is left unread, and the caller found this one's title
        raise ctx.fail(sheet, table.name, f"title not found (no cell matching /{table.title}/)")
    found = match_columns(t)
    out = []
    for br in t.rows:
        key = ALIASES.get(br.label, br.label)
        for col, (suffix, member) in found.values():
            v = t.number(br, col, lenient=False, missing=_MISSING)
            if v is None:
                continue  # ICE leaves a cell blank for "none" in a few tables (court: no % for Total)
            if member == "@":  # the family-facility column: keep ICE's own name for it (FRC or FSC)
                member = col
            out.append((suffix, " | ".join(p for p in (key, member) if p), v))
    if not out:
        raise t.fail("no data rows below its header")
    return out


def _read_nested(ctx, sheet, table: TableSpec, r, c) -> list[tuple[str, str, float]]:
    """Field offices, each followed by its technologies (``table.children``) -> (series suffix, key, value); a
    technology row ICE printed without its label is kept under its office as "(no label)"."""
    rows = ctx.rows(sheet)
    hr, found = _header(ctx, sheet, table, rows, r, c, dict(_columns(table)))
    out, parent = [], None
    for row in _body(rows, hr, c, value_cols=[cc for cc, _ in found.values()]):
        lab = ALIASES.get(_label(_cell(rows, row, c)), _label(_cell(rows, row, c))) or "(no label)"
        if lab in table.children or lab == "(no label)":
            if parent is None:
                raise ctx.fail(sheet, table.name, f"row {row + 1}: {lab!r} before any field office row")
            key = f"{parent} | {lab}"
        else:
            parent, key = lab, lab
        for k, (cc, (suffix, member)) in found.items():
            v = _cell_number(ctx, sheet, table, row, k if isinstance(k, str) else k[0], _cell(rows, row, cc))
            if v is not None:  # a blank cell is "none"
                out.append((suffix, " | ".join(p for p in (key, member) if p), v))
    if not out:
        raise ctx.fail(sheet, table.name, f"no data rows below header row {hr + 1}")
    _check_children(ctx, sheet, table, out)
    return out


def _check_children(ctx, sheet, table, out):
    """Each field office's count equals the sum of its technologies: a technology this module does not know
    would be read as a field office and break the sums, so it fails here instead."""
    first = next(iter(table.columns.values()))[0]
    tot, parts = {}, {}
    for s, k, v in out:
        if s != first or k == "Total":
            continue
        if " | " in k:
            p = k.split(" | ")[0]
            parts[p] = parts.get(p, 0) + v
        else:
            tot[k] = v
    bad = [k for k, v in tot.items() if abs(parts.get(k, 0) - v) > 0.5]
    if bad:
        raise ctx.fail(sheet, table.name, f"field office rows {bad[:3]} do not equal the sum of their technology rows "
                                          "(an unknown technology label?)")


def _read_months(ctx, sheet, table: TableSpec, r, c):
    """Rows x Oct..Sep (+ a fiscal-year column) -> (suffix, key, month start or None for the FY column, value)."""
    rows = ctx.rows(sheet)
    want = {m: ("month", m) for m in MONTHS}
    two = table.label_columns == 2
    hr = next((h for h in range(r + 1, min(r + 4, len(rows))) if _label(_cell(rows, h, c))), None)
    if hr is None:
        raise ctx.fail(sheet, table.name, f"no header row below its title (row {r + 1})")
    start = c + 1 if two else c
    hr, found = _header(ctx, sheet, table, rows, r, start, {**want, ("FY Overall", "Total", "FY Total"): ("fy", "")})
    monthly, total = table.month_series, table.total_column
    first_day = {m: fiscal_month_start(ctx.fy, m) for m in MONTHS}
    out, group = [], None
    for row in _body(rows, hr, c, 2 if two else 1):
        a = _label(_cell(rows, row, c))
        if two:
            b = _label(_cell(rows, row, c + 1))
            if a:
                group = a
            if group is None:
                raise ctx.fail(sheet, table.name, f"row {row + 1}: criminality {b!r} before any reason row")
            # the grand-total row has no criminality: "Total | Total", as in the FY2019-20 annual table
            key = f"{group} | {b or 'Total'}"
        else:
            key = ALIASES.get(a, a)
        cells = rows[row]  # row < len(rows) (``_body``); columns are never negative
        n = len(cells)
        for cc, (kind, m) in found.values():
            raw = cells[cc] if cc < n else None
            v = _cell_number(ctx, sheet, table, row, m or "FY", raw)
            if kind == "month":
                out.append((monthly, key, first_day[m], v))
            else:
                out.append((total, key, None, v))
    if not out:
        raise ctx.fail(sheet, table.name, f"no data rows below header row {hr + 1}")
    return out


def _read_calendar_months(ctx, sheet, table: TableSpec, r, c):
    """Metric rows x calendar-month columns (cells holding the month's first day)."""
    rows = ctx.rows(sheet)
    hr = next((h for h in range(r + 1, min(r + 5, len(rows)))
               if any(isinstance(v, (dt.date, dt.datetime)) for v in rows[h])), None)
    if hr is None:
        raise ctx.fail(sheet, table.name, f"no row of month dates below its title (row {r + 1})")
    months = {cc: (v.date() if isinstance(v, dt.datetime) else v) for cc, v in enumerate(rows[hr])
              if isinstance(v, (dt.date, dt.datetime))}
    spell = {}
    for k, (suffix, _) in _columns(table).items():
        for lab in k:
            spell[_canon(lab)] = suffix
    # FY2026 workbooks print 0 in every row for the prior year's months (they start the table in October): a month
    # in which every row is 0 or blank is missing, not zero (ICE never books no one out nationally in a month)
    body = _body(rows, hr, c)
    months = {cc: m for cc, m in months.items() if any(_maybe_number(_cell(rows, row, cc)) for row in body)}
    firsts = [(cc, m, m.replace(day=1)) for cc, m in months.items()]  # each month's first day, once per column
    out, seen = [], set()
    for row in body:
        lab = _label(_cell(rows, row, c))
        suffix = spell.get(lab.lower())
        if suffix is None:
            raise ctx.fail(sheet, table.name, f"row {row + 1}: unknown row label {lab!r}")
        seen.add(suffix)
        for cc, m, first in firsts:
            raw = _cell(rows, row, cc)
            v = _cell_number(ctx, sheet, table, row, f"{m:%Y-%m}", raw)
            out.append((suffix, "", first, v))
    missing = {s for s, _ in _columns(table).values()} - seen
    # FY2022-FY2023 tables print no total row; the others are always there.
    if missing - {"bond_book_outs_total"}:
        raise ctx.fail(sheet, table.name, f"row(s) for {sorted(missing)} not found")
    return out


def _snapshot_columns(ctx, sheet, table: TableSpec, rows, yr: int, c: int) -> dict[int, dt.date]:
    """Column -> snapshot day, from the year row ``yr``, the month row under it and the mid/end row under that
    (the 15th, or the month's last day)."""
    year, month, cols = None, None, {}
    for cc in range(c + 1, len(rows[yr + 2])):
        y, mo, half = _cell(rows, yr, cc), _label(_cell(rows, yr + 1, cc)), _canon(_cell(rows, yr + 2, cc))
        if mo:
            if mo.capitalize() not in MONTH_NAMES:
                raise ctx.fail(sheet, table.name, f"row {yr + 2}: {mo!r} is not a month name")
            new = MONTH_NAMES[mo.capitalize()]
            if (yn := _maybe_number(y)):
                year = int(yn)
            elif year is not None and month is not None and new <= month:
                year += 1  # ICE stops printing the year row (FY2026: no 2026 over Jan-Mar 2026): months go on
            month = new
        elif (yn := _maybe_number(y)):
            year = int(yn)
        if half not in ("mid", "end"):
            continue
        if year is None or month is None:
            raise ctx.fail(sheet, table.name, f"column {cc + 1}: a {half!r} column before any year and month")
        d = dt.date(year, month, 15) if half == "mid" else month_end(dt.date(year, month, 1))
        cols[cc] = d
    return cols


def _read_snapshot_days(ctx, sheet, table: TableSpec, r, c):
    """Year row, month row, mid/end row, then population rows (ICLOS) or population headings each followed by
    length-of-time bands (detainees) -> (suffix, key, snapshot day, value)."""
    rows = ctx.rows(sheet)
    yr = next((h for h in range(r + 1, min(r + 6, len(rows))) if _canon(_cell(rows, h, c)).startswith("population")),
              None)
    if yr is None:
        raise ctx.fail(sheet, table.name, f"no 'Population' header row below its title (row {r + 1})")
    cols = _snapshot_columns(ctx, sheet, table, rows, yr, c)
    suffix = _columns(table)[""][0]
    out, group = [], None
    items = list(cols.items())
    for row in _body(rows, yr + 2, c):
        lab = _label(_cell(rows, row, c))
        cells, n = rows[row], len(rows[row])
        vals = [(cells[cc] if cc < n else None, d) for cc, d in items]
        if all(_blank(v) for v, _ in vals):
            group = lab  # a population heading of the detainees table
            continue
        key = lab if suffix == "iclos_days" or group is None else f"{group} | {lab}"
        for raw, d in vals:
            v = _cell_number(ctx, sheet, table, row, f"{lab} {d}", raw)
            out.append((suffix, key, d, v))
    if not out:
        raise ctx.fail(sheet, table.name, "no data rows")
    return out


_MONTH_BLOCK = re.compile(r"^(%s)\s+(20\d\d)\b" % "|".join(MONTH_NAMES), re.I)
_QUARTER_BLOCK = re.compile(r"^(?:Fiscal Year\s*\(FY\)|FY)\s*(20\d\d)\s*Quarter\s*([1-4])\s*Data", re.I)


def _block_period(layout: str, m: re.Match) -> tuple[dt.date, dt.date]:
    """The first and last day of a block's period: a month ('March 2026') or a fiscal quarter ('Fiscal Year (FY)
    2022 Quarter 2 Data': January to March 2022)."""
    if layout == "monthly-blocks":
        start = dt.date(int(m[2]), MONTH_NAMES[m[1].capitalize()], 1)
        return start, month_end(start)
    fy, q = int(m[1]), int(m[2])
    sm = (10 + 3 * (q - 1) - 1) % 12 + 1
    start = dt.date(fy - 1 if q == 1 else fy, sm, 1)
    return start, month_end(dt.date(start.year, sm + 2, 1))


def _read_blocks(ctx, sheet, table: TableSpec):
    """Repeated blocks, each titled by its period ('March 2026'; 'Fiscal Year (FY) 2022 Quarter 2 Data'), each a
    header row and label rows ending at 'Grand Total' -> (suffix, key, period start, period end, value)."""
    rows = ctx.rows(sheet)
    rx = _MONTH_BLOCK if table.layout == "monthly-blocks" else _QUARTER_BLOCK
    out, blocks, last = [], 0, None
    # block titles and row labels are text in the sheet's label column (column A as ICE prints it)
    lc = ctx.sheet_of(sheet).label_column
    for r, c, t in ctx.texts(sheet):
        m = rx.match(t) if c == lc else None
        if not m:
            continue
        start, end = _block_period(table.layout, m)
        first = next((h for h in range(r + 1, min(r + 4, len(rows))) if _label(_cell(rows, h, lc))), None)
        if first is not None and _canon(_cell(rows, first, lc)) != _canon(table.label_header) and last is not None:
            hr, found = first - 1, last  # a block printed without its header row (FY2025: February 2025)
        else:
            hr, found = _header(ctx, sheet, table, rows, r, lc, _columns(table))
        last = found
        blocks += 1
        cols = [(k, cc, suffix) for k, (cc, (suffix, _)) in found.items()]
        for rr in _body_rows(rows, hr, lc):
            row = rows[rr]  # rr < len(rows) (``_body_rows``); columns are never negative
            n = len(row)
            lab = _label(row[lc] if lc < n else None)
            lab = ALIASES.get(lab, lab)
            if lab.startswith("*"):
                break
            for k, cc, suffix in cols:
                raw = row[cc] if cc < n else None
                v = _cell_number(ctx, sheet, table, rr, k, raw)
                if v is None:
                    continue
                out.append((suffix, lab, start, end, v))
            if lab == "Total":
                break
    if not blocks:
        raise ctx.fail(sheet, table.name, f"no period blocks (no cell in column {column_letter(lc)} "
                                                    f"matching /{rx.pattern}/)")
    return out


# ---------------------------------------------------------------- the one entry point

def read(wb, *, fy: int, name: str, release: dt.date, iids: dt.date, sheets=(), findings: list | None = None,
         whole: Mapping[str, bool] | None = None, named: bool = False) -> list[tuple]:
    """Every declared table of one workbook as rows ``(series, key, date, end, value, flag)`` (dates as
    ``datetime.date``; tuples, not dicts: a workbook has tens of thousands of them). ``sheets``: the
    ``workbook.Sheet``s the caller has read already (not read again).

    None of these tables is what a release must have (the headline tables are ``ice_detention_stats``'):
    one that is missing or in a layout this module does not know is left out, and ``findings`` gets a
    ``table-unread`` finding naming its sheet and table (``unread_finding``); the rest of the release is kept.
    Without ``findings`` (a caller that wants the old strictness) the error is raised. With ``findings``, a row
    the snapshot could not take (``sieve``: a negative figure, a row printed twice) is left out with a
    ``row-dropped`` finding; ``whole`` (series id -> whole numbers only, ``tidy.value_rules``) adds that rule.
    ``named``: ``release`` is the date in the file name, so a table dated after it is refused (a typo)."""
    ctx = _Ctx(wb, fy, name)
    for sh in sheets:
        if sh is not None:
            ctx.sheets[sh.name] = sh
    ctx.release, ctx.iids, ctx.named = release, iids, named
    notes = footnote_sections(ctx)
    out: list[tuple] = []
    bond: list[int] = []  # where the bond table's rows are in ``out``: only those can be swapped
    for t in TABLES:
        if not t.first_fy <= fy <= t.last_fy:
            continue  # this layout does not carry the table
        start = len(out)
        try:
            got = _layout_of(ctx, t)
            _table_rows(ctx, notes, got, out)
        except ParseError as e:
            if findings is None:
                raise
            del out[start:]  # none of a table that failed half-way
            findings.append(unread_finding(ctx, t, e))
            continue
        if findings is not None:
            sieve(out, start, f"sheet {ctx.sheet(got.sheet, got.name)!r} table {t.name!r}", findings, whole or {})
        if got.layout == "calendar-months":
            bond.extend(range(start, len(out)))
    _flag_bond_swaps(out, bond, findings)
    return out


def _row_fault(row: tuple, whole: Mapping[str, bool]) -> str | None:
    """Why one row (series, key, date, end, value, flag) cannot be kept, by the rules ``tidy.validate`` applies
    to every row of the snapshot, or None."""
    v = row[4]
    if not isinstance(v, (int, float)) or not math.isfinite(v) or v > MAX_VALUE:
        return f"figure {v!r} is not a finite number in the range a figure can take"
    if v < 0:
        return f"figure {v:g} is negative, which no count, average or share can be"
    if whole.get(row[0]) and v != round(v):
        return f"figure {v:g} is not a whole number, and its series counts people or events"
    return None


def sieve(rows: list[tuple], start: int, where: str, findings: list, whole: Mapping[str, bool]) -> None:
    """Rows ``rows[start:]`` (one table's, ``where`` names its sheet and table) checked one by one as the snapshot
    will check them, so that one bad row costs that row, not the release (issue 39: a negative length of stay in
    the 2023-12-07 release, ATD's 'Total' row printed twice in the 2022-08-09 one). A row with a figure no count
    can hold is left out; a row printed twice with the same figure is kept once; a row printed more than once
    with different figures is left out entirely (neither can be told to be the printed truth). Each gets a
    ``row-dropped`` finding naming sheet, table, row label and date, in place."""
    kept: list[tuple] = []
    seen: dict[tuple, list[tuple]] = {}
    for row in rows[start:]:
        fault = _row_fault(row, whole)
        if fault:
            findings.append(_dropped(row, f"{where} row {row[1] or '(total)'!r} ({row[2]}): {fault}; the row is "
                                          "left out and the rest of the release kept"))
            continue
        seen.setdefault(row[:3], []).append(row)
    for key, same in seen.items():
        figures = sorted({r[4] for r in same})
        if len(same) == 1:
            kept.append(same[0])
        elif len(figures) == 1 and len({r[3] for r in same}) == 1:
            kept.append(same[0])
            findings.append(_dropped(same[0], f"{where} row {key[1] or '(total)'!r} ({key[2]}): printed "
                                              f"{len(same)} times with the same figure {figures[0]:g}; kept once"))
        else:
            findings.append(_dropped(same[0], f"{where} row {key[1] or '(total)'!r} ({key[2]}): printed "
                                              f"{len(same)} times with different figures "
                                              f"({', '.join(f'{x:g}' for x in figures)}); the row is left out, as "
                                              "no figure of them can be told to be the right one"))
    rows[start:] = kept


def _dropped(row: tuple, message: str) -> dict:
    return {"series": row[0], "key": row[1], "date": row[2].isoformat() if hasattr(row[2], "isoformat") else "",
            "flag": "row-dropped", "message": message}


def _layout_of(ctx: _Ctx, t: TableSpec) -> TableSpec:
    """``t``, or the first of its other-year ``layouts`` whose title is on its sheet when ``t``'s is not."""
    if not t.layouts:
        return t
    sheet = ctx.sheet(t.sheet, t.name)
    if sheet is None or ctx.find(sheet, t.title) is not None:
        return t
    for other in t.layouts:
        alt = TABLE[other]
        s = ctx.sheet(alt.sheet, alt.name)
        if s is not None and ctx.find(s, alt.title) is not None:
            return alt
    return t


def unread_finding(ctx: _Ctx, t: TableSpec, e: ParseError) -> dict:
    """A ``table-unread`` finding: the table's sheet, its name and why, in words."""
    try:
        sheet = ctx.sheet(t.sheet, t.name)
    except ParseError:
        sheet = None
    where = f"sheet {sheet!r}" if sheet else f"no sheet matching /{t.sheet}/"
    detail = re.sub(r"^\[[^\]]*\] ", "", str(e))  # the source and file: the finding names them itself
    detail = re.sub(r"^(?:sheet '[^']*':? )?(?:table '[^']*': )?", "", detail)  # said once, before it
    return {"series": "", "key": "", "date": "", "flag": "table-unread",
            "message": f"table {t.name!r} ({where}) not read: {detail}; the release is kept with its other "
                       "tables and this table's series have no rows from it"}


_COLS = ("series", "key", "date", "end", "value", "flag")


def _read_table(ctx: _Ctx, notes, t: TableSpec) -> list[dict]:
    """One table's rows as dicts (series, key, date, end, value, flag): for a reader of one table."""
    return [dict(zip(_COLS, r)) for r in _table_rows(ctx, notes, t, [])]


def _table_rows(ctx: _Ctx, notes, t: TableSpec, rows_out: list) -> list[tuple]:
    """One table's rows appended to ``rows_out`` (see ``read``): found by its title, dated, read by the reader of
    its shape (``READERS``) and dated row by row as its period says (``DATING``)."""
    sheet = ctx.sheet(t.sheet, t.name)
    if sheet is None:
        raise ParseError(f"table {t.name!r}: no sheet matching /{t.sheet}/ (sheets: {list(ctx.wb.sheet_names)})",
                         source=ID, file=ctx.name)
    if t.layout in ("monthly-blocks", "quarterly-blocks"):  # titled by their periods: dated by them
        rows_out.extend([(ID + "." + suffix, key, start, end, v, "")
                         for suffix, key, start, end, v in _read_blocks(ctx, sheet, t)])
        return rows_out
    hit = ctx.find(sheet, t.title)
    if hit is None and any(a <= ctx.release <= b for a, b in t.may_lack):
        return rows_out
    if hit is None:
        raise ctx.fail(sheet, t.name, f"title not found (no cell matching /{t.title}/)")
    through = _table_date(ctx, notes, sheet, t, hit)
    got = READERS[t.layout](ctx, sheet, t, *hit)
    rows_out.extend(DATING[t.layout](ctx, sheet, t, got, through))
    return rows_out


def _table_date(ctx: _Ctx, notes, sheet: str, t: TableSpec, hit: tuple[int, int]) -> dt.date:
    """The table's own date (``t.date``: its footnote, the ATD report line, or the court table's title), refused
    when it lies outside the workbook's fiscal year (October before it to March after it): that is another
    year's table on a sheet of this one, not this release's figures (and never a reason to move its date)."""
    r, c = hit
    if t.date[0] == "footnote":
        through = _footnote_date(ctx, notes, t, *t.date[1:])
    elif t.date[0] == "atd":
        through = _atd_date(ctx, sheet, t, r, c)
    else:  # "atd-court": the period named in the title
        through = _court_period(ctx, sheet, t, _label(_cell(ctx.rows(sheet), r, c)))
    if not dt.date(ctx.fy - 1, 10, 1) <= through <= dt.date(ctx.fy + 1, 3, 31):
        raise ctx.fail(sheet, t.name, f"dated {through}, outside fiscal year {ctx.fy}: another year's table")
    if ctx.named and through > ctx.release:  # ICE's 2023-12-07 release: ATD "as of 12/02/2024", a typo
        raise ctx.fail(sheet, t.name, f"dated {through}, after the release's own date {ctx.release}: a date the "
                                      "release cannot hold")
    return through


def _dated_once(ctx: _Ctx, sheet: str, t: TableSpec, got, through: dt.date):
    """Snapshot and fiscal-year-to-date rows: one point at the table's date, the fiscal year first in a to-date
    key (``fy_key``), or the row's own fiscal year when the row label is one (``row_fy``)."""
    for suffix, key, v in got:
        if t.row_fy:
            first, _, rest = key.partition(" | ")
            m = re.fullmatch(r"(?:EO)?FY\s*(20\d\d)(?:\s*YTD)?", first)
            if not m:
                raise ctx.fail(sheet, t.name, f"row label {first!r} is not a fiscal year (FY20xx)")
            key = " | ".join(p for p in (f"FY{m[1]}", rest) if p)
        elif t.fy_key:
            key = f"FY{ctx.fy} | {key}"
        yield ID + "." + suffix, key, through, through, v, ""


def _dated_by_month(ctx: _Ctx, sheet: str, t: TableSpec, got, through: dt.date):
    """Monthly rows: partial when the table's date falls inside the month, missing when ICE's 0 stands for a
    month not reached yet, and a real figure after the table's date is stale evidence; a fiscal-year column
    (month None) is one point at the table's date."""
    for suffix, key, start, v in got:
        if v is None:
            continue
        if start is None:
            yield ID + "." + suffix, f"FY{ctx.fy} | {key}", through, through, v, ""
            continue
        end = month_end(start)
        if start > through:
            if v != 0:  # ICE prints 0 for months it has not reached: missing, not zero
                # the header is stale; the month can run no further than the release's own date (the bond
                # table of the 2022-08-04 release prints August 2022)
                yield ID + "." + suffix, key, start, min(end, ctx.release), v, "partial;stale-header"
        elif end > through:
            yield ID + "." + suffix, key, start, through, v, "partial"
        else:
            yield ID + "." + suffix, key, start, end, v, ""


def _dated_by_day(ctx: _Ctx, sheet: str, t: TableSpec, got, through: dt.date):
    """Snapshot days (ICLOS): each its own point; a day after the table's date is dropped when ICE prints 0
    there (not reached yet), else kept as stale evidence."""
    for suffix, key, d, v in got:
        if v is None or (d > through and v == 0):
            continue
        yield ID + "." + suffix, key, d, d, v, "" if d <= through else "stale-header"


# The reader of each shape ICE prints (``workbook.LAYOUTS``; the period blocks are read by ``_read_blocks``),
# and how its rows are dated.
READERS = {"grid": _read_grid, "nested": _read_nested, "months": _read_months, "calendar-months": _read_calendar_months,
           "snapshot-days": _read_snapshot_days}
DATING = {"grid": _dated_once, "nested": _dated_once, "months": _dated_by_month, "calendar-months": _dated_by_month,
          "snapshot-days": _dated_by_day}


def _flag_bond_swaps(out: list[tuple], rows=None, findings: list | None = None):
    """A month with more bond-posted book-outs than book-outs in all has the two rows' labels swapped (ICE's
    2026-04-09 release: "Total" 1,124, "with Bond Posted" 37,537). ``rows``: the indexes in ``out`` the bond
    table wrote (its series come from no other table), instead of a scan of all.

    Where the file itself proves the swap -- its share row equals the printed "posted" / "total", a ratio above 1
    that only swapped labels give (33.40 = 37,537 / 1,124) -- the month's three rows are corrected (total and
    posted exchanged, the share their true ratio), flagged ``corrected``, and ``findings`` gets one finding per
    row naming the printed values. Where it does not (no share row, or one that disagrees), the rows are kept as
    printed and flagged ``mislabelled``: known wrong, they do not replace an earlier release's figures in the
    latest view (``loaders.data.series_rows``)."""
    total, posted, share = f"{ID}.bond_book_outs_total", f"{ID}.bond_book_outs_bond_posted", f"{ID}.bond_posted_share"
    bond = [i for i in (range(len(out)) if rows is None else rows)
            if out[i][0] in (total, posted, share)]  # rows: (series, key, date, end, value, flag)
    at = {(out[i][0], out[i][2]): i for i in bond}
    tot = {out[i][2]: out[i] for i in bond if out[i][0] == total}
    swapped = {r[2] for r in (out[i] for i in bond) if r[0] == posted and r[2] in tot and r[4] > tot[r[2]][4] > 0}
    proven = set()
    for d in sorted(swapped):  # in date order: a set of dates iterates in an order that changes run to run
        t, p = out[at[total, d]][4], out[at[posted, d]][4]
        i_s = at.get((share, d))
        if i_s is not None and abs(out[i_s][4] - p / t) <= 0.0051 + 1e-3 * (p / t):
            proven.add(d)
            sh = out[i_s][4]
            for sid, v in ((total, p), (posted, t), (share, t / p)):
                i = at[sid, d]
                x = out[i]
                out[i] = x[:4] + (v, ";".join(sorted({f for f in (x[5], "corrected") if f})))
                if findings is not None:
                    findings.append({"series": sid, "key": x[1], "date": d.isoformat(), "flag": "corrected",
                                     "message": f"{d:%Y-%m}: printed 'Total' {t:,.0f} and 'with Bond Posted' {p:,.0f}, "
                                                f"share {sh:g} = {p:,.0f} / {t:,.0f}: the two count rows' labels are "
                                                f"swapped (the share row proves it); corrected to total {p:,.0f}, "
                                                f"bond posted {t:,.0f}, share {t / p:.4f}"})
    for i in bond:
        x = out[i]
        if x[2] in swapped and x[2] not in proven:
            out[i] = x[:5] + (";".join(sorted({f for f in (x[5], "mislabelled") if f})),)
