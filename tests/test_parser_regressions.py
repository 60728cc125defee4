"""Inputs the fuzz tests found that made a parser raise something other than a ParseError.

Each parser is called directly (``pipeline.parse_file`` would wrap the bug and hide it).
"""
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from loaders import ddp_facility_daily, ice_detention_stats, ohss_khsm
from loaders.errors import ParseError
from tests import fault_samples as fs


def test_ice_workbook_with_a_broken_sheet_names_the_sheet(shared_data):
    name, good = fs.sample("ice_detention_stats")
    bad = fs.xlsx_corrupt_member(good)
    with pytest.raises(ParseError, match=r"sheet '.*' is not readable") as e:
        ice_detention_stats.parse(bad, name)
    assert e.value.file == name


def test_khsm_workbook_with_a_broken_sheet_names_the_sheet():
    name, good = fs.sample("ohss_khsm")
    with pytest.raises(ParseError, match=r"sheet '.*' is not readable") as e:
        ohss_khsm.parse(fs.xlsx_corrupt_member(good), name)
    assert e.value.file == name


def test_ddp_facility_counts_written_as_text_name_the_column():
    """Found by fuzzing: DuckDB raised a BinderException ("Cannot compare VARCHAR and INTEGER") instead."""
    name, good = fs.sample("ddp_facility_daily")
    t = pq.read_table(io.BytesIO(good))
    t = t.set_column(t.column_names.index("n_detained"), "n_detained",
                     pa.array([str(v) for v in t.column("n_detained").to_pylist()]))
    out = io.BytesIO()
    pq.write_table(t, out)
    with pytest.raises(ParseError, match=r"column 'n_detained' has type string, expected numbers") as e:
        ddp_facility_daily.parse(out.getvalue(), name)
    assert e.value.file == name
