"""CBP encounter CSVs: the three layouts, release dates, overlapping releases, discovery, the real file."""
import csv
import datetime as dt
import io
import re

import pandas as pd
import pytest
import requests
import responses

from loaders import cbp_encounters, pipeline, tidy
from loaders.errors import FetchError, ParseError
from tests.conftest import record_downloads

SRC = cbp_encounters.SOURCE
S = "cbp_encounters."
# Headers copied from the real files (see ../shared/data/cbp-encounters/).
SWB_HEADER = ["Fiscal Year", "Month Grouping", "Month (abbv)", "Component", "Demographic", "Citizenship Grouping",
              "Title of Authority", "Encounter Type", "Encounter Count"]
AOR_HEADER = ["Fiscal Year", "Month Grouping", "Month (abbv)", "Component", "Land Border Region",
              "Area of Responsibility", "AOR (Abbv)", "Demographic", "Citizenship", "Title of Authority",
              "Encounter Type", "Encounter Count"]
STATE_HEADER = ["Fiscal Year", "Month Grouping", "Month (abbv)", "Land Border Region", "State", "Demographic",
                "Citizenship", "Title of Authority", "Encounter Count"]
FY_MONTHS = ["OCT", "NOV", "DEC", "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP"]


def csv_bytes(header, rows) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue().encode()


def swb_file(first_fy: int, last_fy: int, last_month: str = "SEP", usbp: int = 100, ofo: int = 10) -> bytes:
    """A Southwest file over a window of fiscal years; each month: USBP apprehensions and OFO inadmissibles.

    Values encode the month so that overlapping files can be told apart: usbp + fiscal year * 1000.
    """
    rows = []
    for fy in range(first_fy, last_fy + 1):
        label = f"{fy} (FYTD)" if fy == last_fy and last_month != "SEP" else str(fy)
        months = FY_MONTHS[:FY_MONTHS.index(last_month) + 1] if fy == last_fy else FY_MONTHS
        for i, m in enumerate(FY_MONTHS):
            if m not in months:
                continue
            group = "FYTD" if i <= FY_MONTHS.index(last_month) else "Remaining"
            rows.append([label, group, m, "U.S. Border Patrol", "Single Adults", "Mexico", "Title 8", "Apprehensions",
                         usbp + fy * 1000])
            rows.append([label, group, m, "Office of Field Operations", "UAC", "Other", "Title 8", "Inadmissibles",
                         ofo])
    return csv_bytes(SWB_HEADER, rows)


@pytest.fixture
def swb_small() -> bytes:
    """FY2025 to date with the real quirks: "(FYTD)" year, upper-case months, Title 42 and 8 rows."""
    return csv_bytes(SWB_HEADER, [
        ["2024", "FYTD", "DEC", "U.S. Border Patrol", "FMUA", "Guatemala", "Title 8", "Apprehensions", "7"],
        ["2024", "Remaining", "SEP", "U.S. Border Patrol", "Single Adults", "Mexico", "Title 8", "Apprehensions", "40"],
        ["2025 (FYTD)", "FYTD", "OCT", "U.S. Border Patrol", "Single Adults", "Mexico", "Title 8", "Apprehensions", "100"],
        ["2025 (FYTD)", "FYTD", "OCT", "U.S. Border Patrol", "UAC", "Honduras", "Title 8", "Apprehensions", "5"],
        ["2025 (FYTD)", "FYTD", "OCT", "Office of Field Operations", "Accompanied Minors", "Mexico", "Title 8",
         "Inadmissibles", "30"],
        ["2025 (FYTD)", "FYTD", "JAN", "Office of Field Operations", "Single Adults", "Other", "Title 42",
         "Expulsions", "2"],
        ["2025 (FYTD)", "FYTD", "JAN", "U.S. Border Patrol", "Single Adults", "El Salvador", "Title 42", "Expulsions",
         "1,200"],
    ])


def series(df, sid, key=""):
    return df[(df.series == S + sid) & (df.key == key)].set_index("date")["value"]


