"""Fiscal-year-to-date series follow the period convention of every other series in the snapshot and the data
package (``loaders.tidy.fytd_periods``: date = 1 October, end = the data date, key = the member alone), while
the page keeps drawing them one point per release on one line per fiscal year (``fytd_points``)."""
import json
import re

import pandas as pd
import pytest

from loaders import data as cdata
from loaders import pipeline, registry, tidy
from loaders.base import FISCAL_YTD, Series
from tests.conftest import ROOT

SNAPSHOT = ROOT / "data" / "snapshot"
FY_KEY = re.compile(r"(?:EO)?FY\s*\d")

# Drawn rows as the ICE reader emits them: two releases of FY2026 (figures to 1 February and to 25 March), the
# year's end (30 September: complete), a facility list row, and a monthly series that must not move.
DRAWN = tidy.frame([{"end": r["date"], **r} for r in [
    {"series": "x.removals_fytd", "key": "FY2026", "date": "2026-02-01", "value": 100, "release": "2026-02-05",
     "file": "a.xlsx"},
    {"series": "x.removals_fytd", "key": "FY2026", "date": "2026-03-25", "value": 180, "release": "2026-03-30",
     "flag": "stale-header", "file": "b.xlsx"},
    {"series": "x.adp_by_type_fytd", "key": "FY2025 | Adult", "date": "2025-09-30", "value": 5.5,
     "release": "2025-10-07", "file": "c.xlsx"},
    {"series": "x.adp_by_type_fytd", "key": "FY2025 | Total | Total", "date": "2025-09-30", "value": 9,
     "release": "2025-10-07", "file": "c.xlsx"},
    {"series": "x.facility_adp_fytd", "key": "SOME COUNTY JAIL", "date": "2025-11-14", "value": 42,
     "release": "2025-11-20", "file": "d.xlsx"},
    {"series": "x.removals", "key": "FY2026 look-alike", "date": "2026-01-01", "end": "2026-01-20", "value": 7,
     "release": "2026-02-05", "flag": "partial", "file": "a.xlsx"},
]])
FYTD = {"x.removals_fytd": "", "x.adp_by_type_fytd": "facility type | criminality", "x.facility_adp_fytd": "facility"}


def _rows(df: pd.DataFrame) -> list[tuple]:
    return list(df[["series", "key", "date", "end", "flag"]].itertuples(index=False, name=None))


def test_drawn_rows_are_stored_by_period_and_come_back_unchanged():
    stored = tidy.fytd_periods(DRAWN, FYTD)
    assert _rows(stored) == [
        ("x.removals_fytd", "", "2025-10-01", "2026-02-01", "partial"),
        ("x.removals_fytd", "", "2025-10-01", "2026-03-25", "partial;stale-header"),
        ("x.adp_by_type_fytd", "Adult", "2024-10-01", "2025-09-30", ""),
        ("x.adp_by_type_fytd", "Total | Total", "2024-10-01", "2025-09-30", ""),
        ("x.facility_adp_fytd", "SOME COUNTY JAIL", "2025-10-01", "2025-11-14", "partial"),
        ("x.removals", "FY2026 look-alike", "2026-01-01", "2026-01-20", "partial"),
    ]
    assert stored["value"].tolist() == DRAWN["value"].tolist()
    assert tidy.fytd_layout_errors(stored, FYTD) == []
    assert tidy.fytd_periods(stored, FYTD).equals(stored)  # stored rows pass through: read-modify-write is safe
    back = tidy.fytd_points(stored, FYTD)
    assert back.equals(DRAWN)
    assert tidy.fytd_points(back, FYTD).equals(DRAWN)


def test_the_layout_check_names_a_row_that_breaks_the_convention():
    errors = tidy.fytd_layout_errors(DRAWN, FYTD)  # the drawn layout is not the stored one
    assert errors[0] == "row 0 (series x.removals_fytd, key 'FY2026', date 2026-02-01): date is not 1 October"
    stored = tidy.fytd_periods(DRAWN, FYTD)
    stored.loc[2, "flag"] = "partial"
    stored.loc[4, "key"] = "FY2026 | SOME COUNTY JAIL"
    assert tidy.fytd_layout_errors(stored, FYTD) == [
        "row 2 (series x.adp_by_type_fytd, key 'Adult', date 2024-10-01): flag partial does not match end",
        "row 4 (series x.facility_adp_fytd, key 'FY2026 | SOME COUNTY JAIL', date 2025-10-01): key holds a "
        "fiscal year"]


