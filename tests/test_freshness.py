"""The data side's freshness rule (``loaders.freshness``): the releases held, the declared releases, a source's
age and lateness against its cadence, and the table of ``python -m loaders status``. On small snapshots built
here; the page's ``analysis.status`` reads the same rule, which the last tests hold."""
import datetime as dt
import tomllib

import pandas as pd
import pytest

from analysis import status
from loaders import data as cdata
from loaders import freshness, ledger
from tests.conftest import ROOT

TODAY = dt.date(2026, 12, 3)


def _snap(rows: list[tuple[str, str, str]], cadence_days: int = 30, date_max: str = "2026-06-30",
          cadence: str = "monthly") -> cdata.Snapshot:
    """A snapshot of one source ``src`` whose series carry (series, end day, release) rows."""
    obs = pd.DataFrame([dict(series=s, key="", date=pd.Timestamp(end), end=pd.Timestamp(end), value=1.0,
                             release=pd.Timestamp(rel) if rel else pd.NaT, flag="", file="f.csv")
                        for s, end, rel in rows])
    by_series = {sid: g.reset_index(drop=True) for sid, g in obs.groupby("series", sort=True)}
    manifest = {"sources": {"src": {"title": "A source", "cadence": cadence, "cadence_days": cadence_days,
                                    "date_max": date_max}}}
    catalogue = pd.DataFrame({"id": sorted(by_series), "measure": "count"}).set_index("id")
    return cdata.Snapshot(obs, catalogue, manifest, pd.DataFrame(), {}, by_series)


def _declared(*releases: str) -> pd.DataFrame:
    return pd.DataFrame([dict(source="src", kind="release", start=d, end="", target="", reason="",
                              statement="a release", evidence_source="a page", verified="yes") for d in releases],
                        columns=freshness.COLUMNS)


ROWS = [("src.a", "2026-05-31", "2026-06-10"), ("src.b", "2026-06-30", "2026-07-08"),
        ("src.a", "2026-04-30", "2026-06-10"), ("src.b", "2026-03-31", "2026-04-02"), ("src.b", "2026-02-28", ""),
        ("other.a", "2026-11-30", "2026-12-01")]


def test_releases_held_are_every_dated_release_of_the_source_once_and_sorted():
    snap = _snap(ROWS)
    assert freshness.releases_held(snap, "src") == [pd.Timestamp(d) for d in ("2026-04-02", "2026-06-10", "2026-07-08")]
    assert freshness.releases_held(snap, "absent") == []
    # The page's memoised reader gives the same list.
    assert freshness.releases_held(snap, "src") == ledger.releases_of(snap, "src")


def test_source_freshness_ages_from_the_data_and_counts_lateness_from_the_latest_known_release():
    snap = _snap(ROWS)
    f = freshness.source_freshness(snap, "src", TODAY, _declared("2026-08-01", "2026-01-01"))
    assert f.data_date == dt.date(2026, 6, 30) and f.age_days == (TODAY - dt.date(2026, 6, 30)).days
    assert f.release == dt.date(2026, 7, 8) and f.newer_release == dt.date(2026, 8, 1)
    assert f.overdue_days == (TODAY - dt.date(2026, 8, 1)).days - 30
    on_time = freshness.source_freshness(snap, "src", dt.date(2026, 7, 20), _declared())
    assert on_time.overdue_days is None and on_time.newer_release is None
    # The analysis layer's freshness (the cards, the Releases tab) is this one.
    assert status.source_freshness(snap, "src", TODAY, _declared("2026-08-01")) == \
        freshness.source_freshness(snap, "src", TODAY, _declared("2026-08-01"))


def test_a_fixed_file_is_a_reference_never_overdue():
    snap = _snap(ROWS, cadence_days=30, cadence="fixed file")
    f = freshness.source_freshness(snap, "src", TODAY, _declared())
    assert f.reference and f.overdue_days is None


def test_command_status_words_each_held_source():
    snap = _snap(ROWS)
    table = pd.DataFrame([dict(source="src", rows=6, latest_release="2026-07-08", data_to="2026-06-30",
                               age_days=1, status="held"),
                          dict(source="gone", rows=0, latest_release="", data_to="", age_days="", status="missing")])
    out = freshness.command_status(table, snap, TODAY, _declared("2026-08-01")).set_index("source")
    late = (TODAY - dt.date(2026, 8, 1)).days - 30
    assert out.loc["src", "status"] == f"overdue ({late} days past cadence, counted from the known 2026-08-01 " \
                                       "release, not held)"
    assert out.loc["src", "age_days"] == (TODAY - dt.date(2026, 6, 30)).days
    assert out.loc["src", "newer_release_known"] == "2026-08-01"
    assert out.loc["gone", "status"] == "missing" and out.loc["gone", "newer_release_known"] == ""
    fine = freshness.command_status(table, snap, dt.date(2026, 7, 20), _declared()).set_index("source")
    assert fine.loc["src", "status"] == "ok"
    assert status.command_status is freshness.command_status


