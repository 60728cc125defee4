"""The page in Spanish (lang=es in the link), under Streamlit's AppTest: no visible element shows an English
message of the catalogue, the language and separators stay in the address bar, and the chart carries
Plotly's Spanish locale."""
import html
import json
import re
import tomllib

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from wording import i18n

with open(i18n.LOCALES / "identical.toml", "rb") as fh:
    SAME = set(tomllib.load(fh)["keys"])

# Texts that are English in any language, reviewed: names of sources and publishers as published, the
# switch's own bilingual label, and data (series ids, facility names, members) shown as they are.
ALLOWED = {"Idioma / Language", "English"}


def english_messages() -> list[str]:
    """The English catalogue's messages a page could show: those that differ from their Spanish, with the text
    before their first placeholder (at least 12 characters) standing for the formatted ones."""
    en, es = i18n.catalogue("en"), i18n.catalogue("es")
    spanish = set(es.values())  # "Series" is a Spanish message too (the trends picker's label)
    out = []
    for k, v in en.items():
        if k in SAME or es.get(k) == v or v in spanish:
            continue
        head = re.split(r"\{[^}]*\}", v)[0].strip()
        if i18n.fields_of(v):
            if len(head) >= 12:
                out.append(head)
        elif len(v) >= 4:
            out.append(v)
    return out


def app(query: dict) -> AppTest:
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=180)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


# Widgets whose value is an option's internal value ("facilities"), shown to the reader through format_func.
CHOICE_WIDGETS = {"radio", "selectbox", "multiselect", "select_slider"}


def visible_texts(at: AppTest) -> list[str]:
    """Every label, value, caption, help text and option an element of the page shows."""
    texts = []

    def walk(node):
        proto = getattr(node, "proto", None)
        for attr in ("label", "value", "body", "help", "caption", "placeholder"):
            if attr == "value" and getattr(node, "type", "") in CHOICE_WIDGETS:
                continue  # a choice's value is the option as the code knows it; the reader sees its options
            v = getattr(node, attr, None)
            if isinstance(v, str) and v:
                texts.append(v)
        for attr in ("options",):
            v = getattr(node, attr, None)
            if isinstance(v, (list, tuple)):
                texts.extend(o for o in v if isinstance(o, str))
        if proto is not None and hasattr(proto, "label") and isinstance(proto.label, str) and proto.label:
            texts.append(proto.label)
        for child in getattr(node, "children", {}).values() if isinstance(getattr(node, "children", None), dict) else []:
            walk(child)

    walk(at._tree)
    return texts


def offenders(at: AppTest) -> list[str]:
    english = english_messages()
    bad = []
    for text in visible_texts(at):
        if text in ALLOWED:
            continue
        for msg in english:
            # The whole message, or a text that starts with it and goes on past a word's end ("Export" is
            # not "Exportar").
            if text == msg or (text.startswith(msg) and not text[len(msg)].isalpha()):
                bad.append(f"{text[:90]!r} (catalogue: {msg[:50]!r})")
                break
    return bad


@pytest.fixture(scope="module")
def es():
    return app({"lang": "es"})


def test_the_spanish_page_shows_no_english_message(es):
    assert not es.exception, [e.message for e in es.exception]
    texts = visible_texts(es)
    assert "Tendencias y acontecimientos" in texts and "Opciones del gráfico" in texts  # the walk sees the page
    assert offenders(es) == []


def test_the_check_finds_english_on_the_english_page():
    """The same check on the English page finds the English messages: it can fail."""
    en = app({})
    found = offenders(en)
    assert any("Chart options" in f for f in found) and any("Trends and events" in f for f in found)


def test_headline_cards_tabs_and_link_are_spanish(es):
    assert es.markdown[0].value == "**Personas en detención de ICE**"
    assert [o.content for o in es.get("button_group")[0].proto.options][:2] == ["Tendencias y acontecimientos",
                                                                      "Estudio de acontecimientos"]
    assert es.query_params["lang"] == ["es"] or es.query_params["lang"] == "es"


def test_the_chart_carries_the_spanish_locale_and_separators():
    at = app({"lang": "es", "sep": "."})
    assert not at.exception
    chart = at.get("plotly_chart")[0].proto
    config = json.loads(chart.config) if chart.config else {}
    assert config.get("locale") == "es" and config["locales"]["es"]["format"]["shortMonths"][0] == "Ene"
    fig = json.loads(chart.spec)
    assert fig["layout"]["separators"] == ",."
    assert "Generado el" in json.dumps(fig["layout"], ensure_ascii=False)
    assert re.search(r"\*\*\d+\\?\.\d{3}\*\*", " ".join(m.value for m in at.markdown))  # cards: **65.765**
    assert at.query_params["sep"] in (".", ["."])


