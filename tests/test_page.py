"""The page under Streamlit's AppTest, on the bundled snapshot: every control changes what is shown."""
import datetime as dt
import json
import re

import pytest
from streamlit.testing.v1 import AppTest

from loaders import data as cdata
from page import state
from tests import bundled
from tests.conftest import ROOT, open_trend_panels

SNAP = bundled.snapshot()


def app(query: dict | None = None, panels: bool = True) -> AppTest:
    """The page as opened by the link ``query``; ``panels``: with the trends tab's lazy sections open."""
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    if panels:
        open_trend_panels(at)
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
    for kind in ("multiselect", "selectbox", "segmented_control", "checkbox", "radio", "date_input", "text_input",
                 "number_input"):
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
    cards = " ".join(m.value for m in at.markdown)
    assert "People in ICE detention" in cards
    # The dates and the source in full are in each card's popover, one click away.
    details = " ".join(t.value for t in at.text)
    assert "Data date" in details and "Source:" in details
    latest = cdata.series_rows(SNAP, "trac_detention.detained_total").iloc[-1]
    if "ice_detention_stats.detained_total" not in SNAP.by_series:
        assert f"**{latest['value']:,.0f}** people".replace(",", "\\,") in cards


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
    at = app({"series": "trac_detention.detained_total"})
    rerun(at, "w_preset", preset)
    assert min(xs(trend(at))).startswith(first)


def test_custom_range_and_empty_state():
    at = app({"series": "trac_detention.detained_total"})
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


def open_tab(at, label: str) -> AppTest:
    """Rooms are lazy (only the open one is built): open one, by its label in any language, as a click would."""
    at.session_state["tab"] = state.TAB_NAMES[label]
    at.run()
    assert not at.exception, at.exception
    return at


def test_only_the_open_tab_is_built():
    at = app()
    assert not any(m.label.startswith("Mean per day") for m in at.metric)
    open_tab(at, "Event study")
    assert any(m.label.startswith("Mean per day") for m in at.metric)
    assert not [c for c in at.get("plotly_chart") if "trend_chart" in (c.proto.id or "")]


def test_event_study_by_date():
    at = open_tab(app(), "Event study")
    rerun(at, "w_study_series", "trac_detention.book_ins_ice")
    if at.selectbox(key="w_study_event").value != "(a date)":
        rerun(at, "w_study_event", "(a date)")
    rerun(at, "w_study_date", dt.date(2025, 6, 1))
    rerun(at, "w_study_days", 30)
    vals = {m.label: m.value for m in at.metric}
    # A monthly series is compared in whole months, and says so: May against June for 1 June.
    before = float(vals["Mean per day, 1 whole month before"].replace(",", ""))
    after = float(vals["Mean per day, 1 whole month after"].replace(",", ""))
    rows = cdata.series_rows(SNAP, "trac_detention.book_ins_ice").set_index("date")
    assert before == pytest.approx(rows.loc["2025-05-01", "value"] / 31, abs=0.1)
    assert after == pytest.approx(rows.loc["2025-06-01", "value"] / 30, abs=0.1)
    assert any("not causal" in c.value for c in at.caption)
    assert any("whole month before against 1 whole month after" in c.value for c in at.caption)
    table = next(d.value for d in at.dataframe if "comparison" in d.value.columns)
    assert "months with data (before/after)" in table.columns
    # The study's settings are in the address bar, and a link with them opens the same study.
    q = {k: at.query_params[k] for k in ("study", "study_event", "study_date")}
    assert q == {"study": "trac_detention.book_ins_ice", "study_event": "(a date)", "study_date": "2025-06-01"}
    again = open_tab(app(q), "Event study")
    assert {m.label: m.value for m in again.metric} == vals


def test_sources_tab_lists_manifest_files():
    at = open_tab(app(), "Sources and methods")
    frames = [d.value for d in at.dataframe]
    files = next(f for f in frames if "sha256" in f.columns)
    assert "pop_agen_table.json" in set(files["file"])


def event_numbers(fig) -> list[str]:
    """Every event number on the chart's markers (a marker holds one event or a run of close ones)."""
    tr = [t for t in fig["data"] if t.get("yaxis") == "y9" and t.get("name") == "Events"]
    return [str(n) for group in tr[0]["customdata"] for n in group] if tr else []


