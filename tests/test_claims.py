"""Every agreement the manual (docs/sources.md, docs/using.md) and the series definitions state is a figure computed here.

Each test parses the number out of the sentence and recomputes it, so changing the text without the data (or the
data without the text) fails. Figures from the committed snapshot run everywhere; those that need ICE's workbook
footnotes are marked ``shared``.
"""
from __future__ import annotations

import re

import pandas as pd
import pytest

from loaders import data as cdata
from loaders import ohss_monthly, reported_figures, trac_detention
from tests import bundled
from tests.conftest import ROOT

SOURCES_PAGE = " ".join((ROOT / "docs" / "sources.md").read_text("utf-8").split())  # one line: sentences wrap
USING_PAGE = " ".join((ROOT / "docs" / "using.md").read_text("utf-8").split())
SNAP = bundled.snapshot()


def claim(pattern: str, text: str = SOURCES_PAGE) -> tuple[int, ...]:
    m = re.search(pattern, text)
    assert m, f"the sentence matching {pattern!r} is gone: update this test with it"
    return tuple(int(g.replace(",", "")) if re.fullmatch(r"[-+]?[\d,]+", g) else g for g in m.groups())


def rows(sid: str) -> pd.Series:
    return cdata.series_rows(SNAP, sid).set_index("date")["value"]


def test_ddp_facility_sums_against_ice_headcount():
    within, dates, over = claim(r"within 0\.5% on (\d+) of (\d+) dates, and differ by more than 1% on (\d+)")
    ice = rows("trac_detention.detained_total")
    ddp = rows("ddp_facility_daily.detained_midnight")
    both = pd.concat([ice, ddp], axis=1, keys=["ice", "ddp"], sort=True).dropna()
    gap = (both["ddp"] / both["ice"] - 1).abs()
    assert (len(both), int((gap <= 0.005).sum()), int((gap > 0.01).sum())) == (dates, within, over)


def test_dhs_rounding_against_cbp_exact_counts():
    most, within, months = claim(r"by at most (\d+) in all (\d+) of (\d+) months both cover")
    dhs = rows("ohss_monthly_tables.swb_encounters_total")
    cbp = rows("cbp_encounters.swb_total")
    both = pd.concat([dhs, cbp], axis=1, keys=["dhs", "cbp"], sort=True).dropna()
    diff = (both["dhs"] - both["cbp"]).abs()
    assert len(both) == months and int((diff <= most).sum()) == within


def test_ohss_total_against_cbp_plus_ice():
    defn = next(s.definition for s in ohss_monthly.SERIES if s.id.endswith(".book_ins_total"))
    months, median, lo, hi = claim(r"over the (\d+) months of the tables the total minus CBP minus ICE has median "
                                   r"(-?\d+) and runs from (-?\d+) to \+?(-?\d+)", defn)
    assert "exceeds" not in defn
    t, c, i = (rows(f"ohss_monthly_tables.book_ins_{k}") for k in ("total", "cbp", "ice"))
    d = (t - c - i).dropna()
    assert (len(d), d.median(), d.min(), d.max()) == (months, median, lo, hi)


def test_daily_posts_average_for_the_last_week_of_january():
    (avg,) = claim(r"ICE's own daily posts average about (\d+) a day for 25-31 January")
    full = reported_figures.load_reported()
    days = full[(full.metric == "ice_arrests") & (full.period_start == full.period_end)
                & full.period_start.between("2025-01-25", "2025-01-31")]
    assert len(days) == 7 and round(days["value"].mean()) == avg


@pytest.mark.shared
def test_trac_dates_headcounts_by_ice_docket_date(shared_data):
    """TRAC's snapshot date against the "National Docket data are a snapshot as of" date of ICE's own workbook,
    for every workbook here whose headcount TRAC also has (matched by the headcount itself)."""
    from python_calamine import CalamineWorkbook
    same, matched, lo, hi = claim(r"in (\d+) of the (\d+) ICE workbooks held here whose headcount TRAC also has "
                                  r"\(the other \d+ differ by (\d+) to (\d+) days\)")
    ice = SNAP.by_series["ice_detention_stats.detained_total"]
    trac = SNAP.by_series["trac_detention.detained_total"]
    gaps = []
    for f in sorted(shared_data.glob("ice-detention-stats/original_xlsx*/*.xlsx")):
        wb = CalamineWorkbook.from_path(str(f))
        text = " ".join(str(c) for s in wb.sheet_names if "ootnote" in s
                        for r in wb.get_sheet_by_name(s).to_python() for c in r)
        m = re.search(r"National Docket data are a snapshot as of\s+(\d\d/\d\d/\d{4})", text)
        value = ice.loc[ice["file"] == f.name, "value"]
        hit = trac[trac["value"].isin(value)]
        if m and len(value) and len(hit):
            gaps.append(abs((hit["date"].iloc[0] - pd.to_datetime(m.group(1), format="%m/%d/%Y")).days))
    off = [g for g in gaps if g]
    assert (len(gaps), gaps.count(0)) == (matched, same)
    assert (min(off), max(off)) == (lo, hi)
    assert "a few days after" not in trac_detention._TRAC_DEF and "National Docket date" in trac_detention._TRAC_DEF


