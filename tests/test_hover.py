"""Hover on an exported chart: every drawn point answers the mouse (issue 26).

The event layer used to be a full-height plot area drawn over the panels: it took every hover, so no data
point and no reported figure could be read, only the event markers. This test opens an exported HTML chart in
headless Chromium, puts the mouse on the first point of a series, of a reported figure and of an event marker
in view, and reads the hover label Plotly draws."""
from __future__ import annotations

import datetime as dt

import pytest

from analysis.view import View
from charts import export
from tests import bundled
from tests.test_e2e import CHROMIUM, LAUNCH_ARGS, sync_api
from views.compose import render

pytestmark = pytest.mark.browser

SNAP = bundled.snapshot()

# The screen position of the first point in view of every trace, from Plotly's own axes.
POINTS_JS = """() => {
  const gd = document.querySelector('.js-plotly-plot'), fl = gd._fullLayout, box = gd.getBoundingClientRect();
  const out = [];
  gd._fullData.forEach((t, i) => {
    if (!t.x || t.visible !== true) return;
    const xa = fl[t.xaxis.replace('x', 'xaxis')], ya = fl[t.yaxis.replace('y', 'yaxis')];
    const [lo, hi] = xa.range.map(v => xa.r2l(v));
    for (let k = 0; k < t.x.length; k++) {
      if (t.x[k] == null || t.y[k] == null || t.hoverinfo === 'skip') continue;
      const xl = xa.d2l(t.x[k]);
      if (xl < lo || xl > hi) continue;
      out.push({trace: i, name: t.name, x: box.left + xa._offset + xa.l2p(xl),
                y: box.top + ya._offset + ya.l2p(ya.d2l(t.y[k]))});
      return;
    }
  });
  return out;
}"""


def hover_labels(html_path) -> dict[str, str]:
    """Trace name -> the text of the hover label shown with the mouse on its first point in view."""
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        try:
            page = b.new_page(viewport={"width": 1280, "height": 900})
            page.goto(html_path.as_uri())
            page.wait_for_selector(".js-plotly-plot .draglayer")
            out = {}
            for pt in page.evaluate(POINTS_JS):
                page.mouse.move(pt["x"], pt["y"])
                page.wait_for_timeout(400)
                out.setdefault(pt["name"], page.evaluate(
                    "() => document.querySelector('.hoverlayer').textContent"))
                page.mouse.move(2, 2)
                page.wait_for_timeout(50)
            return out
        finally:
            b.close()


def test_data_points_reported_figures_and_events_all_answer_the_mouse(tmp_path):
    v = View(series=["ice_detention_stats.book_ins_ice"], preset="since-2025-01-20")
    r = render(SNAP, v, events=SNAP.events, reported=SNAP.reported, generated_on=dt.date(2026, 12, 1))
    assert r.reported is not None and len(r.reported) and r.figure.layout.hovermode == "closest"
    path = tmp_path / "chart.html"
    path.write_bytes(export.export_figure(r, "html"))
    labels = hover_labels(path)
    series = next(v for k, v in labels.items() if k.startswith("Initial book-ins"))
    # the value with its unit, the period it covers, its release and its publisher
    assert "book-ins per day" in series and "covers 2025-" in series and "release of 20" in series, series
    assert "Immigration and Customs Enforcement" in series, series
    reported = labels["Reported counts and estimates (not official series)"]
    assert "reported by" in reported, reported
    assert labels["Events"].startswith("1. "), labels["Events"]
