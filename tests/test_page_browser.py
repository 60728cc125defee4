"""The page in a real browser (issues 26 and 38). On a phone (390 x 844) the chart's plot starts within the first
screen (the controls, the language choice and the headline cards fold under it or into an expander, the legend goes
under the plot) and the toolbar is not drawn over the title; the chart is reached within one screen's scroll,
not 3,200 px down below five full-height cards, and the chart's title, legend and footer fit the screen's width
(built for 1,100 px, they ran off the right edge, and the legend's extra rows covered the event markers). On any
screen, Enter in a date field applies the date (it applied only on a click outside the field).

Real Chromium against ``streamlit run`` (the layout is the browser's): measured after the page has settled."""
from __future__ import annotations

import pytest

from tests.test_e2e import CHART, CHROMIUM, IDLE, LAUNCH_ARGS, running_server, sync_api

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}

# Where things are, in page coordinates (Streamlit scrolls its main section, not the window).
MEASURE = """(sel) => {
  const main = document.querySelector('[data-testid=stMain]');
  const box = document.querySelector('.st-key-trend_chart');
  const gd = document.querySelector(sel);
  const rect = (e) => { const r = e.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                                                                     text: (e.textContent || '').slice(0, 60)}; };
  return {
    chartTop: box.getBoundingClientRect().top + main.scrollTop,
    width: gd._fullLayout.width,
    title: Array.from(gd.querySelectorAll('.gtitle')).map(rect),
    legend: Array.from(gd.querySelectorAll('.legend .legendtext')).map(rect),
    footer: Array.from(gd.querySelectorAll('.annotation-text')).map(rect),
    markers: Array.from(gd.querySelectorAll('.scatterlayer .textpoint text')).map(rect),
    legendBox: Array.from(gd.querySelectorAll('.legend .bg')).map(rect),
    plotTop: gd.querySelector('.nsewdrag').getBoundingClientRect().top + main.scrollTop,
    toolbar: Array.from(gd.querySelectorAll('.modebar')).map(rect),
  };
}"""


@pytest.fixture(scope="module")
def server():
    with running_server() as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def phone(server, browser):
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto(server + "/")
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']")
    page.wait_for_selector(IDLE)
    # The chart is rebuilt for the phone's width once the browser has said how wide it is.
    page.wait_for_function("(sel) => { const gd = document.querySelector(sel); "
                           "return gd && gd._fullLayout && gd._fullLayout.width <= 390; }", arg=CHART)
    page.wait_for_selector(IDLE)
    page.wait_for_timeout(800)  # Plotly draws after the script has finished (its own debounce, not a test timing)
    yield page
    context.close()


def test_the_chart_is_reached_within_one_screens_scroll(phone):
    m = phone.evaluate(MEASURE, CHART)
    # After one screen's scroll (844 px) the chart's top is in view, with most of a screen of it below.
    assert m["chartTop"] <= PHONE["height"] * 2 - 400, f"the chart starts {m['chartTop']:.0f} px down"


def test_title_legend_footer_and_labels_fit_the_phones_width(phone):
    m = phone.evaluate(MEASURE, CHART)
    assert m["width"] <= PHONE["width"]
    for part in ("title", "legend", "footer", "markers"):  # markers: the text drawn in the plot (event numbers, target labels)
        assert m[part], f"no {part} drawn"
        cut = [r for r in m[part] if r["right"] > PHONE["width"] + 1 or r["left"] < -1]
        assert not cut, f"{part} runs past the screen: {cut[:3]}"


def test_the_plot_starts_within_the_first_screen_with_the_legend_under_it(phone):
    # Issue 38: the chart started 1,120 px down and its plot 1,590 px, under the headline cards, the controls
    # and the legend's rows.
    m = phone.evaluate(MEASURE, CHART)
    assert m["plotTop"] <= PHONE["height"] - 150, f"the plot starts {m['plotTop']:.0f} px down"
    legend_top = min(r["top"] for r in m["legendBox"] + m["legend"])
    assert legend_top > m["plotTop"], "the legend is above the plot"


