"""The revision band and the first-published event study on the page (Streamlit's AppTest, bundled snapshot):
one switch, the permalink parameter, the Releases tab's revision tables."""
import io
import json
import re

import pandas as pd
from streamlit.testing.v1 import AppTest

from page import state
from tests.conftest import ROOT, open_trend_panels

SERIES = "ice_detention_stats.adp_total"


def app(query: dict) -> AppTest:
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    open_trend_panels(at)
    at.run()
    assert not at.exception, at.exception
    return at


def trend(at) -> dict:
    chart = next(c for c in at.get("plotly_chart") if "trend_chart" in (c.proto.id or ""))
    return json.loads(chart.proto.spec)


def bands(fig) -> list[dict]:
    """The band's hover points (each after its shaded shape)."""
    data = fig["data"]
    return [data[i + 1] for i, t in enumerate(data)
            if t.get("fill") == "toself" and re.fullmatch(r"s\d+", t.get("legendgroup", ""))]


def test_band_switch_and_link():
    at = app({"series": SERIES, "preset": "all"})
    assert at.checkbox(key="w_band").value is False and not bands(trend(at))
    at.checkbox(key="w_band").check()
    at.run()
    assert not at.exception, at.exception
    drawn = bands(trend(at))
    assert len(drawn) == 1 and any("last revised in the release of" in str(x) for x in drawn[0]["text"])
    assert at.query_params["band"] == "1"
    # The link opens with the band on, in Spanish too.
    again = app({"series": SERIES, "preset": "all", "band": "1", "lang": "es"})
    assert again.checkbox(key="w_band").value is True
    assert any("revisada por última vez" in str(x) for x in bands(trend(again))[0]["text"])


def test_study_as_first_published_and_releases_revisions():
    at = app({"series": SERIES, "tab": "study", "study": SERIES, "study_vintage": "first"})
    assert at.radio(key="w_study_vintage").value == "first"
    assert at.query_params["study_vintage"] == "first"
    at.radio(key="w_study_vintage").set_value("latest")
    at.run()
    assert not at.exception, at.exception
    assert "study_vintage" not in at.query_params
    at.session_state["tab"] = state.ROOMS[-1]
    at.run()
    assert not at.exception, at.exception
    heads = [s.value for s in at.subheader]
    assert "Revisions in each release" in heads and "Periods revised" in heads
    tables = [d.value for d in at.dataframe]
    assert any("values_revised" in t.columns for t in tables)
    assert any("last_revised" in t.columns and len(t) for t in tables)


def test_chart_csv_download_with_the_band_and_events(monkeypatch):
    """The page's "CSV" button with the band on and events in view: its file is made when clicked (a deferred
    download), so the callable the page registers is kept and run here, as a click would run it."""
    from streamlit.runtime.media_file_manager import MediaFileManager
    made = {}
    register = MediaFileManager.add_deferred

    def keep(self, fn, mimetype, coordinates, file_name=None, element_id=""):
        made[element_id.rsplit("-", 1)[-1]] = fn
        return register(self, fn, mimetype, coordinates, file_name=file_name, element_id=element_id)

    monkeypatch.setattr(MediaFileManager, "add_deferred", keep)
    app({"series": SERIES, "preset": "all", "band": "1"})
    text = made["dl_csv"]().decode("utf-8")
    body = pd.read_csv(io.StringIO(text), comment="#", dtype=str, keep_default_na=False)
    band = ["band_low", "band_high", "band_releases", "first_release", "last_revised"]
    assert (body["kind"] == "event").any() and (body.loc[body["kind"] == "event", band] == "").all().all()
    assert (body.loc[body["kind"] == "series", "band_low"] != "").any()
