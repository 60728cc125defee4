import pandas as pd
import pytest

from loaders import pipeline, registry, reported_figures
from loaders.errors import ParseError

SRC = reported_figures.SOURCE
HEADER = "period_start,period_end,metric,value,unit,reported_by,url,source_quality,note\n"
GOOD = ("2025-02-01,2025-02-13,ice_arrests_per_day,600,arrests/day (upper bound),Washington Post,https://example.org/a,"
        "syndicated copy,fewer than 600\n")


def test_project_file_loads_and_keeps_distinct_rows():
    full = reported_figures.load_reported()
    assert list(full.columns) == ["row"] + reported_figures.COLUMNS + reported_figures.KIND_COLUMNS + \
        list(reported_figures.OPTIONAL)
    df = pipeline.parse_bytes(SRC, (pipeline.PROJECT / reported_figures.FILE).read_bytes(), "reported_figures.csv")
    assert len(df) == len(full)
    assert not df.duplicated(["series", "key", "date"]).any()
    assert "reported_figures" in registry.SOURCES
    assert pipeline.find_raw_files(SRC, pipeline.PROJECT / "nowhere")[0].name == "reported_figures.csv"


def test_required_figures_present():
    full = reported_figures.load_reported()
    ice_daily = full[(full.metric == "ice_arrests") & (full.period_start == full.period_end)
                     & full.period_start.between("2025-01-23", "2025-01-31")]
    assert ice_daily.set_index("period_start")["value"].to_dict() == {
        "2025-01-23": 538, "2025-01-24": 593, "2025-01-25": 286, "2025-01-26": 956, "2025-01-27": 1179,
        "2025-01-28": 969, "2025-01-29": 1016, "2025-01-30": 913, "2025-01-31": 864}
    r787 = full[full.value == 787].iloc[0]
    assert (r787.metric, r787.source_quality, r787.period_start, r787.period_end) == \
        ("ice_arrests_per_day", "unverified", "2025-01-25", "2025-01-31")
    assert "NewsNation" in r787.reported_by and "could not find" in r787.note
    # the daily posts give about 883 a day over the same week, which the note points to
    week = ice_daily[ice_daily.period_start >= "2025-01-25"]["value"].mean()
    assert round(week) == 883
    feb = full[(full.period_start == "2025-02-01") & (full.metric == "ice_arrests_per_day")]
    assert feb["value"].tolist() == [600] and "upper bound" in feb["unit"].item()
    june = full[(full.metric == "ice_arrests_per_day") & full.period_start.str.startswith("2025-06-0")]
    assert {2000, 1900} <= set(june["value"])  # conflicting peaks kept side by side
    assert 3000 in set(full[full.metric == "target_per_day"]["value"])
    assert (full.metric == "dhs_arrests").sum() >= 1 and (full.metric == "detained_population").sum() >= 5
    assert set(full.source_quality) <= set(reported_figures.QUALITY)


@pytest.mark.parametrize("line, field, what", [
    ("2025-02-30,2025-03-01,ice_arrests,1,x,y,https://e.org/a,official,n\n", "period_start", "real YYYY-MM-DD"),
    ("2025-03-02,2025-03-01,ice_arrests,1,x,y,https://e.org/a,official,n\n", "period_end", "before period_start"),
    ("2025-03-01,2025-03-01,arrests_ish,1,x,y,https://e.org/a,official,n\n", "metric", "not one of"),
    ("2025-03-01,2025-03-01,ice_arrests,about 5,x,y,https://e.org/a,official,n\n", "value", "not a non-negative"),
    ("2025-03-01,2025-03-01,ice_arrests,5,x,y,ftp://e.org/a,official,n\n", "url", "http"),
    ("2025-03-01,2025-03-01,ice_arrests,5,x,y,,official,n\n", "url", "only an 'unverified'"),
    ("2025-03-01,2025-03-01,ice_arrests,5,x,y,https://e.org/a,rumour,n\n", "source_quality", "not one of"),
    ("2025-03-01,2025-03-01,ice_arrests,5,x,,https://e.org/a,official,n\n", "reported_by", "empty"),
])
def test_bad_rows_named(line, field, what):
    with pytest.raises(ParseError) as e:
        reported_figures.parse((HEADER + GOOD + line).encode(), "reported_figures.csv")
    msg = str(e.value)
    assert "reported_figures.csv" in msg and "row 3" in msg and f"field {field!r}" in msg and what in msg


