"""The curated rows (data/reported_figures.csv, data/events.csv) checked against the data they describe.

One test per class of mistake found in issue 13, so the next row filed the same wrong way fails:
- agency and metric: a daily book-in rate that is ICE's and CBP's together filed as ICE's; an analyst's book-in
  count (or a partial month scaled up) filed as arrests;
- as-of dates: a headcount dated by its release instead of the day it counts;
- definitions: ICE's removals include returns;
- event dates: a snapshot dated by TRAC instead of ICE, a notice dated a day early;
- copies: a republished or aggregated link that does not say so or whose original it copies.
The checks read the committed snapshot (runs everywhere) and, where marked ``shared``, the research files.
"""
from __future__ import annotations

import re

import pandas as pd
import pytest

from figures import events as cev
from loaders import data as cdata
from loaders import events as lev
from loaders import reported_figures as rf
from loaders.errors import ParseError
from tests import bundled

SNAP = bundled.snapshot()
RF = rf.load_reported()
EV = lev.read_bundled()


def _rows(metric: str | None = None, value: float | None = None) -> pd.DataFrame:
    out = RF
    if metric is not None:
        out = out[out.metric == metric]
    if value is not None:
        out = out[out.value == value]
    return out


def _monthly(series: str, release: str | None = None) -> pd.DataFrame:
    df = SNAP.by_series[series]
    if release:
        df = df[df["release"] == pd.Timestamp(release)]
    return df


def _month_value(series: str, month: str, release: str | None = None) -> float:
    df = _monthly(series, release)
    hit = df[df["date"] == pd.Timestamp(month)]
    if release is None:
        hit = hit.sort_values("release").tail(1)
    assert len(hit) == 1, (series, month, release)
    return float(hit["value"].iloc[0])


# ---------------------------------------------------------------- agency and metric of book-in figures

def test_trac_daily_rates_are_all_book_ins_not_ice_alone():
    """TRAC's 1,224 a day for June 2025 is ICE- and CBP-arrested book-ins together over 30 days; ICE alone was
    about 1,053. Every reported per-day book-in rate for a whole month must carry the agency whose rate it is."""
    whole_months = RF[RF.metric.isin(["ice_book_ins_per_day", "all_book_ins_per_day"])
                      & (pd.to_datetime(RF.period_start).dt.day == 1)
                      & (pd.to_datetime(RF.period_end) == pd.to_datetime(RF.period_start) + pd.offsets.MonthEnd(0))]
    assert len(whole_months) >= 1
    for r in whole_months.itertuples():
        days = (pd.Timestamp(r.period_end) - pd.Timestamp(r.period_start)).days + 1
        ice = _month_value("trac_detention.book_ins_ice", r.period_start) / days
        total = _month_value("trac_detention.book_ins_total", r.period_start) / days
        matches = {"ice_book_ins_per_day": abs(r.value - ice) < 1, "all_book_ins_per_day": abs(r.value - total) < 1}
        assert any(matches.values()), f"row {r.row}: {r.value} is neither ICE's {ice:.1f} nor all {total:.1f}"
        assert matches[r.metric], f"row {r.row}: {r.value} a day is filed as {r.metric}; ICE {ice:.1f}, all {total:.1f}"
    june = _rows("all_book_ins_per_day", 1224).iloc[0]
    assert "ICE and CBP" in june.unit


def test_trac_july_rate_is_filed_as_all_book_ins():
    july = _rows(value=990).iloc[0]
    assert july.metric == "all_book_ins_per_day" and (july.period_start, july.period_end) == ("2025-07-01", "2025-07-26")


def test_kocher_figures_are_ice_book_ins_and_january_is_a_scaled_partial_month():
    dec = _rows(value=37842).iloc[0]
    assert dec.metric == "ice_book_ins" and dec.unit.startswith("book-ins")
    assert _month_value("ice_detention_stats.book_ins_ice", "2025-12-01", "2026-02-02") == 37842
    jan = _rows(value=36579).iloc[0]
    assert jan.metric == "ice_book_ins" and "scaled" in jan.unit
    partial = _monthly("ice_detention_stats.book_ins_ice", "2026-02-02")
    partial = partial[partial["date"] == pd.Timestamp("2026-01-01")].iloc[0]
    releases = SNAP.tables["ice_detention_stats.releases"].set_index("release_date")
    through = pd.Timestamp(releases.loc["2026-02-02", "footnote_data_through"])  # ICE's "updated through" date
    assert round(partial["value"] / through.day * 31) == 36579
    assert partial["value"] != 36579  # the scaled figure is not a count anyone published


