"""Headline cards: each says exactly what period and scope it covers, compares like with like, gives the real
release date or says there is none, and shows its staleness.

The first tests reproduce what issue 13 found on the page: "ICE arrests per day, last 30 days of data: 1,584"
was July 2026's monthly total / 31 with an invented window "2026-07-02 to 2026-07-31"; the book-ins card blended
19 days of one month with 11 of the next; the removals card did not say which fiscal year; the encounters card
showed a southwest-border-only figure without saying so and a "release" that was only the end of the data month.
"""
import datetime as dt

import pandas as pd
import pytest

from analysis.overview import HEADLINES, PUBLISHED_RELEASES, headlines
from loaders import data as cdata
from tests import bundled

SNAP = bundled.snapshot()
TODAY = dt.date(2026, 12, 1)


def small_snapshot(rows: list[dict], catalogue: list[dict], sources: dict) -> cdata.Snapshot:
    obs = pd.DataFrame([{"key": "", "flag": "", "file": "f.csv", "release": None, **r} for r in rows])
    for c in ("date", "end", "release"):
        obs[c] = pd.to_datetime(obs[c])
    obs["value"] = obs["value"].astype("float64")
    cat = pd.DataFrame(catalogue).set_index("id")
    by_series = {sid: g.reset_index(drop=True) for sid, g in obs.groupby("series")}
    return cdata.Snapshot(obs, cat, {"sources": sources}, pd.DataFrame(), {}, by_series)


def cat(sid, source, unit, measure="flow", frequency="monthly"):
    return {"id": sid, "title": f"title of {sid}", "unit": unit, "definition": "d", "source": source,
            "measure": measure, "frequency": frequency}


ARRESTS = "ddp_arrests_aggregates.monthly_national_chart_data"
KUT_SOURCE = {"ddp_arrests_aggregates": {"publisher": "DDP", "cadence": "fixed files; replaced by the record-level source",
                                         "cadence_days": 3650}}


def by_label(hs, start):
    hit = [h for h in hs if h.label.startswith(start)]
    assert len(hit) == 1, [h.label for h in hs]
    return hit[0]


def test_monthly_arrests_card_names_the_month_not_an_invented_30_day_window():
    snap = small_snapshot(
        [{"series": ARRESTS, "date": "2026-06-01", "end": "2026-06-30", "value": 42588},
         {"series": ARRESTS, "date": "2026-07-01", "end": "2026-07-31", "value": 49091}],
        [cat(ARRESTS, "ddp_arrests_aggregates", "arrests")], KUT_SOURCE)
    h = by_label(headlines(snap, TODAY), "ICE arrests per day")
    assert "last 30 days" not in h.label and " to " not in h.period  # the wrong labels of the issue
    assert h.statement == "July 2026 average: 1,584 arrests a day"
    assert h.value == pytest.approx(49091 / 31) and h.period == "July 2026"
    assert h.previous == pytest.approx(42588 / 30) and h.comparison == "vs June 2026: 1,420 a day (previous full month)"
    # A fixed file is never "on time": the card says so and how old the data are.
    assert h.fixed_file and h.age_days == (TODAY - dt.date(2026, 7, 31)).days and h.overdue_days is None
    assert h.release is None and "no publication date" in h.release_note


def test_book_ins_card_never_blends_a_partial_month():
    sid = "trac_detention.book_ins_ice"
    snap = small_snapshot(
        [{"series": sid, "date": "2026-05-01", "end": "2026-05-31", "value": 30887, "release": "2026-07-11"},
         {"series": sid, "date": "2026-06-01", "end": "2026-06-30", "value": 39563, "release": "2026-07-11"},
         {"series": sid, "date": "2026-07-01", "end": "2026-07-11", "value": 16213, "release": "2026-07-11",
          "flag": "partial"}],
        [cat(sid, "trac_detention", "book-ins")], {"trac_detention": {"publisher": "TRAC", "cadence_days": 21}})
    h = by_label(headlines(snap, dt.date(2026, 7, 20)), "ICE book-ins per day")
    assert h.value == pytest.approx(39563 / 30)  # June alone, not 19 days of June's mean and 11 of July
    assert h.statement.startswith("June 2026 average: 1,319 book-ins a day") and "July 2026 is partial" in h.statement
    assert h.comparison == "vs May 2026: 996 a day (previous full month)"
    # TRAC's date is its snapshot date, not a publication date; staleness counts from the newest data (07-11).
    assert h.release is None and h.overdue_days is None and h.age_days == 20
    late = by_label(headlines(snap, dt.date(2026, 12, 1)), "ICE book-ins per day")
    assert late.overdue_days == (dt.date(2026, 12, 1) - dt.date(2026, 7, 11)).days - 21


