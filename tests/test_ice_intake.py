"""ICE's next odd file (issue 27): range and identity rules per series, a proven label swap corrected, a known
wrong figure kept out of the latest view, stub columns past a table's date, and the FY-overall ADP check.

Built workbooks (tests/ice_workbook_factory.py, the real layout) run everywhere."""
from __future__ import annotations

import datetime as dt
import io
from dataclasses import replace

import pandas as pd
import pytest
from openpyxl import load_workbook

from loaders import data as cdata
from loaders import ice_detention_stats as ice
from loaders import pipeline, series_rules, tidy
from loaders.base import Series
from tests.ice_workbook_factory import Release, build

S = "ice_detention_stats."
D = dt.date
SRC = ice.SOURCE


@pytest.fixture
def rel() -> Release:
    return Release("FY26_detentionStats_04092026.xlsx", 2026, D(2026, 4, 2), D(2026, 4, 4))


def saved(wb) -> bytes:
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def swapped_bond(content: bytes, *, share_proves_it: bool) -> bytes:
    """ICE's 2026-04-09 bond sheet: the two count rows' labels swapped; with ``share_proves_it`` the share row
    printed as the swapped ratio ("posted" / "total" = 33.40), as ICE printed it."""
    wb = load_workbook(io.BytesIO(content))
    b = wb["Monthly Bond Statistics"]
    b["A4"], b["A5"] = b["A5"].value, b["A4"].value
    if share_proves_it:
        for c in range(2, 15):
            b.cell(6, c).value = b.cell(4, c).value / b.cell(5, c).value  # printed "posted" / printed "total"
    return saved(wb)


def parsed(content: bytes, name: str):
    p = pipeline.parse_file(SRC, content, name)
    return p.obs, p.tables


def at(obs, series, date, key=""):
    r = obs[(obs.series == S + series) & (obs.key == key) & (obs.date == date)]
    assert len(r) == 1, (series, date, r)
    return r.iloc[0]


# ---------------------------------------------------------------- rules declared in the catalogue

def test_every_rule_names_a_catalogued_series_and_the_bond_rules_are_declared():
    ids = {s.id for s in ice.SERIES}
    for s in ice.SERIES:
        assert s.part_of in ids | {""}
        assert s.share_of == "" or {x.strip() for x in s.share_of.split("/")} <= ids
    by = {s.id: s for s in ice.SERIES}
    assert by[S + "bond_posted_share"].bounds == "fraction"
    assert by[S + "bond_posted_share"].share_of == f"{S}bond_book_outs_bond_posted / {S}bond_book_outs_total"
    assert by[S + "bond_book_outs_bond_posted"].part_of == S + "bond_book_outs_total"
    assert by[S + "detained_total"].bounds == by[S + "book_ins_ice"].bounds == "count"
    assert by[S + "adp_total"].bounds == ""  # an average of people is no count
    assert {"bounds", "part_of", "share_of"} <= set(pipeline.catalogue_frame().columns)
    with pytest.raises(ValueError, match="bounds must be"):
        Series(S + "x", "x", "adp", "ICE", "people", "monthly", "x", ice.ID, measure="level", bounds="percent")


def _rows(*rows) -> pd.DataFrame:
    return tidy.frame([dict(zip(("series", "key", "date", "value"), r), release="2026-04-09", file="f.xlsx")
                       for r in rows])


