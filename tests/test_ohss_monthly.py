"""DHS OHSS monthly tables: layout, missing markers, release dates, discovery, the real workbook, cross-checks."""
import io

import openpyxl
import pandas as pd
import pytest
import requests
import responses

from loaders import cbp_encounters, ohss_monthly, pipeline
from loaders.errors import FetchError, ParseError

SRC = ohss_monthly.SOURCE
S = "ohss_monthly_tables."
NAME = "2024_1206_ohss_immigration-enforcement-and-legal-processes-tables-august-2024.xlsx"
NOTE = ("Notes: To protect privacy, table cells are rounded to the nearest ten. Data are current as of "
        "September 30, 2024; future reporting may include updates to previous reports' data.")
MONTHS = ["October", "November", "December", "January", "February", "March", "April", "May", "June", "July",
          "August", "September"]


def add_table(wb, sheet, title, header, years, groups=None, footnotes=(NOTE,)):
    """One sheet in the OHSS layout. ``years`` maps a fiscal-year label (2023 or "2024 YTD") to month rows."""
    ws = wb.create_sheet(sheet)
    ws.append(["Return to Table of Contents.", "", "* Please click on the \"plus\" sign ..."])
    ws.append([title])
    if groups:
        ws.append(groups)
    ws.append(header)
    for fy, months in years.items():
        first = months[0][1:]
        ws.append([fy, "Total"] + [v * 12 if isinstance(v, (int, float)) else v for v in first])
        for row in months:
            ws.append([None] + list(row))
    for f in footnotes:
        ws.append([f])


def small_workbook(title_month="August 2024", last_month="August", sheet_names=None, drop=()) -> bytes:
    """The three required tables plus the DHS repatriations and CBP encounters tables, with real headings."""
    names = sheet_names or {}
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    toc = wb.create_sheet("TOC")
    toc.append(["Table of Contents"])
    ytd = MONTHS[:MONTHS.index(last_month) + 1]
    if "arrests" not in drop:
        add_table(wb, names.get("arrests", "ERO Arrests by Criminality"),
                  f"ERO Administrative Arrests by Criminality: Fiscal Years 2023 to 2024 YTD ({title_month})",
                  ["Fiscal Year", "Month", "Total", "Total Convicted", "Aggravated Felons", "Felons", "Misdemeanors",
                   "Other/ Unknown", "Total Non-Criminal", "Pending Criminal Charges", "Other Immigration Violators"],
                  {2023: [[m, 100, 40, "NA", "NA", "NA", "NA", 60, 20, 40] for m in MONTHS],
                   "2024 YTD": [[m, 9230, 5020, 910, 1810, 2110, 190, 4210, 2610, 1610] for m in ytd]},
                  groups=["", "", "", "Convicted Criminals", "", "", "", "", "Non-Criminal", "", ""],
                  footnotes=("NA Not available.", NOTE, "Source: Office of Homeland Security Statistics Persist Dataset."))
    add_table(wb, names.get("book_ins", "ICE Book-Ins by Arrest Agency"),
              f"Book-Ins to ICE Detention by Initial Arresting Agency: Fiscal Years 2023 to 2024 YTD ({title_month})",
              ["Fiscal Year", "Month", "Total", "CBP", "ICE"],
              {2023: [[m, 30, 20, 10] for m in MONTHS], "2024 YTD": [[m, 24710, 16520, 8190] for m in ytd]})
    add_table(wb, names.get("rr", "ICE ERO R&R by Arrest Agcy"),
              f"ICE ERO Removals and Returns by Initial Arresting Agency: Fiscal Years 2023 to 2024 YTD ({title_month})",
              ["Fiscal Year", "Month", "Total", "CBP", "ICE"],
              {2023: [[m, 50, 30, 20] for m in MONTHS], "2024 YTD": [[m, 21650, 17260, 4380] for m in ytd]})
    add_table(wb, "DHS Repats by Type", f"DHS Repatriations by Type: Fiscal Years 2023 to 2024 YTD ({title_month})",
              ["Fiscal Year", "Month", "Total Repatriations3", "Total Title 8 Repatriations4",
               "Title 8 Enforcement Repatriations5", "Title 42 Expulsions6", "Total Removals", "Expedited Removals",
               "Reinstatements of Removal Orders", "Other Removals", "Total Enforcement Returns", "Withdrawals7",
               "Voluntary Returns", "Voluntary Departures", "Other Enforcement Returns8",
               "Total Administrative Returns", "Withdrawals9", "Crew Members Detained"],
              {"2024 YTD": [[m, 57630, 57630, 49890, "X", 28110, 12470, 11670, 3980, 21780, 18290, 2210, 450, 830,
                             7740, "X", 7740] for m in ytd]},
              groups=["", "", "Total Repatriations", "", "", "", "DHS Removals1", "", "", "",
                      "DHS Enforcement Returns2", "", "", "", "", "DHS Administrative Returns2", "", ""])
    add_table(wb, "CBP Encounter by Type + Region",
              f"Nationwide CBP Encounters by Encounter Type and Region: Fiscal Years 2023 to 2024 YTD ({title_month})",
              ["Fiscal Year", "Month", "Total", "SW Land Border", "Northern Land Border", "Coastal Border",
               "Air Ports of Entry", "Total", "SW Land Border", "Northern Land Border", "Coastal Border",
               "Air Ports of Entry", "Total", "SW Land Border", "Northern Land Border", "Coastal Border",
               "Air Ports of Entry"],
              {"2024 YTD": [[m, 158890, 107470, 18940, 9730, 22750, 128230, 106350, 18070, 310, 3510, 30670, 1130,
                             880, 9420, 19240] for m in ytd]},
              groups=["", "", "Total CBP", "", "", "", "", "Enforcement Encounters1", "", "", "", "",
                      "Administrative Encounters2", "", "", "", ""])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