def test_removals_card_names_the_fiscal_year_and_compares_the_same_point_of_the_previous_year():
    sid = "ice_detention_stats.removals_fytd"
    rows = [{"series": sid, "key": "FY2025", "date": "2025-04-05", "end": "2025-04-05", "value": 100000, "release": "2025-04-10"},
            {"series": sid, "key": "FY2026", "date": "2026-04-04", "end": "2026-04-04", "value": 234236, "release": "2026-04-09"}]
    sources = {"ice_detention_stats": {"publisher": "ICE", "cadence_days": 21}}
    snap = small_snapshot(rows, [cat(sid, "ice_detention_stats", "removals", "level", "release")], sources)
    h = by_label(headlines(snap, dt.date(2026, 4, 20)), "ICE removals")
    assert h.statement == "FY2026 to 2026-04-04: 234,236 removals (1,259 a day over 186 days)"
    assert h.comparison == "vs FY2025 to 2025-04-05: 100,000 (same point of the previous fiscal year)"
    assert h.release == dt.date(2026, 4, 9) and h.release_note == "released 2026-04-09"
    assert h.previous_release == dt.date(2025, 4, 10)
    far = small_snapshot([dict(rows[0], date="2025-01-10", end="2025-01-10"), rows[1]],
                         [cat(sid, "ice_detention_stats", "removals", "level", "release")], sources)
    h2 = by_label(headlines(far, dt.date(2026, 4, 20)), "ICE removals")
    assert h2.previous is None and h2.change is None and "no FY2025 release from the same point" in h2.comparison


def test_encounters_card_says_southwest_border_only_and_invents_no_release():
    sid = "cbp_encounters.swb_total"
    snap = small_snapshot(
        [{"series": sid, "date": "2024-08-01", "end": "2024-08-31", "value": 107473, "release": "2025-08-31"},
         {"series": sid, "date": "2025-08-01", "end": "2025-08-31", "value": 9740, "release": "2025-08-31"}],
        [cat(sid, "cbp_encounters", "encounters")], {"cbp_encounters": {"publisher": "CBP", "cadence_days": 45}})
    h = by_label(headlines(snap, TODAY), "CBP encounters")
    assert h.statement == "August 2025, southwest land border only, all of CBP: 9,740 encounters"
    assert h.comparison == "vs August 2024: 107,473 (same month a year earlier)"
    assert h.release is None and "no publication date recorded" in h.release_note  # 2025-08-31 is a data month end
    assert h.overdue_days == (TODAY - dt.date(2025, 8, 31)).days - 45


def test_headcount_compares_with_the_previous_snapshot():
    sid = "trac_detention.detained_total"
    snap = small_snapshot(
        [{"series": sid, "date": "2026-04-04", "end": "2026-04-04", "value": 60311, "release": "2026-04-04"},
         {"series": sid, "date": "2026-07-11", "end": "2026-07-11", "value": 65765, "release": "2026-07-11"}],
        [cat(sid, "trac_detention", "people", "level", "biweekly")],
        {"trac_detention": {"publisher": "TRAC", "cadence_days": 21}})
    h = by_label(headlines(snap, dt.date(2026, 7, 15)), "People in ICE detention")
    assert h.statement == "Headcount on 2026-07-11: 65,765 people" and h.change == 5454
    assert h.comparison == "vs 60,311 on 2026-04-04 (previous snapshot)" and h.overdue_days is None


