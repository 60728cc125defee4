"""Shared fixtures. Tests never touch the network; real files come from ../shared/data when it is there."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED = ROOT.parent / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"real source files not found at {SHARED} (they are in CI; see README)")
    return SHARED


@pytest.fixture
def trac_population_json() -> bytes:
    """A small pop_agen_table.json with the real layout (newest first, MM/DD/YYYY, int fields)."""
    recs = [
        {"date": "09/21/2025", "ice_all": 46015, "cbp_all": 13747, "total_all": 59762, "ice_other": 1, "cbp_other": 2,
         "total_other": 3, "ice_pend": 4, "cbp_pend": 5, "total_pend": 9, "ice_conv": 46010, "cbp_conv": 13740,
         "total_conv": 59750},
        {"date": "01/26/2025", "ice_all": 14882, "cbp_all": 24356, "total_all": 39238, "ice_other": 10, "cbp_other": 20,
         "total_other": 30, "ice_pend": 40, "cbp_pend": 50, "total_pend": 90, "ice_conv": 14832, "cbp_conv": 24286,
         "total_conv": 39118},
    ]
    return json.dumps(recs).encode()


@pytest.fixture
def trac_book_ins_json() -> bytes:
    """book_in_agen_program_table.json layout: DDMONYY months, a partial month, null future months."""
    recs = [
        {"download_date": "07/11/2026", "period": "jun", "period_date": "01JUN26", "ice": 39563, "cbp": 3575,
         "total": 43138, "monstr": "Jun-26", "f_latest_period": 1},
        {"download_date": "07/11/2026", "period": "jul", "period_date": "01JUL26", "ice": 16213, "cbp": 1312,
         "total": 17525, "monstr": "Jul-26", "f_latest_period": 0},
        {"download_date": "07/11/2026", "period": "aug", "period_date": "01AUG26", "ice": None, "cbp": None,
         "total": 0, "monstr": "Aug-26", "f_latest_period": 0},
    ]
    return json.dumps(recs).encode()


@pytest.fixture
def raw_dir(tmp_path, trac_population_json, trac_book_ins_json) -> Path:
    """A raw folder in the project's own cache layout."""
    d = tmp_path / "raw" / "trac_detention"
    d.mkdir(parents=True)
    (d / "pop_agen_table.json").write_bytes(trac_population_json)
    (d / "book_in_agen_program_table.json").write_bytes(trac_book_ins_json)
    return tmp_path / "raw"
