"""No map key sits over the map (issue 37: the key of the facility maps covered Alaska, which albers usa draws at
the bottom left of the main map). Every Places and deaths map, in both languages: a key lies in the band under the
main map and left of the inset panels; a colour bar lies right of the plot."""
from __future__ import annotations

import datetime as dt

import pytest

from analysis import places as P
from figures import maps
from loaders import data as cdata
from views.places import MAPS, PlacesView, render

SNAP = cdata.load_snapshot()
GEO_MAPS = [m for m in MAPS if m in ("state", "facilities", "deaths-state", "deaths-facilities")]


@pytest.fixture(scope="module")
def pl() -> P.Places:
    return P.build(SNAP)


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("which", GEO_MAPS)
def test_no_key_or_colour_bar_covers_the_map(pl, which, lang):
    view = PlacesView(map=which, start=dt.date(2025, 1, 20), end=dt.date(2026, 1, 24))
    fig = render(SNAP, pl, view, lang).figure
    main = fig.layout.geo.domain
    insets = [fig.layout[k].domain for k in ("geo2", "geo3")]
    # a choropleth stays out of the key unless asked; a scatter is in it unless told not to be
    keyed = [t for t in fig.data if t.showlegend or (t.showlegend is None and t.type != "choropleth")]
    if keyed:
        lg = fig.layout.legend
        assert lg.yanchor == "top" and lg.y <= main.y[0], (which, lg.y, main.y)  # under the main map
        assert lg.xanchor == "left" and lg.x < min(d.x[0] for d in insets)  # left of the insets
        assert lg.orientation in (None, "v")
    for t in fig.data:
        bar = getattr(t, "colorbar", None)
        if bar is not None and getattr(t, "showscale", None) is not False and t.type == "choropleth":
            assert bar.x is None or bar.x >= 1  # Plotly's default sits right of the plot


def test_the_band_under_the_main_map_is_where_the_insets_are():
    """The layout the key relies on: the main map starts at MAIN_BOTTOM and the insets start right of the middle."""
    import plotly.graph_objects as go
    fig = go.Figure()
    maps._layout_geos(fig)
    assert fig.layout.geo.domain.y[0] == maps.MAIN_BOTTOM
    assert min(fig.layout[k].domain.x[0] for k in ("geo2", "geo3")) >= 0.5
    assert maps.MAP_LEGEND["y"] <= maps.MAIN_BOTTOM and maps.MAP_LEGEND["yanchor"] == "top"
