"""The view model and its transforms: URL round trip, presets, per day, resampling, rolling, index."""
import datetime as dt

import numpy as np
import pandas as pd
import pytest

from analysis import view as V
from analysis.study import daily_values, event_study
from views import link


@pytest.fixture(scope="module")
def snap():
    from loaders.data import load_snapshot
    return load_snapshot()


def frame(dates, values, ends=None, flags=None):
    d = pd.to_datetime(dates)
    return pd.DataFrame({"date": d, "end": pd.to_datetime(ends) if ends is not None else d,
                         "value": np.asarray(values, dtype=float), "release": pd.NaT,
                         "flag": flags or [""] * len(d), "file": ""})


def test_query_round_trip_and_defaults_left_out():
    v = V.View(series=["a.b", "c.d|Texas"], preset="custom", start=dt.date(2025, 1, 1), end=dt.date(2025, 6, 30),
               granularity="weekly", per_day=False, rolling=7, index_at=dt.date(2025, 2, 11), log=True,
               fiscal_axis=True, as_of=dt.date(2025, 3, 1), events=False, categories=["personnel", "legal"],
               event_text="Hott", reported=False)
    q = link.trends_to_query(v)
    assert q["series"] == "a.b,c.d|Texas" and q["per_day"] == "0" and q["rolling"] == "7"
    assert link.trends_from_query(q) == v
    assert link.trends_to_query(V.View()) == {}


def test_bad_query_values_fall_back():
    v = link.trends_from_query({"preset": "bogus", "rolling": "13", "start": "not-a-date", "granularity": "hourly",
                           "series": "x" * 5000})
    assert v.preset == "since-2025-01-20" and v.rolling == 0 and v.start is None and v.granularity == "native"
    assert len(v.series[0]) <= 2000


@pytest.mark.parametrize("preset, expect", [
    ("since-2025-01-20", (dt.date(2025, 1, 20), dt.date(2026, 7, 11))),
    ("last-90-days", (dt.date(2026, 4, 13), dt.date(2026, 7, 11))),
    ("fiscal-ytd", (dt.date(2025, 10, 1), dt.date(2026, 7, 11))),
    ("calendar-year", (dt.date(2026, 1, 1), dt.date(2026, 7, 11))),
    ("all", (dt.date(2019, 5, 4), dt.date(2026, 7, 11))),
])
def test_presets(preset, expect):
    assert V.View(preset=preset).date_range(dt.date(2019, 5, 4), dt.date(2026, 7, 11)) == expect


def test_per_day_divides_by_days_covered_including_partial_month():
    df = frame(["2025-01-01", "2025-02-01"], [310, 140], ends=["2025-01-31", "2025-02-14"])
    assert V.per_day(df)["value"].tolist() == [10.0, 10.0]


def test_weekly_and_monthly_resampling_sum_flows_and_mark_partial():
    days = pd.date_range("2025-01-01", "2025-02-10", freq="D")
    df = frame(days, np.ones(len(days)))
    m = V.resample(df, "monthly", "sum")
    assert m["value"].tolist() == [31.0, 10.0]
    assert m["flag"].tolist() == ["", "partial"]
    w = V.resample(df, "weekly", "mean")
    assert (w["value"] == 1).all() and w["date"].dt.day_of_week.eq(0).all()


def test_rolling_mean_on_daily():
    days = pd.date_range("2025-01-01", periods=14, freq="D")
    df = frame(days, np.arange(14))
    r = V.rolling_mean(df, 7)
    assert r.iloc[-1]["value"] == pytest.approx(np.mean(np.arange(7, 14)))


def test_index_to_base_date():
    df = frame(["2025-01-01", "2025-02-01", "2025-03-01"], [50, 100, 150])
    out, note = V.index_to(df, pd.Timestamp("2025-02-11"))
    assert out["value"].tolist() == [50.0, 100.0, 150.0] and "2025-02-01" in note


def test_event_study_flow_spreads_months_over_days():
    df = frame(["2025-01-01", "2025-02-01", "2025-03-01"], [310, 560, 620],
               ends=["2025-01-31", "2025-02-28", "2025-03-31"])
    res = event_study(df, dt.date(2025, 2, 1), 28, flow=True)
    assert res.before.mean_per_day == pytest.approx(10) and res.after.mean_per_day == pytest.approx(20)
    assert res.change == pytest.approx(10) and res.change_pct == pytest.approx(100)
    assert res.year_earlier_before.mean_per_day is None  # no data a year earlier: said, not invented


def test_event_study_level_carries_forward():
    df = frame(["2025-01-01", "2025-01-15"], [100, 200], ends=["2025-01-01", "2025-01-31"])
    d = daily_values(df, flow=False)
    assert d["2025-01-14"] == 100 and d["2025-01-20"] == 200


