"""The revision band: for each period, the range of the figures every release printed for it, drawn behind
the latest line (``View.band``), with the release that first published the period and the last that revised
it. On small snapshots built with the real layout."""
import datetime as dt
import re

import numpy as np
import pandas as pd
import pytest

from analysis.view import View, prepare
from charts import export
from charts.__main__ import build_parser, query_from_args
from loaders import asof
from tests.built_snapshot import build_snapshot
from views import link
from views.compose import render

SID = "cbp_encounters.swb_total"
CATALOGUE = [[SID, "SW border encounters", "encounters", "CBP", "encounters", "monthly", "x", "cbp_encounters", "",
              "flow"]]
# Three releases: January printed 100, then revised to 120, then left at 120; February printed while running
# (partial), then whole as 90, then revised to 95; March printed once.
ROWS = [
    [SID, "", "2025-01-01", "2025-01-31", 100, "2025-02-28", "", "feb.csv"],
    [SID, "", "2025-02-01", "2025-02-14", 50, "2025-02-28", "partial", "feb.csv"],
    [SID, "", "2025-01-01", "2025-01-31", 120, "2025-03-31", "", "mar.csv"],
    [SID, "", "2025-02-01", "2025-02-28", 90, "2025-03-31", "", "mar.csv"],
    [SID, "", "2025-01-01", "2025-01-31", 120, "2025-04-30", "", "apr.csv"],
    [SID, "", "2025-02-01", "2025-02-28", 95, "2025-04-30", "", "apr.csv"],
    [SID, "", "2025-03-01", "2025-03-31", 310, "2025-04-30", "", "apr.csv"],
]


def build(tmp_path, rows, catalogue=CATALOGUE, source="cbp_encounters"):
    return build_snapshot(tmp_path, source, 45, catalogue, rows)


@pytest.fixture
def snap(tmp_path):
    return build(tmp_path, ROWS)


def day(s):
    return pd.Timestamp(s)


def test_band_is_the_range_over_the_releases_that_printed_each_period(snap):
    b = asof.revision_band(snap, SID).set_index("date")
    jan, feb, mar = b.loc[day("2025-01-01")], b.loc[day("2025-02-01")], b.loc[day("2025-03-01")]
    assert (jan["low"], jan["high"], jan["releases"]) == (100, 120, 3)
    assert jan["first_release"] == day("2025-02-28") and jan["last_revised"] == day("2025-03-31")
    # February's running figure (50 for half a month) is not a revision: the band starts at the whole month.
    assert (feb["low"], feb["high"], feb["releases"]) == (90, 95, 2)
    assert feb["first_release"] == day("2025-03-31") and feb["last_revised"] == day("2025-04-30")
    assert (mar["low"], mar["high"], mar["releases"]) == (310, 310, 1) and pd.isna(mar["last_revised"])


def test_band_as_published_on_a_date_uses_only_the_releases_out_by_then(snap):
    b = asof.revision_band(snap, SID, as_of=dt.date(2025, 4, 15)).set_index("date")
    assert list(b.index) == [day("2025-01-01"), day("2025-02-01")]
    assert (b.loc[day("2025-02-01"), "low"], b.loc[day("2025-02-01"), "high"]) == (90, 90)
    assert pd.isna(b.loc[day("2025-02-01"), "last_revised"])


def test_band_per_day_divides_each_release_by_the_days_it_covers(snap):
    b = asof.revision_band(snap, SID, per_day=True).set_index("date")
    assert b.loc[day("2025-01-01"), "low"] == pytest.approx(100 / 31)
    assert b.loc[day("2025-02-01"), "high"] == pytest.approx(95 / 28)


def test_known_wrong_and_undated_figures_stay_out_of_the_band(tmp_path):
    rows = ROWS + [[SID, "", "2025-01-01", "2025-01-31", 9999, "2025-05-31", "transposed", "may.csv"],
                   [SID, "", "2025-03-01", "2025-03-31", 1, "", "", "digitised.csv"]]
    b = asof.revision_band(build(tmp_path, rows), SID).set_index("date")
    assert b.loc[day("2025-01-01"), "high"] == 120 and b.loc[day("2025-03-01"), "low"] == 310