def test_each_rule_flags_the_row_that_breaks_it_with_the_reason():
    obs = _rows((S + "bond_book_outs_total", "", "2025-10-01", 1124), (S + "bond_book_outs_bond_posted", "", "2025-10-01", 37537),
                (S + "bond_posted_share", "", "2025-10-01", 33.4), (S + "bond_book_outs_total", "", "2025-11-01", 30000),
                (S + "bond_book_outs_bond_posted", "", "2025-11-01", 900), (S + "bond_posted_share", "", "2025-11-01", 0.5),
                (S + "detained_ice", "", "2026-04-04", 12.5), (S + "book_ins_cbp", "", "2026-03-01", -3),
                (S + "adp_ice", "", "2026-03-01", 12.5))
    f = pd.DataFrame(series_rules.check(obs, ice.SERIES))
    got = sorted(zip(f.series.str.removeprefix(S), f.date, f.message))
    assert got == [
        ("bond_book_outs_bond_posted", "2025-10-01",
         "37,537 is above its total 1,124 (ice_detention_stats.bond_book_outs_total, 1,124)"),
        ("bond_posted_share", "2025-10-01", "33.4 is a fraction outside 0-1 (its series declares a fraction)"),
        ("bond_posted_share", "2025-11-01", "0.5 is not the ratio of its parts: 900 / 30,000 = 0.0300"),
        ("book_ins_cbp", "2026-03-01", "-3 is not a whole count of at least 0 (its series declares a count)"),
        ("detained_ice", "2026-04-04", "12.5 is not a whole count of at least 0 (its series declares a count)"),
    ]  # 33.4 = 37,537 / 1,124 is its parts' ratio: only the range says it is no fraction; ADP 12.5 is fine
    # ice_checks writes them as out-of-range findings, and the pipeline marks the rows (a negative value never
    # gets this far in a rebuild: validation refuses it; checked here as given)
    checked, flags = pipeline.apply_checks(SRC, obs, validated=True)
    assert set(flags[flags.flag == "out-of-range"].series.str.removeprefix(S)) == {
        "bond_book_outs_bond_posted", "bond_posted_share", "book_ins_cbp", "detained_ice"}
    assert checked[checked.flag.str.contains("out-of-range")].shape[0] == 5


# ---------------------------------------------------------------- the 2026-04-09 bond swap

def test_a_swap_the_file_proves_is_corrected_with_a_finding_naming_the_printed_values(rel):
    obs, tables = parsed(swapped_bond(build(rel), share_proves_it=True), rel.name)
    # printed: "Total" 1,060 and "with Bond Posted" 20,600 for October 2025 (the factory's true 20,600 / 1,060)
    tot, posted, share = (at(obs, s, "2025-10-01") for s in ("bond_book_outs_total", "bond_book_outs_bond_posted",
                                                               "bond_posted_share"))
    assert (tot.value, posted.value) == (20600, 1060)
    assert share.value == pytest.approx(1060 / 20600)
    assert {tot.flag, posted.flag, share.flag} == {"corrected"}
    f = tables["findings"]
    f = f[(f.flag == "corrected") & (f.date == "2025-10-01")]
    assert sorted(f.series.str.removeprefix(S)) == ["bond_book_outs_bond_posted", "bond_book_outs_total",
                                                    "bond_posted_share"]
    assert f.message.iloc[0] == ("2025-10: printed 'Total' 1,060 and 'with Bond Posted' 20,600, share 19.434 = "
                                 "20,600 / 1,060: the two count rows' labels are swapped (the share row proves it); "
                                 "corrected to total 20,600, bond posted 1,060, share 0.0515")
    # nothing left for the rules to find: the corrected figures keep them
    _, flags = pipeline.apply_checks(SRC, obs)
    assert not (flags.flag == "out-of-range").any()


def test_an_unproven_swap_is_kept_as_printed_flagged_and_never_wins_the_latest_view(rel):
    feb = replace(rel, name="FY26_detentionStats_02122026.xlsx", iids=D(2026, 2, 5), through=D(2026, 2, 7))
    good, _ = parsed(build(feb), feb.name)
    bad, tables = parsed(swapped_bond(build(rel), share_proves_it=False), rel.name)
    assert tables["findings"][tables["findings"].flag == "corrected"].empty
    oct_bad = at(bad, "bond_book_outs_total", "2025-10-01")
    assert oct_bad.value == 1060 and "mislabelled" in oct_bad.flag  # as printed
    obs, flags = pipeline.apply_checks(SRC, pd.concat([good, bad], ignore_index=True))
    assert "out-of-range" in at(obs[obs.release == "2026-04-09"], "bond_book_outs_bond_posted", "2025-10-01").flag
    snap = _snapshot(obs)
    latest = cdata.series_rows(snap, S + "bond_book_outs_total").set_index("date")
    row = latest.loc[pd.Timestamp("2025-10-01")]
    # the earlier release's good figure, with the note that a later one is known to be wrong
    assert row.value == at(good, "bond_book_outs_total", "2025-10-01").value != oct_bad.value
    assert row.release == pd.Timestamp("2026-02-12") and "later-known-wrong" in row.flag.split(";")
    # a month only the wrong release holds is shown, flagged (nothing better is known)
    apr = latest.loc[pd.Timestamp("2026-04-01")]
    assert apr.release == pd.Timestamp("2026-04-09") and "mislabelled" in apr.flag
    # shares: none above 1 in the latest view where an earlier release holds the month
    share = cdata.series_rows(snap, S + "bond_posted_share")
    held_before = share.release == pd.Timestamp("2026-02-12")
    assert (share[held_before].value <= 1).all() and held_before.sum() >= 4
    # as published on 2026-04-10 is the same rule; on 2026-03-01 the later release did not exist
    asof = cdata.series_rows(snap, S + "bond_book_outs_total", as_of=pd.Timestamp("2026-03-01"))
    assert "later-known-wrong" not in ";".join(asof.flag)


