"""Maps and charts of the Places view, drawn from bundled outlines so they work with no network.

Plotly's ``geo`` maps need topojson outline files that plotly.js fetches from ``cdn.plot.ly`` by default. The
two this view uses are bundled in ``static/maps/`` (provenance and licence in ``static/maps/PROVENANCE.md``):
- on the page, Streamlit serves them (``server.enableStaticServing``) and ``PAGE_CONFIG`` points plotly.js at
  ``app/static/maps/``;
- in the HTML export they are embedded in the file as ``window.PlotlyGeoAssets``, which plotly.js checks before
  fetching anything;
- for PNG and SVG, Kaleido's headless browser is pointed (``topojson=``) at a loopback-only server that serves
  that folder for as long as the exporting process runs.

``albers usa`` draws the 50 states and DC only: Puerto Rico, the Virgin Islands, Guam and the Northern Mariana
Islands get their own inset panels (outlines from ``world_110m``), and every figure lists what it could not draw.
"""
from __future__ import annotations

import datetime as dt
import functools
import json
import textwrap
import threading
from collections.abc import Callable
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio
from plotly.subplots import make_subplots

from analysis import places as P
from figures import image
from loaders import clock
from loaders.text import html_text
from wording import i18n

MAPS_DIR = Path(__file__).resolve().parent.parent / "static" / "maps"
TOPOJSON = ("usa_110m", "world_110m")
# Streamlit serves static/<file> at /app/static/<file>; relative, so a --server.baseUrlPath still works.
PAGE_CONFIG = {"topojsonURL": "app/static/maps/", "displaylogo": False}
DASHBOARD = i18n.t("places.fig.dashboard")

INSETS = {  # name -> (longitude range, latitude range, states drawn there)
    "Puerto Rico and U.S. Virgin Islands": ((-67.6, -64.4), (17.6, 18.8), ("PR", "VI")),
    "Guam and Northern Mariana Islands": ((142.6, 148.2), (12.9, 15.7), ("GU", "MP")),
}
LAND, BORDER = "#f2f2f2", "#9a9a9a"
# The main map fills the plot from MAIN_BOTTOM up; the band under it holds the inset panels on the right (x from
# 0.52) and the map key on the left. A key inside the map's own box covered Alaska, which albers usa draws at the
# bottom left (issue 37); in the band it covers nothing at any width.
MAIN_BOTTOM = 0.16
MAP_LEGEND = dict(x=0, xanchor="left", y=MAIN_BOTTOM - 0.01, yanchor="top", itemsizing="constant",
                  bgcolor="rgba(255,255,255,0)", font=dict(size=11))


# ---------------------------------------------------------------- text inside every figure

def _wrap(text: str, width: int = 170) -> list[str]:
    return textwrap.wrap(text, width) or [""]


def _t(key: str, lang: str, **fields) -> str:
    """A figure text of the Places view (locales/*.toml, places.fig.*) in ``lang``."""
    return i18n.t(f"places.fig.{key}", lang, **fields)


def _n(value, decimals: int | None, separators: str = ",") -> str:
    """A figure's number with the reader's thousands mark ("75,000" or "75.000"), as i18n.number writes it;
    formatted exactly as before for "," (a missing value still prints as Python prints it), then the marks
    swapped for "."."""
    text = f"{value:,}" if decimals is None else f"{value:,.{decimals}f}"
    return i18n.localise_numbers(text, separators) if separators != "," else text


def _separators(fig: go.Figure, separators: str) -> None:
    # Plotly's own number formatting (hover templates, axes) follows the choice; the default "," leaves the
    # layout as it was, so English output stays byte-identical.
    if separators != ",":
        fig.update_layout(separators=i18n.plotly_separators(separators))


def _footer(fig: go.Figure, lines: list[str], *, top: float = -0.04, lang: str = "en", today: dt.date | None = None) -> None:
    """Sources, dates and caveats as one block under the plot: whatever is outside a PNG is lost. The last line
    says the day the map was made: ``today``, else the page's day (``loaders.clock``: DASHBOARD_TODAY, else
    today)."""
    wrapped = [w for line in lines for w in _wrap(line)]
    day = today or clock.today()
    wrapped.append(_t("generated", lang, date=day.isoformat(), dashboard=_t("dashboard", lang)))
    fig.add_annotation(text="<br>".join(html_text(w) for w in wrapped), xref="paper", yref="paper", x=0, y=top,
                       xanchor="left", yanchor="top", showarrow=False, align="left", font=dict(size=11, color="#444"))
    fig.update_layout(margin=dict(b=40 + 15 * len(wrapped)), height=(fig.layout.height or 600) + 15 * len(wrapped))