def test_first_published_takes_each_period_from_its_earliest_release(snap):
    first = asof.first_published(snap, SID)
    assert first["value"].tolist() == [100, 90, 310]
    assert [d.date().isoformat() for d in first["release"]] == ["2025-02-28", "2025-03-31", "2025-04-30"]


def test_band_is_off_by_default_and_round_trips_through_the_link():
    assert View().band is False and "band" not in link.trends_to_query(View())
    v = View(band=True)
    assert link.trends_to_query(v)["band"] == "1" and link.trends_from_query(link.trends_to_query(v)).band is True


def test_export_command_has_a_band_option():
    args = build_parser().parse_args(["export", "--series", SID, "--band", "--out", "x.png"])
    assert query_from_args(args)["band"] == "1"
    args = build_parser().parse_args(["export", "--series", SID, "--out", "x.png"])
    assert "band" not in query_from_args(args)


def _view(**kw):
    return View(series=[SID], preset="custom", start=dt.date(2025, 1, 1), end=dt.date(2025, 3, 31), events=False,
                reported=False, **kw)


def test_prepared_band_follows_the_lines_per_day_and_index_steps(snap):
    p = prepare(snap, _view(band=True))[0][0]
    assert p.band["date"].tolist() == p.frame["date"].tolist()
    assert p.band["low"].iloc[0] == pytest.approx(round(100 / 31, p.decimals))
    p = prepare(snap, _view(band=True, per_day=False, index_at=dt.date(2025, 1, 1)))[0][0]
    # January is the base (100 at the latest figure, 120): its band runs from 100/120*100 to 100, written
    # with the index's one decimal as the line is.
    assert (p.band["low"].iloc[0], p.band["high"].iloc[0]) == (round(100 / 120 * 100, 1), 100.0)
    assert p.frame["value"].iloc[0] == pytest.approx(100.0)


def test_no_band_where_the_view_makes_figures_no_release_printed(tmp_path):
    daily = "ddp_facility_daily.detained_midnight"
    rows = [[daily, "", f"{d:%Y-%m-%d}", f"{d:%Y-%m-%d}", 100 + i, "2025-03-01", "", "a.csv"]
            for i, d in enumerate(pd.date_range("2025-01-01", "2025-02-28"))]
    snap = build(tmp_path, rows, [[daily, "Detained", "detained", "ICE", "people", "daily", "x",
                                   "ddp_facility_daily", "", "level"]], "ddp_facility_daily")
    v = View(series=[daily], preset="all", band=True, events=False, reported=False)
    assert prepare(snap, v)[0][0].band is not None
    p = prepare(snap, View(series=[daily], preset="all", band=True, granularity="monthly"))[0][0]
    assert p.band is None and p.band_missing == "regrouped"
    p = prepare(snap, View(series=[daily], preset="all", band=True, rolling=7))[0][0]
    assert p.band is None and p.band_missing == "rolling"
    r = render(snap, View(series=[daily], preset="all", band=True, rolling=7, events=False, reported=False))
    assert any("No revision band for" in n and "rolling average" in n for n in r.notes)


def _band_traces(fig):
    data = [t.to_plotly_json() for t in fig.data]
    return [i for i, t in enumerate(data)
            if t.get("fill") == "toself" and re.fullmatch(r"s\d+", t.get("legendgroup", ""))], data


@pytest.mark.parametrize("lang,first,words", [
    ("en", "Printed in 3 releases: from 100 to 120",
     "first published in the release of 2025-02-28; last revised in the release of 2025-03-31"),
    ("es", "Dada en 3 publicaciones: de 100 a 120",
     "publicada por primera vez en la publicación del 2025-02-28; revisada por última vez en la del 2025-03-31"),
])
def test_band_drawn_behind_the_line_with_its_releases_in_the_hover(snap, lang, first, words):
    r = render(snap, _view(band=True, per_day=False, lang=lang), size="full")
    idx, data = _band_traces(r.figure)
    assert len(idx) == 1
    area, points = data[idx[0]], data[idx[0] + 1]
    line = next(i for i, t in enumerate(data) if t.get("mode", "").startswith("lines+markers"))
    assert line > idx[0] + 1  # drawn after the band: the line is on top
    # One closed shape: along the highs, back along the lows.
    assert list(area["y"]) == [120, 95, 310, 310, 90, 100, None]
    assert list(area["x"])[:3] == ["2025-01-01", "2025-02-01", "2025-03-01"]
    assert list(map(float, points["y"])) == [120, 95, 310]
    assert points["text"][0] == first + "<br>" + words
    assert area["showlegend"] is True and points["showlegend"] is False
    footer = r.figure.layout.annotations[-1].text
    assert ("Shaded band" if lang == "en" else "Banda sombreada") in footer
    table = export.export_table(r)
    assert table[["band_low", "band_high", "band_releases", "first_release", "last_revised"]].iloc[0].tolist() == [
        100, 120, "3", "2025-02-28", "2025-03-31"]
    assert table["last_revised"].iloc[2] == ""
    assert any(("Shaded band" if lang == "en" else "Banda sombreada") in n for n in r.notes)