def test_event_categories_and_text_filter_follow_on_chart_and_table():
    at = app({"preset": "since-2025-01-20"})
    default = event_numbers(trend(at))
    legend = next(d.value for d in at.dataframe if "category" in d.value.columns and "number" in d.value.columns)
    assert len(default) == len(legend) > 0
    cats = set(legend["category"].str.lower())
    assert cats <= {"personnel", "policy", "funding", "operation", "court / legal"}
    assert len(cats) >= 4  # operations and court orders are shown by default
    assert any("Hott" in t for t in legend["title"])
    rerun(at, "w_cats", ["personnel"])
    only = event_numbers(trend(at))
    legend = next(d.value for d in at.dataframe if "number" in d.value.columns)
    assert len(only) == len(legend) < len(default) and set(legend["category"].str.lower()) == {"personnel"}
    rerun(at, "w_evtext", "Vitello")
    legend = next(d.value for d in at.dataframe if "number" in d.value.columns)
    assert len(legend) >= 1 and all("Vitello" in (t + d)
                                    for t, d in zip(legend["title"], legend.get("description", legend["title"])))
    rerun(at, "w_events", False)
    assert event_numbers(trend(at)) == []


def test_reported_figures_toggle():
    at = app()
    names = [t.get("name") for t in trend(at)["data"]]
    assert "Reported counts and estimates (not official series)" in names
    rerun(at, "w_reported", False)
    assert "Reported counts and estimates (not official series)" not in [t.get("name") for t in trend(at)["data"]]


def test_weekly_and_rolling_on_a_daily_series():
    at = app({"series": "ddp_facility_daily.detained_midnight", "preset": "custom", "start": "2025-01-01",
              "end": "2025-03-31"})
    daily = points(trend(at))
    assert len(daily) >= 89
    rerun(at, "w_roll", 7)
    rolled = dict(points(trend(at)))
    d = dict(daily)
    key = next(k for k in rolled if k.startswith("2025-02-15"))
    window = [v for k, v in d.items() if "2025-02-09" <= k[:10] <= "2025-02-15"]
    assert rolled[key] == pytest.approx(sum(window) / 7)
    rerun(at, "w_roll", 0)
    rerun(at, "w_gran", "weekly")
    weekly = points(trend(at))
    assert 12 <= len(weekly) <= 14 and "weekly averages" in layout_text(trend(at))


def test_index_at_an_event():
    at = app({"series": "trac_detention.detained_total", "preset": "all"})
    rerun(at, "w_index_on", True)
    ev = at.selectbox(key="w_index_event")
    hott = next(o for o in ev.options if o and "hott" in o.lower())
    rerun(at, "w_index_event", hott)
    fig = trend(at)
    assert re.search(r"indexed to 100 at \d+ February 2025", layout_text(fig))
    pts = dict(points(fig))
    base = max(k for k in pts if k[:10] <= "2025-02-11")
    assert pts[base] == pytest.approx(100)
    assert at.query_params["index_event"].startswith("2025-02-11-ero-chief")


def test_upload_bad_events_lists_rejected_rows_and_adds_good_ones():
    at = app({"categories": "all"})
    bad = ("id,date,date_precision,title,category,description,source_name,source_url\n"
           "ok-1,2025-04-01,exact,My newsroom's own event,policy,Added by a reader,Newsroom,https://example.org/x\n"
           "bad-1,2025-13-40,exact,Bad date,policy,,Newsroom,https://example.org/y\n"
           "bad-2,2025-04-02,exact,Unknown category,rumour,,Newsroom,https://example.org/z\n"
           "bad-3,2025-04-03,exact,Script link,policy,,Newsroom,javascript:alert(1)\n"
           "bad-4,2025-04-04,exact,=HYPERLINK(\"http://x\"),policy,,Newsroom,https://example.org/w\n").encode()
    at.file_uploader(key="w_upload").set_value(("mine.csv", bad, "text/csv"))
    at.run()
    assert not at.exception
    assert any("1 event accepted" in s.value and "4 rows rejected" in s.value for s in at.success)
    rej = next(d.value for d in at.dataframe if list(d.value.columns)[:3] == ["row", "field", "reason"])
    assert set(rej["row"]) == {3, 4, 5, 6} and {"date", "category", "source_url", "title"} <= set(rej["field"])
    legend = next(d.value for d in at.dataframe if "number" in d.value.columns)
    assert "My newsroom's own event" in set(legend["title"])


