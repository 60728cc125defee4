"""The real page in a real browser: Playwright (sync API) drives Debian's Chromium against ``streamlit run``.

AppTest checks the script; these check what a reader sees and clicks: the drawn chart, the widgets, the URL,
real downloads and an uploaded file. One server serves the module; each test gets a fresh browser context.

Waiting: Streamlit marks the app root with ``data-test-script-state``. A MutationObserver counts the times it
turns to ``running`` after an interaction, so a wait never passes on the state from before the click; then
each test waits for the chart itself to show what it expects (Plotly draws after the script has finished).

The run leaves a screenshot per test in tests/artifacts/ (git-ignored). It never writes a tracked file: the
README's docs/screenshot.png is refreshed by ``python -m tests.e2e_screenshot`` (``make screenshot``).
"""
from __future__ import annotations

import contextlib
import csv
import datetime as dt
import io
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests import bundled
from tests.conftest import ROOT, stop_process

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else shutil.which("chromium")
if not CHROMIUM:
    pytest.skip("no Chromium at /usr/bin/chromium or on PATH (on Debian/Ubuntu: apt-get install chromium; "
                "`make test` installs it when run as root)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

from analysis.overview import headlines  # noqa: E402
from analysis.view import View  # noqa: E402
from loaders import data as cdata  # noqa: E402  (after the skip: nothing to load when the module is skipped)
from views.compose import render  # noqa: E402

ARTIFACTS = ROOT / "tests" / "artifacts"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
               "--disable-sync"]
VIEWPORT = {"width": 1400, "height": 1000}
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
CHART = ".st-key-trend_chart .js-plotly-plot"
# The trends tab's lazy sections that the tests read: the events table and the exports.
LEGEND, EXPORTS = "numbered as on it, with their sources", "Export this chart"
DEFAULT_TITLE = "ICE arrests per day (2 series)"

SNAP = bundled.snapshot()

WATCH_RUNS = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  window.__runs = 0;
  if (window.__runObserver) window.__runObserver.disconnect();
  window.__runObserver = new MutationObserver(() => {
    if (app.getAttribute('data-test-script-state') === 'running') window.__runs += 1;
  });
  window.__runObserver.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""

# What Plotly holds for a chart: the drawn traces with their (non-blank) x values, the axes, the title.
PLOT_STATE = """(sel) => {
  const gd = document.querySelector(sel);
  if (!gd || !gd._fullLayout || !gd._fullData) return null;
  const L = gd._fullLayout;
  return {
    title: ((L.title && L.title.text) || '').replace(/<[^>]*>/g, ' '),  // Streamlit wraps it in <b>, repeatedly
    xrange: L.xaxis.range.map(String),
    ytype: L.yaxis.type,
    // _fullData: arrays decoded (plotly.py sends numbers as base64 typed arrays)
    traces: gd._fullData.map(t => ({name: t.name || '', mode: t.mode || '',
                               x: Array.from(t.x || []).filter(v => v !== null && v !== '' && v !== 'NaT'),
                               hovertext: Array.from(t.hovertext || []),
                               customdata: Array.from(t.customdata || [])})),
  };
}"""


# ---------------------------------------------------------------------------------------------- fixtures

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server() -> str:
    with running_server() as url:
        yield url


