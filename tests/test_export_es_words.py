"""Every export of a Spanish chart is Spanish (issue 38): the figure's texts and hover boxes, the HTML page, the
CSVs' header lines, the events CSV and the file names hold no English word of the catalogue.

The English words are built from the catalogues, not listed by hand: every word of an English message that no
Spanish message uses (so words spelt the same in both, such as "total", "series" or "ICE", never count). What is
data and kept as published is left out: the sources' names, titles and credit lines, the outlets an event or a
reported figure cites, members of a breakdown (facility names), and links. Before this, the hover boxes said
"as cited by", "citing", "copy on ... of", "unverified" and "digitised", and the file name was
"arrestos-por-d-a-...-to-...".
"""
from __future__ import annotations

import datetime as dt
import html
import json
import re
import tomllib

import numpy as np
import pandas as pd
import pytest

from analysis.view import View
from charts import export
from charts.context import load_context
from figures.core import source_lines
from figures.events import events_csv
from loaders import data as cdata
from views.compose import render
from wording import i18n

LOCALES = i18n.LOCALES
DAY = dt.date(2026, 12, 1)
WORD = re.compile(r"[^\W\d_]{3,}")  # a word of three letters or more ("to", "of" are caught in file names)


def _values(path) -> list[str]:
    out: list[str] = []

    def walk(d):
        for v in d.values():
            walk(v) if isinstance(v, dict) else out.append(str(v))
    with open(path, "rb") as fh:
        walk(tomllib.load(fh))
    return out


def words(text: str) -> set[str]:
    text = re.sub(r"<[^>]+>", " ", text)  # Plotly's markup (<b>, <span style=...>) is not text
    text = re.sub(r"https?://\S+|\b[\w.-]+\.(?:com|org|gov|edu|news|net|shop|sbs|live|co|substack)\b", " ", text)
    return {w.casefold() for w in WORD.findall(re.sub(r"\{[^}]*\}", " ", html.unescape(text)))}


@pytest.fixture(scope="module")
def context():
    return load_context(cdata.DATA)


@pytest.fixture(scope="module")
def english(context) -> set[str]:
    """English words of the catalogue that the Spanish catalogue never uses, less the words of data kept as
    published."""
    en = set().union(*map(words, _values(LOCALES / "en.toml")))
    es = set().union(*map(words, _values(LOCALES / "es.toml")))
    snap, events, reported = context
    names: set[str] = set()
    for sid in snap.manifest.get("sources", {}) or {}:
        e = snap.source_entry(sid)
        for k in ("publisher", "title", "attribution", "licence"):
            names |= words(str(e.get(k) or ""))
    for col in ("source_name", "original_outlet"):
        names |= set().union(*map(words, events[col].fillna("").astype(str)))
    names |= set().union(*map(words, reported["original_outlet"].fillna("").astype(str)))
    # The original's title, cited as published (issue 37: "cite as <outlet>, «<title>», <date>").
    names |= set().union(*map(words, events["original_title"].fillna("").astype(str)))
    names |= set().union(*map(words, reported["original_title"].fillna("").astype(str)))
    names |= set().union(*map(words, snap.obs["key"].fillna("").astype(str).unique()))
    # A word both in a row's English text and in its Spanish translation is a name kept as it is ("Operation
    # Metro Surge", "One Big Beautiful Bill Act").
    for e in events.itertuples(index=False):
        for col in ("title", "description"):
            names |= words(str(getattr(e, col))) & words(i18n.event_text(str(e.id), col, "es", ""))
    for sid in snap.catalogue.index:
        for col in ("title", "definition"):
            names |= words(str(snap.info(sid)[col])) & words(i18n.series_text(sid, col, "es", ""))
    declared = pd.read_csv(cdata.DATA / "publication_status.csv", dtype=str, keep_default_na=False)
    names |= set().union(*map(words, declared["evidence_source"]))  # documents named as written
    for english_text, row in i18n._table("reported_figures.es.csv").items():
        names |= words(english_text) & words(row["text"])
    return en - es - names


def found(text: str, english: set[str]) -> list[str]:
    return sorted(words(text) & english)


VIEWS = {
    # the page's default view: arrests per day, reported figures of every kind, events with copied links
    "default": View(lang="es"),
    "detention": View(series=["ice_detention_stats.detained_ice", "ice_detention_stats.book_ins_ice"],
                      preset="all", lang="es", sep="."),
}


@pytest.fixture(scope="module", params=list(VIEWS))
def rendered(request, context):
    snap, events, reported = context
    return snap, render(snap, VIEWS[request.param], events=events, reported=reported, size="full",
                        generated_on=DAY)