def test_findings_on_drawn_rows_are_placed_like_the_rows():
    flags = pd.DataFrame({"source": ["x", "x", "x"], "series": ["x.removals_fytd", "x.facility_adp_fytd", ""],
                          "key": ["FY2026", "SOME COUNTY JAIL", ""], "date": ["2026-02-01", "2025-11-14", ""],
                          "release": ["2026-02-05", "2025-11-20", ""], "file": ["a.xlsx", "d.xlsx", "e.xlsx"],
                          "flag": ["decreased", "row-dropped", "table-unread"], "message": ["m", "m", "m"]})
    out = tidy.fytd_periods(flags, FYTD)
    assert out[["key", "date", "flag"]].values.tolist() == [
        ["", "2025-10-01", "decreased"], ["SOME COUNTY JAIL", "2025-10-01", "row-dropped"], ["", "", "table-unread"]]


def test_the_breakdown_is_stored_without_the_fiscal_year_and_drawn_with_it():
    assert tidy.stored_breakdown("fiscal year | facility type", FISCAL_YTD) == "facility type"
    assert tidy.stored_breakdown("fiscal year", FISCAL_YTD) == ""
    assert tidy.stored_breakdown("fiscal year | x", "") == "fiscal year | x"
    assert tidy.drawn_breakdown("facility type", FISCAL_YTD) == "fiscal year | facility type"
    assert tidy.drawn_breakdown("", FISCAL_YTD) == "fiscal year"
    assert tidy.drawn_breakdown("facility", FISCAL_YTD) == "facility"
    with pytest.raises(ValueError, match="period must be one of"):
        Series("x.y", "t", "removals", "ICE", "removals", "release", "d", "x", measure="level", period="fytd")


def test_every_series_of_the_snapshot_follows_one_period_convention():
    cat = pd.read_csv(SNAPSHOT / "series.csv", dtype=str, keep_default_na=False).set_index("id")
    fytd = {sid: cat.at[sid, "breakdown"] for sid in cat.index[cat["period"] == FISCAL_YTD]}
    assert fytd == pipeline.fytd_series()
    # every series that says it runs to date from the fiscal year's start is declared so
    to_date = {sid for sid in cat.index if "fiscal year to date" in cat.at[sid, "title"]}
    assert to_date <= set(fytd), sorted(to_date - set(fytd))
    assert not cat["breakdown"].str.contains("fiscal year").any()
    for f in sorted(SNAPSHOT.glob("observations/*.csv")):
        obs = pd.read_csv(f, dtype=str, keep_default_na=False)
        assert (obs["date"] <= obs["end"]).all(), f.name
        assert tidy.fytd_layout_errors(obs, fytd)[:3] == [], f.name
        other = obs[~obs["series"].isin(list(fytd))]
        assert not other["key"].str.match(FY_KEY).any(), (f.name, other.loc[other["key"].str.match(FY_KEY)].head(2))
        # the manifest's dates are the stored rows' (sources.parquet and source_files.parquet say what they cover)
        entry = json.loads((SNAPSHOT / "manifest.json").read_text("utf-8"))["sources"][f.stem]
        if len(obs):
            assert (entry["date_min"], entry["date_max"]) == (obs["date"].min(), obs["end"].max()), f.name
        for fe in entry["files"]:
            mine = obs[obs["file"] == fe["name"]]
            assert not len(mine) or fe["date_min"] == mine["date"].min(), (f.name, fe["name"])
    flags = pd.read_csv(SNAPSHOT / "quality_flags.csv", dtype=str, keep_default_na=False)
    placed = flags[flags["series"].isin(list(fytd)) & (flags["date"] != "")]
    assert len(placed) and placed["date"].str.endswith("-10-01").all()
    assert not placed["key"].str.match(FY_KEY).any()


def test_the_page_still_draws_one_point_per_release_on_a_line_per_fiscal_year():
    snap = cdata.load_snapshot(ROOT / "data")
    rows = snap.by_series["ice_detention_stats.removals_fytd"]
    assert rows["key"].str.fullmatch(r"FY20\d\d").all()
    assert (rows["date"] == rows["end"]).all() and not rows["flag"].str.contains("partial").any()
    assert rows.groupby("key")["date"].nunique().max() > 10  # a line of many releases in a year
    assert snap.info("ice_detention_stats.removals_fytd")["breakdown"] == "fiscal year"
    adp = snap.by_series["ice_detention_stats.adp_by_facility_type_fytd"]
    assert adp["key"].str.match(r"FY20\d\d \| ").all()
    assert snap.info("ice_detention_stats.adp_by_facility_type_fytd")["breakdown"] == "fiscal year | facility type"
    fac = snap.by_series["ice_detention_stats.facility_adp_fytd"]
    assert not fac["key"].str.match(FY_KEY).any() and (fac["date"] == fac["end"]).all()
    assert {s.id for s in registry.catalogue() if s.period == FISCAL_YTD} == set(pipeline.fytd_series())
