"""The static site's pages, its embeds and the HTML exports are drawn from Jinja2 templates (charts/templates/,
autoescaped). Two things are checked here:

- the bytes: a small site (an index, trend and releases pages in English and Spanish, light and dark embeds,
  embed snippets) and the HTML exports (a trend chart in both languages, a map) are compared with the golden
  files in ``tests/golden/site/``, which were written by the hand-built f-string pages before the templates
  replaced them. Plotly's own bundle, the locale script and the map outlines are cut out of the exports
  (they are Plotly's and the project's files, megabytes each, not the page around them), as is the random id
  Plotly gives an export's chart;
- the escaping: a hostile title, alt text, note, event line or link never reaches a page as markup, in any
  template.

Runs everywhere: the pages are built from a tiny figure and hand-made ``Page`` records, not from the snapshot.
``tests/golden/site/regen.py --write`` rewrites the golden files (only on purpose; read the diff)."""
from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import plotly.graph_objects as go
import pytest
from plotly.offline import get_plotlyjs

from charts import export, places_export, site
from figures import maps
from loaders.text import html_text

GOLDEN = Path(__file__).resolve().parent / "golden" / "site"
DAY = dt.date(2026, 4, 9)
LIVE = "https://dash.example.org/app/"
SITE_URL = "https://static.example.org/charts/"
SCRIPTS = ["assets/plotly.min.js"]
SCRIPTS_ES = ["assets/plotly.min.js", "assets/plotly-locale-es.js"]
# Plotly's random div id in an export: a UUID.
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def tiny_figure(name: str = "Arrests & book-ins") -> go.Figure:
    """A figure small enough for a golden file: three points, no Plotly theme."""
    return go.Figure(go.Scatter(x=["2025-01-01", "2025-02-01", "2025-03-01"], y=[3, 1, 2], name=name),
                     layout=dict(template="none", title=dict(text="<b>Arrests</b>"), height=400))


def tiny_map() -> go.Figure:
    return go.Figure(go.Choropleth(locations=["TX", "LA"], z=[10, 20], locationmode="USA-states"),
                     layout=dict(template="none", geo=dict(scope="usa"), height=400))


def pages(title: str = 'ICE arrests & "book-ins" <per day>, it\'s weekly', text: str = "") -> dict[str, site.Page]:
    """Pages of each kind and language. ``text`` (a hostile string in the escaping test) goes into every field
    a reader sees; the golden pages carry characters that must be escaped (& < > " ') instead."""
    t = text or "a note with <angle brackets> & \"quotes\" 'too'"
    return {
        "en": site.Page("01-arrests", "trends", {"series": "a,b", "preset": "all"}, title=title + text,
                        alt="Line chart from 2025-01-01 to 2025-03-01 " + t, citation="ICE & CBP.\nCompiled " + t,
                        dates=["Data from " + t, "Latest release 2026-04-09"], notes=["Range clipped: " + t],
                        figure=tiny_figure(), csv=b"x", lang="en"),
        "es": site.Page("02-detencion", "trends", {"series": "a", "lang": "es"}, title="Personas en detención " + t,
                        alt="Gráfico de líneas " + t, citation="Cita " + t, dates=["Datos " + t], notes=[],
                        figure=tiny_figure("Detención"), csv=b"x", lang="es"),
        "releases": site.Page("03-releases", "releases", {"view": "releases"}, title="What is new " + t, alt="",
                              citation="Sources " + t, dates=["ICE: " + t],
                              sentences=[("ICE: detention <statistics> " + t, ["One & two " + t, "Three"])],
                              lang="en"),
    }


def small_site(title: str = 'ICE arrests & "book-ins" <per day>, it\'s weekly', text: str = "") -> dict[str, bytes]:
    """What ``python -m charts site`` writes for these pages (the HTML and the embed snippets), by file name."""
    ps = pages(title, text)
    live = LIVE + ("?x=" + text if text else "")
    out = {}
    for _key, page, scripts, images, link, site_url in (
            ("en", ps["en"], SCRIPTS, {"png": "01-arrests.png", "csv": "01-arrests.csv"},
             live + "?series=a%2Cb&preset=all", SITE_URL),
            ("es", ps["es"], SCRIPTS_ES, {"png": "02.png", "svg": "02.svg", "csv": "02.csv"}, "", ""),
            ("releases", ps["releases"], [], {}, "", SITE_URL)):
        out[f"{page.slug}.html"] = site.page_html(page, scripts, images, link, site_url, DAY)
        if page.figure is not None:
            for theme in ("light", "dark"):
                fig = page.figure if theme == "light" else site.dark(page.figure)
                out[f"{page.slug}.embed-{theme}.html"] = site.embed_html(page, fig, theme, scripts, link)
                out[f"{page.slug}.embed-{theme}.txt"] = site.embed_snippet(
                    f"{site_url}{page.slug}.embed-{theme}.html", page.title) + "\n"
    listed = list(ps.values())
    out["index.html"] = site.index_html(listed, DAY, live, "en")
    out["index-es.html"] = site.index_html(listed, DAY, "", "es")
    codes = site.live_embeds(live + "?series=old&x=1#top", {"series": "a,b", "preset": "all",
                                                            **({"q": text} if text else {})})
    out["live-embeds.txt"] = codes["light"] + "\n" + codes["dark"] + "\n"
    return {k: v.encode("utf-8") for k, v in out.items()}