def _figure_text(fig) -> list[str]:
    out: list[str] = []

    def walk(o, key=None, drawn_name=True):
        if isinstance(o, dict):
            for k, v in o.items():
                # "meta": data Plotly does not draw (the HTML prints its source lines, checked there); an
                # annotation's "name" is an id for templates, never drawn.
                if k != "meta" and not (k == "name" and not drawn_name):
                    walk(v, k, drawn_name)
        elif isinstance(o, (list, tuple, np.ndarray)):
            for v in (o.tolist() if isinstance(o, np.ndarray) else o):
                walk(v, key, drawn_name and key != "annotations")
        elif isinstance(o, str) and key in ("text", "name", "hovertext", "hovertemplate", "texttemplate", "ticktext"):
            out.append(o)
    walk(fig.to_plotly_json())
    return out


def test_the_figure_and_its_hover_boxes_hold_no_english_word(rendered, english):
    _, r = rendered
    bad = {t[-300:]: found(t, english) for t in _figure_text(r.figure) if found(t, english)}
    assert not bad, json.dumps(dict(list(bad.items())[:8]), ensure_ascii=False, indent=1)


def test_the_html_export_holds_no_english_word(rendered, english):
    _, r = rendered
    page = export.export_figure(r, "html").decode("utf-8")
    # The page's own text (outside plotly.js and the figure's data, checked above) and what it prints under
    # the chart.
    visible = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    visible = re.sub(r"<style.*?</style>", " ", visible, flags=re.S)
    visible = re.sub(r"<[^>]+>", " ", visible)
    assert found(visible, english) == [], visible[:600]


def test_the_csv_header_lines_and_the_events_csv_hold_no_english_word(rendered, english):
    snap, r = rendered
    src = source_lines(snap, r.prepared, "es")
    cite = export.citation(snap, r.prepared, lang="es")
    long = export.to_csv(export.export_table(r), sources=list(src) + r.notes, title=r.title, lang="es", citation_text=cite)
    wide = export.wide_csv(r, sources=list(src), title=r.title, lang="es", citation_text=cite)
    ev = events_csv(r.events, generated_on=DAY, lang="es")
    for name, data in (("csv", long), ("wide", wide), ("events", ev)):
        head = [ln for ln in data.decode("utf-8").splitlines() if ln.startswith("#")]
        assert head, name
        bad = {ln[:160]: found(ln, english) for ln in head if found(ln, english)}
        assert not bad, (name, bad)
    table = pd.read_csv(__import__("io").BytesIO(ev), comment="#")
    assert set(table["category_label"]) <= {i18n.t("category." + c, "es") for c in table["category"]}


def test_file_names_are_spanish_with_accents_made_plain(rendered, english):
    _, r = rendered
    stem = export.file_stem(r)
    names = [stem, export.file_stem(r, "article"), export.file_stem(r, "social"), export.file_stem(r, "full"),
             export.file_word("wide", "es"), export.file_word("events", "es"), export.file_word("dataset", "es")]
    for n in names:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", n), n
        tokens = set(n.split("-"))
        assert not tokens & (english | {"to", "of", "by", "on"}), (n, tokens & english)
    assert "-del-" in stem and "-al-" in stem


@pytest.mark.parametrize("text, name", [("Arrestos por día", "arrestos-por-dia"),
                                        ("Niños en detención: ¿cuántos?", "ninos-en-detencion-cuantos"),
                                        ("Año fiscal 2025 — expulsiones", "ano-fiscal-2025-expulsiones"),
                                        ("ﬁle ²", "file-2"), ("", "chart")])
def test_slug_keeps_the_letters_of_accented_words(text, name):
    assert export.slug(text) == name


def test_english_file_names_are_as_before(context):
    snap, events, reported = context
    r = render(snap, View(), events=events, reported=reported, size="page", generated_on=DAY)
    assert export.file_stem(r, "article").endswith("-to-2026-07-31-article")
    assert [export.file_word(w) for w in ("wide", "events", "size_social", "size_full")] == \
        ["wide", "events", "social", "full"]


def test_every_reported_figures_unit_and_reporter_has_spanish_words():
    rows = pd.read_csv(cdata.DATA / "reported_figures.csv", dtype=str, keep_default_na=False)
    table = i18n._table("reported_figures.es.csv")
    missing = sorted({t for col in ("unit", "reported_by") for t in rows[col] if t and t not in table})
    assert not missing, f"add these to {LOCALES / 'reported_figures.es.csv'}: {missing}"


def test_a_maps_long_subtitle_is_wrapped_to_the_figure(context):
    # The facility map's Spanish subtitle ("202 de 203 centros dibujados en lugares aproximados: ...") was one
    # line that ran past the right edge of the page's 1,120 px figure; the footer under it was wrapped.
    from analysis import places as P
    from views.places import PlacesView
    from views.places import render as render_places
    snap = context[0]
    r = render_places(snap, P.build(snap), PlacesView(map="facilities"), lang="es")
    title = r.figure.layout.title.text
    lines = [re.sub(r"<[^>]+>", "", x) for x in title.split("<br>")]
    assert len(lines) > 2, title  # the subtitle took more than one line
    assert all(len(x) <= 170 for x in lines), lines
    assert r.figure.layout.margin.t > 100  # the title's extra lines have room above the plot
