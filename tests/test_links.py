"""Any link renders (issue 14, items 4 and 10): a permalink's view is checked once, by ``view_from_link``,
for the page and ``python -m charts export`` alike; what cannot be drawn as asked is adjusted and said."""
from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from analysis import view as V
from charts.__main__ import build_parser, main
from loaders import data as cdata
from loaders.events import load_events
from tests import bundled
from tests.conftest import ROOT
from views import link as L

SNAP = bundled.snapshot()
EVENTS = load_events(cdata.DATA / "events.csv", ROOT / "tests" / "no-local-events.csv")
TODAY = dt.date(2026, 12, 1)
LO, HI = V.data_bounds(SNAP, TODAY)
S = "trac_detention.detained_total"


def link(**q):
    return L.view_from_link(q, SNAP, events=EVENTS, today=TODAY)


# ------------------------------------------------------------------------------------- the check

def test_bounds_are_the_first_data_date_and_today():
    assert SNAP.obs["date"].min().date() == LO and dt.date(2000, 1, 1) > LO
    assert max(TODAY, SNAP.obs["end"].max().date()) == HI


def test_a_start_before_the_data_is_clamped_with_a_note():
    v, notes = link(series=S, preset="custom", start="1999-09-30", end="2025-01-01")
    assert (v.start, v.end) == (max(LO, dt.date(1999, 9, 30)), dt.date(2025, 1, 1))
    assert v.start == LO  # the data begin 1999-10-01, after the link's start
    assert notes == [f"The link's start date 1999-09-30 is before the data begin; using {LO}, the first date "
                     "in the data."]


def test_an_end_after_today_is_clamped_with_a_note():
    v, notes = link(series=S, preset="custom", start="2025-01-01", end="2031-01-01")
    assert (v.start, v.end) == (dt.date(2025, 1, 1), HI)
    assert notes == [f"The link's end date 2031-01-01 is after today; using {HI}."]


def test_a_range_wholly_outside_and_a_reversed_range():
    v, notes = link(series=S, preset="custom", start="2040-01-01", end="2041-01-01")
    assert v.start == v.end == HI and len(notes) == 2
    v, notes = link(series=S, preset="custom", start="2025-06-01", end="2025-01-01")
    assert (v.start, v.end) == (dt.date(2025, 1, 1), dt.date(2025, 6, 1)) and "swapped" in notes[0]


def test_a_custom_range_with_one_end_runs_to_today():
    v, notes = link(series=S, preset="custom", start="2025-03-01")
    assert (v.start, v.end) == (dt.date(2025, 3, 1), HI) and "no end date" in notes[0]
    v, _ = link(series=S, start="2025-03-01")  # not custom: the dates are unused, as before
    assert v.preset == "since-2025-01-20"


def test_a_link_inside_the_bounds_is_left_alone_and_says_nothing():
    v, notes = link(series=S, preset="custom", start="2025-01-01", end="2025-06-30", index_event="")
    assert notes == [] and (v.start, v.end) == (dt.date(2025, 1, 1), dt.date(2025, 6, 30))
    assert link()[1] == []


def test_unknown_series_members_and_reported_figures_are_left_out_with_a_note():
    big = next(s for s in SNAP.series_ids() if SNAP.info(s)["breakdown"] and "" not in SNAP.keys(s))
    v, notes = link(series=f"nope.nope,{S},{big}|No such member,{big},reported_figures.removals")
    assert v.series == [S]
    assert len(notes) == 1
    for words in ("'nope.nope' (not in this snapshot)", "no member 'No such member'", "name a member",
                  "a reported figure"):
        assert words in notes[0]


def test_an_unknown_index_event_is_dropped_not_turned_into_another_date():
    v, notes = link(series=S, index_event="no-such-event")
    assert v.index_event == "" and v.index_at is None
    assert "not among the events here; the chart is not indexed" in notes[0]
    known = EVENTS["id"].iloc[0]
    assert link(series=S, index_event=known)[0].index_event == known


def test_unknown_categories_are_dropped_with_a_note():
    v, notes = link(categories="policy,gossip")
    assert v.categories == ["policy"] and "'gossip'" in notes[0]
    v, notes = link(categories="gossip")
    assert v.categories == list(V.DEFAULT_CATEGORIES) and "showing " + ", ".join(V.DEFAULT_CATEGORIES) in notes[0]


def test_malformed_values_fall_back_with_a_note():
    v, notes = link(preset="bogus", rolling="13", start="not-a-date", granularity="hourly", series=S)
    assert (v.preset, v.rolling, v.start, v.granularity) == ("since-2025-01-20", 0, None, "native")
    text = " ".join(notes)
    for words in ("'not-a-date' is not a date", "Unknown date range 'bogus'", "Unknown granularity 'hourly'",
                  "13 days is not offered"):
        assert words in text
    v, notes = link(series=",".join([S] * 13))
    assert "only the first 12" in notes[0] and v.series == [S]


# --------------------------------------------------------------------------------------- the page