def _title(fig: go.Figure, title: str, subtitle: str) -> None:
    # The subtitle wrapped as the footer is (Plotly never wraps a title): on one line, the facility map's Spanish
    # subtitle ran 120 px past the right edge of a 1,120 px figure. Each extra line takes room from the top.
    lines = _wrap(subtitle)
    sub = "<br>".join(f"<sup>{html_text(line)}</sup>" for line in lines)
    fig.update_layout(title=dict(text=f"<b>{html_text(title)}</b><br>{sub}", x=0.01,
                                 xanchor="left"), template="plotly_white", font=dict(size=13))
    if len(lines) > 1:
        extra = 14 * (len(lines) - 1)
        fig.update_layout(margin=dict(t=(fig.layout.margin.t or 100) + extra),
                          height=(fig.layout.height or 600) + extra)
    # The title as typed, kept beside the figure for file names, alt text and pages (as figures.core does):
    # nothing reads it back out of the escaped HTML.
    fig._title_plain = title


def release_label(pl: P.Places, source: str, release: str, lang: str = "en") -> str:
    r = pl.releases[(pl.releases["source"] == source) & (pl.releases["release"] == release)]
    if not len(r):
        return f"{source} {release}"
    return r["label"].iloc[0] if lang == "en" else P.release_text(source, release, r["date"].iloc[0], lang)


def _source_lines(pl: P.Places, source: str, release: str, *, per_capita: bool = False,
                  lang: str = "en") -> list[str]:
    lines = [_t("source", lang, by=_t(f"by_{source}", lang), release=release_label(pl, source, release, lang)),
             P.caveat("adp", lang)]
    if per_capita:
        year = P.population_year(release, pl.state_population)
        lines.append(_t("rate", lang, year=year))
    return lines


# ---------------------------------------------------------------- geo layout

def _geo(**kw) -> dict:
    base = dict(showland=True, landcolor=LAND, subunitcolor=BORDER, countrycolor=BORDER, showlakes=False,
                showcountries=True, showsubunits=True, bgcolor="rgba(0,0,0,0)", resolution=110)
    base.update(kw)
    return base


INSET_KEYS = {"Puerto Rico and U.S. Virgin Islands": "inset_pr_vi", "Guam and Northern Mariana Islands": "inset_gu_mp"}


def _layout_geos(fig: go.Figure, lang: str = "en") -> None:
    """The main albers-usa map, and the territory insets along the bottom right."""
    fig.update_layout(geo=_geo(scope="usa", projection_type="albers usa", domain=dict(x=[0, 1], y=[MAIN_BOTTOM, 1])))
    for i, (name, (lon, lat, _)) in enumerate(INSETS.items(), start=2):
        x0 = 0.52 + (i - 2) * 0.25
        fig.update_layout(**{f"geo{i}": _geo(scope="world", projection_type="mercator", lonaxis_range=list(lon),
                                             lataxis_range=list(lat), domain=dict(x=[x0, x0 + 0.22], y=[0, 0.17]),
                                             showframe=True, framecolor=BORDER)})
        fig.add_annotation(text=html_text(_t(INSET_KEYS[name], lang)), xref="paper", yref="paper", x=x0, y=0.175, xanchor="left",
                           yanchor="bottom", showarrow=False, font=dict(size=10, color="#555"))


def _territory_points(snap_points: pd.DataFrame, usps: str) -> tuple[float, float] | None:
    """The mean of a state's or territory's Census county points (lat, lon), or None when it has none."""
    pts = snap_points[snap_points["usps"] == usps] if len(snap_points) else snap_points
    if len(pts):
        return float(pts["lat"].astype(float).mean()), float(pts["lon"].astype(float).mean())
    return None


