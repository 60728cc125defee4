"""Charts a journalist can publish as they are (issue 15): units, panels, palette, y-range, events, period
totals, export sizes, alt text, and the exported files themselves read back."""
import datetime as dt
import io
import json
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from analysis.view import View
from charts import export
from figures import core as F
from figures import events as cev
from figures.layout import size_of
from loaders import data as cdata
from loaders.events import load_events
from loaders.reported_figures import load_reported
from tests import bundled
from tests.conftest import ROOT
from views import link
from views.compose import render
from wording import i18n

SNAP = bundled.snapshot()
EVENTS = load_events(cdata.DATA / "events.csv")
REPORTED = load_reported(cdata.DATA / "reported_figures.csv")
BUSY = View(preset="custom", start=dt.date(2025, 1, 1), end=dt.date(2026, 12, 1), categories=[])
MIXED = View(series=["trac_detention.detained_total", "ice_detention_stats.book_ins_ice",
                     "cbp_encounters.swb_total"], preset="custom", start=dt.date(2024, 1, 1),
             end=dt.date(2025, 9, 30))
needs_browser = pytest.mark.skipif(export.find_browser() is None,
                                   reason="no Chrome/Chromium found for image export (make test installs Debian's)")


def draw(view=None, size="full", **kw):
    return render(SNAP, view or View(), events=EVENTS, reported=REPORTED, size=size, generated_on=dt.date(2026, 12, 1), **kw)


def lay(r) -> dict:
    return r.figure.to_plotly_json()["layout"]


def y_axes(layout) -> dict:
    # the panels' axes: not the layers' invisible ones (yaxis9 for the event markers' strip, yaxis10 on
    # overlaying a panel for event lines and shaded spans)
    return {k: v for k, v in layout.items() if re.fullmatch(r"yaxis\d*", k) and k != "yaxis9"
            and not v.get("overlaying")}


def values(trace) -> np.ndarray:
    y = trace.get("y")
    if isinstance(y, dict):  # plotly's binary form
        import base64
        y = np.frombuffer(base64.b64decode(y["bdata"]), dtype=y["dtype"])
    return np.array([v for v in y if v is not None], dtype="float64")


# ---------------------------------------------------------------- 1. units

def test_default_view_title_says_per_day_like_the_axis():
    """Issue 15 observed "ICE arrests per week, 2011-2025 vs ICE arrests per month, national" over per-day values
    and no y-axis title."""
    r = draw()
    assert r.title == "ICE arrests per day (2 series)"
    assert "per week" not in r.title and "per month" not in r.title
    assert lay(r)["yaxis"]["title"]["text"] == "arrests per day"
    names = [t["name"] for t in r.figure.to_plotly_json()["data"] if t.get("legendgroup", "").startswith("s")
             and not t["name"].endswith("(flagged)")]
    assert names == ["ICE arrests, weekly data, 2011-2025 (DDP report chart, digitised)",
                     "ICE arrests, monthly data, national (KUT News chart data from DDP)"]


@pytest.mark.parametrize("query,title,axis", [
    ({"series": "trac_detention.detained_total", "preset": "all"},
     "People in ICE detention", "people on a date"),
    ({"series": "ice_detention_stats.book_ins_ice", "per_day": "0", "preset": "all"}, "book-ins per month",
     "book-ins per month"),
    ({"series": "ddp_facility_daily.detained_midnight", "rolling": "7"}, "people in ICE detention, 7-day average",
     "people (7-day average)"),
    ({"series": "trac_detention.detained_total", "index_at": "2025-01-20"}, "index", "index (100 = base date)"),
])
def test_titles_and_axes_name_the_unit(query, title, axis):
    r = draw(link.trends_from_query(query))
    assert title in r.title
    assert lay(r)["yaxis"]["title"]["text"] == axis


def test_a_title_that_cannot_name_every_series_counts_them():
    sid = "ddp_arrests_aggregates.seattle_aor_monthly_by_state"
    # Members with data in the default range: one with none there is left off the chart (and named in its footer).
    keys = [k for k in SNAP.keys(sid) if (cdata.series_rows(SNAP, sid, k)["end"] >= "2025-01-20").any()][:4]
    r = draw(View(series=[f"{sid}|{k}" for k in keys]))
    assert r.title.endswith(f"({len(keys)} series)") and "arrests per day" in r.title


