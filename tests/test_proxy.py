"""Two replicas of the dashboard behind Debian's nginx on loopback (deploy/nginx.conf): sticky sessions, the
WebSocket upgrade, and one replica killed while readers are on the page (one who had changed the view, one who
had not touched the page: issue 40).

Everything runs on 127.0.0.1 on free ports: two ``streamlit run dashboard.py`` processes and nginx as a
foreground process with its own prefix, pid file, logs and temporary folders in the test's tmp folder (never the
system's service). Which replica answered each request is read from nginx's own access log (``route=<affinity
key> upstream=<replica>``), so the test needs nothing from the page. Every process the test starts is stopped
by its own id in a ``finally``; every wait is bounded.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, stop_process

pytestmark = pytest.mark.browser

NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
if not NGINX:
    pytest.skip("no nginx on PATH or at /usr/sbin/nginx (on Debian/Ubuntu: apt-get install nginx; "
                "`make test` installs it when run as root)", allow_module_level=True)
# After the skip; test_e2e itself skips (saying why) when there is no Chromium or Playwright.
from tests.test_e2e import ARTIFACTS, CHART, CHROMIUM, IDLE, LAUNCH_ARGS, VIEWPORT, free_port, press, sync_api  # noqa: E402

sys.path.insert(0, str(ROOT / "deploy"))
from nginx_conf import render  # noqa: E402

CONNECTED = "[data-testid='stApp'][data-test-connection-state='CONNECTED']"
# Every connection state the page shows from now on (Streamlit marks the app root with it), until the page is
# loaded again; kept in the tab's sessionStorage too, which outlives that load (STATES reads it).
WATCH_CONNECTION = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  window.__states = [app.getAttribute('data-test-connection-state')];
  const keep = () => sessionStorage.setItem('__states', JSON.stringify(window.__states));
  keep();
  new MutationObserver(() => { window.__states.push(app.getAttribute('data-test-connection-state')); keep(); })
    .observe(app, {attributes: true, attributeFilter: ['data-test-connection-state']});
}"""
STATES = "() => JSON.parse(sessionStorage.getItem('__states') || 'null')"
LOG_LINE = re.compile(r'"(?P<method>\S+) (?P<uri>\S+) [^"]*" (?P<status>\d+) \d+ route=(?P<route>\S+) '
                      r'upstream=(?P<upstream>.*?) rt=')


def wait_http(url: str, deadline: float, procs) -> None:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            pass
        dead = [p.args[0] for p in procs if p.poll() is not None]
        if dead or time.monotonic() > deadline:
            raise RuntimeError(f"{url} not answering (exited: {dead})")
        time.sleep(0.3)


def log_lines(access_log: Path) -> list[dict]:
    if not access_log.exists():
        return []
    return [m.groupdict() for m in map(LOG_LINE.search, access_log.read_text().splitlines()) if m]


def lines_when(access_log: Path, done, seconds: float = 15.0) -> list[dict]:
    """The access log's lines once ``done(lines)`` holds, or after ``seconds``: nginx writes a WebSocket's line
    when it closes, just after the browser closed."""
    waited = time.monotonic() + seconds
    while True:
        lines = log_lines(access_log)
        if done(lines) or time.monotonic() > waited:
            return lines
        time.sleep(0.2)


def route_per_replica(proxy: str, access_log: Path, replicas: list[str], tries: int = 40) -> dict[str, str]:
    """One affinity key that nginx sends to each replica: ask for a new cookie until each replica has one
    (with two replicas, 40 tries all landing on one happen once in 2**39)."""
    found: dict[str, str] = {}
    for _ in range(tries):
        with urllib.request.urlopen(f"{proxy}/_stcore/health", timeout=10) as r:
            cookies = r.headers.get_all("Set-Cookie") or []  # Streamlit's XSRF cookie too
        key = next(filter(None, (re.match(r"dash_route=([0-9a-f]+);", c) for c in cookies)), None)
        assert key, f"the proxy set no affinity cookie: {cookies!r}"
        line = None
        waited = time.monotonic() + 10  # nginx writes the log line after the answer: wait for it, bounded
        while line is None and time.monotonic() < waited:
            line = next((x for x in reversed(log_lines(access_log)) if x["route"] == key.group(1)), None)
            if line is None:
                time.sleep(0.1)
        assert line, f"no access-log line for route {key.group(1)} within 10 s"
        found.setdefault(line["upstream"], key.group(1))
        if set(found) >= set(replicas):
            return found
    raise AssertionError(f"nginx sent {tries} new readers to {sorted(found)} only, never to all of {replicas}")


