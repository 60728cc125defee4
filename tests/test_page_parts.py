"""The computations the page lays out, reached without Streamlit: the as-of revisions, the sources tables,
the event study's default event, numbers and CSV, and the events file's ``study_default`` flag."""
from __future__ import annotations

import datetime as dt
import io

import pandas as pd
import pytest

from analysis import sources as csources
from analysis.view import INAUGURATION
from charts import study_export
from loaders import asof, tidy
from loaders import data as cdata
from loaders import events as lev
from loaders.errors import ValidationError
from tests import bundled
from views import event_study as es

SNAP = bundled.snapshot()
VERSIONED = "trac_detention.book_ins_ice"


def test_revisions_after_match_the_loaders_revisions_on_the_same_rows():
    # The loaders' definition works on text dates; the page's on the loaded snapshot: the same changes.
    as_of, sid = dt.date(2025, 1, 1), "ice_detention_stats.adp_ice_by_criminality"
    got = asof.revisions_after(SNAP, [sid], as_of)
    rows = SNAP.obs[SNAP.obs["series"] == sid]
    text = rows.assign(**{c: rows[c].dt.strftime("%Y-%m-%d").fillna("") for c in ("date", "end", "release")})
    want = tidy.revisions(text)
    want = want[want["release"] > as_of.isoformat()].reset_index(drop=True)
    assert len(got) > 0 and len(got) == len(want)
    assert [d.isoformat() for d in got["release"]] == list(want["release"])
    assert [d.isoformat() for d in got["date"]] == list(want["date"]) and list(got["key"]) == list(want["key"])
    assert got["change"].tolist() == pytest.approx(want["change"].tolist())
    assert (got["release"] > as_of).all() and (got["value"] != got["previous"]).all()


def test_revisions_after_a_late_date_are_none_and_unversioned_series_have_none():
    assert asof.revisions_after(SNAP, [VERSIONED], dt.date(2100, 1, 1)).empty
    assert asof.revisions_after(SNAP, ["ddp_arrests_aggregates.weekly_national_digitised"], dt.date(2020, 1, 1)).empty


def test_unversioned_names_series_without_release_dates():
    refs = ["ddp_arrests_aggregates.weekly_national_digitised", VERSIONED]
    assert asof.unversioned(SNAP, refs) == ["ddp_arrests_aggregates.weekly_national_digitised"]


def test_sources_tables_list_every_manifest_file_and_every_catalogue_series():
    files, catalogue, notes = csources.sources_tables(SNAP)
    n_files = sum(len(e.get("files", [])) for e in SNAP.manifest["sources"].values())
    assert len(files) == n_files and files["sha256"].str.fullmatch(r"[0-9a-f]{64}").all()
    assert set(files["source"]) == set(SNAP.manifest["sources"])
    assert list(catalogue["id"]) == list(SNAP.catalogue.index)
    assert "data in this snapshot" in catalogue.columns and len(notes) > 0


def test_the_default_study_event_is_the_flagged_row_of_the_events_file():
    bundled = lev.read_bundled()
    assert bundled["study_default"].sum() == 1
    flagged = bundled.loc[bundled["study_default"], "id"].iloc[0]
    assert es.default_event(bundled) == flagged == "2025-02-11-ero-chief-russell-hott-and-deputy-peter-berg-reassigned"
    assert es.default_date(bundled) == dt.date(2025, 2, 11)
    # No flag anywhere: no default event, and the date picker starts at the inauguration.
    unflagged = bundled.assign(study_default=False)
    assert es.default_event(unflagged) is None and es.default_date(unflagged) == INAUGURATION
    # The flag moves the default, whatever the titles say.
    other = bundled.assign(study_default=bundled["id"] == bundled["id"].iloc[0])
    assert es.default_event(other) == bundled["id"].iloc[0]


def _file(*rows: str) -> bytes:
    head = ",".join(lev.COLUMNS + ["study_default"])
    base = "2025-03-0{d},exact,Event {d},policy,Something.,Agency,https://example.org/{d}"
    lines = [head] + [f",{base.format(d=i + 1)},{flag}" for i, flag in enumerate(rows)]
    return ("\n".join(lines) + "\n").encode()


def test_study_default_is_read_as_a_boolean_and_at_most_one_row_may_be_true():
    ok, rejected = lev.validate_events(_file("true", "", "no"), "e.csv")
    assert rejected.empty and ok["study_default"].tolist() == [True, False, False]
    ok, rejected = lev.validate_events(_file("yes", "true"), "e.csv")
    assert len(ok) == 1 and rejected[["row", "field"]].values.tolist() == [[3, "study_default"]]
    assert "row 2 already is" in rejected["reason"].iloc[0]
    ok, rejected = lev.validate_events(_file("maybe"), "e.csv")
    assert ok.empty and rejected["field"].tolist() == ["study_default"]


def test_a_bundled_file_with_two_defaults_is_refused(tmp_path):
    p = tmp_path / "events.csv"
    p.write_bytes(_file("true", "true"))
    with pytest.raises(ValidationError, match="study_default"):
        lev.read_bundled(p)


def test_a_file_without_the_flag_column_has_no_default():
    ok, _ = lev.validate_events(_file("")[: -1].replace(b",study_default", b"").rsplit(b",", 1)[0] + b"\n", "e.csv")
    assert ok["study_default"].tolist() == [False] and es.default_event(ok) is None


