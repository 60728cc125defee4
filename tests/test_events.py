"""Events timeline: the bundled file, validation of any events file, merging, the overlay and the exports."""
from __future__ import annotations

import csv
import datetime as dt
import io
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from figures import events as cev
from figures.core import Line, build_trend_figure
from loaders import events as lev
from loaders.errors import ValidationError

HEADER = ",".join(lev.COLUMNS)
TODAY = dt.date(2026, 6, 30)


def row(**kw) -> str:
    """One CSV line of a valid event, with fields overridden by ``kw``."""
    ev = {"id": "", "date": "2025-03-01", "date_precision": "exact", "title": "A sourced event",
          "category": "policy", "description": "Something happened.", "source_name": "Agency",
          "source_url": "https://example.org/page"}
    ev.update(kw)
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([ev[c] for c in lev.COLUMNS])
    return buf.getvalue()[:-1]


def events_file(*lines: str) -> bytes:
    return ("\n".join([HEADER, *lines]) + "\n").encode("utf-8")


@pytest.fixture
def bundled() -> pd.DataFrame:
    return lev.read_bundled()


@pytest.fixture
def user_file(tmp_path):
    p = tmp_path / "user_events.csv"
    p.write_bytes(events_file(
        row(id="mine-1", date="2025-05-02", title="Local council vote on jail contract", category="political"),
        row(date="2025-02-11", title="ERO chief Russell Hott and deputy Peter Berg reassigned", category="personnel"),
        row(date="2025-13-40", title="Broken date"),
    ))
    return p


# ----- the bundled file -----

def test_bundled_file_validates_and_is_sorted(bundled):
    assert (bundled["origin"] == "bundled").all()
    assert bundled["date"].is_monotonic_increasing
    assert bundled["id"].is_unique
    assert (bundled["description"].str.len() > 20).all()
    # A link, or none where the original's address was not found (the row then says so: loaders.copies).
    linked = bundled["link_status"] != "not found"
    assert bundled.loc[linked, "source_url"].str.match(r"https?://[^/\s]+").all()
    assert (bundled.loc[~linked, "source_url"] == "").all()
    assert set(bundled["category"]) <= set(lev.CATEGORIES)


def test_bundled_file_has_at_least_60_events_since_2025(bundled):
    recent = bundled[bundled["date"] >= "2025-01-01"]
    assert len(recent) >= 60
    assert recent["date"].max() >= pd.Timestamp("2026-04-01")


@pytest.mark.parametrize("date,category,words", [
    ("2025-02-11", "personnel", ["Hott", "Berg"]),
    ("2025-02-21", "personnel", ["Vitello"]),
    ("2025-03-09", "personnel", ["Lyons", "acting ICE director"]),
    ("2025-05-21", "policy", ["3,000"]),
    ("2025-07-04", "funding", ["One Big Beautiful Bill"]),
    ("2025-06-06", "operation", ["Los Angeles"]),
    ("2025-06-07", "operation", ["Los Angeles"]),
    ("2025-09-08", "operation", ["Midway Blitz"]),
    ("2025-10-24", "personnel", ["field office directors"]),
    ("2025-10-28", "personnel", ["field office"]),
    ("2025-10-01", "funding", ["shutdown"]),
    ("2025-11-12", "funding", ["Shutdown ends"]),
    ("2026-02-14", "funding", ["DHS funding lapses"]),
    ("2026-04-30", "funding", ["DHS shutdown ends"]),
    ("2025-02-13", "political", ["Homan", "Adams"]),
    ("2025-02-14", "political", ["Homan", "Adams"]),
    ("2020-03-20", "policy", ["Title 42"]),
    ("2023-05-11", "policy", ["Title 42"]),
    ("2020-04-01", "statistic-report", ["COVID-19"]),
])
def test_bundled_file_has_the_required_events_on_their_dates(bundled, date, category, words):
    day = bundled[(bundled["date"] == pd.Timestamp(date)) & (bundled["category"] == category)]
    text = (day["title"] + " " + day["description"]).str.casefold()
    assert any(all(w.casefold() in t for w in words) for t in text), f"no {category} event on {date} about {words}"


def test_bundled_file_marks_uncertain_dates_as_approximate(bundled):
    by_title = bundled.set_index("title")
    assert by_title.loc["Five ICE field office directors removed", "date_precision"] == "approximate"
    assert by_title.loc["DHS shutdown ends after about 75 days", "date_precision"] == "approximate"
    assert by_title.loc["ERO chief Russell Hott and deputy Peter Berg reassigned", "date_precision"] == "exact"


@pytest.mark.shared
def test_bundled_descriptions_are_not_copied_from_the_research_notes(bundled, shared_data):
    research = pd.read_csv(shared_data.parent / "research" / "events.csv", dtype=str)

    def runs(text: str, n: int = 8) -> set[tuple[str, ...]]:
        words = re.findall(r"[\w',.$-]+", text.casefold())
        return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}

    theirs = set().union(*(runs(d) for d in research["description"]))
    copied = [t for t, d in zip(bundled["title"], bundled["description"]) if runs(d) & theirs]
    assert copied == []