@contextlib.contextmanager
def running_server():
    """``streamlit run dashboard.py`` on a free loopback port, stopped (by its own id) on exit."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = open(ARTIFACTS / "streamlit.log", "wb")  # noqa: SIM115 (a running server's log: open while it runs, closed when it is stopped)
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "dashboard.py", "--server.address", "127.0.0.1",
         "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--global.developmentMode", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start (exit {proc.poll()}); see {ARTIFACTS / 'streamlit.log'}")
            time.sleep(0.2)
        yield url
    finally:
        stop_process(proc)
        log.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, request):
    context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    context.set_default_timeout(30_000)
    pg = context.new_page()
    yield pg
    with contextlib.suppress(Exception):
        pg.screenshot(path=str(ARTIFACTS / f"{request.node.name}.png"))
    context.close()


# ---------------------------------------------------------------------------------------------- helpers

def open_page(page, server: str, query: str = "", panels: tuple[str, ...] = (LEGEND, EXPORTS)) -> None:
    """Open the page at ``query`` and wait for the chart; then open the lazy sections ``panels`` (by label)."""
    page.goto(f"{server}/{('?' + query) if query else ''}")
    page.wait_for_selector("[data-testid='stApp'][data-test-connection-state='CONNECTED']", timeout=60_000)
    page.wait_for_selector(IDLE, timeout=60_000)
    page.wait_for_selector(f"{CHART} .main-svg", timeout=60_000)
    page.wait_for_function("(sel) => { const gd = document.querySelector(sel); return gd && gd._fullLayout; }",
                           arg=CHART)
    for label in panels:
        if page.locator("[data-testid='stExpander']").filter(has_text=label).count():
            open_expander(page, label)


@contextlib.contextmanager
def rerun(page):
    """Wrap an interaction that makes Streamlit rerun the script; return once that run has finished."""
    page.evaluate(WATCH_RUNS)
    yield
    # A fast run can start and finish within one React commit (messages batched on a loaded machine), so the
    # app's state attribute never shows "running". The assertions after each interaction check what the run
    # drew; here it is enough that the app is idle again.
    with contextlib.suppress(sync_api.TimeoutError):
        page.wait_for_function("() => window.__runs > 0", timeout=15_000)
    page.wait_for_selector(IDLE, timeout=60_000)


def plot(page, sel: str = CHART) -> dict:
    page.wait_for_function(f"() => ({PLOT_STATE})({sel!r}) !== null")
    return page.evaluate(PLOT_STATE, sel)


def wait_plot(page, predicate_js: str, sel: str = CHART) -> dict:
    """Wait until the chart's state satisfies ``predicate_js`` (a JS function of the state), then return it."""
    page.wait_for_function(f"() => {{ const s = ({PLOT_STATE})({sel!r}); return s !== null && ({predicate_js})(s); }}")
    return plot(page, sel)


def choose(page, key: str, label: str) -> None:
    """Pick ``label`` in a selectbox or multiselect (the list is virtualised: filter by typing first)."""
    box = page.locator(f".st-key-{key} input[role='combobox']")
    with rerun(page):
        box.click()
        box.fill(label)
        page.get_by_role("option", name=label, exact=True).click()


def press(page, key: str, label: str) -> None:
    """Pick ``label`` among a segmented control's buttons (the date range)."""
    with rerun(page):
        page.locator(f".st-key-{key} button").filter(has_text=label).first.click()


def type_dates(page, key: str, *dates: dt.date) -> None:
    """Type into a date input's year/month/day segments; Streamlit takes the value when the field loses focus."""
    segments = page.locator(f".st-key-{key} [role='spinbutton']")
    with rerun(page):
        for i, d in enumerate(dates):
            segments.nth(3 * i).click()
            page.keyboard.type(d.strftime("%Y%m%d"))
        page.locator("h1").first.click()


def toggle(page, key: str) -> None:
    with rerun(page):
        page.locator(f".st-key-{key} label").first.click()


def open_expander(page, label: str) -> None:
    """Open the expander labelled ``label`` and wait until its contents are drawn: most expanders of the
    trends tab are built only while open (opening one reruns the panel, which then fills it)."""
    exp = page.locator("[data-testid='stExpander']").filter(has_text=label).first
    if exp.locator("details").get_attribute("open") is None:
        exp.locator("summary").click()
    # as long as the page's other waits: the exports section builds its files when opened (seconds on a busy
    # two-core machine; CI once took over the default 30 s)
    contents = exp.locator("[data-testid='stExpanderDetails'] [data-testid='stElementContainer']").first
    try:
        contents.wait_for(timeout=30_000)
    except sync_api.TimeoutError:
        # A click that landed while the page was still rerunning can leave the expander closed: open it again
        # only if it is closed (a second click on an open one would close it).
        if exp.locator("details").get_attribute("open") is None:
            exp.locator("summary").click()
        contents.wait_for(timeout=60_000)
    page.wait_for_selector(IDLE, timeout=60_000)



