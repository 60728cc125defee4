"""The session guard of tests/tracked_guard.py: a run that modifies a tracked file fails, naming it."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT
from tests.tracked_guard import changes, tracked_state

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"})


@pytest.fixture
def repo(tmp_path):
    r = tmp_path / "repo"
    r.mkdir()
    git(r, "init", "-q")
    (r / "tracked.txt").write_text("one\n")
    (r / ".gitignore").write_text("ignored/\n")
    git(r, "add", ".")
    git(r, "commit", "-qm", "init")
    return r


def test_state_sees_changes_to_tracked_files_only(repo):
    clean = tracked_state(repo)
    assert clean == {}
    (repo / "new-untracked.txt").write_text("x")
    (repo / "ignored").mkdir()
    (repo / "ignored" / "a").write_text("x")
    assert tracked_state(repo) == {}
    (repo / "tracked.txt").write_text("two\n")
    edited = tracked_state(repo)
    assert changes(clean, edited) == ["tracked.txt"]
    # A further change to a file that was already modified is a change too.
    (repo / "tracked.txt").write_text("three\n")
    assert changes(edited, tracked_state(repo)) == ["tracked.txt"]
    (repo / "tracked.txt").unlink()
    assert tracked_state(repo)["tracked.txt"][0].strip() == "D"


def test_not_a_checkout_means_no_guard(tmp_path):
    assert tracked_state(tmp_path) is None


@pytest.mark.parametrize("body, rc, says", [
    ("def test_x():\n    open('tracked.txt', 'w').write('changed')\n", 1, "modified tracked file(s): tracked.txt"),
    ("def test_x():\n    open('untracked.txt', 'w').write('fine')\n", 0, None),
])
def test_a_session_that_modifies_a_tracked_file_fails(repo, body, rc, says):
    (repo / "conftest.py").write_text("from tests.tracked_guard import pytest_sessionfinish, pytest_sessionstart\n")
    (repo / "test_it.py").write_text(body)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "tests")
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_it.py"], cwd=repo,
                       capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == rc, r.stdout + r.stderr
    if says:
        assert says in r.stdout and "1 passed" in r.stdout  # the test passed; the session failed all the same