# ----- validation of any file -----

@pytest.mark.parametrize("line,field,reason", [
    (row(date="2025-02-30"), "date", "not a real calendar date"),
    (row(date="11/02/2025"), "date", "not an ISO date"),
    (row(date="1989-12-31"), "date", "before 1990"),
    (row(date="2099-01-01"), "date", "in the future"),
    (row(date_precision="roughly"), "date_precision", "not one of"),
    (row(category="riot"), "category", "not one of"),
    (row(source_url="javascript:alert(1)"), "source_url", "scheme 'javascript:' not allowed"),
    (row(source_url="data:text/html,<script>alert(1)</script>"), "source_url", "not allowed"),
    (row(source_url="/relative/page"), "source_url", "not allowed"),
    (row(source_url="https://"), "source_url", "no host"),
    (row(source_url=""), "source_url", "needs a source link"),
    (row(source_name=""), "source_name", "needs a source"),
    (row(title=""), "title", "empty"),
    (row(title="x" * 121), "title", "121 characters; the limit is 120"),
    (row(description="y" * 501), "description", "the limit is 500"),
    (row(source_name="z" * 121), "source_name", "the limit is 120"),
    (row(source_url="https://example.org/" + "a" * 490), "source_url", "the limit is 500"),
    (row(title="Bell\x07 character"), "title", "control character U+0007"),
    (row(description="escape \x1b[31m red"), "description", "control character U+001B"),
    (row(title="line\nbreak"), "title", "control character U+000A"),
    (row(title="abc\u202edcba"), "title", "control character U+202E"),
    (row(title='=HYPERLINK("http://evil.example","click")'), "title", "formula"),
    (row(source_name="@SUM(A1:A9)"), "source_name", "formula"),
    (row(description="+1 (555) call now"), "description", "formula"),
    (row(id="has space"), "id", "letters, digits"),
])
def test_a_bad_row_is_rejected_naming_row_and_field(line, field, reason):
    accepted, rejected = lev.validate_events(events_file(row(title="Good one"), line, row(title="Good two")),
                                             "upload.csv", today=TODAY)
    assert list(accepted["title"]) == ["Good one", "Good two"]
    assert list(accepted["row"]) == [2, 4]
    hit = rejected[(rejected["row"] == 3) & (rejected["field"] == field)]
    assert len(hit) == 1, rejected.to_dict("records")
    assert reason in hit["reason"].iloc[0]


def test_every_problem_of_a_row_is_listed():
    _, rejected = lev.validate_events(events_file(row(date="2025-02-30", category="x", source_url="ftp://a")),
                                      "u.csv", today=TODAY)
    assert set(rejected["field"]) == {"date", "category", "source_url"}
    assert set(rejected["row"]) == {2}


def test_duplicates_are_rejected_naming_the_first_row():
    accepted, rejected = lev.validate_events(events_file(
        row(title="Same thing"), row(title="Other"), row(title="  same   THING ")), "u.csv", today=TODAY)
    assert len(accepted) == 2
    assert rejected.to_dict("records") == [{"row": 4, "field": "title",
                                            "reason": "duplicate of row 2 (same date and title)"}]


def test_duplicate_ids_are_rejected():
    _, rejected = lev.validate_events(events_file(row(id="a1", title="One"), row(id="a1", title="Two")), "u.csv",
                                      today=TODAY)
    assert rejected[["row", "field"]].values.tolist() == [[3, "id"]]


def test_bytes_that_are_not_utf8_are_rejected_with_their_offset():
    content = HEADER.encode() + b"\n" + row(title="Good").encode() + b"\n" + \
        row(title="Caf\udce9 closes").encode("utf-8", "surrogateescape") + b"\n"
    offset = content.index(b"\xe9")
    accepted, rejected = lev.validate_events(content, "latin1.csv", today=TODAY)
    assert list(accepted["title"]) == ["Good"]
    rec = rejected.to_dict("records")
    assert rec == [{"row": 3, "field": "title",
                    "reason": f"not UTF-8 text: byte 0xe9 at offset {offset}; save the file as UTF-8"}]


def test_a_utf8_bom_and_crlf_line_ends_are_accepted():
    content = b"\xef\xbb\xbf" + events_file(row(title="Caf\u00e9 raid")).replace(b"\n", b"\r\n")
    accepted, rejected = lev.validate_events(content, "excel.csv", today=TODAY)
    assert rejected.empty
    assert accepted["title"].tolist() == ["Caf\u00e9 raid"]