# The reported figures' traces, one per kind drawn (counts and estimates, bounds, targets).
REPORTED_NAMES = ("Reported counts and estimates (not official series)", "Reported bounds (▼ fewer than, ▲ more than)",
                  "Targets and quotas (goals, not counts)")


def series_traces(state: dict) -> list[dict]:
    """The data lines (not events, reported figures or flagged-point overlays)."""
    return [t for t in state["traces"] if t["name"] not in ("Events", *REPORTED_NAMES)
            and not t["name"].endswith("(flagged)") and not t["name"].startswith("Event: ")]


EVENTS_ON_CHART = """(chart) => {
  const gd = document.querySelector(chart);
  const t = gd && gd._fullData && gd._fullData.find(t => t.name === 'Events');
  return t ? Array.from(t.customdata || []).reduce((n, g) => n + g.length, 0) : 0;
}"""


def event_markers(page) -> int:
    """Events on the chart: a marker holds one event or a run of close ones (its customdata lists them)."""
    return page.evaluate(EVENTS_ON_CHART, CHART)


def legend_rows(page) -> int:
    """Rows of the events table under the chart (0 when there is none). The grid draws on a canvas and keeps
    an off-screen table for screen readers; its aria-rowcount counts the header too."""
    box = page.locator(".st-key-events_legend")
    if not box.count():
        return 0
    table = box.locator("table[role='grid']")
    table.wait_for(state="attached")
    return int(table.get_attribute("aria-rowcount")) - 1


def wait_events(page, n: int) -> None:
    """Wait until the chart has ``n`` numbered event markers and the events table ``n`` rows (none when 0):
    the two are drawn by different components and settle at slightly different times."""
    page.wait_for_function("""([chart, n]) => {
      const gd = document.querySelector(chart);
      const t = gd && gd._fullData && gd._fullData.find(t => t.name === 'Events');
      const markers = t ? Array.from(t.customdata || []).reduce((k, g) => k + g.length, 0) : 0;
      const box = document.querySelector('.st-key-events_legend');
      const grid = box && box.querySelector("table[role='grid']");
      const rows = box ? (grid ? Number(grid.getAttribute('aria-rowcount')) - 1 : -1) : 0;
      return markers === n && rows === n;
    }""", arg=[CHART, n])


def grid_rows(locator) -> list[list[str]]:
    """Cell texts of a dataframe's screen-reader table (the rows that are rendered; small tables are whole)."""
    locator.locator("table[role='grid']").wait_for(state="attached")
    return locator.locator("table[role='grid'] tr").evaluate_all(
        "trs => trs.map(tr => Array.from(tr.querySelectorAll('th, td')).map(c => c.textContent.trim()))")


def expected(size="page", **view) -> object:
    from loaders.events import load_events
    events = load_events(ROOT / "data" / "events.csv", ROOT / "data" / "user_events.csv")  # as the page does
    reported = None
    if (ROOT / "data" / "reported_figures.csv").exists():
        from loaders.reported_figures import load_reported
        reported = load_reported(ROOT / "data" / "reported_figures.csv")
    return render(SNAP, View(**view), events=events, reported=reported, size=size)


def shown_points(r) -> int:
    return len(r.table)


def save_full_page(page, path: Path) -> None:
    """Streamlit scrolls inside its own container, so a "full page" capture grows the viewport to the content."""
    # Grown until the content stops growing: a section still filling in (a table mounting) can add height after
    # the first measure, and waiting for the first height to fit then never ends.
    height = 0
    for _ in range(10):
        now = page.evaluate("() => document.querySelector('[data-testid=stMain]').scrollHeight")
        if now <= height:
            break
        height = int(now)
        page.set_viewport_size({"width": VIEWPORT["width"], "height": height})
        page.wait_for_timeout(300)
    page.wait_for_timeout(500)  # Plotly's resize handler redraws on a debounce
    page.screenshot(path=str(path))
    page.set_viewport_size(VIEWPORT)


# ---------------------------------------------------------------------------------------------- tests

