"""The page under Streamlit's AppTest, on the bundled snapshot: every control changes what is shown."""
import datetime as dt
import json

import pytest
from streamlit.testing.v1 import AppTest

from charts import data as cdata
from tests.conftest import ROOT

SNAP = cdata.load_snapshot()


def app(query: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    return at


def trend(at) -> dict:
    charts = [c for c in at.get("plotly_chart") if "trend_chart" in (c.proto.id or "")] or at.get("plotly_chart")
    assert charts, "no chart on the page"
    return json.loads(charts[0].proto.spec)


def points(fig, i=0) -> list[tuple[str, float]]:
    """(x, y) pairs of a trace, without the blanks inserted where the line breaks."""
    import base64
    import numpy as np
    y = fig["data"][i]["y"]
    if isinstance(y, dict):
        y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"]).tolist()
    return [(x, v) for x, v in zip(fig["data"][i]["x"], y) if x and x != "NaT"]


def xs(fig, i=0):
    return [x for x, _ in points(fig, i)]


def ys(fig, i=0):
    return [v for _, v in points(fig, i)]


def rerun(at, key, value):
    w = at.get_widget(key) if hasattr(at, "get_widget") else None
    for kind in ("multiselect", "selectbox", "checkbox", "radio", "date_input", "text_input", "number_input"):
        try:
            el = getattr(at, kind)(key=key)
        except (KeyError, ValueError):
            continue
        el.set_value(value)
        at.run()
        assert not at.exception, at.exception
        return at
    raise AssertionError(f"no widget {key}")


def layout_text(fig) -> str:
    return json.dumps(fig["layout"])


def test_headlines_are_dated_and_sourced():
    at = app()
    labels = [m.label for m in at.metric]
    assert "People in ICE detention" in labels
    caps = " ".join(c.value for c in at.caption)
    assert "Data date" in caps and "Source:" in caps
    latest = cdata.series_rows(SNAP, "trac_detention.detained_total").iloc[-1]
    if "ice_detention_stats.detained_total" not in SNAP.by_series:
        assert at.metric[0].value == f"{latest['value']:,.0f}"


def test_default_view_draws_real_data_with_source_line():
    at = app()
    fig = trend(at)
    assert "Source:" in layout_text(fig) and "Generated on" in layout_text(fig)
    assert xs(fig) and min(xs(fig)) >= "2025-01"


def test_series_choice_changes_chart_and_url():
    at = app()
    rerun(at, "w_series", ["trac_detention.detained_ice", "trac_detention.detained_cbp"])
    fig = trend(at)
    names = [t.get("name") for t in fig["data"]]
    assert any("arrested by ICE" in (n or "") for n in names) and any("arrested by CBP" in (n or "") for n in names)
    assert at.query_params["series"] == "trac_detention.detained_ice,trac_detention.detained_cbp"


@pytest.mark.parametrize("preset, first", [("all", "2019-05-04"), ("calendar-year", "2026-")])
def test_presets_change_range(preset, first):
    at = app()
    rerun(at, "w_preset", preset)
    assert min(xs(trend(at))).startswith(first)


def test_custom_range_and_empty_state():
    at = app()
    rerun(at, "w_preset", "custom")
    rerun(at, "w_range", (dt.date(2019, 6, 1), dt.date(2019, 12, 31)))
    fig = trend(at)
    assert "2019-06-01 to 2019-12-31" in layout_text(fig)
    assert all("2019-06" <= x[:7] <= "2019-12" for x in xs(fig))
    rerun(at, "w_range", (dt.date(2019, 5, 5), dt.date(2019, 5, 10)))
    assert any("No figures" in i.value for i in at.info)


def test_per_day_and_monthly_granularity():
    at = app({"series": "trac_detention.book_ins_ice", "preset": "all", "per_day": "0"})
    totals = dict(points(trend(at)))
    rerun(at, "w_perday", True)
    per = dict(points(trend(at)))
    jan = next(k for k in per if k.startswith("2025-01-01"))
    assert per[jan] == pytest.approx(totals[jan] / 31)
    assert "per day" in layout_text(trend(at))


def test_log_fiscal_index_and_rolling_options():
    at = app({"preset": "all"})
    rerun(at, "w_log", True)
    assert trend(at)["layout"]["yaxis"]["type"] == "log"
    rerun(at, "w_fiscal", True)
    assert "FY2025" in trend(at)["layout"]["xaxis"]["ticktext"]
    rerun(at, "w_index_on", True)
    rerun(at, "w_index_at", dt.date(2025, 1, 20))
    fig = trend(at)
    pts = dict(points(fig))
    base = max(k for k in pts if k[:10] <= "2025-01-20")
    assert pts[base] == pytest.approx(100)
    assert "indexed to 100" in layout_text(fig)


def test_as_published_on_shows_older_view_and_revisions():
    at = app({"series": "trac_detention.book_ins_ice", "preset": "all"})
    rerun(at, "w_asof_on", True)
    rerun(at, "w_asof", dt.date(2024, 1, 1))
    fig = trend(at)
    assert max(xs(fig)) < "2024-01-02" and "as published on 2024-01-01" in layout_text(fig)
    assert any("Revisions published after 2024-01-01" in s.value for s in at.subheader)


def test_permalink_restores_view():
    q = {"series": "trac_detention.detained_cbp", "preset": "custom", "start": "2021-01-01", "end": "2021-12-31",
         "log": "1"}
    at = app(q)
    fig = trend(at)
    assert "arrested by CBP" in json.dumps(fig["data"][0]["name"])
    assert all(x[:4] == "2021" for x in xs(fig)) and fig["layout"]["yaxis"]["type"] == "log"
    assert at.multiselect(key="w_series").value == ["trac_detention.detained_cbp"]


def test_event_study_by_date():
    at = app()
    rerun(at, "w_study_series", "trac_detention.book_ins_ice")
    if at.selectbox(key="w_study_event").value != "(a date)":
        rerun(at, "w_study_event", "(a date)")
    rerun(at, "w_study_date", dt.date(2025, 6, 1))
    rerun(at, "w_study_days", 30)
    vals = {m.label: m.value for m in at.metric}
    before = float(vals["Mean per day, 30 days before"].replace(",", ""))
    rows = cdata.series_rows(SNAP, "trac_detention.book_ins_ice")
    may = rows[rows["date"] == "2025-05-01"].iloc[0]
    assert before == pytest.approx(may["value"] / 31, abs=0.1)  # May 2 to 31 all in May
    assert any("not causal" in c.value for c in at.caption)


def test_sources_tab_lists_manifest_files():
    at = app()
    frames = [d.value for d in at.dataframe]
    files = next(f for f in frames if "sha256" in f.columns)
    assert "pop_agen_table.json" in set(files["file"])