def test_the_sources_tab_in_spanish_shows_the_glossary():
    at = app({"lang": "es", "tab": "sources"})
    assert not at.exception, [e.message for e in at.exception]
    assert "Glosario: una palabra para cada cosa, en inglés y en español" in [s.value for s in at.subheader]
    assert offenders(at) == []


def test_the_event_study_tab_in_spanish():
    at = app({"lang": "es", "tab": "study"})
    assert not at.exception, [e.message for e in at.exception]
    labels = [s.label for s in at.selectbox]
    assert "Acontecimiento" in labels and "Serie" in labels
    assert offenders(at) == []
    # The study's computed note and table are Spanish too (the catalogue check cannot see them: they start
    # with a number).
    assert any(" frente a " in c.value for c in at.caption), [c.value for c in at.caption]
    assert not any(" against " in c.value or "whole" in c.value for c in at.caption)
    assert any("promedio por día antes" in d.value.columns for d in at.dataframe)


def test_the_releases_tab_in_spanish():
    at = app({"lang": "es", "tab": "releases"})
    assert not at.exception, [e.message for e in at.exception]
    assert "Novedades de la última publicación de cada fuente" in [s.value for s in at.subheader]
    assert any("ingresos en detención, no arrestos" in c.value for c in at.code)
    assert offenders(at) == []
    # The ledger's cells in Spanish (its column names and codes stay as the command line prints them).
    ledger_rows = next(d.value for d in at.dataframe if "key_figures" in d.value.columns)
    assert ledger_rows["key_figures"].str.startswith("personas detenidas: ").any()
    assert not ledger_rows["changed_since_previous"].str.contains(" against ").any()


def figure_texts(at: AppTest) -> list[str]:
    """The words inside each chart: title, subtitle, footer lines, legend names, axis and colour-bar titles."""
    out = []
    for c in at.get("plotly_chart"):
        fig = json.loads(c.proto.spec)
        lay = fig["layout"]
        out += re.split(r"<br>|<sup>|</sup>|<b>|</b>", lay.get("title", {}).get("text", ""))
        out += [w for a in lay.get("annotations", []) for w in re.split(r"<br>", a.get("text", ""))]
        out += [d["name"] for d in fig["data"] if d.get("name")]
        out += [d.get("colorbar", {}).get("title", {}).get("text", "") for d in fig["data"]]
        out += [lay.get(ax, {}).get("title", {}).get("text", "") for ax in ("yaxis", "xaxis")]
    return [html.unescape(x.strip()) for x in out if x and x.strip()]


def english_in(texts: list[str]) -> list[str]:
    english = english_messages()
    return [f"{x[:90]!r}" for x in texts if any(x == m or (x.startswith(m) and not x[len(m)].isalpha())
                                                 for m in english)]


def test_the_places_tab_in_spanish():
    """Every map, control, caption, note and table label of the Places tab, in Spanish: the state map, the
    facilities map, a search, one facility's history and one state's view."""
    at = app({"lang": "es", "tab": "places"})
    assert not at.exception, [e.message for e in at.exception]
    assert "Un centro" in [s.value for s in at.subheader]
    assert any(t.startswith("Personas en detención de ICE por estado") for t in figure_texts(at))
    assert offenders(at) == [] and english_in(figure_texts(at)) == []
    # Through the permalink, not the widgets: AppTest formats every radio's options in the test process, where
    # the page's language (session state) is not set, so setting a widget on the Spanish page fails there.
    at = app({"lang": "es", "view": "places", "map": "facilities", "facility": "JENADLA", "state": "TX"})
    assert not at.exception, [e.message for e in at.exception]
    texts = figure_texts(at)
    assert any("Personas en detención de ICE en Texas" in t for t in texts)
    assert offenders(at) == [] and english_in(texts) == []
    assert any("imputado" in c.value for c in at.caption)
    # The tables' headers (and the facility row's labels) in words: no machine name (detained_adp) is shown.
    machine = {k.split(".")[-1] for k in i18n.catalogue("en") if k.startswith("places.col.")}
    frames = [d.value for d in at.dataframe]
    shown = [str(c) for f in frames for c in list(f.columns) + (list(f.index) if f.index.dtype == object else [])]
    assert len(frames) >= 4 and "nombre" in shown and "ciudad" in shown and "oficina regional" in shown
    assert sorted(set(shown) & machine) == []


def test_the_places_check_finds_english_figures():
    """The figure check on the English Places tab finds the English titles: it can fail."""
    at = app({"tab": "places"})
    assert any("People held in ICE detention by state" in f for f in english_in(figure_texts(at)))
