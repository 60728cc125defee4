import json

import pytest

from loaders import pipeline, trac_detention
from loaders.errors import ParseError

SRC = trac_detention.SOURCE


def test_population_layout(trac_population_json):
    df = pipeline.parse_bytes(SRC, trac_population_json, "pop_agen_table.json")
    tot = df[df.series == "trac_detention.detained_total"].set_index("date")["value"]
    assert tot["2025-09-21"] == 59762 and tot["2025-01-26"] == 39238
    crim = df[(df.series == "trac_detention.detained_ice_by_criminality") & (df.date == "2025-09-21")]
    assert set(crim.key) == {"Convicted criminal", "Pending criminal charges", "Other immigration violator"}


def test_book_ins_partial_and_future_months(trac_book_ins_json):
    df = pipeline.parse_bytes(SRC, trac_book_ins_json, "book_in_agen_program_table.json")
    ice = df[df.series == "trac_detention.book_ins_ice"].set_index("date")
    assert ice.loc["2026-06-01", "value"] == 39563 and ice.loc["2026-06-01", "flag"] == ""
    assert ice.loc["2026-07-01", "flag"] == "partial" and ice.loc["2026-07-01", "end"] == "2026-07-11"
    assert "2026-08-01" not in ice.index  # null future month is missing, not zero


def test_padded_number_strings():
    recs = [{"name": "Total", "type_detailed": "", "count": "   62,517", "download_date": "07/09/2026"},
            {"name": "ADAMS COUNTY CORRECTIONAL CENTER", "type_detailed": "DIGSA", "count": "               1,878",
             "download_date": "07/09/2026"}]
    df = pipeline.parse_bytes(SRC, json.dumps(recs).encode(), "facilities.json")
    assert df["value"].tolist() == [1878.0] and df["key"].tolist() == ["ADAMS COUNTY CORRECTIONAL CENTER"]


@pytest.mark.parametrize("body, what", [
    (b"not json", "not valid JSON"),
    (b"[]", "non-empty JSON list"),
    (b'[{"foo": 1}]', "unrecognised TRAC table"),
    (b'[{"date": "2025-09-21", "ice_all": 1, "cbp_all": 1, "total_all": 2}]', "record 1 field 'date'"),
    (b'[{"date": "09/21/2025", "ice_all": "many", "cbp_all": 1, "total_all": 2}]', "record 1 field 'ice_all'"),
    (b'[{"date": "09/21/2025", "ice_all": 1, "total_all": 1}]', "lacks field"),
])
def test_bad_input_named(body, what):
    with pytest.raises(ParseError, match=what) as e:
        trac_detention.parse(body, "pop_agen_table.json")
    assert "trac_detention" in str(e.value) and "pop_agen_table.json" in str(e.value)


@pytest.mark.shared
def test_real_files(shared_data):
    pop = (shared_data / "trac-detention" / "pop_agen_table.json").read_bytes()
    df = pipeline.parse_bytes(SRC, pop, "pop_agen_table.json")
    tot = df[df.series == "trac_detention.detained_total"].set_index("date")["value"]
    assert len(tot) == 155
    assert tot["2026-07-11"] == 65765 and tot["2019-08-03"] == 55654
    ice = df[df.series == "trac_detention.detained_ice"].set_index("date")["value"]
    cbp = df[df.series == "trac_detention.detained_cbp"].set_index("date")["value"]
    assert ((ice + cbp) == tot).all()
    b = (shared_data / "trac-detention" / "book_in_agen_program_table.json").read_bytes()
    bi = pipeline.parse_bytes(SRC, b, "book_in_agen_program_table.json")
    ice_b = bi[bi.series == "trac_detention.book_ins_ice"].set_index("date")["value"]
    assert ice_b["2026-06-01"] == 39563
    assert "2024-09-01" not in ice_b.index  # TRAC's table has no Sep-2024 row: a gap, not a zero
    assert "2026-08-01" not in ice_b.index