def test_the_toolbar_leaves_the_title_uncovered(phone):
    m = phone.evaluate(MEASURE, CHART)
    assert m["toolbar"], "no toolbar"
    for bar in m["toolbar"]:
        for title in m["title"]:
            assert bar["bottom"] <= title["top"] or bar["top"] >= title["bottom"] or bar["right"] <= title["left"], \
                (bar, title)


def test_the_legend_leaves_the_event_markers_uncovered(phone):
    m = phone.evaluate(MEASURE, CHART)
    import re
    numbered = [r for r in m["markers"] if re.fullmatch(r"U?\d+(\s*[–-]\s*U?\d+)?", r["text"].strip())]  # "7", "10–20"
    assert numbered, "no numbered event markers on the chart"
    for box in m["legendBox"] + m["legend"]:
        over = [r for r in numbered if not (r["bottom"] <= box["top"] + 1 or r["top"] >= box["bottom"] - 1
                                            or r["right"] <= box["left"] or r["left"] >= box["right"])]
        assert not over, (box, over[:3])


def test_enter_in_the_custom_range_applies_the_dates(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        page.goto(server + "/?preset=custom&start=2025-03-01&end=2026-07-31")
        page.wait_for_selector(IDLE)
        page.wait_for_selector(f"{CHART} .main-svg")
        page.wait_for_function("() => window.__dateEnterApplies === true")  # the page's browser helper is in
        start = page.locator(".st-key-w_range [role='spinbutton']").first
        start.click()
        page.keyboard.type("20250601")
        page.keyboard.press("Enter")  # no click outside the field
        page.wait_for_function("() => location.search.includes('start=2025-06-01')", timeout=30_000)
        page.wait_for_selector(IDLE)
        page.wait_for_function("(sel) => { const gd = document.querySelector(sel); "
                               "return gd && String(gd._fullLayout.xaxis.range[0]).startsWith('2025-06-01'); }", arg=CHART)
    finally:
        context.close()


PLACES = ".st-key-places_map .js-plotly-plot"
TEXT_BOXES = """(sel) => {
  const gd = document.querySelector(sel);
  return Array.from(gd.querySelectorAll('.gtitle, .annotation-text')).map(e => {
    const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, text: (e.textContent || '').slice(0, 50)};
  });
}"""


def test_the_places_map_titles_and_notes_fit_a_phone_and_do_not_overlap(server, browser):
    # At 390 px the map's title and source notes ran off the right edge and the two territory insets' titles
    # were drawn over each other.
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        page.goto(server + "/?tab=places")
        page.wait_for_selector(IDLE)
        page.wait_for_function("(sel) => { const gd = document.querySelector(sel); "
                               "return gd && gd._fullLayout && gd._fullLayout.width <= 390; }", arg=PLACES)
        page.wait_for_function("() => window.__pageWidthSent > 0")  # the page knows it is on a phone
        page.wait_for_selector(IDLE)
        try:
            page.wait_for_function("(sel) => document.querySelector(sel)._fullLayout.title.text.split('<br>').length > 2",
                                   arg=PLACES, timeout=30_000)
        except sync_api.TimeoutError:
            pytest.fail("the map was never laid out again for the phone's width (its title is on one line)")
        boxes = page.evaluate(TEXT_BOXES, PLACES)
        assert len(boxes) >= 3
        cut = [b for b in boxes if b["right"] > PHONE["width"] + 1 or b["left"] < -1]
        assert not cut, cut
        over = [(a["text"], b["text"]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
                if a["left"] < b["right"] - 1 and b["left"] < a["right"] - 1
                and a["top"] < b["bottom"] - 1 and b["top"] < a["bottom"] - 1]
        assert not over, over
    finally:
        context.close()


# Issue 38: the date range (a drop-down) ignored the first click made within seconds of the chart appearing: its
# menu opened on the press and closed again while the page was still settling (it closes when the page moves).
@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_the_date_range_answers_the_first_click_right_after_the_chart_appears(server, browser, viewport):
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        page.goto(server + "/")
        page.wait_for_selector(f"{CHART} .main-svg")  # no waiting for the page to settle: click at once
        page.locator(".st-key-w_preset button").filter(has_text="Last 90 days").first.click()
        try:
            page.wait_for_function("() => location.search.includes('preset=last-90-days')", timeout=30_000)
        except sync_api.TimeoutError:
            pytest.fail("the first click on the date range was ignored")
    finally:
        context.close()


TRUNCATED = """() => Array.from(document.querySelectorAll('[data-testid=stMain] button')).flatMap(b =>
  [b, ...b.querySelectorAll('*')].filter(e => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
    .map(e => (b.textContent || '').trim().slice(0, 60)))"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_no_button_label_is_cut(server, browser, viewport, lang):
    # Two export buttons read "Wide CSV (Datawrapper, Flo..." in five equal columns.
    context = browser.new_context(viewport=viewport)
    context.set_default_timeout(60_000)
    page = context.new_page()
    try:
        page.goto(server + f"/?lang={lang}")
        page.wait_for_selector(IDLE)
        page.wait_for_selector(f"{CHART} .main-svg")
        page.locator(".st-key-x_exports summary").click()  # the exports, built when opened
        page.wait_for_selector(".st-key-export_buttons button")
        page.wait_for_selector(IDLE)
        page.wait_for_timeout(500)
        cut = page.evaluate(TRUNCATED)
        assert cut == [], f"button labels cut: {sorted(set(cut))}"
    finally:
        context.close()


# Every WebSocket the page opens, kept so that a test can close the live one (as a dropped network would).
KEEP_SOCKETS = """() => {
  const Native = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = function(...args) { const ws = new Native(...args); window.__sockets.push(ws); return ws; };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
}"""


def test_reruns_and_a_reconnect_to_the_same_server_never_reload_the_page(server, browser):
    """A page whose server process is gone loads itself again (page/browser.py; tests/test_proxy.py kills a
    replica under it). To find out, a page that reconnects asks for a run even when untouched (Streamlit asks
    for none then). The same server must never make it reload: not that run, not a fragment's run, not a run of
    the whole page, not a second lost connection."""
    from tests.test_e2e import WATCH_RUNS, plot, press, wait_plot

    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.add_init_script(f"({KEEP_SOCKETS})()")
    page.goto(server + "/")
    connected = "[data-testid='stApp'][data-test-connection-state='CONNECTED']"
    page.wait_for_selector(connected)
    page.wait_for_selector(IDLE)
    page.wait_for_selector(f"{CHART} .main-svg")
    page.evaluate("() => { window.__firstLoad = true; }")

    def drop_connection() -> None:
        """Close the page's WebSocket, as a dropped network would; return once it is back and has run."""
        page.evaluate(WATCH_RUNS)
        page.evaluate("() => window.__sockets.filter(ws => ws.readyState === 1).forEach(ws => ws.close())")
        page.wait_for_selector("[data-testid='stApp']:not([data-test-connection-state='CONNECTED'])",
                               timeout=30_000)
        page.wait_for_selector(connected)
        page.wait_for_function("() => window.__runs > 0", timeout=30_000)  # the run the page asked for
        page.wait_for_selector(IDLE)
        page.wait_for_timeout(2_000)  # a reload would have followed that run at once

    drop_connection()  # untouched: Streamlit resumes the session and asks for no run; the page asks for one
    assert page.evaluate("() => window.__firstLoad === true")
    before = plot(page)["xrange"][0]
    press(page, "w_preset", "Last 90 days")  # a fragment's run
    after = wait_plot(page, f"s => s.xrange[0] !== {before!r}")
    page.locator(".st-key-tab").get_by_role("radio", name="Event study").click()  # a run of the whole page
    page.wait_for_selector(".st-key-room_study")
    page.wait_for_selector(IDLE)
    page.locator(".st-key-tab").get_by_role("radio", name="Trends and events").click()
    page.wait_for_selector(f"{CHART} .main-svg")
    page.wait_for_selector(IDLE)
    assert page.evaluate("() => window.__firstLoad === true")

    drop_connection()
    assert page.evaluate("() => window.__firstLoad === true")
    assert plot(page)["xrange"] == after["xrange"]
    press(page, "w_preset", "All data")
    wait_plot(page, f"s => s.xrange[0] !== {after['xrange'][0]!r}")
    assert page.evaluate("() => window.__firstLoad === true")
    context.close()
