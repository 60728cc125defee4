"""The CSV of a view with the revision band on and events, reported figures or notes beside its points: the band
columns belong to the series' points, every other row has them blank, and the columns stay in the order
docs/using.md gives. On a small snapshot built with the real layout (a biweekly detention series printed by
three releases, two events, one reported figure), through the function the page's download and the static site
call (``export.export_table`` and ``export.to_csv``) and through ``python -m charts export``."""
import datetime as dt
import hashlib
import io
import json
import re

import pandas as pd
import pytest

from analysis.view import BAND_TABLE_COLUMNS, View
from charts import export
from charts.__main__ import main
from loaders import events as lev
from loaders import reported_figures
from loaders.data import load_snapshot
from tests.built_snapshot import build_snapshot
from tests.conftest import ROOT
from views.compose import render

SID = "trac_detention.detained_total"
CATALOGUE = [[SID, "People in ICE detention", "detained", "ICE", "people", "biweekly", "x", "trac_detention", "",
              "level"]]
# 5 January printed as 100 and revised to 110; 19 January printed twice as 120; 2 February printed once.
ROWS = [
    [SID, "", "2025-01-05", "2025-01-05", 100, "2025-01-10", "", "a.json"],
    [SID, "", "2025-01-05", "2025-01-05", 110, "2025-01-24", "", "b.json"],
    [SID, "", "2025-01-19", "2025-01-19", 120, "2025-01-24", "", "b.json"],
    [SID, "", "2025-01-19", "2025-01-19", 120, "2025-02-07", "", "c.json"],
    [SID, "", "2025-02-02", "2025-02-02", 130, "2025-02-07", "", "c.json"],
]
EVENTS = (
    "id,date,date_precision,title,category,description,source_name,source_url,link_status,original_outlet,"
    "original_title,original_date,read_at,study_default\n"
    "2025-01-12-test-policy,2025-01-12,exact,A test policy is announced,policy,Invented for the test.,"
    "Test News,https://news.example.org/policy,original,,,,,\n"
    "2025-01-26-test-operation,2025-01-26,approximate,A test operation starts,operation,Invented for the test.,"
    "Test News,https://news.example.org/operation,original,,,,,\n"
)
REPORTED = (
    "period_start,period_end,metric,value,unit,reported_by,url,source_quality,note,kind,bound,link_status,"
    "original_outlet,original_title,original_date,read_at\n"
    "2025-01-20,2025-01-20,detained_population,125,people,Test Outlet,https://news.example.org/figure,"
    "primary news,Said in a test.,count,,original,,,,\n"
)
START, END = dt.date(2025, 1, 1), dt.date(2025, 2, 28)


@pytest.fixture
def snapdir(tmp_path):
    """The snapshot's folder, with the events and the reported figures inside it as the rebuild writes them."""
    build_snapshot(tmp_path, "trac_detention", 14, CATALOGUE, ROWS)
    d = tmp_path / "snap"
    (tmp_path / "events.csv").write_text(EVENTS, encoding="utf-8")
    (d / "curated").mkdir()
    (d / lev.SNAPSHOT_FILE).write_text(lev.snapshot_csv(lev.read_bundled(tmp_path / "events.csv")), encoding="utf-8")
    (d / "tables").mkdir()
    rows = reported_figures.read_rows(REPORTED.encode(), "reported_figures.csv")
    rows.to_csv(d / "tables" / f"{reported_figures.ROWS_TABLE}.csv", index=False)
    # Every file listed in the manifest with its size and checksum, as the rebuild lists them.
    man = json.loads((d / "manifest.json").read_text())
    man["snapshot_files"] = {p.relative_to(d).as_posix(): {"bytes": p.stat().st_size,
                                                          "sha256": hashlib.sha256(p.read_bytes()).hexdigest()}
                             for p in sorted(d.rglob("*.csv"))}
    (d / "manifest.json").write_text(json.dumps(man))
    return d


def view(**kw) -> View:
    return View(series=[SID], preset="custom", start=START, end=END, **kw)


def rendered(snapdir, **kw):
    snap = load_snapshot(snapdir)
    return render(snap, view(**kw), events=snap.events, reported=snap.reported)


def body(csv: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(csv), comment="#", dtype=str, keep_default_na=False)


