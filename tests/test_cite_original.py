"""Cite the original (issue 37): every curated row's source link is the original publisher's own address, a copy
the row was read at (``read_at``) is never shown as the source, and a row whose original's address was not found
says so, with outlet, title and date, in English and in Spanish.

The checks over the curated rows read the project's files and the snapshot's copies of them (both run
everywhere); the checks of the outputs build their own rows with a copy's address no output may print.
"""
from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

import pandas as pd
import pytest

from analysis.view import View
from charts import export
from figures import core as fcore
from figures import events as cev
from loaders import copies
from loaders import events as lev
from loaders import reported_figures as rf
from loaders.errors import ParseError, ValidationError
from tests import bundled
from tests.conftest import ROOT
from views.compose import render

SNAP = bundled.snapshot()
COPY = "https://copy-only.example/story-read-here"  # a copy's address: no output may print it


def _rows(path: Path) -> list[dict]:
    """A curated CSV as written (not through the loader, so a loader that stopped checking cannot hide a row)."""
    with open(path, encoding="utf-8", newline="") as fh:
        return [dict(r, _row=i) for i, r in enumerate(csv.DictReader(fh), start=2)]


CURATED = [
    ("data/events.csv", "source_url"),
    ("data/reported_figures.csv", "url"),
    ("data/snapshot/curated/events.csv", "source_url"),
    ("data/snapshot/tables/reported_figures.rows.csv", "url"),
]


@pytest.mark.parametrize("name, url_field", CURATED)
def test_no_curated_source_link_is_on_the_never_shown_list(name, url_field):
    rows = _rows(ROOT / name)
    assert rows, name
    listed = [(r["_row"], r[url_field]) for r in rows if copies.never_source_reason(r[url_field] or "")]
    assert listed == [], f"{name}: source links on never-shown hosts: {listed}"


@pytest.mark.parametrize("name, url_field", CURATED)
def test_every_curated_row_cites_its_original(name, url_field):
    """A link is the original's (``original``) or there is none and the row names the original (``not found``);
    a copy read is kept apart in ``read_at``, never in the source link, and a 'syndicated copy' names one."""
    for r in _rows(ROOT / name):
        where = f"{name} row {r['_row']}"
        status = r.get("link_status", "")
        assert status in copies.STATUSES, where
        url, read_at = r[url_field].strip(), r.get("read_at", "").strip()
        if status == copies.NOT_FOUND:
            assert not url and r["original_outlet"].strip(), where
        elif r.get("source_quality") != "unverified":
            assert url.startswith("https://") or url.startswith("http://"), where
        assert not read_at or read_at != url, where
        if r.get("source_quality") == "syndicated copy":
            assert read_at, where
        # The name shown beside the link is the original's, never the copy's host.
        name_field = "source_name" if url_field == "source_url" else "reported_by"
        if read_at:
            copy_host = copies.host(read_at).removeprefix("www.")
            assert copy_host not in r[name_field].lower(), where


def test_the_issues_rows_cite_their_originals():
    """The rows issue 37 names: the Washington Post figure, Reuters, ICE's own daily posts, the demotions of
    2025-02-11; none has a copy as its link any more, and each names the original's outlet."""
    figures = rf.load_reported(ROOT / "data/reported_figures.csv")
    events = lev.read_bundled(ROOT / "data/events.csv")
    wapo = figures[(figures.metric == "ice_arrests_per_day") & figures.value.isin([800, 600])
                   & figures.reported_by.str.contains("Washington Post")]
    reuters = figures[figures.reported_by.str.startswith("Reuters")]
    ice = figures[figures.reported_by.str.startswith("ICE (daily post")]
    demotions = events[events.id == "2025-02-11-ero-chief-russell-hott-and-deputy-peter-berg-reassigned"]
    for part, outlet in ((wapo, "Washington Post"), (reuters, "Reuters"), (ice, "ICE"), (demotions, "Washington Post")):
        assert len(part), outlet
        for r in part.to_dict("records"):
            link = r.get("url", r.get("source_url"))
            assert not copies.never_source_reason(link or ""), r
            assert r["original_outlet"].startswith(outlet), r
            assert copies.never_source_reason(r["read_at"]) or not r["read_at"] or r["read_at"] != link
    n787 = figures[figures.value == 787].iloc[0]
    assert n787.url == "" and n787.link_status == copies.NOT_FOUND and n787.original_outlet == "NewsNation"


def test_the_never_shown_list_is_data_with_a_reason_for_each_host():
    rows = _rows(copies.HOSTS_FILE)
    assert len(rows) >= 30 and all(r["host"].strip() and r["reason"].strip() for r in rows)
    assert "amren.com" in copies.never_source_hosts() and "rss.newsmax.com" in copies.never_source_hosts()
    # A listed domain covers its subdomains; a listed subdomain does not cover the outlet beside it.
    assert copies.never_source_reason("https://www.amren.com/news/x")
    assert copies.never_source_reason("https://1375.topnews.com/en/?article=1")
    assert copies.never_source_reason("https://www.newsmax.com/politics/x") is None
    assert copies.never_source_reason("https://notamren.com/x") is None


