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
    # each layout case issue 27 brought has its golden (built by tests/golden/regen.py, in the real layout)
    for case in ("fy26-hidden-del", "fy26-visible-del", "fy21-annual-book-outs", "fy25-listed-twice",
                 "fy25-stub-column", "fy26-bond-swap-proven", "fy26-bond-swap-unproven", "fy26-no-atd-aor",
                 "downloaders-name"):
        assert any(n.startswith(case + "__") for n in ice), case


def test_the_new_layout_goldens_hold_the_findings_they_are_for():
    """The goldens are only as good as what they hold: each case's findings or flags, read from its files."""
    here = HERE / "ice_detention_stats"

    def text(case: str, what: str) -> str:
        return next(here.glob(f"{case}__*.{what}.csv")).read_text()
    assert "listed-twice" in text("fy25-listed-twice", "expected") and "(listing 2 of 2)" in text(
        "fy25-listed-twice", "facilities")
    assert ",stub-column," in text("fy25-stub-column", "findings")
    assert text("fy26-bond-swap-proven", "findings").count(",corrected,") >= 3
    assert "mislabelled" in text("fy26-bond-swap-unproven", "expected")
    assert ",table-unread," in text("fy26-no-atd-aor", "findings")
    assert "book_outs_by_reason_fytd" in text("fy21-annual-book-outs", "expected")
    assert ",dated-from-contents," in text("downloaders-name", "findings")
    assert ",True," in text("downloaders-name", "releases")
    # the hidden and the visible "_DEL" leftover change nothing: the same rows as each other
    assert text("fy26-hidden-del", "expected") == text("fy26-visible-del", "expected")


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
