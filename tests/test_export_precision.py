"""The CSVs of a chart (issue 26): values the view derived are rounded to a precision that loses nothing the
source has (a value per day times the days it covers gives the published total back), values as published are
written as published (counts exact, without ".0"), and the wide CSV carries the long CSV's source lines."""
import datetime as dt
import io

import numpy as np
import pandas as pd
import pytest

from analysis.view import View, source_decimals
from charts import export
from figures.core import source_lines
from loaders import data as cdata
from views.compose import render

SNAP = cdata.load_snapshot()
WEEKLY, MONTHLY = "ddp_arrests_aggregates.weekly_national_digitised", "ddp_arrests_aggregates.monthly_national_chart_data"


def csv_of(r) -> tuple[str, pd.DataFrame]:
    text = export.to_csv(export.export_table(r), sources=source_lines(SNAP, r.prepared), title=r.title).decode()
    body = pd.read_csv(io.StringIO(text), comment="#", dtype={"value": str, "key": str, "release": str})
    return text, body[body["kind"] == "series"]


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def published(sid: str) -> pd.Series:
    rows = cdata.series_rows(SNAP, sid)
    return pd.Series(rows["value"].to_numpy(), index=rows["date"].dt.date.astype(str))


def test_values_per_day_are_rounded_yet_give_back_the_published_totals():
    r = render(SNAP, View(series=[WEEKLY, MONTHLY], preset="all"))
    _, body = csv_of(r)
    assert len(body) > 100
    most = {WEEKLY: 1, MONTHLY: 2}  # a week has 7 days (1 decimal), a month up to 31 (2 decimals)
    for sid, rows in body.groupby("series"):
        assert rows["value"].map(decimals).max() <= most[sid], sid
        assert not rows["value"].str.contains(r"\d{5,}$|\.\d*0$", regex=True).any()  # no 201.14285714285714, no "631.0"
        total = published(sid)
        if source_decimals(total.to_numpy()) == 0:  # whole counts: each published total comes back exactly
            days = (pd.to_datetime(rows["end"]) - pd.to_datetime(rows["date"])).dt.days + 1
            back = np.round(rows["value"].astype(float).to_numpy() * days.to_numpy())
            assert (back == total.loc[rows["date"]].to_numpy()).all(), sid


def test_values_as_published_are_written_exactly_and_counts_without_a_decimal_point():
    r = render(SNAP, View(series=[MONTHLY], preset="all", per_day=False))
    _, body = csv_of(r)
    total = published(MONTHLY)
    assert (body["value"].astype(float).to_numpy() == total.loc[body["date"]].to_numpy()).all()
    assert body["value"].str.fullmatch(r"\d+").all()  # "1408", never "1408.0"


def test_a_published_fraction_keeps_its_decimals():
    sid = "ice_detention_stats.bond_posted_share"
    r = render(SNAP, View(series=[sid], preset="all"))
    _, body = csv_of(r)
    rows = cdata.series_rows(SNAP, sid)
    assert len(body) and body["value"].astype(float).tolist() == pytest.approx(
        rows[rows["date"].dt.date.astype(str).isin(body["date"])]["value"].tolist(), abs=0)


def test_an_index_has_one_decimal_and_a_rolling_average_enough_for_its_days():
    r = render(SNAP, View(series=[MONTHLY], index_at=dt.date(2025, 2, 11)))
    assert csv_of(r)[1]["value"].map(decimals).max() == 1
    r = render(SNAP, View(series=["ddp_facility_daily.detained_midnight"], rolling=7, preset="all"))
    vals = csv_of(r)[1]["value"]
    assert len(vals) and vals.map(decimals).max() == 1  # whole headcounts averaged over 7 days


def test_the_wide_csv_carries_the_long_csvs_source_lines_and_the_same_rounding():
    r = render(SNAP, View(series=[WEEKLY, MONTHLY]), generated_on=dt.date(2026, 12, 1))
    sources = source_lines(SNAP, r.prepared)
    long_text = export.to_csv(export.export_table(r), sources=sources, title=r.title, generated_on=dt.date(2026, 12, 1))
    wide_text = export.wide_csv(r, sources=sources, title=r.title, generated_on=dt.date(2026, 12, 1))
    head = lambda b: [ln for ln in b.decode().splitlines() if ln.startswith("#")]  # noqa: E731
    assert head(wide_text) == head(long_text) and any(ln.startswith("# Source: ") for ln in head(wide_text))
    wide = pd.read_csv(io.StringIO(wide_text.decode()), comment="#", dtype=str)
    long = csv_of(r)[1]
    cells = sorted(v for c in wide.columns[1:] for v in wide[c].dropna())
    assert cells == sorted(long["value"])
