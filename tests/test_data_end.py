"""Titles and subtitles give the data's real end, not the end of the period asked for (issue 37).

The deaths maps said "to 31 July 2026" (the page's range, which runs to today) while the list's records end on
24 January 2026; a trends chart and the continuity chart did the same with a range chosen past their data.
"""
from __future__ import annotations

import datetime as dt
import io
import json

import pandas as pd
import pytest

from analysis import deaths as DV
from analysis import places as P
from analysis.view import View
from figures import continuity
from loaders import data as cdata
from views.compose import render as render_trend
from views.places import DEATH_MAPS, PlacesView, render
from wording import i18n

SNAP = cdata.load_snapshot()


@pytest.fixture(scope="module")
def pl() -> P.Places:
    return P.build(SNAP)


def _title_text(fig) -> str:
    return json.loads(fig.to_json())["layout"]["title"]["text"]


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("which", DEATH_MAPS)
def test_a_deaths_map_ends_where_the_list_ends(pl, which, lang):
    last = DV.list_end(DV.records(SNAP))
    asked = dt.date(2026, 7, 31)
    assert last is not None and last < asked
    r = render(SNAP, pl, PlacesView(map=which, start=dt.date(2025, 1, 20), end=asked), lang)
    title = _title_text(r.figure)
    for text in (title, r.title):
        assert i18n.date(last, lang, "long" if text is title else "iso") in text, text
        assert "2026-07-31" not in text and i18n.date(asked, lang, "long") not in text, text
    body = pd.read_csv(io.StringIO(r.table.to_csv(index=False)), dtype=str, keep_default_na=False)
    assert set(body["to"]) <= {last.isoformat()}
    # the list's end is still said, and a period inside the list keeps its own end
    assert any(i18n.date(last, lang, "long") in s for s in r.sources)
    inside = render(SNAP, pl, PlacesView(map=which, start=dt.date(2025, 1, 20), end=dt.date(2025, 6, 30)), lang)
    assert i18n.date(dt.date(2025, 6, 30), lang, "long") in _title_text(inside.figure)


def test_shown_end():
    last = dt.date(2026, 1, 24)
    assert DV.shown_end(dt.date(2025, 1, 20), dt.date(2026, 7, 31), last) == last
    assert DV.shown_end(dt.date(2025, 1, 20), dt.date(2025, 7, 31), last) == dt.date(2025, 7, 31)
    assert DV.shown_end(dt.date(2026, 3, 1), dt.date(2026, 7, 31), last) == dt.date(2026, 7, 31)  # nothing to date
    assert DV.shown_end(dt.date(2025, 1, 20), dt.date(2026, 7, 31), None) == dt.date(2026, 7, 31)


def test_a_trend_chart_with_a_range_past_its_data_says_where_the_data_end():
    sid = "deaths_in_custody.deaths_monthly"
    data_end = SNAP.by_series[sid]["end"].max().date()
    asked = data_end + dt.timedelta(days=200)
    r = render_trend(SNAP, View(series=[sid], preset="custom", start=dt.date(2025, 1, 20), end=asked))
    sub = _title_text(r.figure)
    assert i18n.date_range(dt.date(2025, 1, 20), data_end) in sub, sub
    assert asked.isoformat() not in sub


def test_the_continuity_chart_with_an_end_past_its_data_says_where_the_data_end():
    spec = continuity.continuity_spec(SNAP, "detained", start=dt.date(2024, 10, 1), end=dt.date(2030, 1, 1))
    sub = spec["layout"]["title"]["text"]
    assert "2030-01-01" not in sub, sub