def test_markup_is_kept_as_plain_text_not_rejected():
    payload = "<img src=x onerror=alert(1)>"
    accepted, rejected = lev.validate_events(events_file(row(title=payload, description="<b>bold</b> & co")),
                                             "u.csv", today=TODAY)
    assert rejected.empty
    assert accepted["title"].iloc[0] == payload


def test_text_is_trimmed_and_codes_lowercased_and_blank_ids_filled():
    accepted, _ = lev.validate_events(events_file(row(title="  Padded  ", category=" Policy ", date_precision="EXACT")),
                                      "u.csv", today=TODAY)
    e = accepted.iloc[0]
    assert (e["title"], e["category"], e["date_precision"]) == ("Padded", "policy", "exact")
    # A blank id is made from the date and title, not the row number: two uploads' unnamed rows never collide.
    assert e["id"] == lev.auto_id("upload", "2025-03-01", "Padded") and e["id"].startswith("upload-2025-03-01-")
    assert lev.auto_id("upload", "2025-03-01", "Other") != e["id"]


def test_a_row_with_the_wrong_number_of_fields_is_rejected():
    _, rejected = lev.validate_events(events_file(row(), "2025-01-01,exact,too few"), "u.csv", today=TODAY)
    assert rejected[["row", "field"]].values.tolist() == [[3, "(row)"]]
    assert "3 fields; the header has 8" in rejected["reason"].iloc[0]


def test_extra_columns_and_blank_lines_are_ignored():
    content = (HEADER + ",notes\n" + row() + ",mine\n\n,,,,,,,,\n").encode()
    accepted, rejected = lev.validate_events(content, "u.csv", today=TODAY)
    assert len(accepted) == 1 and rejected.empty


@pytest.mark.parametrize("content,message", [
    (b"", "empty"),
    (b"   \n", "empty"),
    (b"date,title\n2025-01-01,x\n", "missing column(s) date_precision, category"),
    (("id,date,date,date_precision,title,category,description,source_name,source_url\n").encode(), "named twice"),
    # an unclosed quote in a body row costs that row only (tests/test_intake.py); in the header, the whole file
    (b'"' + HEADER.encode() + b'\n,2025-01-01,exact,t,policy,,s,https://a.b\n', "not a readable CSV"),
])
def test_file_level_problems_raise_naming_the_file(content, message):
    with pytest.raises(ValidationError, match=re.escape(message)) as err:
        lev.validate_events(content, "upload.csv", today=TODAY)
    assert "upload.csv" in str(err.value)


def test_size_limit():
    content = events_file(*(row(title=f"Event {i}") for i in range(20)))
    lev.validate_events(content, "u.csv", max_bytes=len(content), today=TODAY)
    with pytest.raises(ValidationError, match="the limit is"):
        lev.validate_events(content, "u.csv", max_bytes=len(content) - 1, today=TODAY)


def test_row_limit():
    content = events_file(*(row(title=f"Event {i}") for i in range(11)))
    with pytest.raises(ValidationError, match="11 event rows; the limit is 10"):
        lev.validate_events(content, "u.csv", max_rows=10, today=TODAY)
    accepted, _ = lev.validate_events(content, "u.csv", max_rows=11, today=TODAY)
    assert len(accepted) == 11


def test_a_bad_row_in_the_bundled_file_raises_naming_file_row_and_field(tmp_path):
    p = tmp_path / "events.csv"
    p.write_bytes(events_file(row(title="Fine"), row(title="Bad", category="gossip")))
    with pytest.raises(ValidationError) as err:
        lev.read_bundled(p)
    msg = str(err.value)
    assert str(p) in msg and "row 3" in msg and "field category" in msg


# ----- merging with the local user file -----

def test_user_file_is_merged_with_origin_and_its_problems_listed(tmp_path, user_file):
    bundled_path = tmp_path / "events.csv"
    bundled_path.write_bytes(events_file(
        row(id="b1", date="2025-02-11", title="ERO chief Russell Hott and deputy Peter Berg reassigned",
            category="personnel"),
        row(id="b2", date="2025-07-04", title="One Big Beautiful Bill Act signed", category="funding")))
    merged, problems = lev.load_events_checked(bundled_path)  # finds user_events.csv beside it
    assert merged["origin"].tolist() == ["bundled", "user", "bundled"]
    assert merged["id"].tolist() == ["b1", "mine-1", "b2"]
    assert sorted(problems["row"].tolist()) == [3, 4]
    dup = problems[problems["row"] == 3].iloc[0]
    assert dup["field"] == "title" and "bundled event on row 2" in dup["reason"]
    # The base name only: these rows are shown in a browser, which has no business with a server path.
    assert (problems["file"] == "user_events.csv").all()
    assert not any(str(tmp_path) in str(v) for v in problems.to_numpy().ravel())
    assert lev.load_events(bundled_path).equals(merged)