def _snapshot(obs: pd.DataFrame) -> cdata.Snapshot:
    o = obs.copy()
    for c in ("date", "end", "release"):
        o[c] = pd.to_datetime(o[c])
    return cdata.Snapshot(o, pd.DataFrame(), {}, pd.DataFrame(),
                          by_series={s: g.reset_index(drop=True) for s, g in o.groupby("series")})


def test_known_wrong_flags_are_declared():
    assert set(tidy.FLAGS) >= tidy.KNOWN_WRONG
    assert {"later-known-wrong", "corrected", "out-of-range", "table-unread", "stub-column"} <= set(tidy.FLAGS)


# ---------------------------------------------------------------- stub columns past a table's date

def test_a_stub_column_past_the_footnote_date_is_dropped_with_a_finding():
    # ICE's December 2024 release: footnote "updated through 11/30/2024", yet a December column of 7 book-ins
    dec = Release("FY25_detentionStats12052024.xlsx", 2025, D(2024, 11, 28), D(2024, 11, 30), ice=20000, cbp=18000)
    wb = load_workbook(io.BytesIO(build(dec)))
    d = wb["Detention FY25"]
    assert d["L19"].value == "Dec" and d["I20"].value == "Total"
    d["L20"], d["L21"], d["L22"] = 7, 3, 4  # Total, CBP, ICE
    obs, tables = parsed(saved(wb), dec.name)
    bi = obs[obs.series.isin([S + "book_ins_ice", S + "book_ins_cbp", S + "book_ins_total"])]
    assert set(bi.date) == {"2024-10-01", "2024-11-01"}  # no December month ending on the release date
    assert not bi.flag.str.contains("stale-header").any() and not obs.flag.str.contains("stale-header").any()
    nov = at(obs, "book_ins_total", "2024-11-01")
    assert (nov.end, nov.flag) == ("2024-11-30", "")  # the footnote date is right: November is whole
    f = tables["findings"]
    assert f[f.flag == "stub-column"][["date", "message"]].values.tolist() == [
        ["2024-12-01", "table 'book_ins': the 2024-12 column lies past the table's data-through date 2024-11-30 "
                       "(its footnote) and was dropped (3 figures, e.g. 7)"]]
    assert not ice.check(obs).flag.eq("stale-header").any()


# ---------------------------------------------------------------- the FY2026 file: hidden leftover + ADP off by 135

def test_the_fy2026_file_with_a_hidden_leftover_is_read_and_its_fy_adp_mismatch_said():
    from tests.ice_workbook_factory import with_sheet_from
    fy26 = Release("FY26_detentionStats_02122026.xlsx", 2026, D(2026, 2, 5), D(2026, 2, 7), ice=55000, cbp=13000)
    fy20 = Release("FY20-detentionstats.xlsx", 2020, D(2020, 9, 30), D(2020, 9, 26), famu=None)
    clean, _ = parsed(build(fy26), fy26.name)
    right = at(clean, "adp_total_fytd", "2026-02-07", key="FY2026").value
    off = replace(fy26, adp_fytd=right + 135)  # ICE's printed FY Overall, 135 above what its months give
    b = with_sheet_from(build(off), build(fy20), "Footnotes", as_name="Footnotes_DEL", first=True, hidden=True)
    obs, _ = parsed(b, fy26.name)  # read, not refused over the hidden sheet
    assert at(obs, "adp_total_fytd", "2026-02-07", key="FY2026").value == pytest.approx(right + 135)
    checked, flags = pipeline.apply_checks(SRC, obs)
    f = flags[(flags.flag == "fy-adp-mismatch") & (flags.series == S + "adp_total_fytd")]
    assert len(f) == 1
    assert f.message.iloc[0].startswith(f"ICE+CBP FY Overall ADP printed {right + 135:,.2f}, but the monthly ADPs "
                                        f"weighted by the days each month covers (the last month counted 2026-02-01 "
                                        f"to 2026-02-07) give {right:,.2f}")
    assert "fy-adp-mismatch" in at(checked, "adp_total_fytd", "2026-02-07", key="FY2026").flag