def test_no_arrest_row_rests_on_ice_workbook_book_ins():
    """ICE's detention workbooks count book-ins, never arrests: a row read from them is a book-in row."""
    from_workbooks = RF[RF.reported_by.str.contains("from ICE detention statistics") | RF.reported_by.str.contains("Kocher")
                        & RF.note.str.contains("workbook")]
    assert len(from_workbooks) >= 6
    for r in from_workbooks.itertuples():
        assert rf.METRICS[r.metric][0] in ("book-ins", "detained"), f"row {r.row} ({r.value}) filed as {r.metric}"


def test_an_arrest_metric_with_a_book_in_unit_is_refused():
    header = ",".join(rf.COLUMNS) + "\n"
    line = "2025-06-01,2025-06-30,ice_arrests_per_day,1224,book-ins/day,TRAC,https://tracreports.org/x.html,primary news,n\n"
    with pytest.raises(ParseError, match=r"row 2 field 'unit'.*does not start with 'arrests'"):
        rf.parse((header + line).encode(), "reported_figures.csv")


# ---------------------------------------------------------------- as-of dates and definitions

def test_exact_headcounts_from_ice_data_are_dated_by_the_day_they_count():
    """A headcount from ICE's releases (directly or through TRAC) is dated by its snapshot, never its release:
    TRAC's table holds the same figure on the same day. (56,816 was dated 07-17, the release, not 07-13.)"""
    trac = SNAP.by_series["trac_detention.detained_total"]
    by_day = dict(zip(trac["date"].dt.strftime("%Y-%m-%d"), trac["value"]))
    rows = RF[(RF.metric == "detained_population") & (RF.value % 1000 != 0)
              & RF.reported_by.str.contains("TRAC|ICE detention statistics|ICE release")]
    assert len(rows) >= 5
    for r in rows.itertuples():
        assert r.period_start == r.period_end
        assert by_day.get(r.period_start) == r.value, f"row {r.row}: {r.value} is not TRAC's figure on {r.period_start}"
    assert _rows("detained_population", 56816).period_start.item() == "2025-07-13"


def test_fy2024_removals_say_they_include_returns_and_match_the_workbook():
    row = _rows("removals", 271484).iloc[0]
    assert "including returns" in row.unit and "include returns" in row.note
    assert "returns are not included" not in row.note
    assert "include returns" in {s.id: s for s in rf.SERIES}["reported_figures.removals"].definition
    fy24 = cdata.series_rows(SNAP, "ice_detention_stats.removals_fytd", "FY2024")
    assert fy24["value"].iloc[-1] == 271484


@pytest.mark.shared
def test_ice_footnote_says_removals_include_returns(shared_data):
    from python_calamine import CalamineWorkbook
    wb = CalamineWorkbook.from_path(str(shared_data / "ice-detention-stats/original_xlsx/FY24_detentionStats.xlsx"))
    text = " ".join(str(c) for r in wb.get_sheet_by_name("Footnotes").to_python() for c in r)
    assert "Removal Data Include Returns" in text


# ---------------------------------------------------------------- event dates

def _event(words: str) -> pd.Series:
    hit = EV[EV.title.str.contains(words, regex=False)]
    assert len(hit) == 1, words
    return hit.iloc[0]


def test_low_point_is_dated_by_ice_snapshot_not_trac():
    ev = _event("low point: 13,258")
    assert ev.date == pd.Timestamp("2021-02-13")
    trac = SNAP.by_series["trac_detention.detained_total"]
    assert trac.loc[trac["value"] == 13258, "date"].dt.strftime("%Y-%m-%d").tolist() == ["2021-02-25"]
    assert "February 25" in ev.description  # TRAC's date is named as TRAC's


