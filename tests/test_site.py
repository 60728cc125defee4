"""The static site (``python -m charts site``): self-contained, byte-identical on rebuild, every page with its
chart, alt text, citation, data dates, downloads, embeds and a link back to the live app; and, in a browser
with every request that is not file:// blocked, every page draws."""
from __future__ import annotations

import contextlib
import html
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

from charts import site
from loaders.text import html_text
from views.link import trends_from_query

# Slow tier: most tests here build a whole static site (pages, PNGs through Kaleido) from the snapshot.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
LIVE = "https://dash.example.org/app/"
SITE_URL = "https://static.example.org/charts/"


def build(out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "charts", "site", "--out", str(out), "--live-url", LIVE,
                           "--site-url", SITE_URL, *extra], cwd=ROOT, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    r = build(out)
    assert r.returncode == 0, r.stderr[-3000:]
    return out


def pages(root: Path) -> list[Path]:
    return sorted(p for p in root.glob("[0-9][0-9]-*.html") if ".embed-" not in p.name)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


# ---------------------------------------------------------------------------------------------- content

def test_default_site_has_the_headline_places_and_releases_pages(built):
    names = [p.name for p in pages(built)]
    assert any("arrests" in n for n in names) and any("detention" in n for n in names)
    assert any("by-state" in n for n in names), names  # the places map
    assert any("what-is-new" in n for n in names), names  # the latest release summary
    assert (built / "index.html").exists()
    index = (built / "index.html").read_text("utf-8")
    for p in pages(built):
        assert f'href="{p.name}"' in index


def test_plotly_js_is_in_the_folder_once_and_no_page_loads_anything_from_outside(built):
    bundle = built / "assets" / "plotly.min.js"
    assert bundle.stat().st_size > 1_000_000
    for f in built.rglob("*.html"):
        text = f.read_text("utf-8")
        assert len(text) < 1_000_000, f"{f.name} holds a copy of plotly.js"
        for src in re.findall(r'\bsrc="([^"]*)"', text):
            if ".embed-" not in src:  # the embed snippets (in textareas) point at the site's public address
                assert "://" not in src and not src.startswith("//"), (f.name, src)
                assert (f.parent / src).exists(), (f.name, src)
        # a <script src=...> per page: the bundle once, and the map outlines on map pages only
        scripts = re.findall(r'<script src="([^"]+)"', text)
        assert scripts.count("assets/plotly.min.js") == (1 if "Plotly.newPlot" in text else 0), f.name
        assert "cdn.plot.ly" not in text and "topojsonURL" not in text


def test_each_chart_page_has_alt_text_citation_dates_downloads_live_link_and_embeds(built):
    for p in pages(built):
        text = p.read_text("utf-8")
        stem = p.stem
        assert "<h2>Citation</h2>" in text and "Compiled with" in text, p.name
        assert "<h2>Data dates</h2>" in text, p.name
        live = re.search(r'<a href="([^"]+)">Open this view in the live dashboard', text)
        assert live and live.group(1).startswith(LIVE + "?"), p.name
        if "what-is-new" in stem:
            assert "latest release" in text
            continue
        assert re.search(r'role="img" aria-label="[^"]{40,}"', text), p.name
        assert "<strong>Description:</strong>" in text
        assert f'id="chart-{stem}"' in text  # a fixed div id, not Plotly's random one
        for ext in ("csv", "png", "svg"):
            if ext != "csv" and not site.export.find_browser():
                continue
            assert f'href="{stem}.{ext}" download' in text, (p.name, ext)
            assert (built / f"{stem}.{ext}").stat().st_size > 500
        for theme in ("light", "dark"):
            snippet = (built / f"{stem}.embed-{theme}.txt").read_text("utf-8").strip()
            assert snippet.startswith(f'<iframe src="{SITE_URL}{stem}.embed-{theme}.html"')
            assert "aspect-ratio:16/10" in snippet and "width:100%" in snippet  # height follows width
            assert html_text(snippet) in text  # shown on the page beside the downloads
            assert (built / f"{stem}.embed-{theme}.html").exists()


