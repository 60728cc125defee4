"""Index = 100 at a date or an event (issue 26): every series of a view is indexed at one common base date,
named once in the subtitle in words, or the chart says it is not indexed and names the series that cannot be."""
import datetime as dt
import re

import numpy as np
import pandas as pd
import pytest

from analysis import view as V
from figures.core import subtitle_for
from loaders.data import load_snapshot

SNAP = load_snapshot()
WEEKLY, MONTHLY = V.DEFAULT_SERIES  # DDP's weekly arrests (Sunday weeks) and monthly arrests


def frame(starts, ends, values):
    return pd.DataFrame({"date": pd.to_datetime(starts), "end": pd.to_datetime(ends),
                         "value": np.asarray(values, dtype=float)})


def test_a_weekly_and_a_monthly_series_share_one_base_date_named_once():
    view = V.View(index_at=dt.date(2025, 2, 11))
    prepared, lo, hi = V.prepare(SNAP, view)
    assert {p.index_base for p in prepared} == {dt.date(2025, 2, 9)}  # the week of 9 February starts in February
    base = pd.Timestamp("2025-02-09")
    for p in prepared:
        f = p.frame
        holding = f[(f["date"] <= base) & (f["end"] >= base)]
        assert holding["value"].tolist() == pytest.approx([100.0]), p.ref
    sub = subtitle_for(view, lo, hi, prepared)
    assert sub.count("indexed to 100") == 1 and "indexed to 100 at 9 February 2025" in sub
    assert not re.search(r"indexed to 100 at \d{4}-", sub)
    es = subtitle_for(V.View(index_at=dt.date(2025, 2, 11), lang="es"), lo, hi, prepared)
    assert es.count("índice 100") == 1 and "índice 100 el 9 de febrero de 2025" in es


def test_a_monthly_series_alone_is_indexed_at_its_month_start():
    view = V.View(series=[MONTHLY], index_at=dt.date(2025, 2, 11))
    prepared, lo, hi = V.prepare(SNAP, view)
    assert prepared[0].index_base == dt.date(2025, 2, 1)
    assert "indexed to 100 at 1 February 2025" in subtitle_for(view, lo, hi, prepared)


def test_common_base_is_the_latest_period_start_every_series_covers():
    weekly = frame(pd.date_range("2025-01-05", periods=8, freq="7D"),
                   pd.date_range("2025-01-11", periods=8, freq="7D"), range(1, 9))
    monthly = frame(["2025-01-01", "2025-02-01", "2025-03-01"], ["2025-01-31", "2025-02-28", "2025-03-31"],
                    [10, 20, 30])
    frames = [(n, f, V.covered_until(f, flow=True, carry=1)) for n, f in (("w", weekly), ("m", monthly))]
    base, values, missing = V.common_base(frames, pd.Timestamp("2025-02-11"))
    assert base == pd.Timestamp("2025-02-09") and values == {"w": 6.0, "m": 20.0} and missing == []


def test_a_level_read_every_two_weeks_holds_until_its_next_reading():
    # A biweekly headcount read on 3 February and a monthly series: 3 February is in both.
    counts = frame(["2025-01-20", "2025-02-03", "2025-02-17"], ["2025-01-20", "2025-02-03", "2025-02-17"],
                   [100, 110, 120])
    monthly = frame(["2025-01-01", "2025-02-01"], ["2025-01-31", "2025-02-28"], [10, 20])
    frames = [("c", counts, V.covered_until(counts, flow=False, carry=14)),
              ("m", monthly, V.covered_until(monthly, flow=True, carry=31))]
    base, values, missing = V.common_base(frames, pd.Timestamp("2025-02-11"))
    assert base == pd.Timestamp("2025-02-03") and values == {"c": 110.0, "m": 20.0}
    # Read once a year, a count does not stand for the months after it: no common date, and it is named.
    sparse = frame(["2024-01-10"], ["2024-01-10"], [5])
    frames[0] = ("c", sparse, V.covered_until(sparse, flow=False, carry=14))
    base, values, missing = V.common_base(frames, pd.Timestamp("2025-02-11"))
    assert base is None and missing == ["c"]


def test_a_date_before_a_series_begins_is_refused_by_name_not_indexed_elsewhere():
    view = V.View(series=[WEEKLY, MONTHLY], preset="all", index_at=dt.date(2019, 2, 11))
    prepared, lo, hi = V.prepare(SNAP, view)
    assert all(p.index_base is None and not p.unit.startswith("index") for p in prepared)
    sub = subtitle_for(view, lo, hi, prepared)
    assert "not indexed to 100: no date at or before 11 February 2019" in sub
    monthly_label = next(p.label for p in prepared if p.ref == MONTHLY)
    weekly_label = next(p.label for p in prepared if p.ref == WEEKLY)
    assert monthly_label in sub and weekly_label not in sub  # the weekly series has data in 2019
    es = subtitle_for(V.View(series=[WEEKLY, MONTHLY], lang="es", index_at=dt.date(2019, 2, 11)), lo, hi, prepared)
    assert "sin índice 100" in es and "11 de febrero de 2019" in es