def test_default_page_shows_real_data(page, server):
    open_page(page, server, panels=())  # the page as a reader first sees it
    assert page.locator("h1").first.inner_text() == "US immigration enforcement: trends and events"

    state = plot(page)
    assert state["title"].strip().startswith(DEFAULT_TITLE)
    title_text = page.locator(f"{CHART} .gtitle").text_content()
    assert DEFAULT_TITLE in title_text and "2025-01-20 to" in title_text
    r = expected()
    lines = series_traces(state)
    from figures.labels import display_label
    assert [t["name"] for t in lines] == [display_label(p) for p in r.prepared]
    assert sum(len(t["x"]) for t in lines) == shown_points(r) > 20
    # Drawn, not just held: each data line has an SVG path with many vertices.
    paths = page.locator(f"{CHART} .scatterlayer .trace .js-line").evaluate_all(
        "ps => ps.map(p => (p.getAttribute('d') || '').split(/[LM]/).length)")
    assert len([n for n in paths if n > 10]) >= len(lines)
    assert state["xrange"][0].startswith("2025-01-20")

    # Headline cards: one sentence each, with the value and the date the snapshot holds; the data date and the
    # rest in the card's popover, one click away.
    hs = headlines(SNAP)
    assert len(hs) >= 3
    for i, h in enumerate(hs):
        card = page.locator(f".st-key-card_{i}")
        assert card.locator("strong").first.inner_text().strip() == h.label
        assert card.get_by_text(h.quote).count() or h.quote in card.inner_text()
        assert h.value is None or f"{h.value:,.0f}" in card.locator("p strong").nth(1).inner_text()
    page.locator(".st-key-card_0 [data-testid='stPopover'] button").first.click()
    details = page.locator("[data-testid='stPopoverBody']").first
    details.wait_for()
    assert f"Data date {hs[0].data_date}" in details.inner_text()
    page.keyboard.press("Escape")
    assert re.search(r"Data to \d{4}-\d{2}-\d{2} \(latest point", page.locator("[data-testid='stText']").first.inner_text())

    shot = ARTIFACTS / "default_page_full.png"  # git-ignored; the README's copy is made by tests.e2e_screenshot
    save_full_page(page, shot)
    from PIL import Image
    with Image.open(shot) as im:
        assert im.width == VIEWPORT["width"] and im.height >= VIEWPORT["height"]


def test_date_range_changes_chart_and_figures(page, server):
    open_page(page, server)
    before = plot(page)
    n_before = sum(len(t["x"]) for t in series_traces(before))

    press(page, "w_preset", "All data")
    after = wait_plot(page, "s => !s.xrange[0].startsWith('2025-01-20')")
    r = expected(preset="all")
    assert after["xrange"][0].startswith(r.lo.isoformat()) and r.lo < dt.date(2015, 1, 1)
    assert sum(len(t["x"]) for t in series_traces(after)) == shown_points(r) > n_before
    assert f"{r.lo} to {r.hi}" in page.locator(f"{CHART} .gtitle").text_content()
    assert "preset=all" in page.url

    press(page, "w_preset", "Custom range")
    start, end = dt.date(2025, 3, 1), dt.date(2025, 6, 30)
    type_dates(page, "w_range", start, end)
    custom = wait_plot(page, f"s => s.xrange[0].startsWith('{start}') && s.xrange[1].startsWith('{end}')")
    r = expected(preset="custom", start=start, end=end)
    xs = [x[:10] for t in series_traces(custom) for x in t["x"]]
    assert len(xs) == shown_points(r) and 0 < len(xs) < n_before
    assert sorted(xs) == sorted(r.table["date"].tolist())
    assert f"{start} to {end}" in page.locator(f"{CHART} .gtitle").text_content()
    assert f"start={start}" in page.url and f"end={end}" in page.url
    latest = r.table.sort_values("end").iloc[-1]
    assert f"Data to {latest['end']}" in page.locator("[data-testid='stText']").first.inner_text()


