"""``parse_files`` joins the columns of a ``ParsedColumns`` parser (the ICE workbooks) into one tidy frame and one
frame per reference table: what it gives must be what the plain way gives (a frame per file, concatenated, then
validated), and every error must still name its file (and row and field)."""
import dataclasses
import datetime as dt

import pandas as pd
import pytest

from loaders import ice_detention_stats as ice
from loaders import pipeline, registry, tidy
from loaders.base import Parsed, ParsedColumns, table_frame
from loaders.errors import ParseError, ValidationError
from tests.ice_workbook_factory import Release, build

SRC = registry.get("ice_detention_stats")
D = dt.date


def plain_parse_files(source, items):
    """``parse_files`` as it was: ``parse_file`` per file (its frames), ``pd.concat``, one validation."""
    frames, tables = [], {}
    for name, content in items:
        p = pipeline.parse_file(source, content, name, validate=False)
        frames.append(p.obs)
        for tname, t in p.tables.items():
            tables.setdefault(tname, []).append(t)
    obs = tidy.validate(pd.concat(frames, ignore_index=True), source=source.id,
                        series_ids={s.id for s in source.series})
    return obs, tables


def assert_same(joined, plain):
    obs, tables = joined
    pobs, ptables = plain
    pd.testing.assert_frame_equal(obs, pobs)
    assert obs.dtypes.to_dict() == pobs.dtypes.to_dict()
    assert tables.keys() == ptables.keys()
    for tname in tables:
        # the frames as build_source combines them, and the rows themselves in file order
        pd.testing.assert_frame_equal(pipeline.combine_tables(tables[tname]), pipeline.combine_tables(ptables[tname]))
        pd.testing.assert_frame_equal(pd.concat(tables[tname], ignore_index=True),
                                      pd.concat(ptables[tname], ignore_index=True))


def releases():
    base = Release("FY25_detentionStats02272025.xlsx", 2025, D(2025, 2, 18), D(2025, 2, 22))
    return [base,
            dataclasses.replace(base, name="FY25_detentionStats03132025.xlsx", iids=D(2025, 3, 4),
                                through=D(2025, 3, 8), ice=23000),
            dataclasses.replace(base, name="FY25_detentionStats03272025.xlsx", iids=D(2025, 3, 18),
                                through=D(2025, 3, 22), cbp=20000, famu=None)]


def _as_columns(parsed: Parsed) -> ParsedColumns:
    """A parser's frames handed over as plain columns and row lists (what a ``ParsedColumns`` parser returns)."""
    obs = parsed.obs
    return ParsedColumns({c: obs[c].tolist() for c in obs.columns},
                         {n: (list(t.columns), t.values.tolist()) for n, t in parsed.tables.items()})


# The ICE parser, handing over columns: real workbooks' rows through ``parse_files``' join.
COLUMNS_SRC = dataclasses.replace(SRC, parse=lambda content, name: _as_columns(ice.parse(content, name)))


def test_joined_frames_equal_the_per_file_frames():
    items = [(r.name, build(r)) for r in releases()]
    assert_same(pipeline.parse_files(COLUMNS_SRC, items), plain_parse_files(COLUMNS_SRC, items))


def test_each_gets_the_columns_and_the_manifest_facts_are_the_frames():
    items = [(r.name, build(r)) for r in releases()]
    seen = []
    pipeline.parse_files(COLUMNS_SRC, items, lambda name, content, parsed: seen.append((name, parsed)))
    assert [n for n, _ in seen] == [n for n, _ in items]
    for (name, parsed), (_, content) in zip(seen, items):
        assert isinstance(parsed, ParsedColumns) and set(parsed.columns["file"]) == {name}
        frame = pipeline.parse_file(COLUMNS_SRC, content, name, validate=False).obs
        assert pipeline.file_facts(parsed.columns) == pipeline.file_facts(frame)
        pd.testing.assert_frame_equal(parsed.obs, frame)  # built on demand, file column and all


def test_file_facts_fill_missing_columns_as_the_frame_does():
    cols = {"series": ["a", "b"], "date": ["2025-01-01", "2025-03-01"], "value": [1.0, 2.0]}
    assert pipeline.file_facts(cols) == pipeline.file_facts(tidy.frame_from_columns(cols)) \
        == (2, [], "2025-01-01", "2025-03-01")
    cols = {"series": [], "date": [], "end": [], "value": [], "release": []}
    assert pipeline.file_facts(cols) == pipeline.file_facts(tidy.frame_from_columns(cols)) == (0, [], None, None)


def _fake(parse):
    return dataclasses.replace(registry.get("trac_detention"), parse=parse)


def _cols(n, release="2025-01-31", date="2025-01-01", value=1.0, series="trac_detention.detained_total"):
    return {"series": [series] * n, "key": [f"k{i}" for i in range(n)], "date": [date] * n, "end": [date] * n,
            "value": [value] * n, "release": [release] * n, "flag": [""] * n}


