"""Exports in Spanish: every text drawn or written comes from the Spanish catalogue, numbers take the chosen
separators, dates on the axis use Plotly's Spanish locale (bundled, no network), and the CSV keeps English
machine-readable columns and ISO dates under Spanish header lines."""
import datetime as dt
import io
import json
import re

import pandas as pd
import pytest

from analysis.view import View
from charts import export
from charts.__main__ import main
from figures.core import source_lines
from loaders import data as cdata
from tests import bundled
from views.compose import render
from views.link import view_from_link
from wording import i18n

SNAP = bundled.snapshot()
SERIES = ["trac_detention.detained_total", "trac_detention.detained_ice"]
EN = View(series=SERIES, preset="custom", start=dt.date(2025, 1, 1), end=dt.date(2025, 12, 31))
ES = View(series=SERIES, preset="custom", start=dt.date(2025, 1, 1), end=dt.date(2025, 12, 31), lang="es", sep=".")
DAY = dt.date(2026, 11, 29)

needs_browser = pytest.mark.skipif(export.find_browser() is None,
                                   reason="no Chrome/Chromium found for image export (make test installs Debian's)")


@pytest.fixture(scope="module")
def es():
    return render(SNAP, ES, generated_on=DAY, size="article")


def _layout_text(r) -> str:
    return json.dumps(r.figure.to_plotly_json()["layout"], ensure_ascii=False).replace("<br>", " ")


def test_spanish_figure_texts_come_from_the_catalogue(es):
    lay = _layout_text(es)
    assert "Personas en detención de ICE" in lay
    assert "del 2025-01-01 al 2025-12-31" in lay
    assert "Fuente: Transactional Records Access Clearinghouse" in lay  # the publisher's name as published
    assert "datos hasta el 2025-12" in lay
    assert i18n.t("figure.generated_on", "es", date="2026-11-29") in lay
    for english in ("Generated on", "Source: ", "data to ", "People in ICE detention", "latest release used"):
        assert english not in lay, english


def test_the_english_figure_is_unchanged_by_the_option():
    en = render(SNAP, EN, generated_on=DAY, size="article")
    lay = en.figure.to_plotly_json()["layout"]
    assert "separators" not in lay  # the default English figure is what it was before
    assert "Generated on 2026-11-29" in json.dumps(lay)


def test_separators_are_a_choice_apart_from_the_language(es):
    assert es.figure.layout.separators == ",."  # decimal ",", thousands "."
    comma = render(SNAP, View(**{**ES.__dict__, "sep": ","}), generated_on=DAY, size="article")
    assert comma.figure.layout.separators == ".,"
    # Alt text numbers follow the choice too.
    assert re.search(r"\d\.\d{3}", es.alt) and not re.search(r"\d,\d{3}", es.alt)
    assert re.search(r"\d,\d{3}", comma.alt)


def test_spanish_alt_text(es):
    assert es.alt.startswith("Gráfico de líneas, del 1 de enero de 2025 al 31 de diciembre de 2025")
    assert " rose " not in es.alt and " fell " not in es.alt and "about" not in es.alt


def test_events_on_a_spanish_chart_are_in_spanish():
    from charts.context import load_context
    snap, events, reported = load_context(cdata.DATA)
    v = View(series=["ddp_arrests_aggregates.weekly_national_digitised"], lang="es")
    r = render(snap, v, events=events, reported=reported, generated_on=DAY, size="full")
    assert r.events is not None and len(r.events)
    # an article-size figure's key is Spanish too: its head, the Spanish titles it lists, what it leaves off
    small_r = render(snap, v, events=events, reported=reported, generated_on=DAY, size="article")
    small = _layout_text(small_r)
    assert "Acontecimientos (líneas de puntos, numeradas arriba" in small and "no se dibujan a este tamaño" in small
    drawn = {n for t in small_r.figure.data if t.customdata is not None for g in t.customdata for n in g}
    assert drawn and all(f"{e.label} {e.date:%Y-%m-%d} {e.title}" in small.replace("<br>", " ")
                         for e in small_r.events.itertuples() if e.label in drawn)
    es_titles = {row["id"]: row["title"] for row in pd.read_csv(i18n.LOCALES / "events.es.csv").to_dict("records")}
    assert r.events["title"].tolist() == [es_titles[i] for i in r.events["id"]]
    lay = _layout_text(r)
    assert "Acontecimientos (numerados en la parte superior" in lay
    assert "Acontecimiento: personal" in json.dumps([t.get("name") for t in r.figure.to_plotly_json()["data"]],
                                                      ensure_ascii=False)