def test_event_categories_drive_markers_and_legend(page, server):
    open_page(page, server)
    default = expected()
    n0 = len(default.events)
    assert n0 > 5 and event_markers(page) == n0 and legend_rows(page) == n0
    header = grid_rows(page.locator(".st-key-events_legend"))[0]
    # Reader labels, not field names (issue 26: the table showed "date_precision").
    assert header[:4] == ["No.", "Date", "Date precision", "Event"] and "Source link" in header

    open_expander(page, "Events on the chart")
    with rerun(page):
        page.locator(".st-key-w_cats button[aria-label='Remove policy']").click()
    rest = [c for c in View().categories if c != "policy"]
    n1 = len(expected(categories=rest).events)
    assert 0 < n1 < n0
    wait_events(page, n1)
    assert event_markers(page) == legend_rows(page) == n1
    assert "categories=" + "%2C".join(rest) in page.url.replace(",", "%2C")

    toggle(page, "w_events")
    wait_events(page, 0)
    assert legend_rows(page) == 0 and "events=0" in page.url

    toggle(page, "w_events")
    for cat in rest:
        with rerun(page):
            page.locator(f".st-key-w_cats button[aria-label='Remove {cat}']").click()
    n_all = len(expected(categories=[]).events)
    assert n_all > n0
    wait_events(page, n_all)
    assert "categories=all" in page.url


def test_event_study(page, server):
    from analysis.study import carry_days
    from analysis.study import study as run_study
    open_page(page, server)
    page.locator(".st-key-tab").get_by_role("radio", name="Event study").click()
    panel = page.locator(".st-key-room_study")
    study = ".st-key-study_chart .js-plotly-plot"
    page.wait_for_selector(f"{study} .main-svg")

    # The default: the first series on the chart around the reassignment of ICE's enforcement chief.
    event = page.locator(".st-key-w_study_event input").input_value()
    assert event.startswith("2025-02-11")
    sid = View().series[0]
    rows = cdata.series_rows(SNAP, sid, "")
    res = run_study(rows, dt.date(2025, 2, 11), 30, flow=True, max_carry_days=carry_days(SNAP.info(sid)["frequency"]))
    assert res.unit == "weeks"  # a weekly series: whole weeks, and the page says so
    assert panel.get_by_text(res.note).count() == 1
    values = panel.locator("[data-testid='stMetricValue']").all_inner_texts()
    assert values[:2] == [f"{res.before.mean_per_day:,.1f}", f"{res.after.mean_per_day:,.1f}"]
    state = plot(page, study)
    assert "around 2025-02-11" in page.locator(f"{study} .gtitle").text_content()
    assert len([t for t in state["traces"] if len(t["x"]) > 5]) == 2  # around the date, and a year earlier

    # A date instead of an event.
    choose(page, "w_study_event", "(a date)")
    type_dates(page, "w_study_date", dt.date(2025, 6, 1))
    wait_plot(page, "s => s.title.includes('2025-06-01')", study)
    res = run_study(rows, dt.date(2025, 6, 1), 30, flow=True)
    values = panel.locator("[data-testid='stMetricValue']").all_inner_texts()
    assert values[:2] == [f"{res.before.mean_per_day:,.1f}", f"{res.after.mean_per_day:,.1f}"]
    assert f"{res.change:+,.1f}" in panel.locator("[data-testid='stMetric']").nth(1).inner_text()

    # A series with no data after August 2024 (DHS's monthly tables as held): said, not shown as "no change".
    # (ICE's biweekly count served here until the older releases filled its 2025 gap.)
    assert SNAP.obs.loc[SNAP.obs["series"] == "ohss_monthly_tables.ero_arrests", "end"].max().date() < dt.date(2025, 5, 1)
    title = SNAP.info("ohss_monthly_tables.ero_arrests")["title"]
    choose(page, "w_study_series", title)
    page.wait_for_selector(study, state="detached")
    assert panel.locator("[data-testid='stAlert']").filter(has_text="no data on one side of 2025-06-01").count() == 1
    assert panel.locator("[data-testid='stMetric']").count() == 0