ISSUE_LINKS = [
    {"preset": "custom", "start": "1999-09-30", "end": "2025-01-01"},
    {"preset": "custom", "start": "2025-01-01", "end": "2031-01-01"},
    {"series": S, "index_event": "no-such-event", "index_at": ""},
    {"series": f"nope.nope,{S}"},
    {"series": "nope.nope"},
    {"categories": "gossip", "preset": "custom", "start": "2031-01-01", "end": "1980-01-01"},
]


@pytest.mark.parametrize("query", ISSUE_LINKS)
def test_every_issue_link_renders_on_the_page_with_its_notes(query):
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, at.exception
    assert [c for c in at.get("plotly_chart")], "no chart drawn"
    expected, notes = L.view_from_link(query, SNAP, events=EVENTS)
    shown = [i.value.replace("\\", "") for i in at.info]
    for note in notes:
        assert note in shown
    if "series" in query and not expected.series:
        assert "None of the link's series can be drawn; showing the default series." in shown
    if query.get("preset") == "custom":  # the address bar now holds the range actually drawn
        assert at.query_params["start"] == str(expected.start) and at.query_params["end"] == str(expected.end)
    if "index_event" in query:  # not silently indexed at another date
        assert "index_at" not in at.query_params and "index_event" not in at.query_params


def test_dates_of_a_non_custom_link_never_reach_the_date_picker():
    v, notes = link(series=S, start="1990-01-01", end="2040-01-01")
    assert (v.start, v.end, notes) == (None, None, [])
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60)
    at.query_params.update({"series": S, "start": "1990-01-01", "end": "2040-01-01"})
    at.run()
    at.segmented_control(key="w_preset").set_value("custom")
    at.run()
    assert not at.exception, at.exception
    lo, hi = at.date_input(key="w_range").value
    assert LO <= lo <= hi <= V.data_bounds(SNAP)[1]


def test_the_notes_go_once_the_reader_changes_the_view():
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60)
    at.query_params["series"] = f"nope.nope,{S}"
    at.session_state["x_options"] = True  # the chart options, built only while open
    at.run()
    assert any("nope.nope" in i.value.replace("\\", "") for i in at.info)
    at.checkbox(key="w_log").set_value(True)
    at.run()
    assert not at.exception
    assert not any("nope.nope" in i.value.replace("\\", "") for i in at.info)


# ------------------------------------------------------------------------------------ the command line

def cli(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "charts", "export", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)


def test_the_cli_draws_the_same_checked_view_and_prints_the_notes(tmp_path):
    out = tmp_path / "v.csv"
    q = f"series={S},nope.nope&preset=custom&start=1999-09-30&end=2031-01-01&index_event=no-such-event"
    r = cli("--query", q, "--out", str(out))
    assert r.returncode == 0, r.stderr
    today = dt.date.today()
    _, notes = L.view_from_link(dict(p.split("=") for p in q.split("&")), SNAP, events=EVENTS, today=today)
    assert [ln for ln in r.stderr.splitlines() if ln.startswith("note: ")] == [f"note: {n}" for n in notes]
    lo, hi = V.data_bounds(SNAP, today)
    assert f"{lo} to {hi}" in r.stdout


def test_the_cli_refuses_a_link_with_no_drawable_series(tmp_path):
    r = cli("--query", "series=nope.nope", "--out", str(tmp_path / "v.csv"))
    assert r.returncode == 2
    assert r.stderr.splitlines()[-1] == "error: unknown series nope.nope; see data/snapshot/series.csv for ids"


def test_build_parser_knows_every_documented_option():
    ap = build_parser()
    args = ap.parse_args(["export", "--series", S, "--out", "x.png", "--index-event", "e", "--no-events"])
    assert (args.cmd, args.series, args.index_event, args.no_events) == ("export", S, "e", True)


@pytest.fixture
def a_file(tmp_path):
    f = tmp_path / "plain-file"
    f.write_text("x")
    return f


@pytest.mark.parametrize("make_out, words", [
    (lambda tmp, f: tmp, "is a folder; give a file name"),
    (lambda tmp, f: f / "x.csv", "is a file, not a folder"),
    (lambda tmp, f: f / "deeper" / "x.csv", "is a file, not a folder"),
    (lambda tmp, f: "/proc/x.csv", "cannot write /proc/x.csv: "),
    (lambda tmp, f: "/dev/full", "cannot write /dev/full: No space left on device"),
])
def test_cli_output_path_errors_are_one_clear_line(tmp_path, a_file, make_out, words):
    out = str(make_out(tmp_path, a_file))
    if out.startswith("/proc") and not os.path.isdir("/proc") or out == "/dev/full" and not os.path.exists(out):
        pytest.skip(f"{out} does not exist on this system")
    r = cli("--series", S, "--preset", "all", "--format", "csv", "--out", out)
    assert r.returncode in (1, 2)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and words in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert a_file.read_text() == "x"
    assert not list(tmp_path.glob("**/*.part"))


def test_cli_writes_atomically_and_replaces_an_old_file(tmp_path, capsys):
    out = tmp_path / "v.csv"
    out.write_text("old")
    assert main(["export", "--series", S, "--preset", "all", "--out", str(out)]) == 0
    assert out.read_text().startswith("#") and not list(tmp_path.glob("*.part"))