def test_the_docs_no_longer_state_the_disproved_claims():
    for page in (SOURCES_PAGE, USING_PAGE, " ".join((ROOT / "README.md").read_text("utf-8").split())):
        assert "a few days after ICE's data pull" not in page
        assert "within about 0.5%" not in page


def test_facility_sums_against_the_national_figure():
    """docs/sources.md: facility FYTD ADPs sum to a share of ICE's national FYTD ADP, release by release: inside
    the checks' band (``ice_checks.FACILITY_RATIO``) short of it or a little over, outside it flagged."""
    from loaders.ice_checks import FACILITY_RATIO
    (lo, hi, short, held, over_max, over_n, outside, band_lo, band_hi, low, low_day, high, high_day, over_day,
     over) = claim(
        r"fall (\d+\.\d)-(\d+\.\d)% short of ICE's national figure in (\d+) of the (\d+) releases held \(the list "
        r"leaves out hold rooms, hospitals and empty sites\) and run at most (\d+\.\d)% over it in (\d+); the other "
        r"(\d+) fall outside (\d+)-(\d+)% and are flagged \(facility-mismatch\), from (\d+)% of it \((\S+), whose "
        r"Level columns do not add up to the facilities' populations\) to (\d+)% \((\S+), whose facility list carries "
        r"a stale IIDS date of \S+\); in the release of (\S+) they run (\d+\.\d)% over it")
    fac = SNAP.by_series["ice_detention_stats.facility_adp_fytd"].groupby("release")["value"].sum()
    nat = SNAP.by_series["ice_detention_stats.adp_total_fytd"].groupby("release")["value"].first()
    ratio = (fac / nat).dropna()
    assert (round(FACILITY_RATIO[0] * 100), round(FACILITY_RATIO[1] * 100)) == (band_lo, band_hi)
    inside = ratio[(ratio >= FACILITY_RATIO[0]) & (ratio <= FACILITY_RATIO[1])]
    out = ratio.drop(inside.index)
    below, above = inside[inside < 1], inside[inside >= 1]
    assert (len(below), len(ratio), len(above), len(out)) == (short, held, over_n, outside)
    assert (f"{(1 - below.max()) * 100:.1f}", f"{(1 - below.min()) * 100:.1f}") == (lo, hi)
    assert f"{(above.max() - 1) * 100:.1f}" == over_max
    day = {d.date().isoformat(): v for d, v in out.items()}
    assert (round(out.min() * 100), round(out.max() * 100)) == (low, high)
    assert day[low_day] == out.min() and day[high_day] == out.max()
    assert f"{(day[over_day] - 1) * 100:.1f}" == over


def test_ddp_counts_against_ice_headcount():
    """docs/sources.md: DDP's midnight and 24-hour counts against ICE's headcount on the dates both cover."""
    n, below, lo, hi, median, above = claim(
        r"on the (\d+) dates both cover, DDP's midnight count is below ICE's headcount on (\d+) \(the gap runs from "
        r"([\d,]+) people above it to ([\d,]+) below, median ([\d,]+) below\), and its 24-hour count \(everyone held "
        r"at any time that day\) above it on (\d+)")
    lo = -lo  # "above it": a negative gap (ICE's headcount minus DDP's count)
    ice = SNAP.by_series["ice_detention_stats.detained_total"]
    ice = ice[ice["key"] == ""].drop_duplicates("date").set_index("date")["value"]

    def daily(sid):
        d = SNAP.by_series[sid]
        return d[d["key"] == ""].drop_duplicates("date", keep="last").set_index("date")["value"]

    mid = pd.concat([ice, daily("ddp_facility_daily.detained_midnight")], axis=1, keys=["ice", "ddp"], sort=True).dropna()
    day = pd.concat([ice, daily("ddp_facility_daily.detained_24h")], axis=1, keys=["ice", "ddp"], sort=True).dropna()
    gap = mid["ice"] - mid["ddp"]
    assert len(mid) == n and (gap > 0).sum() == below
    assert (round(gap.min()), round(gap.max()), round(gap.median())) == (lo, hi, median)
    assert (day["ddp"] > day["ice"]).sum() == above


def test_the_headline_quoted_on_the_using_page_is_what_the_card_says():
    """docs/using.md quotes a headline card's sentence; the bundled snapshot's card says exactly that."""
    import datetime as dt

    from analysis import overview
    (quoted,) = claim(r'\("(\w+ \d{4} average: [\d,]+ arrests a day)"\)', USING_PAGE)
    assert quoted in {h.statement for h in overview.headlines(SNAP, dt.date.today())}