def _cut(page: bytes) -> bytes:
    """An export without the parts that are not the page's: plotly.js, the locale script, the map outlines, and
    the random chart id."""
    text = page.decode("utf-8")
    for big, mark in ((get_plotlyjs(), "/* plotly.js */"), (export.locale_script("es"), "/* locale es */"),
                      (maps.geo_assets_script(), "/* outlines */")):
        text = text.replace(big, mark)
    return _UUID.sub("CHART-ID", text).encode("utf-8")


def exports(title: str = 'Arrests & "book-ins" <weekly>', text: str = "") -> dict[str, bytes]:
    """The HTML exports (``python -m charts export --format html``) of a trend chart and a map."""
    t = text or "<b>bold</b> & 'quoted'"
    details = ["Source: ICE & CBP " + t, "1. 2025-01-20: Event " + t + " (ICE)"]
    return {
        "export-en.html": _cut(export.to_html(tiny_figure(), alt="Line chart " + t, title=title + text,
                                              lang="en", details=details)),
        "export-es.html": _cut(export.to_html(tiny_figure(), alt="Gráfico " + t, title="Arrestos " + t, lang="es",
                                              details=details)),
        "export-bare.html": _cut(export.to_html(tiny_figure())),
        "export-map.html": _cut(places_export.map_html(tiny_map())),
    }


def outputs() -> dict[str, bytes]:
    return {**small_site(), **exports()}


# ---------------------------------------------------------------------------------------------- the bytes

@pytest.mark.parametrize("name", sorted(outputs()))
def test_output_is_byte_identical_to_the_hand_built_page(name):
    golden = GOLDEN / name
    assert golden.exists(), f"no golden file {golden}; tests/golden/site/regen.py --write writes it"
    got = outputs()[name]
    assert got == golden.read_bytes(), f"{name} differs from {golden}"


def test_every_golden_file_is_still_written():
    names = {p.name for p in GOLDEN.iterdir() if p.suffix in (".html", ".txt")}
    assert names == set(outputs())


# ---------------------------------------------------------------------------------------------- the escaping

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.mark.parametrize("name,page", sorted({**small_site(text=HOSTILE), **exports(text=HOSTILE)}.items()))
def test_hostile_text_is_escaped_in_every_template(name, page):
    text = page.decode("utf-8")
    assert HOSTILE not in text and "<img" not in text, f"{name} carries raw markup from a title or a note"
    if name == "live-embeds.txt":  # the text rides in the link's query, percent-encoded
        assert "q=%3Cimg+src%3Dx+onerror%3Dalert%281%29%3E" in text
    elif name not in ("export-bare.html", "export-map.html"):  # these two carry no text of ours
        assert html_text(HOSTILE) in text, f"{name} dropped the text instead of escaping it"


def test_hostile_link_stays_inside_its_attribute():
    """A quote in a link cannot end the attribute and start another (an onclick, a second href)."""
    ps = pages()
    link = LIVE + '?x="><script>alert(1)</script>'
    page = site.page_html(ps["en"], SCRIPTS, {}, link, '"><b>', DAY)
    assert "<script>alert(1)" not in page and '"><b>' not in page
    assert 'href="' + html_text(link) + '"' in page
    snippet = site.embed_snippet('x" onload="alert(1)', "t")
    assert 'onload="alert' not in snippet and 'src="x&#34; onload=&#34;alert(1)"' in snippet


def test_a_missing_field_fails_instead_of_printing_nothing():
    """StrictUndefined: a template asking for a value it was not given stops the build."""
    from jinja2 import UndefinedError

    from charts import templates
    with pytest.raises(UndefinedError):
        templates.render("embed_snippet.html", src="x.html", width=16, height=10)  # no title
    with pytest.raises(UndefinedError):
        templates.render("site_index.html", lang="en", title="t", scripts=[], pages=[object()], day=DAY,
                         live_url="", t=lambda key, **f: key)  # a page with no slug or title
