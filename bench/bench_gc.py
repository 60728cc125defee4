"""Streamlit's collection after each script run, switched off as shipped (``runner.postScriptGC = false`` in
.streamlit/config.toml) against switched on, side by side in one run.

    .venv/bin/python bench/bench_gc.py [--reruns 10]

Two servers of the project's dashboard.py on the committed snapshot, each under the timing wrapper of
bench/common.py (``write_wrapper``), differing only in that switch (given on the command line, so the result does
not depend on which config file Streamlit finds):
- ``no-gc``: as shipped. Streamlit does not collect after a run; Python's own generational collector still runs
  when its thresholds say.
- ``gc``: Streamlit collects after every run, over the snapshot's long-lived frames: what the switch avoids.
(The page's earlier heap settle, ``gc.freeze`` once per server, was measured against this switch and removed;
BENCHMARKS.md keeps that row.)
On one loaded page each, the date range is switched through the presets (pages alternate), and the server's whole
run (``ScriptRunner._run_script``, which holds the collection) and the browser's time to the changed chart are
recorded. Reported: medians and each variant's ratio to ``no-gc``.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_page import PROJECT_CHOICES, Page, load, rerun  # noqa: E402
from common import CHROMIUM, CHROMIUM_ARGS, ROOT, PageSpec, browser_missing, header, median, start_pages  # noqa: E402

VARIANTS = (("no-gc", ["--runner.postScriptGC", "false"]), ("gc", ["--runner.postScriptGC", "true"]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reruns", type=int, default=10, help="date-range changes per page (alternating)")
    args = ap.parse_args()
    why = browser_missing()
    if why:
        print(why)
        return 0
    from playwright.sync_api import sync_playwright
    header("Page: runner.postScriptGC = false (as shipped) vs true (rerun after a date-range change)")
    with tempfile.TemporaryDirectory(prefix="bench-gc-") as tmp:
        tmp = Path(tmp)
        specs = [PageSpec(name, ROOT / "dashboard.py", extra_args=tuple(extra)) for name, extra in VARIANTS]
        with start_pages(tmp, specs) as started:
            pages = [Page(st.name, st.server, st.log, PROJECT_CHOICES) for st in started]
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                loaded = {pg.name: load(browser, pg, keep=True) for pg in pages}
                for k in range(args.reruns):
                    order = pages[k % len(pages):] + pages[:k % len(pages)]
                    for pg in order:
                        _, tab, _, _ = loaded[pg.name]
                        took, server_s, kind = rerun(tab, pg, pg.options[k % len(pg.options)])
                        pg.browser_rerun.append(took)
                        pg.rerun_kinds.append(kind)
                for ctx, *_ in loaded.values():
                    ctx.close()
                browser.close()
    base = pages[0]
    print()
    print(f"{'':12}{'server run, median':>20}{'ratio':>8}{'browser, median':>18}{'ratio':>8}")
    for pg in pages:
        s, b = median(pg.server_whole), median(pg.browser_rerun)
        print(f"{pg.name:12}{s * 1000:>17.0f} ms{s / median(base.server_whole):>8.2f}{b:>16.3f} s"
              f"{b / median(base.browser_rerun):>8.2f}")
    for pg in pages:
        print(f"all server runs (ms), {pg.name}: " + " ".join(f"{t * 1000:.0f}" for t in pg.server_whole))
    return 0


if __name__ == "__main__":
    sys.exit(main())