def test_a_broken_user_file_never_hides_the_bundled_events(tmp_path):
    bundled_path = tmp_path / "events.csv"
    bundled_path.write_bytes(events_file(row(id="b1")))
    user = tmp_path / "mine.csv"
    user.write_bytes(b"not,an,events,file\n1,2,3,4\n")
    merged, problems = lev.load_events_checked(bundled_path, user)
    assert merged["id"].tolist() == ["b1"]
    assert problems["field"].tolist() == ["(file)"] and problems["row"].tolist() == [0]
    assert "missing column" in problems["reason"].iloc[0] and str(tmp_path) not in problems["reason"].iloc[0]


def test_the_real_bundled_file_loads_without_a_user_file(tmp_path):
    merged, problems = lev.load_events_checked(lev.BUNDLED, tmp_path / "absent.csv")
    assert len(merged) == len(lev.read_bundled())
    assert problems.empty


# ----- filtering, overlay, legend -----

@pytest.fixture
def view(bundled) -> pd.DataFrame:
    return cev.filter_events(bundled, "2025-01-01", "2025-03-31")


def test_filter_by_dates_categories_and_text(bundled, view):
    assert view["date"].between("2025-01-01", "2025-03-31").all()
    assert view["number"].tolist() == list(range(1, len(view) + 1))
    people = cev.filter_events(bundled, "2025-01-01", None, categories=["personnel"])
    assert set(people["category"]) == {"personnel"}
    hott = cev.filter_events(bundled, text="  HOTT ")
    assert hott["title"].tolist() == ["ERO chief Russell Hott and deputy Peter Berg reassigned"]
    assert cev.filter_events(bundled, text="washington post")["source_name"].str.contains("Washington Post").any()
    assert cev.filter_events(bundled, categories=[]).empty
    assert len(cev.filter_events(bundled, text="")) == len(bundled)


def test_regex_characters_in_the_search_text_are_literal(bundled):
    hay = bundled["title"] + "\n" + bundled["description"] + "\n" + bundled["source_name"]
    assert len(cev.filter_events(bundled, text="(")) == hay.str.contains("(", regex=False).sum() > 0
    assert cev.filter_events(bundled, text="[unclosed").empty


def _trend(start="2024-12-01", end="2025-04-30") -> go.Figure:
    x = pd.date_range(start, end, freq="7D").to_numpy()
    return build_trend_figure([Line("Detained", x, np.linspace(39000, 47000, len(x)))], title="t", subtitle="s",
                              sources=["Source: test"])


def test_figure_gets_one_line_per_event_in_category_traces_and_numbered_markers(view):
    fig = cev.add_events_to_figure(_trend(), view)
    assert not fig.layout.shapes  # a few traces, not one layout shape per event (issue 16)
    lines = [t for t in fig.data if t.name and t.name.startswith("Event: ")]
    assert {t.name for t in lines} == {f"Event: {cev.event_categories[c].lower()}" for c in set(view["category"])}
    drawn = sorted(x for t in lines for x in t.x[::3])
    assert drawn == sorted(d.date().isoformat() for d in view["date"])
    # each category's lines lie over the panel on an invisible axis overlaying the panel's own (y10 over y),
    # so the panel's data points still answer the mouse; never on a layer drawn over the panels
    assert all(t.yaxis == "y10" and t.line.color == cev.CATEGORY_COLOURS[c] for t in lines
               for c in cev.CATEGORY_COLOURS if t.name.endswith(cev.event_categories[c].lower()))
    assert fig.layout.yaxis10.overlaying == "y" and not fig.layout.yaxis10.visible
    markers = [t for t in fig.data if t.name == cev.TRACE_NAME]
    assert len(markers) == 1
    m = markers[0]
    # Every event number is on a marker, once, in order: a marker holds one event or a range of close ones.
    numbers = [n for group in m.customdata for n in group]
    assert numbers == cev.events_legend_table(view)["number"].tolist()
    for label, group in zip(m.text, m.customdata):
        assert label == (str(group[0]) if len(group) == 1 else f"{group[0]}\u2013{group[-1]}")
    # the markers' own axis covers only a band at the top, not the panels
    assert fig.layout.yaxis9.domain[0] > 0.9 and not fig.layout.yaxis9.visible
    assert not fig.layout.annotations or all("Hott" not in (a.text or "") for a in fig.layout.annotations)


def test_numbers_follow_date_order_whatever_the_input_order(view):
    shuffled = view.sample(frac=1, random_state=3)
    fig = cev.add_events_to_figure(_trend(), shuffled)
    m = [t for t in fig.data if t.name == cev.TRACE_NAME][0]
    assert list(m.x) == sorted(m.x)
    assert cev.events_legend_table(shuffled)["title"].tolist() == view["title"].tolist()