def test_mixed_units_get_one_panel_each_on_a_shared_date_axis():
    r = draw(MIXED, size="article")
    L = lay(r)
    axes = y_axes(L)
    # (a title longer than its short article-size panel is on two lines: figures.core._fit_axis_titles)
    assert [a["title"]["text"].replace("<br>", " ") for a in axes.values()] == [
        "people on a date", "book-ins per day", "encounters per day"]
    doms = sorted(a["domain"] for a in axes.values())
    assert all(a[1] <= b[0] for a, b in zip(doms, doms[1:]))  # stacked, never overlapping
    assert L["xaxis"]["anchor"] == "y3"  # one date axis, under the bottom panel
    data = r.figure.to_plotly_json()["data"]
    for name, ax in axes.items():
        ref = "y" + name[5:]
        drawn = np.concatenate([values(t) for t in data if t.get("yaxis") == ref and t["type"] == "scatter"])
        # Each panel is scaled to its own data: nothing lies flat on zero.
        assert np.nanmax(drawn) > 0.5 * ax["range"][1], name
    assert "3 series in 3 panels" in r.title
    # Reported figures sit in the panel of the series they speak to: detention counts with detention.
    rep = [t for t in data if t["name"] == F.REPORTED_NAME]
    assert {t["yaxis"] for t in rep} == {"y", "y2"}
    assert np.nanmin(values(next(t for t in rep if t["yaxis"] == "y"))) > 10_000


def test_log_ticks_are_written_in_full():
    v = link.trends_from_query({"series": MIXED.series[0] + "," + MIXED.series[1], "log": "1", "preset": "all"})
    for ax in y_axes(lay(draw(v))).values():
        assert ax["type"] == "log"
        assert len(ax["ticktext"]) >= 3 and all(re.fullmatch(r"\d{1,3}(,\d{3})*", t) for t in ax["ticktext"]), ax["ticktext"]
        assert all(float(t.replace(",", "")) == v for t, v in zip(ax["ticktext"], ax["tickvals"]))
    assert F.log_ticks(300, 70_000) == [500, 1000, 2000, 5000, 10000, 20000, 50000]
    assert F.log_ticks(34_000, 72_000) == [40000, 50000, 60000, 70000]  # under a decade: still 3 ticks or more


# ---------------------------------------------------------------- 2. palette

def luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    c = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]


def contrast(a: str, b: str = "#FFFFFF") -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def trace_colours(fig_json) -> list[str]:
    out = []
    for t in fig_json["data"]:
        for part in ("line", "marker"):
            c = (t.get(part) or {}).get("color")
            if part == "marker" and t.get("mode", "").startswith("markers") and (t.get("marker") or {}).get("line"):
                c = t["marker"]["line"].get("color")  # event markers: white fill, coloured ring
                if c is None:
                    continue
            for one in (c if isinstance(c, list) else [c]):
                if isinstance(one, str) and one.startswith("#"):
                    out.append(one)
    return out


def test_every_trace_colour_has_3_to_1_contrast_on_white():
    twelve = [f"ddp_arrests_aggregates.seattle_aor_monthly_by_state|{k}"
              for k in SNAP.keys("ddp_arrests_aggregates.seattle_aor_monthly_by_state")]
    views = [View(), BUSY, MIXED, View(series=twelve[:12], categories=[])]
    seen = set()
    for v in views:
        fig = draw(v).figure.to_plotly_json()
        for c in trace_colours(fig):
            seen.add(c)
            assert contrast(c) >= 3, f"{c}: {contrast(c):.2f}:1"
    assert set(cev.CATEGORY_COLOURS.values()) <= seen
    assert all(contrast(c) >= 3 for c in F.PALETTE + [F.REPORTED_STYLE[0]])  # styles no view above reached


