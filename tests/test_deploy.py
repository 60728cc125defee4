"""The container, as far as it can be tested with no container runtime: the Dockerfile says what the image
must be (slim Python, Debian's chromium, pinned requirements, a non-root user, a health check, public mode),
and its entry command, read from the Dockerfile and started here (on loopback), runs the app in public mode,
answers the health endpoint, passes its own HEALTHCHECK and shows a reader no traceback or server path.

The requirements are split: ``requirements.txt`` is the runtime (what ``make run`` and the image install),
``requirements-dev.txt`` adds the test and development tools (what ``make test`` installs); both pinned exactly.

Not tested here (no Docker engine on this machine): that the image builds, that the runtime requirements
install on python:3.11-slim, that chromium from Debian's archive exports inside it.
"""
from __future__ import annotations

import ast
import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import stop_process

# Slow tier: most tests here start a real server (Streamlit or the container's entry command) and talk to it.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
DOCKERFILE = ROOT / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    out, buf = [], ""
    for line in DOCKERFILE.read_text("utf-8").splitlines():
        if not buf and (not line.strip() or line.lstrip().startswith("#")):
            continue
        buf += line.rstrip()[:-1] + " " if line.rstrip().endswith("\\") else line
        if not line.rstrip().endswith("\\"):
            word, _, rest = buf.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
            buf = ""
    return out


def one(name: str) -> str:
    found = [a for i, a in instructions() if i == name]
    assert len(found) == 1, f"{name}: {found}"
    return found[0]


def env() -> dict[str, str]:
    values = {}
    for i, a in instructions():
        if i == "ENV":
            for m in re.finditer(r"(\w+)=(\S+)", a):
                values[m.group(1)] = m.group(2)
    return values


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_image_is_slim_python_with_chromium_pinned_requirements_and_a_non_root_user():
    assert one("FROM") == "python:3.11-slim"
    runs = " ".join(a for i, a in instructions() if i == "RUN")
    assert "apt-get install -y --no-install-recommends chromium" in runs
    assert "pip install --no-cache-dir -r requirements.txt" in runs
    user = one("USER")
    assert user not in ("root", "0") and f"useradd --system --uid 10001 --create-home --home-dir /home/app {user}" in runs
    assert env()["DASHBOARD_PUBLIC"] == "1" and env()["STREAMLIT_CLIENT_SHOW_ERROR_DETAILS"] == "none"
    assert any(i == "COPY" and a == ". ." for i, a in instructions())  # the snapshot in data/ is baked in