def test_close_events_share_a_marker_and_markers_never_overlap(view, bundled):
    m = [t for t in cev.add_events_to_figure(_trend(), view).data if t.name == cev.TRACE_NAME][0]
    same_day = [g for g in m.customdata if any(view.iloc[int(n) - 1]["date"] == pd.Timestamp("2025-01-29") for n in g)]
    assert len(same_day) == 1  # the two events of 2025-01-29 are on one marker, not drawn over each other
    # The busiest range (every category, 2025-2026) at each size: no two markers touch.
    busy = cev.filter_events(bundled, "2025-01-01", "2026-12-01")
    assert len(busy) > 60
    from figures.layout import SIZES
    for sz in SIZES.values():
        layer = cev.event_layers(busy, lo="2025-01-01", hi="2026-12-01", size=sz)
        tr = layer["traces"][-1]
        px = cev.PAGE_PLOT_PX if sz.name == "page" else sz.width - 104
        assert cev.markers_overlap(tr, "2025-01-01", "2026-12-01", px) == [], sz.name
        drawn = [n for g in tr["customdata"] for n in g]
        if not sz.compact:
            assert len(drawn) == len(busy)
            continue
        # A compact figure draws the events its key lists in full and counts the rest (all are in the CSV).
        key = " ".join(layer["notes"])
        assert f"{len(busy) - len(drawn)} more of the {len(busy)} events" in key, key
        for e in cev.number_events(busy).itertuples():
            assert (cev.key_item(e._asdict(), "en") in key) == (e.label in drawn), e.label


def _events(rows: list[tuple[str, str, str, str]]) -> pd.DataFrame:
    """Events built here: (date, title, category, source), numbered in date order."""
    return pd.DataFrame([dict(id=f"e{i}", date=pd.Timestamp(d), date_precision="exact", title=t, category=c,
                              description="", source_name=src, source_url=f"https://news.example.org/{i}",
                              link_is_copy="no", original_outlet="", original_date="")
                         for i, (d, t, c, src) in enumerate(rows)])


def test_an_article_key_lists_each_event_whole_with_date_and_source():
    """Issue 38: the key was cut to four words a title with an ellipsis ("6 ERO chief Russell Hott...") and gave
    no dates or sources. Each event drawn now has its number, date, whole title and outlet, wrapped."""
    long_title = "A regional director and two deputies are reassigned after a review of the arrest figures"
    ev = _events([("2025-02-11", long_title, "personnel", "Example Daily (citing Example Post)"),
                  ("2025-02-20", "A short one", "policy", "Wire")])
    keep, key = cev.event_key(ev, "article")
    assert keep == [0, 1] and "…" not in key
    assert f"1 2025-02-11 {long_title} (Example Daily (citing Example Post))" in key
    assert "2 2025-02-20 A short one (Wire)" in key
    # the figure's footer draws the same words, wrapped, never cut
    layer = cev.event_layers(ev, lo="2025-02-01", hi="2025-03-01", size="article")
    assert " ".join(layer["notes"]) == key


NONE_LISTED = {  # a key with room for no event line: what it says instead of "63 more of the 63 events"
    ("en", 1): "1 event is in this range but is not drawn: there is no room to list it at this size. The CSV and "
               "HTML exports list it (in the CSV, a row of kind 'event').",
    ("en", 21): "None of the 21 events in this range is drawn: there is no room to list them at this size. The CSV "
                "and HTML exports list them all (in the CSV, rows of kind 'event').",
    ("es", 1): "Hay 1 acontecimiento en este intervalo, pero no se dibuja: a este tamaño no cabe en la lista. Las "
               "exportaciones CSV y HTML lo recogen (en el CSV, una fila de tipo 'event').",
    ("es", 21): "Ninguno de los 21 acontecimientos de este intervalo se dibuja: a este tamaño no caben en la lista. "
                "Las exportaciones CSV y HTML los recogen todos (en el CSV, filas de tipo 'event').",
}


def _many_long_events(n: int) -> pd.DataFrame:
    return _events([(f"2025-03-{d:02d}", f"Policy change number {d} with a title long enough to need most of a line",
                     "policy", "Example Wire") for d in range(1, n + 1)])


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("n", [1, 21])
def test_a_key_with_room_for_no_event_says_none_is_drawn_and_where_they_are(lang, n):
    """A key with room for no event line read "21 more of the 21 events in this range are not drawn", as if
    some were listed: it says that none is drawn and that the CSV and HTML exports list them."""
    ev = _many_long_events(n)
    keep, key = cev.event_key(ev, "article", lang, lines=1)
    assert keep == [] and key == NONE_LISTED[(lang, n)]
    assert "more of the" not in key and "más de los" not in key
    layer = cev.event_layers(ev, lo="2025-03-01", hi="2025-03-31", size="article", lang=lang, key_lines=1)
    assert layer["traces"] == [] and layer["notes"] == [key]


@pytest.mark.parametrize("lang,words", [("en", "19 more of the 21 events in this range are not drawn at this size"),
                                        ("es", "19 acontecimientos más de los 21 de este intervalo no se dibujan")])