def test_without_the_band_nothing_changes(snap):
    r = render(snap, _view(), size="full")
    assert _band_traces(r.figure)[0] == [] and "band_low" not in export.export_table(r).columns
    assert not any("band" in n.lower() for n in r.notes)
    footer = r.figure.layout.annotations[-1].text
    assert "Shaded band" not in footer


def test_band_axis_holds_the_highest_revision(tmp_path):
    rows = [[SID, "", "2025-01-01", "2025-01-31", 500, "2025-02-28", "", "a.csv"],
            [SID, "", "2025-01-01", "2025-01-31", 100, "2025-03-31", "", "b.csv"],
            [SID, "", "2025-02-01", "2025-02-28", 100, "2025-03-31", "", "b.csv"]]
    r = render(build(tmp_path, rows), _view(band=True, per_day=False), size="full")
    top = r.figure.layout.yaxis.range[1]
    assert np.isfinite(top) and top >= 500


# ---------------------------------------------------------------- the ledger: revisions per release and per month

def test_ledger_counts_revisions_per_release(snap):
    from loaders import ledger
    by_release = ledger.revisions_by_release(snap, "cbp_encounters")
    assert by_release.to_dict("records") == [
        dict(release=dt.date(2025, 2, 28), values_revised=0, series_revised=0, periods_revised=0, periods_completed=0),
        # January 100 -> 120; February's running 50 completed as 90 (not a revision).
        dict(release=dt.date(2025, 3, 31), values_revised=1, series_revised=1, periods_revised=1, periods_completed=1),
        dict(release=dt.date(2025, 4, 30), values_revised=1, series_revised=1, periods_revised=1, periods_completed=0),
    ]


def test_ledger_lists_each_revised_month_with_its_band(snap):
    from loaders import ledger
    by_month = ledger.revisions_by_month(snap, "cbp_encounters")
    assert by_month[["date", "releases", "low", "high", "first_release", "last_revised", "revisions"]].values.tolist() == [
        [dt.date(2025, 2, 1), 2, 90.0, 95.0, dt.date(2025, 3, 31), dt.date(2025, 4, 30), 1],
        [dt.date(2025, 1, 1), 3, 100.0, 120.0, dt.date(2025, 2, 28), dt.date(2025, 3, 31), 1],
    ]
    # the band of a revised month is the chart's band
    band = asof.revision_band(snap, SID).set_index("date").loc[day("2025-01-01")]
    assert (band["low"], band["high"]) == (100, 120)


def test_ledger_revisions_with_no_revision_at_all(tmp_path):
    from loaders import ledger
    snap = build(tmp_path, ROWS[:2])
    assert ledger.revisions_by_month(snap, "cbp_encounters").empty
    assert ledger.revisions_by_release(snap, "cbp_encounters")["values_revised"].tolist() == [0]


# ---------------------------------------------------------------- the event study as first published

def test_event_study_can_read_figures_as_first_published(snap):
    from views import event_study as es
    latest = es.study_rows(snap, SID)["value"].tolist()
    first = es.study_rows(snap, SID, "first")["value"].tolist()
    assert latest == [120, 95, 310] and first == [100, 90, 310]
    # Before = January, after = March, around 1 March (whole months): the first-published January is 100.
    _, _, _, res_latest = es.study_numbers(snap, SID, dt.date(2025, 2, 15), 31)
    _, _, _, res_first = es.study_numbers(snap, SID, dt.date(2025, 2, 15), 31, "first")
    assert res_latest.before.mean_per_day == pytest.approx(120 / 31)
    assert res_first.before.mean_per_day == pytest.approx(100 / 31)
    with pytest.raises(ValueError, match="unknown vintage 'second'"):
        es.study_rows(snap, SID, "second")


