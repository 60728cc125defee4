"""A figure's age where the figure is (issue 37). On 2026-12-03 the headline cards showed figures 4 to 12 months
old with no word on the card: "overdue by 323 days" (CBP) and "a newer release exists but is not held" were in
a collapsed box. Now each card says its data date and age and, when its source is overdue by its own cadence,
that it is; a chart's subtitle says it of the sources it draws. One rule (analysis.status) for the cards, the
chart and the Releases tab, and the day it counts from is always given (never the real date)."""
from __future__ import annotations

import datetime as dt
import json
import re

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from analysis import status
from analysis.overview import headlines
from analysis.view import View
from tests import bundled
from tests.conftest import ROOT
from tests.test_overview import cat, small_snapshot
from views import data as vdata
from views.compose import render
from wording.plain import markdown_literal

DAY = dt.date(2026, 12, 3)  # the day the issue was observed
TRAC = "trac_detention.detained_total"


def trac_snapshot():
    return small_snapshot(
        [{"series": TRAC, "date": "2026-04-04", "end": "2026-04-04", "value": 60311, "release": "2026-04-04"},
         {"series": TRAC, "date": "2026-07-11", "end": "2026-07-11", "value": 65765, "release": "2026-07-11"}],
        [cat(TRAC, "trac_detention", "people", "level", "biweekly")],
        {"trac_detention": {"publisher": "TRAC", "cadence_days": 21}})


def card(hs, source):
    return next(h for h in hs if h.source == source)


def declared(*rows) -> pd.DataFrame:
    base = dict(end="", target="", reason="", statement="s", evidence_source="e", verified="yes")
    return pd.DataFrame([{**base, **r} for r in rows], columns=status.COLUMNS)


def test_a_card_says_its_data_date_and_once_overdue_that_it_is_in_both_languages():
    snap = trac_snapshot()
    on_time = card(headlines(snap, dt.date(2026, 7, 20)), "trac_detention")
    assert on_time.age == ("Data to 11 July 2026, 9 days ago.",) and on_time.overdue_days is None
    late = card(headlines(snap, DAY), "trac_detention")
    assert late.overdue_days == (DAY - dt.date(2026, 7, 11)).days - 21 == 124
    assert late.age == ("Data to 11 July 2026, 145 days ago.",
                        "This snapshot holds no newer data from TRAC: 124 days past its 21-day cadence.")
    es = card(headlines(snap, DAY, "es"), "trac_detention")
    assert es.age == ("Datos hasta el 11 de julio de 2026, hace 145 días.",
                      "Esta copia no tiene datos más recientes de TRAC: 124 días de retraso sobre su ritmo de 21 días.")
    one = card(headlines(snap, dt.date(2026, 7, 12)), "trac_detention")
    assert one.age == ("Data to 11 July 2026, 1 day ago.",)


def test_what_an_overdue_source_is_said_to_have_done_follows_the_evidence():
    """ICE's files carry their publication date. With no declared fact, only this snapshot's holdings are
    spoken of; with a declared open span with no release, the publisher "has published nothing since"; with a
    declared stop, that it stopped (and whether that is verified)."""
    snap, src = bundled.snapshot(), "ice_detention_stats"
    held = status.source_freshness(snap, src, DAY, declared()).release
    cad = status.cadence_days(snap, src)
    words = status.age_sentences(status.source_age(snap, src, DAY, declared=declared()))
    assert words[1] == (f"This snapshot holds no release from ICE since {held:%-d %B %Y}: "
                        f"{(DAY - held).days - cad} days past its {cad}-day cadence.")
    silent = declared(dict(source=src, kind="blackout", start=held.isoformat()))
    assert status.age_sentences(status.source_age(snap, src, DAY, declared=silent))[1] == (
        f"ICE has published nothing since {held:%-d %B %Y}, though it usually publishes every {cad} days.")
    es = status.age_sentences(status.source_age(snap, src, DAY, declared=silent), "es")[1]
    assert es.startswith("ICE no ha publicado nada desde el ") and f"cada {cad} días" in es
    # A span that has ended is history, not silence.
    closed = declared(dict(source=src, kind="blackout", start="2026-02-12", end="2026-04-09"))
    assert "published nothing" not in " ".join(status.age_sentences(status.source_age(snap, src, DAY, declared=closed)))
    stopped = declared(dict(source=src, kind="stopped", start="2026-04-30", verified="no"))
    assert status.age_sentences(status.source_age(snap, src, DAY, declared=stopped))[1] == (
        "ICE has stopped publishing these figures, as reported (not verified).")
    # Not overdue yet: the data date only.
    early = held + dt.timedelta(days=cad)
    assert len(status.age_sentences(status.source_age(snap, src, early, declared=silent))) == 1