def reader(browser, proxy: str, key: str):
    """A new page of its own browser context, whose affinity cookie sends it to the replica ``key`` names."""
    ctx = browser.new_context(viewport=VIEWPORT)
    ctx.set_default_timeout(60_000)
    ctx.add_cookies([{"name": "dash_route", "value": key, "url": proxy}])
    return ctx.new_page()


@dataclasses.dataclass
class Readers:
    """Two replicas behind nginx, an affinity key that routes to each, and a browser to open readers in."""
    procs: list[subprocess.Popen]  # procs[0] is the replica ``dying`` names, procs[1] ``living``'s
    replicas: list[str]
    proxy: str
    access_log: Path
    keys: dict[str, str]  # replica -> an affinity key nginx sends to it
    browser: Any  # Playwright's Browser (the module is imported only when the test runs)

    @property
    def dying(self) -> str:
        return self.replicas[0]

    @property
    def living(self) -> str:
        return self.replicas[1]

    def reader(self, replica: str):
        """A new page in a browser context of its own, routed to ``replica``."""
        return reader(self.browser, self.proxy, self.keys[replica])


@contextlib.contextmanager
def readers_of_two_replicas(tmp_path: Path):
    """``replicas_behind_nginx``, an affinity key for each replica (``route_per_replica``) and Chromium, as
    ``Readers``. The browser is closed on exit, before the replicas and nginx are stopped; a test that reads the
    log lines written when its WebSockets close calls ``browser.close()`` itself first (closing twice is
    harmless)."""
    with replicas_behind_nginx(tmp_path) as (procs, replicas, proxy, access_log):
        keys = route_per_replica(proxy, access_log, replicas)
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
            try:
                yield Readers(procs, replicas, proxy, access_log, keys, browser)
            finally:
                browser.close()


def open_view(page, proxy: str, query: str = "") -> None:
    """Open the page (at ``?query`` when given) and wait until it is connected, idle and its chart is drawn."""
    page.goto(f"{proxy}/?{query}" if query else proxy + "/")
    page.wait_for_selector(CONNECTED, timeout=120_000)
    page.wait_for_selector(IDLE, timeout=120_000)
    page.wait_for_function("(sel) => { const gd = document.querySelector(sel); return gd && gd._fullLayout; }",
                           arg=CHART, timeout=120_000)
    page.wait_for_selector(f"{CHART} .main-svg", timeout=120_000)


