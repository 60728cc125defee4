"""The release ledger, what's new, publication status, blackouts and the continuity view.

On the committed snapshot (``data/``, the real releases) and on small built snapshots: a source that stops
publishing, and one that revises earlier months.
"""
import csv
import datetime as dt
import io
import json
import os
import re

import pandas as pd
import pytest

from analysis import status
from analysis.view import View
from figures import blackouts, continuity
from loaders import data as cdata
from loaders import ledger
from loaders.__main__ import main as cli
from tests.built_snapshot import build_snapshot
from tests.conftest import ROOT, open_trend_panels
from views.compose import render

TODAY = dt.date(2026, 12, 1)


@pytest.fixture(scope="module")
def snap():
    return cdata.load_snapshot(ROOT / "data")


# ---------------------------------------------------------------- the ledger on the real releases

def test_every_ice_release_is_in_the_ledger_once(snap):
    rel = pd.read_csv(ROOT / "data/snapshot/tables/ice_detention_stats.releases.csv", dtype=str)
    lg = ledger.ledger(snap, "ice_detention_stats")
    assert sorted(lg["release"].map(str)) == sorted(rel["release_date"])
    by_release = dict(zip(lg["release"].map(str), lg["files"]))
    for r in rel.itertuples():
        assert r.file in by_release[r.release_date].split("; ")


@pytest.mark.parametrize("release,detained,ice,cbp,removals", [
    # The figures ice-detention-stats/SOURCES.md reports from reading each workbook by hand.
    ("2025-11-20", 65135, 52510, 12625, 56392),
    ("2026-04-09", 60311, 51428, 8883, 234236),
])
def test_key_figures_match_the_workbooks(snap, release, detained, ice, cbp, removals):
    kf = ledger.key_figures(snap, "ice_detention_stats")
    row = kf[kf["release"] == dt.date.fromisoformat(release)].set_index("figure")["value"]
    assert row["people detained"] == detained
    assert row["detained, arrested by ICE"] == ice
    assert row["detained, arrested by CBP"] == cbp
    assert row["removals, fiscal year to date"] == removals


def test_changes_compare_with_the_previous_release_and_never_across_fiscal_years(snap):
    kf = ledger.key_figures(snap, "ice_detention_stats")
    last = kf[kf["release"] == dt.date(2026, 4, 9)].set_index("figure")
    assert last.loc["people detained", "previous_release"] == dt.date(2026, 2, 12)
    assert last.loc["people detained", "change"] == 60311 - 68289
    # The first FY2026 release's year-to-date removals are not compared with FY2025's.
    first = kf[(kf["release"] == dt.date(2025, 11, 20)) & (kf["figure"] == "removals, fiscal year to date")].iloc[0]
    assert first["key"] == "FY2026" and pd.isna(first["change"])


def test_ledger_lists_revisions_and_completed_partial_months(snap):
    lg = ledger.ledger(snap, "ice_detention_stats").set_index("release")
    text = lg.loc[dt.date(2026, 4, 9), "revisions"]
    assert re.search(r"\d+ earlier values revised in \d+ series", text) and "partial periods completed" in text
    # Checked independently: December 2025 book-ins after ICE arrests, 37,840 in the release of 12 February,
    # 37,828 on 9 April.
    rev = ledger.revisions(snap, "ice_detention_stats")
    hit = rev[(rev["series"] == "ice_detention_stats.book_ins_ice") & (rev["date"] == "2025-12-01")
              & (rev["release"] == "2026-04-09")]
    assert hit[["previous", "value", "previous_release"]].values.tolist() == [[37840.0, 37828.0, "2026-02-12"]]
    assert not hit["completed"].iloc[0]


def test_every_versioned_source_has_a_ledger(snap):
    lg = ledger.ledger(snap)
    assert set(lg["source"]) == {"ice_detention_stats", "trac_detention", "ddp_facility_daily", "cbp_encounters",
                                 "ohss_monthly_tables", "ohss_khsm", "facility_registry"}
    # No release holds data beyond its own date (a release date read from the wrong place would).
    assert (lg["data_through"] <= lg["release"]).all()
    assert lg["data_through_by_table"].str.len().gt(0).all()


# ---------------------------------------------------------------- what's new: every number checked

