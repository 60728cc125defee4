"""Golden files: every input under tests/golden/<source>/ parses to exactly the tidy CSV (or error text) beside it.

A regression is a dropped-in file: put the input in the source's folder as ``<case>__<file name>``, run
``tests/golden/regen.py --write`` and read what it wrote. This test never writes anything.
"""
from pathlib import Path

import pytest

from tests.golden.regen import HERE, cases, outputs

CASES = cases()


def test_there_are_golden_cases_for_several_sources():
    by_source = {p.parent.name for p in CASES}
    assert {"ice_detention_stats", "trac_detention", "ohss_monthly_tables"} <= by_source
    ice = [p.name for p in CASES if p.parent.name == "ice_detention_stats"]
    assert any(n.startswith("error-") for n in ice) and any("leftover" in n for n in ice) and len(ice) >= 5


@pytest.mark.parametrize("path", CASES, ids=[f"{p.parent.name}/{p.name.split('__')[0]}" for p in CASES])
def test_golden(path: Path):
    got = outputs(path)
    for name, text in got.items():
        f = path.parent / name
        assert f.exists(), f"{f.relative_to(HERE)} missing: run tests/golden/regen.py --write and check it"
        assert f.read_text() == text, f"{f.relative_to(HERE)} differs from what the parser makes now"
    # no stale expected file left from an earlier behaviour (an error that became a parse, a dropped table)
    beside = {q.name for q in path.parent.iterdir() if q.name.startswith(path.name + ".")}
    assert beside == set(got), f"unexpected files beside {path.name}: {sorted(beside - set(got))}"
