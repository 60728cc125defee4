"""The curated files (events, reported figures) reach the page and the exports through the snapshot, checked
once by the rebuild, like every source's rows: nothing downstream parses data/events.csv or
data/reported_figures.csv again (issue #16)."""
from __future__ import annotations

import shutil

import pandas as pd

from charts.context import load_context
from loaders import data as cdata
from loaders import events as lev
from loaders import reported_figures
from tests.conftest import ROOT

DATA = ROOT / "data"


def test_the_committed_snapshot_holds_the_checked_curated_rows_with_their_types():
    snap = cdata.load_snapshot(DATA)
    bundled = lev.read_bundled(DATA / "events.csv")
    pd.testing.assert_frame_equal(snap.events, bundled)
    assert snap.events["study_default"].sum() == 1 and snap.events["date"].dtype.kind == "M"
    pd.testing.assert_frame_equal(snap.reported, reported_figures.load_reported(DATA / "reported_figures.csv"))


def test_exports_read_the_curated_rows_from_the_snapshot_not_the_files_beside_it(tmp_path, capsys):
    # A snapshot copied alone (no events.csv or reported_figures.csv beside it) still draws both.
    shutil.copytree(DATA / "snapshot", tmp_path / "snapshot")
    snap, events, reported = load_context(tmp_path)
    assert not (tmp_path / "events.csv").exists()
    assert set(lev.read_bundled(DATA / "events.csv")["id"]) <= set(events["id"])
    assert reported is not None and len(reported) == len(snap.reported) > 0
    assert "holds no" not in capsys.readouterr().err


def test_a_snapshot_without_its_events_says_so_rather_than_drawing_none_silently(tmp_path, capsys):
    import json

    from loaders.snapshot import MANIFEST
    shutil.copytree(DATA / "snapshot", tmp_path / "snapshot")
    man_path = tmp_path / "snapshot" / MANIFEST
    man = json.loads(man_path.read_text())
    del man["snapshot_files"][lev.SNAPSHOT_FILE]
    (tmp_path / "snapshot" / lev.SNAPSHOT_FILE).unlink()
    man_path.write_text(json.dumps(man))
    snap, events, _ = load_context(tmp_path)
    assert snap.events is None and events is None
    assert "holds no events (rebuild it)" in capsys.readouterr().err


def test_the_snapshot_copy_round_trips_every_column():
    bundled = lev.read_bundled(DATA / "events.csv")
    back = lev.from_snapshot(lev.snapshot_csv(bundled).encode())
    pd.testing.assert_frame_equal(back, bundled)