def test_unverified_row_may_lack_url_and_keys_do_not_collide(tmp_path):
    body = HEADER + GOOD + GOOD.replace("fewer than 600", "same period; second report") + \
        "2025-01-25,2025-01-31,ice_arrests_per_day,787,arrests/day,NewsNation,,unverified,original not found\n"
    p = tmp_path / "r.csv"
    p.write_text(body)
    full = reported_figures.load_reported(p)
    assert full["url"].tolist()[-1] == "" and full["row"].tolist() == [2, 3, 4]
    parsed = reported_figures.parse(body.encode(), "r.csv")
    df = parsed.obs
    assert parsed.tables["rows"].equals(full)  # the snapshot's table holds every checked row in full
    assert df["key"].is_unique
    assert set(df.series) == {"reported_figures.ice_arrests_per_day"}
    assert df.set_index("key").loc["NewsNation #4", "end"] == "2025-01-31"


def test_missing_column():
    with pytest.raises(ParseError, match="missing column"):
        reported_figures.parse(b"period_start,value\n2025-01-01,1\n", "reported_figures.csv")


KIND_HEADER = HEADER.rstrip("\n") + ",kind,bound\n"


def test_each_project_row_says_what_it_is_and_which_side_a_bound_is_on():
    full = reported_figures.load_reported()
    assert set(full["kind"]) <= set(reported_figures.KINDS) and full["kind"].ne("").all()
    # every goal is a target and nothing else is; every "fewer than"/"more than" is a bound with its side
    assert (full["kind"].eq("target") == full["metric"].eq("target_per_day")).all()
    targets = full[full.kind == "target"].set_index("value")
    assert {3000, 1875, 1200} <= set(targets.index)
    bounds = full[full.kind == "bound"]
    assert set(bounds["bound"]) == {"upper", "lower"} and full[full.kind != "bound"]["bound"].eq("").all()
    npr = full[full.reported_by.str.startswith("NPR")].iloc[0]
    assert (npr.metric, npr.kind, npr.bound) == ("ice_book_ins_per_day", "bound", "upper")
    homan = full[full.value == 11000].iloc[0]
    assert (homan.kind, homan.bound) == ("bound", "lower")
    nyt = full[full.value == 872].iloc[0]
    assert (nyt.metric, nyt.kind) == ("ice_book_ins_per_day", "count")  # a book-in count, not an arrest count
    assert full[full.value == 622000].iloc[0].kind == "claim"


@pytest.mark.parametrize("kind, bound, field, what", [
    ("tally", "", "kind", "not one of"),
    ("bound", "", "bound", "must say its side"),
    ("count", "upper", "bound", "only a bound has a side"),
    ("target", "", "kind", "target_per_day"),
    ("count", "", "kind", "says upper bound"),
])
def test_bad_kind_named_with_row_and_field(kind, bound, field, what):
    body = KIND_HEADER + GOOD.rstrip("\n") + ",bound,upper\n" + GOOD.rstrip("\n") + f",{kind},{bound}\n"
    with pytest.raises(ParseError) as e:
        reported_figures.parse(body.encode(), "reported_figures.csv")
    msg = str(e.value)
    assert "row 3" in msg and f"field {field!r}" in msg and what in msg


def test_a_target_filed_as_a_count_metric_is_refused():
    line = "2025-05-21,2025-05-21,ice_arrests_per_day,3000,arrests/day (target),Axios,https://e.org/a,official,goal,target,\n"
    with pytest.raises(ParseError, match="row 2 field 'kind'"):
        reported_figures.parse((KIND_HEADER + line).encode(), "r.csv")


def test_files_without_kind_load_with_the_stated_default_and_half_the_pair_is_refused(tmp_path):
    target = "2025-05-21,2025-05-21,target_per_day,3000,arrests/day (target),Axios,https://e.org/a,official,goal\n"
    approx = GOOD.replace("(upper bound)", "(approximate)")
    p = tmp_path / "old.csv"
    p.write_text(HEADER + GOOD + target + approx + GOOD.replace("(upper bound)", ""))
    full = reported_figures.load_reported(p)
    assert list(zip(full.kind, full.bound)) == [("bound", "upper"), ("target", ""), ("estimate", ""), ("count", "")]
    with pytest.raises(ParseError, match="give both or neither"):
        reported_figures.parse((HEADER.rstrip("\n") + ",kind\n" + GOOD.rstrip("\n") + ",bound\n").encode(), "r.csv")


def test_a_snapshot_table_without_kind_reads_with_the_same_default():
    full = reported_figures.load_reported()
    old = full.drop(columns=reported_figures.KIND_COLUMNS).astype(str)
    pd.testing.assert_frame_equal(reported_figures.from_table(old), full)


@pytest.mark.shared
def test_daily_posts_match_research_copy(shared_data):
    research = pd.read_csv(shared_data.parent / "research" / "reported_figures.csv", dtype=str)
    daily = research[(research.metric == "ice_arrests_daily") & (research.period_start <= "2025-01-31")]
    posts = daily.set_index("period_start")["value"].astype(float)
    assert len(posts) == 9
    full = reported_figures.load_reported()
    ours = full[(full.metric == "ice_arrests") & (full.period_start == full.period_end)].set_index("period_start")
    for day, v in posts.items():
        assert ours.loc[day, "value"] == v