def _inset_values(fig: go.Figure, table: pd.DataFrame, col: str, colorscale: str, zmax: float, county_points,
                  label: Callable, hover: Callable) -> None:
    """The values of the states drawn in the inset panels (Alaska, Hawaii, the territories): a marker and a label
    each, at the state's Census point; Guam and the Marianas have none, so theirs are stacked in their panel."""
    pts = county_points if county_points is not None else pd.DataFrame(columns=["usps", "lat", "lon"])
    for i, (_name, (lon, lat, states)) in enumerate(INSETS.items(), start=2):
        sub = table[table["state"].isin(states)]
        for j, s in enumerate(sub.itertuples(index=False)):
            where = _territory_points(pts, s.state) or (lat[0] + (lat[1] - lat[0]) * (0.3 + 0.4 * j), np.mean(lon))
            fig.add_trace(go.Scattergeo(lat=[where[0]], lon=[where[1]], geo=f"geo{i}", mode="markers+text",
                                        text=[label(s)], textposition="top center",
                                        marker=dict(size=14, color=[getattr(s, col)], colorscale=colorscale, cmin=0,
                                                    cmax=zmax, line=dict(color=BORDER, width=1)),
                                        hovertext=[hover(s)], hoverinfo="text", showlegend=False))


def state_map(pl: P.Places, source: str, release: str, *, per_capita: bool = False, county_points=None,
              lang: str = "en", separators: str = ",", today: dt.date | None = None) -> go.Figure:
    t = P.state_totals(pl, source, release)
    col = "per_100k" if per_capita else "detained_adp"
    unit = _t("unit_per" if per_capita else "unit_people", lang)
    main = t[~t["territory"] & (t["state"] != "(no state)")]
    fig = go.Figure()
    hover = [f"<b>{html_text(n)}</b><br>{_n(v, 1, separators)} {unit}<br>"
             + _t("hover_facilities", lang, n=_n(f, None, separators))
             + ("<br>" + _t("hover_people_residents", lang, people=_n(a, 0, separators),
                            residents=_n(int(r), None, separators))
                if per_capita and r == r else "")
        for n, v, f, a, r in zip(main["state_name"], main[col], main["facilities"], main["detained_adp"],
                                 main["residents"])]
    zmax = float(t[col].max()) if len(t) and t[col].notna().any() else 1.0
    fig.add_trace(go.Choropleth(locations=main["state"], z=main[col], locationmode="USA-states", geo="geo",
                                colorscale="Blues", zmin=0, zmax=zmax, marker_line_color="white",
                                colorbar=dict(title=dict(text=_t("colorbar_per" if per_capita else "colorbar_people", lang)),
                                              len=0.6, y=0.6),
                                hovertext=hover, hoverinfo="text", name=_t("states_trace", lang)))
    _layout_geos(fig, lang)
    def label(s) -> str:
        v = getattr(s, col)
        return f"{s.state}: {_n(v, 1, separators)}" if v == v else f"{s.state}: {_t('not_available', lang)}"

    _inset_values(fig, t, col, "Blues", zmax, county_points, label,
                  lambda s: f"<b>{html_text(s.state_name)}</b><br>{_n(getattr(s, col), 1, separators)} {unit}")
    what = _t("what_per" if per_capita else "what_adp", lang)
    _title(fig, _t("state_title", lang, what=what),
           _t("state_subtitle", lang, release=release_label(pl, source, release, lang)))
    lines = _source_lines(pl, source, release, per_capita=per_capita, lang=lang)
    terr = t[t["territory"]]
    if len(terr):
        lines.append(_t("territories", lang, items="; ".join(
            f"{s.state_name} {_n(s.detained_adp, 1, separators)}"
            + (_t("territory_rate", lang, rate=_n(s.per_100k, 1, separators)) if s.per_100k == s.per_100k
               else _t("territory_no_rate", lang))
            for s in terr.itertuples(index=False))))
    lines.append(_t("grey", lang))
    nostate = t[t["state"] == "(no state)"]
    if len(nostate):
        lines.append(_t("no_state", lang, adp=_n(nostate['detained_adp'].sum(), 1, separators)))
    lines.append(_t("total", lang, adp=_n(t['detained_adp'].sum(), 1, separators)))
    fig.update_layout(height=640)
    _separators(fig, separators)
    _footer(fig, lines, lang=lang, today=today)
    return fig