def test_the_bundled_ice_card_names_the_newer_release_it_lacks_and_the_silence_after_it():
    """data/publication_status.csv declares ICE's release of 20 July 2026 (not held) and no release after it."""
    snap = bundled.snapshot()
    ice = card(headlines(snap, DAY), "ice_detention_stats")
    assert ice.newer_release == dt.date(2026, 7, 20)
    assert "ICE has published nothing since 20 July 2026, though it usually publishes every " in ice.age[1]
    assert ice.age[2] == "A newer release from ICE, of 20 July 2026, exists but is not in this snapshot."
    es = card(headlines(snap, DAY, "es"), "ice_detention_stats").age
    assert es[1].startswith("ICE no ha publicado nada desde el 20 de julio de 2026")
    assert es[2] == "Existe una publicación más reciente de ICE, del 20 de julio de 2026, que no está en esta copia."
    # Every card on that day says its date, and every scheduled source's card says it is late.
    for h in headlines(snap, DAY):
        assert h.age[0].startswith(f"Data to {h.data_date:%-d %B %Y}, {h.age_days} days ago"), h.age
        assert h.fixed_file or len(h.age) >= 2, h.label


def test_spanish_contracts_a_publishers_article():
    snap = bundled.snapshot()
    words = " ".join(status.age_sentences(status.source_age(snap, "ohss_khsm", DAY), "es"))
    assert "del DHS" in words and "de el " not in words


@pytest.mark.parametrize("lang, late", [
    ("en", "Data from TRAC to 11 July 2026. This snapshot holds no newer data from TRAC: 124 days past its 21-day "
           "cadence."),
    ("es", "Datos de TRAC hasta el 11 de julio de 2026. Esta copia no tiene datos más recientes de TRAC: 124 días "
           "de retraso sobre su ritmo de 21 días.")])
def test_a_charts_subtitle_says_which_source_drawn_is_overdue(lang, late):
    snap = trac_snapshot()
    view = View(series=[TRAC], start=dt.date(2026, 1, 1), end=dt.date(2026, 7, 31), lang=lang)

    def subtitle(day, v=view):
        title = render(snap, v, generated_on=day, size="full").figure.layout.title.text
        return " ".join(re.sub(r"<[^>]+>", " ", title.split("</b>")[-1]).split())  # the subtitle's words

    assert late in subtitle(DAY), subtitle(DAY)
    assert "TRAC" not in subtitle(dt.date(2026, 7, 20))  # on time: nothing said
    # A chart "as published on" a past date shows an earlier state on purpose: no age note.
    v = View(series=[TRAC], start=dt.date(2026, 1, 1), end=dt.date(2026, 7, 31), lang=lang, as_of=dt.date(2026, 7, 12))
    assert "124" not in subtitle(DAY, v)


def test_the_pages_day_is_set_once_and_a_bad_one_is_refused(monkeypatch):
    monkeypatch.setenv(vdata.TODAY_ENV, "2026-12-03")
    assert vdata.today() == DAY
    monkeypatch.setenv(vdata.TODAY_ENV, "2026-02-30")
    with pytest.raises(ValueError, match="DASHBOARD_TODAY='2026-02-30' is not a real YYYY-MM-DD date"):
        vdata.today()


@pytest.mark.parametrize("lang, words", [("en", ("Data to ", "days past its")),
                                         ("es", ("Datos hasta el ", "días de retraso"))])
def test_the_cards_on_the_page_show_their_age_outside_the_popover(monkeypatch, lang, words):
    monkeypatch.setenv(vdata.TODAY_ENV, DAY.isoformat())
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=120)
    at.query_params["lang"] = lang
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    hs = headlines(bundled.snapshot(), DAY, lang)
    shown = [c.value for c in at.caption]
    for h in hs:
        caption = next(c for c in shown if c.startswith(markdown_literal(h.age[0])))
        for line in h.age[1:]:
            assert f":orange[{markdown_literal(line)}]" in caption, line
    assert any(words[0] in h.age[0] for h in hs) and any(words[1] in " ".join(h.age) for h in hs)


# ---------------------------------------------------------------- the age in an article image and a social card