def test_the_data_dates_and_the_csv_say_what_the_snapshot_holds(built):
    arrests = next(p for p in pages(built) if "arrests" in p.name)
    text = arrests.read_text("utf-8")
    csv = (built / f"{arrests.stem}.csv").read_text("utf-8")
    rows = [ln for ln in csv.splitlines() if not ln.startswith("#")]
    import csv as _csv
    table = list(_csv.DictReader(rows))
    last_end = max(r["end"] for r in table)
    assert f"through {last_end}" in text  # the page's data date is the last period the CSV holds


def test_the_link_back_is_the_same_view(built):
    detained = next(p for p in pages(built) if "people-in-ice-detention" in p.name)
    link = re.search(r'<a href="([^"]+)">Open this view', detained.read_text("utf-8")).group(1)
    q = {k: v[-1] for k, v in parse_qs(urlparse(html.unescape(link)).query).items()}
    # the page's own URL form (defaults left out): it opens the same view the page was built from
    assert trends_from_query(q) == trends_from_query({"series": "ice_detention_stats.detained_total",
                                                      "preset": "since-2025-01-20"})
    assert q["series"] == "ice_detention_stats.detained_total"
    places = next(p for p in pages(built) if "by-state" in p.name)
    link = re.search(r'<a href="([^"]+)">Open this view', places.read_text("utf-8")).group(1)
    assert "view=places" in link and "map=state" in link


# ---------------------------------------------------------------------------------------------- rebuilds

def test_rebuilding_from_the_same_snapshot_gives_the_same_bytes(built, tmp_path):
    again = tmp_path / "again"
    r = build(again)
    assert r.returncode == 0, r.stderr[-3000:]
    a, b = tree(built), tree(again)
    assert sorted(a) == sorted(b)
    differ = [name for name in a if a[name] != b[name]]
    assert not differ, f"differ between two builds: {differ}"


def test_the_build_date_is_the_snapshots_unless_given(tmp_path):
    views = tmp_path / "views.txt"
    views.write_text("series=ice_detention_stats.detained_total&preset=all\n")
    snap = site.cdata.load_snapshot(ROOT / "data")
    r = build(tmp_path / "a", "--views", str(views), "--no-images")
    assert r.returncode == 0, r.stderr
    page = pages(tmp_path / "a")[0].read_text("utf-8")
    assert f"Built on {site.snapshot_date(snap).isoformat()}" in page
    views.write_text("series=ice_detention_stats.detained_total&preset=all\nview=places&map=state\n")
    r = build(tmp_path / "b", "--views", str(views), "--no-images", "--date", "2031-02-03")
    assert r.returncode == 0, r.stderr
    trend, places = (p.read_text("utf-8") for p in pages(tmp_path / "b"))
    assert "Built on 2031-02-03" in trend and "Generated on 2031-02-03" in trend  # the figure's footer too
    assert "Generated 2031-02-03" in places  # the map's footer, which has no date parameter
    csv = pages(tmp_path / "b")[0].with_suffix(".csv").read_text("utf-8")
    assert "# Exported 2031-02-03" in csv


def test_stable_svg_renumbers_plotly_ids_but_not_data():
    a = b'<g id="clip1a2b3cxyplot"/><g class="trace scatter trace9f8e7d"/><use href="#clip1a2b3cxyplot"/><text>ab12cd</text>'
    b = b'<g id="clipffee01xyplot"/><g class="trace scatter trace0badf0"/><use href="#clipffee01xyplot"/><text>ab12cd</text>'
    assert site.stable_svg(a) == site.stable_svg(b)
    assert b"<text>ab12cd</text>" in site.stable_svg(a)


# ---------------------------------------------------------------------------------------------- views files

def test_a_views_file_of_permalinks_builds_those_views(tmp_path):
    views = tmp_path / "views.txt"
    views.write_text("# two views\n\nhttp://127.0.0.1:8501/?series=ice_detention_stats.book_ins_ice&preset=all\n"
                     "?view=places&map=facilities\n")
    r = build(tmp_path / "out", "--views", str(views), "--no-images")
    assert r.returncode == 0, r.stderr
    names = [p.name for p in pages(tmp_path / "out")]
    assert len(names) == 2 and names[0].startswith("01-") and names[1].startswith("02-")
    assert "preset=all" in (tmp_path / "out" / names[0]).read_text("utf-8")