DATE_WORDS = re.compile(r"\b\d{1,2} (?:%s) \d{4}\b|\b(?:%s) \d{4}\b|fiscal year \d{4}" % (
    "|".join(ledger.MONTHS), "|".join(ledger.MONTHS)))


def _published(snap, series, key, date, release):
    """The value as the release printed it, read straight from the observation rows."""
    o = snap.obs
    hit = o[(o["series"] == series) & (o["date"] == date) & (o["release"] == release)]
    if key != "*":
        hit = hit[hit["key"] == key]
        assert len(hit) == 1, (series, key, date, release)
        return float(hit["value"].iloc[0])
    assert len(hit) > 1
    return float(hit["value"].sum())


def test_every_number_in_every_sentence_is_in_the_snapshot(snap):
    allnew = ledger.whats_new_all(snap)
    assert {"ice_detention_stats", "trac_detention", "cbp_encounters", "ohss_monthly_tables"} <= set(allnew)
    checked = 0
    for src, sentences in allnew.items():
        latest = ledger.releases_of(snap, src)[-1]
        for s in sentences:
            assert s.release == latest
            for f in s.facts:
                v = _published(snap, f.series, f.key, f.date, f.release)
                if f.kind == "change":
                    v -= _published(snap, f.series, f.key, f.other_date, f.other_release)
                assert f.number == v, (s.text, f)
                checked += 1
            # Every number written in the sentence is one of its checked facts (dates aside).
            numbers = ledger.NUMBER.findall(DATE_WORDS.sub("", s.text))
            allowed = {f"{abs(f.number):,.0f}" for f in s.facts}
            assert numbers and set(numbers) <= allowed, (s.text, numbers, allowed)
    assert checked > 15


def test_the_ice_sentence_names_its_figures_dates_and_release(snap):
    first = ledger.whats_new(snap, "ice_detention_stats")[0].text
    hc = snap.obs[(snap.obs["series"] == "ice_detention_stats.detained_total")
                  & (snap.obs["release"] == "2026-04-09")]["end"].iloc[0]
    assert first.startswith(f"ICE held 60,311 people in detention on {ledger.day(hc)}, 7,978 fewer than on ")
    assert first.endswith("in its release of 9 April 2026.")
    cite = ledger.citation_text(snap)
    assert first in cite and "Source: U.S. Immigration and Customs Enforcement" in cite


def test_book_ins_are_never_called_arrests(snap):
    for s in ledger.whats_new(snap, "ice_detention_stats") + ledger.whats_new(snap, "trac_detention"):
        if "booked" in s.text:
            assert "(book-ins, not arrests)" in s.text and "arrests per" not in s.text


# ---------------------------------------------------------------- publication status

def test_status_of_each_source_on_the_real_files(snap):
    st = {s.source: s for s in status.publication_status(snap, TODAY)}
    ice = st["ice_detention_stats"]
    assert ice.last_release_held == dt.date(2026, 4, 9) and ice.last_release_known == dt.date(2026, 7, 20)
    assert ice.status == (f"no release for {(TODAY - dt.date(2026, 7, 20)).days} days; a newer release of "
                          "2026-07-20 is known, not held")
    # Age runs from the data's own date, not the release's.
    assert ice.data_through == dt.date(2026, 4, 4) and ice.data_age_days == (TODAY - dt.date(2026, 4, 4)).days
    assert ice.newer_release == dt.date(2026, 7, 20)
    ohss = st["ohss_monthly_tables"]
    assert ohss.data_through == dt.date(2024, 8, 31) and ohss.data_age_days == (TODAY - dt.date(2024, 8, 31)).days
    # Census is a lookup table for per-capita rates: reference, never overdue.
    assert st["census"].status.startswith("reference table") and st["census"].days_overdue is None
    claim = [e for e in ice.evidence if e["kind"] == "claim"]
    assert claim and not claim[0]["verified"] and "not verified" in claim[0]["statement"]
    assert {c["series"] for c in ice.continues} >= {"trac_detention.detained_total", "ddp_facility_daily.detained_midnight"}
    trac = next(c for c in ice.continues if c["series"] == "trac_detention.detained_total")
    assert trac["data_through"] == snap.by_series["trac_detention.detained_total"]["end"].max().date()
    assert st["ohss_monthly_tables"].status == "publication stopped (reported, not verified)"
    assert st["ice_statistics_page"].status == "publication stopped" and not st["ice_statistics_page"].in_snapshot
    assert st["ddp_records"].status.startswith("no data in this snapshot")
    # Without declared evidence the words only claim what the snapshot holds.
    # CBP's last file (data through November 2025) counts from its estimated publication day, 15 December 2025.
    assert st["cbp_encounters"].status == f"no release in this snapshot for {(TODAY - dt.date(2025, 12, 15)).days} days"
    assert st["reported_figures"].status.startswith("not published on a schedule")