def _county_disagreement(views, lang: str) -> str:
    """A hover line naming the county each source gives, when they do not agree (``places.CountyPick.views``);
    "" when they do."""
    if not isinstance(views, tuple) or not views:
        return ""
    items = "; ".join(_t(f"county_by_{src}", lang, county=html_text(label), zip=detail) for src, label, detail in views)
    return "<br>" + _t("facility_hover_county_disagree", lang, items=items)


def facility_map(pl: P.Places, source: str, release: str, lang: str = "en", separators: str = ",", *,
                 today: dt.date | None = None) -> go.Figure:
    cs = P.facility_cross_section(pl, source, release)
    drawn = cs[cs["lat"].notna()]
    missing = cs[cs["lat"].isna()]
    fig = go.Figure()
    vmax = float(cs["value"].max()) if len(cs) else 1.0
    sizeref = 2.0 * vmax / (40 ** 2) if vmax > 0 else 1

    # One trace per kind of place, each named in the map key: a county's internal point, a ZIP code's centre or a
    # city's centre (``places``: where a facility is drawn); every one is approximate and the hover says which.
    kinds = [k for k in ("county", "zip", "city") if (drawn["placed"] == k).any()]
    symbols = {"county": "circle", "zip": "diamond", "city": "square"}

    def trace(df, geo, show, kind, sizemin=2):
        return go.Scattergeo(
            lat=df["lat"], lon=df["lon"], geo=geo, mode="markers", showlegend=show, legendgroup=kind,
            name=_t(f"facility_trace_{kind}", lang),
            marker=dict(size=df["value"].clip(lower=0), sizemode="area", sizeref=sizeref, sizemin=sizemin,
                        symbol=symbols[kind], color="#0072B2", opacity=0.6, line=dict(color="white", width=0.5)),
            customdata=df["facility_id"],
            hovertext=[f"<b>{html_text(str(n))}</b><br>{html_text(str(c))}, {html_text(str(s))}"
                       + (f" ({html_text(str(cty))})" if cty else "")
                       + f"<br>{_t('facility_hover_adp', lang, adp=_n(v, 1, separators))}<br>"
                       f"{_t('facility_hover_office', lang, office=html_text(str(fo)), type=html_text(str(ty)))}"
                       f"<br><i>{_t(f'facility_hover_point_{kind}', lang)}</i>" + _county_disagreement(views, lang)
                       for n, c, s, cty, v, fo, ty, views in zip(df["name"], df["city"], df["state"], df["county"],
                                                                 df["value"], df["field_office"], df["type"],
                                                                 df["county_views"])],
            hoverinfo="text")

    inset_states = {s for *_, sts in INSETS.values() for s in sts}
    for kind in kinds:
        sub = drawn[(drawn["placed"] == kind) & ~drawn["state"].isin(inset_states)]
        fig.add_trace(trace(sub, "geo", True, kind))
    _layout_geos(fig, lang)
    for i, (_name, (_lon, _lat, states)) in enumerate(INSETS.items(), start=2):
        for kind in kinds:
            sub = drawn[drawn["state"].isin(states) & (drawn["placed"] == kind)]
            if len(sub):  # small sites on small islands: keep visible
                fig.add_trace(trace(sub, f"geo{i}", False, kind, sizemin=5))
        gone = missing[missing["state"].isin(states)]
        if len(gone):  # no place known: said under the panel, not a made-up position
            x0 = 0.52 + (i - 2) * 0.25
            fig.add_annotation(text=_t("inset_not_drawn", lang, n=len(gone), adp=_n(gone['value'].sum(), 1, separators)),
                               xref="paper", yref="paper", x=x0, y=-0.005,
                               xanchor="left", yanchor="top", showarrow=False, font=dict(size=10, color="#555"))
    _title(fig, _t("facilities_title", lang),
           _t("facilities_subtitle", lang, drawn=len(drawn), total=len(cs), zip=int((drawn["placed"] == "zip").sum()),
              city=int((drawn["placed"] == "city").sum()), release=release_label(pl, source, release, lang)))
    lines = _source_lines(pl, source, release, lang=lang)
    lines.append(P.caveat("points", lang) + _t("points_sources", lang))
    if (drawn["placed"] != "county").any():
        lines.append(_t("gazetteer_sources", lang))
    if len(missing):
        top = ", ".join(f"{n} ({_n(v, 0, separators)})" for n, v in zip(missing["name"].head(6), missing["value"].head(6)))
        lines.append(_t("not_drawn", lang, n=len(missing), adp=_n(missing['value'].sum(), 1, separators),
                        total=_n(cs['value'].sum(), 1, separators), top=top))
    fig.update_layout(height=640, legend=MAP_LEGEND)
    _separators(fig, separators)
    _footer(fig, lines, lang=lang, today=today)
    return fig


