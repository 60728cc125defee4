"""Shared helpers for the hand-run benchmarks in bench/ (not collected by pytest).

Timing is best-of-N wall clock (``time.perf_counter``) unless a script says otherwise; every script prints its
ratios side by side from one run, so the machine's speed cancels out.
"""
from __future__ import annotations

import contextlib
import os
import platform
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "data"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
PACKAGES = ("streamlit", "pandas", "numpy", "pyarrow", "duckdb", "plotly", "kaleido", "choreographer",
            "python-calamine", "openpyxl", "playwright")


def browser_missing() -> str | None:
    """Why a browser benchmark cannot run here, or None when Playwright and Chromium are both there."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as e:
        return f"skipped: playwright is not importable ({e})"
    if not Path(CHROMIUM).exists():
        return f"skipped: no Chromium at {CHROMIUM}"
    return None


def machine() -> str:
    cpu = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                if ln.startswith("model name")), platform.processor())
    mem = next((int(ln.split()[1]) for ln in Path("/proc/meminfo").read_text().splitlines()
                if ln.startswith("MemTotal")), 0)
    vers = []
    for p in PACKAGES:
        try:
            vers.append(f"{p} {version(p)}")
        except PackageNotFoundError:
            vers.append(f"{p} (absent)")
    return (f"{os.cpu_count()} CPUs ({cpu}), {mem / 2**20:.1f} GiB RAM, Python {platform.python_version()}, "
            + ", ".join(vers))


def header(title: str) -> None:
    print(f"== {title}  ({time.strftime('%Y-%m-%d %H:%M')})")
    print(f"   {machine()}")
    print(f"   load average before the run: {' '.join(Path('/proc/loadavg').read_text().split()[:3])} "
          "(other work on the machine inflates every time below)")


def best_of(fn, n: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), times


def median(xs) -> float:
    return statistics.median(xs)


def verdict(ok: bool) -> str:
    return "MET" if ok else "MISSED"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- Streamlit servers

class Server:
    """``streamlit run`` in its own process group, started from the project root (so .streamlit/config.toml
    applies to every page alike) and stopped by its process id."""

    def __init__(self, script: Path, env: dict | None = None, extra_args: list[str] | None = None):
        self.script = Path(script)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        streamlit = Path(sys.executable).with_name("streamlit")
        cmd = [str(streamlit), "run", str(self.script), "--server.address", "127.0.0.1",
               "--server.port", str(self.port), "--server.headless", "true", *(extra_args or [])]
        self.log = tempfile.NamedTemporaryFile("w+", prefix="streamlit-", suffix=".log", delete=False)  # noqa: SIM115 (a running server's log: open while it runs, closed when it is stopped)
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
                                     env={**os.environ, **(env or {})}, start_new_session=True)

    def wait_healthy(self, timeout: float = 60) -> float:
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited: {Path(self.log.name).read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "_stcore/health", timeout=1) as r:
                    if r.read().strip() == b"ok":
                        return time.perf_counter() - t0
            except OSError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"streamlit on port {self.port} not healthy after {timeout} s")

    def vm_hwm_kib(self) -> int:
        return _status_kib(self.proc.pid, "VmHWM")

    def vm_rss_kib(self) -> int:
        return _status_kib(self.proc.pid, "VmRSS")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # this process only, by its id
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()
        with contextlib.suppress(OSError):
            os.unlink(self.log.name)


def _status_kib(pid: int, field: str) -> int:
    for ln in Path(f"/proc/{pid}/status").read_text().splitlines():
        if ln.startswith(field + ":"):
            return int(ln.split()[1])
    raise KeyError(field)


# ---------------------------------------------------------------- the data the page reads

CURATED = ("events.csv", "reported_figures.csv", "user_events.csv")


def full_snapshot(out: Path) -> tuple[Path, str]:
    """Every registered source rebuilt from ../shared/data into ``out`` (plus the curated files the page reads),
    so the page is measured with everything loaded. Falls back to the bundled data/ when that fails."""
    from loaders import pipeline, registry
    try:
        counts = pipeline.rebuild(SHARED, out)
    except Exception as e:  # measuring the bundled snapshot is still useful; say so
        return ROOT / "data", f"bundled data/ (rebuild from {SHARED} failed: {e})"
    for name in CURATED:
        if (ROOT / "data" / name).exists():
            shutil.copy(ROOT / "data" / name, out / name)
    rows = sum(counts.values())
    return out, (f"all {len(counts)} of {len(registry.SOURCES)} registered sources with raw files, rebuilt from "
                 f"../shared/data: {rows:,} rows ({', '.join(f'{k} {v:,}' for k, v in counts.items())})")


WRAPPER = '''\
# Generated by bench/: runs {target} exactly as Streamlit would, and logs to {log} how long each run takes on
# the server, as "<time> <seconds> <what> <kind>" lines; kind is "full" or "fragment" (a fragment-only rerun).
#   what = "script": executing the script's code (or only the fragment's), with everything it sends; timed
#          around Streamlit's own exec_func_with_error_handling (this file's own timing for the process's
#          first run, which is already under way when the timers are installed);
#   what = "run":    the whole of Streamlit's ScriptRunner._run_script: the script plus Streamlit's per-run
#          bookkeeping before and after it, and any rerun the run itself requested.
import sys, time
_t0 = time.perf_counter()
sys.path.insert(0, {root!r})


def _bench_log(seconds, what, kind):
    with open({log!r}, "a") as f:
        f.write(f"{{time.time():.6f}} {{seconds:.6f}} {{what}} {{kind}}\\n")


from streamlit.runtime.scriptrunner import script_runner as _sr
_first = not getattr(_sr.ScriptRunner._run_script, "_bench", False)
if _first:
    _orig_run, _orig_exec = _sr.ScriptRunner._run_script, _sr.exec_func_with_error_handling

    def _timed_run(self, rerun_data):
        t = time.perf_counter()
        try:
            return _orig_run(self, rerun_data)
        finally:
            _bench_log(time.perf_counter() - t, "run", "fragment" if rerun_data.fragment_id_queue else "full")

    def _timed_exec(func, ctx):
        t = time.perf_counter()
        try:
            return _orig_exec(func, ctx)
        finally:
            _bench_log(time.perf_counter() - t, "script", "fragment" if ctx.fragment_ids_this_run else "full")
    _timed_run._bench = True
    _sr.ScriptRunner._run_script = _timed_run
    _sr.exec_func_with_error_handling = _timed_exec
try:
    {patch}
    _code = sys.modules.setdefault("_bench_code_cache", type(sys)("_bench_code_cache")).__dict__
    if "code" not in _code:  # compiled as Streamlit compiles a script: with "magic" when it is enabled
        from streamlit import config as _config
        from streamlit.runtime.scriptrunner import magic as _magic
        with open({target!r}, encoding="utf-8") as _f:
            _body = _f.read()
        if _config.get_option("runner.magicEnabled"):
            _body = _magic.add_magic(_body, {target!r})
        _code["code"] = compile(_body, {target!r}, "exec", flags=0, dont_inherit=1)
    exec(_code["code"], {{"__name__": "__main__", "__file__": {target!r}}})
finally:
    if _first:
        _bench_log(time.perf_counter() - _t0, "script", "full")
'''


def write_wrapper(path: Path, target: Path, log: Path, data_dir: Path | None = None) -> Path:
    """A script that runs ``target`` and logs the server-side duration of each script run (see WRAPPER).
    ``data_dir``: the data folder the page reads instead of data/.

    The code is compiled once the way Streamlit compiles a script (with "magic") and cached across reruns, as
    Streamlit caches its own; the timing adds two ``perf_counter`` calls and one small file append per run.
    """
    patch = (f"import loaders.data as _cd; from pathlib import Path as _P; _cd.DATA = _P({str(data_dir)!r})"
             if data_dir else "pass")
    path.write_text(WRAPPER.format(target=str(target), log=str(log), root=str(ROOT), patch=patch), "utf-8")
    return path


@dataclass(frozen=True)
class PageSpec:
    """One page to serve: ``target`` run under the timing wrapper (``write_wrapper``), reading ``data`` (None: the
    committed data/), with Streamlit's ``extra_args``."""
    name: str
    target: Path
    data: Path | None = None
    extra_args: tuple[str, ...] = ()