def test_choices_survive_a_visit_to_another_tab():
    at = app({"series": "trac_detention.detained_cbp", "preset": "all", "log": "1"})
    open_tab(at, "Sources and methods")
    open_tab(at, "Trends and events")
    assert at.multiselect(key="w_series").value == ["trac_detention.detained_cbp"]
    assert trend(at)["layout"]["yaxis"]["type"] == "log"
    assert at.query_params["series"] == "trac_detention.detained_cbp"


def test_chart_has_alt_text_from_the_data():
    at = app()
    chart = next(c for c in at.get("plotly_chart") if "trend_chart" in (c.proto.id or ""))
    assert chart.proto.alt.startswith("Line chart, 20 January 2025 to ") and "events marked" in chart.proto.alt
    assert any(chart.proto.alt == getattr(c, "value", None) for c in at.get("code"))  # offered for copying


def _all_elements(node) -> list:
    kids = getattr(node, "children", None)
    out = [node]
    if isinstance(kids, dict):
        for c in kids.values():
            out += _all_elements(c)
    return out


def test_as_published_prints_nothing_internal_and_leaves_unversioned_series_out():
    # Issue #16: the revisions line was an expression statement, so Streamlit's "magic" wrote the
    # DeltaGenerator's help onto the page; and a source with no release dates was drawn to July 2026.
    at = app({"series": "ice_detention_stats.adp_ice,ddp_arrests_aggregates.monthly_national_chart_data",
              "preset": "all", "as_of": "2025-10-01"})
    nodes = _all_elements(at._tree)
    assert not [n for n in nodes if getattr(n, "type", "") == "help_info"]
    assert not [n for n in nodes if "DeltaGenerator" in str(getattr(n, "proto", ""))]
    fig = trend(at)
    for i, t in enumerate(fig["data"]):
        if t.get("x"):
            assert not [x for x, _ in points(fig, i) if x[:10] > "2025-10-01"], t.get("name")
    kut = [i for i, t in enumerate(fig["data"]) if "KUT News" in json.dumps(t.get("name", ""))]
    assert all(not points(fig, i) for i in kut)  # no figure of the unversioned series is drawn
    note = next(i.value for i in at.info if i.value.startswith("Not versioned"))
    assert "2025-10-01" in note and "KUT News" in note


@pytest.mark.parametrize("preset,first", [("last-90-days", lambda last: last - dt.timedelta(days=89)),
                                          ("fiscal-ytd", lambda last: dt.date(last.year - (last.month < 10), 10, 1))])
def test_presets_say_they_count_from_the_end_of_the_data(preset, first):
    # Issue #16: "last 90 days" and "fiscal year to date" count from the series' latest figure, not from
    # today, and the picker did not say so.
    sid = "trac_detention.book_ins_ice"
    at = app({"series": sid, "preset": preset})
    last = cdata.series_rows(SNAP, sid)["end"].max().date()
    text = next(c.value for c in at.caption if "not from today" in c.value)
    assert f"latest figure of the chosen series ({last})" in text and f"{first(last)} to {last}" in text


def test_the_open_tab_is_in_the_address_bar_and_a_link_opens_it():
    # Issue #16: the open tab was not in the URL, so a link to the event study opened the trends tab.
    at = app()
    assert "tab" not in at.query_params
    open_tab(at, "Sources and methods")
    assert at.query_params["tab"] == "sources"
    open_tab(at, "Event study")
    assert at.query_params["tab"] == "study" and at.query_params["study"]
    again = app({k: at.query_params[k] for k in at.query_params})
    assert any(m.label.startswith("Mean per day") for m in again.metric)
    assert not [c for c in again.get("plotly_chart") if "trend_chart" in (c.proto.id or "")]
    open_tab(again, "Trends and events")
    assert "tab" not in again.query_params and trend(again)
    # An unknown tab name opens the first tab.
    assert trend(app({"tab": "nonsense"}))