def test_fiscal_years_months_and_components(swb_small):
    df = pipeline.parse_bytes(SRC, swb_small, "sbo-encounters-fy24-fy25-jan.csv")
    total = series(df, "swb_total")
    # DEC of FY2024 is December 2023; OCT of "2025 (FYTD)" is October 2024; JAN of FY2025 is January 2025.
    assert total.to_dict() == {"2023-12-01": 7, "2024-09-01": 40, "2024-10-01": 135, "2025-01-01": 1202}
    assert series(df, "swb_usbp")["2024-10-01"] == 105 and series(df, "swb_ofo")["2024-10-01"] == 30
    assert series(df, "swb_by_component_and_type", "USBP Expulsions")["2025-01-01"] == 1200
    assert series(df, "swb_by_component_and_type", "OFO Inadmissibles")["2024-10-01"] == 30
    assert set(df[df.series == S + "swb_by_component_and_type"].key) == {
        "USBP Apprehensions", "USBP Expulsions", "OFO Inadmissibles", "OFO Expulsions"}
    assert series(df, "swb_by_title", "Title 42")["2025-01-01"] == 1202
    assert series(df, "swb_by_demographic", "Accompanied Minors")["2024-10-01"] == 30
    assert series(df, "swb_by_citizenship", "Honduras")["2024-10-01"] == 5
    oct_ = df[(df.series == S + "swb_total") & (df.date == "2024-10-01")].iloc[0]
    # Data through January 2025; CBP puts such a file out around the middle of February (an estimate).
    assert oct_["end"] == "2024-10-31" and oct_["release"] == "2025-02-15" and oct_["flag"] == ""


def test_usbp_and_ofo_are_separate_series_with_their_own_agency():
    cat = {s.id: s for s in SRC.series}
    assert cat[S + "swb_usbp"].agency == "USBP" and cat[S + "swb_ofo"].agency == "OFO"
    assert "apprehensions" in cat[S + "swb_usbp"].definition.lower()
    assert "inadmissible" in cat[S + "swb_ofo"].definition.lower()
    assert all(s.metric == "encounters" for s in SRC.series)


# (file name, its last month, the data month's last day, the estimated release: the 15th of the month after)
@pytest.mark.parametrize("name, last_month, through, release, flag", [
    ("sbo-encounters-fy22-fy25-aug.csv", "2025-08-01", "2025-08-31", "2025-09-15", ""),
    # the URLs seen: April 2026 data under /2026-05/, July 2026 data under /2026-08/
    ("sbo-encounters-fy23-fy26-apr.csv", "2026-04-01", "2026-04-30", "2026-05-15", ""),
    ("sbo-encounters-fy22-fy25-nov.csv", "2024-11-01", "2024-11-30", "2024-12-15", ""),  # Nov of FY25 is in 2024
    ("sbo-encounters-fy21-fy24.csv", "2024-09-01", "2024-09-30", "2024-10-15", ""),  # no suffix: its last month
    ("nationwide-encounters-fy23-fy26-jul-aor.csv", "2026-07-01", "2026-07-31", "2026-08-15", ""),
    ("nationwide-encounters-fy22-fy25-state.csv", "2025-09-01", "2025-09-30", "2025-10-15", ""),
    ("nationwide-encounters-fy22-fy25-dec-state.csv", "2024-12-01", "2024-12-31", "2025-01-15", ""),  # a new year
    ("my-download.csv", "2025-03-01", "2025-03-31", "2025-04-15", ""),
    ("sbo-encounters-fy22-fy25-aug.csv", "2025-07-01", "2025-08-31", "2025-09-15", "stale-header"),
])
def test_release_is_the_estimated_publication_day_after_the_data_month(name, last_month, through, release, flag):
    assert cbp_encounters.data_month_of(name, last_month) == (dt.date.fromisoformat(through), flag)
    assert cbp_encounters.release_of(name, last_month) == (release, flag)


def test_cbp_declares_its_release_dates_estimated():
    assert SRC.release_dated == "estimated" and "15" in SRC.release_rule and "mid-month" in SRC.release_rule


def test_stale_suffix_is_flagged_not_fixed():
    body = swb_file(2024, 2025, last_month="JUL")
    df = pipeline.parse_bytes(SRC, body, "sbo-encounters-fy24-fy25-aug.csv")
    assert set(df.release) == {"2025-09-15"} and set(df.flag) == {"stale-header"}
    assert df.date.max() == "2025-07-01"