@dataclass
class Started:
    """A page's server, up and healthy, and the log of its runs (``read_runs``)."""
    name: str
    server: Server
    log: Path


@contextlib.contextmanager
def start_pages(tmp: Path, specs, *, timeout: float = 60, quiet: bool = False) -> Iterator[list[Started]]:
    """Start one Streamlit server per ``PageSpec`` (all at once, so their start-ups overlap), wait until each is
    healthy (printing how long it took), yield them in order, and stop every one by its process id at the end,
    also when the measurement fails. The one set-up shared by the page benchmarks (page, gc, memory, load)."""
    started: list[Started] = []
    try:
        for spec in specs:
            log = Path(tmp) / f"{spec.name}.runs"
            script = write_wrapper(Path(tmp) / f"run_{spec.name}.py", spec.target, log, spec.data)
            started.append(Started(spec.name, Server(script, extra_args=list(spec.extra_args)), log))
        for st in started:
            took = st.server.wait_healthy(timeout)
            if not quiet:
                print(f"   {st.name}: server healthy after {took:.2f} s (port {st.server.port})")
        yield started
    finally:
        for st in started:
            st.server.stop()


def read_runs(log: Path, what: str = "script") -> list[tuple[float, float, str]]:
    """(wall time, seconds, kind) of each logged run of one sort ("script" or "run", see WRAPPER)."""
    if not log.exists():
        return []
    out = []
    for ln in log.read_text().splitlines():
        if ln.strip():
            t, secs, w, kind = ln.split()
            if w == what:
                out.append((float(t), float(secs), kind))
    return out


def snapshot_summary(data_dir: Path) -> str:
    from loaders.snapshot import read_manifest
    man = read_manifest(Path(data_dir))["sources"]
    rows = sum(e.get("rows", 0) for e in man.values())
    return f"{data_dir}: {len(man)} sources, {rows:,} observation rows"


def prepare_pages(tmp: Path, rebuild: bool, trivial_source: str) -> tuple[Path, str]:
    """The data folder the project page reads (the committed snapshot, or a fresh rebuild in ``tmp``), and the
    trivial one-chart page written beside it. Prints which data is used."""
    data_dir, desc = ROOT / "data", snapshot_summary(ROOT / "data")
    if rebuild:
        (tmp / "data").mkdir()
        data_dir, desc = full_snapshot(tmp / "data")
    print(f"   project page data: {desc}")
    (tmp / "trivial.py").write_text(trivial_source, "utf-8")
    return data_dir, desc
