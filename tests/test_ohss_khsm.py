"""KHSM USBP encounters workbook: layout, release tag, discovery, the real file, cross-checks with CBP and DDP."""
import io

import openpyxl
import pandas as pd
import pytest
import requests
import responses

from loaders import cbp_encounters, ohss_khsm, pipeline
from loaders.errors import FetchError, ParseError

SRC = ohss_khsm.SOURCE
S = "ohss_khsm."
NAME = "KHSM Encounters (USBP) fy25m11.xlsx"
REGIONS = ("Coastal Border", "Northern Land Border", "Southwest Land Border")


def khsm_workbook(months=(("2024", "12 September"), ("2025", "01 October"), ("2025", "02 November")),
                  region_month_label=None) -> bytes:
    """The real layout: "Fiscal\\nYear" header, "01 October" months, annual sheets beside the monthly ones."""
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Annual Count"
    ws.append(["Fiscal\nYear", "Quantity"])
    ws.append([2025, 105660])
    count = wb.create_sheet("Monthly Count")
    count.append(["Fiscal\nYear", "Month", "Quantity"])
    region = wb.create_sheet("Monthly Region")
    region.append(["Fiscal\nYear", "Month", "Region", "Quantity"])
    for i, (fy, month) in enumerate(months):
        count.append([int(fy), month, 58130 + i])
        for j, r in enumerate(REGIONS):
            label = region_month_label if (region_month_label and i == 0) else month
            region.append([int(fy), label, r, [540, 1060, 56530][j] + i])
    sector = wb.create_sheet("Monthly Sector")
    sector.append(["Fiscal\nYear", "Month", "Sector", "Quantity"])
    sector.append([2025, "01 October", "Tucson, AZ", 19480])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def series(df, sid, key=""):
    return df[(df.series == S + sid) & (df.key == key)].set_index("date")["value"]


def test_layout_and_fiscal_months():
    df = pipeline.parse_bytes(SRC, khsm_workbook(), NAME)
    total = series(df, "usbp_encounters")
    assert total.to_dict() == {"2024-09-01": 58130, "2024-10-01": 58131, "2024-11-01": 58132}
    sw = series(df, "usbp_encounters_by_region", "Southwest Land Border")
    assert sw["2024-10-01"] == 56531 and set(df[df.series == S + "usbp_encounters_by_region"].key) == set(REGIONS)
    assert set(df.flag) == {"rounded"} and set(df.release) == {"2024-11-30"}
    assert set(df.series) == {S + "usbp_encounters", S + "usbp_encounters_by_region"}  # sector sheet not read


@pytest.mark.parametrize("name, last, release, flag", [
    ("KHSM Encounters (USBP) fy25m11.xlsx", "2024-11-01", "2024-11-30", ""),
    ("KHSM Encounters (USBP) fy25m03.xlsx", "2025-03-01", "2025-03-31", ""),
    ("KHSM Encounters (USBP) fy25m12.xlsx", "2024-11-01", "2024-12-31", "stale-header"),
    ("khsm.xlsx", "2024-11-01", "2024-11-30", ""),
])
def test_release_from_file_name_tag(name, last, release, flag):
    assert ohss_khsm.release_of(name, pd.Timestamp(last).date()) == (release, flag)


def test_tag_ahead_of_the_data_is_flagged():
    df = pipeline.parse_bytes(SRC, khsm_workbook(), "KHSM Encounters (USBP) fy25m12.xlsx")
    assert set(df.flag) == {"rounded;stale-header"}


@pytest.mark.parametrize("label", ["02 October", "October", "13 Smarch"])
def test_month_label_that_does_not_fit_is_an_error(label):
    with pytest.raises(ParseError, match=r"sheet 'Monthly Region' row 2 column 'Month'") as e:
        ohss_khsm.parse(khsm_workbook(region_month_label=label), NAME)
    assert NAME in str(e.value)


def test_missing_sheet_is_named():
    wb = openpyxl.load_workbook(io.BytesIO(khsm_workbook()))
    del wb["Monthly Region"]
    buf = io.BytesIO()
    wb.save(buf)
    with pytest.raises(ParseError, match="no sheet named 'monthly region'"):
        ohss_khsm.parse(buf.getvalue(), NAME)


def test_raw_glob_matches_the_name_with_spaces(tmp_path):
    (tmp_path / "ohss-khsm").mkdir()
    (tmp_path / "ohss-khsm" / NAME).write_bytes(b"x")
    (tmp_path / "ohss_khsm").mkdir()
    (tmp_path / "ohss_khsm" / "KHSM%20Encounters%20%28USBP%29%20fy25m12.xlsx").write_bytes(b"x")
    names = [p.name for p in pipeline.find_raw_files(SRC, tmp_path)]
    assert NAME in names and len(names) == 2