COMPACT_LATE = {"en": "This snapshot holds no newer data from TRAC (124 days late).",
                "es": "Esta copia no tiene datos más recientes de TRAC (124 días de retraso)."}


def _svg_words(svg: str) -> str:
    import html
    texts = re.findall(r"<text[^>]*>.*?</text>", svg, re.S)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", " ".join(texts))).split())


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("size", ["article", "social"])
def test_an_article_image_and_a_social_card_say_which_source_drawn_is_overdue(size, lang):
    """Issue 37: the compact images (an article column, a social card) gave only "data to ..." in their footer,
    so an image printed on 3 December 2026 did not say its source was four months overdue. The short age
    sentence now follows the source line's data date, in the image itself, and the image still lays out."""
    from charts import export
    from tests.svg_layout import collisions, layout_boxes
    if export.find_browser() is None:
        pytest.skip("no Chrome/Chromium found for image export (make test installs Debian's)")
    snap = trac_snapshot()
    view = View(series=[TRAC], start=dt.date(2026, 1, 1), end=dt.date(2026, 7, 31), lang=lang)
    r = render(snap, view, generated_on=DAY, size=size)
    svg = export.export_figure(r, "svg").decode()
    words = _svg_words(svg)
    assert COMPACT_LATE[lang] in words, words
    boxes = layout_boxes(svg)
    assert not collisions(boxes)
    w, h = r.figure.layout.width, r.figure.layout.height
    # The footer and the notes are not cut (a date tick at the axis's right end is estimated a few px wide of
    # the edge by the reader, which errs wide; it is drawn whole).
    assert not [b.text for b in boxes if b.kind == "annotation" and (b.x0 < -1 or b.x1 > w + 1 or b.y1 > h + 1)]
    assert h <= w * (1.3 if size == "article" else 1.0)
    # On time, the image says nothing of age beyond the data date.
    on_time = render(snap, view, generated_on=dt.date(2026, 7, 20), size=size).figure
    foot = " ".join(a.text for a in on_time.layout.annotations)
    assert "TRAC (" not in foot and "124" not in foot and ("data to 2026-07-11" in foot or "hasta el 2026-07-11" in foot)


def test_the_compact_age_sentence_says_a_silence_that_starts_on_an_unheld_release_once():
    snap, src = bundled.snapshot(), "ice_detention_stats"
    held = status.source_freshness(snap, src, DAY, declared()).release
    newer = held + dt.timedelta(days=30)
    both = declared(dict(source=src, kind="release", start=newer.isoformat()),
                    dict(source=src, kind="blackout", start=newer.isoformat()))
    age = status.source_age(snap, src, DAY, declared=both)
    assert status.compact_age_sentence(age) == (f"ICE has published nothing since its release of {newer:%-d %B %Y}, "
                                                "which is not in this snapshot.")
    es = status.compact_age_sentence(age, "es")
    assert es.startswith("ICE no ha publicado nada desde su publicación del ") and es.endswith("no está en esta copia.")
    # A silence after a held release, with a newer one known before it: both, each with its date.
    apart = declared(dict(source=src, kind="release", start=newer.isoformat()),
                     dict(source=src, kind="blackout", start=(newer + dt.timedelta(days=1)).isoformat()))
    words = status.compact_age_sentence(status.source_age(snap, src, DAY, declared=apart))
    assert words.startswith("ICE has published nothing since ") and f"ICE's release of {newer:%-d %B %Y} is not in" in words


@pytest.mark.parametrize("lang", ["en", "es"])
def test_the_busiest_article_image_keeps_its_age_and_its_height(lang):
    """All data of three series in three panels, every event category: with the age sentence the article image
    ran past the column's 884 px. The sentence on where the credits are gives way first; the age stays."""
    from tests.test_layout import BUSIEST, EVENTS, REPORTED, SNAP
    view = BUSIEST["all-three-panels-es" if lang == "es" else "all-three-panels"]
    fig = render(SNAP, view, events=EVENTS, reported=REPORTED, size="article", generated_on=DAY).figure
    foot = " ".join(a.text for a in fig.layout.annotations).replace("<br>", " ")
    said = "ICE has published nothing since" if lang == "en" else "ICE no ha publicado nada desde"
    assert said in foot, foot
    assert fig.layout.height <= 1.3 * 680, fig.layout.height


# ---------------------------------------------------------------- the command line's exports count from the same day

TRAC_ICE = "trac_detention.detained_ice"


