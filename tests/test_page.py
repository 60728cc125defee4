"""The page under Streamlit's AppTest, on the bundled snapshot."""
import datetime as dt
import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


def app():
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    return at


def figure(at):
    charts = at.get("plotly_chart")
    assert charts, "no chart on the page"
    return json.loads(charts[0].proto.spec)


def test_page_shows_real_series_with_source_and_date():
    at = app()
    fig = figure(at)
    ys = [y for t in fig["data"] for y in (t.get("y") or [])] if isinstance(fig["data"][0].get("y"), list) else None
    text = " ".join(m.value for m in at.markdown)
    assert "Data to" in text and "Source:" in text
    assert "TRAC" in json.dumps(fig["layout"])


def test_changed_date_range_changes_chart_and_empty_state():
    at = app()
    before = figure(at)
    at.date_input(key="range").set_value((dt.date(2019, 6, 1), dt.date(2019, 12, 31))).run()
    assert not at.exception
    after = figure(at)
    assert "2019-06-01 to 2019-12-31" in json.dumps(after["layout"]["title"])
    assert after != before
    at.date_input(key="range").set_value((dt.date(2019, 5, 5), dt.date(2019, 5, 10))).run()
    assert not at.exception
    assert any("No figures for this series" in i.value for i in at.info)