def field_office_figure(pl: P.Places, source: str, release: str, snap=None, lang: str = "en",
                        separators: str = ",", *, today: dt.date | None = None) -> go.Figure:
    t = P.field_office_totals(pl, source, release, snap).sort_values("detained_adp")
    fig = make_subplots(rows=1, cols=2, shared_yaxes=True, horizontal_spacing=0.04,
                        subplot_titles=(_t("fo_in_detention", lang), _t("fo_in_atd", lang)))
    labels = [str(o).replace(" Field Office", "") for o in t["office"]]
    fig.add_trace(go.Bar(x=t["detained_adp"], y=labels, orientation="h", marker_color="#0072B2",
                         name=_t("fo_trace_detained", lang),
                         hovertemplate="%{y}: %{x:,.1f} " + _t("fo_hover_adp", lang) + "<extra></extra>"), 1, 1)
    fig.add_trace(go.Bar(x=t["atd"], y=labels, orientation="h", marker_color="#E69F00", name=_t("fo_trace_atd", lang),
                         hovertemplate="%{y}: %{x:,.0f} " + _t("fo_hover_atd", lang) + "<extra></extra>"), 1, 2)
    atd_date = next((d for d in t["atd_date"] if d), "")
    _title(fig, _t("fo_title", lang), _t("fo_subtitle", lang, release=release_label(pl, source, release, lang)))
    lines = _source_lines(pl, source, release, lang=lang)
    lines.append(_t("fo_atd", lang, date=atd_date or _t("not_available", lang)))
    fig.update_layout(height=max(500, 22 * len(t) + 150), showlegend=False, bargap=0.25)
    _separators(fig, separators)
    _footer(fig, lines, top=-0.06, lang=lang, today=today)
    return fig


def facility_history_figure(pl: P.Places, facility_id: str, lang: str = "en", separators: str = ",", *,
                            today: dt.date | None = None) -> go.Figure:
    h = P.facility_history(pl, facility_id)
    f = pl.facilities.set_index("facility_id").loc[facility_id]
    fig = go.Figure()
    d = h[h["source"] == "ddp"].sort_values("date")
    if len(d):
        # Monthly averages drawn as steps across each month: a period value, not a point on its first day.
        xs = [x for a, b in zip(d["date"], d["end"]) for x in (a, b + pd.Timedelta(days=1), None)]
        ys = [y for v in d["value"] for y in (v, v, None)]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=_t("ddp_line", lang),
                                 line=dict(color="#009E73", width=2), hovertemplate="%{y:,.1f}<extra>DDP</extra>"))
    styles = {"ice": (_t("style_ice", lang), "#0072B2", "circle"),
              "sheet": (_t("style_sheet", lang), "#56B4E9", "diamond"),
              "trac": (_t("style_trac", lang), "#E69F00", "x")}
    for src, (name, colr, sym) in styles.items():
        s = h[h["source"] == src].sort_values("date")
        if len(s):
            fig.add_trace(go.Scatter(x=s["date"], y=s["value"], mode="markers", name=name,
                                     marker=dict(color=colr, symbol=sym, size=9),
                                     customdata=s["release"],
                                     hovertemplate="%{y:,.1f} " + _t("hover_as_of", lang) + " %{x|%Y-%m-%d} ("
                                                   + _t("hover_release", lang) + " %{customdata})<extra></extra>"))
    _title(fig, f"{f['name']} ({f['code'] or _t('no_ice_code', lang)})",
           _t("facility_subtitle", lang, city=f["city"], state=f["state"],
              office=f["field_office"] or _t("unknown", lang), type=f["type"] or _t("unknown", lang))
           + (f"; {f['address']}" if f["address"] else ""))
    fig.update_layout(yaxis_title=_t("people", lang), height=520, legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom"),
                      margin=dict(t=140))
    lines = [_t("facility_sources", lang), P.caveat("adp", lang), _t("ddp_vs_ice", lang),
             _t("names_carried", lang, names=f["names"])]
    if f["notes"]:
        lines.append(_t("notes", lang, notes=f["notes"]))
    _separators(fig, separators)
    _footer(fig, lines, top=-0.1, lang=lang, today=today)
    return fig