@pytest.mark.parametrize("lang,words", [("en", "Figures as first published"),
                                        ("es", "Cifras tal como se publicaron por primera vez")])
def test_study_figure_says_it_reads_first_published_figures(snap, lang, words):
    from views import event_study as es
    kw = dict(title="t", subtitle="s", unit="u", sources=("src",), today=dt.date(2025, 6, 1), lang=lang)
    fig, _ = es.study_figure(snap, SID, dt.date(2025, 2, 15), 31, vintage="first", **kw)
    assert words in fig.layout.annotations[-1].text
    fig, _ = es.study_figure(snap, SID, dt.date(2025, 2, 15), 31, **kw)
    assert words not in fig.layout.annotations[-1].text


def test_band_breaks_where_a_period_has_no_whole_figure(tmp_path):
    # February was only ever printed while running: the band stops at January and starts again at March, so
    # January and March each stand alone. They were closed shapes of no width (drawn as nothing); each is a
    # bar from its lowest to its highest figure, with the releases in its hover.
    rows = [[SID, "", "2025-01-01", "2025-01-31", 100, "2025-02-10", "", "a.csv"],
            [SID, "", "2025-01-01", "2025-01-31", 110, "2025-02-20", "", "b.csv"],
            [SID, "", "2025-02-01", "2025-02-20", 60, "2025-02-20", "partial", "b.csv"],
            [SID, "", "2025-03-01", "2025-03-31", 300, "2025-04-10", "", "c.csv"],
            [SID, "", "2025-03-01", "2025-03-31", 320, "2025-04-20", "", "d.csv"]]
    r = render(build(tmp_path, rows), _view(band=True, per_day=False), size="full")
    idx, data = _band_traces(r.figure)
    area, points = data[idx[0]], data[idx[0] + 1]
    # No run of periods to shade: the area keeps the lone periods as shapes of no width, so that Plotly, which
    # lists no trace without points, still shows the band's legend entry.
    assert list(area["y"]) == [110, 100, None, 320, 300, None] and area["showlegend"] is True
    assert list(points["x"]) == ["2025-01-01", "2025-03-01"]
    assert list(points["text"]) == [
        "Printed in 2 releases: from 100 to 110<br>first published in the release of 2025-02-10; last revised in "
        "the release of 2025-02-20",
        "Printed in 2 releases: from 300 to 320<br>first published in the release of 2025-04-10; last revised in "
        "the release of 2025-04-20"]
    font = r.figure.layout.font.size
    assert _drawn_ranges(data) == {"2025-01-01": [(100, 110, 0), (100, 110, font)],
                                   "2025-03-01": [(300, 320, 0), (300, 320, font)]}


def test_legend_room_counts_the_band_entry_under_its_line(snap):
    """The band's legend entry shares its line's legend group (a click on the line hides its band too), and
    Plotly stacks a group's entries even in a horizontal legend: the room left above the plot must count that
    second row, or the notes of spans with no release are drawn over it (an article-size image did)."""
    from figures.core import legend_height
    assert legend_height([dict(name="A line", legendgroup="s0"), dict(name="Its band", legendgroup="s0")], 600, 12) \
        == legend_height([dict(name="A line"), dict(name="Another")], 600, 12) + 12 * 2.0
    off, on = (render(snap, _view(band=band, per_day=False), size="article").figure for band in (False, True))
    idx, data = _band_traces(on)
    assert data[idx[0]]["showlegend"] and data[idx[0]]["legendgroup"] == "s0"
    assert on.layout.margin.t - off.layout.margin.t == on.layout.font.size * 2.0


# ---------------------------------------------------------------- a period whose band stands alone