@pytest.mark.shared
def test_low_point_date_is_ice_eid_date(shared_data):
    wb = pd.read_csv(shared_data / "ice-detention-stats/research_basecamp/Data_processing.csv", dtype=str)
    nums = wb.drop(columns=["File Name", "EID Date"]).astype(int).sum(axis=1)
    dates = set(pd.to_datetime(wb.loc[nums == 13258, "EID Date"], format="%m/%d/%Y"))
    assert dates == {_event("low point: 13,258").date}
    # In FY2021 that compilation's date is the workbook's own footnote date: the FY21 end-of-year file says
    # "National Docket data are a snapshot as of 09/11/2021", and its rows for that file carry 09/11/2021.
    from python_calamine import CalamineWorkbook
    fy21 = CalamineWorkbook.from_path(str(shared_data / "ice-detention-stats/original_xlsx/FY21-detentionstats.xlsx"))
    text = " ".join(str(c) for r in fy21.get_sheet_by_name("Footnotes").to_python() for c in r)
    assert "National Docket data are a snapshot as of 09/11/2021" in text
    assert set(wb.loc[wb["File Name"].str.endswith("-FY21-detentionstats.xlsx")
                      & (wb["File Name"] > "20211201"), "EID Date"]) == {"09/11/2021"}


def test_trac_notices_are_dated_by_their_own_date():
    """A TRAC notice's URL carries its date (email.YYMMDD.html): an event citing one is on that day, and a
    reported figure citing one ends no later than it."""
    pat = re.compile(r"tracreports\.org/whatsnew/email\.(\d{6})\.html")
    for ev in EV.itertuples():
        m = pat.search(ev.source_url)
        if m and ev.category == "statistic-report" and "TRAC" in ev.title:
            assert ev.date == pd.to_datetime(m.group(1), format="%y%m%d"), ev.title
    for r in RF.itertuples():
        m = pat.search(r.url)
        if m:
            assert r.period_end <= pd.to_datetime(m.group(1), format="%y%m%d").strftime("%Y-%m-%d"), r.row
    assert _event("TRAC flags errors").date == pd.Timestamp("2025-07-18")


def test_book_ins_reported_as_arrests_are_called_book_ins():
    ev = _event("First ICE data after the shutdown")
    assert "54,735" in ev.description and "book-ins" in ev.description
    assert ev.date == pd.Timestamp("2025-11-20") and ev.date_precision == "exact"


def test_senate_budget_resolution_date():
    # The vote ended about 3:30 a.m. EDT on Thursday 2026-04-23 (Deseret News, published that morning);
    # the research note's "early April 24" is contradicted by reports published on April 23.
    ev = _event("Senate adopts budget resolution")
    assert (ev.date, ev.date_precision) == (pd.Timestamp("2026-04-23"), "exact")


# ---------------------------------------------------------------- copies
# Which link a row cites (the original's, never a copy it was read at) is tested in tests/test_cite_original.py.

def _tmp(text: str):
    import tempfile
    from pathlib import Path
    p = Path(tempfile.mkdtemp()) / "r.csv"
    p.write_text(text)
    return p


def test_files_without_the_citation_columns_still_load():
    header = ",".join(rf.COLUMNS) + "\n"
    line = "2025-02-01,2025-02-13,ice_arrests_per_day,600,arrests/day,WaPo,https://www.example.org/x,primary news,n\n"
    df = rf.load_reported(_tmp(header + line))
    assert df.link_status.item() == "original" and df.original_outlet.item() == "" and df.read_at.item() == ""
    ev_header = ",".join(lev.COLUMNS) + "\n"
    ev_line = "a,2025-02-15,exact,T,statistic-report,d,Washington Post,https://www.example.org/x\n"
    accepted, rejected = lev.validate_events((ev_header + ev_line).encode(), "u.csv")
    assert len(accepted) == 1 and rejected.empty and accepted.link_status.item() == "original"


def test_a_never_shown_host_is_refused_even_in_a_file_without_the_citation_columns():
    header = ",".join(lev.COLUMNS) + "\n"
    line = "a,2025-02-15,exact,T,statistic-report,d,Washington Post,https://www.amren.com/x\n"
    _, rejected = lev.validate_events((header + line).encode(), "u.csv")
    assert rejected.field.tolist() == ["source_url"] and "www.amren.com" in rejected.reason.item()
    rheader = ",".join(rf.COLUMNS) + "\n"
    rline = "2025-02-01,2025-02-13,ice_arrests_per_day,600,arrests/day,WaPo,https://www.amren.com/x,primary news,n\n"
    with pytest.raises(ParseError, match=r"row 2 field 'url'.*www.amren.com"):
        rf.load_reported(_tmp(rheader + rline))


def test_legend_says_an_official_link_is_the_original():
    official = cev.events_legend_table(EV[EV.source_url.str.contains("ice.gov")].head(1))
    assert official.link.item() == "original"