@pytest.fixture(scope="module")
def workbook() -> bytes:
    return small_workbook()


def series(df, sid, key=""):
    return df[(df.series == S + sid) & (df.key == key)].set_index("date")["value"]


def test_layout_months_and_missing_markers(workbook):
    df = pipeline.parse_bytes(SRC, workbook, NAME)
    arrests = series(df, "ero_arrests")
    # FY2023 October is October 2022; "2024 YTD" runs October 2023 to August 2024; FY totals are not kept.
    assert arrests.index.min() == "2022-10-01" and arrests.index.max() == "2024-08-01" and len(arrests) == 12 + 11
    assert arrests["2024-08-01"] == 9230 and arrests["2023-09-01"] == 100
    crim = df[df.series == S + "ero_arrests_by_criminality"]
    aug = crim[crim.date == "2024-08-01"].set_index("key")["value"]
    assert aug["Convicted criminals (all)"] == 5020 and aug["Convicted: other/unknown"] == 190
    assert aug["Non-criminal: pending criminal charges"] == 2610
    fy23 = crim[crim.date == "2023-01-01"].set_index("key")["value"]
    assert "Convicted: felons" not in fy23.index  # "NA" is missing, never zero
    assert fy23["Non-criminal (all)"] == 60
    assert series(df, "book_ins_cbp")["2024-08-01"] == 16520 and series(df, "book_ins_ice")["2024-08-01"] == 8190
    assert series(df, "ice_removals_and_returns_total")["2024-08-01"] == 21650
    assert series(df, "ice_removals_and_returns_by_arresting_agency", "CBP")["2024-08-01"] == 17260
    # The repatriations table gives removals and returns separately; "X" (not applicable) gives no row.
    assert series(df, "dhs_removals_by_type", "Expedited removals")["2024-08-01"] == 12470
    assert series(df, "dhs_enforcement_returns")["2024-08-01"] == 21780
    assert series(df, "dhs_administrative_returns")["2024-08-01"] == 7740
    assert series(df, "cbp_encounters_total")["2024-08-01"] == 158890
    assert series(df, "cbp_encounters_by_region", "SW Land Border")["2024-08-01"] == 107470
    assert series(df, "cbp_encounters_by_type", "Administrative encounters")["2024-08-01"] == 30670
    assert set(df.flag) == {"rounded"} and set(df.release) == {"2024-12-06"}
    row = df[(df.series == S + "ero_arrests") & (df.date == "2024-02-01")].iloc[0]
    assert row["end"] == "2024-02-29"


