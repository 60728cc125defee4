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
    """Record the origin of every file under ``raw`` that has none, as ``update`` would have.

    A snapshot is only built from files whose origin is recorded (``loaders.origins``); test files stand in for
    downloads, so they get the record a download would leave beside them: the source's URL for that name (or one
    on the source's declared host), a fixed time, and the checksum of the bytes as they are now (a file changed
    afterwards no longer matches its record). A source that declares no download host takes no such record
    (``loaders.origins`` refuses it): its test files get a row in the session's origins table instead
    (``test_origins_table``), as a real file of such a source has a row in ``loaders/origins.csv``."""
    import hashlib

    from loaders import registry
    from loaders.fetch import sidecar_path
    urls = {u.rsplit("/", 1)[-1]: u for s in registry.SOURCES.values() for u in s.download_urls}

    def source_of(p: Path):
        rel = Path(p.parent.name, p.name)  # the raw globs are "<folder>/<pattern>"
        return next((s for s in registry.SOURCES.values() if any(rel.match(g) for g in s.raw_globs)), None)

    for p in sorted(Path(raw).rglob("*")):
        if not p.is_file() or p.name.endswith(".meta.json") or sidecar_path(p).exists():
            continue
        body = p.read_bytes()
        src = source_of(p)
        if src is not None and not src.allowed_hosts:
            add_test_origin(src.id, p.name, body)
            continue
        host = src.allowed_hosts[0] if src is not None else "example.org"
        sidecar_path(p).write_text(json.dumps({
            "url": urls.get(p.name, f"https://{host}/test-files/{p.name}"), "retrieved": "2026-01-01T00:00:00+00:00",
            "sha256": hashlib.sha256(body).hexdigest(), "bytes": len(body), "etag": "", "last_modified": ""}))
    return raw


def add_test_origin(source_id: str, name: str, body: bytes) -> None:
    """A row for one test file in the session's origins table, ahead of the real rows (the first row whose
    source and name match decides, and a real file's row would find the test file's bytes differ)."""
    import csv
    import hashlib
    import io

    from loaders import origins
    path = Path(origins.PATH)
    if path == origins_default():
        raise RuntimeError("the session's origins table is not in place (test_origins_table)")
    rows = list(csv.DictReader(io.StringIO(path.read_text("utf-8"))))
    digest = hashlib.sha256(body).hexdigest()
    rows = [r for r in rows if not (r["source_id"] == source_id and r["file"] == name and r["note"] == "test file")]
    rows.insert(0, {**dict.fromkeys(origins.COLUMNS, ""), "source_id": source_id, "file": name, "producer": "tests",
                    "title": name, "official_url": f"https://example.org/test-files/{name}", "read_as": "mirror",
                    "read_url": f"https://example.org/test-files/{name}", "licence": "test", "sha256": digest,
                    "bytes": str(len(body)), "note": "test file"})
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=origins.COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    path.write_text(out.getvalue(), "utf-8")
    origins._table.cache_clear()


def origins_default() -> Path:
    return ROOT / "loaders" / "origins.csv"


@pytest.fixture(autouse=True, scope="session")
def test_origins_table(tmp_path_factory):
    """The origins table the tests add their files' rows to: a copy of ``loaders/origins.csv`` (never edited)."""
    from loaders import origins
    copy = tmp_path_factory.mktemp("origins") / "origins.csv"
    copy.write_bytes(origins_default().read_bytes())
    mp = pytest.MonkeyPatch()
    mp.setattr(origins, "PATH", copy)
    yield copy
    mp.undo()


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
    mark_shared_path(items)


def mark_shared_path(items) -> None:
    """Mark ``shared_path`` the tests whose code reaches SHARED_DATA's value (tests/shared_deps.py): only they
    can come out differently in CI's second run, which has no real files (.ci/run)."""
    import inspect

    from tests.shared_deps import Finder
    finder = Finder(ROOT / "tests")
    for item in items:
        fn = getattr(item, "function", None)
        if fn is None:
            continue
        info = getattr(item, "_fixtureinfo", None)
        fixtures = []
        for defs in (info.name2fixturedefs.values() if info is not None else ()):
            for fd in defs:
                try:
                    fixtures.append((inspect.getsourcefile(fd.func) or "", fd.func.__name__))
                except TypeError:  # a fixture written in C or built at run time: not under tests/
                    continue
        name = item.cls.__name__ if getattr(item, "cls", None) is not None else fn.__name__
        if finder.depends(item.path, name, fixtures):
            item.add_marker(pytest.mark.shared_path)