def test_freshness_counts_age_from_the_data_and_lateness_from_the_latest_known_release():
    today = dt.date(2026, 12, 1)
    f = status.freshness(today, dt.date(2026, 4, 4), dt.date(2026, 4, 9), 21, [dt.date(2026, 7, 20)])
    assert f.age_days == (today - dt.date(2026, 4, 4)).days and f.newer_release == dt.date(2026, 7, 20)
    assert f.overdue_days == (today - dt.date(2026, 7, 20)).days - 21
    # A declared release older than the one held is not "newer".
    assert status.freshness(today, dt.date(2026, 4, 4), dt.date(2026, 4, 9), 21, [dt.date(2026, 1, 1)]).newer_release is None
    assert status.freshness(dt.date(2026, 4, 20), dt.date(2026, 4, 4), dt.date(2026, 4, 9), 21).overdue_days is None
    ref = status.freshness(today, dt.date(2020, 1, 1), None, 400, reference=True)
    assert ref.reference and ref.overdue_days is None and ref.age_days > 2000


def test_loaders_status_uses_the_same_freshness(snap, capsys):
    assert cli(["status", "--data", str(ROOT / "data/snapshot")]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "2026-07-20" in lines["ice_detention_stats"]  # the known release not held is named
    assert "reference" in lines["census"] and "overdue" not in lines["census"]
    table = status.command_status(__import__("loaders.pipeline").pipeline.status(ROOT / "data/snapshot", TODAY),
                                  snap, TODAY).set_index("source")
    fresh = status.source_freshness(snap, "ohss_monthly_tables", TODAY)
    assert table.loc["ohss_monthly_tables", "age_days"] == fresh.age_days == (TODAY - dt.date(2024, 8, 31)).days
    assert table.loc["ice_detention_stats", "newer_release_known"] == "2026-07-20"


def test_on_time_and_late(snap):
    ddp = status.source_status(snap, "ddp_facility_daily", dt.date(2026, 4, 1))
    assert ddp.status == "on time" and ddp.days_overdue is None
    late = status.source_status(snap, "ddp_facility_daily", dt.date(2026, 10, 1))
    assert late.status == "late (25 days past its 180-day cadence)" and late.days_overdue == 25


def test_series_without_data_say_so(snap):
    pres = ledger.catalogue_presence(snap).set_index("id")
    ddp = pres[pres.index.str.startswith("ddp_records.")]
    assert len(ddp) and not ddp["in_snapshot"].any() and ddp["data"].str.startswith("no data in this snapshot").all()
    assert pres.loc["ice_detention_stats.detained_total", "in_snapshot"]


def test_every_series_in_the_snapshot_catalogue_has_rows(snap):
    """The catalogue a reader, a script or the series picker reads lists only series with rows (19 declared
    series had none: CBP's by-area file and DDP's record files are not held); the loaders still declare them."""
    from loaders import registry
    empty = [sid for sid in snap.catalogue.index if sid not in snap.by_series or snap.by_series[sid].empty]
    assert empty == []
    declared = {s.id for s in registry.catalogue()}
    assert "ddp_records.arrests_daily" in declared and "ddp_records.arrests_daily" not in snap.catalogue.index


def test_a_rebuild_catalogues_only_the_series_it_holds_rows_of(raw_dir, tmp_path):
    from loaders import pipeline
    pipeline.rebuild(raw_dir, tmp_path / "s", ["trac_detention"])
    cat = pd.read_csv(tmp_path / "s" / "snapshot" / "series.csv", dtype=str)
    obs = pd.read_csv(tmp_path / "s" / "snapshot" / "observations" / "trac_detention.csv", dtype=str)
    assert set(cat["id"]) == set(obs["series"])


def test_a_bad_declared_row_names_file_row_and_field(tmp_path):
    p = tmp_path / "publication_status.csv"
    good = (ROOT / "data/publication_status.csv").read_text("utf-8")
    p.write_text(good + "ice_detention_stats,blackout,2026-13-01,,,,x,y,yes\n", "utf-8")
    n = good.count("\n") + 1
    with pytest.raises(status.DeclaredError, match=rf"publication_status.csv row {n} field 'start': '2026-13-01'"):
        status.read_declared(p)
    p.write_text(good + "ice_detention_stats,rumour,,,,,x,y,yes\n", "utf-8")
    with pytest.raises(status.DeclaredError, match="field 'kind'"):
        status.read_declared(p)
    assert len(status.read_declared()) == good.count("\n") - 1


# ---------------------------------------------------------------- blackouts on the chart

def test_trend_chart_shades_the_shutdown_and_breaks_the_line(snap):
    v = View(series=["ice_detention_stats.detained_total"], preset="since-2025-01-20", events=False, reported=False)
    fig = render(snap, v, generated_on=TODAY).figure
    notes = [a.text for a in fig.layout.annotations if (a.name or "").startswith("blackout")]
    # whose data stopped, and why (publication_status.csv declares the reason)
    assert "No ICE release (federal shutdown): 24 September 2025 to 20 November 2025" in notes
    assert any(s.x0 == "2025-09-24" and s.x1 == "2025-11-20" and s.yref == "paper" for s in fig.layout.shapes)
    tr = fig.data[0]
    xs = list(tr.x)
    # the line breaks across the shutdown (and across longer gaps between the releases held, such as June 2025)
    gaps = [i for i, x in enumerate(xs) if x is None]
    assert any(xs[g - 1] < "2025-09-24" and xs[g + 1] > "2025-11-01" for g in gaps)
    # one blank per break, and never a missing date drawn as the text "NaT" (a gap in the data that is also
    # a blackout was broken twice, its blank written "NaT")
    assert "NaT" not in xs and not any(a is None and b is None for a, b in zip(xs, xs[1:]))


def test_a_line_of_existing_months_is_not_broken(snap):
    # Book-ins for October 2025 were published after the pause: those months are data and stay joined.
    v = View(series=["ice_detention_stats.book_ins_ice"], preset="since-2025-01-20", events=False, reported=False)
    fig = render(snap, v, generated_on=TODAY).figure
    xs = [x for x in fig.data[0].x]
    i = xs.index("2025-10-01")
    assert xs[i - 1] == "2025-09-01" and xs[i + 1] == "2025-11-01"


# ---------------------------------------------------------------- continuity

def test_continuity_agreement_is_computed(snap):
    a = continuity.agreement(snap, "trac_detention.book_ins_ice", "ice_detention_stats.book_ins_ice")
    # Recomputed here: per-day values over months both publish in full.
    r = cdata.series_rows(snap, "ice_detention_stats.book_ins_ice")
    o = cdata.series_rows(snap, "trac_detention.book_ins_ice")
    r, o = (d[~d["flag"].str.contains("partial")] for d in (r, o))
    m = r.merge(o, on=["date", "end"], suffixes=("_r", "_o"))
    pct = (m["value_o"] - m["value_r"]).abs() / m["value_r"] * 100
    assert a["n"] == len(m) and a["median_pct"] == pytest.approx(float(pct.median()))
    spec = continuity.continuity_spec(snap, "detained", generated_on=TODAY)
    text = " ".join(x["text"] for x in spec["layout"]["annotations"] if x.get("name") == "continuity-notes")
    assert "median absolute difference" in text and "Where sources overlap (computed)" in text
    names = [t["name"] for t in spec["data"]]
    assert any(n.startswith("TRAC") for n in names) and any(n.startswith("ICE") for n in names)
    assert len({json.dumps(t.get("line", t.get("marker")), sort_keys=True) for t in spec["data"]}) == len(names)


# ---------------------------------------------------------------- command line

def test_cli_releases(capsys):
    assert cli(["releases", "ice_detention_stats", "--latest"]) == 0
    out = capsys.readouterr().out
    assert "ICE held 60,311 people" in out and "publication status: no release for" in out
    assert cli(["releases", "cbp_encounters", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(rows[0]) == ledger.LEDGER_COLUMNS and len(rows) == 3
    assert cli(["releases", "no_such_source"]) == 1
    assert "no releases of 'no_such_source'" in capsys.readouterr().err


def test_cli_releases_latest_counts_from_the_page_s_day(capsys, monkeypatch):
    """``releases --latest`` judges each source on the day the page and ``status`` use (DASHBOARD_TODAY)."""
    said = {}
    for day in ("2026-04-20", "2026-12-01"):
        monkeypatch.setenv("DASHBOARD_TODAY", day)
        assert cli(["releases", "ice_detention_stats", "--latest"]) == 0
        said[day] = capsys.readouterr().out
    assert "publication status: on time" in said["2026-04-20"]  # 11 days after the 9 April release
    assert "publication status: no release for" in said["2026-12-01"]
    monkeypatch.setenv("DASHBOARD_TODAY", "2026-02-30")
    assert cli(["releases", "ice_detention_stats", "--latest"]) == 2
    assert "DASHBOARD_TODAY" in capsys.readouterr().err


def test_cli_releases_revisions(snap, capsys):
    assert cli(["releases", "ice_detention_stats", "--revisions", "--format", "csv"]) == 0
    rows = pd.read_csv(io.StringIO(capsys.readouterr().out), dtype=str, keep_default_na=False)
    assert list(rows.columns) == ["source"] + ledger.MONTH_REVISION_COLUMNS
    months = ledger.revisions_by_month(snap, "ice_detention_stats")
    assert len(rows) == len(months) and len(rows) and (rows["source"] == "ice_detention_stats").all()
    assert cli(["releases", "ice_detention_stats", "--revisions"]) == 0
    out = capsys.readouterr().out
    per_release = ledger.revisions_by_release(snap, "ice_detention_stats")
    assert out.startswith(f"ice_detention_stats: {int(per_release['values_revised'].sum())} figures revised in ")
    assert f"; {len(months)} periods revised" in out


# ---------------------------------------------------------------- built snapshots

def test_built_source_that_stops(tmp_path):
    sid = "trac_detention.detained_total"
    dates = (list(pd.date_range("2025-06-01", "2025-09-21", freq="14D"))
             + list(pd.date_range("2025-11-16", "2026-01-11", freq="14D")))
    rows = [[sid, "", f"{d:%Y-%m-%d}", f"{d:%Y-%m-%d}", 1000 + i, f"{d:%Y-%m-%d}", "", "t.json"] for i, d in enumerate(dates)]
    snap = build_snapshot(tmp_path, "trac_detention", 21, [[sid, "People detained", "detained", "ICE+CBP", "people", "biweekly",
                                                    "x", "trac_detention", "", "level"]], rows)
    none = pd.DataFrame(columns=status.COLUMNS)
    bs = status.blackouts(snap, "trac_detention", dt.date(2026, 6, 1), none)
    assert [(b.start, b.end) for b in bs] == [(dt.date(2025, 9, 21), dt.date(2025, 11, 16)),
                                               (dt.date(2026, 1, 11), None)]
    assert all(not b.declared and "in this snapshot" in b.statement for b in bs)
    st = status.source_status(snap, "trac_detention", dt.date(2026, 6, 1), none)
    assert st.status == f"no release in this snapshot for {(dt.date(2026, 6, 1) - dt.date(2026, 1, 11)).days} days"
    assert status.source_status(snap, "trac_detention", dt.date(2026, 1, 20), none).status == "on time"
    assert status.source_status(snap, "trac_detention", dt.date(2026, 2, 20), none).status.startswith("late (")
    # On the chart: the span is shaded and the line is cut between 21 September and 16 November.
    x = [f"{d:%Y-%m-%d}" for d in dates]
    bx, by = blackouts.break_at(x, list(range(len(x))), bs, dt.date(2026, 6, 1))
    i = bx.index(None)
    assert bx[i - 1] == "2025-09-21" and bx[i + 1] == "2025-11-16" and bx.count(None) == 1
    lay = blackouts.layer(snap, [sid], dt.date(2025, 6, 1), dt.date(2026, 6, 1), dt.date(2026, 6, 1))
    assert [a["text"] for a in lay["annotations"]] == [
        "No TRAC release in this snapshot: 21 September 2025 to 16 November 2025",
        "No TRAC release in this snapshot: 11 January 2026 onward"]


def test_built_source_that_revises_earlier_months(tmp_path):
    sid = "cbp_encounters.swb_total"
    rows = [
        [sid, "", "2025-01-01", "2025-01-31", 100, "2025-02-28", "", "jan.csv"],
        [sid, "", "2025-02-01", "2025-02-14", 50, "2025-02-28", "partial", "jan.csv"],
        [sid, "", "2025-01-01", "2025-01-31", 120, "2025-03-31", "", "feb.csv"],
        [sid, "", "2025-02-01", "2025-02-28", 90, "2025-03-31", "", "feb.csv"],
    ]
    snap = build_snapshot(tmp_path, "cbp_encounters", 45, [[sid, "SW border encounters", "encounters", "CBP", "encounters",
                                                    "monthly", "x", "cbp_encounters", "", "flow"]], rows)
    rev = ledger.revisions(snap, "cbp_encounters")
    assert rev[["date", "previous", "value", "completed"]].values.tolist() == [
        ["2025-01-01", 100.0, 120.0, False], ["2025-02-01", 50.0, 90.0, True]]
    lg = ledger.ledger(snap, "cbp_encounters").set_index("release")
    assert lg.loc[dt.date(2025, 3, 31), "revisions"] == (
        "1 earlier value revised in 1 series; largest: swb_total 2025-01-01 100 -> 120 "
        "(was in the release of 2025-02-28); 1 partial period completed")
    assert lg.loc[dt.date(2025, 2, 28), "revisions"] == ""
    kf = ledger.key_figures(snap, "cbp_encounters")
    last = kf[kf["release"] == dt.date(2025, 3, 31)].iloc[0]
    # The partial February is not a "complete month": the first release's figure is January's 100.
    assert (last["value"], last["previous_value"], last["change"]) == (90.0, 100.0, -10.0)
    s = ledger.whats_new(snap, "cbp_encounters")
    # The file is named by the month its data run to (February), not by its release day (31 March).
    assert [x.text for x in s] == ["CBP counts 90 southwest border encounters in February 2025, 30 fewer than in "
                                   "January 2025, in its file with data through February 2025."]


# ---------------------------------------------------------------- the page

def test_releases_tab_on_the_page(snap):
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    # each headline card's publication status, in its details (one click away from the card's sentence)
    cards = [c.value for c in at.text if c.value.startswith("Publication: ")]
    assert any(c.startswith("Publication: no release for") and "latest held 2026-04-09" in c for c in cards)
    at.session_state["tab"] = "releases"
    at.run()
    assert not at.exception, at.exception
    heads = [s.value for s in at.subheader]
    assert heads[:3] == ["Publication status", "What's new in each latest release", "Every release"]
    block = at.code[0].value
    assert ledger.whats_new(snap, "ice_detention_stats")[0].text in block and "Source: " in block
    tables = [d.value for d in at.dataframe]
    st_table = next(t for t in tables if "status" in t.columns)
    assert "publication stopped (reported, not verified)" in set(st_table["status"])
    ice_rows = next(t for t in tables if "key_figures" in t.columns)
    assert len(ice_rows) == len(ledger.releases_of(snap, "ice_detention_stats"))
    missing = next(t for t in tables if list(t.columns) == ["id", "title", "data"])
    assert missing["id"].str.startswith("ddp_records.").any()
    assert not any(i in snap.by_series for i in missing["id"]) and missing["data"].str.startswith("no data").all()
    assert len(at.get("plotly_chart")) == 2
    at.session_state["tab"] = "sources"
    at.run()
    assert not at.exception, at.exception
    tables = [d.value for d in at.dataframe]
    st_table = next(t for t in tables if "status" in t.columns and "days_since" in t.columns)
    assert st_table.set_index("source").loc["ice_detention_stats", "status"].startswith("no release for")
    cat = next(t for t in tables if "data in this snapshot" in t.columns).set_index("id")
    # the snapshot's catalogue lists what it holds; declared series without rows are named on the Releases tab
    assert "ddp_records.arrests_daily" not in cat.index and not cat["data in this snapshot"].str.startswith("no data").any()


def test_the_views_citation_carries_whats_new(snap):
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=120)
    at.query_params["series"] = "ice_detention_stats.detained_total"
    open_trend_panels(at, ("x_exports",))
    at.run()
    assert not at.exception, at.exception
    cites = [c.value for c in at.code if "Compiled with" in c.value]
    assert cites and "\nWhat's new: " + ledger.whats_new(snap, "ice_detention_stats")[0].text in cites[0]
    assert "TRAC counts" not in cites[0]  # only the sources in view


def test_the_loaders_release_table_reaches_the_ledger(snap):
    # Every date column ICE's loader writes per workbook is carried, whatever columns it adds later.
    rt = snap.tables["ice_detention_stats.releases"].set_index("file")
    lg = ledger.ledger(snap, "ice_detention_stats").set_index("files")
    f = "FY26_detentionStats_04092026.xlsx"
    for col in ("data_date", "footnote_data_through"):
        assert f"{col} {rt.loc[f, col]}" in lg.loc[f, "release_table_dates"]


def test_the_ledger_in_spanish_keeps_its_figures_codes_and_dates(snap):
    """Issue #20: the Releases tab's ledger cells in Spanish (figure names, "frente a", "en la publicación del",
    revisions, flag rows), every number the English cell's with the chosen separators, every code and date kept;
    the English ledger (what the command line prints) is unchanged."""
    from wording import i18n
    labels = {label for figs in ledger.KEY_FIGURES.values() for label, _, _ in figs}
    for label in labels:  # every key figure has its name in both catalogues
        assert i18n.has(f"ledger.figure.{ledger.figure_key(label)}", "es"), label
        assert i18n.t(f"ledger.figure.{ledger.figure_key(label)}", "en") == label
    en = ledger.ledger(snap)
    assert ledger.ledger(snap, lang="en", separators=".").equals(en)
    for sep in (",", "."):
        es = ledger.ledger(snap, lang="es", separators=sep)
        assert list(es.columns) == list(en.columns) and len(es) == len(en)
        keep = ["source", "release", "files", "series", "rows", "data_through", "data_through_by_table",
                "release_table_dates"]
        assert es[keep].equals(en[keep])
        text = " ".join(es["key_figures"]) + " " + " ".join(es["changed_since_previous"]) + " " + " ".join(es["revisions"])
        assert " against " not in text and "in the release of" not in text and "people detained" not in text
        assert " frente a " in text and "en la publicación del" in text and "valores anteriores revisados" in text
        assert " rows)" not in " ".join(es["quality_flags"]) and " filas)" in " ".join(es["quality_flags"])
        for col in ("key_figures", "changed_since_previous", "revisions"):
            for a, b in zip(en[col], es[col]):
                nums = re.findall(r"[+-]?\d[\d,.]*\d|\d", a)
                want = [x.translate(str.maketrans({",": ".", ".": ","})) if sep == "." else x for x in nums]
                assert re.findall(r"[+-]?\d[\d,.]*\d|\d", b) == want, (a, b)
    es = ledger.ledger(snap, "ice_detention_stats", lang="es", separators=".")
    row = es[es["release"] == dt.date(2026, 4, 9)].iloc[0] if (es["release"] == dt.date(2026, 4, 9)).any() else es.iloc[-1]
    assert row["key_figures"].startswith("personas detenidas: ")


def test_blackout_memo_follows_the_declared_file_by_value(snap, tmp_path):
    """The blackouts kept on the snapshot are keyed by the declared file's version, never by the identity of the
    frame read from it: a frame freed when the file changes can hand its id to the next, which would then be served
    the old file's blackouts."""
    p = tmp_path / "publication_status.csv"
    header = ",".join(status.COLUMNS) + "\n"
    lo, hi = dt.date(2025, 1, 1), dt.date(2025, 12, 31)
    sid = "ice_detention_stats.detained_total"
    seen = []
    for i, start in enumerate(["2025-03-01", "2025-05-01", "2025-07-01", "2025-09-01"]):
        # Same size every time: only the content (and the modification time) differs.
        p.write_text(header + f"ice_detention_stats,blackout,{start},{start[:8]}2{i},,,Test gap {i}.,test,yes\n", "utf-8")
        os.utime(p, ns=(i * 10**9, i * 10**9))
        spans = status.series_blackouts(snap, [sid], lo, hi, TODAY, declared_path=p)
        declared = [b for b in spans.get(sid, []) if b.declared]
        seen.append([(b.start.isoformat(), b.statement) for b in declared])
    assert seen == [[("2025-03-01", "Test gap 0.")], [("2025-05-01", "Test gap 1.")],
                    [("2025-07-01", "Test gap 2.")], [("2025-09-01", "Test gap 3.")]]
