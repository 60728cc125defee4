import pandas as pd
import pytest

from loaders import tidy
from loaders.errors import ValidationError

IDS = {"s.a"}


def rows(**over):
    base = {"series": "s.a", "date": "2025-01-01", "end": "2025-01-31", "value": 10, "release": "2025-02-03"}
    base.update(over)
    return tidy.frame([base])


def test_valid_frame_passes_and_is_sorted():
    df = tidy.frame([
        {"series": "s.a", "date": "2025-02-01", "end": "2025-02-28", "value": 2, "release": "2025-03-01"},
        {"series": "s.a", "date": "2025-01-01", "end": "2025-01-31", "value": 1, "release": "2025-03-01"},
    ])
    out = tidy.validate(df, source="s", series_ids=IDS)
    assert list(out["date"]) == ["2025-01-01", "2025-02-01"]
    assert list(out.columns) == tidy.COLUMNS


@pytest.mark.parametrize("over, field, what", [
    ({"series": "s.unknown"}, "series", "not declared"),
    ({"date": "2025-13-01"}, "date", "not an ISO date"),
    ({"end": "2024-12-31"}, "end", "ends before it starts"),
    ({"value": -1}, "value", "negative"),
    ({"value": float("nan")}, "value", "not a finite number"),
    ({"release": "03/01/2025"}, "release", "not an ISO date"),
    ({"flag": "mystery"}, "flag", "unknown flag"),
])
def test_bad_rows_name_row_and_field(over, field, what):
    with pytest.raises(ValidationError) as e:
        tidy.validate(rows(**over), source="s", series_ids=IDS, file="f.json")
    msg = str(e.value)
    assert f"row 1 field {field!r}" in msg and what in msg and "source s" in msg and "file f.json" in msg


def test_duplicates_rejected():
    df = pd.concat([rows(), rows()], ignore_index=True)
    with pytest.raises(ValidationError, match="duplicate"):
        tidy.validate(df, source="s", series_ids=IDS)


def test_missing_column_rejected():
    with pytest.raises(ValidationError, match="missing columns"):
        tidy.validate(rows().drop(columns=["release"]), source="s", series_ids=IDS)


def test_vintages_latest_as_published_and_revisions():
    df = tidy.frame([
        {"series": "s.a", "date": "2025-01-01", "value": 100, "release": "2025-02-01"},
        {"series": "s.a", "date": "2025-01-01", "value": 120, "release": "2025-03-01"},
        {"series": "s.a", "date": "2025-02-01", "value": 50, "release": "2025-03-01"},
    ])
    assert tidy.latest(df).set_index("date")["value"].to_dict() == {"2025-01-01": 120, "2025-02-01": 50}
    old = tidy.as_published(df, "2025-02-15")
    assert old["value"].tolist() == [100]
    rev = tidy.revisions(df)
    assert rev[["date", "previous", "value", "change"]].values.tolist() == [["2025-01-01", 100.0, 120.0, 20.0]]