@pytest.mark.parametrize("text, message", [
    ("series=ice_detention_stats.book_ins_ice\nnot a link\n", "line 2: 'not a link' is not a permalink"),
    ("view=elsewhere\n", "line 1: view 'elsewhere' is not one of"),
    ("# nothing\n\n", "holds no permalinks"),
])
def test_a_bad_views_file_is_refused_naming_the_line(tmp_path, text, message):
    views = tmp_path / "views.txt"
    views.write_text(text)
    r = build(tmp_path / "out", "--views", str(views), "--no-images")
    assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


def test_a_bad_date_is_one_clear_line(tmp_path):
    r = build(tmp_path / "out", "--date", "2026-13-01", "--no-images")
    assert r.returncode == 2 and "--date '2026-13-01' is not a date" in r.stderr and "Traceback" not in r.stderr


def test_a_view_with_no_drawable_series_fails_the_build_and_leaves_the_old_site(tmp_path, built):
    views = tmp_path / "views.txt"
    views.write_text("series=no_such.series\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.html").write_text("old")
    r = build(out, "--views", str(views), "--no-images")
    assert r.returncode == 2 and "no drawable series" in r.stderr
    assert (out / "keep.html").read_text() == "old"  # built beside it and moved in only when complete
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".out.")]


# ---------------------------------------------------------------------------------------------- browser

DRAWN = """(sel) => { const gd = document.querySelector(sel);
  if (!gd || !gd._fullLayout) return null;
  return {traces: gd.querySelectorAll('.scatterlayer .trace, .choroplethlocation, .barlayer .trace').length,
          svg: gd.querySelectorAll('.main-svg').length}; }"""


@pytest.mark.browser
def test_every_page_draws_from_file_urls_with_the_network_blocked(built):
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.test_e2e import CHROMIUM, LAUNCH_ARGS
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    blocked, errors = [], []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1000, "height": 900})

            def route(r):
                if r.request.url.startswith("file://"):
                    r.continue_()
                else:
                    blocked.append(r.request.url)
                    r.abort()
            ctx.route("**/*", route)
            page = ctx.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            # the pages' own Content-Security-Policy must not block anything they need
            page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
            targets = pages(built) + sorted(built.glob("*.embed-*.html")) + [built / "index.html"]
            for f in targets:
                page.goto(f.as_uri())
                if "Plotly.newPlot" not in f.read_text("utf-8"):
                    continue
                sel = ".js-plotly-plot"
                page.wait_for_function(f"() => {{ const d = ({DRAWN})({sel!r}); return d && d.traces > 0; }}",
                                       timeout=30_000)
            # A narrower window: the embed frame's chart follows the width.
            emb = next(iter(sorted(built.glob("*.embed-light.html"))))
            page.set_viewport_size({"width": 500, "height": 700})
            page.goto(emb.as_uri())
            page.wait_for_selector(".js-plotly-plot .main-svg")
            w = page.evaluate("() => document.querySelector('.js-plotly-plot').getBoundingClientRect().width")
            assert w <= 500
        finally:
            with contextlib.suppress(Exception):
                browser.close()
    assert not blocked, f"requests left the folder: {blocked[:5]}"
    assert not errors, errors[:3]


# ---------------------------------------------------------------------------------------------- the live app's embeds

def test_live_embeds_use_streamlits_embed_mode_in_a_responsive_frame():
    codes = site.live_embeds("https://dash.example.org/?series=old&x=1#top", {"series": "a,b", "preset": "all"})
    assert set(codes) == {"light", "dark"}
    for theme, code in codes.items():
        src = html.unescape(re.search(r'src="([^"]+)"', code).group(1))
        q = parse_qs(urlparse(src).query)
        assert src.startswith("https://dash.example.org/?") and "old" not in src and "#" not in src
        assert q["series"] == ["a,b"] and q["embed"] == ["true"] and q["embed_options"] == [f"{theme}_theme"]
        assert "aspect-ratio:16/10" in code and "width:100%" in code


