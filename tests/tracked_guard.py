"""A session guard: the test suite must not modify tracked files.

``tests/conftest.py`` imports the two hooks below. At the start of a session they record ``git status`` of the
tracked files (with a checksum of each file already changed, so that a further change to a file the
developer was editing is caught too); at the end they compare, and a difference fails the session with the
files named, whatever the tests themselves said. Untracked and git-ignored files (tests/artifacts/,
data/user_events.csv, caches) do not count. Outside a git checkout, or without git, the guard does nothing.
"""
from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

_KEY = pytest.StashKey[dict]()


def tracked_state(root: Path) -> dict[str, tuple[str, str]] | None:
    """{path: (status, sha256 of its bytes)} for every tracked file that differs from HEAD; None when ``root``
    is not a git checkout (or git is missing)."""
    try:
        r = subprocess.run(["git", "-C", str(root), "status", "--porcelain=v1", "-z", "--untracked-files=no"],
                           capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if r.returncode != 0:
        return None
    records = r.stdout.split(b"\0")
    state: dict[str, tuple[str, str]] = {}
    i = 0
    while i < len(records):
        rec = records[i]
        i += 1
        if len(rec) < 4:
            continue
        status, path = rec[:2].decode(), rec[3:].decode("utf-8", "surrogateescape")
        if status[0] in "RC":
            i += 1  # a rename or copy is followed by its original path
        f = root / path
        try:
            digest = hashlib.sha256(f.read_bytes()).hexdigest() if f.is_file() else "(not a file)"
        except OSError as exc:
            digest = f"(unreadable: {exc.strerror})"
        state[path] = (status, digest)
    return state


def changes(before: dict, after: dict) -> list[str]:
    return sorted(p for p in set(before) | set(after) if before.get(p) != after.get(p))


def _root(config) -> Path:
    return Path(str(config.rootpath))


def pytest_sessionstart(session):
    state = tracked_state(_root(session.config))
    if state is not None:
        session.config.stash[_KEY] = state


def pytest_sessionfinish(session, exitstatus):
    before = session.config.stash.get(_KEY, None)
    if before is None:
        return
    after = tracked_state(_root(session.config))
    if after is None:
        return
    changed = changes(before, after)
    if not changed:
        return
    msg = ("the test run modified tracked file(s): " + ", ".join(changed[:20])
           + (f" and {len(changed) - 20} more" if len(changed) > 20 else "")
           + ". Tests must write to tmp_path or git-ignored folders (restore with git checkout -- <file>).")
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_sep("=", "tracked files modified", red=True)
        reporter.write_line(msg)
    else:
        print(msg)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
