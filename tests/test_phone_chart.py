"""The trend chart laid out for a phone (issue 38): its legend under the plot with the footer, a band for
Plotly's toolbar above the title, and no more events than the plot's width holds, the most important kept and the
others named. Built on small figures and event frames made here."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from figures import core as F
from figures import events as cev
from figures.layout import size_of
from page import browser

PHONE = browser.chart_size(390)


def events(rows) -> pd.DataFrame:
    """An events frame with the columns the layer reads: (date, category[, origin])."""
    out = []
    for i, r in enumerate(rows):
        date, cat, origin = (list(r) + ["bundled"])[:3]
        out.append(dict(id=f"e{i:02d}", date=pd.Timestamp(date), date_precision="exact", title=f"Event {i}",
                        category=cat, description="", source_name="Test", source_url="https://example.org/a",
                        link_is_copy="no", original_outlet="", original_date="", origin=origin))
    return pd.DataFrame(out)


def spec(size, n_series=3):
    x = pd.date_range("2025-01-01", "2025-12-31", freq="7D").to_numpy()
    lines = [F.Line(f"A rather long series name number {i}", x, np.linspace(100, 900, len(x)) + i)
             for i in range(n_series)]
    return F.trend_spec(lines, title="Arrests per day", subtitle="2025-01-01 to 2025-12-31",
                        sources=["Source: a test source"], size=size)


def test_the_phone_size_declares_its_layout_and_a_wide_screen_keeps_the_page_size():
    assert browser.chart_size(1280) == "page" and browser.chart_size(0) == "page"
    assert PHONE.legend_below and PHONE.toolbar_px > 0 and PHONE.event_px > 0
    assert PHONE.width == 390 - 32


def test_on_a_phone_the_legend_sits_under_the_plot_and_the_title_under_the_toolbar():
    wide_phone = replace(PHONE, legend_below=False, toolbar_px=0)
    before, after = F.finish(spec(wide_phone))["layout"], F.finish(spec(PHONE))["layout"]
    # The plot starts higher: the legend's rows no longer sit between the title and the plot.
    assert after["margin"]["t"] < before["margin"]["t"] - 30
    H = after["height"]
    legend_top_px = (1 - after["legend"]["y"]) * H  # px from the figure's top
    plot_bottom_px = H - after["margin"]["b"]
    assert after["legend"]["yref"] == "container" and after["legend"]["yanchor"] == "top"
    assert legend_top_px > plot_bottom_px, "the legend is not under the plot"
    footer = after["annotations"][-1]
    # The footer starts under the legend's rows, not over them.
    assert -footer["yshift"] > before["annotations"][-1]["yshift"] * -1
    title_top_px = (1 - after["title"]["y"]) * H
    assert title_top_px >= PHONE.toolbar_px + 12


def test_a_wide_page_chart_is_laid_out_as_before():
    lay = F.finish(spec(size_of("page")))["layout"]
    assert (1 - lay["legend"]["y"]) * lay["height"] < lay["margin"]["t"]  # legend above the plot


def test_thinning_keeps_at_most_one_event_per_step_the_important_ones_first():
    # 40 events, one every 9 days, alternating statistic releases and policies; a 280 px plot at 32 px a step
    days = pd.date_range("2025-01-01", periods=40, freq="9D")
    ev = cev.number_events(events([(d, "policy" if i % 2 else "statistic-report") for i, d in enumerate(days)]))
    lo, hi = days[0], days[-1]
    keep = cev.thin_events(ev, lo, hi, 280, 32)
    assert keep.sum() <= 280 // 32
    px = (ev["date"][keep] - lo).dt.days / (hi - lo).days * 280
    assert np.diff(np.sort(px.to_numpy())).min() >= 32
    assert set(ev["category"][keep]) == {"policy"}  # enough policies to fill the plot: no statistic release
    assert cev.thin_events(ev, lo, hi, 280, 0).all()


def test_thinning_keeps_the_readers_own_events_first():
    days = pd.date_range("2025-01-01", periods=12, freq="3D")
    ev = cev.number_events(events([(d, "policy", "upload" if i == 5 else "bundled") for i, d in enumerate(days)]))
    keep = cev.thin_events(ev, days[0], days[-1], 100, 40)
    assert keep[ev["label"] == "U1"].all()


def test_a_thinned_layer_keeps_the_numbers_and_names_the_events_not_drawn():
    days = pd.date_range("2025-01-01", periods=30, freq="11D")
    ev = events([(d, ("policy", "legal", "political")[i % 3]) for i, d in enumerate(days)])
    layer = cev.event_layers(ev, lo=days[0], hi=days[-1], size=PHONE)
    marker = next(t for t in layer["traces"] if t.get("name") == cev.TRACE_NAME)
    drawn = [lab for group in marker["customdata"] for lab in group]
    assert 0 < len(drawn) < 30
    not_drawn = sorted(set(map(str, range(1, 31))) - set(drawn), key=int)
    note = next(n for n in layer["notes"] if "not drawn" in n)
    assert f"{len(drawn)} of 30" in note
    assert cev.label_runs(not_drawn) in note
    lines = [x for t in layer["traces"] if t.get("mode") == "lines" for x in t["x"][::3]]
    assert len(lines) == len(drawn)  # a dotted line per drawn event only: no barcode
    es = cev.event_layers(ev, lo=days[0], hi=days[-1], size=PHONE, lang="es")
    assert any("sin dibujar" in n for n in es["notes"])


@pytest.mark.parametrize("labels, text", [(["2", "3", "4", "7", "U1", "U2"], "2\u20134, 7, U1, U2"),
                                          (["5"], "5"), ([], "")])
def test_label_runs(labels, text):
    assert cev.label_runs(labels) == text