def test_the_page_shows_the_embed_codes_beside_the_downloads(monkeypatch):
    from streamlit.testing.v1 import AppTest
    monkeypatch.setenv(site.PUBLIC_URL_SETTING, "https://dash.example.org/")
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=90)
    at.query_params["series"] = "ice_detention_stats.detained_total"
    at.session_state["x_exports"] = True  # the exports, built only while open
    at.run()
    assert not at.exception, at.exception
    exp = [e for e in at.expander if e.label.startswith("Export this chart")]
    assert len(exp) == 1 and any(t.value.startswith("Embed this view") for t in exp[0].text)
    codes = [c.value for c in exp[0].code if c.value.startswith("<iframe")]
    assert len(codes) == 2 and all(c.startswith("<iframe src=") for c in codes)
    assert "embed_options=light_theme" in codes[0] and "embed_options=dark_theme" in codes[1]
    assert "series=ice_detention_stats.detained_total" in codes[0]
    assert all(c.startswith('<iframe src="https://dash.example.org/?') for c in codes)


def test_without_a_live_address_no_page_cites_or_links_this_machine(tmp_path):
    """Built without --live-url, the pages used to cite and link http://127.0.0.1:8501/ (the builder's own
    machine). Now they say no live dashboard is linked, and a loopback --live-url is refused with a reason."""
    views = tmp_path / "views.txt"
    views.write_text("series=ice_detention_stats.detained_total&preset=since-2025-01-20\nview=releases\n")
    out = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "charts", "site", "--out", str(out), "--views", str(views),
                        "--no-images"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    for f in out.rglob("*"):
        if f.is_file() and f.suffix in (".html", ".csv", ".txt", ".json") and f.name != "plotly.min.js":
            text = f.read_text("utf-8")
            assert "127.0.0.1" not in text and "localhost" not in text, f.name
    page = next(p for p in pages(out) if "what-is-new" not in p.stem)
    text = page.read_text("utf-8")
    assert "No live dashboard is linked from this build." in text and "Open this view in the live" not in text
    assert "no live dashboard is linked" in (out / "index.html").read_text("utf-8")
    bad = subprocess.run([sys.executable, "-m", "charts", "site", "--out", str(tmp_path / "b"), "--views",
                          str(views), "--no-images", "--live-url", "http://127.0.0.1:8501/"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert bad.returncode == 2 and "this machine's own address" in bad.stderr and not (tmp_path / "b").exists()


def test_file_names_are_cut_at_a_word_boundary():
    title = "People in ICE detention, all (ICE release), and people in detention by TRAC"
    slug = site.slugify(title)
    assert 30 < len(slug) <= 48
    assert all(w in re.split(r"[^a-z0-9]+", title.lower()) for w in slug.split("-"))
    assert site.slugify("x" * 60) == "x" * 48 and site.slugify("!!!") == "view"


def test_a_places_page_says_its_release_in_words_not_as_a_link_code():
    import datetime as dt

    from loaders import data as cdata
    snap = cdata.load_snapshot()
    p = site.places_page(snap, {"view": "places", "map": "state", "release": "ice:2026-04-09"}, dt.date(2026, 12, 1), "")
    assert "ice:2026-04-09" not in p.alt and "ICE workbook released 2026-04-09" in p.alt, p.alt
    assert "ICE detention" in p.alt and "ice detention" not in p.alt  # the acronym keeps its capitals


def test_a_trend_page_lists_its_events_under_the_chart_and_in_its_csv():
    """Issue 38: the site's image footer said its events were "listed in the table under the chart, and inside
    every downloaded image"; the page listed none and its CSV had neither events nor reported figures."""
    import datetime as dt

    from charts.context import load_context
    from loaders import data as cdata
    snap, events, reported = load_context(cdata.DATA)
    day = dt.date(2026, 12, 1)
    page = site.trend_page(snap, events, reported, {"preset": "custom", "start": "2025-01-15", "end": "2025-03-15"},
                           day, "")
    head, lines = page.sentences[0]
    assert head == "Events on the chart" and len(lines) == 9
    # The original publisher, never the copy the text was read at (issue 37).
    assert "Event 6, 2025-02-11: ERO chief Russell Hott and deputy Peter Berg reassigned (source: Washington Post)" \
        in lines
    footer = " ".join(a.text for a in page.figure.layout.annotations).replace("<br>", " ")
    assert "listed with its date and source under the chart and in the CSV download" in footer
    text = page.csv.decode("utf-8")
    assert "# Events: the 9 events in view" in text and "\nevent,events,6,ERO chief Russell Hott" in text
    assert "\nreported,reported_figures." in text
    body = html.unescape(site.page_html(page, [], {"csv": "x.csv"}, "", "", day))
    assert "<h2>Events on the chart</h2>" in body and lines[5] in body