@contextlib.contextmanager
def replicas_behind_nginx(tmp_path: Path):
    """Two public-mode replicas and nginx in front of them, all on free loopback ports; yields
    ``(procs, replicas, proxy, access_log)`` (``procs[0]`` and ``procs[1]`` are the replicas, in the order of
    ``replicas``). Every process is stopped by its own id on exit."""
    procs: list[subprocess.Popen] = []
    files = []
    runtime = tmp_path / "nginx"
    runtime.mkdir()
    access_log = runtime / "access.log"
    try:
        ports: list[int] = []
        while len(ports) < 3:  # two replicas and the proxy, all different
            p = free_port()
            if p not in ports:
                ports.append(p)
        replicas = [f"127.0.0.1:{p}" for p in ports[:2]]
        for i, port in enumerate(ports[:2]):
            log = open(tmp_path / f"replica{i}.log", "wb")  # noqa: SIM115 (a running server's log: open while it runs, closed when it is stopped)
            files.append(log)
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", "dashboard.py", "--server.address", "127.0.0.1",
                 "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
                 "--server.fileWatcherType", "none", "--global.developmentMode", "false"],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "DASHBOARD_PUBLIC": "1"}))
        conf = runtime / "nginx.conf"
        conf.write_text(render(f"127.0.0.1:{ports[2]}", replicas, runtime))
        nlog = open(runtime / "stderr.log", "wb")  # noqa: SIM115 (a running server's log: open while it runs, closed when it is stopped)
        files.append(nlog)
        procs.append(subprocess.Popen([NGINX, "-p", str(runtime), "-c", str(conf), "-e", str(runtime / "error.log"),
                                       "-g", "daemon off;"], stdout=nlog, stderr=subprocess.STDOUT))
        proxy = f"http://127.0.0.1:{ports[2]}"
        deadline = time.monotonic() + 90
        for r in replicas:
            wait_http(f"http://{r}/_stcore/health", deadline, procs)
        wait_http(f"{proxy}/_stcore/health", deadline, procs)
        yield procs, replicas, proxy, access_log
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                stop_process(p)
        for f in files:
            with contextlib.suppress(OSError):
                f.close()


def test_two_replicas_behind_nginx_keep_each_session_and_survive_one_dying(tmp_path):
    with readers_of_two_replicas(tmp_path) as two:
        procs, access_log, keys, dying, living = two.procs, two.access_log, two.keys, two.dying, two.living
        # One reader per replica: each browser gets an affinity key that nginx hashes to that replica.
        pages = {r: two.reader(r) for r in two.replicas}
        for r in two.replicas:
            open_view(pages[r], two.proxy)
            pages[r].evaluate(WATCH_CONNECTION)
        # Each session works over its WebSocket: a date-range change reruns the script on its replica.
        press(pages[living], "w_preset", "Last 90 days")
        press(pages[dying], "w_preset", "Last 90 days")
        # Every request each browser made so far went to its own replica (a WebSocket's line is written when it
        # closes: checked below).
        for r in two.replicas:
            mine = [x for x in log_lines(access_log) if x["route"] == keys[r]]
            assert len(mine) > 5 and {x["upstream"] for x in mine} == {r}, (r, mine[:5])

        # A replica dies mid-session (as a crash would: SIGKILL, no goodbye to its readers).
        pd = pages[dying]
        pd.evaluate("() => { window.__firstLoad = true; }")  # gone once the page is loaded again
        procs[0].kill()
        procs[0].wait(timeout=10)
        # Its reader's page shows the connection lost, then reconnects through the proxy to the live replica,
        # sees another server process answer, and loads itself again from it (page/browser.py).
        pd.wait_for_function(f"() => ({STATES})().some(s => s !== 'CONNECTED')", timeout=60_000)
        with contextlib.suppress(Exception):
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            pd.screenshot(path=str(ARTIFACTS / "proxy-replica-lost.png"))
        pd.wait_for_function("() => !window.__firstLoad", timeout=60_000)
        pd.wait_for_selector(CONNECTED, timeout=120_000)
        pd.wait_for_selector(f"{CHART} .main-svg", timeout=120_000)
        pd.wait_for_selector(IDLE, timeout=120_000)
        seen = pd.evaluate(STATES)
        # The other replica's reader never lost its connection and can still change the view.
        press(pages[living], "w_preset", "All data")
        assert pages[living].evaluate("() => window.__states") == ["CONNECTED"]
        for r in two.replicas:
            pages[r].context.close()
        two.browser.close()  # its WebSockets close now, and nginx writes their log lines
        print("connection states the dying replica's reader saw:", seen)
        assert seen[0] == "CONNECTED" and seen[-1] == "CONNECTED" and any(s != "CONNECTED" for s in seen), seen

        def streams_of(lines):
            return {r: [x for x in lines if x["route"] == keys[r] and x["uri"].startswith("/_stcore/stream")]
                    for r in two.replicas}

        lines = lines_when(access_log, lambda ls: all(streams_of(ls).values()) and len(streams_of(ls)[dying]) > 1)
        streams = streams_of(lines)
        # The living replica's reader: one WebSocket, upgraded (101), on its replica, and every request there.
        assert [(x["status"], x["upstream"]) for x in streams[living]] == [("101", living)], streams[living]
        assert {x["upstream"] for x in lines if x["route"] == keys[living]} == {living}
        # The dying replica's reader: its first WebSocket was on the dying replica; it reconnected with the same
        # affinity key to the living one, because nginx found its own replica refusing connections.
        assert (streams[dying][0]["status"], streams[dying][0]["upstream"]) == ("101", dying), streams[dying]
        assert any(x["status"] == "101" and x["upstream"].endswith(living) for x in streams[dying][1:]), streams[dying]