def test_the_rooms_are_one_switcher_not_tab_panels_and_a_language_change_keeps_the_room():
    # st.tabs wrapped each room in a tab panel that watches every change inside it for a focusable element; the
    # browser recomputed styles at each, and a chart update in the trends room took about a quarter longer
    # (BENCHMARKS.md). The rooms are one segmented control keyed "tab" whose value is the room's name.
    at = app()
    assert not at.tabs
    switcher = [b for b in at.get("button_group") if b.proto.id.endswith("-tab")]
    assert [o.content for o in switcher[0].proto.options] == state.tab_labels("en")
    assert at.session_state["tab"] == "trends" and trend(at)
    open_tab(at, "Event study")
    at.radio(key="w_lang").set_value("es").run()
    assert not at.exception, at.exception
    assert at.session_state["tab"] == "study" and at.query_params["tab"] == "study"
    assert any(m.label.startswith("Promedio por día") for m in at.metric)
    switcher = [b for b in at.get("button_group") if b.proto.id.endswith("-tab")]
    assert [o.content for o in switcher[0].proto.options] == state.tab_labels("es")


def test_a_range_without_data_for_a_series_says_when_it_starts_and_offers_its_range():
    # Issue #16: a view whose range held no figures for a chosen series drew a blank chart and said nothing.
    cbp = "cbp_encounters.swb_total"
    rows = cdata.series_rows(SNAP, cbp)
    first, last = rows["date"].min().date(), rows["end"].max().date()
    at = app({"series": f"trac_detention.book_ins_ice,{cbp}", "preset": "custom", "start": "2020-01-01",
              "end": "2020-12-31"})
    shown = [w.value.replace("\\", "") for w in at.info]  # the page escapes Markdown in data text
    warning = next(w for w in shown if w.startswith("No figures between 2020-01-01 and 2020-12-31"))
    assert f"starts {first}" in warning and "southwest land border" in warning
    at.button(key="w_range_fix").click().run()
    assert not at.exception, at.exception
    assert at.segmented_control(key="w_preset").value == "custom"
    assert tuple(at.date_input(key="w_range").value) == (first, last)
    assert not [w for w in at.info if w.value.startswith("No figures between")]
    fig = trend(at)
    i = next(i for i, t in enumerate(fig["data"]) if "southwest land border" in json.dumps(t.get("name", "")))
    assert xs(fig, i) and all(str(first) <= x[:10] <= str(last) for x in xs(fig, i))


def test_the_trends_tabs_side_sections_are_built_only_when_opened():
    # A change of the date range resent every element of the tab, and the browser redrew them: about 80, most
    # inside closed expanders or under the chart. Closed, a section sends only its label.
    at = app(panels=False)
    assert not at.dataframe, "the events table and the data are built only when their sections are open"
    assert not at.code and not at.get("download_button"), "the exports are built only when their section is open"
    assert not [w for w in at.checkbox if w.key == "w_log"], "chart options are built only when open"
    labels = [e.label for e in at.expander]
    assert any("numbered as on it, with their sources" in lb for lb in labels)
    assert any(lb.startswith("Export this chart") for lb in labels)
    open_trend_panels(at).run()
    assert not at.exception, at.exception
    assert any("number" in d.value.columns for d in at.dataframe)  # the events table
    assert any("Compiled with" in c.value for c in at.code)  # the citation
    assert [w for w in at.checkbox if w.key == "w_log"]


def test_a_choice_inside_a_closed_section_outlives_the_runs_that_do_not_draw_it():
    at = app({"preset": "all"}, panels=False)
    at.session_state["x_options"] = True
    at.run()
    rerun(at, "w_log", True)
    at.session_state["x_options"] = False  # the reader closes the chart options
    at.run()
    assert not [w for w in at.checkbox if w.key == "w_log"]
    rerun(at, "w_preset", "last-90-days")  # a fragment run that does not draw the log-scale box
    assert trend(at)["layout"]["yaxis"]["type"] == "log"
    at.session_state["x_options"] = True
    at.run()
    assert next(w for w in at.checkbox if w.key == "w_log").value is True


def test_a_reconnected_page_is_stopped_only_when_another_server_process_drew_it():
    """page/browser.py: after a lost connection the browser names the server process that drew its page. Only a
    name that is not this process's stops the run (the browser then loads the page again); no name (an ordinary
    run), this process's own name, or anything that is not a name lets the run go on."""
    from page import browser
    assert browser.drawn_elsewhere("0" * 32) and browser.drawn_elsewhere("another-process")
    assert not browser.drawn_elsewhere(browser.SERVER)
    for nothing in (None, "", 0, 1, {"server": "x"}, ["x"]):
        assert not browser.drawn_elsewhere(nothing)
    assert len(browser.SERVER) == 32 and browser.SERVER != "0" * 32
