"""Shared fixtures. Tests never touch the network; real files come from ../shared/data when it is there."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The real source files: ../shared/data beside the checkout, or where SHARED_DATA says (CI's second run sets it
# to a missing folder to try the suite as a clone with nothing beside it).
SHARED = Path(os.environ.get("SHARED_DATA") or ROOT.parent / "shared" / "data")

# The suite must not modify tracked files: a run that does fails, naming them (tests/tracked_guard.py).
from tests.tracked_guard import pytest_sessionfinish, pytest_sessionstart  # noqa: E402,F401

pytest_plugins = ["tests.progress"]


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"real source files not found at {SHARED} (they are in CI; see docs/sources.md, \"Getting the raw files\")")
    return SHARED


@pytest.fixture
def trac_population_json() -> bytes:
    """A small pop_agen_table.json with the real layout (newest first, MM/DD/YYYY, int fields)."""
    from tests.fault_samples import trac_detention_sample
    return trac_detention_sample()[1]


@pytest.fixture
def trac_book_ins_json() -> bytes:
    """book_in_agen_program_table.json layout: DDMONYY months, a partial month, null future months."""
    recs = [
        {"download_date": "07/11/2026", "period": "jun", "period_date": "01JUN26", "ice": 39563, "cbp": 3575,
         "total": 43138, "monstr": "Jun-26", "f_latest_period": 1},
        {"download_date": "07/11/2026", "period": "jul", "period_date": "01JUL26", "ice": 16213, "cbp": 1312,
         "total": 17525, "monstr": "Jul-26", "f_latest_period": 0},
        {"download_date": "07/11/2026", "period": "aug", "period_date": "01AUG26", "ice": None, "cbp": None,
         "total": 0, "monstr": "Aug-26", "f_latest_period": 0},
    ]
    return json.dumps(recs).encode()


@pytest.fixture
def raw_dir(tmp_path, trac_population_json, trac_book_ins_json) -> Path:
    """A raw folder in the project's own cache layout."""
    d = tmp_path / "raw" / "trac_detention"
    d.mkdir(parents=True)
    (d / "pop_agen_table.json").write_bytes(trac_population_json)
    (d / "book_in_agen_program_table.json").write_bytes(trac_book_ins_json)
    return record_downloads(tmp_path / "raw")


def record_downloads(raw: Path) -> Path:
    """Write a download sidecar (as ``fetch`` does) beside every file under ``raw`` that lacks one.

    A snapshot is only built from files whose origin is recorded (``loaders.origins``); test files stand in for
    downloads, so they get the record a download would leave: the source's URL for that name, a fixed time, and
    the checksum of the bytes as they are now (a file changed afterwards no longer matches its record)."""
    import hashlib

    from loaders import registry
    from loaders.fetch import sidecar_path
    urls = {u.rsplit("/", 1)[-1]: u for s in registry.SOURCES.values() for u in s.download_urls}

    def host_of(p: Path) -> str:
        # a name no source downloads: a URL on the declared host of the source whose folder holds it, since a
        # download record is only taken from a host the source declares (loaders.origins)
        rel = Path(p.parent.name, p.name)  # the raw globs are "<folder>/<pattern>"
        for s in registry.SOURCES.values():
            if s.allowed_hosts and any(rel.match(g) for g in s.raw_globs):
                return s.allowed_hosts[0]
        return "example.org"

    for p in sorted(Path(raw).rglob("*")):
        if not p.is_file() or p.name.endswith(".meta.json") or sidecar_path(p).exists():
            continue
        body = p.read_bytes()
        sidecar_path(p).write_text(json.dumps({
            "url": urls.get(p.name, f"https://{host_of(p)}/test-files/{p.name}"), "retrieved": "2026-01-01T00:00:00+00:00",
            "sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body), "etag": "", "last_modified": ""}))
    return raw


def stop_process(proc) -> None:
    """Stop a server the tests started, by its own process only: terminate, then kill if it will not go."""
    import subprocess
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


# The trends tab's sections built only while open (page.state.lazy_expander): tests that
# read what is inside them open them as a reader would, through the expanders' own state.
TREND_PANELS = ("x_breakdowns", "x_options", "x_events_legend", "x_data", "x_exports")


def open_trend_panels(at, panels=TREND_PANELS):
    """Open the trends tab's lazy sections of an AppTest (before or between runs); return it."""
    for k in panels:
        at.session_state[k] = True
    return at


# The two tiers (pytest.ini): `make test-fast` runs `-m "not slow"` between edits; `make test` and CI run all.
# Slow by nature, so marked here rather than test by test: whatever drives a browser, and whatever reads the
# real files in ../shared/data (through the ``shared_data`` fixture or the ``shared`` marker). Other slow tests
# (real processes killed, servers started, whole sites built) carry ``@pytest.mark.slow`` themselves.
def pytest_collection_modifyitems(config, items):
    for item in items:
        # fixturenames is the whole closure: a module fixture built on shared_data marks its tests too
        if item.get_closest_marker("browser") or item.get_closest_marker("shared") or "shared_data" in item.fixturenames:
            item.add_marker(pytest.mark.slow)