def test_a_bad_hosts_list_is_refused(tmp_path):
    p = tmp_path / "hosts.csv"
    p.write_text("host,reason\nexample.org,\n")
    with pytest.raises(ValueError, match="row 2"):
        copies.never_source_hosts(p)


# ------------------------------------------------------------------------- refusing a never-shown source

def _events_file(tmp_path, source_url: str, extra: dict | None = None) -> Path:
    cols = lev.COLUMNS + list(copies.COPY_COLUMNS)
    row = {"id": "x", "date": "2025-02-15", "date_precision": "exact", "title": "T", "category": "policy",
           "description": "d", "source_name": "Washington Post", "source_url": source_url, **(extra or {})}
    p = tmp_path / "events.csv"
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    w.writerow({c: row.get(c, "") for c in cols})
    p.write_text(buf.getvalue())
    return p


def test_an_event_whose_source_is_on_the_list_is_refused_naming_file_row_and_field(tmp_path):
    p = _events_file(tmp_path, "https://www.amren.com/news/2025/02/x/")
    with pytest.raises(ValidationError) as err:
        lev.read_bundled(p)
    msg = str(err.value)
    assert "events.csv" in msg and "row 2, field source_url" in msg and "www.amren.com" in msg
    assert "never shown as a source" in msg and "read_at" in msg
    # The same address as the copy read, with the original not found, is accepted.
    ok = _events_file(tmp_path, "", {"link_status": "not found", "original_outlet": "Washington Post",
                                     "read_at": "https://www.amren.com/news/2025/02/x/"})
    assert lev.read_bundled(ok).read_at.item() == "https://www.amren.com/news/2025/02/x/"


def test_a_figure_whose_url_is_on_the_list_is_refused_naming_file_row_and_field():
    header = ",".join(rf.COLUMNS + list(copies.COPY_COLUMNS)) + "\n"
    line = ("2025-02-01,2025-02-13,ice_arrests_per_day,600,arrests/day,Washington Post,"
            "https://oafnation.com/blogs/news/x,primary news,n,original,Reuters,,,\n")
    with pytest.raises(ParseError, match=r"file reported_figures.csv.*row 2 field 'url'.*oafnation.com"):
        rf.parse((header + line).encode(), "reported_figures.csv")


@pytest.mark.parametrize("extra, field, words", [
    ({"link_status": "maybe"}, "link_status", "is not 'original' or 'not found'"),
    ({"link_status": "not found", "original_outlet": "Washington Post"}, "source_url", "must be empty"),
    ({"link_status": "not found", "source_url": ""}, "original_outlet", "must name its outlet"),
    ({"read_at": "javascript:alert(1)"}, "read_at", "not allowed"),
    ({"read_at": "https://www.ice.gov/news/x"}, "read_at", "same address as the source"),
])
def test_the_citation_columns_are_checked(tmp_path, extra, field, words):
    url = extra.pop("source_url", "https://www.ice.gov/news/x")
    p = _events_file(tmp_path, url, extra)
    _, rejected = lev.validate_events(p.read_bytes(), "events.csv")
    assert rejected.field.tolist() == [field] and words in rejected.reason.item()


def test_an_older_file_marking_a_copy_loads_with_the_copy_kept_apart():
    header = ",".join(lev.COLUMNS + ["link_is_copy", "original_outlet", "original_date"]) + "\n"
    line = "a,2025-02-15,exact,T,statistic-report,d,Washington Post,https://www.amren.com/x,yes,Washington Post,\n"
    accepted, rejected = lev.validate_events((header + line).encode(), "u.csv")
    assert rejected.empty, rejected.to_dict("records")
    r = accepted.iloc[0]
    assert (r.source_url, r.read_at, r.link_status) == ("", "https://www.amren.com/x", "not found")
    rheader = ",".join(rf.COLUMNS + ["link_is_copy", "original_outlet", "original_date"]) + "\n"
    rline = ("2025-02-01,2025-02-13,ice_arrests_per_day,600,arrests/day,WaPo,https://www.amren.com/x,"
             "syndicated copy,n,yes,Washington Post,2025-02-15\n")
    parsed = rf.parse((rheader + rline).encode(), "r.csv").tables["rows"].iloc[0]
    assert (parsed.url, parsed.read_at, parsed.link_status) == ("", "https://www.amren.com/x", "not found")


# ------------------------------------------------------------------------- what the outputs show

def _events(status: str) -> pd.DataFrame:
    cols = lev.COLUMNS + list(copies.COPY_COLUMNS) + ["study_default"]
    base = {"id": "e1", "date": "2025-02-15", "date_precision": "exact", "title": "Arrests sag",
            "category": "policy", "description": "d", "source_name": "Washington Post",
            "source_url": "" if status == "not found" else "https://www.washingtonpost.com/x",
            "link_status": status, "original_outlet": "Washington Post",
            "original_title": "ICE struggles to boost arrest numbers", "original_date": "2025-02-15",
            "read_at": COPY, "study_default": ""}
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    w.writerow(base)
    ev, rejected = lev.validate_events(buf.getvalue().encode(), "e.csv", origin="bundled")
    assert rejected.empty, rejected.to_dict("records")
    return ev.assign(number=1)


