"""The Places view's outputs: a map as a standalone HTML page, and ``python -m charts export --view places``
writing the page's Places figure or table to a file (``views.places.render`` draws it).
"""
from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import plotly.graph_objects as go

from analysis import places as P
from charts import export as cexport
from charts import templates
from figures import maps
from loaders import clock
from loaders import data as cdata
from views import link
from views.places import DEATH_MAPS, default_release, render
from wording import i18n


def map_html(fig: go.Figure) -> bytes:
    """A map as a standalone page that draws offline: plotly.js and the outlines are both inside the file
    (charts/templates/export_map.html)."""
    chart = fig.to_html(include_plotlyjs=True, full_html=False, config={"displaylogo": False})
    return templates.render("export_map.html", chart=chart, outlines=maps.geo_assets_script()).encode("utf-8")


def export(data_dir, q: dict, fmt: str, out, width: int = 1200, lang: str = "en", separators: str | None = None,
           today: dt.date | None = None) -> int:
    """``python -m charts export --view places ...``: the page's Places figure or table, written to ``out``, dated
    ``today`` (else the page's day: ``loaders.clock``)."""
    snap = cdata.load_snapshot(data_dir)
    pl = P.build(snap)
    view = link.places_from_query(q)
    if q.get("release") and not view.release:
        print(f"error: release {q['release']!r} is not '<ice|sheet|trac>:YYYY-MM-DD'", file=sys.stderr)
        return 2
    if view.release and view.release not in {P.release_key(s, r) for s, r in
                                             zip(pl.releases["source"], pl.releases["release"])}:
        print(f"error: no release {view.release}; known: "
              + ", ".join(P.release_key(s, r) for s, r in zip(pl.releases["source"], pl.releases["release"])),
              file=sys.stderr)
        return 2
    today = today or clock.today()
    r = render(snap, pl, view, lang, i18n.check_separators(separators, lang), today=today)
    if r.figure is None:
        print(f"error: {r.problem}", file=sys.stderr)
        return 2
    try:
        if fmt == "csv":
            payload = cexport.to_csv(r.table, sources=r.sources, title=r.title, lang=lang, generated_on=today)
        elif fmt == "html":
            payload = map_html(r.figure)
        else:
            payload = maps.to_image(r.figure, fmt, width=width or 1200)  # the page's size when none is asked
    except cexport.ExportUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    out = Path(out)
    try:  # atomic: a full disk left a cut states.html in place of a good one, with a traceback
        cexport.write_file(out, payload)
    except OSError as e:
        print(i18n.t("cli.error", lang, message=i18n.t("cli.cannot_write", lang, out=out, reason=e.strerror or e)),
              file=sys.stderr)
        return 1
    what = i18n.date_range(*view.period()) if view.map in DEATH_MAPS else view.release or default_release(pl)
    print(f"wrote {out} ({len(payload):,} bytes; {view.map}, {what})")
    return 0


PAGE_CONFIG = maps.PAGE_CONFIG
"""Plotly's config for a map drawn on the page (outlines served from the app's static folder, no logo): the page
passes it with every map it draws, so it is part of the outputs' interface."""


def map_image(fig: go.Figure, fmt: str) -> bytes:
    """A map as a PNG or SVG file (``fmt``: "png" or "svg"), for the page's download buttons."""
    return maps.to_image(fig, fmt)