def test_a_bad_declared_row_is_refused_by_the_data_side(tmp_path):
    p = tmp_path / "publication_status.csv"
    p.write_text(",".join(freshness.COLUMNS) + "\nsrc,release,2026-02-30,,,,a release,a page,yes\n", "utf-8")
    with pytest.raises(freshness.DeclaredError, match=r"publication_status.csv row 2 field 'start': '2026-02-30'"):
        freshness.read_declared(p)


def _fact(kind: str, start: str, end: str = "", verified: str = "yes") -> dict:
    return dict(source="src", kind=kind, start=start, end=end, target="", reason="", statement=f"a {kind}",
                evidence_source="a page", verified=verified)


@pytest.mark.parametrize(("facts", "words"), [
    ([], "no release in this snapshot for 148 days"),
    # A declared span with no end says the publisher released nothing: the days are the publisher's.
    ([_fact("blackout", "2026-08-01")], "no release for 148 days"),
    # A span that ended says nothing about today.
    ([_fact("blackout", "2026-08-01", "2026-09-01")], "no release in this snapshot for 148 days"),
    ([_fact("stopped", "2026-07-15")], "publication stopped"),
    ([_fact("stopped", "2026-07-15", verified="no")], "publication stopped (reported, not verified)"),
    ([_fact("release", "2026-11-20")], "on time; a newer release of 2026-11-20 is known, not held"),
])
def test_the_status_words_are_the_data_sides_and_the_page_says_the_same(facts, words):
    """``python -m loaders releases --latest`` says each source's status with ``freshness.status_words``; the
    page's status records (``analysis.status.source_status``) carry the same words."""
    snap, declared = _snap(ROWS), pd.DataFrame(facts, columns=freshness.COLUMNS)
    fresh = freshness.source_freshness(snap, "src", TODAY, declared)
    assert freshness.status_words(snap, "src", fresh, TODAY, declared) == words
    assert status.source_status(snap, "src", TODAY, declared).status == words


def test_an_open_silence_is_the_latest_declared_span_still_open_among_the_blackouts():
    """``freshness.open_silence`` reads the declared facts alone: the latest start of a declared blackout with
    no end or of a stop, the same day the blackouts of ``analysis.status`` give (their computed spans, from the
    snapshot's release dates, never count)."""
    snap = _snap(ROWS)
    facts = [_fact("blackout", "2026-08-01"), _fact("blackout", "2026-09-01", "2026-10-01"),
             _fact("stopped", "2026-07-15"), _fact("release", "2026-11-01"),
             dict(_fact("blackout", "2026-10-05"), source="other")]
    declared = pd.DataFrame(facts, columns=freshness.COLUMNS)
    spans = status.blackouts(snap, "src", TODAY, declared)
    assert any(not b.declared for b in spans)  # computed spans are there, and left out
    assert freshness.open_silence(declared, "src") == dt.date(2026, 8, 1) == \
        max(b.start for b in spans if b.declared and b.end is None)
    assert freshness.open_silence(declared[declared["kind"] == "release"], "src") is None


def test_the_import_contract_lists_no_exception():
    """Issue #41: the layers run one way with no exception. The wording catalogue is the lowest layer, so the
    data side's ``python -m loaders releases`` prints the ledger's catalogue English from ``loaders.ledger`` and
    the status words from ``loaders.freshness``; nothing in ``loaders/`` imports a layer above it (the import
    linter checks the same, tests/test_layers.py)."""
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]["contracts"]
    assert all("ignore_imports" not in c for c in contracts)
    layers = next(c for c in contracts if c["type"] == "layers")["layers"]
    assert layers[-2:] == ["loaders", "wording"]
    above = ("analysis", "figures", "views", "charts", "page")
    for path in sorted((ROOT / "loaders").glob("*.py")):
        lines = path.read_text("utf-8").splitlines()
        assert not [line for line in lines if line.startswith(tuple(f"{k} {p}" for k in ("from", "import")
                                                                    for p in above))], path.name