def test_permalink_restores_the_view(page, server):
    sid = "trac_detention.detained_cbp"
    open_page(page, server, f"series={sid}&preset=custom&start=2021-01-01&end=2021-12-31&log=1")
    label = SNAP.info(sid)["title"]
    state = plot(page)
    assert label in state["title"] and "2021-01-01 to 2021-12-31" in state["title"]
    assert state["ytype"] == "log"
    assert state["xrange"][0].startswith("2021-01-01") and state["xrange"][1].startswith("2021-12-31")
    assert [t["name"] for t in series_traces(state)] == [label]

    tags = page.locator(".st-key-w_series [data-tag] span[title]").all_inner_texts()
    assert tags == [label]
    assert page.locator(".st-key-w_preset button[aria-checked='true']").inner_text() == "Custom range"
    assert page.locator(".st-key-w_range input[type='date']").evaluate_all("es => es.map(e => e.value)") == \
        ["2021-01-01", "2021-12-31"]
    open_expander(page, "Chart options")
    assert page.locator(".st-key-w_log input[type='checkbox']").is_checked()
    for part in (f"series={sid}", "preset=custom", "start=2021-01-01", "end=2021-12-31", "log=1"):
        assert part in page.url

    toggle(page, "w_log")
    wait_plot(page, "s => s.ytype === 'linear'")
    assert "log=" not in page.url and "start=2021-01-01" in page.url

    # The updated URL opened in a new tab shows the same view.
    fresh = page.context.new_page()
    open_page(fresh, server, page.url.split("?", 1)[1])
    again = plot(fresh)
    assert again["ytype"] == "linear" and again["xrange"] == plot(page)["xrange"] and again["title"] == plot(page)["title"]
    fresh.close()


def test_downloads_carry_data_and_sources(page, server):
    start, end = dt.date(2025, 3, 1), dt.date(2025, 6, 30)
    open_page(page, server, f"preset=custom&start={start}&end={end}")
    r = expected(preset="custom", start=start, end=end)
    title = page.locator(f"{CHART} .gtitle").text_content().split(f"{start} to")[0]
    assert title == DEFAULT_TITLE

    def download(key: str) -> tuple[str, bytes]:
        with page.expect_download(timeout=60_000) as info:
            page.locator(f".st-key-{key} button").click()
        d = info.value
        return d.suggested_filename, Path(d.path()).read_bytes()

    name, body = download("dl_csv")
    assert name.endswith(".csv")
    text = body.decode("utf-8")
    comments = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert comments[0] == f"# {DEFAULT_TITLE}"
    publisher = SNAP.source_entry(r.prepared[0].source)["publisher"]
    assert any(ln.startswith(f"# Source: {publisher}") for ln in comments)
    assert any("Exported" in ln for ln in comments)
    rows = list(csv.DictReader(io.StringIO("\n".join(ln for ln in text.splitlines() if not ln.startswith("#")))))
    reported_rows = [x for x in rows if x["kind"] == "reported"]
    assert len(reported_rows) == len(r.reported) and all(x["source"] for x in reported_rows)
    rows = [x for x in rows if x["kind"] == "series"]
    assert [(x["series"], x["date"]) for x in rows] == list(zip(r.table["series"], r.table["date"]))
    assert [float(x["value"]) for x in rows] == pytest.approx(r.table["value"].tolist())
    drawn = sorted(x[:10] for t in series_traces(plot(page)) for x in t["x"])
    assert drawn == sorted(x["date"] for x in rows)

    name, body = download("dl_html")
    html = body.decode("utf-8")
    assert name.endswith(".html") and DEFAULT_TITLE in html
    assert not re.search(r"<script[^>]*\ssrc\s*=", html, re.I), "the HTML export must not load scripts from elsewhere"
    assert "plotly.js" in html  # embedded, so it works offline

    name, body = download("dl_png")
    from PIL import Image
    assert name.endswith(".png")
    with Image.open(io.BytesIO(body)) as im:
        im.load()
        # The default download size is the article column: 680 px at 2x.
        art = expected(size="article", preset="custom", start=start, end=end)
        assert im.format == "PNG" and im.width == 1360 and im.height == 2 * int(art.figure.layout.height)
        (ARTIFACTS / "download.png").write_bytes(body)


BAD_EVENTS = (
    "id,date,date_precision,title,category,description,source_name,source_url\r\n"
    ",2025-13-45,exact,A date that does not exist,policy,,Tester,https://example.org/a\r\n"
    ",2025-05-01,exact,An unknown category,spaceflight,,Tester,https://example.org/b\r\n"
    ",2025-05-02,exact,A script link,policy,,Tester,javascript:window.__xss=2\r\n"
    ',2025-05-03,exact,"=HYPERLINK(""https://evil.example"",""click"")",policy,,Tester,https://example.org/c\r\n'
    ',2025-06-15,exact,"Test event <img src=x onerror=""window.__xss=1"">",policy,'
    '"<script>window.__xss=3</script> a good row",Tester,https://example.org/good\r\n'
)


