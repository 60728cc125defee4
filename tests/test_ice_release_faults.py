"""Issue 39: no ICE release is refused whole for a fault in one table or row.

Each fault kind that refused one of the 88 mid-year workbooks of FY2021-FY2025 (../shared/data/ice-detention-stats/
release_history) is rebuilt here in a small workbook of the real layout (tests/ice_workbook_factory.py): the
table or row at fault is left out with a finding naming file, sheet, row and reason, and the rest of the release
is kept; a file-name date that cannot be a release date gives way to the workbook's own dates; a workbook holding
another year's sheets is read as that year's release. The last test reads every file of release_history.
"""
import datetime as dt
import io
from dataclasses import replace

import pandas as pd
import pytest
from openpyxl import load_workbook

from loaders import ice_detention_stats as ice
from loaders import ice_tables, pipeline
from tests.ice_workbook_factory import Release, build, edit_cells, with_sheet_from

SRC = ice.SOURCE
S = "ice_detention_stats."
D = dt.date


@pytest.fixture
def feb() -> Release:
    return Release("FY25_detentionStats02272025.xlsx", 2025, D(2025, 2, 18), D(2025, 2, 22), ice=22622, cbp=21137,
                   docket=D(2025, 2, 23))


def parsed(content: bytes, name: str):
    """The release as the rebuild takes it: parsed and validated (a refusal raises here)."""
    return pipeline.parse_file(SRC, content, name)


def findings(p, flag: str) -> list[str]:
    f = p.tables["findings"]
    return f[f.flag == flag].message.tolist()


def without_sheet(content: bytes, sheet: str) -> bytes:
    wb = load_workbook(io.BytesIO(content))
    del wb[sheet]
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


# ---------------------------------------------------------------- sheets of another year

@pytest.mark.parametrize("stale", ["Detention FY20 YTD", "Detention EOFY2020"])
def test_a_detention_sheet_of_the_year_before_costs_the_detention_tables_only(stale):
    """FY21_detentionStats060921 / 10282021: FY2020's Detention sheet in a FY2021 workbook."""
    fy20 = Release("FY20-detentionstats.xlsx", 2020, D(2020, 9, 30), D(2020, 9, 26), ice=5000, cbp=15000, famu=None)
    fy21 = Release("FY21_detentionStats060921.xlsx", 2021, D(2021, 5, 31), D(2021, 6, 5), ice=9000, cbp=14000,
                   famu=None, book_outs_annual=True)
    b = with_sheet_from(without_sheet(build(fy21), "Detention FY21"), build(fy20), "Detention FY20", as_name=stale)
    p = parsed(b, fy21.name)
    rel = p.tables["releases"].iloc[0]
    assert (rel.fiscal_year, rel.release_date, rel.detention_sheet) == (2021, "2021-06-09", "")
    unread = findings(p, "table-unread")
    assert f"table 'detained' (no Detention sheet of FY2021) not read: the workbook's Detention sheet(s) belong " \
           f"to another year: {stale!r} (FY2020); the release is kept with its other tables and this table's " \
           "series have no rows from it" in unread
    # none of FY2020's figures, all of FY2021's facility list and ATD tables
    assert not p.obs.value.isin([5000.0, 15000.0]).any()
    assert (p.obs.series == S + "facility_adp_fytd").sum() == 4
    assert (p.obs.series == S + "atd_by_status").any()


def test_a_file_named_for_one_year_holding_the_next_is_read_as_the_next(feb):
    """FY24_detentionStats11152024: an FY24 name over FY2025 sheets is the first FY2025 release."""
    name = "FY24_detentionStats03052025.xlsx"
    p = parsed(build(feb), name)
    rel = p.tables["releases"].iloc[0]
    assert (rel.fiscal_year, rel.release_date, rel.release_date_from) == (2025, "2025-03-05", "file name")
    assert findings(p, "year-from-contents") == [
        "the file name says FY2024, but its Detention and Facilities sheets hold FY2025 ('Detention FY25' FY2025, "
        "'Facilities FY25' FY2025): the workbook is read as a FY2025 release"]
    assert p.obs.loc[p.obs.series == S + "removals_fytd", "key"].tolist() == ["FY2025"]


def test_another_years_footnotes_date_no_table(feb):
    """FY21_detentionStats061121 and 10072021 carry FY2020's Footnotes ("filtered through 06/20/2020"): their
    FY2021 tables were dated a year early. A footnote date outside the fiscal year is not used."""
    fy24 = replace(feb, name="FY24_detentionStats.xlsx", fy=2024, iids=D(2024, 2, 12), through=D(2024, 2, 17),
                   docket=None)
    b = with_sheet_from(without_sheet(build(feb), "Footnotes"), build(fy24), "Footnotes")
    p = parsed(b, feb.name)
    msgs = findings(p, "other-year-footnote")
    assert "the Footnotes sheet dates the detention tables 2024-02-17, outside fiscal year 2025: another year's " \
           "footnote, not used; those tables take another date of the release" in msgs
    assert len(msgs) == 4  # detention, book-ins, removals, docket
    det = p.obs[p.obs.series == S + "detained_ice"]
    assert det.date.tolist() == ["2025-02-18"]  # the IIDS date, not 2024-02-17
    assert p.tables["releases"].docket_as_of_from.iloc[0] == "IIDS date (no footnote)"


