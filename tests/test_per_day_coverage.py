"""A period its source covers only in part, shown per day, is divided by the days covered (issue 37). With "per
day" on, FY2018 of the deaths list (which starts on 10 April 2018) was divided by all 365 days of the year:
0.016 deaths a day where the list's 6 deaths over its 174 days give 0.034. A source that declares the spans it
covers (``loaders.tidy.coverage_table``) has every per-day figure divided by the days of its period those spans
cover: the chart's line, its hover and footer, and the CSV."""
from __future__ import annotations

import datetime as dt
import io

import numpy as np
import pandas as pd
import pytest

from analysis.view import View
from charts import export
from figures.core import source_lines
from loaders import data as cdata
from loaders import tidy
from tests import bundled
from tests.test_overview import cat
from views.compose import render

D = dt.date
SRC = "x"
# Coverage starts in the middle of FY2024 and of November 2023, stops in the middle of March 2024, and takes
# up again for the whole of FY2025.
SPANS = [(D(2023, 11, 15), D(2024, 3, 20)), (D(2024, 10, 1), D(2025, 9, 30))]


def built_snapshot(spans=SPANS) -> cdata.Snapshot:
    months = ["2023-10-01", "2023-11-01", "2023-12-01", "2024-01-01", "2024-02-01", "2024-03-01", "2024-04-01"]
    rows = [{"series": "x.monthly", "date": m, "end": (pd.Timestamp(m) + pd.offsets.MonthEnd(0)).date().isoformat(),
             "value": 60.0} for m in months]
    rows.append({"series": "x.annual", "date": "2023-10-01", "end": "2024-09-30", "value": 640.0})
    rows.append({"series": "x.annual", "date": "2024-10-01", "end": "2025-09-30", "value": 730.0})
    obs = tidy.mark_coverage(tidy.frame(rows), spans)
    for c in ("date", "end"):
        obs[c] = pd.to_datetime(obs[c])
    obs["release"] = pd.NaT
    catalogue = pd.DataFrame([cat("x.monthly", SRC, "deaths"), cat("x.annual", SRC, "deaths", frequency="annual")]
                             ).set_index("id")
    by_series = {sid: g.reset_index(drop=True) for sid, g in obs.groupby("series")}
    tables = {f"{SRC}.{tidy.COVERAGE_TABLE}": tidy.coverage_table(spans)}
    return cdata.Snapshot(obs, catalogue, {"sources": {SRC: {"publisher": "P"}}}, pd.DataFrame(), tables, by_series)


def per_day_frame(snap, sid, lang="en"):
    r = render(snap, View(series=[sid], preset="custom", start=D(2023, 10, 1), end=D(2025, 9, 30), lang=lang,
                          events=False, reported=False), generated_on=D(2024, 10, 1), size="full")
    return r, r.series[0].frame.set_index(r.series[0].frame["date"].dt.date)


def test_covered_days_of_a_period_a_coverage_starts_or_stops_inside():
    df = pd.DataFrame({"date": pd.to_datetime(["2023-10-01", "2023-11-01", "2024-03-01", "2023-12-01"]),
                       "end": pd.to_datetime(["2024-09-30", "2023-11-30", "2024-03-20", "2023-12-31"])})
    first, last, days = cdata.covered_bounds(df, [(pd.Timestamp(a), pd.Timestamp(b)) for a, b in SPANS])
    assert days.tolist() == [(D(2024, 3, 20) - D(2023, 11, 15)).days + 1, 16, 20, 31]
    assert [str(x)[:10] for x in first] == ["2023-11-15", "2023-11-15", "2024-03-01", "2023-12-01"]
    assert [str(x)[:10] for x in last] == ["2024-03-20", "2023-11-30", "2024-03-20", "2023-12-31"]
    # Two spans with a gap between them inside one period: the days of both, not the gap.
    two = [(pd.Timestamp("2023-10-01"), pd.Timestamp("2023-10-10")), (pd.Timestamp("2023-10-21"), pd.Timestamp("2023-10-31"))]
    one = pd.DataFrame({"date": pd.to_datetime(["2023-10-01"]), "end": pd.to_datetime(["2023-10-31"])})
    assert cdata.days_covered(one, two).tolist() == [21]
    # No spans: the period's own days, as before.
    assert cdata.days_covered(df).tolist() == [366, 30, 20, 31]


def test_a_built_series_per_day_divides_by_the_days_its_source_covers():
    snap = built_snapshot()
    covered = (D(2024, 3, 20) - D(2023, 11, 15)).days + 1  # 127
    _, year = per_day_frame(snap, "x.annual")
    assert year.loc[D(2023, 10, 1), "value"] == pytest.approx(640 / covered)
    assert year.loc[D(2024, 10, 1), "value"] == pytest.approx(730 / 365)  # covered whole
    _, months = per_day_frame(snap, "x.monthly")
    assert D(2023, 10, 1) not in months.index and D(2024, 4, 1) not in months.index  # no coverage: no row
    assert months.loc[D(2023, 11, 1), "value"] == pytest.approx(60 / 16)  # from the 15th: 16 days, not 30
    assert months.loc[D(2023, 12, 1), "value"] == pytest.approx(60 / 31)
    assert months.loc[D(2024, 3, 1), "value"] == pytest.approx(60 / 20)  # stops on the 20th
    # The same rows from a source that declares no coverage: from the period's first day to its cut end (172
    # days, the 45 uncovered days at its start counted), as every per-day figure was divided before.
    plain = built_snapshot()
    plain.tables.clear()
    _, whole = per_day_frame(plain, "x.annual")
    assert whole.loc[D(2023, 10, 1), "value"] == pytest.approx(640 / 172)