def test_bad_events_upload_lists_rejected_rows(page, server, tmp_path):
    open_page(page, server)
    n0 = event_markers(page)
    rows0 = legend_rows(page)
    open_expander(page, "Events on the chart")
    upload = tmp_path / "my_events.csv"
    upload.write_text(BAD_EVENTS, encoding="utf-8")
    with rerun(page):
        page.locator(".st-key-w_upload input[type='file']").set_input_files(str(upload))

    report = page.locator(".st-key-upload_report")
    assert "1 event accepted from my_events.csv; 4 rows rejected." in report.inner_text()
    rejected = grid_rows(report)
    assert rejected[0] == ["row", "field", "reason"]
    by_row = {int(r[0]): (r[1], r[2]) for r in rejected[1:]}
    assert sorted(by_row) == [2, 3, 4, 5]
    assert by_row[2][0] == "date" and "not a real calendar date" in by_row[2][1]
    assert by_row[3][0] == "category" and "spaceflight" in by_row[3][1]
    assert by_row[4][0] == "source_url" and "javascript:" in by_row[4][1]
    assert by_row[5][0] == "title" and "formula" in by_row[5][1]

    # The good row is on the chart, numbered in date order, its markup shown as text.
    assert rows0 == n0
    wait_events(page, n0 + 1)
    events = next(t for t in plot(page)["traces"] if t["name"] == "Events")
    mine = [i for i, h in enumerate(events["hovertext"]) if "Test event" in h]
    assert len(mine) == 1
    i = mine[0]
    # Its dotted line is at its date; its marker may be shared with close events (numbered as a range).
    assert any("2025-06-15" in t["x"] for t in plot(page)["traces"] if t["name"].startswith("Event: "))
    assert "Test event &lt;img src=x onerror=&#34;window.__xss=1&#34;&gt;" in events["hovertext"][i]
    assert "&lt;script&gt;window.__xss=3&lt;/script&gt;" in events["hovertext"][i]
    # the event markers' own strip (subplot xy9): a target's label is a text point too, in the panels
    page.locator(f"{CHART} .subplot.xy9 .textpoint").nth(i).hover(force=True)
    hover = page.locator(f"{CHART} .hoverlayer")
    page.wait_for_function(f"() => document.querySelector('{CHART} .hoverlayer').textContent.includes('Test event')")
    assert '<img src=x onerror="window.__xss=1">' in hover.text_content()
    assert page.evaluate("() => window.__xss") is None
    assert page.locator("img[src='x']").count() == 0

    # Removing the file takes its event off the chart again.
    with rerun(page):
        page.locator(".st-key-w_upload button[aria-label='Remove my_events.csv']").click()
    wait_events(page, n0)
    assert page.locator(".st-key-upload_report").count() == 0
    assert page.evaluate("() => window.__xss") is None


def test_a_choice_in_a_closed_section_survives_a_change_of_range(page, server):
    # The chart options are built only while open, and a change of the date range reruns only the trends
    # panel (a fragment): such a run forgets the widgets it does not draw unless the panel keeps their values.
    open_page(page, server, "preset=all", panels=())
    open_expander(page, "Chart options")
    toggle(page, "w_log")
    wait_plot(page, "s => s.ytype === 'log'")
    with rerun(page):
        page.locator("[data-testid='stExpander']").filter(has_text="Chart options").first.locator("summary").click()
    page.locator(".st-key-w_log").wait_for(state="detached")
    before = plot(page)["xrange"][0]
    press(page, "w_preset", "Last 90 days")
    state = wait_plot(page, f"s => s.xrange[0] !== {before!r}")
    assert state["ytype"] == "log" and "log=1" in page.url and "preset=last-90-days" in page.url
    open_expander(page, "Chart options")
    assert page.locator(".st-key-w_log input[type='checkbox']").is_checked()