def test_an_untouched_page_whose_replica_dies_comes_back_working_on_the_other(tmp_path):
    """Issue 40: a reader who has not touched the page loses their replica (SIGKILL). Streamlit's page reconnects
    to the other replica but, having run no fragment, asks for no run there, so the new server has no session
    state and none of the page's fragments: a new range then moved the selector and not the chart, and "Chart
    options" opened empty. The page must notice the new server and come back as its link describes, working."""
    from tests.test_e2e import expected, open_expander, wait_plot

    # A view that is not the default, so that keeping it shows: a custom range on a log scale.
    query = "preset=custom&start=2021-01-01&end=2021-12-31&log=1"
    with readers_of_two_replicas(tmp_path) as two:
        page = two.reader(two.dying)
        open_view(page, two.proxy, query)
        url = page.url
        # A mark that only this load of the page carries: gone after a reload.
        page.evaluate("() => { window.__firstLoad = true; }")
        page.evaluate(WATCH_CONNECTION)

        two.procs[0].kill()  # the reader's replica, untouched since the page was drawn
        killed = time.monotonic()
        two.procs[0].wait(timeout=10)
        page.wait_for_function(f"() => ({STATES})().some(s => s !== 'CONNECTED')", timeout=60_000)
        # Back: the page was loaded again from the living replica, at the same address.
        page.wait_for_function("() => !window.__firstLoad", timeout=60_000)
        page.wait_for_selector(CONNECTED, timeout=120_000)
        back = time.monotonic() - killed
        page.wait_for_selector(IDLE, timeout=120_000)
        page.wait_for_function("(sel) => { const gd = document.querySelector(sel); return gd && gd._fullLayout; }",
                               arg=CHART, timeout=120_000)
        assert page.url == url
        with contextlib.suppress(Exception):
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "proxy-replica-recovered.png"))
        # It stays loaded: no second reload (a loop) once it is on the living replica.
        page.evaluate("() => { window.__secondLoad = true; }")

        # A new range moves the chart with the selector.
        press(page, "w_preset", "All data")
        r = expected(preset="all", log=True)
        state = wait_plot(page, f"s => s.xrange[0].startsWith({r.lo.isoformat()!r})")
        assert page.locator(".st-key-w_preset button[aria-checked='true']").inner_text() == "All data"
        assert state["ytype"] == "log" and f"{r.lo} to {r.hi}" in state["title"]
        assert "preset=all" in page.url and "log=1" in page.url
        # "Chart options" opens with its controls, as the link set them.
        open_expander(page, "Chart options")
        assert page.locator(".st-key-w_log input[type='checkbox']").is_checked()
        assert page.evaluate("() => window.__secondLoad === true")
        page.context.close()
        two.browser.close()  # its WebSocket closes now, and nginx writes its log line

        def back_on_living(lines):
            return [x for x in lines if x["route"] == two.keys[two.dying] and x["upstream"].endswith(two.living)
                    and x["status"] == "101"]

        lines = lines_when(two.access_log, back_on_living)
    print(f"seconds from the kill to connected again: {back:.2f}")
    # After the kill, the reader's WebSocket was on the living replica.
    assert back_on_living(lines), [x for x in lines if x["route"] == two.keys[two.dying]][-5:]
