"""Load: N concurrent readers against one Streamlit server, with the static site as the floor.

    .venv/bin/python bench/bench_load.py [--levels 1,5,10,20] [--budget 150]

One ``streamlit run dashboard.py`` on loopback (the bundled snapshot), warmed by one session first. For each N,
N fresh browser contexts (one headless Chromium, Playwright's async API) open the page at the same moment:

- time to first chart: from ``goto`` until Streamlit reports the script idle and the Plotly chart has drawn its
  traces (bench_page.py's READY);
- time to a rerun: each session then switches "Date range" to another preset, all at once, and waits until the
  chart's drawn axes and line have changed and the script is idle again (bench_page.py's CHANGED);
- server memory: the server process's RSS with the N sessions open and loaded, minus its RSS with none (after
  the warm-up session closed), divided by N: memory per added session.

The floor: the same N readers opening a page of ``python -m charts site`` (built first, served by a threaded
``http.server`` on loopback) until its chart has drawn. A static page has no rerun: changing the view there
means opening another page.

Every level is bounded: sessions not done within ``--budget`` seconds are counted as timed out, not waited
for. The browser runs on the same 2 cores as the server, so at N = 20 the times include the browser's own
rendering of 20 pages; they are an upper bound on what one server gives readers with their own machines.
"""
from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_page import CHANGED, PROJECT_CHOICES, READY, SIGNATURE  # noqa: E402
from common import CHROMIUM, CHROMIUM_ARGS, ROOT, PageSpec, Server, browser_missing, header, start_pages  # noqa: E402

STATIC_READY = """() => { const gd = document.querySelector('.js-plotly-plot');
  return !!gd && !!gd._fullLayout && gd.querySelectorAll('.scatterlayer .trace').length > 0; }"""


def p95(xs: list[float]) -> float:
    if len(xs) == 1:
        return xs[0]
    return statistics.quantiles(xs, n=20, method="inclusive")[18]


def fmt(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f} / {p95(xs):.2f}" if xs else "—"