def test_a_key_listing_some_events_still_counts_the_rest(lang, words):
    ev = _many_long_events(21)
    keep, key = cev.event_key(ev, "article", lang, lines=5)
    assert len(keep) == 2 and words in key
    assert all(w not in key for w in NONE_LISTED.values())


def test_an_article_key_that_cannot_hold_every_event_draws_those_it_lists():
    """Too many events for an article's key: it lists the leadership changes first, then policy..., draws only
    those, and says how many are left off and that the CSV has them; a full-size image lists every one."""
    rows = [(f"2025-03-{d:02d}", f"Policy change number {d} with a title long enough to need most of a line",
             "policy", "Example Wire") for d in range(1, 21)]
    rows.append(("2025-03-25", "Agency head replaced", "personnel", "Example Post"))
    ev = _events(rows)
    keep, key = cev.event_key(ev, "article")
    import textwrap

    from figures.layout import SIZES, footer_chars
    assert 1 < len(keep) < len(ev)
    assert len(textwrap.wrap(key, footer_chars(SIZES["article"]), break_on_hyphens=False)) <= SIZES["article"].key_lines
    assert 20 in keep  # the personnel change, last in date order, is kept first
    assert f"{len(ev) - len(keep)} more of the {len(ev)} events in this range are not drawn" in key and "CSV" in key
    layer = cev.event_layers(ev, lo="2025-03-01", hi="2025-03-31", size="article")
    drawn = sorted(int(n) for g in layer["traces"][-1]["customdata"] for n in g)
    assert drawn == [i + 1 for i in keep]
    lines = [t for t in layer["traces"] if t.get("mode") == "lines"]
    assert sorted({x for t in lines for x in t["x"] if x}) == sorted({f"{ev['date'][i]:%Y-%m-%d}" for i in keep})
    full = " ".join(cev.event_layers(ev, lo="2025-03-01", hi="2025-03-31", size="full")["notes"])
    assert all(f"{r.title} ({r.source_name})" in full for r in ev.itertuples())


def test_no_events_leaves_the_figure_alone():
    fig = _trend()
    before = fig.to_json()
    cev.add_events_to_figure(fig, cev.filter_events(lev.read_bundled(), "1991-01-01", "1991-12-31"))
    assert fig.to_json() == before


def test_hover_shows_date_title_description_source_and_escapes_html():
    accepted, _ = lev.validate_events(events_file(row(
        title="<img src=x onerror=alert(1)> %{x}", description="Tom & Jerry <script>alert(2)</script>",
        source_name="<b>Paper</b>", date_precision="approximate")), "u.csv", today=TODAY)
    fig = cev.add_events_to_figure(_trend(), accepted)
    m = [t for t in fig.data if t.name == cev.TRACE_NAME][0]
    hover = m.hovertext[0]
    assert "&lt;img src=x onerror=alert(1)&gt;" in hover
    assert "Tom &amp; Jerry &lt;script&gt;" in hover
    assert "Source: &lt;b&gt;Paper&lt;/b&gt;" in hover
    assert "2025-03-01 (approximate date)" in hover
    assert "<img" not in hover and "<script" not in hover
    assert m.hoverinfo == "text" and m.hovertemplate is None  # %{x} is not a template here


def test_category_colours_are_distinct_and_cover_every_category():
    assert set(cev.CATEGORY_COLOURS) == set(cev.event_categories) == set(lev.CATEGORIES)
    assert len(set(cev.CATEGORY_COLOURS.values())) == len(cev.CATEGORY_COLOURS)
    assert all(cev.event_categories[k] for k in lev.CATEGORIES)


