"""Capacity: the server's own CPU seconds and memory per reader, for a first view, a range change and a PNG export.

    .venv/bin/python bench/bench_capacity.py [--sessions 4] [--png-share 0.1]

What is measured, and how the client is kept apart:

- One ``streamlit run dashboard.py`` (the bundled snapshot, public mode) pinned to CPU 0
  (``os.sched_setaffinity`` before exec, inherited by kaleido's Chromium that draws the PNGs). The driving side,
  this script, Playwright's driver and the headless Chromium that plays the readers, is pinned to CPU 1. The
  browsers' rendering therefore never runs on the measured core, and it is not in the figures anyway: they are
  read from the kernel's CPU accounting of the server's own processes, not from wall clocks.
- Server CPU: utime + stime from ``/proc/<pid>/stat`` of the server and of every live descendant (kaleido's
  Chromium and its helpers), plus the server's ``cutime + cstime`` (children already reaped), in clock ticks
  (1/100 s). Each action is bracketed by two readings; the second is taken 1 s after the page shows the result
  (the script idle and the chart drawn, or the download saved), and the server's idle rate (measured over 5 s
  with no reader active) times the bracket's length is subtracted.
- Memory: VmRSS from ``/proc/<pid>/status`` of the server alone and summed over its tree, with the warm-up
  reader's session open, and again with every measured reader's session still open: the difference divided by
  the number of those readers is memory per open session.
- Sessions run one after another (never overlapping), so each figure is one reader's cost. The first reader is
  a warm-up (it fills the caches and starts kaleido's Chromium): reported, not in the per-reader figures.

The actions: a first view (open the page until the chart has drawn); a range change ("Date range" to another
preset, until the chart has changed); a PNG export (open "Export this chart", click PNG, until the file is
downloaded). Readers per core per minute = 60 / (server CPU seconds of one reader's mix), for the mix given by
``--png-share`` (default: every reader opens the page and changes the range once; one in ten exports a PNG).
Other work on the machine still slows the server (shared caches, the core's time slices); the load average is
printed before and after.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_page import CHANGED, PROJECT_CHOICES, READY, SIGNATURE  # noqa: E402
from common import CHROMIUM, CHROMIUM_ARGS, ROOT, browser_missing, free_port, header  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
SERVER_CPU, CLIENT_CPU = 0, 1
SETTLE = 1.0
EXPORTS = "Export this chart"
RAF2 = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def _stat(pid: int) -> list[str]:
    raw = Path(f"/proc/{pid}/stat").read_text()
    return raw[raw.rindex(")") + 2:].split()  # the fields after "(comm)": state is [0], ppid [1]


def tree(pid: int) -> list[int]:
    """The process and every live descendant (from each process's parent id in /proc)."""
    parents: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            with contextlib.suppress(OSError, ValueError, IndexError):
                parents.setdefault(int(_stat(int(d.name))[1]), []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(parents.get(p, []))
    return out


def cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid``, its live descendants and its reaped children."""
    total = 0
    for i, p in enumerate(tree(pid)):
        try:
            f = _stat(p)
        except OSError:
            continue
        total += int(f[11]) + int(f[12])  # utime, stime
        if i == 0:
            total += int(f[13]) + int(f[14])  # cutime, cstime: children it has waited for
    return total / TICK


def rss_mib(pid: int, whole_tree: bool = False) -> float:
    kib = 0
    for p in (tree(pid) if whole_tree else [pid]):
        with contextlib.suppress(OSError, StopIteration):
            kib += next(int(ln.split()[1]) for ln in Path(f"/proc/{p}/status").read_text().splitlines()
                        if ln.startswith("VmRSS:"))
    return kib / 1024


class Meter:
    def __init__(self, pid: int, idle_rate: float = 0.0):
        self.pid, self.idle_rate = pid, idle_rate

    def __enter__(self):
        self.t0, self.c0 = time.monotonic(), cpu_seconds(self.pid)
        return self

    def __exit__(self, *exc):
        if exc[0] is None:
            time.sleep(SETTLE)
        self.wall = time.monotonic() - self.t0
        self.raw = cpu_seconds(self.pid) - self.c0
        self.cpu = max(0.0, self.raw - self.idle_rate * self.wall)
        return False


def first_view(browser, url: str):
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    ctx.set_default_timeout(120_000)
    tab = ctx.new_page()
    tab.goto(url)
    tab.wait_for_function(READY, polling=100, timeout=180_000)
    return ctx, tab


def range_change(tab, option: str) -> None:
    box = tab.locator(f".st-key-{PROJECT_CHOICES[0]} input[role='combobox']")
    box.scroll_into_view_if_needed()
    tab.evaluate(RAF2)
    box.click()
    opt = tab.get_by_role("option", name=option, exact=True)
    opt.wait_for(state="visible")
    before = tab.evaluate(SIGNATURE)
    opt.click()
    tab.wait_for_function(CHANGED, arg=before, polling=100, timeout=120_000)


def png_export(tab, out: Path) -> int:
    exp = tab.locator("[data-testid='stExpander']").filter(has_text=EXPORTS).first
    exp.locator("summary").click()
    button = tab.locator(".st-key-dl_png button")
    button.wait_for(state="visible", timeout=120_000)
    with tab.expect_download(timeout=180_000) as dl:
        button.click()
    dl.value.save_as(out)
    return out.stat().st_size


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sessions", type=int, default=4, help="readers, one after another; the first is a warm-up")
    ap.add_argument("--png-share", type=float, default=0.1, help="share of readers who export a PNG in the mix")
    args = ap.parse_args()
    why = browser_missing()
    if why:
        print(why)
        return 0
    if os.cpu_count() < 2:
        print("skipped: needs two CPUs (the server on one, the browsers on the other)")
        return 0
    from playwright.sync_api import sync_playwright
    header("Capacity: the server's own CPU seconds and memory per reader")
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    port = free_port()
    log = tempfile.NamedTemporaryFile("w+", prefix="streamlit-capacity-", suffix=".log", delete=False)  # noqa: SIM115 (a running server's log: open while it runs, closed when it is stopped)
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "dashboard.py", "--server.address", "127.0.0.1", "--server.port",
         str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "DASHBOARD_PUBLIC": "1"},
        preexec_fn=lambda: os.sched_setaffinity(0, {SERVER_CPU}), start_new_session=True)
    os.sched_setaffinity(0, {CLIENT_CPU})  # this script, and (inherited) Playwright's driver and Chromium
    url = f"http://127.0.0.1:{port}/"
    rows, options = [], PROJECT_CHOICES[1]
    try:
        import urllib.request
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(url + "_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"streamlit did not start: {Path(log.name).read_text()[-2000:]}")
            time.sleep(0.2)
        time.sleep(2)
        c0, t0 = cpu_seconds(server.pid), time.monotonic()
        time.sleep(5)
        idle = (cpu_seconds(server.pid) - c0) / (time.monotonic() - t0)
        print(f"   server pid {server.pid} on CPU {sorted(os.sched_getaffinity(server.pid))}, browsers on CPU "
              f"{sorted(os.sched_getaffinity(0))}; idle CPU {idle * 1000:.1f} ms/s; RSS after start "
              f"{rss_mib(server.pid):.0f} MiB", flush=True)
        with tempfile.TemporaryDirectory(prefix="bench-capacity-") as tmp, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            contexts = []
            rss_base = tree_base = 0.0
            for i in range(args.sessions):
                with Meter(server.pid, idle) as m1:
                    ctx, tab = first_view(browser, url)
                contexts.append(ctx)
                with Meter(server.pid, idle) as m2:
                    range_change(tab, options[1 + i % 3])
                with Meter(server.pid, idle) as m3:
                    size = png_export(tab, Path(tmp) / f"s{i}.png")
                row = (i, m1, m2, m3, size, rss_mib(server.pid), rss_mib(server.pid, True))
                rows.append(row)
                print(f"   reader {i}{' (warm-up)' if i == 0 else ''}: server CPU first view {m1.cpu:.2f} s "
                      f"(wall {m1.wall - SETTLE:.1f} s), range change {m2.cpu:.2f} s (wall {m2.wall - SETTLE:.1f} s), "
                      f"PNG export {m3.cpu:.2f} s (wall {m3.wall - SETTLE:.1f} s, {size:,} bytes); server RSS "
                      f"{row[5]:.0f} MiB, with its children {row[6]:.0f} MiB", flush=True)
                if i == 0:
                    rss_base, tree_base = row[5], row[6]
            time.sleep(3)
            rss_end, tree_end = rss_mib(server.pid), rss_mib(server.pid, True)
            for ctx in contexts:
                ctx.close()
            browser.close()
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)  # this process only, by its id
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(5)
        log.close()
        os.unlink(log.name)
    measured = rows[1:]
    if not measured:
        print("   only the warm-up reader ran: no per-reader figures (use --sessions 2 or more)")
        return 0
    med = {k: statistics.median(r[j].cpu for r in measured) for k, j in
           (("first", 1), ("range", 2), ("png", 3))}
    mix = med["first"] + med["range"] + args.png_share * med["png"]
    per_session = (rss_end - rss_base) / len(measured)
    per_session_tree = (tree_end - tree_base) / len(measured)
    print(f"   load average after the run: {loadavg()}")
    print()
    print(f"| action | server CPU s, median of {len(measured)} readers (min-max) |")
    print("|---|---|")
    for k, j, name in (("first", 1, "first view"), ("range", 2, "range change"), ("png", 3, "PNG export (warm)")):
        xs = [r[j].cpu for r in measured]
        print(f"| {name} | {med[k]:.2f} ({min(xs):.2f}-{max(xs):.2f}) |")
    print(f"| warm-up reader (caches, kaleido start) | first view {rows[0][1].cpu:.2f}, range {rows[0][2].cpu:.2f}, "
          f"PNG {rows[0][3].cpu:.2f} |")
    print()
    print(f"Memory per open session: {per_session:+.1f} MiB (server), {per_session_tree:+.1f} MiB (server and "
          f"children); server RSS {rss_base:.0f} -> {rss_end:.0f} MiB with {len(measured)} more sessions open.")
    print(f"Mix per reader: 1 first view + 1 range change + {args.png_share:g} PNG export = {mix:.2f} server CPU s; "
          f"readers per core per minute: {60 / mix:.0f}" if mix > 0 else "Mix: no CPU measured")
    return 0


if __name__ == "__main__":
    sys.exit(main())
