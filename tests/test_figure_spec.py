"""A figure before it is laid out is a typed, frozen ``figures.spec.FigureSpec``: the functions that add to it
or lay it out return new values and leave the spec they were given as it was, and nothing of it but the
Plotly traces and layout reaches a browser or an export. The figures layer draws images itself
(``figures.image``): no figure module reaches up into the outputs (``charts``)."""
from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import json
import tomllib
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest

from analysis.view import View
from charts import export
from figures import blackouts, continuity, image, maps
from figures import core as F
from figures.spec import FigureSpec
from loaders import data as cdata
from loaders.events import load_events
from loaders.reported_figures import load_reported
from tests import bundled
from tests.conftest import ROOT
from views.compose import render

DAY = dt.date(2026, 12, 1)


def _spec(n: int = 60, size: str = "full") -> FigureSpec:
    x = pd.date_range("2025-06-01", periods=n).to_numpy()
    return F.trend_spec([F.Line("ICE detention", x, np.arange(float(n)), unit="people")], title="A title",
                        subtitle="A subtitle", sources=["Source: a publisher"], notes=["A note."],
                        generated_on=DAY, size=size)


def _state(spec: FigureSpec) -> str:
    """Everything a spec holds, as text (arrays as lists), to tell whether anything in it was changed."""
    return json.dumps({f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}, sort_keys=True,
                      default=lambda v: v.tolist() if hasattr(v, "tolist") else repr(v))


def test_a_trend_spec_is_a_frozen_figure_spec_with_no_private_key():
    spec = _spec()
    assert isinstance(spec, FigureSpec)
    assert spec.footer[0] == "Source: a publisher" and spec.footer[1] == "A note."
    assert spec.footer[-1].startswith("Generated on 2026-12-01") and spec.panels == 1 and spec.size.name == "full"
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.footer = ()  # type: ignore[misc]
    assert not any(k.startswith("_") for k in spec.layout)


def test_adding_a_layer_returns_a_new_spec_and_leaves_the_given_one_as_it_was():
    spec = _spec()
    before = _state(spec)
    layer = F.span_layer([("2025-06-05", "2025-06-09")], name="No release", note="Shaded: no release.")
    out = F.add_layer(spec, dict(layer, top_strip=30))
    assert _state(spec) == before
    assert len(out.data) == len(spec.data) + 1 and out.top_strip == 30
    # the layer's note goes before the generated-on line, which stays last
    assert out.footer == spec.footer[:-1] + ("Shaded: no release.",) + spec.footer[-1:]
    assert "yaxis9" in out.layout and "yaxis9" not in spec.layout


def test_laying_out_a_spec_leaves_it_as_it_was_and_twice_gives_the_same_figure():
    spec = F.add_layer(_spec(size="article"), F.span_layer([("2025-06-05", "2025-06-09")], name="No release",
                                                           note="Shaded: no release."))
    before = _state(spec)
    first = F.finish(spec)
    assert _state(spec) == before
    assert set(first) == {"data", "layout"}
    again = F.finish(spec)
    assert json.dumps(first, default=lambda v: v.tolist()) == json.dumps(again, default=lambda v: v.tolist())


@dataclass(frozen=True)
class _Series:  # what add_blackouts reads of a prepared series
    series_id: str
    label: str


def test_blackouts_are_added_to_a_new_spec_and_the_given_one_is_left_as_it_was():
    snap = bundled.snapshot()
    sid = "ice_detention_stats.adp_ice"
    x = pd.date_range("2025-07-01", "2026-01-31", freq="14D")
    x = x[(x < "2025-09-24") | (x > "2025-11-20")].to_numpy()  # nothing published during the shutdown
    spec = F.trend_spec([F.Line("ADP", x, np.arange(float(len(x))), unit="people")], title="t", subtitle="s",
                        sources=[], generated_on=DAY, size="article")
    # the view's range, as build_view_figure sets it: the span notes are placed along it
    spec = dataclasses.replace(spec, layout=dict(spec.layout, xaxis=dict(spec.layout["xaxis"],
                                                                         range=["2025-07-01", "2026-01-31"])))
    before = _state(spec)
    out = blackouts.add_blackouts(spec, snap, [_Series(sid, "ADP")], dt.date(2025, 7, 1), dt.date(2026, 1, 31))
    assert _state(spec) == before, "add_blackouts changed the spec it was given"
    # the line, never joined across the span, is a new trace; the given spec's is untouched
    assert out.data[0]["connectgaps"] is False and "connectgaps" not in spec.data[0]
    assert out.strip_notes and not spec.strip_notes and out.layout["shapes"] and "shapes" not in spec.layout
    # at the figure's own text size
    assert all(a["font"]["size"] >= spec.size.font for a in out.strip_notes)
    fig = F.finish(out)
    assert any("shutdown" in a["text"] for a in fig["layout"]["annotations"])
    assert out.strip_notes[0].get("_span") and "_row" not in out.strip_notes[0], "finish placed the spec's own notes"

    plain = {"data": [dict(t) for t in spec.data], "layout": dict(spec.layout)}
    kept = copy.deepcopy(plain)
    drawn = blackouts.add_blackouts(plain, snap, [_Series(sid, "ADP")], dt.date(2025, 7, 1), dt.date(2026, 1, 31))
    assert json.dumps(plain, default=lambda v: v.tolist()) == json.dumps(kept, default=lambda v: v.tolist())
    assert drawn["layout"]["annotations"] and not any(k.startswith("_") for a in drawn["layout"]["annotations"]
                                                      for k in a)