def test_event_study_level_is_not_carried_across_a_publication_gap():
    # ICE's biweekly detention count has no release between January and September 2025: an event in February
    # must find no data after it, not the January count carried forward as "no change".
    df = frame(["2024-12-23", "2025-01-06", "2025-09-15"], [39152, 39703, 59762],
               ends=["2024-12-23", "2025-01-06", "2025-09-15"])
    d = daily_values(df, flow=False, max_carry_days=14)
    assert d["2025-01-19"] == 39703 and "2025-01-20" not in d.index and d["2025-09-15"] == 59762
    res = event_study(df, dt.date(2025, 2, 11), 30, flow=False, max_carry_days=14)
    assert res.before.days_with_data == 8 and res.after.mean_per_day is None and res.change is None


def test_all_categories_round_trip():
    v = V.View(categories=[])
    assert link.trends_to_query(v) == {"categories": "all"} and link.trends_from_query(link.trends_to_query(v)).categories == []
    assert V.View().categories == list(V.DEFAULT_CATEGORIES)


def test_event_study_on_a_monthly_series_compares_whole_months():
    """Issue 15: a monthly series studied with a 14-day window compared part of January with part of February
    while reporting "days with data 14/14"."""
    from analysis.study import study
    months = pd.date_range("2024-01-01", "2025-06-01", freq="MS")
    df = pd.DataFrame({"date": months, "end": months + pd.offsets.MonthEnd(0),
                       "value": [3100.0 + 31 * i for i in range(len(months))]})
    res = study(df, dt.date(2025, 2, 11), 14, flow=True)
    assert res.unit == "months" and res.periods == 1
    assert (res.before.start, res.before.end) == (dt.date(2025, 1, 1), dt.date(2025, 1, 31))
    assert (res.after.start, res.after.end) == (dt.date(2025, 3, 1), dt.date(2025, 3, 31))
    jan, mar = df.set_index("date").loc["2025-01-01", "value"], df.set_index("date").loc["2025-03-01", "value"]
    assert res.before.mean_per_day == pytest.approx(jan / 31) and res.after.mean_per_day == pytest.approx(mar / 31)
    assert "February 2025 holds the date" in res.note and "whole month" in res.note
    assert "months with data (before/after)" in res.table().columns and res.table().iloc[0, -1] == "1/1"
    # On the first day of a month, that month is wholly after the date; 60 days is two whole months.
    res = study(df, dt.date(2025, 3, 1), 60, flow=True)
    assert res.periods == 2 and res.after.start == dt.date(2025, 3, 1) and res.before.start == dt.date(2025, 1, 1)
    assert "left out" not in res.note
    # A daily series keeps the day windows.
    days = pd.date_range("2025-01-01", "2025-03-31")
    d = pd.DataFrame({"date": days, "end": days, "value": 1.0})
    assert study(d, dt.date(2025, 2, 11), 14, flow=True).unit == "days"


def test_monthly_average_of_biweekly_snapshots_is_not_partial():
    """Issue 15: with monthly granularity, TRAC's biweekly headcounts were ringed 'partial' in 6 of 7 months
    because the last snapshot of a month falls before its last day. Only totals (and daily counts that stop
    early) can cover part of a period."""
    dates = pd.to_datetime(["2025-08-09", "2025-08-23", "2025-09-06", "2025-09-20", "2025-10-04"])
    snaps = pd.DataFrame({"date": dates, "end": dates, "value": [1.0, 2, 3, 4, 5], "release": pd.NaT,
                          "flag": "", "file": ""})
    out = V.resample(snaps, "monthly", "mean")
    assert not out["flag"].str.contains("partial").any()
    # A monthly total whose data stop on the 20th stays partial.
    flow = pd.DataFrame({"date": pd.to_datetime(["2025-09-01"]), "end": pd.to_datetime(["2025-09-20"]),
                         "value": [10.0], "release": pd.NaT, "flag": "", "file": ""})
    assert V.resample(flow, "monthly", "sum")["flag"].str.contains("partial").all()
    # Daily counts that stop on the 10th: the month's average is of ten days only, so partial.
    days = pd.date_range("2025-09-01", "2025-09-10")
    daily = pd.DataFrame({"date": days, "end": days, "value": 1.0, "release": pd.NaT, "flag": "", "file": ""})
    assert V.resample(daily, "monthly", "mean")["flag"].str.contains("partial").all()


