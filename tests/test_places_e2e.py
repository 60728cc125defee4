"""The Places tab in a real browser with the network cut off: every map must draw from the bundled outlines.

Every request that is not to the loopback server is aborted (and recorded), as on a machine with no network:
Plotly's default would fetch ``https://cdn.plot.ly/usa_110m.json`` and the map would never draw. Each map is
checked for drawn state shapes or facility points, the downloaded HTML file is opened (also offline) and
checked the same way, and a screenshot of the tab is kept.
"""
from __future__ import annotations

import contextlib
import os
from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.test_e2e import ARTIFACTS, IDLE, LAUNCH_ARGS, VIEWPORT, browser, rerun, server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser
MAP = ".st-key-places_map .js-plotly-plot"
SHOT = Path(os.environ.get("PLACES_SCREENSHOT", str(ARTIFACTS / "places.png")))

# What a geo map drew: state shapes (choropleth), facility points (scattergeo), land outlines from topojson.
DRAWN = """(sel) => {
  const gd = document.querySelector(sel);
  if (!gd || !gd._fullLayout) return null;
  return {
    shapes: gd.querySelectorAll('path.choroplethlocation').length,
    points: gd.querySelectorAll('.scattergeo path.point').length,
    // outline paths (land, coasts, state lines) from the topojson: every geo path that is not a data mark
    land: gd.querySelectorAll('.geo path').length - gd.querySelectorAll('.geo path.point, .geo path.choroplethlocation').length,
    geos: gd.querySelectorAll('.geo').length,
    title: ((gd._fullLayout.title || {}).text || '').replace(/<[^>]*>/g, ' '),
  };
}"""


@pytest.fixture
def offline(browser):  # noqa: F811 (the fixture imported above)
    blocked: list[str] = []
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.set_default_timeout(60_000)

    def route(r):
        host = urlparse(r.request.url).hostname or ""
        if r.request.url.startswith(("data:", "blob:", "about:")) or host in ("127.0.0.1", "localhost", ""):
            r.continue_()
        else:
            blocked.append(r.request.url)
            r.abort()
    context.route("**/*", route)
    pg = context.new_page()
    pg.blocked = blocked
    yield pg
    context.close()


def drawn(page, predicate: str, sel: str = MAP) -> dict:
    page.wait_for_function(f"() => {{ const s = ({DRAWN})({sel!r}); return s !== null && ({predicate})(s); }}",
                           timeout=60_000)
    return page.evaluate(DRAWN, sel)


def open_places(page, server, query="view=places&map=state"):  # noqa: F811
    page.goto(f"{server}/?{query}")
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", timeout=60_000)
    page.wait_for_selector(IDLE, timeout=90_000)
    page.wait_for_selector(f"{MAP} .main-svg", timeout=90_000)


def test_every_places_map_draws_with_no_network(offline, server):  # noqa: F811
    page = offline
    maps_served = []
    page.on("response", lambda r: maps_served.append((r.url, r.status)) if "/app/static/maps/" in r.url else None)
    open_places(page, server)
    s = drawn(page, "s => s.shapes >= 40")
    assert "by state" in s["title"]
    assert s["geos"] >= 3, "the territory insets are missing"
    # the outlines came from this server, not from cdn.plot.ly
    assert any(u.endswith("/app/static/maps/usa_110m.json") and st == 200 for u, st in maps_served), maps_served
    assert any(u.endswith("/app/static/maps/world_110m.json") and st == 200 for u, st in maps_served), maps_served

    with rerun(page):
        page.locator(".st-key-p_map label").filter(has_text="Facilities (map)").click()
    s = drawn(page, "s => s.points >= 100 && s.title.includes('facilities')")
    assert s["land"] > 0

    with rerun(page):
        page.locator(".st-key-p_map label").filter(has_text="By field office").click()
    page.wait_for_function(f"() => document.querySelectorAll('{MAP} .bars path').length >= 20")

    # search a facility: one that changed its name (LaSalle -> Central Louisiana ICE Processing Center)
    box = page.locator(".st-key-p_facility input[role='combobox']")
    with rerun(page):
        box.click()
        box.fill("JENADLA")
        page.get_by_role("option").filter(has_text="JENADLA").first.click()
    page.wait_for_selector(".st-key-places_facility .js-plotly-plot .main-svg")
    title = page.evaluate("() => document.querySelector('.st-key-places_facility .js-plotly-plot')"
                          "._fullLayout.title.text")
    assert "JENADLA" in title
    assert not [u for u in page.blocked if "plot.ly" in u], "a map still asked the CDN for its outlines"

    with rerun(page):
        page.locator(".st-key-p_map label").filter(has_text="Facilities (map)").click()
    drawn(page, "s => s.points >= 100")
    # Streamlit scrolls inside its own container, so a full-page shot is one screen: make the screen tall.
    page.set_viewport_size({"width": VIEWPORT["width"], "height": 3400})
    page.wait_for_timeout(1500)
    SHOT.parent.mkdir(parents=True, exist_ok=True)
    page.locator(".st-key-room_places").screenshot(path=str(SHOT))


def test_places_permalink_and_offline_html_export(offline, server, tmp_path):  # noqa: F811
    page = offline
    open_places(page, server, "view=places&map=state&per=100k&release=ice:2026-04-09")
    s = drawn(page, "s => s.shapes >= 40")
    assert "per 100,000" in s["title"]
    assert "per=100k" in page.url and "view=places" in page.url
    with page.expect_download() as dl:
        page.locator(".st-key-p_main_html button").click()
    path = tmp_path / "state.html"
    dl.value.save_as(path)
    text = path.read_text("utf-8")
    assert "window.PlotlyGeoAssets" in text and "usa_110m" in text
    # the file, opened with the network still cut off, draws its map from what it carries
    page.goto(path.as_uri())
    drawn(page, "s => s.shapes >= 40", sel=".js-plotly-plot")
    with contextlib.suppress(Exception):
        page.screenshot(path=str(ARTIFACTS / "places-html-export.png"))
