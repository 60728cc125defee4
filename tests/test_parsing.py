"""The one number and date parser every source uses: what it accepts, and errors that name the row and field."""
import datetime as dt
import subprocess

import pytest

from loaders import parsing
from loaders.errors import ParseError


@pytest.mark.parametrize("v, expect", [(12, 12.0), (3.5, 3.5), (" 1,234 ", 1234.0), ("", None), (None, None),
                                       ("-7", -7.0)])
def test_numbers(v, expect):
    assert parsing.number(v) == expect


def test_bad_number_names_source_file_row_and_field():
    with pytest.raises(ParseError) as e:
        parsing.number("n/a", source="s", file="f.csv", row=12, field="count", missing={"", "NA"})
    assert str(e.value) == "[source s, file f.csv] row 12 field 'count': 'n/a' is not a number or a missing marker ('NA')"
    with pytest.raises(ParseError, match=r"record 3 field 'ice': True is not a number"):
        parsing.number(True, row="record 3", field="ice")
    with pytest.raises(ParseError, match=r"sheet 'X' row 2 column 'Oct'"):
        parsing.number("x", row="sheet 'X' row 2", field="Oct", field_kind="column")
    assert parsing.number("x", lenient=True) is None and parsing.number(float("nan"), lenient=True) is None
    assert parsing.number("NA", missing={"", "NA"}) is None and parsing.number("na", missing={"", "NA"}) is None


def test_dates():
    assert parsing.iso_date("2024-02-29") == dt.date(2024, 2, 29)
    with pytest.raises(ParseError, match=r"row 4 field 'date': '2025-02-30' is not a real YYYY-MM-DD date"):
        parsing.iso_date("2025-02-30", row=4, field="date")
    assert parsing.mdy("9/1/2021") == dt.date(2021, 9, 1)
    with pytest.raises(ParseError, match="is not a MM/DD/YYYY date"):
        parsing.mdy("2021-09-01", row=1, field="download_date")
    assert parsing.find_mdy("data are updated through 02/07/2026 (IIDS Run Date 02/08/2026)") == dt.date(2026, 2, 7)
    assert parsing.find_mdy("13/45/2026 then 1/2/2026") == dt.date(2026, 1, 2)
    assert parsing.month_end(dt.date(2024, 2, 10)) == dt.date(2024, 2, 29)
    assert parsing.days(dt.date(2026, 2, 1), dt.date(2026, 2, 7)) == 7


def test_one_number_parser_and_one_month_end_helper_across_the_loaders():
    """No source grows its own number parser or month-end helper again (vectorised pandas paths excepted)."""
    out = subprocess.run(["grep", "-rnE", r"def (_num|_value|_month_end|month_end|_mdy|_date)\b|calendar\.monthrange",
                          "loaders/"], capture_output=True, text=True).stdout
    assert [ln for ln in out.splitlines() if not ln.startswith("loaders/parsing.py")] == []
