"""Memory: peak resident memory of the Streamlit server with the page loaded and every source in the snapshot.

    .venv/bin/python bench/bench_memory.py [--sessions 3] [--rebuild]

Starts ``streamlit run dashboard.py`` (its own process, stopped by its id), reads the server's VmRSS/VmHWM
from /proc/<pid>/status when it is healthy, then opens the page in headless Chromium until the first chart is
drawn, switches the date range once, opens the event-study and sources tabs, and reads VmHWM (the process's
peak resident set) again. ``--sessions`` opens that many browser tabs at once to show what each extra session
costs. The same is done for the trivial one-chart page of bench_page.py as a reference. By default the page
reads the committed snapshot (data/, every source); ``--rebuild`` rebuilds every source from ../shared/data
into a temporary folder and uses that instead.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_page import PROJECT_CHOICES, READY, TRIVIAL  # noqa: E402
from common import CHROMIUM, CHROMIUM_ARGS, ROOT, PageSpec, Server, browser_missing, header, prepare_pages, start_pages  # noqa: E402

IDLE = """() => !!document.querySelector("[data-testid='stApp'][data-test-script-state='notRunning']")"""


def measure(browser, server: Server, sessions: int, project: bool) -> dict:
    out = {"idle_rss": server.vm_rss_kib()}
    ctxs = []
    for i in range(sessions):
        ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
        tab = ctx.new_page()
        tab.goto(server.url)
        tab.wait_for_function(READY, polling="raf", timeout=120_000)
        if project:
            # the date range and the rooms are segmented controls (buttons), found by their keys
            tab.locator(f".st-key-{PROJECT_CHOICES[0]} button").filter(has_text="All data").first.click()
            tab.wait_for_function(READY, polling="raf", timeout=60_000)
            for name in ("Event study", "Sources and methods"):
                tab.locator(".st-key-tab button").filter(has_text=name).first.click()
                tab.wait_for_function(IDLE, polling="raf", timeout=60_000)
            tab.wait_for_timeout(500)
        ctxs.append(ctx)
        out[f"hwm_after_{i + 1}"] = server.vm_hwm_kib()
    out["rss_end"] = server.vm_rss_kib()
    for ctx in ctxs:
        ctx.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--rebuild", action="store_true")
    args = ap.parse_args()
    why = browser_missing()
    if why:
        print(why)
        return 0
    from playwright.sync_api import sync_playwright
    header("Memory: Streamlit server peak resident set with the page loaded")
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        tmp = Path(tmp)
        data_dir, desc = prepare_pages(tmp, args.rebuild, TRIVIAL)
        results = {}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            # one server at a time, so that each one's memory is measured alone
            for spec in (PageSpec("trivial", tmp / "trivial.py"), PageSpec("project", ROOT / "dashboard.py", data_dir)):
                with start_pages(tmp, [spec], quiet=True) as (st,):
                    results[st.name] = measure(browser, st.server, args.sessions, st.name == "project")
            browser.close()
    print()
    for name, r in results.items():
        steps = ", ".join(f"after {k.split('_')[-1]} session(s) {v / 1024:.0f} MB" for k, v in r.items()
                          if k.startswith("hwm_after"))
        print(f"{name:8} idle RSS {r['idle_rss'] / 1024:.0f} MB; peak (VmHWM) {steps}; RSS at the end "
              f"{r['rss_end'] / 1024:.0f} MB")
    proj = results["project"]
    first = proj["hwm_after_1"] / 1024
    last = proj[f"hwm_after_{args.sessions}"] / 1024
    print(f"project page, every source loaded: peak {first:.0f} MB with one session; "
          f"{(last - first) / max(1, args.sessions - 1):.0f} MB more per extra session")
    return 0


if __name__ == "__main__":
    sys.exit(main())