def test_series_are_told_apart_in_greyscale_and_never_look_alike():
    looks = [(d, s) for _, d, s in F.STYLES]
    assert len(set(looks)) == len(looks) == F.MAX_SERIES == 12
    assert len(set(F.PALETTE)) == len(F.PALETTE)
    rc, rd, rs = F.REPORTED_STYLE
    for colour, dash, symbol in F.STYLES:
        assert dash != rd and symbol != rs
        assert abs(luminance(colour) - luminance(rc)) >= 0.05  # reported black is darker than every series
    r = draw(View(series=View().series + ["ddp_arrests_aggregates.site_weekly_digitised"], preset="all"))
    data = r.figure.to_plotly_json()["data"]
    lines = [t for t in data if t.get("legendgroup", "").startswith("s") and "flagged" not in t["name"]]
    assert len({(t["line"]["dash"], t["marker"]["symbol"]) for t in lines}) == len(lines) == 3


def test_past_the_palette_a_chart_refuses_with_a_reason():
    x = pd.date_range("2025-01-01", periods=3).to_numpy()
    lines = [F.Line(f"s{i}", x, np.ones(3)) for i in range(F.MAX_SERIES + 1)]
    with pytest.raises(ValueError, match="at most 12 can each get a distinct look"):
        F.build_trend_figure(lines, title="t", subtitle="s", sources=[])


# ---------------------------------------------------------------- 3. y-range

@pytest.mark.parametrize("view", [View(), View(preset="custom", start=dt.date(2025, 1, 1), end=dt.date(2025, 4, 30))])
def test_y_range_holds_every_value_drawn_reported_figures_too(view):
    r = draw(view)
    assert r.reported is not None and len(r.reported)
    L = lay(r)
    data = r.figure.to_plotly_json()["data"]
    for t in data:
        if int(t.get("yaxis", "y")[1:] or 1) >= 9 or t["type"] != "scatter":  # a layer's axis, 0 to 1
            continue
        ax = L["yaxis" + t.get("yaxis", "y")[1:]]
        v = values(t)
        assert ax["range"][0] <= np.nanmin(v) and np.nanmax(v) <= ax["range"][1], t["name"]
    assert r.reported["value"].max() <= L["yaxis"]["range"][1]


# ---------------------------------------------------------------- 4. events

def test_default_categories_include_operations_and_court_orders():
    r = draw()
    assert {"operation", "legal"} <= set(r.events["category"])
    assert any("Los Angeles" in t for t in r.events["title"])


def test_busiest_range_events_never_overlap_and_all_are_listed():
    for size in ("page", "full", "article", "social"):
        r = draw(BUSY, size=size)
        assert len(r.events) >= 79
        fig = r.figure.to_plotly_json()
        # (a social card that cannot list an event within its square draws none and says so: the CSV has them)
        m = next((t for t in fig["data"] if t["name"] == cev.TRACE_NAME), dict(x=[], marker=dict(size=[]),
                                                                              customdata=[], text=[]))
        L = fig["layout"]
        plot_px = cev.PAGE_PLOT_PX if size == "page" else L["width"] - L["margin"]["l"] - L["margin"]["r"]
        assert cev.markers_overlap(m, r.lo, r.hi, plot_px) == []
        drawn = sorted(int(n) for g in m["customdata"] for n in g)
        # Category colours are explained inside the figure: one legend entry per category drawn. A compact
        # figure (an article or a social card) draws every event in one grey, lists each event it draws in its
        # key and leaves the others to the CSV, saying how many (issue 38).
        legend = {t["name"] for t in fig["data"] if t["name"].startswith("Event: ") and t.get("showlegend", True)}
        cats = {cev.event_categories[c].lower() for c in set(r.events["category"])}
        footer = L["annotations"][-1]["text"]
        compact = size != "page" and size_of(size).compact
        if compact:
            assert legend == set() and len(drawn) < len(r.events) and (drawn or size == "social")
            flat = footer.replace("<br>", " ")
            if drawn:
                assert f"{len(r.events) - len(drawn)} more of the {len(r.events)} events" in flat
            else:  # a key with room for no event line says so, never "79 more of the 79 events"
                assert f"None of the {len(r.events)} events in this range is drawn" in flat
                assert "more of the" not in flat and "CSV and HTML exports list them all" in flat
            for n in drawn:
                assert f"{n} {r.events.loc[n - 1, 'date']:%Y-%m-%d}" in flat.replace("~", "")
            details = "\n".join(export.html_details(r))  # every event, in the HTML export under the chart
            for n, title in zip(r.events["number"], r.events["title"]):
                assert f"Event {n}, {r.events.loc[n - 1, 'date']:%Y-%m-%d}: {title}" in details
            events_csv = export.export_table(r).query("kind == 'event'")
            assert events_csv["key"].tolist() == [str(n) for n in r.events["number"]]
        else:
            assert legend == {f"Event: {c}" for c in cats} and drawn == list(range(1, len(r.events) + 1))
        if size != "page" and not compact:  # the page lists them in the table under the chart
            for n in r.events["number"]:
                assert f"{n} {r.events.loc[n - 1, 'date']:%Y-%m-%d}" in footer.replace("~", "")
            assert "more in the events table" not in footer


