"""A small snapshot of one source written in the snapshot's own layout, for tests that need a few releases of
their own (the ledger, the revision band): observations, the series catalogue and a manifest, read back with
the real reader."""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from loaders import data as cdata

SERIES_COLS = ["id", "title", "metric", "agency", "unit", "frequency", "definition", "source", "breakdown", "measure"]
OBS_COLS = ["series", "key", "date", "end", "value", "release", "flag", "file"]


def build_snapshot(tmp_path: Path, source: str, cadence_days: int, catalogue, rows):
    """``rows`` (lists in ``OBS_COLS`` order) and ``catalogue`` (lists in ``SERIES_COLS`` order) of ``source``,
    published every ``cadence_days``, as a snapshot in ``tmp_path/snap``; returns it as loaded."""
    d = tmp_path / "snap"
    (d / "observations").mkdir(parents=True)
    pd.DataFrame(rows, columns=OBS_COLS).to_csv(d / "observations" / f"{source}.csv", index=False)
    pd.DataFrame(catalogue, columns=SERIES_COLS).to_csv(d / "series.csv", index=False)
    (d / "manifest.json").write_text(json.dumps({"format": 1, "sources": {source: {
        "id": source, "publisher": "Test publisher", "title": "Test", "cadence_days": cadence_days}}}))
    return cdata.load_snapshot(d)
