"""Exports carry their sources: file contents are checked, not just that a file was written."""
import datetime as dt
import io
import json
import subprocess
import sys
import zipfile

import pandas as pd
import pytest

from analysis.view import View
from charts import export
from figures.core import source_lines
from loaders import data as cdata
from tests import bundled
from tests.conftest import ROOT
from views import link
from views.compose import render

SNAP = bundled.snapshot()
VIEW = View(series=["trac_detention.detained_total", "trac_detention.detained_ice"], preset="custom",
            start=dt.date(2025, 1, 1), end=dt.date(2025, 12, 31))


@pytest.fixture(scope="module")
def rendered():
    return render(SNAP, VIEW, generated_on=dt.date(2026, 11, 29))


needs_browser = pytest.mark.skipif(export.find_browser() is None,
                                   reason="no Chrome/Chromium found for image export (make test installs Debian's)")


def test_figure_holds_title_range_sources_and_generated_line(rendered):
    lay = json.dumps(rendered.figure.to_plotly_json()["layout"]).replace("<br>", " ")
    assert "People in ICE detention" in lay and "2025-01-01 to 2025-12-31" in lay
    assert "Source: Transactional Records Access Clearinghouse" in lay and "data to 2025-12" in lay
    assert "Generated on 2026-11-29" in lay


def test_csv_is_exactly_the_displayed_frame(rendered):
    raw = export.to_csv(rendered.table, sources=source_lines(SNAP, rendered.prepared), title="T")
    text = raw.decode("utf-8")
    assert text.startswith("# T\n# Source: ")
    body = pd.read_csv(io.StringIO(text), comment="#", dtype={"key": str, "release": str, "flag": str})
    exp = rendered.table.reset_index(drop=True)
    assert list(body.columns) == list(exp.columns) and len(body) == len(exp)
    assert body["value"].tolist() == pytest.approx(exp["value"].tolist())
    assert body["date"].tolist() == exp["date"].tolist()
    assert set(body["date"].str[:4]) == {"2025"}


def test_csv_neutralises_formulas():
    df = pd.DataFrame({"label": ["=HYPERLINK(\"http://x\",\"c\")", "+1", "-CONROE", "@SUM(1)", "\tx", "plain"],
                       "value": [-5, 1, 2, 3, 4, 5]})
    text = export.to_csv(df, sources=["=evil()"], title="=t").decode()
    body = pd.read_csv(io.StringIO(text), comment="#")
    assert body["label"].tolist()[:4] == ["'=HYPERLINK(\"http://x\",\"c\")", "'+1", "'-CONROE", "'@SUM(1)"]
    assert body["label"].iloc[5] == "plain" and body["value"].iloc[0] == -5  # numbers untouched
    assert "# '=evil()" in text and "# '=t" in text


def test_html_is_standalone_and_offline(rendered):
    html = export.to_html(rendered.figure).decode()
    assert "People in ICE detention" in html and "Source: Transactional Records" in html
    import re
    assert not re.findall(r"<script[^>]+src=[\"']https?://", html)  # plotly.js embedded, no CDN
    assert len(html) > 3_000_000


def test_citation_names_sources_release_and_dashboard(rendered):
    c = export.citation(SNAP, rendered.prepared, retrieved=dt.date(2026, 11, 29))
    assert "Transactional Records Access Clearinghouse" in c and "release of 2025-12" in c
    assert "accessed 2026-11-29" in c and "https://tracreports.org" in c


def test_full_dataset_zip_has_manifest_and_all_rows():
    z = zipfile.ZipFile(io.BytesIO(export.full_dataset_zip(cdata.DATA, "csv")))
    assert {"observations.csv", "series.csv", "manifest.json"} <= set(z.namelist())
    obs = pd.read_csv(z.open("observations.csv"))
    assert len(obs) == len(SNAP.obs)
    zp = zipfile.ZipFile(io.BytesIO(export.full_dataset_zip(cdata.DATA, "parquet")))
    assert len(pd.read_parquet(io.BytesIO(zp.read("observations.parquet")))) == len(SNAP.obs)