def test_columns_and_frames_mixed_keep_the_file_order():
    """A parser may hand over columns for some files and frames for others: the rows stay in file order, so a
    validation message counts a file's rows as before."""
    def parse(content, name):
        n = int(content)
        if name.startswith("c"):
            return ParsedColumns(_cols(n, release=f"2025-0{n}-28"), {"t": (["a", "b"], [[name, n]])})
        return Parsed(tidy.frame_from_columns(_cols(n, release=f"2025-0{n}-28")),
                      {"t": pd.DataFrame([[name, n]], columns=["a", "b"], dtype=object)})
    fake = _fake(parse)
    items = [("c1.json", b"1"), ("c2.json", b"2"), ("f3.json", b"3"), ("c4.json", b"4"), ("f5.json", b"5")]
    joined = pipeline.parse_files(fake, items)
    assert_same(joined, plain_parse_files(fake, items))
    assert [len(t) for t in joined[1]["t"]] == [2, 1, 1, 1]  # c1+c2 joined, then f3, c4, f5 as they came


@pytest.mark.parametrize("bad, message", [
    ("length", r"file c2\.json\].*column 'value' has 1 values for 2 rows"),
    ("date", r"file c2\.json\].*unexpected"),
    ("wide row", r"file c2\.json\].*unexpected"),
    ("short rows", r"file c2\.json\].*unexpected"),
    ("name", r"file c2\.json\].*reference table 'bad name' is not a named DataFrame"),
])
def test_a_bad_column_or_table_names_its_file(bad, message):
    def parse(content, name):
        cols, tables = _cols(2), {"t": (["a", "b"], [[name, 1]])}
        if name == "c2.json":
            if bad == "length":
                cols["value"] = [1.0]
            elif bad == "date":
                cols["date"] = [object(), "2025-01-01"]  # no date at all: the frame cannot be built
            elif bad == "wide row":
                tables["t"] = (["a", "b"], [[name, 1, "extra"]])
            elif bad == "short rows":  # one file's rows short: pandas refuses the file's frame, joined or not
                tables["t"] = (["a", "b"], [[name]])
            else:
                tables["bad name"] = (["a"], [[1]])
        return ParsedColumns(cols, tables)
    with pytest.raises(ParseError, match=message):
        pipeline.parse_files(_fake(parse), [("c1.json", b""), ("c2.json", b""), ("c3.json", b"")])


def test_a_bad_row_in_joined_columns_names_file_row_and_field_as_before():
    rels = releases()

    def parse(content, name):
        out = _as_columns(ice.parse(content, name))
        if name == rels[1].name:
            out.columns["value"][7] = -5.0  # a figure no check in the parser looks at
        return out
    fake = dataclasses.replace(SRC, parse=parse)
    items = [(r.name, build(r)) for r in rels]
    with pytest.raises(ValidationError) as joined:
        pipeline.parse_files(fake, items)
    with pytest.raises(ValidationError) as plain:
        plain_parse_files(fake, items)
    assert str(joined.value) == str(plain.value)
    assert f"file {rels[1].name!r} row 8 field 'value': negative" in str(joined.value)


def test_table_frame_is_the_row_dict_frame():
    rows = [["2025-01-01", 2025, "X", None], ["2025-01-01", 2025, "Y", "z"]]
    cols = ["release", "fiscal_year", "key", "note"]
    pd.testing.assert_frame_equal(table_frame(cols, rows), pd.DataFrame([dict(zip(cols, r)) for r in rows], dtype=object))


@pytest.mark.shared
def test_joined_frames_equal_the_per_file_frames_on_the_real_workbooks(shared_data):
    files = sorted((shared_data / "ice-detention-stats").glob("original_xlsx*/*.xlsx"))
    assert len(files) >= 15
    items = [(p.name, p.read_bytes()) for p in files]
    assert_same(pipeline.parse_files(SRC, items), plain_parse_files(SRC, items))


def test_repeat_texts_is_repeat_text_of_each_run_joined():
    runs = [("a.xlsx", 3), ("b.xlsx", 0), ("é.xlsx", 2)]
    idx = pd.RangeIndex(5)
    want = pd.concat([tidy.repeat_text(t, pd.RangeIndex(n)) for t, n in runs], ignore_index=True)
    pd.testing.assert_series_equal(tidy.repeat_texts(runs, idx), want)
    pd.testing.assert_series_equal(tidy.repeat_texts([], pd.RangeIndex(0)), tidy.repeat_text("", pd.RangeIndex(0)))
    with pytest.raises(ValueError, match="runs of 5 values for 4 rows"):
        tidy.repeat_texts(runs, pd.RangeIndex(4))


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