def _drawn_ranges(data, group="s0"):
    """What a reader sees of the band of ``group``, per period (ISO date): each range drawn with a width, as
    ``(low, high, width)``: a shaded shape's width in days, or a bar's in px."""
    seen: dict[str, list] = {}
    for t in data:
        if t.get("legendgroup") != group or t.get("mode", "").startswith("lines+markers"):
            continue
        if t.get("fill") == "toself":
            xs, ys = list(t["x"]), list(t["y"])
            while xs:
                cut = xs.index(None)
                shape_x, shape_y = xs[:cut], ys[:cut]
                xs, ys = xs[cut + 1:], ys[cut + 1:]
                days = (pd.Timestamp(max(shape_x)) - pd.Timestamp(min(shape_x))).days
                for k in range(len(shape_x) // 2):  # along the highs, back along the lows
                    seen.setdefault(shape_x[k], []).append((shape_y[-1 - k], shape_y[k], days))
        err = t.get("error_y") or {}
        if err.get("visible", True) and err.get("arrayminus") is not None:
            for x, y, down, up in zip(t["x"], t["y"], err["arrayminus"], err["array"]):
                seen.setdefault(x, []).append((y - down, y + up, err["thickness"]))
    return seen


def _spec_with_band(x, y, low, high):
    from figures.core import Band, Line, trend_spec
    x = np.array(x, dtype="datetime64[ns]")
    hover = np.array([f"band of {d}" for d in iso(x)], dtype=object)
    line = Line("A line", x, np.asarray(y, dtype="float64"), unit="people",
                band=Band(x, np.asarray(low, dtype="float64"), np.asarray(high, dtype="float64"), hover,
                          name="Range across releases"))
    spec = trend_spec([line], title="t", subtitle="s", sources=["src"], size="article",
                      generated_on=dt.date(2026, 1, 1))
    return [dict(t) for t in spec.data], spec.size


def iso(x):
    return [str(d)[:10] for d in x]


NAN = float("nan")


@pytest.mark.parametrize("case,x,low,high,alone", [
    # the first point, one in the middle and the last have a band, their neighbours none
    ("ends and middle", pd.date_range("2025-01-01", periods=7, freq="MS"),
     [90, NAN, NAN, 280, NAN, NAN, 560], [110, NAN, NAN, 320, NAN, NAN, 640],
     ["2025-01-01", "2025-04-01", "2025-07-01"]),
    # every point has a band, but a gap in the dates on both sides leaves 2025-06-01 on its own
    ("between gaps", pd.to_datetime(["2025-01-01", "2025-02-01", "2025-03-01", "2025-06-01", "2025-10-01",
                                     "2025-11-01", "2025-12-01"]),
     [90, 190, 290, 550, 900, 1000, 1100], [110, 210, 310, 650, 950, 1050, 1150], ["2025-06-01"]),
])
def test_a_band_period_with_no_neighbour_is_drawn_with_a_width(case, x, low, high, alone):
    """A period whose band stands alone (no neighbour with a band, or a gap in the dates on each side) was a
    shape of no width, drawn as nothing: each such range is drawn as a bar some px wide, from its lowest to its
    highest figure, with its hover kept; the runs of periods stay shaded areas."""
    y = [h - 5 if np.isfinite(h) else 100.0 * (k + 1) for k, h in enumerate(high)]
    data, size = _spec_with_band(x, y, low, high)
    drawn = _drawn_ranges(data)
    for d in iso(x):
        k = iso(x).index(d)
        if not np.isfinite(high[k]):
            assert d not in drawn
            continue
        ranges = drawn[d]
        assert all(lo == low[k] and hi == high[k] for lo, hi, _ in ranges), (case, d, ranges)
        assert any(w > 0 for _, _, w in ranges), f"{case}: the band of {d} is drawn with no width"
        if d in alone:
            bar = [w for _, _, w in ranges if w > 0]
            # as wide as the line's markers at least, whatever the span of dates in view
            assert bar == [pytest.approx(size.font)], (case, d, ranges)
    points = next(t for t in data if t.get("hovertemplate") == "%{text}<extra></extra>")
    assert [t for x_, t in zip(points["x"], points["text"]) if x_ in alone] == [f"band of {d}" for d in alone]
    area = next(t for t in data if t.get("fill") == "toself")
    assert area["showlegend"] and area["name"] == "Range across releases" and len(area["x"])  # listed: has points
    assert sum(1 for t in data if t.get("showlegend", True) and t.get("name") == "Range across releases") == 1
