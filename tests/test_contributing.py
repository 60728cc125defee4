"""docs/contributing.md's "Adding a source", pasted as written into a copy of the project: the linters pass and so
do the tests that run over every registered source (the docs, the Spanish catalogue, the fault samples, the fault
injection and the fuzzing). A step left out of the page (the Spanish cadence row, the fault sample, a sources
table row) fails here, as it would for the contributor who follows it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

CONTRIBUTING = ROOT / "docs" / "contributing.md"
BIN = Path(sys.executable).parent
# The tests that pick a new source up from the registry (by file; the fault and fuzz tests only for the new
# source: the others are the ordinary suite's).
WHOLE = ["tests/test_example_removals.py", "tests/test_docs.py", "tests/test_i18n.py", "tests/test_fault_samples.py"]
FOR_THE_SOURCE = ["tests/test_faults.py", "tests/test_fuzz.py"]
STEP = re.compile(r"^<!-- paste: (new|append|after|after-each) (?:\"([^\"]+)\" in )?(\S+) -->\n```\w*\n(.*?)^```",
                  re.M | re.S)


def steps() -> list[tuple[str, str, str, str]]:
    section = CONTRIBUTING.read_text("utf-8").split("## Adding a source", 1)[1].split("\n## ", 1)[0]
    return STEP.findall(section)


def paste(root: Path, how: str, anchor: str, rel: str, block: str) -> None:
    path = root / rel
    if how == "new":
        assert not path.exists(), f"{rel} exists already"
        path.write_text(block, "utf-8")
        return
    text = path.read_text("utf-8")
    if how == "append":
        path.write_text(text + ("" if text.endswith("\n") else "\n") + block, "utf-8")
        return
    lines, out, hits = text.splitlines(keepends=True), [], 0
    for line in lines:
        out.append(line)
        # "after": the first line that starts with the anchor; "after-each": every line that is the anchor.
        if (how == "after" and not hits and line.startswith(anchor)) or (how == "after-each" and line.rstrip("\n") == anchor):
            out.append(block)
            hits += 1
    assert hits, f"{rel}: no line {anchor!r} to paste after"
    path.write_text("".join(out), "utf-8")


def copy_project(dest: Path) -> None:
    """The files a clone has (tracked, plus new ones not ignored), as they are in the working tree."""
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        src = ROOT / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)
    (dest / ".venv").symlink_to(Path(sys.prefix))


def test_the_page_has_every_kind_of_step():
    kinds = {(how, rel) for how, _, rel, _ in steps()}
    assert {rel for _, rel in kinds} >= {"loaders/example_removals.py", "loaders/registry.py",
                                         "tests/test_example_removals.py", "locales/series.es.csv",
                                         "locales/cadence.es.csv", "docs/sources.md", "README.md"}, kinds


@pytest.mark.slow
def test_adding_a_source_as_documented_passes_lint_and_the_tests_over_every_source(tmp_path):
    root = tmp_path / "project"
    copy_project(root)
    for step in steps():
        paste(root, *step)
    env = {**os.environ, "SHARED_DATA": "/nonexistent/shared-data", "PYTHONPATH": str(root)}

    def run(*cmd: str) -> None:
        done = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{' '.join(cmd)}:\n{(done.stdout + done.stderr)[-3000:]}"

    run(str(BIN / "ruff"), "check", ".")
    run(str(BIN / "mypy"), "--cache-dir", str(tmp_path / "mypy"))
    run(str(BIN / "lint-imports"), "--no-cache")
    pytest_cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow"]
    run(*pytest_cmd, *WHOLE)
    run(*pytest_cmd, "-k", "example_removals", *FOR_THE_SOURCE)