async def one_session(browser, url: str, budget_end: float, results: dict, start: asyncio.Event):
    ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        tab = await ctx.new_page()
        await start.wait()
        t0 = time.perf_counter()
        left = max(1.0, budget_end - time.monotonic())
        await tab.goto(url, timeout=left * 1000)
        await tab.wait_for_function(READY, polling=100, timeout=max(1.0, budget_end - time.monotonic()) * 1000)
        results["first"].append(time.perf_counter() - t0)
        return ctx, tab
    except Exception as e:  # a timeout: counted, not waited for
        results["timeouts"].append(f"first chart: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
        await ctx.close()
        return None, None


async def do_rerun(tab, option: str, budget_end: float, results: dict, start: asyncio.Event):
    # The picker is found by its widget key (.st-key-<key>), as bench_page.py and the browser tests find it:
    # PROJECT_CHOICES[0] is that key ("w_preset"), never text on the page, so filtering the select boxes by it
    # as text matched nothing and every rerun timed out.
    key = PROJECT_CHOICES[0]
    try:
        # The date range is a segmented control: one click on the option's button.
        opt = tab.locator(f".st-key-{key} button").filter(has_text=option).first
        await opt.scroll_into_view_if_needed()
        before = await tab.evaluate(SIGNATURE)
        await start.wait()
        t0 = time.perf_counter()
        await opt.click()
        await tab.wait_for_function(CHANGED, arg=before, polling=100,
                                    timeout=max(1.0, budget_end - time.monotonic()) * 1000)
        results["rerun"].append(time.perf_counter() - t0)
    except Exception as e:
        results["timeouts"].append(f"rerun: {type(e).__name__}: {str(e).splitlines()[0][:160]}")


async def level(browser, server: Server, n: int, budget: float) -> dict:
    results = {"first": [], "rerun": [], "timeouts": []}
    rss0 = server.vm_rss_kib()
    end = time.monotonic() + budget
    go = asyncio.Event()
    tasks = [asyncio.create_task(one_session(browser, server.url, end, results, go)) for _ in range(n)]
    await asyncio.sleep(0.5)  # contexts created; then every session starts at once
    go.set()
    sessions = [s for s in await asyncio.gather(*tasks) if s[0] is not None]
    await asyncio.sleep(1.0)
    results["rss_loaded"] = server.vm_rss_kib()
    results["rss_before"] = rss0
    go2 = asyncio.Event()
    options = PROJECT_CHOICES[1]
    end2 = time.monotonic() + budget
    rtasks = [asyncio.create_task(do_rerun(tab, options[i % 2], end2, results, go2))
              for i, (_ctx, tab) in enumerate(sessions)]
    await asyncio.sleep(1.0)  # every session's menu open; then all click at once
    go2.set()
    await asyncio.gather(*rtasks)
    results["rss_after_rerun"] = server.vm_rss_kib()
    for ctx, _tab in sessions:
        await ctx.close()
    return results


async def static_level(browser, url: str, n: int, budget: float) -> dict:
    results = {"first": [], "timeouts": []}
    go = asyncio.Event()
    end = time.monotonic() + budget

    async def one():
        ctx = await browser.new_context(viewport={"width": 1400, "height": 1000})
        try:
            tab = await ctx.new_page()
            await go.wait()
            t0 = time.perf_counter()
            await tab.goto(url, timeout=max(1.0, end - time.monotonic()) * 1000)  # not Playwright's 30 s default
            await tab.wait_for_function(STATIC_READY, polling=100, timeout=max(1.0, end - time.monotonic()) * 1000)
            results["first"].append(time.perf_counter() - t0)
        except Exception as e:
            results["timeouts"].append(f"{type(e).__name__}: {str(e).splitlines()[0][:160]}")
        finally:
            await ctx.close()
    tasks = [asyncio.create_task(one()) for _ in range(n)]
    await asyncio.sleep(0.5)
    go.set()
    await asyncio.gather(*tasks)
    return results


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


async def main_async(levels: list[int], budget: float, static_only: bool = False) -> int:
    from playwright.async_api import async_playwright

    from charts.site import build_site
    site_dir = Path(tempfile.mkdtemp(prefix="bench-site-")) / "site"
    build_site(site_dir, images=False, log=lambda m: None)
    first_page = sorted(p.name for p in site_dir.glob("01-*.html") if ".embed-" not in p.name)[0]
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site_dir)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    static_url = f"http://127.0.0.1:{httpd.server_address[1]}/{first_page}"

    if static_only:  # the floor alone (no Streamlit server), e.g. to re-measure it
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for n in levels:
                s = await static_level(browser, static_url, n, budget)
                print(f"   N={n:>2}: static page {fmt(s['first'])} s (median / p95); timeouts: {len(s['timeouts'])}"
                      + (f" ({s['timeouts'][0]})" if s["timeouts"] else ""), flush=True)
            await browser.close()
        httpd.shutdown()
        return 0
    rows = []
    # the timing wrapper of the other page benchmarks (one file append per run) costs nothing next to a session
    specs = [PageSpec("project", ROOT / "dashboard.py")]
    try:
        with start_pages(Path(site_dir).parent, specs, timeout=90, quiet=True) as (started,):
            server = started.server
            async with async_playwright() as p:
                browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                warm = await level(browser, server, 1, budget)  # caches filled; not reported
                print(f"   warm-up session: first chart {fmt(warm['first'])} s; server RSS idle "
                      f"{server.vm_rss_kib() / 1024:.0f} MiB")
                for n in levels:
                    await asyncio.sleep(3)  # let closed sessions go
                    r = await level(browser, server, n, budget)
                    s = await static_level(browser, static_url, n, budget)
                    per = (r["rss_loaded"] - r["rss_before"]) / 1024 / max(1, len(r["first"]))
                    rows.append((n, r, s, per))
                    print(f"   N={n:>2}: first chart {fmt(r['first'])} s (median / p95), rerun {fmt(r['rerun'])} s, "
                          f"static page {fmt(s['first'])} s; server RSS {r['rss_before'] / 1024:.0f} -> "
                          f"{r['rss_loaded'] / 1024:.0f} MiB loaded ({per:+.1f} MiB a session), "
                          f"{r['rss_after_rerun'] / 1024:.0f} MiB after the reruns; timeouts: "
                          f"{len(r['timeouts']) + len(s['timeouts'])}", flush=True)
                await browser.close()
    finally:
        httpd.shutdown()
    print()
    print("| N sessions | first chart, median / p95 (s) | rerun, median / p95 (s) | static page, median / p95 (s) "
          "| server RSS loaded (MiB) | per added session (MiB) | timed out |")
    print("|---|---|---|---|---|---|---|")
    for n, r, s, per in rows:
        print(f"| {n} | {fmt(r['first'])} | {fmt(r['rerun'])} | {fmt(s['first'])} | {r['rss_loaded'] / 1024:.0f} "
              f"| {per:.1f} | {len(r['timeouts']) + len(s['timeouts'])} of {2 * n + n} |")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--levels", default="1,5,10,20")
    ap.add_argument("--budget", type=float, default=150, help="seconds allowed per phase of each level")
    ap.add_argument("--static-only", action="store_true", help="measure the static floor alone")
    args = ap.parse_args()
    why = browser_missing()
    if why:
        print(why)
        return 0
    header("Load: N concurrent sessions against one server, static site as the floor")
    # A SIGTERM stops the server too (the finally blocks run), not only Ctrl-C.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    return asyncio.run(main_async([int(x) for x in args.levels.split(",")], args.budget, args.static_only))


if __name__ == "__main__":
    sys.exit(main())