def test_the_declared_measure_decides_between_a_monthly_average_per_day_and_a_snapshot():
    """Daily arrest counts (a flow) are summed to full months and shown per day; the same rows declared a level
    would be a headcount on the last date, never summed. The card asks the catalogue, not the series id."""
    sid = "ddp_records.arrests_daily"
    days = pd.date_range("2026-06-01", "2026-07-31", freq="D")
    rows = [{"series": sid, "date": f"{d:%Y-%m-%d}", "end": f"{d:%Y-%m-%d}", "value": 40 if d.month == 6 else 62}
            for d in days]
    src = {"ddp_records": {"publisher": "DDP", "cadence_days": 90}}
    flow = by_label(headlines(small_snapshot(rows, [cat(sid, "ddp_records", "arrests", "flow", "daily")], src), TODAY),
                    "ICE arrests per day")
    assert flow.statement == "July 2026 average: 62 arrests a day" and flow.value == pytest.approx(62)
    assert flow.comparison == "vs June 2026: 40 a day (previous full month)" and flow.unit == "arrests per day"
    level = by_label(headlines(small_snapshot(rows, [cat(sid, "ddp_records", "arrests", "level", "daily")], src), TODAY),
                     "ICE arrests per day")
    assert level.value == 62 and level.period == "on 2026-07-31" and level.unit == "arrests"  # not summed, not per day


# ---------------------------------------------------------------- on the committed snapshot

def test_committed_snapshot_cards_say_period_scope_comparison_and_release():
    hs = {h.label: h for h in headlines(SNAP, TODAY)}
    assert len(hs) >= 4
    for h in hs.values():
        assert h.statement and h.scope and h.comparison and h.release_note and h.age_days is not None
        assert "last 30 days" not in h.label + h.statement
        if h.source not in PUBLISHED_RELEASES:
            assert h.release is None, f"{h.label}: {h.source} records no publication date"
        assert h.fixed_file or h.overdue_days, f"{h.label} is months old on {TODAY} but not flagged"
    arrests = hs.get("ICE arrests per day (monthly average)")
    if arrests is not None and arrests.series_id == ARRESTS:
        rows = cdata.series_rows(SNAP, ARRESTS)
        last = rows.iloc[-1]
        assert arrests.statement.startswith(f"{last['date']:%B %Y} average: {last['value'] / last['end'].day:,.0f} arrests a day")
    removals = hs["ICE removals, fiscal year to date"]
    assert removals.statement.startswith("FY20") and removals.title.endswith(f"({removals.period.split()[0]})")
    enc = hs["CBP encounters, latest full month"]
    assert enc.scope in enc.statement


def test_headlines_pick_the_freshest_series_and_say_which():
    hs = {h.label: h for h in headlines(SNAP, today=dt.date(2026, 11, 29))}
    det = hs["People in ICE detention"]
    cands = [c for c, _ in HEADLINES[0][2] if c in SNAP.by_series]
    freshest = max(cands, key=lambda c: SNAP.by_series[c]["end"].max())
    assert det.series_id == freshest
    rows = cdata.series_rows(SNAP, freshest)
    assert det.value == rows["value"].iloc[-1] and det.data_date == rows["end"].iloc[-1].date()
    assert det.change == pytest.approx(det.value - rows["value"].iloc[-2])
    assert det.overdue_days and det.overdue_days > 0  # November 2026 is long after the July snapshot


def test_no_overdue_badge_when_fresh():
    hs = headlines(SNAP, today=dt.date(2026, 7, 15))
    det = next(h for h in hs if h.label == "People in ICE detention")
    assert det.overdue_days is None