def test_legend_table_columns_and_labels(view):
    table = cev.events_legend_table(view)
    assert table.columns.tolist() == ["number", "date", "date_precision", "title", "category", "source_name",
                                      "source_url", "link"]
    assert table["number"].tolist() == [str(n) for n in range(1, len(view) + 1)]  # "U1" for a reader's own
    assert set(table["category"]) <= set(cev.event_categories.values())
    assert table["date"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()


def test_legend_text_is_compact_numbered_and_bounded(view):
    lines = cev.events_legend_text(view, max_lines=2, width=120)
    assert len(lines) == 2 and all(len(s) <= 120 for s in lines)
    assert lines[0].startswith("Events: 1 2025-01-20 ")
    shown = re.findall(r"(?:^|; |Events: )(\d+) \d{4}-\d{2}-\d{2}", " ; ".join(lines))
    more = int(re.search(r"… (\d+) more", lines[-1]).group(1))
    assert len(shown) + more == len(view)
    everything = cev.events_legend_text(view, max_lines=100, width=120)
    assert "more in the events table" not in everything[-1]
    assert sum(len(re.findall(r"\d{4}-\d{2}-\d{2}", s)) for s in everything) == len(view)
    assert cev.events_legend_text(view.iloc[:0]) == []


def test_legend_text_marks_approximate_dates(bundled):
    v = cev.filter_events(bundled, "2025-10-20", "2025-10-31")
    assert "2025-10-24~ Five ICE field office directors removed" in " ".join(cev.events_legend_text(v))


# ----- exports -----

def test_csv_cell_neutralises_formulas():
    from loaders.text import csv_cell
    for s in ("=1+2", "+1", "-CONROE", "@SUM(1)", "\tx", "\nx"):
        assert csv_cell(s) == "'" + s
    assert csv_cell("\rx") == "'\nx" and csv_cell("a\r\n=b") == "a\n=b"  # a bare CR cannot start a new row
    assert csv_cell("Plain title") == "Plain title"
    assert csv_cell(-5) == -5
    assert csv_cell("") == ""


def test_events_csv_neutralises_formulas_and_cites_sources(view):
    evil = view.iloc[:2].copy()
    evil.loc[evil.index[0], "title"] = '=HYPERLINK("http://evil.example","click")'
    evil.loc[evil.index[1], "source_name"] = "-2+3, Inc"
    data = cev.events_csv(evil, generated_on=dt.date(2026, 7, 1))
    text = data.decode("utf-8")
    lines = text.splitlines()
    assert lines[0].startswith("# Events timeline exported 2026-07-01")
    assert lines[1].startswith("# Sources: ") and "," not in lines[1] and '"' not in lines[1]
    back = pd.read_csv(io.BytesIO(data), comment="#", dtype=str, keep_default_na=False)
    assert back["title"].iloc[0] == "'=HYPERLINK(\"http://evil.example\",\"click\")"
    assert back["source_name"].iloc[1] == "'-2+3, Inc"
    assert back["date"].str.fullmatch(r"\d{4}-\d{2}-\d{2}").all()
    assert back["number"].tolist() == ["1", "2"]
    assert {"source_name", "source_url", "description", "category_label"} <= set(back.columns)
    for cell in (c for r in csv.reader(io.StringIO(text)) for c in r):
        assert not cell.startswith(("=", "+", "-", "@")), cell


def test_events_csv_round_trips_unicode_and_the_whole_view(view):
    data = cev.events_csv(view)
    back = pd.read_csv(io.BytesIO(data), comment="#", dtype=str, keep_default_na=False, encoding="utf-8")
    assert back["title"].tolist() == cev.events_legend_table(view)["title"].tolist()
    assert back["source_url"].tolist() == cev.events_legend_table(view)["source_url"].tolist()


def test_events_csv_of_nothing_still_has_its_header():
    data = cev.events_csv(lev.read_bundled().iloc[:0])
    back = pd.read_csv(io.BytesIO(data), comment="#")
    assert back.empty and "source_url" in back.columns


# ----- property tests -----

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=3000))
def test_any_bytes_give_a_result_or_a_validation_error(content):
    try:
        accepted, rejected = lev.validate_events(content, "fuzz.csv", max_bytes=2000, today=TODAY)
    except ValidationError:
        return
    assert list(rejected.columns) == ["row", "field", "reason"]
    assert set(accepted.columns) >= set(lev.COLUMNS)


_cell = st.one_of(st.text(max_size=40), st.sampled_from(["2025-01-01", "policy", "exact", "https://a.example/x",
                                                         "javascript:x", "=1", "\x00", "\ud800x", "\"", ","]))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(_cell, min_size=0, max_size=10), max_size=15), st.sampled_from(["utf-8", "latin-1"]))
def test_csv_shaped_input_never_raises_anything_else(rows, encoding):
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(lev.COLUMNS)
    for r in rows:
        w.writerow(r)
    content = buf.getvalue().encode(encoding, errors="surrogatepass" if encoding == "utf-8" else "replace")
    try:
        accepted, rejected = lev.validate_events(content, "fuzz.csv", today=TODAY)
    except ValidationError:
        return
    # Every non-blank data row is either accepted or listed as rejected: nothing disappears.
    got_ok, got_bad = set(accepted["row"]), set(rejected["row"])
    assert not got_ok & got_bad
    body = {i + 2 for i, r in enumerate(rows) if any(str(c).strip() for c in r)}
    if encoding == "utf-8":
        assert got_ok | got_bad == body
    else:
        assert got_ok | got_bad <= set(range(2, len(rows) + 2))


def test_an_upload_merges_after_the_bundled_events_and_repeats_are_reported(bundled):
    upload, rejected = lev.validate_events(events_file(
        row(date="2025-03-09", title="todd lyons NAMED acting ICE director", category="personnel"),
        row(date="2025-03-10", title="My newsroom's own event", category="political")), "mine.csv", today=TODAY)
    assert rejected.empty
    merged, dupes = lev.merge_events(bundled, upload)
    assert len(merged) == len(bundled) + 1
    assert merged.loc[merged["origin"] == "upload", "title"].tolist() == ["My newsroom's own event"]
    assert dupes[["row", "field", "origin"]].values.tolist() == [[2, "title", "upload"]]
    assert "same date and title as bundled event" in dupes["reason"].iloc[0]
    assert merged["date"].is_monotonic_increasing


