"""The link format lives in one module (``views.link``, issue 41): every parameter a permalink carries (the
trends view, Places, the event study, the language and separators, the open tab) is read and written there, and
nothing else in the project parses a query string."""
from __future__ import annotations

import datetime as dt
import re

import pytest

from analysis.view import View
from tests.conftest import ROOT
from views import link
from views.places import PlacesView

PACKAGES = ("loaders", "analysis", "figures", "wording", "views", "charts", "page")


def test_only_the_link_module_parses_a_query_string():
    parsers = sorted(str(p.relative_to(ROOT)) for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py")
                     if re.search(r"\bparse_qsl?\b", p.read_text(encoding="utf-8")))
    assert parsers == ["views/link.py"], parsers


@pytest.mark.parametrize("text", [
    "https://example.org/dash?series=a.b&preset=all&lang=es",
    "/dash?series=a.b&preset=all&lang=es",
    "?series=a.b&preset=all&lang=es",
    "series=a.b&preset=all&lang=es",
    "  series=x.y&series=a.b&preset=all&lang=es\n",  # the last of a repeated parameter counts
])
def test_a_permalink_in_any_form_gives_the_same_parameters(text):
    assert link.query_of(text) == {"series": "a.b", "preset": "all", "lang": "es"}


def test_a_trends_view_round_trips_and_defaults_stay_out_of_the_link():
    v = View(series=["a.b", "c.d|k"], preset="custom", start=dt.date(2025, 2, 1), end=dt.date(2025, 3, 1),
             rolling=7, per_day=False, categories=[], lang="es", sep=".")
    q = link.trends_to_query(v)
    assert q["categories"] == "all" and q["per_day"] == "0" and q["start"] == "2025-02-01" and "granularity" not in q
    assert link.trends_from_query(q) == v
    assert link.trends_to_query(View()) == {}


def test_a_malformed_trends_link_falls_back_and_says_so_in_its_language():
    v, notes = link.trends_from_query_noted({"lang": "es", "preset": "nope", "start": "2025-13-01", "rolling": "5"})
    assert (v.preset, v.start, v.rolling, v.lang) == ("since-2025-01-20", None, 0, "es")
    assert len(notes) == 3 and all("nope" in n or "2025-13-01" in n or "5" in n for n in notes)


def test_a_places_view_round_trips_and_junk_falls_back():
    v = PlacesView(map="deaths-state", start=dt.date(2025, 1, 1), end=dt.date(2025, 6, 30), death="12")
    assert link.places_from_query(link.places_to_query(v)) == v
    junk = link.places_from_query({"map": "<b>", "state": "zz", "facility": "<script>", "death": "x"})
    assert junk == PlacesView()


def test_the_study_settings_round_trip_through_the_link():
    q = link.study_to_query("a.b", link.DATE_CHOICE, dt.date(2025, 2, 11), "first", 60)
    assert q == {"study": "a.b", "study_event": link.DATE_CHOICE, "study_date": "2025-02-11",
                 "study_vintage": "first", "study_days": "60"}
    assert link.study_from_query(q, ["a.b"]) == {"series": "a.b", "event": link.DATE_CHOICE,
                                                 "date": dt.date(2025, 2, 11), "vintage": "first", "days": 60}
    # Defaults stay out; unknown series, vintages and malformed numbers are left out, days are clamped.
    assert link.study_to_query(None, "ev1", None, "latest", link.DEFAULT_STUDY_DAYS) == {"study_event": "ev1"}
    assert link.study_from_query({"study": "x.y", "study_vintage": "old", "study_days": "9999"}, ["a.b"]) == {"days": 365}
    assert link.study_from_query({"study_days": "many", "study_date": "2025-02-11"}, []) == {}


def test_the_open_tab_and_the_language_read_as_written():
    for room in link.ROOMS:
        assert link.tab_from_query(link.tab_to_query(room)) == room
    assert link.tab_to_query(link.ROOMS[0]) == {} and link.tab_from_query({"tab": "attic"}) == link.ROOMS[0]
    assert link.tab_from_query({"view": "places"}) == "places"
    assert link.lang_from_query(link.lang_to_query("es", ".")) == ("es", ".")
    assert link.lang_to_query("en", ",") == {} and link.lang_from_query({"lang": "xx", "sep": ";"}) == ("en", ",")
