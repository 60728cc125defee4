"""The ICE reader places a monthly table's columns by their header labels, wherever the publisher moved them
(``workbook._fiscal_year_column``, ``ice_detention_stats._column_findings``), and a column it cannot place is a
``column-unread`` finding naming file, sheet and column, never a silent loss. Built on workbooks with the real
layout (``tests.ice_workbook_factory``), reordered in ways no real release has shown so far."""
import datetime as dt
import io

import pytest
from openpyxl import load_workbook

from loaders import pipeline, registry
from tests.ice_workbook_factory import Release, build

NAME = "FY25_detentionStats03052025.xlsx"
ADP_TITLE = "ICE Average Daily Population by Arresting Agency"
FYTD = {"ice_detention_stats.adp_ice_fytd", "ice_detention_stats.adp_cbp_fytd", "ice_detention_stats.adp_total_fytd"}


@pytest.fixture(scope="module")
def good() -> bytes:
    return build(Release(NAME, 2025, dt.date(2025, 2, 18), dt.date(2025, 2, 22), ice=22622, cbp=21137))


@pytest.fixture(scope="module")
def baseline(good):
    return pipeline.parse_file(registry.get("ice_detention_stats"), good, NAME)


def _edit_adp(content: bytes, order) -> bytes:
    """The ADP table's columns (header and body rows) rearranged: ``order(columns)`` gets the table's columns
    right of its label column, each as (header label, [cells]), and returns (sheet column number, header, cells)
    for each column to write; every other cell of those rows is blanked first."""
    wb = load_workbook(io.BytesIO(content))
    ws = next(w for w in wb.worksheets if w.title.startswith("Detention"))
    top = next(c.row for row in ws.iter_rows(max_col=1) for c in row if str(c.value or "").startswith(ADP_TITLE))
    head, last = top + 1, top + 1
    while ws.cell(last + 1, 1).value:
        last += 1
    cols = []
    for c in range(2, ws.max_column + 1):
        if ws.cell(head, c).value is not None:
            cols.append((ws.cell(head, c).value, [ws.cell(r, c).value for r in range(head + 1, last + 1)]))
    for r in range(head, last + 1):
        for c in range(2, ws.max_column + 1):
            ws.cell(r, c).value = None
    for c, lab, cells in order(cols):
        ws.cell(head, c).value = lab
        for i, v in enumerate(cells):
            ws.cell(head + 1 + i, c).value = v
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _parse(content: bytes):
    return pipeline.parse_file(registry.get("ice_detention_stats"), content, NAME)


def _column_findings(parsed) -> list[str]:
    f = parsed.tables["findings"]
    f = f[f["flag"] == "column-unread"]
    assert (f["file"] == NAME).all()
    return f["message"].tolist()


def test_the_fiscal_year_column_is_found_far_right_past_blank_columns(good, baseline):
    # the months where they were, "FY Overall" four blank columns further right than ICE prints it
    bad = _edit_adp(good, lambda cols: [(2 + i, lab, cells) for i, (lab, cells) in enumerate(cols[:-1])]
                    + [(2 + len(cols) + 4, *cols[-1])])
    got = _parse(bad)
    assert got.obs.equals(baseline.obs)
    assert set(got.obs["series"]) >= FYTD
    assert _column_findings(got) == []


def test_months_in_another_order_and_the_fiscal_year_column_first_read_the_same(good, baseline):
    # "FY Overall" right after the label column, then the months from September back to October
    bad = _edit_adp(good, lambda cols: [(2, *cols[-1])] + [(3 + i, lab, cells)
                                                           for i, (lab, cells) in enumerate(reversed(cols[:-1]))])
    got = _parse(bad)
    assert got.obs.equals(baseline.obs)
    assert _column_findings(got) == []


def test_a_column_the_reader_cannot_place_is_a_finding_naming_file_sheet_and_column(good, baseline):
    # an extra quarter column inside the header: its figures are not read, and the finding says so
    bad = _edit_adp(good, lambda cols: [(2 + i, lab, cells) for i, (lab, cells) in enumerate(cols[:3])]
                    + [(5, "Q1 Total", [1.0] * len(cols[0][1]))]
                    + [(6 + i, lab, cells) for i, (lab, cells) in enumerate(cols[3:])])
    got = _parse(bad)
    assert got.obs.equals(baseline.obs)
    assert _column_findings(got) == [
        "table 'adp' (sheet 'Detention FY25'): column 'Q1 Total' (E91) is not a column this table is read by; its "
        "figures are left out and the rest of the table kept"]


def test_a_fiscal_year_column_under_an_unknown_label_is_lost_with_findings_not_silently(good, baseline):
    bad = _edit_adp(good, lambda cols: [(2 + i, lab, cells) for i, (lab, cells) in enumerate(cols[:-1])]
                    + [(2 + len(cols) - 1, "Year", cols[-1][1])])
    got = _parse(bad)
    lost = baseline.obs[~baseline.obs["series"].isin(got.obs["series"])]
    assert set(lost["series"]) == FYTD
    assert got.obs.equals(baseline.obs[baseline.obs["series"].isin(got.obs["series"])].reset_index(drop=True))
    assert _column_findings(got) == [
        "table 'adp' (sheet 'Detention FY25'): column 'Year' (N91) is not a column this table is read by; its "
        "figures are left out and the rest of the table kept",
        "table 'adp' (sheet 'Detention FY25'): no fiscal-year column ('FY Overall') in header row 91; the table's "
        "fiscal-year-to-date figures have no row from this release and the rest of the table is kept"]