# ---------------------------------------------------------------- 5. period totals

def test_period_totals_are_bars_not_dots_on_a_date_axis():
    refs = [f"ddp_arrests_aggregates.total_by_state_2025_2026|{k}" for k in ("California", "Texas", "Illinois")]
    r = draw(View(series=refs, per_day=False))
    fig = r.figure.to_plotly_json()
    assert [t["type"] for t in fig["data"]] == ["bar"]
    bar = fig["data"][0]
    assert (list(bar["y"]) == ["Illinois", "California", "Texas"]
            or sorted(bar["y"]) == sorted(["California", "Texas", "Illinois"]))
    assert values({"y": bar["x"]}).tolist() == sorted(values({"y": bar["x"]}).tolist())
    assert "2025-01-01 to 2026-07-31" in fig["layout"]["title"]["text"]
    assert "arrests in total" in r.title
    # Beside a time series, the totals get their own bar chart and the trend chart keeps the date axis.
    mixed = draw(View(series=[View().series[0]] + refs[:1]))
    assert mixed.totals_figure is not None and all(t["type"] == "scatter" for t in mixed.figure.to_plotly_json()["data"])


# ---------------------------------------------------------------- 6. sizes and the text floor

def font_sizes(obj, path="") -> list[tuple[str, float]]:
    """Every font size in a figure's JSON (fonts, tick fonts, text fonts) and in inline HTML styles."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if k == "size" and ("font" in path.rsplit(".", 1)[-1]):
                for s in (v if isinstance(v, list) else [v]):
                    out.append((path, float(s)))
            else:
                out += font_sizes(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for v in obj:
            out += font_sizes(v, path)
    elif isinstance(obj, str):
        out += [(path + " (inline)", float(m)) for m in re.findall(r"font-size:\s*([\d.]+)px", obj)]
    return out


@pytest.mark.parametrize("view", [View(), BUSY, MIXED])
def test_article_size_has_no_text_under_12px_at_680(view):
    r = draw(view, size="article")
    fig = r.figure.to_plotly_json()
    sz = F.SIZES["article"]
    assert fig["layout"]["width"] == 680
    sizes = font_sizes(fig)
    assert len(sizes) > 5
    # A PNG is written at 2x (1360 px) and shown at 680: CSS px at the figure's width are what a reader sees.
    shown = [(p, s * 680 / fig["layout"]["width"]) for p, s in sizes]
    small = [(p, s) for p, s in shown if s < 12]
    assert not small, small
    assert sz.scale == 2


def test_social_card_is_square_when_it_fits():
    # without the reported figures' notes (their kinds, the unverified one, those left off) the default view's
    # footer leaves the plot its 300 px; with them the card grows rather than drop a word of them
    r = draw(View(events=False, reported=False), size="social")
    L = lay(r)
    assert L["width"] == L["height"] == 1080
    assert min(s for _, s in font_sizes(r.figure.to_plotly_json())) >= 20


# ---------------------------------------------------------------- 7. alt text, 9. CSVs, file names

def test_alt_text_describes_the_series_and_counts_events():
    r = draw()
    assert r.alt.startswith("Line chart, 20 January 2025 to 31 July 2026; ICE arrests, weekly data")
    assert "(arrests per day) rose from about" in r.alt and "to about 1,600 in July 2026" in r.alt
    assert f"{len(r.events)} events marked" in r.alt


@pytest.mark.parametrize("lang,marked,none", [
    ("en", "3 events marked", "none of the 3 events in range marked (the CSV lists them all)"),
    ("es", "3 acontecimientos señalados", "ninguno de los 3 acontecimientos del intervalo señalado (el CSV los recoge todos)"),
])
def test_alt_text_says_so_when_an_image_marks_none_of_its_events(lang, marked, none):
    """A compact image whose key has room for no event draws none: its alt text said "3 events marked"."""
    from types import SimpleNamespace

    import plotly.graph_objects as go

    from figures.alt import alt_text
    events = pd.DataFrame({"date": pd.to_datetime(["2025-01-02", "2025-01-03", "2025-01-04"])})
    marker = go.Scatter(x=["2025-01-02", "2025-01-03"], y=[0.5, 0.5], customdata=[["1"], ["2", "3"]],
                        name=cev.TRACE_NAME if lang == "en" else i18n.t("events.trace", lang))
    view = SimpleNamespace(lang=lang, sep=",")
    drawn, left = (alt_text(SimpleNamespace(view=view, series=[], totals=[], events=events, reported=None,
                                            figure=go.Figure(data)))
                   for data in ([marker], []))
    assert drawn.endswith(marked + ".") and left.endswith(none + ".")


def test_wide_csv_has_one_date_column_and_one_column_per_series():
    r = draw()
    body = export.wide_csv(r, sources=["Source: a line"], title=r.title).decode()
    assert body.startswith(f"# {r.title}\n# Source: a line\n")  # the long CSV's comment lines (issue 26)
    wide = pd.read_csv(io.StringIO(body), comment="#")
    assert list(wide.columns) == ["date", "ICE arrests, weekly data, 2011-2025 (DDP report chart, digitised) (arrests per day)",
                                  "ICE arrests, monthly data, national (KUT News chart data from DDP) (arrests per day)"]
    assert wide["date"].is_monotonic_increasing and wide.iloc[:, 1:].notna().sum().sum() == len(r.table)


def test_displayed_csv_lists_reported_figures_with_their_source():
    r = draw()
    t = export.export_table(r)
    rep = t[t["kind"] == "reported"]
    assert len(rep) == len(r.reported)
    assert rep["flag"].str.startswith("reported;").all()
    # The original's link where it is known; otherwise the words that say there is none and how to cite it
    # (never the copy a figure was read at: tests/test_cite_original.py).
    with_url = r.reported["url"].astype(str).str.startswith("http").to_numpy()
    assert with_url.sum() >= 1 and rep["source"][with_url].str.contains("https?://").all()
    assert rep["source"][~with_url].str.contains("No link: the original's address was not found").all()
    assert (rep["source"].str.len() > 0).all()


def test_file_names_are_not_cut_short():
    r = draw()
    stem = export.file_stem(r, "article")
    assert stem == "ice-arrests-per-day-2-series-2025-01-20-to-2026-07-31-article"


def test_a_span_layer_adds_shading_and_a_note_through_one_function():
    x = pd.date_range("2025-01-01", periods=30).to_numpy()
    spec = F.trend_spec([F.Line("s", x, np.arange(30.0))], title="t", subtitle="s", sources=[])
    spec = F.add_layer(spec, F.span_layer([("2025-01-05", "2025-01-09")], name="No release", note="Shaded: no release."))
    fig = F.finish(spec)
    shade = [t for t in fig["data"] if t.get("fill") == "toself"]
    # on an invisible axis overlaying the panel's (so the panel's points still answer the mouse), 0 to 1
    assert len(shade) == 1 and shade[0]["yaxis"] == "y10" and shade[0]["x"][:4] == ["2025-01-05"] * 2 + ["2025-01-09"] * 2
    assert fig["layout"]["yaxis10"]["overlaying"] == "y" and fig["layout"]["yaxis10"]["range"] == [0, 1]
    assert "Shaded: no release." in fig["layout"]["annotations"][-1]["text"]


# ---------------------------------------------------------------- 10. the exported files, read back

def svg_texts(svg: str) -> str:
    import html
    return html.unescape(" ".join(re.findall(r"<text[^>]*>(.*?)</text>", svg)).replace("</tspan>", " "))


@needs_browser
@pytest.mark.parametrize("view", [View(), BUSY], ids=["default", "busiest"])
def test_exported_svg_has_units_every_event_and_alt_text(view):
    # The full-size image lists every event under the chart; an article-size one numbers them with a short key
    # and leaves the titles to the HTML and CSV exports (tests/test_layout.py, issue 26).
    r = draw(view, size="full")
    svg = export.export_figure(r, "svg").decode()
    text = re.sub(r"<[^>]+>", " ", svg_texts(svg))
    assert "ICE arrests per day" in text  # title
    assert "arrests per day" in re.sub(r"\s+", " ", text)  # y-axis title
    flat = re.sub(r"\s+", " ", text)
    for n, d, title in zip(r.events["number"], r.events["date"], r.events["title"]):
        assert f"{n} {d:%Y-%m-%d}" in flat.replace("~", ""), n
        assert " ".join(str(title).split())[:30] in flat, title
    m = re.search(r"<title[^>]*>(.*?)</title><desc[^>]*>(.*?)</desc>", svg)
    assert m and m.group(1) == r.title and "ICE arrests, weekly data" in m.group(2) and "events marked" in m.group(2)


@needs_browser
def test_exported_png_is_article_width_at_2x():
    from PIL import Image
    r = draw(size="article")
    img = Image.open(io.BytesIO(export.export_figure(r, "png")))
    assert img.size == (1360, 2 * int(r.figure.layout.height))


def test_exported_html_carries_alt_text():
    r = draw(size="full")
    page = export.export_figure(r, "html").decode()
    from loaders.text import html_text
    assert f"<title>{html_text(r.title)}</title>" in page
    assert f'aria-label="{html_text(r.alt)}"' in page and "Description: " in page


@pytest.mark.slow
def test_cli_sizes_and_wide_csv(tmp_path):
    out = tmp_path / "a.html"
    for size in ("article", "social", "full"):
        r = subprocess.run([sys.executable, "-m", "charts", "export", "--size", size, "--out", str(out)], cwd=ROOT,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert f"({size})" in r.stdout and "alt text: Line chart" in r.stdout
        # The call's arguments read as JSON, one after the other: a pattern that stops at the first "}, {" ended
        # the layout inside its list of annotations.
        text = out.read_text()
        at = re.search(r"Plotly\.newPlot\(\s*\"[^\"]+\",\s*", text, re.S).end()
        dec = json.JSONDecoder()
        _, at = dec.raw_decode(text, at)
        spec, _ = dec.raw_decode(text, re.compile(r",\s*").match(text, at).end())
        assert spec["width"] == F.SIZES[size].width
    wide = tmp_path / "w.csv"
    r = subprocess.run([sys.executable, "-m", "charts", "export", "--wide", "--out", str(wide)], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert pd.read_csv(wide, comment="#").columns[0] == "date" and "# Source: " in wide.read_text()


def test_fiscal_axis_on_a_short_range_labels_quarters_with_their_fiscal_year():
    """Issue 15: on a calendar-year range the fiscal-year option left one "FY2026" tick and no months."""
    vals, text = F.fiscal_ticks(dt.date(2026, 1, 1), dt.date(2026, 11, 30))
    assert [v.isoformat() for v in vals] == ["2026-01-01", "2026-04-01", "2026-07-01", "2026-10-01"]
    assert text == ["Jan 2026<br>FY2026 Q2", "Apr 2026<br>FY2026 Q3", "Jul 2026<br>FY2026 Q4", "Oct 2026<br>FY2027 Q1"]
    vals, text = F.fiscal_ticks(dt.date(2019, 10, 1), dt.date(2025, 9, 30))
    assert {"FY2020", "FY2025"} <= set(text) and all(t.startswith("FY") for t in text)


def test_alt_text_for_one_point_says_one_point():
    """A series with one value in view was described as changing "from about 320,000 in mid September 2025 to
    about 320,000 in mid September 2025"."""
    from figures import alt
    f = pd.DataFrame({"date": [pd.Timestamp("2025-09-14")], "end": [pd.Timestamp("2025-09-14")], "value": [320123.0]})
    en = alt.series_sentence("People held", "people on a date", f)
    assert en == "People held (people on a date): one value in this range, about 320,000 in mid September 2025"
    es = alt.series_sentence("Personas", "personas en una fecha", f, lang="es", sep=".")
    assert "un solo valor" in es and "320.000" in es and " a unos " not in es
