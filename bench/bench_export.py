"""PNG export: warm (charts.export.to_image, one kaleido browser kept alive) against cold (a new browser per
image), for the page's default chart. One run, side by side.

    .venv/bin/python bench/bench_export.py [--images 5]

- warm: ``charts.export.to_image(fig, "png")`` in this process; the first call starts kaleido's sync server
  (reported separately), the next ``--images`` calls reuse it;
- cold, new kaleido each time: ``plotly.io.to_image(fig, format="png")`` in a child process that never starts
  the sync server, so each image launches and closes its own Chromium;
- cold, fresh process: a new Python process per image that imports the project and calls
  ``charts.export.to_image`` once (what the command-line export costs).
Target: warm <= 1 s per image.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, header, median, verdict  # noqa: E402

CHILD_NO_SERVER = '''
import sys, time, json
sys.path.insert(0, {root!r})
import plotly.io as pio, plotly.graph_objects as go
fig = go.Figure(json.load(open({fig!r})))
times = []
for _ in range({n}):
    t = time.perf_counter(); png = pio.to_image(fig, format="png", width=1200, height=int(fig.layout.height or 600))
    times.append(time.perf_counter() - t)
    assert png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
print(" ".join(f"{{t:.4f}}" for t in times))
'''
CHILD_FRESH = '''
import sys, json
sys.path.insert(0, {root!r})
import plotly.graph_objects as go
from charts import export
png = export.to_image(go.Figure(json.load(open({fig!r}))), "png")
assert png[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
'''


def default_figure():
    from analysis.view import View
    from charts.context import load_context
    from loaders import data as cdata
    from views.compose import render
    snap, events, reported = load_context(cdata.DATA)
    return render(snap, View(), events=events, reported=reported, generated_on=dt.date.today()).figure


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--images", type=int, default=5)
    args = ap.parse_args()
    from charts import export
    if not export.find_browser():
        print("skipped: no Chrome or Chromium for kaleido")
        return 0
    header("Export: PNG, warm kaleido server vs a new browser per image")
    fig = default_figure()
    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        fig_path = Path(tmp) / "fig.json"
        fig_path.write_text(fig.to_json(), "utf-8")
        env = {**os.environ, "BROWSER_PATH": export.find_browser()}

        t0 = time.perf_counter()
        png = export.to_image(fig, "png")
        first = time.perf_counter() - t0
        warm = []
        for _ in range(args.images):
            t0 = time.perf_counter()
            png = export.to_image(fig, "png")
            warm.append(time.perf_counter() - t0)
        print(f"   warm: first call (starts the server) {first:.2f} s; then "
              + " ".join(f"{t:.2f}" for t in warm) + f" s; PNG {len(png) / 1024:.0f} KB")

        out = subprocess.run([sys.executable, "-c", CHILD_NO_SERVER.format(root=str(ROOT), fig=str(fig_path),
                                                                           n=args.images)],
                             capture_output=True, text=True, env=env, timeout=600)
        if out.returncode:
            print(out.stderr[-2000:])
            return 1
        cold_kaleido = [float(x) for x in out.stdout.split()]
        print("   cold, new browser per image (same process): " + " ".join(f"{t:.2f}" for t in cold_kaleido) + " s")

        cold_process = []
        for _ in range(max(2, args.images // 2)):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", CHILD_FRESH.format(root=str(ROOT), fig=str(fig_path))],
                           check=True, capture_output=True, env=env, timeout=600)
            cold_process.append(time.perf_counter() - t0)
        print("   cold, fresh Python process per image: " + " ".join(f"{t:.2f}" for t in cold_process) + " s")
    w, c1, c2 = median(warm), median(cold_kaleido), median(cold_process)
    print()
    print(f"warm median {w:.2f} s; cold (new browser) median {c1:.2f} s = {c1 / w:.1f}x warm; "
          f"cold (fresh process) median {c2:.2f} s = {c2 / w:.1f}x warm")
    print(f"target warm <= 1 s: {w:.2f} s  {verdict(w <= 1)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
