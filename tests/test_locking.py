"""Two writers at once, as real processes: the second stops with a clear message and the store stays whole.

The first process runs the real CLI with one change: it pauses for a few seconds inside the lock, just before
writing, so the second one is certain to arrive while it holds the lock (it drops a marker file when it
does). The second process is an unmodified ``python -m loaders rebuild`` or ``update``.
"""
import json
import os
import shutil
import subprocess
import sys
import time

import pytest

from loaders import pipeline
from tests.conftest import ROOT
from tests.fault_samples import leftovers, snapshot_bytes

# Slow tier: each test starts real processes that hold, fight over or die holding the snapshot's lock.
pytestmark = pytest.mark.slow

HOLDER = """
import sys, time
from pathlib import Path
from loaders import pipeline
write = pipeline.write_snapshot
def slow_write(*a, **k):
    Path(sys.argv[1]).touch()  # "I hold the lock and am about to write"
    # Hold until the test says the second writer is done (or the limit): a fixed pause was too short on a
    # loaded machine, where the second process took longer than that just to start.
    release = Path(sys.argv[1] + ".release")
    deadline = time.monotonic() + float(sys.argv[2])
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return write(*a, **k)
pipeline.write_snapshot = slow_write
from loaders.__main__ import main
raise SystemExit(main(sys.argv[3:]))
"""


def start_holder(tmp_path, args, hold=60.0):
    marker = tmp_path / "holding"
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(marker), str(hold), *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the first writer never reached the write"
        time.sleep(0.02)
    return proc


def cli(*args):
    return subprocess.run([sys.executable, "-m", "loaders", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


@pytest.fixture
def store(tmp_path, raw_dir):
    """A snapshot built from the small TRAC files, and a reference copy of what a clean rebuild writes."""
    data = tmp_path / "data"
    pipeline.rebuild(raw_dir, data, allow_missing=True)
    ref = tmp_path / "reference"
    pipeline.rebuild(raw_dir, ref, allow_missing=True)
    return data, ref


@pytest.mark.parametrize("second", ["rebuild", "update"])
def test_second_writer_is_refused_and_store_intact(second, store, raw_dir, tmp_path):
    data, ref = store
    first = start_holder(tmp_path, ["rebuild", "--raw", str(raw_dir), "--out", str(data), "--allow-missing"])
    try:
        if second == "rebuild":
            r = cli("rebuild", "--raw", str(raw_dir), "--out", str(data), "--allow-missing")
        else:
            # Never reaches the network: the lock is taken before anything is discovered or downloaded.
            r = cli("update", "trac_detention", "--data", str(data), "--raw", str(tmp_path / "cache"))
        assert first.poll() is None, "the first writer finished too early for the test to mean anything"
    finally:
        (tmp_path / "holding.release").touch()
        out, err = first.communicate(timeout=60)
    assert r.returncode == 1
    assert "already writing" in r.stderr and str(data) in r.stderr, r.stderr
    assert "snapshot was left unchanged" in r.stderr
    assert first.returncode == 0, err
    assert snapshot_bytes(data) == snapshot_bytes(ref)
    json.loads((data / "snapshot" / "manifest.json").read_text())  # whole, not interleaved
    assert leftovers(tmp_path) == []


def test_lock_is_released_when_the_writer_is_killed(store, raw_dir, tmp_path):
    """A writer killed mid-run (kill -9) leaves the previous snapshot, and the next run is not locked out."""
    data, ref = store
    before = snapshot_bytes(data)
    first = start_holder(tmp_path, ["rebuild", "--raw", str(raw_dir), "--out", str(data), "--allow-missing"], hold=30)
    first.kill()
    first.communicate(timeout=10)
    assert snapshot_bytes(data) == before
    r = cli("rebuild", "--raw", str(raw_dir), "--out", str(data), "--allow-missing")
    assert r.returncode == 0, r.stderr
    assert snapshot_bytes(data) == snapshot_bytes(ref)


def test_every_writing_command_takes_the_lock(raw_dir, tmp_path, monkeypatch):
    """``rebuild`` and ``update`` both go through ``update_lock`` on the folder they write."""
    from loaders.errors import LockedError
    data = tmp_path / "data"
    with pipeline.update_lock(data):
        with pytest.raises(LockedError, match="already writing"):
            pipeline.rebuild(raw_dir, data, allow_missing=True)
        with pytest.raises(LockedError, match="already writing"):
            pipeline.update(["trac_detention"], data, tmp_path / "cache")
    assert not (tmp_path / "cache").exists() or not any((tmp_path / "cache").rglob("*.json"))


def test_staging_folders_of_a_live_update_are_left_alone(tmp_path):
    """Two updates into different snapshots may share a raw cache: one must not delete the other's downloads."""
    sid = "trac_detention"
    live = tmp_path / sid / f".incoming-{os.getppid()}-abc"
    dead = tmp_path / sid / ".incoming-999999999-abc"
    live.mkdir(parents=True)
    dead.mkdir()
    with pipeline._staging(tmp_path, [sid]) as made:
        assert made[sid].exists() and live.exists() and not dead.exists()
    assert not made[sid].exists() and live.exists()
    shutil.rmtree(live)


def test_the_command_line_and_the_locks_import_without_fcntl():
    """Windows has no fcntl: the update lock and the events lock are filelock's, so every loaders module (and
    the command line) imports, and a lock can be taken, with fcntl unavailable."""
    code = ("import sys; sys.modules['fcntl'] = None\n"  # any `import fcntl` now raises ImportError
            "import pkgutil, importlib, loaders, loaders.__main__\n"
            "for m in pkgutil.iter_modules(loaders.__path__): importlib.import_module('loaders.' + m.name)\n"
            "from filelock import FileLock\n"
            "import tempfile, os\n"
            "with FileLock(os.path.join(tempfile.mkdtemp(), 'x.lock'), timeout=1): print('locked')\n")
    got = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert got.returncode == 0 and got.stdout.strip() == "locked", got.stderr[-2000:]