def state_history_figure(pl: P.Places, state: str, snap=None, lang: str = "en",
                         separators: str = ",", *, today: dt.date | None = None) -> go.Figure:
    h = P.state_history(pl, state)
    name = P.USPS.get(state, ("", state))[1]
    fig = go.Figure()
    d = h[h["source"] == "ddp"]
    if len(d):
        xs = [x for a, b in zip(d["date"], d["end"]) for x in (a, b + pd.Timedelta(days=1), None)]
        ys = [y for v in d["value"] for y in (v, v, None)]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=_t("ddp_state_line", lang),
                                 line=dict(color="#009E73")))
    for src, (label, colr) in {"ice": (_t("state_style_ice", lang), "#0072B2"),
                               "sheet": (_t("style_sheet", lang), "#56B4E9"),
                               "trac": (_t("state_style_trac", lang), "#E69F00")}.items():
        s = h[h["source"] == src]
        if len(s):
            fig.add_trace(go.Scatter(x=s["date"], y=s["value"], mode="markers", name=label, marker=dict(color=colr, size=9),
                                     customdata=np.stack([s["release"], s["facilities"]], axis=-1),
                                     hovertemplate="%{y:,.1f} " + _t("hover_as_of", lang) + " %{x|%Y-%m-%d}; "
                                                   + _t("hover_release", lang) + " %{customdata[0]}; %{customdata[1]} "
                                                   + _t("hover_facilities_n", lang) + "<extra></extra>"))
    _title(fig, _t("state_history_title", lang, name=name), _t("state_history_subtitle", lang))
    fig.update_layout(yaxis_title=_t("people", lang), height=500, legend=dict(orientation="h", x=0, y=1.0, yanchor="bottom"),
                      margin=dict(t=140))
    lines = [P.caveat("adp", lang), _t("ddp_state_note", lang), _t("state_sources", lang)]
    _separators(fig, separators)
    _footer(fig, lines, top=-0.1, lang=lang, today=today)
    return fig


def arrests_by_state(snap, state: str, lang: str = "en") -> pd.DataFrame:
    """The arrest figures there are for a state, each with its period and caveat (in ``lang``; the columns
    and series ids stay as they are)."""
    name = P.USPS.get(state, ("", state))[1]
    rows = []
    for sid, note in (("ddp_arrests_aggregates.total_by_state_2025_2026", _t("arrests_note_total", lang)),
                      ("ddp_arrests_aggregates.daily_by_state_lower_bound", _t("arrests_note_daily", lang)),
                      ("ddp_arrests_aggregates.seattle_aor_monthly_by_state", _t("arrests_note_seattle", lang))):
        df = snap.by_series.get(sid)
        if df is None:
            continue
        s = df[df["key"] == name]
        if len(s):
            title = snap.catalogue.loc[sid, "title"] if sid in snap.catalogue.index else sid
            rows.append({"figure": i18n.series_text(sid, "title", lang, title) if lang != "en" else title,
                         "from": s["date"].min().date().isoformat(), "to": s["end"].max().date().isoformat(),
                         "arrests": float(s["value"].sum()), "caveat": note, "series": sid})
    return pd.DataFrame(rows, columns=["figure", "from", "to", "arrests", "caveat", "series"])


# ---------------------------------------------------------------- offline exports

@functools.lru_cache(maxsize=1)
def geo_assets_script() -> str:
    """``window.PlotlyGeoAssets`` with the bundled outlines: plotly.js uses these before it fetches anything."""
    topo = {n: json.loads((MAPS_DIR / f"{n}.json").read_text("utf-8")) for n in TOPOJSON}
    return "window.PlotlyGeoAssets = {topojson: %s};" % json.dumps(topo, separators=(",", ":"))