def test_spanish_csv_keeps_machine_columns_and_translates_headers(es):
    cite = export.citation(SNAP, es.prepared, lang="es", retrieved=DAY)
    raw = export.to_csv(export.export_table(es), sources=source_lines(SNAP, es.prepared, "es"), title=es.title, lang="es",
                        citation_text=cite, generated_on=DAY).decode()
    head = [line for line in raw.splitlines() if line.startswith("#")]
    assert head[0] == f"# {es.title}" and head[0].startswith("# Personas en detención de ICE")
    assert any(h.startswith("# Fuente: ") for h in head)
    assert any(h.startswith("# Cita: ") and "Elaborado con" in h and "consultado el 2026-11-29" in h for h in head)
    assert head[-1].startswith("# Exportado el 2026-11-29 de Control migratorio en EE. UU.")
    body = pd.read_csv(io.StringIO(raw), comment="#")
    assert list(body.columns) == list(export.export_table(es).columns)  # English, machine-readable
    assert body["date"].str.fullmatch(r"\d{4}-\d\d-\d\d").all()
    assert body["value"].dtype.kind in "if"  # numbers stay numbers (whole counts as integers): no "75.000" in the data rows


def test_spanish_html_registers_the_bundled_locale_offline(es):
    page = export.export_figure(es, "html").decode()
    assert page.startswith("<!DOCTYPE html>\n<html lang=\"es\">") or '<html lang="es">' in page[:200]
    assert '"locale": "es"' in page
    assert "Autoescalar" in page  # the locale's own text, inlined
    assert page.index("Autoescalar") < page.index("Plotly.newPlot")
    assert not re.search(r"<script[^>]+src=\"https?://", page)  # nothing loaded from a CDN
    assert "Descripción: Gráfico de líneas" in page


def test_bundled_locale_is_plotlys_spanish():
    with open(export.LOCALE_FILES["es"], encoding="utf-8") as fh:
        text = fh.read()
    assert 'moduleType:"locale",name:"es"' in text and "Ene" in text and "Plotly.register(locale)" in text


@needs_browser
@pytest.mark.browser
def test_spanish_svg_axis_months_are_spanish(es):
    svg = export.export_figure(es, "svg").decode()
    ticks = re.findall(r'class="xtick"[^>]*>.*?<text[^>]*>([^<]+)</text>', svg)
    months = " ".join(ticks) or " ".join(re.findall(r">([A-Z][a-z]{2}) 20\d\d<", svg))
    assert re.search(r"\b(Ene|Abr|Ago|Dic)\b", months), months
    assert not re.search(r"\b(Jan|Apr|Aug|Dec)\b", months), months
    # The next English image is English again: the locale does not stick to the shared browser.
    en = render(SNAP, EN, generated_on=DAY, size="article")
    svg_en = export.export_figure(en, "svg").decode()
    assert re.search(r">(Jan|Apr|Jul|Oct) 2025<", svg_en) and not re.search(r">(Ene|Abr) 2025<", svg_en)