def documented_columns() -> tuple[list[str], list[str]]:
    """The CSV's columns as docs/using.md lists them: (all in order, the band's)."""
    text = " ".join((ROOT / "docs" / "using.md").read_text("utf-8").split())  # one line: the list wraps
    (order,) = re.findall(r"Its columns, in order: ((?:`\w+`(?:, )?)+)", text)
    (band,) = re.findall(r"with the revision band on, ((?:`\w+`(?:,? and |, )?)+) come", text)
    return re.findall(r"`(\w+)`", order), re.findall(r"`(\w+)`", band)


@pytest.mark.parametrize("lang", ["en", "es"])
def test_band_csv_with_events_and_reported_figures(snapdir, lang):
    r = rendered(snapdir, band=True, lang=lang)
    table = export.export_table(r)
    assert set(table["kind"]) == {"series", "reported", "event"}
    csv = body(export.to_csv(table, sources=["Source: test"], title=r.title, lang=lang))
    series, other = csv[csv["kind"] == "series"], csv[csv["kind"] != "series"]
    assert len(other[other["kind"] == "event"]) == 2 and len(other[other["kind"] == "reported"]) == 1
    # The series' points carry their band, written as the values are (no ".0" on a whole number).
    assert series[BAND_TABLE_COLUMNS].values.tolist() == [
        ["100", "110", "2", "2025-01-10", "2025-01-24"],
        ["120", "120", "2", "2025-01-24", ""],
        ["130", "130", "1", "2025-02-07", ""],
    ]
    assert series["value"].tolist() == ["110", "120", "130"]
    # Events and reported figures have no band: their band cells are empty, their own cells as without the band.
    assert (other[BAND_TABLE_COLUMNS] == "").all().all()
    plain = body(export.to_csv(export.export_table(rendered(snapdir, lang=lang)), sources=["Source: test"],
                               title=r.title, lang=lang))
    assert other.drop(columns=BAND_TABLE_COLUMNS).values.tolist() == plain[plain["kind"] != "series"].values.tolist()


@pytest.mark.parametrize("lang, title", [("en", "People in ICE detention, as reported"),
                                         ("es", "Personas en detención de ICE, según lo declarado")])
def test_a_reported_row_is_labelled_with_its_series_title_in_the_view_s_language(snapdir, lang, title):
    """It was "Reported: detained population", made from the metric's id, in English in every language."""
    table = export.export_table(rendered(snapdir, lang=lang))
    assert table.loc[table["kind"] == "reported", "label"].tolist() == [title]


def test_band_csv_columns_are_in_the_documented_order(snapdir):
    order, band = documented_columns()
    assert band == BAND_TABLE_COLUMNS
    assert list(export.export_table(rendered(snapdir)).columns) == order
    at = order.index("source") + 1
    assert list(export.export_table(rendered(snapdir, band=True)).columns) == order[:at] + band + order[at:]


def test_a_non_series_row_with_a_column_the_table_lacks_is_refused():
    table = pd.DataFrame({"kind": ["series"], "value": [1.0]})
    with pytest.raises(ValueError, match="surprise"):
        export.with_rows(table, pd.DataFrame({"kind": ["event"], "surprise": ["x"]}))


def test_command_line_csv_with_band_and_events(snapdir, tmp_path, capsys):
    out = tmp_path / "band.csv"
    assert main(["export", "--data", str(snapdir), "--series", SID, "--start", START.isoformat(), "--end",
                 END.isoformat(), "--band", "--out", str(out)]) == 0, capsys.readouterr().err
    csv = body(out.read_bytes())
    events = csv[csv["kind"] == "event"]
    assert events["label"].tolist() == ["A test policy is announced", "A test operation starts"]
    assert (events[BAND_TABLE_COLUMNS] == "").all().all()
    assert csv.loc[csv["kind"] == "series", "band_low"].tolist() == ["100", "120", "130"]


def test_static_site_page_csv_with_band_and_events(snapdir):
    from charts import site
    snap = load_snapshot(snapdir)
    q = {"series": SID, "preset": "custom", "start": START.isoformat(), "end": END.isoformat(), "band": "1"}
    page = site.trend_page(snap, snap.events, snap.reported, q, dt.date(2025, 3, 1), "")
    csv = body(page.csv)
    assert (csv["kind"] == "event").sum() == 2 and (csv.loc[csv["kind"] != "series", BAND_TABLE_COLUMNS] == "").all().all()