def test_one_flow_or_level_decision_for_every_caller(snap):
    """Daily arrest counts are a flow (summed into months, shown per day) everywhere; a population is not.
    The page's event study, resampling and continuity notes once decided this three ways and disagreed for
    ddp_records.arrests_daily."""
    from loaders import registry
    from loaders.data import is_flow
    declared = {s.id: s for s in registry.catalogue()}
    assert declared["ddp_records.arrests_daily"].measure == "flow"
    assert declared["ice_detention_stats.book_ins_ice"].measure == "flow"
    assert declared["ddp_facility_daily.detained_midnight"].measure == "level"
    # Running totals to date are one point at their data-through date: a level, never divided by one day.
    assert declared["ice_detention_stats.removals_fytd"].measure == "level"
    # The committed catalogue carries every declaration as written, and is_flow reads nothing else.
    for sid, info in snap.catalogue.iterrows():
        assert info["measure"] == declared[sid].measure, sid
        assert is_flow(info) == (declared[sid].measure == "flow"), sid
    assert "per_day_ok" not in snap.catalogue.columns


def test_a_series_must_declare_a_known_measure():
    from loaders.base import Series
    args = ("x.y", "t", "arrests", "ICE", "arrests", "daily", "d", "x")
    with pytest.raises(TypeError, match="measure"):
        Series(*args)  # no default: every source module says which it is
    with pytest.raises(ValueError, match="series x.y: measure must be one of \\['flow', 'level'\\], not 'True'"):
        Series(*args, measure="True")
    assert Series(*args, measure="flow").measure == "flow"


def test_the_catalogue_is_read_with_its_declared_values_or_refused(tmp_path):
    """An old catalogue (per_day_ok as text) or an unknown measure is refused naming file, row and field,
    never read as "not a flow"."""
    from loaders.data import read_catalogue
    from loaders.snapshot import SnapshotError
    head = "id,title,metric,agency,unit,frequency,definition,source,breakdown"
    with pytest.raises(SnapshotError, match="series.csv has no 'measure' column"):
        read_catalogue(f"{head},per_day_ok\na.b,t,arrests,ICE,arrests,daily,d,a,,True\n".encode())
    with pytest.raises(SnapshotError, match="series.csv row 3 \\(series 'a.c'\\) field 'measure': 'True' is not one of"):
        read_catalogue(f"{head},measure\na.b,t,arrests,ICE,arrests,daily,d,a,,flow\n"
                       f"a.c,t,arrests,ICE,arrests,daily,d,a,,True\n".encode())
    cat = read_catalogue(f"{head},measure\na.b,t,arrests,ICE,arrests,daily,d,a,,flow\n".encode())
    assert cat.loc["a.b", "measure"] == "flow" and cat.loc["a.b", "breakdown"] == ""


def test_a_running_total_to_date_is_not_labelled_per_day(snap):
    """ICE's removals fiscal year to date are one point per release at the data-through date. Labelled by
    metric they were "removals per day" (a one-day span); declared a level they keep their own unit."""
    from figures.core import unit_phrase
    p = V.prepare(snap, V.View(series=["ice_detention_stats.removals_fytd|FY2026"], preset="all"))[0][0]
    assert len(p.frame) and (p.frame["end"] == p.frame["date"]).all()
    axis, phrase = unit_phrase(p, snap.info(p.series_id))
    assert "per day" not in axis and "per day" not in phrase and axis == "removals"


@pytest.mark.slow
def test_a_series_shape_kept_between_views_draws_what_a_fresh_snapshot_draws():
    # The rows and shape of a series (per day, resampled, rolling) are kept on the snapshot across date ranges,
    # and reported figures' dates across views: the next view must draw exactly what a fresh snapshot draws,
    # and nothing kept may be changed by drawing.
    import plotly.io as pio

    from analysis.view import View, prepare
    from loaders import data as cdata
    from views.compose import render
    kept, fresh = cdata.load_snapshot(), None
    series = ["ice_detention_stats.book_ins_ice", "ddp_arrests_aggregates.weekly_national_digitised"]
    for preset in ("all", "last-90-days", "fiscal-ytd", "since-2025-01-20", "all"):
        for per_day in (True, False):
            view = View(series=series, preset=preset, per_day=per_day, granularity="monthly", rolling=0)
            fresh = cdata.load_snapshot()
            a, b = render(kept, view, reported=kept.reported), render(fresh, view, reported=fresh.reported)
            assert a.table.equals(b.table) and (a.lo, a.hi) == (b.lo, b.hi)
            assert [p.notes for p in a.prepared] == [p.notes for p in b.prepared]
            assert pio.to_json(a.figure) == pio.to_json(b.figure)
    for k, v in kept.memo.items():
        if k[0] == "rows":
            assert v.equals(cdata.series_rows(fresh, k[1], k[2])), k
    assert prepare(kept, View(series=series, as_of=dt.date(2025, 6, 1)))[0][0].frame["date"].max() < pd.Timestamp("2025-06-02")