def test_link_notes_and_cli_errors_in_spanish(tmp_path, capsys):
    _, notes = view_from_link({"lang": "es", "series": "trac_detention.detained_total,no.such", "rolling": "5"}, SNAP)
    assert any(n.startswith("Se dejaron fuera estas series del enlace") for n in notes)
    assert any(n.startswith("No se ofrece un promedio móvil de 5 días") for n in notes)
    assert main(["export", "--lang", "es", "--series", "no.such", "--out", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert "serie desconocida no.such" in err and "unknown series" not in err
    assert main(["export", "--lang", "es", "--series", SERIES[0], "--format", "csv", "--out", str(tmp_path)]) == 2
    assert "es una carpeta" in capsys.readouterr().err


def test_cli_csv_in_spanish(tmp_path, capsys):
    out = tmp_path / "es.csv"
    assert main(["export", "--lang", "es", "--separators", ".", "--series", SERIES[0], "--preset", "all",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("escrito ") and "texto alternativo: Gráfico de líneas" in printed
    text = out.read_text(encoding="utf-8")
    assert text.startswith("# Personas en detención de ICE") and "# Cita: " in text
    body = pd.read_csv(io.StringIO(text), comment="#")
    assert {"series", "date", "value"} <= set(body.columns)


def test_static_site_in_spanish(tmp_path):
    from charts.site import build_site
    views = [{"series": "ice_detention_stats.detained_total", "preset": "since-2025-01-20"}]
    pages = build_site(tmp_path / "site", views=views, images=False, lang="es", separators=".", log=lambda m: None,
                       date="2026-11-29")
    page = (tmp_path / "site" / f"{pages[0].slug}.html").read_text(encoding="utf-8")
    assert '<html lang="es">' in page and "assets/plotly-locale-es.js" in page and '"locale": "es"' in page
    for spanish in ("Fechas de los datos", "Descargas", "Cita", "Todos los gráficos", "Generado el 2026-11-29"):
        assert spanish in page, spanish
    for english in ("Data dates", "Downloads", "All charts", "Built on "):
        assert english not in page, english
    with open(export.LOCALE_FILES["es"]) as fh:
        bundled_locale = fh.read()
    assert (tmp_path / "site" / "assets" / "plotly-locale-es.js").read_text() == bundled_locale
    csv = (tmp_path / "site" / f"{pages[0].slug}.csv").read_text(encoding="utf-8")
    assert csv.startswith("# Personas en detención de ICE") and "# Cita: " in csv
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "Control migratorio en EE. UU." in index


ES_DATE_WORDS = re.compile(r"\b\d{1,2} de (?:%s) de \d{4}\b|\b(?:%s) de \d{4}\b|año fiscal \d{4}" % (
    "|".join(i18n.MONTHS["es"]), "|".join(i18n.MONTHS["es"])))


def test_release_summaries_in_spanish_say_the_same_numbers():
    """The Spanish what's-new sentences carry the same checked facts as the English, every number written is
    one of them, and the glossary's words hold (book-ins are 'ingresos en detención', never 'arrestos' alone)."""
    from loaders import ledger
    en, es = ledger.whats_new_all(SNAP), ledger.whats_new_all(SNAP, "es")
    assert en.keys() == es.keys() and en
    for src in en:
        assert [s.facts for s in en[src]] == [s.facts for s in es[src]], src
        for s_en, s_es in zip(en[src], es[src]):
            assert s_en.text != s_es.text
            numbers = ledger.NUMBER.findall(ES_DATE_WORDS.sub("", s_es.text))
            allowed = {f"{abs(f.number):,.0f}" for f in s_es.facts}
            assert numbers and set(numbers) <= allowed, (s_es.text, numbers, allowed)
            for english in (" than ", " people ", " in its ", "release of"):
                assert english not in s_es.text, (english, s_es.text)
            if "booked" in s_en.text:
                assert "ingreso en detención" in s_es.text and "(ingresos en detención, no arrestos)" in s_es.text
    cite = ledger.citation_text(SNAP, lang="es")
    assert "Fuente: U.S. Immigration and Customs Enforcement" in cite


def test_headline_cards_in_spanish_carry_the_same_figures():
    from analysis.overview import headlines
    day = dt.date(2026, 11, 29)
    en, es = headlines(SNAP, day), headlines(SNAP, day, "es", ".")
    assert [(h.series_id, h.value, h.previous, h.data_date, h.release) for h in en] == \
        [(h.series_id, h.value, h.previous, h.data_date, h.release) for h in es]
    en_words = {h.label for h in en} | {h.statement for h in en} | {h.comparison for h in en}
    for h in es:
        assert h.label not in en_words and h.statement not in en_words and h.comparison not in en_words
        assert h.statement[:1].isupper()
        assert not re.search(r"\d,\d{3}", h.statement + h.comparison)  # "." chosen: 65.765, not 65,765
    assert headlines(SNAP, day)[0].statement == en[0].statement  # the language does not stick


def test_page_charts_carry_the_spanish_locale_as_data():
    """Streamlit draws the page's charts with its own plotly.js, where no locale script can run: the locale goes
    in the chart's config (config.locales), read from the bundled file."""
    cfg = export.plotly_config("es", displaylogo=False)
    assert cfg["locale"] == "es" and cfg["displaylogo"] is False
    loc = cfg["locales"]["es"]
    assert loc["format"]["shortMonths"][0] == "Ene" and loc["dictionary"]["Autoscale"] == "Autoescalar"
    assert export.plotly_config("en", displaylogo=False) == {"displaylogo": False}


def test_glossary_rows_for_the_sources_view():
    rows = i18n.glossary_rows("es")
    assert rows and set(rows[0]) == {"Inglés", "Español", "Qué es"}
    by_en = {r["Inglés"]: r["Español"] for r in rows}
    assert by_en["book-in (initial book-in into detention)"] == "ingreso en detención"
    assert set(i18n.glossary_rows("en")[0]) == {"English", "Spanish", "What it is"}


def test_publication_status_words_in_spanish():
    from analysis import status
    day = dt.date(2026, 11, 29)
    for s in status.publication_status(SNAP, day):
        es = status.status_text(s.status, "es")
        assert es != s.status, s.status  # every status the snapshot gives is known to the patterns
    assert status.status_text("late (12 days past its 14-day cadence)", "es") == \
        "con retraso (12 días más allá de su ritmo de 14 días)"
    assert status.status_text("publication stopped (reported, not verified)", "es") == \
        "dejó de publicarse (según se informa, sin verificar)"


def test_the_status_table_cells_in_spanish():
    """The publication-status table the Sources and Releases tabs show: in Spanish its status words, its own
    words in cells and its headers; in English exactly as before (columns and cells)."""
    from analysis import status
    day = dt.date(2026, 11, 29)
    statuses = status.publication_status(SNAP, day)
    en, es = status.status_table(statuses), status.status_table(statuses, "es")
    assert list(en.columns) == list(status.STATUS_COLUMNS) and len(en) == len(es)
    assert "estado" in es.columns and "continúa en" in es.columns
    assert list(es["estado"]) == [status.status_text(s, "es") for s in en["status"]]
    assert not any(w in " ".join(es["continúa en"]) for w in ("data to ", "no data in this snapshot"))
    assert any("datos hasta el " in c for c in es["continúa en"]) or not any("data to " in c for c in en["continues_in"])
    assert not any("; not verified]" in c for c in es["pruebas"])
    assert any("; not verified]" in c for c in en["evidence"]) == any("; sin verificar]" in c for c in es["pruebas"])


def test_the_continuity_charts_in_spanish():
    """The Releases tab's continuity charts: title, legend, notes and axis in Spanish; English unchanged."""
    import json

    from figures import continuity
    day = dt.date(2026, 11, 29)
    for measure in ("detained", "arrests"):
        en = continuity.continuity_spec(SNAP, measure, generated_on=day)
        es = continuity.continuity_spec(SNAP, measure, generated_on=day, lang="es")
        text = json.dumps(es["layout"], ensure_ascii=False) + " ".join(t["name"] for t in es["data"])
        assert "todas las fuentes" in es["layout"]["title"]["text"] and "Generado el 2026-11-29" in text
        for english in ("every source", "data to ", "Where sources overlap", "Shaded:", "median absolute"):
            assert english not in text, english
        assert any(w in json.dumps(en["layout"]) for w in ("Where sources overlap",))
        assert [t["y"] for t in en["data"]] == [t["y"] for t in es["data"]]  # the same figures


@pytest.mark.slow
def test_the_static_sites_places_page_follows_the_language():
    """`python -m charts site --lang es` once left the Places page in English; now its map, alt text, dates line,
    citation and CSV header lines are Spanish, and the English page is as before."""
    import datetime as dt

    from charts.site import places_page
    from loaders.data import load_snapshot
    from tests.conftest import ROOT
    snap = load_snapshot(ROOT / "data")
    day = dt.date(2026, 12, 1)
    es = places_page(snap, {"view": "places", "map": "state", "lang": "es"}, day, "https://example.org/app")
    en = places_page(snap, {"view": "places", "map": "state"}, day, "https://example.org/app")
    assert es.lang == "es" and es.query["lang"] == "es" and "lang" not in en.query
    assert es.dates[0].startswith("Publicación mostrada:") and en.dates[0].startswith("Release shown:")
    assert es.alt.startswith("Mapa de Estados Unidos") and en.alt.startswith("Map of the United States")
    assert "Elaborado con" in es.citation and "lang=es" in es.citation and "Compiled with" in en.citation
    assert es.title != en.title  # the map title is the Spanish one


def test_the_places_export_follows_the_language(tmp_path):
    """`python -m charts export --view places --lang es` once wrote English: its title and source lines are
    Spanish now, and the columns stay machine-readable English."""
    out = tmp_path / "states.csv"
    assert main(["export", "--view", "places", "--map", "state", "--lang", "es", "--format", "csv",
                 "--out", str(out)]) == 0
    text = out.read_text("utf-8")
    assert text.startswith("# Personas en detención de ICE por estado")
    assert "Idioma de estas líneas de encabezado: español" in text
    assert "\nstate,state_name,detained_adp," in text
