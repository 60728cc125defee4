"""Small pieces the parse path builds on: reference tables from row lists, a validation that leaves the caller's
frame as it was, and an ICE workbook's sheet choice made once per pattern yet always what ``choose_sheet_name``
says."""
import dataclasses
import datetime as dt

import pandas as pd
import pytest

from loaders import ice_detention_stats as ice
from loaders import tidy
from loaders.base import table_frame
from loaders.errors import ParseError
from tests.ice_workbook_factory import Release, build

D = dt.date


def releases():
    base = Release("FY25_detentionStats02272025.xlsx", 2025, D(2025, 2, 18), D(2025, 2, 22))
    return [base, dataclasses.replace(base, name="FY25_detentionStats03132025.xlsx", iids=D(2025, 3, 4),
                                      through=D(2025, 3, 8), ice=23000)]


def _cols(n, release="2025-01-31", date="2025-01-01", value=1.0, series="trac_detention.detained_total"):
    return {"series": [series] * n, "key": [f"k{i}" for i in range(n)], "date": [date] * n, "end": [date] * n,
            "value": [value] * n, "release": [release] * n, "flag": [""] * n}


def test_table_frame_is_the_row_dict_frame():
    rows = [["2025-01-01", 2025, "X", None], ["2025-01-01", 2025, "Y", "z"]]
    cols = ["release", "fiscal_year", "key", "note"]
    pd.testing.assert_frame_equal(table_frame(cols, rows), pd.DataFrame([dict(zip(cols, r)) for r in rows], dtype=object))


def test_validate_leaves_the_callers_frame_as_it_was():
    """``validate`` works on a new frame of the columns, not a copy of them (copy-on-write): replacing its value
    column must not touch the caller's."""
    df = tidy.frame_from_columns(_cols(3))
    df["value"] = pd.Series(["1", "2", "3"], dtype=object)
    before = df.copy()
    out = tidy.validate(df, source="trac_detention", series_ids={"trac_detention.detained_total"})
    pd.testing.assert_frame_equal(df, before)
    assert out["value"].dtype == "float64" and df["value"].dtype == object


def test_a_workbooks_sheet_choice_is_choose_sheet_name_s_each_time():
    """``ice_tables._Ctx.sheet`` answers each sheet pattern once per workbook: every table must still get what
    ``choose_sheet_name`` says for it, and an ambiguous pattern must still fail naming the table."""
    import io

    from python_calamine import CalamineWorkbook

    from loaders import ice_tables
    from loaders.workbook import choose_sheet_name
    rel = releases()[0]
    content = build(rel)
    wb = CalamineWorkbook.from_filelike(io.BytesIO(content))
    ctx = ice_tables._Ctx(wb, rel.fy, rel.name)
    for t in ice_tables.TABLES:
        for _ in range(2):
            assert ctx.sheet(t.sheet, t.name) == choose_sheet_name(wb.sheet_names, t.sheet, f"{t.name!r}", fy=rel.fy,
                                                                   file=rel.name, source=ice.ID, required=False)
    with pytest.raises(ParseError, match=r"'first table'.*fiscal year"):
        ctx.sheet(r".", "first table")  # every sheet matches: no one sheet for the year