def test_a_command_line_image_counts_its_age_from_the_pages_day(monkeypatch, tmp_path):
    """`python -m charts export` dated its images from the machine's clock while the page and the cards counted
    from DASHBOARD_TODAY: an article image made for 1 September 2026 said "Generated on" the day it was run and
    TRAC's lateness as of then. Its footer now says the day the variable names and the age as of that day (the
    HTML export carries the figure's text; no browser needed)."""
    from charts.__main__ import main
    day = dt.date(2026, 9, 1)
    monkeypatch.setenv(vdata.TODAY_ENV, day.isoformat())
    out = tmp_path / "trac.html"
    assert main(["export", "--series", TRAC_ICE, "--preset", "all", "--size", "article", "--out", str(out)]) == 0
    # The footer's text, as the figure's JSON in the page carries it.
    at = re.search(r'"text":("Sources: TRAC; (?:[^"\\]|\\.)*")', out.read_text("utf-8"))
    assert at, "no footer in the HTML export"
    words = json.loads(at[1]).replace("<br>", " ")
    assert "data to 2026-07-11. This snapshot holds no newer data from TRAC (31 days late)." in words, words
    assert f"Generated on {day} " in words, words


def test_a_command_line_csv_says_the_pages_day_as_its_export_and_citation_date(monkeypatch, tmp_path):
    from charts.__main__ import main
    day = dt.date(2026, 9, 1)
    monkeypatch.setenv(vdata.TODAY_ENV, day.isoformat())
    out = tmp_path / "trac.csv"
    assert main(["export", "--series", TRAC_ICE, "--preset", "all", "--lang", "es", "--out", str(out)]) == 0
    head = [line for line in out.read_text("utf-8").splitlines() if line.startswith("#")]
    assert f"# Exportado el {day} de " in "\n".join(head), head
    assert any(f"consultado el {day}." in line for line in head), head


def test_a_bad_day_stops_the_command_line_export_with_one_line(monkeypatch, tmp_path, capsys):
    from charts.__main__ import main
    monkeypatch.setenv(vdata.TODAY_ENV, "2026-09-31")
    assert main(["export", "--series", TRAC_ICE, "--out", str(tmp_path / "trac.csv")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: DASHBOARD_TODAY='2026-09-31' is not a real YYYY-MM-DD date", err
    assert not (tmp_path / "trac.csv").exists()


def test_loaders_status_counts_from_the_pages_day(monkeypatch, capsys):
    """`python -m loaders status` judged each source against the machine's clock: the same day as the page's."""
    from loaders.__main__ import main
    monkeypatch.setenv(vdata.TODAY_ENV, "2026-09-01")
    assert main(["status"]) == 0
    row = next(line.split() for line in capsys.readouterr().out.splitlines() if line.split()[:1] == ["trac_detention"])
    assert row[4] == "52" and "(31 days past cadence)" in " ".join(row), row  # 2026-07-11 + 52 days
    monkeypatch.setenv(vdata.TODAY_ENV, "2026-9-1")
    assert main(["status"]) == 2
    assert capsys.readouterr().err.strip() == "error: DASHBOARD_TODAY='2026-9-1' is not a real YYYY-MM-DD date"


def test_a_command_line_map_says_the_pages_day(monkeypatch, tmp_path):
    """The Places maps printed the machine's date under the map (the page's and the command line's alike; the
    static site swapped the date module under them to print its build date)."""
    from charts.__main__ import main
    monkeypatch.setenv(vdata.TODAY_ENV, "2026-09-01")
    out = tmp_path / "states.html"
    assert main(["export", "--view", "places", "--map", "state", "--out", str(out)]) == 0
    assert "Generated 2026-09-01 with " in out.read_text("utf-8")


def test_no_output_counts_from_the_machines_clock():
    """Every date an output prints (an image's "generated on", a CSV's export date, a citation's access date, a
    map's footer, a deaths map's open end) is given, or is the page's day (loaders.clock): none reads the clock
    itself, so DASHBOARD_TODAY reaches every one."""
    found = [f"{p.relative_to(ROOT)}:{i}" for layer in ("charts", "views", "figures", "page")
             for p in sorted((ROOT / layer).rglob("*.py"))
             for i, line in enumerate(p.read_text("utf-8").splitlines(), 1)
             if re.search(r"\bdate\.today\(\)|\bdatetime\.now\(", line) and not line.lstrip().startswith("#")]
    assert not found, found
