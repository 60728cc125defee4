"""The page reads each source's observations with Arrow's CSV reader (``loaders.data.read_observations``, issue 39:
ICE's file grew from 9 to 39 MB): the frame must be the one pandas' reader gave, to the dtype, on the text the
rebuild writes (``loaders.pipeline.csv_text``), including the awkward fields."""
import numpy as np
import pandas as pd
import pytest

from loaders import data, pipeline, tidy


def written(rows: list[dict]) -> bytes:
    df = pd.DataFrame(rows).reindex(columns=tidy.COLUMNS, fill_value="")
    return pipeline.csv_text(df).encode("utf-8")


AWKWARD = [
    {"series": "s.a", "key": "Smith, County", "date": "2025-01-01", "end": "2025-01-31", "value": 3.0,
     "release": "2025-02-10", "flag": "", "file": "a.xlsx"},
    {"series": "s.a", "key": 'a "quoted" name', "date": "2025-02-01", "end": "2025-02-28", "value": 0.1 + 0.2,
     "release": "", "flag": "revised;sum-mismatch", "file": "b,c.xlsx"},
    {"series": "s.a", "key": "two\nlines", "date": "2025-03-01", "end": "2025-03-31", "value": 7.0,
     "release": "2025-04-10", "flag": "", "file": ""},
    {"series": "s.b", "key": "NA", "date": "2025-03-01", "end": "2025-03-31", "value": 1e308, "release": "null",
     "flag": "", "file": "N/A"},
    {"series": "s.b", "key": "", "date": "2025-04-01", "end": "2025-04-30", "value": 123456789.25,
     "release": "2025-05-10", "flag": "", "file": "é.xlsx"},
]


@pytest.mark.parametrize("rows", [AWKWARD, AWKWARD[:1], []], ids=["awkward", "one", "empty"])
def test_arrow_reads_the_same_frame_as_pandas(rows):
    content = written(rows)
    got = data._read_observations_arrow(content)
    pd.testing.assert_frame_equal(got, data._read_observations_pandas(content))
    pd.testing.assert_frame_equal(data.read_observations(content), got)


def test_the_awkward_fields_read_back_as_written():
    got = data.read_observations(written(AWKWARD))
    assert got["key"].tolist() == ["Smith, County", 'a "quoted" name', "two\nlines", "NA", ""]
    assert got["release"].tolist()[1] == "" and got["release"].tolist()[3] == "null"
    assert got["value"].tolist()[1:4] == [0.1 + 0.2, 7.0, 1e308]
    # an empty value (no row the rebuild writes has one; validation refuses non-finite values) is NaN both ways
    empty = b"series,key,date,end,value,release,flag,file\ns.a,,2025-01-01,2025-01-31,,,,\n"
    pd.testing.assert_frame_equal(data._read_observations_arrow(empty), data._read_observations_pandas(empty))
    assert np.isnan(data.read_observations(empty)["value"].iloc[0])


def test_what_arrow_cannot_read_the_same_way_is_read_by_pandas():
    extra = b"series,key,date,end,value,release,flag,file,note\ns.a,,2025-01-01,2025-01-31,1,,,,x\n"
    pd.testing.assert_frame_equal(data.read_observations(extra), pd.read_csv(
        __import__("io").BytesIO(extra), keep_default_na=False, dtype=data.OBS_DTYPES, na_values={"value": [""]}))
    bad = b"series,key,date,end,value,release,flag,file\ns.a,,2025-01-01,2025-01-31,abc,,,\n"
    with pytest.raises(ValueError):  # pandas' own error, as before
        data.read_observations(bad)