def test_removals_and_returns_are_never_called_removals():
    cat = {s.id: s for s in SRC.series}
    combined = [s for s in SRC.series if s.id.startswith(S + "ice_removals_and_returns")]
    assert len(combined) == 3
    for s in combined:
        assert s.metric == "removals-and-returns" and "combined" in s.title.lower()
    assert cat[S + "dhs_removals_total"].metric == "removals"
    assert cat[S + "dhs_enforcement_returns"].metric == "returns"
    assert all("nearest 10" in s.definition for s in SRC.series)
    assert cat[S + "book_ins_ice"].metric == "book-ins" and cat[S + "ero_arrests"].metric == "arrests"


def test_tables_are_found_by_title_not_sheet_name():
    body = small_workbook(sheet_names={"arrests": "Sheet7", "book_ins": "Tbl 2", "rr": "R and R"})
    df = pipeline.parse_bytes(SRC, body, NAME)
    assert series(df, "ero_arrests")["2024-08-01"] == 9230 and series(df, "book_ins_total")["2024-08-01"] == 24710


@pytest.mark.parametrize("name, release", [
    (NAME, "2024-12-06"),
    ("24-1011_ohss_immigration-enforcement-and-legal-processes-tables-june-2024_2.xlsx", "2024-10-11"),
    ("tables.xlsx", "2024-09-30"),  # no date in the name: the "current as of" note
])
def test_release_date(name, release):
    assert ohss_monthly.release_of(name, [NOTE], "2024-08-01") == release
    assert ohss_monthly.release_of("tables.xlsx", [], "2024-08-01") == "2024-08-31"


def test_title_month_that_disagrees_with_the_data_is_flagged():
    df = pipeline.parse_bytes(SRC, small_workbook(title_month="September 2024"), NAME)
    assert set(df.flag) == {"rounded;stale-header"}


def test_month_row_with_its_fiscal_year_repeated_is_kept():
    wb = openpyxl.load_workbook(io.BytesIO(small_workbook()))
    ws = wb["ICE Book-Ins by Arrest Agency"]
    assert ws.cell(row=5, column=2).value == "October" and ws.cell(row=5, column=1).value is None
    ws.cell(row=5, column=1).value = 2023
    buf = io.BytesIO()
    wb.save(buf)
    df = pipeline.parse_bytes(SRC, buf.getvalue(), NAME)
    assert series(df, "book_ins_total")["2022-10-01"] == 30 and len(series(df, "book_ins_total")) == 23


def test_missing_required_table_is_named():
    with pytest.raises(ParseError, match="ERO Administrative Arrests by Criminality") as e:
        ohss_monthly.parse(small_workbook(drop=("arrests",)), NAME)
    assert NAME in str(e.value)


def test_bad_cell_is_named():
    wb = openpyxl.load_workbook(io.BytesIO(small_workbook()))
    ws = wb["ICE Book-Ins by Arrest Agency"]
    ws.cell(row=6, column=4).value = "n/a?"
    buf = io.BytesIO()
    wb.save(buf)
    with pytest.raises(ParseError, match=r"sheet 'ICE Book-Ins by Arrest Agency' row 6 column 'CBP'"):
        ohss_monthly.parse(buf.getvalue(), NAME)


def test_not_a_workbook():
    with pytest.raises(ParseError, match="not a readable XLSX"):
        ohss_monthly.parse(b"PK\x03\x04 broken", NAME)


@responses.activate
def test_discover_finds_the_workbooks():
    html = f"""<html><body>
    <a href="/sites/default/files/2024-12/{NAME}">August 2024</a>
    <a href="https://ohss.dhs.gov/sites/default/files/2024-10/24-1011_ohss_immigration-enforcement-and-legal-processes-tables-june-2024_2.xlsx">June</a>
    <a href="/sites/default/files/2024-12/2024_1206_ohss_some-other-table.xlsx">other</a>
    <a href="/sites/default/files/2024-12/{NAME}">again</a></body></html>"""
    responses.get(ohss_monthly.LANDING, body=html)
    assert ohss_monthly.discover(requests.Session()) == [
        f"https://ohss.dhs.gov/sites/default/files/2024-12/{NAME}",
        "https://ohss.dhs.gov/sites/default/files/2024-10/24-1011_ohss_immigration-enforcement-and-legal-processes-tables-june-2024_2.xlsx",
    ]
    responses.replace(responses.GET, ohss_monthly.LANDING, body="<html>nothing</html>")
    with pytest.raises(FetchError, match="no monthly-tables workbook"):
        ohss_monthly.discover(requests.Session())