def test_missing_browser_message(monkeypatch, rendered):
    from figures import image  # where the image export looks for a browser (export.to_image is image.to_image)
    monkeypatch.setattr(image, "find_browser", lambda: None)
    with pytest.raises(export.ExportUnavailable, match="apt-get install chromium"):
        export.to_image(rendered.figure, "png")


@needs_browser
def test_png_and_svg(rendered):
    from PIL import Image
    png = export.to_image(rendered.figure, "png", width=1000)
    img = Image.open(io.BytesIO(png))
    assert img.format == "PNG" and img.size[0] == 1000 and img.size[1] == int(rendered.figure.layout.height)
    svg = export.to_image(rendered.figure, "svg").decode()
    assert "People in ICE detention" in svg and "Source: Transactional Records" in svg and "Generated on" in svg


@pytest.mark.slow
def test_cli_export_csv_matches_page_render(tmp_path):
    out = tmp_path / "v.csv"
    q = "series=trac_detention.detained_total,trac_detention.detained_ice&preset=custom&start=2025-01-01&end=2025-12-31"
    r = subprocess.run([sys.executable, "-m", "charts", "export", "--query", q, "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    body = pd.read_csv(out, comment="#")
    assert len(body) > 20
    page = render(SNAP, link.trends_from_query(dict(p.split("=") for p in q.split("&")))).table
    series = body[body["kind"] == "series"]
    assert series["value"].tolist() == pytest.approx(page["value"].tolist())
    # The reported figures the chart draws are in the CSV too, marked and sourced (here: detention counts): the
    # original's link, or the words that say it was not found and how to cite it.
    rep = body[body["kind"] == "reported"]
    assert len(rep) and rep["flag"].str.startswith("reported").all()
    assert rep["source"].str.contains("http|No link: the original's address was not found").all()


@pytest.mark.slow
def test_cli_export_html_and_errors(tmp_path):
    out = tmp_path / "v.html"
    r = subprocess.run([sys.executable, "-m", "charts", "export", "--series", "trac_detention.detained_cbp",
                        "--start", "2021-01-01", "--end", "2021-06-30", "--out", str(out)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "arrested by CBP" in out.read_text()
    r = subprocess.run([sys.executable, "-m", "charts", "export", "--series", "nope.nope", "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2 and "unknown series nope.nope" in r.stderr


@pytest.mark.slow
@needs_browser
def test_cli_export_png(tmp_path):
    out = tmp_path / "v.png"
    r = subprocess.run([sys.executable, "-m", "charts", "export", "--series", "trac_detention.detained_total",
                        "--preset", "all", "--width", "900", "--out", str(out)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    from PIL import Image
    assert Image.open(out).size[0] == 900


@pytest.mark.parametrize("query", [
    {},
    {"series": "trac_detention.detained_total,trac_detention.detained_ice", "preset": "all", "fiscal_axis": "1"},
    {"series": "ice_detention_stats.book_ins_ice", "log": "1", "categories": "all"},
    {"series": "ddp_facility_daily.detained_midnight", "rolling": "7", "index_at": "2025-01-20"},
])
def test_page_figures_are_valid_plotly(query):
    """The page builds figures without Plotly's per-property check (for speed); they must pass it all the same."""
    import plotly.graph_objects as go

    from loaders.events import load_events
    from loaders.reported_figures import load_reported
    r = render(SNAP, link.trends_from_query(query), events=load_events(cdata.DATA / "events.csv"),
               reported=load_reported(cdata.DATA / "reported_figures.csv"))
    checked = go.Figure(r.figure.to_plotly_json())  # raises on any invalid property
    assert checked.to_plotly_json()["layout"]["title"] == r.figure.to_plotly_json()["layout"]["title"]
    assert len(checked.data) == len(r.figure.data)
