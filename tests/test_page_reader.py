"""What a reader meets on the page (issue 26): the events table in words, a custom range that ends where the
data end, links that keep the language, the frequency control that says what it cannot change, and headline
cards that are one sentence to quote. Streamlit's AppTest on the bundled snapshot."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, open_trend_panels


def app(query: dict | None = None, panels: tuple[str, ...] = ()) -> AppTest:
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=120)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    open_trend_panels(at, panels)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def events_table(at: AppTest):
    """The events table under the chart: (its frame, its column settings as the browser gets them)."""
    for d in at.dataframe:
        frame = d.value
        if "number" in frame.columns and "title" in frame.columns:
            return frame, json.loads(d.proto.columns or "{}")
    raise AssertionError("no events table on the page")


@pytest.mark.parametrize("lang, words", [("en", ("Date precision", "Category", "Source")),
                                         ("es", ("Precisión de la fecha", "Categoría", "Fuente"))])
def test_the_events_table_shows_reader_labels_not_field_names(lang, words):
    at = app({"lang": lang}, panels=("x_events_legend",))
    frame, columns = events_table(at)
    labels = {c: (columns.get(c) or {}).get("label") for c in frame.columns}
    raw = [c for c, label in labels.items() if not label or label == c]
    assert not raw, f"columns shown under their field names: {raw}"
    shown = " | ".join(labels.values())
    for w in words:
        assert w in shown, shown
    # The precision is a word of the reader's language too, not the file's code.
    precision = set(frame["date_precision"])
    assert precision and not precision & ({"exacta", "aproximada"} if lang == "en" else {"exact", "approximate"})


def open_room(at: AppTest, room: str) -> AppTest:
    """Open a room (tab) by its name, as a click on the switcher would."""
    at.session_state["tab"] = room
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


@pytest.mark.parametrize("room", ["places", "sources", "releases", "study", "trends"])
def test_every_room_keeps_the_spanish_language_and_separators_in_its_link(room):
    # A Spanish reader on Places copied the address bar and sent an English page: the room rewrote the link
    # from its own view, without lang=es.
    at = app({"lang": "es", "sep": ".", **({"tab": room} if room != "trends" else {})})
    assert at.session_state["tab"] == room
    q = {k: at.query_params[k] for k in at.query_params}
    assert q.get("lang") == "es" and q.get("sep") == ".", q
    # Opened, the link shows the same room in Spanish.
    again = app(q)
    assert again.session_state["tab"] == room and again.session_state["w_lang"] == "es"


@pytest.mark.parametrize("room", ["sources", "places"])
def test_a_language_chosen_in_any_room_goes_into_the_link_and_english_leaves_it_out(room):
    at = app({"tab": room})
    at.radio(key="w_lang").set_value("es").run()
    assert at.query_params.get("lang") == "es" and at.query_params.get("tab") == room
    at.radio(key="w_lang").set_value("en").run()
    assert "lang" not in at.query_params and at.query_params.get("tab") == room


def test_a_custom_range_starts_as_the_range_shown_and_ends_at_the_last_data_date_not_today():
    # "Custom range" set its end to today, four months past the data.
    from analysis.view import View, view_range
    from loaders import data as cdata
    at = app()
    series = list(at.session_state["w_series"])
    lo, hi, _, last = view_range(cdata.load_snapshot(), View(series=series))
    at.segmented_control(key="w_preset").set_value("custom").run()
    assert not at.exception
    assert tuple(at.date_input(key="w_range").value) == (lo, hi) and hi == last
    assert at.query_params.get("end") == last.isoformat()


def gran_note(at: AppTest, lang: str, granularity: str) -> str:
    """The words drawn next to the frequency control."""
    from wording import i18n
    head = i18n.t(f"page.trends.gran_kept_{granularity}", lang, names="\x00").split("\x00")[0]
    return " ".join(c.value for c in at.caption if c.value.startswith(head))


@pytest.mark.parametrize("lang", ["en", "es"])
def test_weekly_says_which_series_stay_at_their_own_frequency_and_why(lang):
    # "Weekly" did nothing to biweekly and monthly series and said nothing.
    series = ("ddp_facility_daily.detained_midnight,trac_detention.detained_total,"
              "ddp_arrests_aggregates.monthly_national_chart_data")
    at = app({"series": series, "lang": lang}, panels=("x_options",))
    at.session_state["w_gran"] = "weekly"
    at.run()
    note = gran_note(at, lang, "weekly")
    from loaders import data as cdata
    from wording import i18n
    snap = cdata.load_snapshot()
    titles = {s: i18n.series_text(s, "title", lang, snap.info(s)["title"]) for s in series.split(",")}
    assert note, "nothing next to the frequency control"
    # The biweekly and the monthly series are named, with their own frequency; the daily one is not.
    assert titles["trac_detention.detained_total"] in note
    assert titles["ddp_arrests_aggregates.monthly_national_chart_data"] in note
    assert titles["ddp_facility_daily.detained_midnight"] not in note
    assert i18n.t("frequency.biweekly", lang) in note and i18n.t("frequency.monthly", lang) in note
    # Monthly averages are made of the biweekly headcounts (each is a count on one day), not of the monthly series.
    at.session_state["w_gran"] = "monthly"
    at.run()
    note = gran_note(at, lang, "monthly")
    assert titles["ddp_arrests_aggregates.monthly_national_chart_data"] in note
    assert titles["trac_detention.detained_total"] not in note and titles["ddp_facility_daily.detained_midnight"] not in note


def block_texts(block) -> list[str]:
    out = []
    for child in getattr(block, "children", {}).values():
        v = getattr(child, "value", None)
        if isinstance(v, str):
            out.append(v)
        out += block_texts(child)
    return out


@pytest.mark.parametrize("lang", ["en", "es"])
def test_each_headline_card_is_one_plain_sentence_with_the_rest_one_click_away(lang):
    # The cards were about 80 words of grey text each: the sentence to quote had to be dug out.
    import datetime as dt
    import re

    from analysis.overview import headlines
    from loaders import data as cdata
    from views.headlines import card_sentence
    from wording import i18n
    hs = headlines(cdata.load_snapshot(), dt.date.today(), lang)
    at = app({"lang": lang})
    popovers = at.get("popover")[:len(hs)]  # the cards' (the chart's definitions come after them)
    in_popovers = [t for p in popovers for t in block_texts(p)]
    plain = [m.value for m in at.markdown]  # plain type (a caption is grey)
    assert len(popovers) == len(hs) >= 4 and all(block_texts(p) for p in popovers)
    for h, pop in zip(hs, popovers):
        sentence = card_sentence(h)
        assert sentence in plain and sentence not in in_popovers, h.label
        # One sentence, short enough to quote, that says the figure, its period, what it covers and where from.
        assert h.quote.endswith(").") and len(h.quote.split()) <= 45, h.quote
        assert not re.search(r"\.\s+[A-ZÁÉÍÓÚ]", h.quote.replace("U.S. ", "").replace("EE. UU.", "")), h.quote
        assert i18n.number(h.value, lang) in h.quote
        period = i18n.date(h.data_date, lang) if "FY" in h.period or "fiscal" in h.period or h.period.startswith(("on ", "el ")) \
            else h.period
        assert period in h.quote, (period, h.quote)
        # The rest is one click away, in the card's popover: comparison, publication, staleness and method.
        details = " ".join(block_texts(pop))
        assert h.release_note in details and h.comparison[1:] in details and h.definition[:60] in details
        assert str(h.age_days) in details
    # None of that is on the cards themselves any more.
    outside = [c.value for c in at.caption if c.value not in in_popovers]
    assert not [c for c in outside if any(h.release_note in c for h in hs)], outside