class _MapsHandler(SimpleHTTPRequestHandler):
    def __init__(self, *a, **kw):
        super().__init__(*a, directory=str(MAPS_DIR), **kw)

    def end_headers(self):
        # Kaleido's page is a file:// document (origin "null"): it may read these JSON files only with CORS.
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    served: list[str] = []  # paths asked for, so a test can tell the outlines came from here

    def log_message(self, fmt, *args):  # quiet: an internal helper, not a web server people use
        if args and isinstance(args[0], str):
            _MapsHandler.served.append(args[0])


_SERVER: ThreadingHTTPServer | None = None
_SERVER_LOCK = threading.Lock()


def topojson_url() -> str:
    """URL of a loopback-only server for static/maps, started once per process (daemon thread)."""
    global _SERVER
    with _SERVER_LOCK:
        if _SERVER is None:
            _SERVER = ThreadingHTTPServer(("127.0.0.1", 0), _MapsHandler)
            threading.Thread(target=_SERVER.serve_forever, daemon=True, name="maps-topojson").start()
        return f"http://127.0.0.1:{_SERVER.server_address[1]}/"


def to_image(fig: go.Figure, fmt: str = "png", *, width: int = 1200) -> bytes:
    """PNG or SVG through the project's one Kaleido browser (``figures.image``, the charts' exports' too), with
    the outlines served from this machine."""
    pio.defaults.topojson = topojson_url()
    return image.to_image(fig, fmt, width=width, height=int(fig.layout.height or 640))


# ---------------------------------------------------------------- deaths in ICE custody

def _d(key: str, lang: str, **fields) -> str:
    """A figure text of the deaths maps (locales/*.toml, deaths.fig.*) in ``lang``."""
    return i18n.t(f"deaths.fig.{key}", lang, **fields)


def _dn(key: str, count: int, lang: str, **fields) -> str:
    """A counted figure text of the deaths maps ("1 death", "2 deaths"), as ``_d``."""
    return i18n.plural(f"deaths.fig.{key}", count, lang, **fields)


def deaths_source_lines(entry: dict, last: dt.date | None, lang: str = "en") -> list[str]:
    """Who compiled the list, how far it runs, and the credit its licence (CC BY 4.0) asks for, as the trend
    charts write them (``figures.core.source_lines``)."""
    text = i18n.t("figure.source", lang, publisher=entry.get("publisher", "deaths_in_custody"),
                  title=entry.get("title", ""))
    if last is not None:
        text += i18n.t("figure.data_to", lang, date=last.isoformat())
    lines = [text + "."]
    credit = entry.get("attribution", "")
    if credit:
        # The credit in the reader's language when the catalogue words it (deaths.credit, whose English is the
        # loader's line word for word); else the declared line with a translated "Source:".
        if lang != "en" and credit == i18n.t("deaths.credit", "en"):
            credit = i18n.t("deaths.credit", lang)
        elif lang != "en" and credit.startswith("Source: "):
            credit = i18n.t("figure.source_prefix", lang) + credit[len("Source: "):]
        lines.append(credit + ".")
    return lines


def _period_text(start: dt.date, end: dt.date, lang: str) -> str:
    return i18n.date_range(start, end, lang, "long")