@responses.activate
def test_discover_finds_the_usbp_workbook():
    html = """<a href="/sites/default/files/2024-12/KHSM%20Encounters%20%28USBP%29%20fy25m11.xlsx">USBP</a>
    <a href="/sites/default/files/2024-12/KHSM Encounters (OFO) fy25m11.xlsx">OFO</a>"""
    responses.get(ohss_khsm.LANDING, body=html)
    assert ohss_khsm.discover(requests.Session()) == [
        "https://ohss.dhs.gov/sites/default/files/2024-12/KHSM%20Encounters%20%28USBP%29%20fy25m11.xlsx"]
    responses.replace(responses.GET, ohss_khsm.LANDING, status=503)
    with pytest.raises(FetchError, match="HTTP 503"):
        ohss_khsm.discover(requests.Session())


@pytest.fixture
def khsm_real(shared_data) -> pd.DataFrame:
    p = shared_data / "ohss-khsm" / NAME
    return pipeline.parse_bytes(SRC, p.read_bytes(), p.name)


@pytest.fixture
def cbp_real(shared_data) -> pd.DataFrame:
    p = shared_data / "cbp-encounters" / "sbo-encounters-fy22-fy25-aug.csv"
    return pipeline.parse_bytes(cbp_encounters.SOURCE, p.read_bytes(), p.name)


@pytest.mark.shared
def test_real_workbook(khsm_real):
    df = khsm_real
    total = series(df, "usbp_encounters")
    assert len(total) == 302 and total.index.min() == "1999-10-01" and total.index.max() == "2024-11-01"
    assert total["1999-10-01"] == 89810 and total["2024-10-01"] == 58130 and total["2024-11-01"] == 47540
    assert series(df, "usbp_encounters_by_region", "Southwest Land Border")["2024-10-01"] == 56530
    assert set(df.release) == {"2024-11-30"} and set(df.flag) == {"rounded"}
    # Three rounded regions add up to the rounded nationwide count within 3 x 5.
    regions = df[df.series == S + "usbp_encounters_by_region"].groupby("date")["value"].sum()
    assert ((regions - total).abs() <= 15).all()
    # FY2024 from the monthly sheet, as a check against the annual sheet (1,557,320), within 12 x 5.
    assert abs(total["2023-10-01":"2024-09-01"].sum() - 1557320) <= 60


@pytest.mark.shared
def test_usbp_southwest_matches_cbp_file_within_rounding(khsm_real, cbp_real):
    """Cross-check: KHSM Southwest region (rounded to 10) vs CBP's exact USBP count, October 2021 to November 2024.

    37 of 38 months differ by at most 5, i.e. by DHS's rounding alone. October 2024 differs by 10: KHSM 56,530
    against CBP 56,520. 56,520 would round to itself, so the underlying count moved between DHS's pull (late
    2024) and CBP's file of August 2025 (CBP revises until the fiscal year closes). Both are kept.
    """
    khsm = series(khsm_real, "usbp_encounters_by_region", "Southwest Land Border")
    cbp = cbp_real[cbp_real.series == "cbp_encounters.swb_usbp"].set_index("date")["value"]
    both = pd.concat([khsm, cbp], axis=1, join="inner", keys=["khsm", "cbp"])
    diff = both.khsm - both.cbp
    assert len(both) == 38 and both.index.min() == "2021-10-01" and both.index.max() == "2024-11-01"
    assert list(diff[diff.abs() > 5].index) == ["2024-10-01"]
    assert both.loc["2024-10-01"].tolist() == [56530, 56520]
    assert diff.abs().max() <= 10


@pytest.mark.shared
def test_usbp_nationwide_matches_ddp_cross_reference(khsm_real, shared_data):
    """Cross-check: KHSM nationwide USBP vs DDP's sum of the U.S. Border Patrol rows of CBP's nationwide AOR files.

    DDP's ``fiscal_month`` column holds the calendar month, so the month comes from ``month_start``. Over the 62
    overlapping months (October 2019 to November 2024) 56 agree within rounding (5); the rest differ by up to 25
    (at most 0.1%), the gap between DHS's pull and the newest CBP file DDP used for each month.
    """
    ddp = pd.read_csv(shared_data / "ddp-cbp" / "encounters_monthly_cross_reference.csv")
    assert (pd.to_datetime(ddp.month_start).dt.month == ddp.fiscal_month).all()
    ddp = ddp.set_index("month_start")["cbp_usb_encounter_count"]
    both = pd.concat([series(khsm_real, "usbp_encounters"), ddp], axis=1, join="inner", keys=["khsm", "ddp"])
    diff = (both.khsm - both.ddp).abs()
    assert len(both) == 62 and both.index.min() == "2019-10-01"
    assert (diff <= 5).sum() >= 56
    assert (diff / both.ddp).max() <= 0.001