# ---------------------------------------------------------------- file-name dates

@pytest.mark.parametrize("name, digits", [("FY25_detentionStats02272024.xlsx", "02272024"),
                                          ("FY25_detentionStats022724.xlsx", "022724")])
def test_a_name_date_outside_the_fiscal_year_gives_way_to_the_workbooks_dates(feb, name, digits):
    """FY21_detentionStats07222020 (saved July 2021) and FY23_detentionStats01192022 (January 2023): ICE's typo
    in the year. The release is dated from the workbook, as an undated file is, with a finding."""
    p = parsed(build(feb), name)
    rel = p.tables["releases"].iloc[0]
    assert rel.dated_from_contents in (True, "True")
    latest = max(p.obs.end)  # the earliest day the file can have come out: the last day any table covers
    assert rel.release_date == latest and latest >= "2025-02-23"
    assert rel.release_date_from.endswith("(file name date not a possible release date)")
    assert findings(p, "name-date-overruled") == [
        f"file name date '{digits}' is no date inside fiscal year 2025's release window: the release is dated "
        f"{latest} from the workbook itself ({rel.release_date_from.split(' (')[0]}), the earliest day it can have "
        "been published, not a known publication date"]
    assert set(p.obs.release) == {latest}


def test_a_table_dated_after_the_release_is_left_out(feb):
    """The FY2024 releases of Nov-Dec 2023 date the ATD field-office table a year ahead ("as of 12/02/2024" in the
    2023-12-07 release); a table cannot hold data past its release's own date."""
    b = edit_cells(build(feb), "ATD FY25 YTD",
                   {"A27": "Active ATD Participants and Average Length in Program, FY25,  as of 02/17/2026"})
    p = parsed(b, feb.name)
    assert any(m.startswith("table 'atd_aor' (sheet 'ATD FY25 YTD') not read: dated 2026-02-17, after the "
                            "release's own date 2025-02-27") for m in findings(p, "table-unread"))
    assert not (p.obs.series == S + "atd_by_aor").any() and (p.obs.series == S + "atd_by_status").any()


# ---------------------------------------------------------------- rows

def test_a_facility_row_with_text_in_a_level_cell_is_left_out(feb):
    """FY22_detentionStats07082022: a facility row whose Level A-D cells do not all hold numbers."""
    b = edit_cells(build(feb), "Facilities FY25", {"K9": "n/a"})
    p = parsed(b, feb.name)
    assert findings(p, "row-dropped") == [
        "sheet 'Facilities FY25' table 'facilities' row 9 ('STEWART DETENTION CENTER'): its Level A-D cells hold "
        "text that is not a number ('n/a'); the row is left out and the rest of the release kept"]
    fac = p.obs[p.obs.series == S + "facility_adp_fytd"]
    assert sorted(fac.key) == ["ADAMS COUNTY DET CENTER", "CLINTON COUNTY JAIL (LOCK HAVEN, PA)",
                               "CLINTON COUNTY JAIL (PLATTSBURGH, NY)"]
    assert "STEWART DETENTION CENTER" not in p.tables["facilities"].name.tolist()


def test_a_blank_level_cell_beside_figures_is_a_level_with_nobody_in_it(feb):
    """ICE leaves a level blank where others print 0 (the 2022-07-08 release from row 54 on): not a fault."""
    clean = parsed(build(feb), feb.name)
    stewart = clean.obs[(clean.obs.series == S + "facility_adp_fytd") & (clean.obs.key == "STEWART DETENTION CENTER")]
    b = build(feb)
    level_a = load_workbook(io.BytesIO(b))["Facilities FY25"]["J9"].value
    p = parsed(edit_cells(b, "Facilities FY25", {"J9": None}), feb.name)
    got = p.obs[(p.obs.series == S + "facility_adp_fytd") & (p.obs.key == "STEWART DETENTION CENTER")]
    assert got.value.iloc[0] == pytest.approx(stewart.value.iloc[0] - level_a)
    assert findings(p, "row-dropped") == []


