"""The page keeps rendered views between reruns and sessions (page.context.rendered): a repeat of a view gets the
same render, and anything render() reads that differs (the view, the events in force) gets a fresh one that
draws what a direct render() draws."""
from __future__ import annotations

import datetime as dt

import plotly.io as pio

from analysis.view import View
from page import context
from views.compose import render


def _json(fig) -> str:
    return pio.to_json(fig, validate=False)


def test_a_repeated_view_is_rendered_once_and_draws_what_render_draws():
    page = context.load()
    events = context.bundled_events(page)
    view = View(preset="last-90-days")
    first = context.rendered(page, view, events)
    assert context.rendered(page, View(preset="last-90-days"), events) is first
    fresh = render(page.snap, view, events=events, reported=page.reported)
    assert _json(first.figure) == _json(fresh.figure)
    assert first.table.equals(fresh.table)


def test_another_view_or_other_events_render_afresh():
    page = context.load()
    events = context.bundled_events(page)
    base = context.rendered(page, View(), events)
    assert context.rendered(page, View(preset="all"), events) is not base
    # An upload gives the session a new events frame: its chart must not be one drawn with the old events.
    fewer = events[events["id"] != base.events.iloc[0]["id"]].reset_index(drop=True)
    other = context.rendered(page, View(), fewer)
    assert other is not base
    assert len(other.events) == len(base.events) - 1
    assert _json(other.figure) == _json(render(page.snap, View(), events=fewer, reported=page.reported).figure)


def test_values_kept_on_a_render_are_built_once():
    page = context.load()
    r = context.rendered(page, View(), context.bundled_events(page))
    calls = []
    assert r.memo("test_value", lambda: calls.append(1) or "built") == "built"
    assert r.memo("test_value", lambda: calls.append(1) or "again") == "built"
    assert calls == [1]


def test_view_facts_match_the_functions_they_keep():
    from analysis.coverage import empty_in_range
    from analysis.view import view_range
    page = context.load()
    for view in (View(), View(preset="fiscal-ytd"),
                 View(series=["trac_detention.book_ins_ice"], preset="custom", start=dt.date(2019, 5, 5),
                      end=dt.date(2019, 5, 10))):
        assert context.view_facts(page, view) == (view_range(page.snap, view), empty_in_range(page.snap, view))


def test_streamlit_does_not_collect_after_every_run_wherever_the_page_is_served():
    # Streamlit's full collection after every script run took most of a rerun's server time over the page's
    # long-lived objects (bench/bench_gc.py: about 14x the rerun's median with it on). Switched off in the
    # project's config (read by `make run` and every test server, which start from the checkout) and in the
    # Dockerfile's command.
    import json
    import subprocess
    import sys

    from tests.conftest import ROOT
    code = "from streamlit import config; print(config.get_option('runner.postScriptGC'))"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.stdout.strip() == "False", r.stderr[-500:]
    cmd = next(line for line in (ROOT / "Dockerfile").read_text("utf-8").splitlines() if line.startswith("CMD "))
    assert "--runner.postScriptGC=false" in json.loads(cmd[4:])


def test_the_other_presets_of_a_drawn_view_are_built_in_the_background_as_render_draws_them():
    # A preset drawn for the first time made the reader wait for its render; once a view is drawn, its other
    # presets are built by one background worker into the same store, and a later choice finds them drawn.
    from analysis.view import PRESETS
    page = context.load()
    events = context.bundled_events(page)
    view = View(series=["ice_detention_stats.detained_total"], preset="all")
    context.rendered(page, view, events)
    queued = context.prefetch(page, view, events)
    assert set(queued) <= set(PRESETS) - {"custom", "all"}
    context._PREFETCH.submit(lambda: None).result(timeout=120)  # the worker is done with what was queued before
    assert context.prefetch(page, view, events) == []  # nothing left to build
    for preset in set(PRESETS) - {"custom", "all"}:
        other = View(series=["ice_detention_stats.detained_total"], preset=preset)
        assert context.is_rendered(page, other, events)
        kept = context.rendered(page, other, events)
        fresh = render(page.snap, other, events=events, reported=page.reported)
        assert _json(kept.figure) == _json(fresh.figure) and kept.table.equals(fresh.table)


def test_the_page_cache_keys_read_only_inputs_by_identity_and_the_rest_by_value():
    """page.cache's one rule. A snapshot passed as ``_snap`` used to be left out of st.cache_resource's key, so a
    second snapshot got the first one's values; an argument that cannot be hashed is refused, never dropped."""
    import pandas as pd
    import pytest

    from page.cache import kept
    calls = []

    @kept(8)
    def size_of(frame, label, view=None):
        calls.append(label)
        return (len(frame), label)

    a, b = pd.DataFrame({"x": [1, 2]}), pd.DataFrame({"x": [1, 2]})
    assert size_of(a, "one") == (2, "one") and size_of(a, "one") == (2, "one")
    assert calls == ["one"]
    size_of(b, "one")  # equal contents, another object: built again, never matched to a's entry
    size_of(a, "two")
    size_of(a, "one", view=View(preset="all"))
    size_of(a, "one", view=View(preset="all"))
    assert calls == ["one", "one", "two", "one"]
    with pytest.raises(TypeError, match="argument 'view'.*list"):
        size_of(a, "one", view=[1, 2])
    size_of.clear()
    size_of(a, "one")
    assert calls[-1] == "one" and len(calls) == 5


def test_a_second_snapshot_gets_its_own_headlines_and_ledger():
    from loaders import data as cdata
    from page import headlines, releases_view
    one, two = context.snapshot(), cdata.load_snapshot(context.DATA)
    day = dt.date(2026, 12, 1)
    assert headlines.headline_figures(one, day) is headlines.headline_figures(one, day)
    assert headlines.headline_figures(two, day) is not headlines.headline_figures(one, day)
    assert releases_view._status(two, day) is not releases_view._status(one, day)


def test_a_places_view_is_built_once_and_its_join_counts_by_identity():
    """The Places tab reran every map (40-70 ms) on each choice in it; each view is now kept like a trend render,
    with the facility join keyed as the read-only object it is (its repr would print whole frames)."""
    from page import places_page
    from views.places import PlacesView
    snap = context.snapshot()
    pl = places_page._places_data(snap)
    first = places_page._drawn(snap, pl, PlacesView(map="state"), "en", ",")
    assert places_page._drawn(snap, pl, PlacesView(map="state"), "en", ",") is first
    assert places_page._drawn(snap, pl, PlacesView(map="state"), "es", ".") is not first
    assert places_page._drawn(snap, pl, PlacesView(map="facilities"), "en", ",") is not first