def test_overlapping_releases_keep_each_month_from_the_latest(tmp_path):
    old = swb_file(2021, 2024, usbp=100)  # Oct 2020 .. Sep 2024, released for the close of FY2024
    new = swb_file(2022, 2025, last_month="AUG", usbp=500)  # Oct 2021 .. Aug 2025, revised values
    raw = tmp_path / "raw" / "cbp_encounters"
    raw.mkdir(parents=True)
    (raw / "sbo-encounters-fy21-fy24.csv").write_bytes(old)
    (raw / "sbo-encounters-fy22-fy25-aug.csv").write_bytes(new)
    record_downloads(raw)
    out = tmp_path / "snap"
    counts = pipeline.rebuild(tmp_path / "raw", out, ["cbp_encounters"])
    obs = pipeline.load_source_observations(out, "cbp_encounters")
    assert counts["cbp_encounters"] == len(obs) and set(obs.release) == {"2024-10-15", "2025-09-15"}
    usbp = obs[obs.series == S + "swb_usbp"]
    latest = tidy.latest(usbp).set_index("date")
    # FY2021 is only in the old file; FY2022-FY2024 are in both and come from the newer one; FY2025 only new.
    assert latest.loc["2020-10-01", "value"] == 2021 * 1000 + 100 and latest.loc["2020-10-01", "release"] == "2024-10-15"
    assert latest.loc["2023-06-01", "value"] == 2023 * 1000 + 500 and latest.loc["2023-06-01", "release"] == "2025-09-15"
    assert latest.loc["2025-08-01", "value"] == 2025 * 1000 + 500
    assert len(latest) == 12 * 4 + 11
    # What a reader saw at the end of 2024: only the old release.
    seen = tidy.as_published(usbp, "2024-12-31").set_index("date")
    assert seen.loc["2023-06-01", "value"] == 2023 * 1000 + 100 and "2025-08-01" not in seen.index
    # On 10 September 2025 the August file was not out yet (data through August, out around 15 September):
    # dated by its data month it was shown as published on 31 August.
    seen = tidy.as_published(usbp, "2025-09-10").set_index("date")
    assert "2025-08-01" not in seen.index and seen.loc["2023-06-01", "value"] == 2023 * 1000 + 100
    assert tidy.as_published(usbp, "2025-09-15").set_index("date").loc["2023-06-01", "value"] == 2023 * 1000 + 500
    revised = tidy.revisions(usbp)
    assert len(revised) == 36 and (revised["change"] == 400).all()


def test_nationwide_aor_layout():
    body = csv_bytes(AOR_HEADER, [
        ["2023", "FYTD", "DEC", "Office of Field Operations", "Northern Land Border", "Boston Field Office", "Boston",
         "Accompanied Minors", "BRAZIL", "Title 42", "Expulsions", "3"],
        ["2023", "FYTD", "DEC", "Office of Field Operations", "Northern Land Border", "Boston Field Office", "Boston",
         "Accompanied Minors", "CANADA", "Title 8", "Inadmissibles", "1"],
        ["2023", "FYTD", "DEC", "U.S. Border Patrol", "Southwest Land Border", "Tucson Sector", "TCA", "Single Adults",
         "MEXICO", "Title 8", "Apprehensions", "900"],
        ["2023", "FYTD", "DEC", "U.S. Border Patrol", "Northern Land Border", "Swanton Sector", "SWB", "Single Adults",
         "CHINA, PEOPLES REPUBLIC OF", "Title 8", "Apprehensions", "20"],
    ])
    df = pipeline.parse_bytes(SRC, body, "nationwide-encounters-fy20-fy23-aor.csv")
    d = "2022-12-01"
    assert series(df, "nationwide_total")[d] == 924
    assert series(df, "nationwide_usbp")[d] == 920 and series(df, "nationwide_ofo")[d] == 4
    assert series(df, "nationwide_by_region", "Northern Land Border")[d] == 24
    assert series(df, "nationwide_usbp_by_region", "Northern Land Border")[d] == 20
    assert series(df, "nationwide_by_aor", "Boston Field Office")[d] == 4
    assert not df.series.str.contains("swb_").any()  # a nationwide file never feeds the Southwest series


def test_nationwide_state_layout_gives_only_states():
    body = csv_bytes(STATE_HEADER, [
        ["2022", "FYTD", "APR", "Northern Land Border", "ME", "Single Adults", "CHINA, PEOPLES REPUBLIC OF", "Title 42", "1"],
        ["2022", "FYTD", "APR", "Northern Land Border", "ME", "Single Adults", "CHINA, PEOPLES REPUBLIC OF", "Title 8", "4"],
        ["2022", "FYTD", "APR", "Northern Land Border", "NY", "Single Adults", "CANADA", "Title 8", "1460"],
    ])
    df = pipeline.parse_bytes(SRC, body, "nationwide-encounters-fy22-fy25-state.csv")
    assert set(df.series) == {S + "nationwide_by_state"}
    assert series(df, "nationwide_by_state", "ME")["2022-04-01"] == 5
    assert series(df, "nationwide_by_state", "NY")["2022-04-01"] == 1460