@pytest.fixture
def real_tables(shared_data) -> pd.DataFrame:
    p = shared_data / "ohss-monthly-tables" / NAME
    return pipeline.parse_bytes(SRC, p.read_bytes(), p.name)


@pytest.mark.shared
def test_real_workbook(real_tables):
    df = real_tables
    assert set(df.release) == {"2024-12-06"} and set(df.flag) == {"rounded"}
    arrests = series(df, "ero_arrests")
    assert len(arrests) == 131 and arrests.index.min() == "2013-10-01" and arrests.index.max() == "2024-08-01"
    assert arrests["2024-08-01"] == 9230 and arrests["2023-10-01":].sum() == 104960
    assert series(df, "ero_arrests_by_criminality", "Convicted criminals (all)")["2024-08-01"] == 5020
    assert series(df, "book_ins_total")["2024-08-01"] == 24710
    assert series(df, "book_ins_cbp")["2024-08-01"] == 16520 and series(df, "book_ins_ice")["2024-08-01"] == 8190
    assert series(df, "ice_removals_and_returns_total")["2024-08-01"] == 21650
    # Felony subcategories only exist from FY2022; pending charges from FY2018.
    crim = df[df.series == S + "ero_arrests_by_criminality"]
    assert crim[crim.key == "Convicted: felons"].date.min() == "2021-10-01"
    assert crim[crim.key == "Non-criminal: pending criminal charges"].date.min() == "2017-10-01"


@pytest.mark.shared
def test_real_workbook_parts_and_totals_agree_within_rounding(real_tables):
    """DHS rounds each cell to 10, so a total and the sum of its n parts may differ by up to 5 * n."""
    df = real_tables
    removals = series(df, "dhs_removals_total")
    by_type = df[df.series == S + "dhs_removals_by_type"].groupby("date")["value"].sum()
    assert ((by_type - removals).abs() <= 15).all()
    cbp_total = series(df, "cbp_encounters_total")
    regions = df[df.series == S + "cbp_encounters_by_region"].groupby("date")["value"].sum()
    assert ((regions - cbp_total).abs() <= 20).all()
    swb = series(df, "swb_encounters_total")
    assert ((series(df, "swb_encounters_usbp") + series(df, "swb_encounters_ofo") - swb).abs() <= 10).all()
    # The southwest border column of the nationwide table is the same figure as the southwest table's total.
    assert ((series(df, "cbp_encounters_by_region", "SW Land Border") - swb).abs() <= 10).all()


@pytest.mark.shared
def test_ohss_encounters_match_cbp_file_within_rounding(real_tables, shared_data):
    """Cross-check: OHSS southwest encounters vs CBP's exact public CSV, October 2021 to August 2024.

    On the 35 overlapping months every OHSS value is CBP's exact count rounded to 10 (difference at most 5),
    although the OHSS pull (September 2024) is a year older than CBP's file (August 2025).
    """
    p = shared_data / "cbp-encounters" / "sbo-encounters-fy22-fy25-aug.csv"
    cbp = pipeline.parse_bytes(cbp_encounters.SOURCE, p.read_bytes(), p.name)
    for ohss_id, cbp_id in (("swb_encounters_total", "swb_total"), ("swb_encounters_usbp", "swb_usbp"),
                            ("swb_encounters_ofo", "swb_ofo")):
        exact = cbp[cbp.series == "cbp_encounters." + cbp_id].set_index("date")["value"]
        both = pd.concat([series(real_tables, ohss_id), exact], axis=1, join="inner", keys=["ohss", "cbp"])
        assert len(both) == 35 and both.index.min() == "2021-10-01" and both.index.max() == "2024-08-01"
        assert (both.ohss - both.cbp).abs().max() <= 5, ohss_id