def test_a_negative_figure_costs_its_row(feb):
    """FY24_detentionStats12072023: negative average lengths in program (-7, -5.42...) in the ATD table."""
    b = edit_cells(build(feb), "ATD FY25 YTD", {"C35": -5.423076923076923})
    p = parsed(b, feb.name)
    assert findings(p, "row-dropped") == [
        "sheet 'ATD FY25 YTD' table 'atd_aor' row 'Boston | Ankle Monitor' (2025-02-22): figure -5.42308 is "
        "negative, which no count, average or share can be; the row is left out and the rest of the release kept"]
    aor = p.obs[p.obs.key == "Boston | Ankle Monitor"]
    assert aor.series.tolist() == [S + "atd_by_aor"]  # the count kept, the length in program left out
    # a negative facility level: the facility's row
    p = parsed(edit_cells(build(feb), "Facilities FY25", {"L10": -3.0}), feb.name)
    assert findings(p, "row-dropped")[0].startswith("sheet 'Facilities FY25' table 'facilities' row 10 "
                                                    "('CLINTON COUNTY JAIL'): a Level A-D cell is negative (-3)")


@pytest.mark.parametrize("second, kept", [(749.9, True), (751.0, False)])
def test_a_row_printed_twice(feb, second, kept):
    """FY22_detentionStats08092022: ATD's 'Total' row printed twice. The same figures: kept once; different
    figures: neither can be told to be right, so the row is left out."""
    b = edit_cells(build(feb), "ATD FY25 YTD", {"A36": "Total", "B36": 1760, "C36": second})
    p = parsed(b, feb.name)
    msgs = findings(p, "row-dropped")
    alip = p.obs[(p.obs.series == S + "atd_alip_by_aor") & (p.obs.key == "Total")]
    count = p.obs[(p.obs.series == S + "atd_by_aor") & (p.obs.key == "Total")]
    assert count.value.tolist() == [1760]
    if kept:
        assert alip.value.tolist() == [749.9]
        assert "sheet 'ATD FY25 YTD' table 'atd_aor' row 'Total' (2025-02-22): printed 2 times with the same figure " \
               "749.9; kept once" in msgs
    else:
        assert alip.empty
        assert "sheet 'ATD FY25 YTD' table 'atd_aor' row 'Total' (2025-02-22): printed 2 times with different " \
               "figures (749.9, 751); the row is left out, as no figure of them can be told to be the right one" in msgs


def test_sieve_applies_the_snapshots_row_rules():
    """``ice_tables.sieve`` on rows built by hand: each rule of ``tidy.validate`` on a single row, in place."""
    d = D(2025, 2, 22)
    rows = [("x", "keep", d, d, 5.0, ""), ("x", "neg", d, d, -1.0, ""), ("x", "inf", d, d, float("inf"), ""),
            ("x", "half", d, d, 2.5, ""), ("y", "half", d, d, 2.5, ""), ("x", "big", d, d, 2e13, "")]
    found: list[dict] = []
    ice_tables.sieve(rows, 1, "sheet 'S' table 't'", found, {"x": True})
    assert rows == [("x", "keep", d, d, 5.0, ""), ("y", "half", d, d, 2.5, "")]
    assert [f["key"] for f in found] == ["neg", "inf", "half", "big"]
    assert all(f["flag"] == "row-dropped" and f["date"] == "2025-02-22" for f in found)
    assert "not a whole number" in found[2]["message"]


# ---------------------------------------------------------------- the real files

@pytest.mark.shared
def test_every_release_history_file_parses(shared_data):
    """All 88 mid-year workbooks of release_history parse and validate; none is refused whole. The eight that
    were refused keep their other tables, each fault said in a finding."""
    folder = shared_data / "ice-detention-stats" / "release_history"
    files = sorted(folder.glob("*.xlsx"))
    if not files:
        pytest.skip(f"no workbooks in {folder}")
    got = {p.name: parsed(p.read_bytes(), p.name) for p in files}
    assert len(got) == len(files) >= 88
    rel = pd.concat([g.tables["releases"] for g in got.values()]).set_index("file")
    flags = {n: set(g.tables["findings"].flag) for n, g in got.items()}
    assert rel.loc["FY24_detentionStats11152024.xlsx", "fiscal_year"] in (2025, "2025")
    assert "year-from-contents" in flags["FY24_detentionStats11152024.xlsx"]
    for n in ("FY21_detentionStats07222020.xlsx", "FY23_detentionStats01192022.xlsx"):
        assert "name-date-overruled" in flags[n]
        assert rel.loc[n, "release_date"][:7] == {"FY21": "2021-07", "FY23": "2023-01"}[n[:4]]
    for n in ("FY21_detentionStats060921.xlsx", "FY21_detentionStats10282021.xlsx"):
        assert "table-unread" in flags[n] and rel.loc[n, "detention_sheet"] == ""
        assert (got[n].obs.series == S + "facility_adp_fytd").any()
    assert "row-dropped" in flags["FY22_detentionStats08092022.xlsx"]
    assert len(got["FY22_detentionStats07082022.xlsx"].obs) > 2000
    # no figure of a release runs past the release's own date (the bond table of the 2022-08-04 release prints
    # August 2022: kept as stale-header, ending on the release date, not on 31 August)
    for n, g in got.items():
        later = g.obs[g.obs.end > rel.loc[n, "release_date"]]
        assert later.empty, (n, later.head())
