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


@pytest.mark.parametrize("nul", [False, True])
def test_sort_canonical_is_the_joined_key_order(nul):
    """The per-column-rank sort must give exactly the order of the five key columns joined by NUL, prefixes and
    ties included (ties keep their input order); a value holding a NUL takes the joined-key path itself."""
    import numpy as np
    rng = np.random.default_rng(7)
    n = 400
    def pick(opts):
        return [opts[i] for i in rng.integers(0, len(opts), n)]
    df = tidy.frame(pd.DataFrame({
        "series": pick(["s.a", "s.ab", "s.a.b", "s.B", "s.é"]), "key": pick(["", "x", "x y", "X", "xy"]),
        "date": pick(["2020-01-01", "2020-02-01", "2019-12-01"]), "value": range(n),
        "release": pick(["", "2020-03-01", "2020-04-01"]), "flag": "",
        "file": pick(["a.xlsx", "b.xlsx", "a.xlsx.bak"] + (["a\x00b"] if nul else []))}))
    joined = df["series"] + "\x00" + df["key"] + "\x00" + df["date"] + "\x00" + df["release"] + "\x00" + df["file"]
    expect = df.iloc[np.argsort(joined.to_numpy(dtype=object), kind="stable")].reset_index(drop=True)
    pd.testing.assert_frame_equal(tidy.sort_canonical(df), expect)


def test_flag_check_names_each_row_with_an_unknown_code():
    ok = pd.DataFrame({"series": ["s"] * 3, "key": "", "date": ["2020-01-01", "2020-02-01", "2020-03-01"],
                       "value": [1, 2, 3], "release": "", "flag": ["partial", "partial;bogus", "bogus"]})
    with pytest.raises(ValidationError) as e:
        tidy.validate(tidy.frame(ok), source="t", series_ids={"s"})
    assert "row 2 field 'flag'" in str(e.value) and "row 3 field 'flag'" in str(e.value)
    assert "row 1 field" not in str(e.value)


def test_several_files_validated_at_once_name_the_bad_rows_file_and_row():
    # pipeline.parse_files validates a source's files in one pass: a problem must still say which file it is in
    # and which row of that file, as validating the file alone did.
    a = pd.concat([rows(date="2025-01-01"), rows(date="2025-02-01", end="2025-02-28")], ignore_index=True)
    b = pd.concat([rows(date="2025-01-01"), rows(date="2025-02-01", end="2025-02-28", value=-3)], ignore_index=True)
    a["file"], b["file"] = "a.xlsx", "b.xlsx"
    with pytest.raises(ValidationError) as e:
        tidy.validate(pd.concat([a, b], ignore_index=True), source="s", series_ids=IDS)
    assert "file 'b.xlsx' row 2 field 'value': negative" in str(e.value) and e.value.file == "b.xlsx"


@pytest.mark.parametrize("values", [["a", "b", ""], ["a", None, "c"], [], ["x"] * 5, ["a", 1.5, None, 2],
                                    ["é", "a\x00b"], [b"x", "y"]])
def test_text_columns_built_by_pyarrow_equal_pandas_own_conversion(values):
    """``frame_from_columns`` builds text columns with pyarrow in one call (faster); the column must be the one
    ``pd.Series(values, dtype="str")`` gives, dtype, missing values and text turned from numbers included."""
    import pandas.testing as tm
    tm.assert_series_equal(tidy._text_series(values), pd.Series(values, dtype="str"))
    if not values:
        return  # no rows: frame_from_columns gives tidy.empty()
    got = tidy.frame_from_columns({"series": ["s"] * len(values), "date": ["2025-01-01"] * len(values),
                                   "value": [1.0] * len(values), "key": values})
    want = pd.Series(values, dtype="str")
    tm.assert_series_equal(got["key"], want.fillna("") if want.hasnans else want, check_names=False)
    tm.assert_series_equal(got["file"], pd.Series([""] * len(values), dtype="str"), check_names=False)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_duplicates_and_order_from_shared_key_codes_equal_pandas_own(seed):
    """``validate`` factorizes the five key columns once and finds duplicates and the canonical order from those
    codes: the duplicates must be ``DataFrame.duplicated(keep="first")`` (missing values equal to each other)
    and the order ``sort_canonical``'s."""
    import numpy as np
    rng = np.random.default_rng(seed)
    n = 300
    def pick(opts):
        return [opts[i] for i in rng.integers(0, len(opts), n)]
    df = pd.DataFrame({"series": pick(["s.a", "s.b", "s.ab"]), "key": pick(["", "x", "y", None]),
                       "date": pick(["2020-01-01", "2020-02-01"]), "release": pick(["", "2020-03-01"]),
                       "file": pick(["a.xlsx", "b.xlsx", None])})
    ranked = tidy._rank_keys(df)
    order, dup = tidy._order_and_duplicates([codes for codes, _ in ranked])
    assert dup.tolist() == df.duplicated(subset=list(tidy.SORT_KEYS), keep="first").tolist()
    assert dup.any() and not dup.all()
    clean = tidy.frame(pd.DataFrame({"series": pick(["s.a", "s.b", "s.ab"]), "key": pick(["", "x", "x y"]),
                                     "date": [f"2020-01-{d:02d}" for d in rng.integers(1, 29, n)],
                                     "end": "2020-02-01", "value": rng.integers(0, 9, n).astype(float),
                                     "release": pick(["", "2020-03-01", "2020-04-01"]), "flag": "",
                                     "file": pick(["a.xlsx", "b.xlsx"])})).drop_duplicates(list(tidy.SORT_KEYS))
    got = tidy.validate(clean.iloc[::-1], source="t", series_ids={"s.a", "s.b", "s.ab"})
    pd.testing.assert_frame_equal(got, tidy.sort_canonical(clean.iloc[::-1]))


def test_a_repeated_text_column_equals_pandas_broadcast_on_any_index():
    """``parse_file`` writes each row's file name with ``repeat_text``: the same column as assigning the name
    as a scalar, on the frame's own index (a parser may hand back a frame whose index is not 0..n-1)."""
    idx = pd.Index([5, 3, 9])
    pd.testing.assert_series_equal(tidy.repeat_text("a.xlsx", idx), pd.Series("a.xlsx", index=idx, dtype="str"))
    df = pd.DataFrame({"x": [1, 2, 3]}, index=idx)
    df["file"] = tidy.repeat_text("a.xlsx", df.index)
    assert df["file"].tolist() == ["a.xlsx"] * 3
    assert tidy.repeat_text("", pd.RangeIndex(0)).tolist() == []


def test_not_blank_from_the_factorized_column_equals_the_comparison():
    col = pd.Series(["", "2020-01-01", None, "", "2021-02-03", float("nan")], dtype=object)
    want = (col != "").tolist()
    assert tidy._not_blank(col, pd.factorize(col, sort=True)).tolist() == want == tidy._not_blank(col).tolist()
    empty = pd.Series([None, None], dtype=object)
    assert tidy._not_blank(empty, pd.factorize(empty, sort=True)).tolist() == (empty != "").tolist()