@pytest.mark.parametrize("lang, words", [
    ("en", ("per day over the 127 days its source covers, 2023-11-15 to 2024-03-20",
            "Per day over the days covered: a period its source covers only in part is divided by the days covered")),
    ("es", ("por día sobre los 127 días que cubre su fuente, del 2023-11-15 al 2024-03-20",
            "Por día sobre los días cubiertos: un periodo que su fuente solo cubre en parte se divide"))])
def test_the_hover_the_footer_and_the_csv_say_the_days_divided_by(lang, words):
    snap = built_snapshot()
    r, _ = per_day_frame(snap, "x.annual", lang)
    hover = " ".join(str(x) for t in r.figure.data if t.text is not None for x in t.text)
    assert words[0] in hover, hover
    foot = " ".join(str(a.text) for a in r.figure.layout.annotations).replace("<br>", " ")
    assert words[1] in " ".join(foot.split()), foot
    csv = export.to_csv(export.export_table(r), sources=source_lines(snap, r.prepared, lang) + r.notes, title=r.title,
                        lang=lang).decode()
    assert words[0] in csv and words[1] in csv
    body = pd.read_csv(io.StringIO(csv), comment="#", dtype=str, keep_default_na=False)
    assert float(body.loc[body["date"] == "2023-10-01", "value"].iloc[0]) == pytest.approx(640 / 127, abs=0.01)
    # A whole month says nothing of it.
    r, _ = per_day_frame(snap, "x.monthly", lang)
    texts = [str(x) for t in r.figure.data if t.text is not None for x in t.text]
    assert sum(("days its source covers" in x) or ("días que cubre" in x) for x in texts) == 1  # November only


def test_the_real_deaths_list_fy2018_per_day_is_over_the_174_days_it_covers():
    snap = bundled.snapshot()
    spans = cdata.coverage_spans(snap, "deaths_in_custody")
    assert (pd.Timestamp("2018-04-10"), pd.Timestamp(spans[-1][1])) == spans[-1]
    r = render(snap, View(series=["deaths_in_custody.deaths_fy"], preset="all"), generated_on=D(2026, 12, 3), size="full")
    f = r.series[0].frame.set_index(r.series[0].frame["date"].dt.date)
    raw = snap.by_series["deaths_in_custody.deaths_fy"].set_index(snap.by_series["deaths_in_custody.deaths_fy"]["date"].dt.date)
    deaths = float(raw.loc[D(2017, 10, 1), "value"])
    assert f.loc[D(2017, 10, 1), "value"] == pytest.approx(deaths / 174)  # 10 April to 30 September 2018
    assert f.loc[D(2018, 10, 1), "value"] == pytest.approx(float(raw.loc[D(2018, 10, 1), "value"]) / 365)
    # FY2017 stops on 5 June 2017: its end was already cut there, 248 days.
    assert f.loc[D(2016, 10, 1), "value"] == pytest.approx(float(raw.loc[D(2016, 10, 1), "value"]) / 248)
    assert any("per day over the 174 days its source covers, 2018-04-10 to 2018-09-30" in n for n in r.notes)
    assert np.isfinite(f["value"]).all()


def test_the_event_study_spreads_a_partly_covered_period_over_the_days_covered():
    from analysis.study import daily_values
    from views.event_study import study_rows
    snap = built_snapshot()
    rows = study_rows(snap, "x.monthly")
    daily = daily_values(rows, flow=True)
    nov = daily[(daily.index >= "2023-11-01") & (daily.index <= "2023-11-30")]
    assert len(nov) == 16 and nov.iloc[0] == pytest.approx(60 / 16)  # from the 15th, nothing before it
    assert sum(daily[(daily.index >= "2023-11-01") & (daily.index <= "2024-03-31")]) == pytest.approx(5 * 60)


def test_the_latest_point_under_the_chart_keeps_the_decimals_of_a_value_per_day_under_one():
    """Under the deaths chart, per day, the page wrote "latest point: 0 deaths per day" for FY2026 (0.147)."""
    from page.trends import latest_decimals
    r = render(bundled.snapshot(), View(series=["deaths_in_custody.deaths_fy"], preset="all"),
               generated_on=D(2026, 12, 3), size="page")
    latest = r.table.sort_values("end").iloc[-1]
    assert 0 < latest["value"] < 1 and latest_decimals(r, latest) == 3
    r, _ = per_day_frame(built_snapshot(), "x.annual")
    latest = r.table.sort_values("end").iloc[-1]
    assert latest_decimals(r, latest) >= 1