def test_a_card_behind_a_known_release_says_so_and_counts_staleness_from_it():
    """ICE's removals card comes from the 2026-04-09 workbook, but ICE is known to have published on 2026-07-20
    (data/publication_status.csv; not held here). The card's publication line says "last release 2026-07-20";
    its badge once said "overdue by 215 days", counted from the held release: two staleness statements from two
    different releases. Now the badge names the newer release and the overdue days count from it."""
    import datetime as dt

    from analysis.status import source_status
    from loaders.data import load_snapshot
    from tests.conftest import ROOT
    snap = load_snapshot(ROOT / "data")
    today = dt.date(2026, 12, 1)
    card = next(h for h in headlines(snap, today) if h.source == "ice_detention_stats")
    st = source_status(snap, "ice_detention_stats", today)
    assert card.release == st.last_release_held < st.last_release_known == card.newer_release
    cadence = int(snap.source_entry("ice_detention_stats")["cadence_days"])
    assert card.overdue_days == (today - card.newer_release).days - cadence
    # A source whose latest known release is held gets no such badge (CBP's newest file is in the snapshot).
    assert all(h.newer_release is None for h in headlines(snap, today) if h.source != "ice_detention_stats")


def test_two_readers_cards_built_at_once_keep_their_own_language(monkeypatch):
    """The page's sessions run in threads. While a Spanish reader's cards are being built, an English
    reader's cards are built too; the Spanish cards must stay Spanish (the language was once a module dict,
    reset to English by the other call)."""
    import datetime as dt
    import threading

    from analysis import status
    from loaders.data import load_snapshot
    from tests.conftest import ROOT
    snap = load_snapshot(ROOT / "data")
    real = status.publication_status
    paused, resume = threading.Event(), threading.Event()

    def slow(snap_, today):  # the Spanish call waits here, mid-build, until the English call has finished
        if threading.current_thread().name == "es":
            paused.set()
            resume.wait(30)
        return real(snap_, today)

    monkeypatch.setattr(status, "publication_status", slow)
    out = {}
    es = threading.Thread(target=lambda: out.update(es=headlines(snap, dt.date(2026, 12, 1), "es", ".")), name="es")
    es.start()
    assert paused.wait(30)
    out["en"] = headlines(snap, dt.date(2026, 12, 1), "en")
    resume.set()
    es.join(60)
    english = {h.label for h in out["en"]}
    assert english and not english & {h.label for h in out["es"]}
    assert all("." in h.statement or "," not in h.statement for h in out["es"])  # Spanish thousands marks kept


def test_cbp_card_shows_the_latest_month_held_nationwide_summed_from_the_state_files():
    """The state files carry no nationwide total, so the card once fell back to the southwest border's August
    2025 while the snapshot held nationwide counts to November 2025. The card now sums the states month by
    month, says so in its scope, and gives that month and its data date."""
    from tests.conftest import ROOT
    snap = cdata.load_snapshot(ROOT / "data")
    enc = next(h for h in headlines(snap, TODAY) if h.label == "CBP encounters, latest full month")
    by_state = snap.by_series["cbp_encounters.nationwide_by_state"]
    newest = by_state["end"].max()
    held = max(snap.by_series[c]["end"].max() for c in ("cbp_encounters.swb_total", "cbp_encounters.nationwide_by_state"))
    assert enc.data_date == held.date() == newest.date()
    month = by_state[by_state["end"] == newest]
    assert month["release"].nunique() == 1 and enc.value == month["value"].sum()
    assert enc.scope.startswith("nationwide") and "sum of CBP's counts by state" in enc.scope
    assert enc.scope in enc.statement and f"{newest:%B %Y}" in enc.statement
    assert enc.age_days == (TODAY - newest.date()).days
    es = next(h for h in headlines(snap, TODAY, "es") if h.series_id == enc.series_id)
    assert "todo el país" in es.scope and "por estado" in es.scope


def test_kut_chart_data_is_labelled_as_what_it_is():
    """KUT News's chart data is its count of DDP's arrest records; its own SOURCES note leaves part unverified,
    so the card may not call it ICE ERO's de-duplicated national arrests."""
    for lang, says in (("en", ("KUT News", "DDP", "headline says arrests with detention")),
                       ("es", ("KUT News", "DDP", "arrestos con detención"))):
        snap = small_snapshot([dict(series=ARRESTS, date="2026-06-01", end="2026-06-30", value=30000)],
                              [cat(ARRESTS, "ddp_arrests_aggregates", "arrests")], KUT_SOURCE)
        card = next(h for h in headlines(snap, TODAY, lang) if h.series_id == ARRESTS)
        assert all(w in card.scope for w in says) and "ERO" not in card.scope