def test_save_user_events_appends_without_repeats(tmp_path):
    from loaders.events import load_events, save_user_events, validate_events
    good = (b"id,date,date_precision,title,category,description,source_name,source_url\n"
            b"my-1,2025-03-01,exact,My local event,policy,Something I track,My notes,https://example.org/a\n")
    acc, rej = validate_events(good, "mine.csv")
    assert len(acc) == 1 and rej.empty
    user = tmp_path / "user_events.csv"
    save_user_events(acc, user)
    save_user_events(acc, user)  # the same row again is not repeated
    assert user.read_text().count("My local event") == 1
    from tests.conftest import ROOT
    merged = load_events(ROOT / "data" / "events.csv", user)
    assert "My local event" in set(merged["title"]) and set(merged["origin"]) == {"bundled", "user"}


def test_an_unknown_origin_is_refused_not_silently_kept():
    """Rows are told apart by origin (a save rewrites only "user" rows), so a mistyped origin is an error."""
    with pytest.raises(ValueError, match="origin 'users' is not one of"):
        lev.validate_events(b"date,title\n", "x.csv", origin="users")


def test_an_upload_with_exactly_the_columns_the_page_lists_is_accepted_with_ids_generated():
    # Issue #16: the upload caption lists the columns without ``id`` (README: optional), and such a file was
    # refused for a missing ``id``. The ids are made from date and title, as for a blank id cell.
    listed = ["date", "date_precision", "title", "category", "description", "source_name", "source_url"]
    content = (",".join(listed) + "\n"
               + "2025-03-01,exact,A sourced event,policy,Something happened.,Agency,https://example.org/page\n"
               + "2025-03-02,approximate,Another event,legal,,Court,https://example.org/b\n").encode()
    res = lev.check_upload(content, "mine.csv", None)
    assert res.rejected.empty and len(res.accepted) == 2
    assert list(res.accepted["id"]) == [lev.auto_id("upload", "2025-03-01", "A sourced event"),
                                        lev.auto_id("upload", "2025-03-02", "Another event")]
    # The same rows with an id column of blanks get the same ids.
    blank = lev.check_upload(events_file(row(), row(date="2025-03-02", date_precision="approximate",
                                                    title="Another event", category="legal", description="",
                                                    source_name="Court", source_url="https://example.org/b")),
                             "mine.csv", None)
    assert list(blank.accepted["id"]) == list(res.accepted["id"])


def test_a_file_missing_a_listed_column_is_still_refused_naming_it():
    content = b"date,date_precision,title,category,description,source_name\n2025-03-01,exact,T,policy,,A\n"
    with pytest.raises(ValidationError, match="missing column\\(s\\) source_url"):
        lev.check_upload(content, "mine.csv", None)


def _clusters_by_the_definition(ev, lo, hi, plot_px, font, pad=3.0):
    """cluster_events as its docstring defines it, written plainly: merge the closest touching pair, again."""
    lo, hi = pd.Timestamp(lo), pd.Timestamp(hi)
    span = max((hi - lo) / pd.Timedelta(days=1), 1.0)
    px = [((pd.Timestamp(d) - lo) / pd.Timedelta(days=1)) / span * plot_px for d in ev["date"]]
    num = [int(n) for n in ev["number"]]
    clusters = [[i] for i in range(len(ev))]

    def centre(c):
        return (px[c[0]] + px[c[-1]]) / 2

    def width(c):
        return cev.marker_px(cev._range_label(num[c[0]], num[c[-1]]), font)
    while len(clusters) > 1:
        gaps = [centre(b) - centre(a) - (width(a) + width(b)) / 2 for a, b in zip(clusters, clusters[1:])]
        worst = min(range(len(gaps)), key=gaps.__getitem__)
        if gaps[worst] >= pad:
            break
        clusters[worst:worst + 2] = [clusters[worst] + clusters[worst + 1]]
    return clusters


def test_clustering_updates_only_the_gaps_a_merge_changes_and_groups_as_defined():
    import numpy as np
    ev = cev.number_events(lev.load_events())
    rng = np.random.default_rng(7)
    for _ in range(150):
        idx = sorted(rng.choice(len(ev), size=int(rng.integers(1, min(80, len(ev)))), replace=False))
        sub = cev.number_events(ev.iloc[idx])
        lo = sub["date"].min() - pd.Timedelta(days=int(rng.integers(0, 400)))
        hi = sub["date"].max() + pd.Timedelta(days=int(rng.integers(0, 400)))
        for plot_px in (300, 640, 1000):
            font = int(rng.integers(10, 16))
            assert cev.cluster_events(sub, lo, hi, plot_px, font) == _clusters_by_the_definition(sub, lo, hi, plot_px, font)