def _figures(status: str) -> pd.DataFrame:
    cols = rf.COLUMNS + rf.KIND_COLUMNS + list(copies.COPY_COLUMNS)
    row = {"period_start": "2025-02-01", "period_end": "2025-02-13", "metric": "ice_arrests_per_day", "value": "600",
           "unit": "arrests/day (upper bound)", "reported_by": "Washington Post, from DHS data",
           "url": "" if status == "not found" else "https://www.washingtonpost.com/x", "source_quality": "syndicated copy",
           "note": "n", "kind": "bound", "bound": "upper", "link_status": status, "original_outlet": "Washington Post",
           "original_title": "ICE struggles to boost arrest numbers", "original_date": "2025-02-15", "read_at": COPY}
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    w.writerow(row)
    rows = rf.parse(buf.getvalue().encode(), "r.csv").tables["rows"]
    return rows.assign(period_start=pd.to_datetime(rows.period_start), period_end=pd.to_datetime(rows.period_end))


@pytest.mark.parametrize("status", ["original", "not found"])
def test_the_copy_read_is_in_no_output_of_an_event(status):
    ev = _events(status)
    record = ev.iloc[0].to_dict()
    outputs = {
        "hover en": cev.hover_text(record, "en"), "hover es": cev.hover_text(record, "es"),
        "legend table": cev.events_legend_table(ev).to_csv(), "legend table es": cev.events_legend_table(ev, "es").to_csv(),
        "events csv": cev.events_csv(ev).decode("utf-8"),
    }
    for where, text in outputs.items():
        assert "copy-only.example" not in text, where
    exported = pd.read_csv(io.BytesIO(cev.events_csv(ev)), comment="#", dtype=str, keep_default_na=False)
    assert exported.link_status.item() == status and "read_at" not in exported.columns


@pytest.mark.parametrize("status", ["original", "not found"])
def test_the_copy_read_is_in_no_output_of_a_reported_figure(status):
    rows = _figures(status)
    r = next(rows.itertuples(index=False))
    for lang in ("en", "es"):
        assert "copy-only.example" not in fcore._reported_hover(r, lang, ",")
    assert "copy-only.example" not in export.source_line(r)


def test_a_row_without_the_originals_address_says_so_in_english_and_spanish():
    ev = _events("not found")
    record = ev.iloc[0].to_dict()
    en, es = cev.hover_text(record, "en"), cev.hover_text(record, "es")
    assert "No link: the original&#39;s address was not found" in en
    assert "Washington Post, \u201cICE struggles to boost arrest numbers\u201d, 2025-02-15" in en
    assert "Sin enlace: no se encontró la dirección del original" in es
    assert "Washington Post, \u00abICE struggles to boost arrest numbers\u00bb, 2025-02-15" in es
    assert cev.events_legend_table(ev, "es").link.item().startswith("Sin enlace")
    r = next(_figures("not found").itertuples(index=False))
    assert "Sin enlace" in fcore._reported_hover(r, "es", ",") and "No link" in fcore._reported_hover(r, "en", ",")
    assert export.source_line(r).startswith("Washington Post, from DHS data No link: the original's address")
    original = _events("original").iloc[0].to_dict()
    assert "No link" not in cev.hover_text(original, "en")


def test_the_page_table_says_what_each_link_is():
    from views.trends import link_words
    assert link_words(_events("not found").iloc[0].to_dict(), "es").startswith("Sin enlace")
    assert "copy-only.example" not in link_words(_events("not found").iloc[0].to_dict(), "en")
    assert link_words(_events("original").iloc[0].to_dict(), "en") == "the original report"


def test_no_copy_read_reaches_a_rendered_chart_its_csv_or_its_html():
    """The real rows through the real render: the early-2025 arrests chart draws the rows issue 37 names (the
    Washington Post and Reuters figures, ICE's daily posts, the demotions); no copy they were read at is in the
    figure (hover, footer: what a PNG, SVG or the static site shows), its CSV or its HTML page."""
    assert SNAP.events is not None and SNAP.reported is not None
    copies_read = {u for u in list(SNAP.events["read_at"]) + list(SNAP.reported["read_at"]) if u}
    assert len(copies_read) > 20
    view = View(preset="custom", start=dt.date(2025, 1, 15), end=dt.date(2025, 3, 15), categories=[])
    r = render(SNAP, view, events=SNAP.events, reported=SNAP.reported, generated_on=dt.date(2026, 12, 3))
    assert r.reported is not None and len(r.reported) and r.events is not None and len(r.events)
    texts = {"figure": r.figure.to_json(), "csv": export.export_table(r).to_csv(),
             "html details": "\n".join(export.html_details(r))}
    for where, text in texts.items():
        for u in copies_read:
            assert u not in text, (where, u)
        for h in {copies.host(u) for u in copies_read if copies.never_source_reason(u)}:
            assert h not in text, (where, h)
    # Rows whose original's address was not found are drawn, and say so where they are shown.
    assert "No link" in texts["figure"] and "No link" in texts["csv"]