@pytest.mark.parametrize("row, what", [
    (["FY?", "FYTD", "OCT", "U.S. Border Patrol", "UAC", "Mexico", "Title 8", "Apprehensions", "1"],
     "line 2 field 'Fiscal Year'"),
    (["2025", "FYTD", "OKT", "U.S. Border Patrol", "UAC", "Mexico", "Title 8", "Apprehensions", "1"],
     "line 2 field 'Month (abbv)'"),
    (["2025", "FYTD", "OCT", "U.S. Border Patrol", "UAC", "Mexico", "Title 8", "Apprehensions", "many"],
     "line 2 field 'Encounter Count'"),
    (["2025", "FYTD", "OCT", "Air and Marine Operations", "UAC", "Mexico", "Title 8", "Apprehensions", "1"],
     "line 2 field 'Component'"),
])
def test_bad_rows_are_named(row, what):
    with pytest.raises(ParseError, match=re.escape(what)) as e:
        cbp_encounters.parse(csv_bytes(SWB_HEADER, [row]), "sbo-encounters-fy22-fy25.csv")
    assert "cbp_encounters" in str(e.value) and "sbo-encounters-fy22-fy25.csv" in str(e.value)


def test_changed_layout_is_named():
    with pytest.raises(ParseError, match=r"missing column\(s\) \['Encounter Type'\]"):
        cbp_encounters.parse(csv_bytes([c for c in SWB_HEADER if c != "Encounter Type"], [["2025"] * 8]), "x.csv")
    with pytest.raises(ParseError, match="no rows"):
        cbp_encounters.parse(csv_bytes(SWB_HEADER, []), "x.csv")


LANDING_HTML = """<html><body>
<a href="/sites/default/files/2025-09/sbo-encounters-fy22-fy25-aug.csv">Southwest Land Border Encounters (FY22-FY25 Aug)</a>
<a href='https://www.cbp.gov/sites/default/files/assets/documents/2023-Nov/nationwide-encounters-fy20-fy23-aor.csv'>AOR</a>
<a href="/sites/default/files/2026-08/nationwide-encounters-fy23-fy26-jul-state.csv?v=2">State</a>
<a href="/sites/default/files/2025-09/sbo-encounters-fy22-fy25-aug.csv">again</a>
<a href="/sites/default/files/2025-09/unrelated-table.csv">other</a>
<a href="/sites/default/files/2025-09/sbo-encounters-fy22-fy25-aug.pdf">pdf</a>
</body></html>"""


@responses.activate
def test_discover_reads_both_landing_pages():
    responses.get(cbp_encounters.LANDING_SWB, body=LANDING_HTML)
    responses.get(cbp_encounters.LANDING_NATIONWIDE, body=LANDING_HTML)
    urls = cbp_encounters.discover(requests.Session())
    assert urls == [
        "https://www.cbp.gov/sites/default/files/2025-09/sbo-encounters-fy22-fy25-aug.csv",
        "https://www.cbp.gov/sites/default/files/assets/documents/2023-Nov/nationwide-encounters-fy20-fy23-aor.csv",
        "https://www.cbp.gov/sites/default/files/2026-08/nationwide-encounters-fy23-fy26-jul-state.csv",
    ]


@responses.activate
def test_discover_fails_clearly():
    responses.get(cbp_encounters.LANDING_SWB, body="<html><body>No files today</body></html>")
    with pytest.raises(FetchError, match="no encounter CSV link"):
        cbp_encounters.discover(requests.Session())
    responses.replace(responses.GET, cbp_encounters.LANDING_SWB, status=404)
    with pytest.raises(FetchError, match="HTTP 404"):
        cbp_encounters.discover(requests.Session())