def deaths_state_map(counts: pd.DataFrame, start: dt.date, end: dt.date, notes: list[str], sources: list[str],
                     *, county_points=None, lang: str = "en", separators: str = ",",
                     today: dt.date | None = None) -> go.Figure:
    """Deaths in ICE custody in a period by state (``analysis.deaths.by_state``): counts only, no name, no cause."""
    main = counts[~counts["territory"] & (counts["state"] != "(no state)")]
    fig = go.Figure()
    zmax = float(counts["deaths"].max()) if len(counts) else 1.0
    hover = [f"<b>{html_text(n)}</b><br>" + _dn("hover_deaths", int(v), lang, n=_n(int(v), None, separators))
             for n, v in zip(main["state_name"], main["deaths"])]
    fig.add_trace(go.Choropleth(locations=main["state"], z=main["deaths"], locationmode="USA-states", geo="geo",
                                colorscale="Reds", zmin=0, zmax=max(zmax, 1.0), marker_line_color="#bbbbbb",
                                colorbar=dict(title=dict(text=_d("colorbar", lang)), len=0.6, y=0.6),
                                hovertext=hover, hoverinfo="text", name=_d("states_trace", lang)))
    _layout_geos(fig, lang)
    _inset_values(fig, counts, "deaths", "Reds", max(zmax, 1.0), county_points,
                  lambda s: f"{s.state}: {int(s.deaths)}",
                  lambda s: f"<b>{html_text(s.state_name)}</b><br>" + _dn("hover_deaths", int(s.deaths), lang))
    _title(fig, _d("state_title", lang), _d("state_subtitle", lang, range=_period_text(start, end, lang)))
    lines = list(sources) + [i18n.t("deaths.caveat", lang)] + list(notes)
    terr = counts[counts["territory"]]
    if len(terr):
        lines.append(_d("territories", lang, items="; ".join(f"{s.state_name} {int(s.deaths)}"
                                                             for s in terr.itertuples(index=False))))
    nostate = counts[counts["state"] == "(no state)"]
    if len(nostate):
        lines.append(_dn("no_state", int(nostate["deaths"].sum()), lang))
    lines.append(_d("grey", lang))
    lines.append(_d("total", lang, n=_n(int(counts["deaths"].sum()), None, separators)))
    fig.update_layout(height=640)
    _separators(fig, separators)
    _footer(fig, lines, lang=lang, today=today)
    return fig


def deaths_facility_map(table: pd.DataFrame, unplaced: pd.DataFrame, start: dt.date, end: dt.date,
                        notes: list[str], sources: list[str], *, lang: str = "en", separators: str = ",",
                        today: dt.date | None = None) -> go.Figure:
    """Deaths in ICE custody in a period at each facility of the Places table (``analysis.deaths.by_facility``),
    each drawn at its county's internal point. A bubble's customdata is the facility id (a click picks it on the
    page). Hover: the facility, its count and first and latest date; never a name or a cause."""
    fig = go.Figure()
    vmax = float(table["deaths"].max()) if len(table) else 1.0
    sizeref = 2.0 * vmax / (36 ** 2) if vmax > 0 else 1

    def trace(df, geo, show, sizemin=6):
        return go.Scattergeo(
            lat=df["lat"], lon=df["lon"], geo=geo, mode="markers", showlegend=show, name=_d("facility_trace", lang),
            marker=dict(size=df["deaths"], sizemode="area", sizeref=sizeref, sizemin=sizemin, color="#B2182B",
                        opacity=0.65, line=dict(color="white", width=0.5)),
            customdata=df["facility_id"],
            hovertext=[f"<b>{html_text(str(n))}</b><br>{html_text(str(c))}, {html_text(str(s))}<br>"
                       + _dn("hover_deaths", int(v), lang, n=_n(int(v), None, separators)) + "<br>"
                       + _d("hover_dates", lang, first=a, last=b)
                       for n, c, s, v, a, b in zip(df["name"], df["city"], df["state"], df["deaths"], df["first"],
                                                   df["last"])],
            hoverinfo="text")

    in_insets = table["state"].isin({s for *_, sts in INSETS.values() for s in sts})
    fig.add_trace(trace(table[~in_insets], "geo", True))
    _layout_geos(fig, lang)
    for i, (_name, (_lon, _lat, states)) in enumerate(INSETS.items(), start=2):
        sub = table[table["state"].isin(states)]
        if len(sub):
            fig.add_trace(trace(sub, f"geo{i}", False, sizemin=8))
    drawn = int(table["deaths"].sum())
    total = drawn + len(unplaced)
    _title(fig, _d("facility_title", lang),
           _d("facility_subtitle", lang, range=_period_text(start, end, lang), drawn=_n(drawn, None, separators),
              total=_n(total, None, separators)))
    lines = list(sources) + [i18n.t("deaths.caveat", lang)] + list(notes) + [_d("matched", lang),
                                                                              P.caveat("points", lang)]
    if len(unplaced):
        lines.append(_dn("not_drawn", len(unplaced), lang, n=_n(len(unplaced), None, separators)))
    fig.update_layout(height=640, legend=MAP_LEGEND)
    _separators(fig, separators)
    _footer(fig, lines, lang=lang, today=today)
    return fig