TEST_TOOLS = {"pytest", "iniconfig", "pluggy", "hypothesis", "sortedcontainers", "playwright", "greenlet",
              "responses", "ruff", "mypy", "pygments", "pyyaml"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins(name: str) -> dict[str, str]:
    """{normalised package name: version} of a requirements file; every line is a comment, ``-r`` of another
    file, or an exact ``name==version`` pin."""
    out = {}
    for n, line in enumerate((ROOT / name).read_text("utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-r "):
            continue
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([0-9][0-9A-Za-z.+!-]*)", line)
        assert m, f"{name} line {n}: {line!r} is not an exact pin (name==version)"
        assert _norm(m.group(1)) not in out, f"{name} line {n}: {m.group(1)} pinned twice"
        out[_norm(m.group(1))] = m.group(2)
    return out


def _app_imports() -> set[str]:
    """Top-level third-party modules imported by the app: the page, the loaders, the views and the charts."""
    files = [ROOT / "dashboard.py", *ROOT.glob("charts/*.py"), *ROOT.glob("views/*.py"), *ROOT.glob("analysis/*.py"),
             *ROOT.glob("figures/*.py"),
             *ROOT.glob("wording/*.py"), *ROOT.glob("loaders/*.py"),
             *ROOT.glob("page/**/*.py")]
    local = {"charts", "views", "analysis", "figures", "wording", "loaders", "page", "dashboard"}
    names = set()
    for p in files:
        for node in ast.walk(ast.parse(p.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names |= {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                names.add(node.module.split(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in local and n != "__future__"}


def _closure(roots) -> set[str]:
    """The installed distributions ``roots`` need, with their dependencies (from the venv's metadata)."""
    from importlib.metadata import PackageNotFoundError, distribution

    from packaging.requirements import Requirement
    seen, stack = set(), list(roots)
    while stack:
        name = _norm(stack.pop())
        if name in seen:
            continue
        seen.add(name)
        try:
            reqs = distribution(name).requires or []
        except PackageNotFoundError:
            continue
        for r in map(Requirement, reqs):
            if r.marker is None or r.marker.evaluate({"extra": ""}):
                stack.append(r.name)
    return seen


def test_the_image_installs_the_runtime_requirements_directly():
    runs = " ".join(a for i, a in instructions() if i == "RUN")
    assert "grep" not in runs and "requirements-runtime" not in runs and "requirements-dev" not in runs
    assert any(i == "COPY" and a == "requirements.txt ./" for i, a in instructions())


def test_runtime_requirements_hold_no_test_tool_and_dev_requirements_add_them():
    runtime, dev = pins("requirements.txt"), pins("requirements-dev.txt")
    assert not TEST_TOOLS & set(runtime), TEST_TOOLS & set(runtime)
    assert set(dev) >= TEST_TOOLS, TEST_TOOLS - set(dev)
    assert not set(runtime) & set(dev), "pinned in both files (and perhaps to two versions)"
    first = next(ln for ln in (ROOT / "requirements-dev.txt").read_text().splitlines() if ln.strip() and not ln.startswith("#"))
    assert first == "-r requirements.txt"
    assert "-r " not in (ROOT / "requirements.txt").read_text()


def test_every_import_of_the_app_is_satisfied_by_the_runtime_requirements_and_nothing_is_pinned_for_nothing():
    from importlib.metadata import packages_distributions
    runtime = pins("requirements.txt")
    dists = packages_distributions()
    imported = _app_imports()
    assert {"streamlit", "pandas", "plotly", "kaleido", "filelock", "pyarrow", "duckdb"} <= imported
    roots = set()
    for mod in sorted(imported):
        found = {_norm(d) for d in dists.get(mod, [])}
        assert found, f"no installed distribution provides {mod!r}"
        assert found & set(runtime), f"the app imports {mod!r} ({sorted(found)}) but requirements.txt does not pin it"
        roots |= found & set(runtime)
    needed = _closure(roots)
    assert set(runtime) <= needed, f"pinned but neither imported nor a dependency: {sorted(set(runtime) - needed)}"
    assert needed <= set(runtime), f"needed at run time but not pinned: {sorted(needed - set(runtime))}"
    assert "defusedxml" not in runtime and "defusedxml" not in pins("requirements-dev.txt")


def test_make_run_installs_only_the_runtime_and_make_test_both():
    mk = (ROOT / "Makefile").read_text("utf-8")

    def rule(target: str) -> tuple[list[str], list[str]]:
        m = re.search(rf"^{re.escape(target)}:([^\n]*)\n((?:\t[^\n]*\n)*)", mk, re.M)
        assert m, target
        return m.group(1).split(), m.group(2).splitlines()

    def installs(target: str) -> set[str]:
        deps, recipe = rule(target)
        got = {f for line in recipe for f in re.findall(r"pip install .*?-r (\S+)", line)}
        for d in deps:
            if re.search(rf"^{re.escape(d)}:", mk, re.M):
                got |= installs(d)
        return got

    assert installs("run") == {"requirements.txt"}
    assert installs("test") == {"requirements.txt", "requirements-dev.txt"}
    assert "requirements-dev.txt" in rule("$(BIN)/.installed-dev")[0]  # a changed pin reinstalls


def test_make_lint_runs_the_linter_the_type_checker_and_the_import_contract_before_the_tests():
    mk = (ROOT / "Makefile").read_text("utf-8")
    m = re.search(r"^lint:[^\n]*\n((?:\t[^\n]*\n)*)", mk, re.M)
    assert m, "no lint target"
    tools = [line.split()[0] for line in m.group(1).splitlines()]
    assert tools == ["$(BIN)/ruff", "$(BIN)/mypy", "$(BIN)/lint-imports"], tools
    assert re.search(r"^test:.*\blint\b", mk, re.M)
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["mypy"]
    # Every package of the import contract is type-checked (the outputs and the page were left out before).
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]["root_packages"]
    assert set(mypy["packages"]) == set(packages)
    assert not mypy.get("ignore_errors") and not mypy.get("ignore_missing_imports")  # only per module


def test_dockerignore_keeps_raw_files_local_events_and_the_venv_out():
    lines = set((ROOT / ".dockerignore").read_text().split())
    assert {".git", ".venv", "data/raw", "data/user_events.csv", "tests/artifacts"} <= lines


@contextlib.contextmanager
def entry_command(tmp_path: Path, script: str | None = None, extra: list[str] = ()):
    """The Dockerfile's CMD with its ENV, started here: on loopback and a free port instead of 0.0.0.0:8501."""
    cmd = json.loads(one("CMD"))
    assert cmd[:3] == ["streamlit", "run", "dashboard.py"]
    port = free_port()
    args = [a.replace("--server.address=0.0.0.0", "--server.address=127.0.0.1")
             .replace("--server.port=8501", f"--server.port={port}") for a in cmd[3:]]
    assert f"--server.port={port}" in args and "--server.address=127.0.0.1" in args
    e = dict(os.environ, **env())
    e["DASHBOARD_EVENTS_FILE"] = str(tmp_path / "user_events.csv")  # /state exists only in the image
    log = open(tmp_path / "server.log", "wb")  # noqa: SIM115 (a running server's log: open while it runs, closed when it is stopped)
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", script or "dashboard.py", *args, *extra],
                            cwd=ROOT, env=e, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the entry command did not start: {(tmp_path / 'server.log').read_text()[-2000:]}")
            time.sleep(0.3)
        yield url, port, e
    finally:
        stop_process(proc)
        log.close()


def test_the_entry_command_serves_the_health_endpoint_and_passes_its_healthcheck(tmp_path):
    hc = one("HEALTHCHECK")
    probe = json.loads(hc[hc.index("CMD") + 3:].strip())
    with entry_command(tmp_path) as (url, port, e):
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as r:
            assert r.status == 200 and r.read().strip() == b"ok"
        probe = [p.replace("127.0.0.1:8501", f"127.0.0.1:{port}") for p in probe]
        assert probe[0] == "python"
        done = subprocess.run([sys.executable, *probe[1:]], env=e, timeout=20)
        assert done.returncode == 0
    # and the same probe fails once the server is gone: the check can fail
    assert subprocess.run([sys.executable, *probe[1:]], env=e, timeout=20, capture_output=True).returncode != 0


FAILING = '''\
import streamlit as st

st.write("before the failure")
raise RuntimeError("could not open " + __file__)
'''


def page_text(url: str) -> str:
    from playwright.sync_api import sync_playwright

    from tests.test_e2e import CHROMIUM, LAUNCH_ARGS
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            pg = b.new_page()
            pg.goto(url)
            pg.wait_for_selector("[data-testid='stApp'][data-test-script-state='notRunning']", timeout=60_000)
            pg.wait_for_selector("[data-testid='stException'], [data-testid='stAlert'], .stException", timeout=30_000)
            return pg.inner_text("body")
        finally:
            b.close()


@pytest.mark.browser
def test_in_public_mode_an_error_shows_no_traceback_or_server_path(tmp_path):
    pytest.importorskip("playwright.sync_api")
    script = tmp_path / "secret_folder" / "failing_page.py"
    script.parent.mkdir()
    script.write_text(FAILING)
    with entry_command(tmp_path, str(script)) as (url, _port, _e):
        text = page_text(url)
    assert "before the failure" in text
    assert "secret_folder" not in text and "Traceback" not in text and "RuntimeError" not in text, text
    # The control: the same page with error details on shows the path, so the check above can fail.
    with entry_command(tmp_path, str(script), ["--client.showErrorDetails=full"]) as (url, _port, _e):
        assert "secret_folder" in page_text(url)


def test_an_unexpected_error_reading_an_upload_shows_no_internals(monkeypatch, tmp_path):
    """The page's own message for an upload it could not check: a bug's text (which may hold server paths) is
    not shown; the validator's own errors (which name only the uploaded file) still are."""
    from streamlit.testing.v1 import AppTest

    from loaders import events as lev
    monkeypatch.setenv("DASHBOARD_PUBLIC", "1")
    monkeypatch.setenv("DASHBOARD_EVENTS_FILE", str(tmp_path / "user_events.csv"))

    def broken(*a, **k):
        raise RuntimeError("cannot open /srv/app/internal/cache.db")
    monkeypatch.setattr(lev, "check_upload", broken)
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=90)
    at.run()
    at.file_uploader(key="w_upload").set_value(("mine.csv", b"date,title\n", "text/csv"))
    at.run()
    assert not at.exception, at.exception
    shown = " ".join(e.value for e in at.error).replace("\\", "")  # Markdown escapes dropped
    assert "Could not read mine.csv" in shown and "/srv/app" not in shown and "cache.db" not in shown, shown