@pytest.mark.shared
def test_real_southwest_file(shared_data):
    p = shared_data / "cbp-encounters" / "sbo-encounters-fy22-fy25-aug.csv"
    df = pipeline.parse_bytes(SRC, p.read_bytes(), p.name)
    assert set(df.release) == {"2025-09-15"} and set(df.flag) == {""}
    total = series(df, "swb_total")
    assert len(total) == 47 and total.index.min() == "2021-10-01" and total.index.max() == "2025-08-01"
    fy = pd.to_datetime(total.index).to_period("Q-SEP").qyear  # fiscal year of each month
    assert total.groupby(fy).sum().to_dict() == {2022: 2378944, 2023: 2475669, 2024: 2135005, 2025: 432059}
    assert total["2025-01-01"] == 61448 and total["2025-02-01"] == 11714
    assert total["2025-06-01"] == 9302 and total["2025-07-01"] == 7824
    usbp, ofo = series(df, "swb_usbp"), series(df, "swb_ofo")
    assert usbp["2025-07-01"] == 4596 and ofo["2025-07-01"] == 7824 - 4596
    assert ((usbp + ofo) == total).all()
    by_title = df[df.series == S + "swb_by_title"]
    assert by_title[by_title.key == "Title 42"].date.max() == "2023-05-01"  # Title 42 ended on 11 May 2023
    for sid in ("swb_by_component_and_type", "swb_by_title", "swb_by_demographic", "swb_by_citizenship"):
        parts = df[df.series == S + sid].groupby("date")["value"].sum()
        assert (parts == total).all(), sid
    assert set(df[df.series == S + "swb_by_citizenship"].key) == {"El Salvador", "Guatemala", "Honduras", "Mexico", "Other"}


@pytest.mark.shared
def test_real_excerpts_have_the_layouts_the_parser_reads(shared_data):
    """The nationwide excerpts are subsets (so never in the snapshot), but their headers are the real ones."""
    folder = shared_data / "cbp-encounters"
    aor = pipeline.parse_bytes(SRC, (folder / "EXCERPT_nationwide-encounters-aor_header_and_rows.csv").read_bytes(),
                               "nationwide-encounters-fy20-fy23-aor.csv")
    assert series(aor, "nationwide_by_aor", "Boston Field Office")["2022-12-01"] == 5
    state = pipeline.parse_bytes(SRC, (folder / "EXCERPT_nationwide-encounters-fy22-fy25-state.csv").read_bytes(),
                                 "nationwide-encounters-fy22-fy25-state.csv")
    assert series(state, "nationwide_by_state", "NY")["2022-04-01"] == 1460 + 305 + 6
    assert not [p for p in pipeline.find_raw_files(SRC, shared_data) if p.name.startswith("EXCERPT")]


@responses.activate
def test_update_discovers_downloads_and_keeps_both_releases(tmp_path):
    """End to end through ``pipeline.update``: landing pages -> CSV links -> download -> parse -> snapshot."""
    base = "https://www.cbp.gov/sites/default/files/"
    swb_page = '<a href="/sites/default/files/2025-09/sbo-encounters-fy22-fy25-aug.csv">CSV</a>'
    nat_page = '<a href="/sites/default/files/2025-09/nationwide-encounters-fy22-fy25-aug-state.csv">State</a>'
    responses.get(cbp_encounters.LANDING_SWB, body=swb_page)
    responses.get(cbp_encounters.LANDING_NATIONWIDE, body=nat_page)
    responses.get(base + "2025-09/sbo-encounters-fy22-fy25-aug.csv", body=swb_file(2022, 2025, last_month="AUG"))
    responses.get(base + "2025-09/nationwide-encounters-fy22-fy25-aug-state.csv", body=csv_bytes(STATE_HEADER, [
        ["2025 (FYTD)", "FYTD", "AUG", "Southwest Land Border", "TX", "Single Adults", "MEXICO", "Title 8", "70"]]))
    data, raw = tmp_path / "data", tmp_path / "raw"
    summary = pipeline.update(["cbp_encounters"], data, raw)
    assert summary["cbp_encounters"].endswith("from 2 new file(s)")
    obs = pipeline.load_source_observations(data, "cbp_encounters")
    assert series(obs, "nationwide_by_state", "TX")["2025-08-01"] == 70
    assert series(obs, "swb_usbp")["2025-08-01"] == 2025 * 1000 + 100
    man = pipeline.read_manifest(data)["sources"]["cbp_encounters"]
    assert {f["url"] for f in man["files"]} == {base + "2025-09/sbo-encounters-fy22-fy25-aug.csv",
                                               base + "2025-09/nationwide-encounters-fy22-fy25-aug-state.csv"}