def test_study_numbers_and_csv_carry_the_comparison():
    flow, first, last, res = es.study_numbers(SNAP, VERSIONED, dt.date(2025, 6, 1), 30)
    assert flow and first < pd.Timestamp("2025-05-01") and last >= pd.Timestamp("2025-06-30")
    rows = cdata.series_rows(SNAP, VERSIONED).set_index("date")
    assert res.before.mean_per_day == pytest.approx(rows.loc["2025-05-01", "value"] / 31)
    win, _ = es.study_window(SNAP, VERSIONED, dt.date(2025, 6, 1), 30, flow=flow)
    text = study_export.study_csv("Book-ins around 1 June", res, win, ("Source: TRAC",)).decode("utf-8")
    comments = [ln for ln in text.splitlines() if ln.startswith("#")]
    assert comments[0] == "# Book-ins around 1 June" and "# Source: TRAC" in comments
    assert any(ln.startswith("# Around the date: 2025-05-01 to 2025-05-31 mean per day") for ln in comments)
    body = pd.read_csv(io.StringIO(text), comment="#")
    assert {"offset", "value", "date", "window"} <= set(body.columns) and len(body) == len(win)


def test_event_choices_start_with_a_date_and_follow_the_calendar():
    bundled = lev.read_bundled()
    choices, labels = es.event_choices(bundled)
    assert choices[0] == es.DATE_CHOICE and len(choices) == len(bundled) + 1
    assert [labels[c][:10] for c in choices[1:]] == sorted(labels[c][:10] for c in choices[1:])


def test_as_published_rows_leave_out_figures_without_a_release_date():
    sid = "ddp_arrests_aggregates.monthly_national_chart_data"
    assert len(cdata.series_rows(SNAP, sid)) > 0
    assert cdata.series_rows(SNAP, sid, as_of=pd.Timestamp("2025-10-01")).empty
    rows = cdata.series_rows(SNAP, VERSIONED, as_of=pd.Timestamp("2025-10-01"))
    assert len(rows) and (rows["release"] <= pd.Timestamp("2025-10-01")).all()


def test_view_range_counts_presets_from_the_last_data_date():
    from analysis.view import View, view_range
    last = cdata.series_rows(SNAP, VERSIONED)["end"].max().date()
    lo, hi, first, end = view_range(SNAP, View(series=[VERSIONED], preset="last-90-days"))
    assert (hi, end, lo) == (last, last, last - dt.timedelta(days=89))
    assert first == cdata.series_rows(SNAP, VERSIONED)["date"].min().date()
    assert view_range(SNAP, View(series=["ddp_arrests_aggregates.weekly_national_digitised"],
                                 as_of=dt.date(2025, 10, 1))) is None


def test_empty_in_range_names_series_that_end_or_start_outside_it_and_offers_their_range():
    from analysis.coverage import empty_in_range
    from analysis.view import View
    cbp, ddp = "cbp_encounters.swb_total", "ddp_arrests_aggregates.monthly_national_chart_data"
    cbp_rows, ddp_rows = cdata.series_rows(SNAP, cbp), cdata.series_rows(SNAP, ddp)
    cbp_first, cbp_last = cbp_rows["date"].min().date(), cbp_rows["end"].max().date()
    ddp_first = ddp_rows["date"].min().date()
    # Before both start; the versioned TRAC series has data then and is not named.
    gap = empty_in_range(SNAP, View(series=[ddp, VERSIONED, cbp], preset="custom",
                                    start=dt.date(2020, 1, 1), end=dt.date(2020, 12, 31)))
    assert [g.ref for g in gap.gaps] == [ddp, cbp]
    assert gap.suggest == (min(cbp_first, ddp_first), ddp_rows["end"].max().date())
    assert f"starts {ddp_first}" in gap.message and f"starts {cbp_first}" in gap.message
    assert gap.message.startswith("No figures between 2020-01-01 and 2020-12-31 for: ")
    # After it ends.
    gap = empty_in_range(SNAP, View(series=[cbp], preset="custom", start=cbp_last + dt.timedelta(days=40),
                                    end=cbp_last + dt.timedelta(days=120)))
    assert f"ends {cbp_last}" in gap.message and gap.suggest == (cbp_first, cbp_last)
    # A hole inside the data: the nearest periods around it, not "starts" or "ends".
    sid = "trac_detention.detained_total"
    gap = empty_in_range(SNAP, View(series=[sid], preset="custom", start=dt.date(2019, 5, 5), end=dt.date(2019, 5, 10)))
    rows = cdata.series_rows(SNAP, sid)
    assert gap.gaps[0].hole and "has no figure in these dates" in gap.message
    assert gap.suggest[0] == rows.loc[rows["end"] < "2019-05-05", "date"].max().date()
    assert gap.suggest[1] == rows.loc[rows["date"] > "2019-05-10", "end"].min().date()
    # Every series has data in the default view: nothing to say.
    assert empty_in_range(SNAP, View()) is None


def test_picker_labels_are_built_once_per_language_and_say_what_ref_label_says(monkeypatch):
    # The series picker formatted its 291 labels on every run, reading the language from the session state
    # twice per option (15-30 ms of each change of the date range): now one dict per snapshot and language.
    from page import context, trends
    page = context.load()
    for lang in ("en", "es"):
        monkeypatch.setattr(trends.plang, "lang", lambda lang=lang: lang)
        labels = trends.picker_labels(page)
        assert labels is trends.picker_labels(page)  # built once, shared
        assert list(labels) == page.options
        assert all(labels[r] == trends.ref_label(page, r, lang) for r in page.options)
    en, es = trends.picker_labels(page, "en"), trends.picker_labels(page, "es")
    assert sum(en[r] != es[r] for r in page.options) > len(page.options) // 2  # the titles are translated
