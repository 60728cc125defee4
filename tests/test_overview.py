import datetime as dt

import pandas as pd
import pytest

from charts import data as cdata
from charts.overview import headlines

SNAP = cdata.load_snapshot()


def test_headlines_pick_the_freshest_series_and_say_which():
    hs = {h.label: h for h in headlines(SNAP, today=dt.date(2026, 11, 29))}
    det = hs["People in ICE detention"]
    cands = [c for c in ("ice_detention_stats.detained_total", "trac_detention.detained_total") if c in SNAP.by_series]
    freshest = max(cands, key=lambda c: SNAP.by_series[c]["end"].max())
    assert det.series_id == freshest
    rows = cdata.series_rows(SNAP, freshest)
    assert det.value == rows["value"].iloc[-1] and det.data_date == rows["end"].iloc[-1].date()
    prev = cdata.series_rows(SNAP, freshest, as_of=pd.Timestamp(det.previous_release))["value"].iloc[-1]
    assert det.change == pytest.approx(det.value - prev)
    assert det.overdue_days and det.overdue_days > 0  # November 2026 is long after the July snapshot


def test_removals_headline_uses_latest_fiscal_year():
    hs = {h.label: h for h in headlines(SNAP)}
    if "ICE removals, fiscal year to date" not in hs:
        pytest.skip("no ICE workbook series in the snapshot")
    h = hs["ICE removals, fiscal year to date"]
    assert "(FY" in h.title and h.value > 0


def test_no_overdue_badge_when_fresh():
    hs = headlines(SNAP, today=dt.date(2026, 7, 15))
    det = next(h for h in hs if h.label == "People in ICE detention")
    assert det.overdue_days is None