def _private_keys(obj, path="") -> list[str]:
    """Paths of every dict key starting with "_" anywhere in ``obj``."""
    found = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if str(k).startswith("_"):
                found.append(f"{path}/{k}")
            found += _private_keys(v, f"{path}/{k}")
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            found += _private_keys(v, f"{path}[{i}]")
    return found


@pytest.mark.parametrize("size", ["page", "article", "social", "full"])
@pytest.mark.parametrize("lang", ["en", "es"])
def test_no_private_key_reaches_the_browser_or_an_export(size, lang):
    """The page's figure and every export's: events, reported figures and blackout notes drawn, and no key of
    the spec's own (``_meta``, a note's ``_span`` or ``_row``, a marker's ``_strip_y``) in the Plotly JSON."""
    snap = bundled.snapshot()
    view = View(series=["ice_detention_stats.adp_ice", "ice_detention_stats.book_ins_ice"], preset="custom",
                start=dt.date(2025, 1, 1), end=dt.date(2026, 7, 31), lang=lang)
    r = render(snap, view, events=load_events(cdata.DATA / "events.csv"),
               reported=load_reported(cdata.DATA / "reported_figures.csv"), size=size, generated_on=DAY)
    fig = r.figure.to_plotly_json()
    assert len(r.events) and any("annotations" in k for k in fig["layout"]), "the test draws no events"
    assert [a for a in fig["layout"]["annotations"] if str(a.get("name", "")).startswith("blackout:")], \
        "the test draws no blackout notes"
    assert _private_keys(fig) == []
    text = r.figure.to_json()
    for key in ("_meta", "_span", "_row", "_strip_y", "_x0", "_x1"):
        assert f'"{key}"' not in text
    if size == "article":
        page = export.export_figure(r, "html").decode("utf-8")
        assert '"_meta"' not in page and '"_span"' not in page


def test_no_private_key_in_the_other_figures():
    snap = bundled.snapshot()
    w = pd.DataFrame({"window": ["a"] * 5 + ["b"] * 5, "days_from_date": list(range(-2, 3)) * 2,
                      "value": np.arange(10.0)})
    figs = [F.build_study_figure(w, title="T", subtitle="S", unit="u", sources=["src"], generated_on=DAY),
            continuity.continuity_figure(snap, "detained", generated_on=DAY)]
    view = View(series=["ddp_arrests_aggregates.total_by_state_2025_2026|Texas",
                        "ddp_arrests_aggregates.total_by_state_2025_2026|Florida"], preset="all")
    r = render(snap, view, size="article", generated_on=DAY)
    figs.append(r.figure)
    assert r.figure.data[0].type == "bar"
    for f in figs:
        assert _private_keys(f.to_plotly_json()) == []


def test_no_figure_module_reaches_up_into_the_outputs():
    """The import contract holds with no exception for the figures layer (tests/test_layers.py runs it):
    a map's image is drawn by ``figures.image``, the one Kaleido browser the charts' exports use too."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    layers = next(c for c in conf["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    upward = [i for i in layers.get("ignore_imports", []) if i.startswith("figures")]
    assert upward == []
    assert export.to_image is image.to_image and export.ExportUnavailable is image.ExportUnavailable


def test_a_map_image_without_a_browser_says_what_to_install(monkeypatch):
    monkeypatch.setattr(image, "find_browser", lambda: None)
    fig = go.Figure(layout=dict(height=300))
    with pytest.raises(export.ExportUnavailable, match="apt-get install chromium"):
        maps.to_image(fig, "png")
