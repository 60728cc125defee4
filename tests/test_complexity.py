"""A complexity ceiling for new code: ruff's mccabe check (C901) at 10 branches.

The functions above it when the ceiling came in are listed with their score in tests/golden/complexity.json;
they may get simpler (lower the number, or drop the line when one falls under the ceiling), never more complex,
and no other function may pass the ceiling. Regenerate the list only when a function is split or simplified:
    .venv/bin/python -m tests.test_complexity --write
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

CEILING = 10
BASELINE = ROOT / "tests" / "golden" / "complexity.json"
LINE = re.compile(r"^(?P<file>[^:]+):\d+:\d+: C901 `(?P<name>[^`]+)` is too complex \((?P<score>\d+) > \d+\)$")


def scores() -> dict[str, int]:
    ruff = Path(sys.executable).with_name("ruff")
    run = subprocess.run([str(ruff), "check", "--select", "C901", "--config", f"lint.mccabe.max-complexity={CEILING}",
                          "--output-format", "concise", "--no-cache", "."], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    out: dict[str, int] = {}
    for line in run.stdout.splitlines():
        m = LINE.match(line.strip())
        if m:
            key = f"{m['file']}::{m['name']}"
            out[key] = max(out.get(key, 0), int(m["score"]))  # two functions of one name in a file: the worse
    assert out or run.returncode == 0, run.stdout + run.stderr
    return out


def test_no_function_passes_the_ceiling_or_grows_past_its_listed_score():
    listed = json.loads(BASELINE.read_text("utf-8"))
    now = scores()
    new = {k: v for k, v in now.items() if k not in listed}
    grown = {k: (listed[k], v) for k, v in now.items() if k in listed and v > listed[k]}
    assert not new, f"over the complexity ceiling of {CEILING} (split them): {new}"
    assert not grown, f"more complex than listed (listed, now): {grown}"


def test_the_check_finds_a_function_over_the_ceiling(tmp_path):
    """The ceiling is live: a function of 11 branches is reported with its score."""
    body = "\n".join(f"    if x == {i}:\n        return {i}" for i in range(11))
    (tmp_path / "busy.py").write_text(f"def busy(x):\n{body}\n    return -1\n", "utf-8")
    ruff = Path(sys.executable).with_name("ruff")
    run = subprocess.run([str(ruff), "check", "--select", "C901", "--config", f"lint.mccabe.max-complexity={CEILING}",
                          "--output-format", "concise", "--no-cache", "--isolated", str(tmp_path / "busy.py")],
                         capture_output=True, text=True, timeout=60)
    hits = [line for line in run.stdout.splitlines() if LINE.match(line.strip()) and "`busy`" in line]
    assert hits and "(12 > 10)" in hits[0], run.stdout


if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    BASELINE.write_text(json.dumps(dict(sorted(scores().items())), indent=1) + "\n", "utf-8")
