"""Pure figure builders: prepared series in, a Plotly figure out, with everything that matters inside it.

Whatever lives only outside a figure is lost when someone downloads the PNG, so the title (saying what is
drawn, in which unit), the date range, a y-axis title with the unit, the source line (with release and data
dates), the events, the notes and the generated-on line are drawn into the figure itself.

A figure is laid out for one size (``SIZES``): the page, an article column (680 px), a square social card
or the full 1200 px image. Font sizes, line wrapping and the event markers' clustering depend on the width,
so each export is built for its size rather than scaled after the fact.

Series of different units never share an axis: each unit gets its own panel (small multiples stacked on one
date axis). Extra layers (events; later, spans where a publisher released nothing) are added to a figure
spec with ``add_layer``: a layer is traces on the full-height overlay axis plus notes for the footer.
"""
from __future__ import annotations

import copy
import datetime as _dt  # fiscal_ticks' name for it (its body is unchanged in this move)
import datetime as dt
import html
import math
import re
import textwrap
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import plotly.graph_objects as go

from analysis import status
from figures.blackouts import add_blackouts  # spans with no release from the series' publishers, shaded and noted
from figures.events import event_layers
from figures.labels import display_label, localised_label

# SIZES is read as figures.core.SIZES too (the sizes a figure is built for), so it is named here as well.
from figures.layout import FOOTER_EM as FOOTER_EM
from figures.layout import (
    OVERLAY_AXIS,
    OVERLAY_REF,
    Size,
    footer_chars,
    height_limit,
    left_margin,
    place_labels,
    place_layers,
    shape_height,
    size_of,
    stack_notes,
    text_floor,
)
from figures.layout import SIZES as SIZES
from figures.layout import panel_axis_name as _yaxis_name
from figures.layout import panel_ref as _yref
from figures.spec import FigureSpec
from loaders import clock
from loaders.data import coverage_spans, covered_bounds, is_flow, iso_days
from loaders.ledger import SHORT_NAMES
from loaders.reported_figures import default_kind
from loaders.text import html_text
from loaders.tidy import FLAGS, INFO_FLAGS
from wording import citation, flag_messages, i18n

# Line styles: colour, dash and marker together, so series are told apart in colour, in greyscale and by
# readers with a colour-vision deficiency. Every colour has at least 3:1 contrast on white (WCAG 2 for
# graphics; tests/test_publishable.py computes it). "dash" and the diamond are kept for reported figures.
STYLES = (
    ("#0072B2", "solid", "circle"),
    ("#D55E00", "dot", "square"),
    ("#009E73", "dashdot", "triangle-up"),
    ("#AA3377", "longdashdot", "x"),
    ("#B07800", "solid", "star"),
    ("#7B3294", "dot", "cross"),
    ("#00798C", "dashdot", "hexagon"),
    ("#8C510A", "longdashdot", "triangle-down"),
    ("#A50026", "solid", "pentagon"),
    ("#6B6B00", "dot", "hourglass"),
    ("#595959", "dashdot", "bowtie"),
    ("#2E5EAA", "longdashdot", "star-triangle-up"),
)
MAX_SERIES = len(STYLES)  # view.py keeps at most 12 series; past that a chart refuses rather than repeat a look
PALETTE = [s[0] for s in STYLES]
REPORTED_STYLE = ("#000000", "dash", "diamond")
NEUTRAL = "#595959"  # footer and subtitle text: 7:1 on white
TEXT = "#1f2d3d"
MAX_PANELS = 4
# A light look written out, not Plotly's "plotly_white" template: resolving that template costs ~10 ms on
# every figure, a tenth of a page rerun.
_GRID = "#E3E8F0"
_AXIS = dict(gridcolor=_GRID, linecolor="#B8C2D0", zerolinecolor="#B8C2D0", ticks="", automargin=True)
# The plot background is transparent (the paper is white): the strip's overlay axis is its own subplot, and
# an opaque background there would hide what is drawn under it.
LIGHT_LAYOUT = dict(paper_bgcolor="white", plot_bgcolor="rgba(0,0,0,0)", colorway=PALETTE)
CHAR_EM = 0.58  # average glyph width in em for the fonts Plotly falls back to (Open Sans/Verdana/Arial)
LEGEND_EM = 0.5  # legend labels, measured: about 0.47 em in the export's font; a little over, for other fonts
MIN_PANEL_PX = 90  # the shortest a panel gets when an article-size figure is held to its height


def min_panel_px(sz: Size) -> float:
    """The shortest a panel gets when a compact figure is held to its height: ``MIN_PANEL_PX`` at the article's
    12 px ticks, taller in proportion at a larger font (a social card's 22 px ticks need as many rows)."""
    return MIN_PANEL_PX * max(1.0, sz.font / 12)


def _x(values) -> np.ndarray:
    """Dates as ISO text: Plotly converts datetime64 arrays value by value (3 ms a trace); text goes straight
    through and draws the same date axis."""
    arr = np.asarray(values)
    if not np.issubdtype(arr.dtype, np.datetime64):
        return arr
    text = iso_days(arr)
    gaps = np.isnat(arr)
    if gaps.any():  # a break (``break_gaps``) is a blank to Plotly, never the text "NaT" on the date axis
        text = text.astype(object)
        text[gaps] = None
    return text


@dataclass
class Line:
    label: str
    x: np.ndarray  # datetime64
    y: np.ndarray  # float
    unit: str = ""
    flagged: np.ndarray | None = None  # bool mask of points to mark (partial, quality flags)
    panel: int = 0  # which stacked panel (one unit per panel)
    hover: np.ndarray | None = None  # per point: what the value covers, its release, source and flags in words
    # Written beside the line's only point in view ("58,766 on 4 Apr 2026"): a lone dot says nothing in a PNG.
    point_label: str = ""
    point_side: str = "middle right"
    # The revision band behind the line (``loaders.asof.revision_band``): per period, the lowest and highest
    # figure the releases printed, and each period's hover text; None draws no band.
    band: Band | None = None


@dataclass
class Band:
    x: np.ndarray  # datetime64, the periods' start dates
    low: np.ndarray
    high: np.ndarray
    hover: np.ndarray  # per period, in words: how many releases, the range, first published, last revised
    name: str = ""  # the legend entry (on the first band drawn only)


@dataclass
class Panel:
    y_title: str  # the unit, always
    log: bool = False
    extra_values: list = field(default_factory=list)  # other values drawn in the panel (reported figures)


def build_trend_figure(lines: list[Line], **kw) -> go.Figure:
    """A line chart with its title, subtitle, sources, notes and generated-on line inside it."""
    return go.Figure(finish(trend_spec(lines, **kw)))


def trend_spec(lines: list[Line], *, title: str, subtitle: str, sources: list[str], x_title: str = "",
               y_title: str = "", log_y: bool = False, notes: list[str] | None = None,
               generated_on: dt.date | None = None, height: float | None = None, size="full",
               panels: list[Panel] | None = None, lang: str = "en", sep: str = ",") -> FigureSpec:
    """The figure as a ``FigureSpec`` (traces, layout and what laying it out needs), for callers that add
    layers before ``finish`` lays it out. ``panels`` gives each panel its unit; without it, one panel titled
    ``y_title``."""
    sz = size_of(size)
    if len(lines) > MAX_SERIES:
        raise ValueError(i18n.t("cli.too_many_series", lang, n=len(lines), most=MAX_SERIES))
    panels = panels or [Panel(y_title or (lines[0].unit if lines else ""), log=log_y)]
    if len(panels) > MAX_PANELS:
        raise ValueError(i18n.t("cli.too_many_panels", lang, n=len(panels), most=MAX_PANELS))
    traces: list[dict] = []
    for i, ln in enumerate(lines):
        colour, dash, symbol = STYLES[i]
        x, y, hover = break_gaps(ln.x, ln.y, ln.hover)
        # Labels carry data (facility and office names from the files): escaped for the legend and the hover
        # box, and "%{" split so a name cannot inject a hovertemplate field such as %{customdata}.
        label, unit = html_text(ln.label), _template_literal(html_text(ln.unit))
        # Markers on about 14 points of a long line: enough to tell the lines apart in greyscale without hiding
        # the line under markers. Plotly picks them, evenly over the points in view (maxdisplayed); a size per
        # point (0 on the others) had it draw a hidden marker for every point, which made the browser's redraw
        # after a range change about twice as slow (bench_page.py).
        marker = dict(size=sz.font * 0.6, symbol=symbol, color=colour, line=dict(width=0))
        if len(x) > 40:
            marker["maxdisplayed"] = 14
        value = "%{y:,.0f}" if np.nanmax(np.abs(np.append(y, 0.0))) >= 100 else "%{y:,.3~f}"  # a share keeps its digits
        if ln.band is not None and len(ln.band.x):
            traces += band_traces(ln.band, colour=colour, panel=ln.panel, group=f"s{i}", bar_px=sz.font,
                                  legend=not any(t.get("fill") == "toself" and t.get("showlegend") for t in traces))
        trace = dict(
            type="scatter", x=_x(x), y=y, name=label, mode="lines+markers", yaxis=_yref(ln.panel),
            line=dict(color=colour, width=2.5 if sz.name != "social" else 4, dash=dash),
            marker=marker,
            legendgroup=f"s{i}",
            hovertemplate="%{x|%Y-%m-%d}: " + value + (f" {unit}" if unit else "")
                          + ("<br>%{text}" if hover is not None else "") + "<extra>"
                          + _template_literal(html_text(_short(ln.label, 60))) + "</extra>",
        )
        if hover is not None:
            trace["text"] = hover
        if ln.point_label:
            trace.update(mode="lines+markers+text", texttemplate=_template_literal(html_text(ln.point_label)),
                         textposition=ln.point_side, textfont=dict(size=sz.font, color=colour), cliponaxis=False)
            marker["size"] = sz.font * 0.9
        traces.append(trace)
        if ln.flagged is not None and ln.flagged.any():
            traces.append(dict(
                type="scatter", x=_x(ln.x[ln.flagged]), y=ln.y[ln.flagged], mode="markers", showlegend=False,
                yaxis=_yref(ln.panel), legendgroup=f"s{i}",
                name=html_text(i18n.t("figure.flagged", lang, label=ln.label)),
                marker=dict(symbol="circle-open", size=sz.font, color=colour, line=dict(width=2)),
                hovertemplate="%{x|%Y-%m-%d}: %{y:,.0f} " + i18n.t("figure.hover_flagged", lang) + "<extra></extra>",
            ))
    footer = list(sources)
    if notes:
        footer += notes
    footer.append(i18n.t("figure.generated_on", lang, date=(generated_on or clock.today()).isoformat()))
    layout = dict(
        LIGHT_LAYOUT,
        font=dict(color=TEXT, size=sz.font),
        title=dict(text=f"<b>{html_text(title)}</b>", x=0, xref="paper", xanchor="left", yanchor="top",
                   font=dict(size=sz.title, color=TEXT)),
        width=sz.width,
        legend=dict(orientation="h", yanchor="bottom", x=0, xanchor="left", font=dict(size=sz.font),
                    itemsizing="constant", tracegroupgap=0),
        xaxis=dict(_AXIS, title=dict(text=x_title, font=dict(size=sz.font)) if x_title else None,
                   tickfont=dict(size=sz.font), type="date" if not x_title else "linear"),
        hovermode="x unified",
        hoverlabel=dict(font=dict(size=max(12, sz.font))),
    )
    if lang != "en" or sep != ",":
        # Plotly's own number marks (ticks, hover boxes): the decimal mark, then the thousands mark. Left out
        # of the default English figure so that it stays as it was.
        layout["separators"] = i18n.plotly_separators(sep, lang)
    lines_values: dict[int, list[np.ndarray]] = {}  # each panel's line values
    for ln in lines:
        lines_values.setdefault(ln.panel, []).append(np.asarray(ln.y, dtype="float64"))
        if ln.band is not None:  # the axis holds the band too: a revised figure above the line is not cut off
            lines_values[ln.panel] += [np.asarray(ln.band.low, dtype="float64"), np.asarray(ln.band.high, dtype="float64")]
    for k, p in enumerate(panels):
        vals = lines_values.get(k, []) + [np.asarray(p.extra_values, dtype="float64")]
        layout[_yaxis_name(k)] = _panel_axis(p, np.concatenate([v.ravel() for v in vals]) if vals else np.array([]), sz,
                                             sep=sep)
    return FigureSpec(data=tuple(traces), layout=layout, size=sz, title=title, subtitle=subtitle,
                      footer=tuple(footer), panels=len(panels), x_title=x_title, height=height, lang=lang,
                      sources=len(sources))


def band_traces(band: Band, *, colour: str, panel: int, group: str, legend: bool, bar_px: float = 12.0) -> list[dict]:
    """A revision band as traces drawn before its line, so the line stays on top: the shaded area (one closed
    shape per run of periods that have a band, so a period with none, or a span with no release, is a gap
    rather than a fill joined across it), invisible points on its upper edge that carry each period's hover
    text, and, when a period's band stands alone (no neighbour with a band, or a gap in the dates on each side),
    a shaded bar ``bar_px`` wide from its lowest to its highest figure: a shape of one period has no width and
    was drawn as nothing, and a width in days would vanish in a long view. Filling down to a second trace
    ("tonexty") drew a wrong shape across such gaps."""
    x, low, high, hover = break_gaps(band.x, band.low, band.high, band.hover)
    x = np.asarray(x, dtype="datetime64[ns]")
    low, high = np.asarray(low, dtype="float64"), np.asarray(high, dtype="float64")
    ok = ~np.isnat(x) & np.isfinite(low) & np.isfinite(high)
    xs: list = []
    ys: list = []
    alone = np.zeros(len(x), dtype=bool)
    for start, stop in _runs(ok):
        # A period alone stays in the area too, as a shape of no width: Plotly lists no legend entry for a
        # trace with no points, and the entry must be there when every period of the band stands alone.
        alone[start] = stop - start == 1
        seg = slice(start, stop)
        xs += list(_x(x[seg])) + list(_x(x[seg][::-1])) + [None]
        ys += list(high[seg]) + list(low[seg][::-1]) + [None]
    alone &= high > low  # a period every release printed alike has no range to draw (its point is the line's)
    fill = "rgba({},{},{},0.22)".format(*(int(colour[k:k + 2], 16) for k in (1, 3, 5)))
    area = dict(type="scatter", x=xs, y=ys, yaxis=_yref(panel), mode="lines", fill="toself", fillcolor=fill,
                line=dict(width=0, color=fill), hoverinfo="skip", legendgroup=group, name=html_text(band.name),
                # One legend entry says what the shading is, after the lines' entries (drawn first, listed after).
                showlegend=bool(legend and band.name), legendrank=1001)
    points = dict(type="scatter", x=_x(x[ok]), y=high[ok], yaxis=_yref(panel), mode="markers",
                  marker=dict(size=8, color=fill, opacity=0), text=np.asarray(hover, dtype=object)[ok],
                  hovertemplate="%{text}<extra></extra>", legendgroup=group, showlegend=False,
                  name=html_text(band.name))
    if not alone.any():
        return [area, points]
    # An error bar, down from the highest figure to the lowest, is a width in px at any zoom; no caps, so it
    # reads as a narrow piece of the same shading (the legend's swatch) rather than as a confidence interval.
    bars = dict(type="scatter", x=_x(x[alone]), y=high[alone], yaxis=_yref(panel), mode="markers",
                marker=dict(size=1, color=fill, opacity=0), hoverinfo="skip", legendgroup=group, showlegend=False,
                name=html_text(band.name),
                error_y=dict(type="data", symmetric=False, array=np.zeros(int(alone.sum())),
                             arrayminus=high[alone] - low[alone], color=fill, thickness=bar_px, width=0))
    return [area, points, bars]


def _runs(ok: np.ndarray) -> list[tuple[int, int]]:
    """The runs of True in ``ok``, as (start, stop) index pairs."""
    edges = np.flatnonzero(np.diff(np.concatenate(([0], ok.astype(np.int8), [0]))))
    return list(zip(edges[::2].tolist(), edges[1::2].tolist()))


def add_layer(spec: FigureSpec, layer: dict) -> FigureSpec:
    """A new spec with a layer added, to lay out with ``finish``: ``traces`` (drawn on the full-height overlay
    axis ``y9``, which runs 0 at the bottom of the panels to 1 at their top), ``notes`` (footer lines, before
    the generated-on line), ``top_strip`` (px reserved above the panels, e.g. for event markers) and ``layout``
    (extra layout keys). ``spec`` is left as it was.

    This is how the event markers are added, and how a shaded-span layer (periods with no release) would be:
    see ``span_layer``."""
    layout = dict(spec.layout)
    layout.update(layer.get("layout", {}))
    layout.setdefault(OVERLAY_AXIS, dict(range=[0, 1], domain=[0, 1], anchor="x", visible=False, fixedrange=True))
    return replace(spec, data=spec.data + tuple(layer.get("traces", [])), layout=layout,
                   footer=spec.footer[:-1] + tuple(layer.get("notes", [])) + spec.footer[-1:],
                   top_strip=max(spec.top_strip, layer.get("top_strip", 0)))


def span_layer(spans, *, name: str, note: str, colour: str = "#9AA5B1", opacity: float = 0.25) -> dict:
    """Shaded x-spans (``[(start, end), ...]``, ISO dates) over every panel, one trace for all of them, with a
    legend entry and a footer note. Use with ``add_layer``."""
    xs, ys = [], []
    for a, b in spans:
        xs += [str(a), str(a), str(b), str(b), str(a), None]
        ys += [0, 1, 1, 0, 0, None]
    if not xs:
        return {}
    return {"traces": [dict(type="scatter", x=xs, y=ys, yaxis=OVERLAY_REF, fill="toself", mode="lines",
                            line=dict(width=0), fillcolor=colour, opacity=opacity, name=html_text(name),
                            hoverinfo="skip", legendgroup="spans")],
            "notes": [note]}


def legend_height(data: list[dict], legend_w: float, font: float) -> float:
    """The height of the horizontal legend of ``data``'s entries in ``legend_w`` px. Entries flow left to right,
    about 40 px of symbol and gap plus the text each; a name on several lines adds its lines. The entries of one
    legend group are a block, one under another (Plotly stacks a group even in a horizontal legend): a line and
    its revision band's entry take two rows where they stand, and a row is as tall as its tallest block."""
    blocks: dict[str, list[list[str]]] = {}
    for i, t in enumerate(data):
        name = t.get("name")
        if t.get("showlegend", True) and name and not any(name.split("<br>") in b for b in blocks.values()):
            blocks.setdefault(t.get("legendgroup") or f"#{i}", []).append(name.split("<br>"))
    rows: list[int] = []  # each row's height in entries: its tallest block
    used = 0.0
    for block in blocks.values():
        w = 50 + max(len(html.unescape(x)) for e in block for x in e) * font * LEGEND_EM
        if not rows or (used and used + w > legend_w):
            rows.append(0)
            used = 0.0
        used += w
        rows[-1] = max(rows[-1], len(block))
    lines = sum(len(e) - 1 for b in blocks.values() for e in b)
    return sum(rows) * font * 2.0 + 6 + lines * font * 1.3


def lay_legend(data: list[dict], legend: dict, legend_w: float, font: float, columns: bool) -> float:
    """Wrap the legend's names for ``legend_w`` px at ``font`` and return the legend's height.

    Entries flow left to right, about 40 px of symbol and gap plus the text each; an entry longer than the
    legend's width goes on more lines (a Spanish series name on a social card ran past the card's edge: Plotly
    does not wrap a legend entry itself). With ``columns`` (a busy view at its height limit), the entries are
    laid in the number of columns (one to three) that takes the fewest px, each name wrapped to its column:
    twelve long names took a row each, the rest of the row empty."""
    legend["font"] = dict(legend.get("font") or {}, size=font)
    if columns:
        height, width, names = min((legend_columns(data, legend_w, font, n) for n in (1, 2, 3)), key=lambda c: c[0])
        for t in data:
            t["name"] = names.get(t.get("name") or "", t.get("name"))
        # Plotly gives a horizontal legend at most half the figure's height before it scrolls (cut in an image):
        # here it may take the whole height, so a legend a little taller than counted is never cut.
        legend.update(entrywidth=width, entrywidthmode="pixels", maxheight=1)
        return height
    most = max(20, int((legend_w - 60) / (font * LEGEND_EM)))
    for t in data:
        name = t.get("name") or ""
        if t.get("showlegend", True) and "<br>" not in name and len(html.unescape(name)) > most:
            t["name"] = "<br>".join(textwrap.wrap(name, most, break_on_hyphens=False))
    return legend_height(data, legend_w, font)


def legend_columns(data: list[dict], legend_w: float, font: float, n: int) -> tuple[float, float, dict[str, str]]:
    """The legend in ``n`` columns: its height, each entry's text width (Plotly's ``entrywidth``, px) and each
    name wrapped to it. The height is counted as Plotly draws a horizontal legend: an entry is its lines at 1.3
    em (at least 16 px) plus 3 px, the entries of one legend group stack (a line and its revision band), a row is
    as tall as its tallest group, and the legend has 5 px above and below; 0.4 em is added for fonts a little
    wider than the export's."""
    # Plotly starts a new row when the next group would pass the plot's width: the legend's 24 px narrower than
    # ``legend_w``, less what the y axes' ticks push the plot right by (28 px of a social card's 946 px): each
    # entry is its text's width plus 40 px of symbol and 5 px of gap.
    width = (legend_w - 24) * 0.93 / n - 47
    most = max(10, int(width / (font * LEGEND_EM)))
    blocks: dict[str, float] = {}
    names: dict[str, str] = {}
    for i, t in enumerate(data):
        name = t.get("name") or ""
        if not (t.get("showlegend", True) and name) or name in names:
            continue
        names[name] = "<br>".join(textwrap.wrap(name.replace("<br>", " "), most, break_on_hyphens=False)) or name
        group = t.get("legendgroup") or f"#{i}"
        blocks[group] = blocks.get(group, 0.0) + max((names[name].count("<br>") + 1) * font * 1.3, 16) + 3
    heights = list(blocks.values())
    rows = [max(heights[k:k + n]) for k in range(0, len(heights), n)]
    return sum(rows) + 10 + font * 0.4, width, names


def finish(spec: FigureSpec) -> dict:
    """Lay the spec out for its size: margins from the title, legend and wrapped footer; panel domains; the
    height (a square card stays square unless its text cannot fit). Returns a Plotly-ready dict (``data`` and
    ``layout`` only); ``spec`` is left as it was."""
    sz: Size = spec.size
    # Laid out on copies: the layout's nested dicts (axes, title, legend) are filled in below, the traces of a
    # layer are moved to their axes, and the span notes are placed; the spec keeps what it was given. (The copy
    # costs about 0.2 ms for a page figure with events and reported figures; a render takes about 60 ms.)
    lay = copy.deepcopy(spec.layout)
    data = [dict(t) for t in spec.data]
    strip_notes = [dict(a) for a in spec.strip_notes]
    left = left_margin(sz)
    plot_w = sz.width - left - 24
    wrap_w = min(plot_w, (sz.wrap_px or sz.width) - left - 24)
    font = spec.text_font or sz.font  # the legend's and the footer's: smaller when a busy view needs the room
    chars = footer_chars(sz, font)
    # A word longer than a line (an official file's URL) is broken rather than run past the figure's edge; the
    # CSV and the HTML export carry it whole.
    # Past its limit, a compact figure's notes give way to one line (``giving_way``): the spans' notes and the
    # line on unlabelled figures too.
    strip_notes = [] if spec.notes_elsewhere else strip_notes
    lines = spec.footer if not spec.unlabelled or spec.notes_elsewhere else spec.footer[:-1] + (
        i18n.plural("figure.note_unlabelled", spec.unlabelled, spec.lang),) + spec.footer[-1:]
    footer = [w for t in lines for w in (textwrap.wrap(t, chars, break_on_hyphens=False) or [""])]
    # The title, subtitle and legend too: at the page's narrowest the legend took more rows than counted and
    # ran into the notes above the plot, and the title ran off the right edge.
    narrow = min(sz.width, sz.wrap_px or sz.width)
    # Both start at the plot's left edge (x = 0 in paper units), after the left margin.
    head_w = narrow - left - 8
    sub = textwrap.wrap(spec.subtitle, max(30, int(head_w / (sz.font * 1.05 * CHAR_EM))))
    title_lines = textwrap.wrap(spec.title, max(20, int(head_w / (sz.title * 0.62))))
    line_h = font * 1.35
    title_text = "<br>".join(f"<b>{html_text(t)}</b>" for t in title_lines)
    if sub:
        title_text += "<br>" + "<br>".join(
            f"<span style='font-size:{round(sz.font * 1.05)}px;color:{NEUTRAL}'>{html_text(s)}</span>" for s in sub)
    lay["title"]["text"] = title_text
    # Plotly spaces every line of the title element at 1.3 times the title's font, the subtitle's smaller lines
    # too (measured in the SVG export: 41.6 px a line at the social size's 32 px title). Counted at their own
    # size, a subtitle of four lines (a chart's overdue sources) ran 40 px into the legend.
    title_h = (len(title_lines) + len(sub)) * sz.title * 1.3
    legend_w = narrow - left  # Plotly wraps a horizontal legend at the figure's edge, not the plot's
    legend_h = lay_legend(data, lay["legend"], legend_w, font, spec.legend_columns)
    head_h = sz.toolbar_px + 14 + title_h + 8
    top = head_h + (0 if sz.legend_below else legend_h) + 6
    x_ticks_h = sz.font * 2.2 + (sz.font * 1.6 if spec.x_title else 0)
    if lay["xaxis"].get("ticktext") and any("<br>" in t for t in lay["xaxis"]["ticktext"]):
        x_ticks_h += sz.font * 1.3
    elif _date_span_days(lay["xaxis"]) < 370:
        # Plotly's date ticks on a range under a year or so carry the year on a second line ("Feb 8 / 2026"):
        # counted for one line only, that year sat on the footer's first line.
        x_ticks_h += sz.font * 1.3
    footer_h = len(footer) * line_h + 12
    under_h = legend_h if sz.legend_below else 0.0  # the legend's rows between the ticks and the footer
    # Notes of spans with no release, in rows of their own above the event markers (figures.layout.stack_notes).
    xr = lay["xaxis"].get("range")
    if spec.text_font:  # the notes of spans with no release are notes too: as small as the footer's
        for a in strip_notes:
            a["font"] = dict(a.get("font") or {}, size=min(font, (a.get("font") or {}).get("size") or font))
    note_font = max((a.get("font") or {}).get("size") or sz.font for a in strip_notes) if strip_notes else sz.font
    note_rows = stack_notes(strip_notes, xr[0], xr[1], wrap_w, note_font) if strip_notes and xr else 0
    note_h = note_font * 1.4
    notes_h = note_rows * note_h + (4 if note_rows else 0)
    marker_strip = spec.top_strip
    strip = marker_strip + notes_h
    per_panel = 170
    plot_h: float = max(spec.height or sz.plot_height, per_panel * spec.panels)
    others = top + strip + x_ticks_h + under_h + footer_h
    if sz.square:
        # Square when the text leaves the plot at least 300 px; otherwise (a long event list, a long title or
        # legend) the card grows taller, with a plot as tall as the full-size image's, up to the size's height
        # limit: past it the plot gives way first, down to the floor where a panel still reads (a Spanish card
        # of three panels ran 51 px past its limit with its plot at 560 px).
        plot_h = sz.width - others if others + 300 <= sz.width else max(
            min(max(plot_h, 560), height_limit(sz) - others), min_panel_px(sz) * spec.panels)
    elif sz.max_ratio:
        # An article column: the plot takes every pixel the text leaves up to the column's ratio (at the size's
        # own 340 px the seed view's plot was 340 of 814 px), and gives way first, down to a floor where a panel
        # still reads. A height asked for (bars, one per member) is kept when it fits.
        room = height_limit(sz) - others
        plot_h = max(min(plot_h, room) if spec.height else room, min_panel_px(sz) * spec.panels)
    total = others + plot_h
    lay["height"] = int(math.ceil(total))
    lay["margin"] = dict(l=left, r=24, t=int(top), b=int(x_ticks_h + under_h + footer_h),
                         autoexpand=False)
    # Both placed from the top in pixels: Plotly's "top" anchor on a multi-line title sits the first line's
    # cap height on the edge, so the title starts one title-size down; the legend starts under the subtitle
    # (any slack from the row estimate falls between the legend and the plot, not over the title).
    H = lay["height"]
    lay["title"].update(y=1 - (sz.toolbar_px + 12 + sz.title * 0.9) / H, yref="container", yanchor="top")
    if sz.legend_below:
        lay["legend"].update(y=(under_h + footer_h) / H, yref="container", yanchor="top")
    else:
        lay["legend"].update(y=1 - head_h / H, yref="container", yanchor="top")
    # The plot area is the strip (event markers) over the panels; panels top to bottom, one unit each, with a
    # gap for the upper panel's tick labels.
    area = plot_h + strip
    panels_top = plot_h / area
    n = spec.panels
    gap = min(0.08, 3 * sz.font / plot_h) if n > 1 else 0
    h = (1 - gap * (n - 1)) / n
    for k in range(n):
        top_k = 1 - k * (h + gap)
        lay[_yaxis_name(k)]["domain"] = [max(0.0, (top_k - h) * panels_top), top_k * panels_top]
    lay["xaxis"]["anchor"] = _yref(n - 1)
    _fit_axis_titles(lay, n, area, sz)
    strip_top = 1 - notes_h / area
    unplaced: list[str] = []
    labels = _point_label_annotations(spec.point_labels, lay, data, area, sz, unplaced) if spec.point_labels else []
    if unplaced:
        # Laid out again without them and with a footer line that says how many (the plot is a line shorter, so
        # the others are placed again).
        return finish(replace(spec, point_labels=tuple(p for p in spec.point_labels if p["text"] not in unplaced),
                              unlabelled=spec.unlabelled + len(unplaced)))
    if OVERLAY_AXIS in lay:
        data = place_layers(lay, data, n, strip_bottom=panels_top, strip_top=strip_top)
    for a in strip_notes:
        a.update(y=1 - a.pop("_row") * note_h / area, yref="paper", yanchor="top")
    lay["annotations"] = list(lay.get("annotations", [])) + strip_notes + labels
    lay["annotations"] = list(lay.get("annotations", [])) + [dict(
        text="<br>".join(html_text(t) for t in footer), xref="paper", yref="paper", x=0, y=0, xanchor="left",
        yanchor="top", yshift=-(x_ticks_h + under_h), showarrow=False, align="left", font=dict(size=font, color=NEUTRAL))]
    return {"data": data, "layout": lay}


LABEL_MAX_PX = 16  # point labels' font, at most
MAX_DODGE_DAYS = 7  # markers on one spot are set side by side when that moves none by more than this


def _panel_of(ref: str) -> int:
    return int(ref[1:] or 1) - 1


def _point_label_annotations(point_labels, lay: dict, data: list[dict], area: float, sz: Size,
                             unplaced: list[str]) -> list[dict]:
    """The spec's point labels as annotations pointing at their points, placed by ``place_labels`` in the
    laid-out geometry (the panels' heights and ranges, the date axis, the event lines, the markers). The texts
    of labels that found no room are added to ``unplaced``."""
    xr = lay["xaxis"].get("range")
    if not xr or lay["xaxis"].get("type") != "date":
        return []
    x0, x1 = dt.date.fromisoformat(str(xr[0])[:10]), dt.date.fromisoformat(str(xr[1])[:10])
    span = max((x1 - x0).days, 1)
    plot_w = lay["width"] - lay["margin"]["l"] - lay["margin"]["r"]
    rects = []
    for k in range(sum(1 for key in lay if key == "yaxis" or (key.startswith("yaxis") and key[5:].isdigit()
                                                                and int(key[5:]) < 9))):
        d0, d1 = lay[_yaxis_name(k)]["domain"]
        rects.append(((1 - d1) * area, (1 - d0) * area))

    def px(d) -> float:
        return (dt.date.fromisoformat(str(d)[:10]) - x0).days / span * plot_w

    def value_at(k: int, v: float) -> float | None:
        ax = lay[_yaxis_name(k)]
        if not ax.get("range") or (ax.get("type") == "log" and v <= 0):
            return None
        return math.log10(v) if ax.get("type") == "log" else v

    def py(k: int, v: float) -> float | None:
        vv, ax = value_at(k, v), lay[_yaxis_name(k)]
        if vv is None:
            return None
        r0, r1 = ax["range"]
        top, bottom = rects[k]
        return top + (1 - (vv - r0) / ((r1 - r0) or 1)) * (bottom - top)

    points: list[tuple[int, float, float]] = []  # the reported figures' markers; the data lines' points
    refs: list[tuple[dict, int]] = []  # each marker's trace and index, for ``_dodge``
    data_points: list[tuple[int, float, float]] = []
    for t in data:
        if t.get("yaxis") == OVERLAY_REF or t.get("type") != "scatter":
            continue
        k = _panel_of(t.get("yaxis", "y"))
        into = points if str(t.get("legendgroup", "")).startswith("reported") else data_points
        if into is points and "markers" not in str(t.get("mode", "")):
            continue  # a target's line has no marker
        for i, (x, y) in enumerate(zip(t["x"], t["y"])):
            at = py(k, y) if x is not None and y is not None and y == y and k < len(rects) else None
            if at is not None:
                into.append((k, px(x), at))
                if into is points:
                    refs.append((t, i))
    marker = sz.font * 0.7 + 3
    points = _dodge(points, refs, marker, x0, span / plot_w)
    lines_x = sorted({px(x) for t in data if t.get("yaxis") == OVERLAY_REF and "_strip_y" not in t
                      and t.get("mode") == "lines" and not t.get("fill") for x in t["x"] if x is not None})
    todo = [dict(lab, px=px(lab["x"]), py=py(lab["panel"], lab["y"])) for lab in point_labels
            if lab["panel"] < len(rects) and py(lab["panel"], lab["y"]) is not None]
    out = []
    # A social card's 22 px text made six labels too big for its plot to hold apart: labels there are 16 px (the
    # card's smallest text stays its ticks and footer, at 22).
    font = min(sz.font, LABEL_MAX_PX)
    for g in place_labels(todo, panels=rects, plot_w=plot_w, font=font, points=points, lines_x=lines_x,
                          marker_px=marker, data_points=data_points):
        if not g["placed"]:
            unplaced.extend(g["texts"])
            continue
        out.append(dict(
            name="point-label", x=g["x"], y=value_at(g["panel"], g["y"]), xref="x", yref=_yref(g["panel"]),
            text="<br>".join(html_text(t) for t in g["texts"]), align="left", showarrow=True, arrowhead=0,
            arrowwidth=1, arrowcolor=NEUTRAL, standoff=marker / 2, axref="pixel", ayref="pixel",
            ax=g["cx"] - g["px"], ay=g["cy"] - g["py"], font=dict(size=font, color=TEXT),
            bgcolor="rgba(255,255,255,0.9)", borderpad=2))
    return out


def _dodge(points: list[tuple[int, float, float]], refs: list[tuple[dict, int]], marker: float, x0: dt.date,
           days_per_px: float) -> list[tuple[int, float, float]]:
    """Markers of reported figures that would cover each other (the hollow 787 under two 800s at one period's
    end) are set side by side, a marker's width apart about their spot, so each is seen; the footer says so
    (figure.note_labels). Moves the markers' x in their traces (copied first: the spec keeps its own);
    returns the points where they are now."""
    out = list(points)
    done: set[int] = set()
    copied: set[int] = set()
    for i, (k, x, y) in enumerate(points):
        if i in done:
            continue
        group = [j for j, (kj, xj, yj) in enumerate(points) if j not in done and kj == k and abs(xj - x) < marker
                 and abs(yj - y) < marker]
        done.update(group)
        if len(group) < 2:
            continue
        if (len(group) - 1) / 2 * marker * days_per_px > MAX_DODGE_DAYS:
            # Side by side would move a marker by weeks (all data on one axis): the markers share one, drawn
            # once, and their shared label names every figure.
            for j in sorted(group)[1:]:
                t, at = refs[j]
                m = t["marker"] = dict(t["marker"])
                if not isinstance(m.get("opacity"), list):
                    m["opacity"] = [1.0] * len(t["x"])
                m["opacity"][at] = 0.0
            continue
        centre = sum(points[j][1] for j in group) / len(group)
        for n, j in enumerate(sorted(group, key=lambda j: (points[j][1], -points[j][2]))):
            new_x = centre + (n - (len(group) - 1) / 2) * marker
            t, at = refs[j]
            if id(t) not in copied:
                t["x"] = list(t["x"])
                copied.add(id(t))
            when = dt.datetime.combine(x0, dt.time()) + dt.timedelta(days=new_x * days_per_px)
            t["x"][at] = when.isoformat(sep=" ", timespec="minutes")
            out[j] = (k, new_x, points[j][2])
    return out


def _date_span_days(xaxis: dict) -> float:
    """Days across a date axis's range (infinite for any other axis, or one without a range)."""
    r = xaxis.get("range")
    if xaxis.get("type") != "date" or not r:
        return math.inf
    try:
        return (dt.date.fromisoformat(str(r[1])[:10]) - dt.date.fromisoformat(str(r[0])[:10])).days
    except ValueError:
        return math.inf


def _fit_axis_titles(lay: dict, panels: int, area_px: float, sz: Size) -> None:
    """A panel's y-axis title is written along its height: one longer than the panel (a short panel of an
    article-size figure, a long Spanish unit) ran into the next panel's title. Such a title goes on two lines,
    and the left margin grows by a line for it."""
    wrapped = False
    for k in range(panels):
        ax = lay[_yaxis_name(k)]
        title = (ax.get("title") or {}).get("text") or ""
        panel_px = (ax["domain"][1] - ax["domain"][0]) * area_px
        if "<br>" in title or len(html.unescape(title)) * sz.font * LEGEND_EM <= panel_px - 6:
            continue
        words = title.split(" ")
        if len(words) < 2:
            continue
        cut = min(range(1, len(words)), key=lambda i: abs(len(" ".join(words[:i])) - len(" ".join(words[i:]))))
        ax["title"]["text"] = " ".join(words[:cut]) + "<br>" + " ".join(words[cut:])
        wrapped = True
    if wrapped:
        lay["margin"]["l"] += int(sz.font * 1.3)


def _panel_axis(p: Panel, values: np.ndarray, sz: Size, sep: str = ",") -> dict:
    """A panel's y-axis: its unit as title, a range that holds every value drawn in it (reported figures
    too), and on a log scale ticks at 1-2-5 steps written in full ("2,000", not "2k")."""
    ax = dict(_AXIS, title=dict(text=html_text(p.y_title), font=dict(size=sz.font)), tickfont=dict(size=sz.font),
              tickformat=",~r" if not p.log else None)
    v = values[np.isfinite(values)] if len(values) else values
    if p.log:
        v = v[v > 0]
        ax["type"] = "log"
        if len(v):
            lo, hi = float(v.min()) / 1.15, float(v.max()) * 1.15
            ax["range"] = [math.log10(lo), math.log10(hi)]
            ticks = log_ticks(lo, hi)
            small = (lambda t: f"{t:g}") if sep == "," else (lambda t: f"{t:g}".replace(".", ","))
            ax.update(tickvals=ticks, ticktext=[i18n.number(t, separators=sep) if t >= 1 else small(t) for t in ticks])
        return ax
    ax["type"] = "linear"
    if len(v):
        lo, hi = min(0.0, float(v.min())), max(0.0, float(v.max()))
        pad = (hi - lo) * 0.06 or 1
        ax["range"] = [lo - (pad if lo < 0 else 0), hi + pad]
    else:
        ax["rangemode"] = "tozero"
    return ax


def log_ticks(lo: float, hi: float) -> list[float]:
    """Tick values for a log axis from lo to hi: 1-2-5 steps, or powers of ten only when that gives over 8."""
    ticks = []
    for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        for m in (1, 2, 5):
            t = m * 10.0 ** e
            if lo <= t <= hi:
                ticks.append(t)
    if len(ticks) > 8:
        ticks = [t for t in ticks if f"{t:g}".lstrip("0.").startswith("1")]
    if len(ticks) < 3:  # under a decade (detention from 34,000 to 72,000): every whole leading digit
        ticks = [m * 10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)
                 for m in range(1, 10) if lo <= m * 10.0 ** e <= hi]
        if len(ticks) > 8:
            ticks = ticks[::2]
    return ticks


def _short(text: str, most: int) -> str:
    """``text`` cut at a word boundary to at most ``most`` characters, with an ellipsis when cut."""
    if len(text) <= most:
        return text
    return text[:most - 1].rsplit(" ", 1)[0].rstrip(" ,;:(") + "…"


def break_gaps(x: np.ndarray, y: np.ndarray, *more):
    """Insert a blank where the spacing jumps (a source that stopped publishing), so the line breaks there
    instead of drawing a straight line across months with no data. ``more``: per-point arrays (hover text) that
    get a blank at the same places (None stays None)."""
    if len(x) < 3 or not np.issubdtype(np.asarray(x).dtype, np.datetime64):
        return (x, y, *more)
    step = np.diff(np.asarray(x, dtype="datetime64[D]")).astype("int64")
    typical = np.median(step)
    gaps = np.flatnonzero(step > max(2.5 * typical, typical + 20))
    if not len(gaps):
        return (x, y, *more)
    xs = np.insert(np.asarray(x, dtype="datetime64[ns]"), gaps + 1, np.datetime64("NaT"))
    ys = np.insert(np.asarray(y, dtype="float64"), gaps + 1, np.nan)
    blanks = np.full(len(gaps), None, dtype=object)  # one None per gap, for the per-point extras
    return (xs, ys, *(m if m is None else np.insert(np.asarray(m, dtype=object), gaps + 1, blanks) for m in more))


def _template_literal(text: str) -> str:
    """Plotly reads %{...} in a hovertemplate as a field; a lone "{" after "%" cannot start one if split."""
    return text.replace("%{", "%\u200b{")


# ---------------------------------------------------------------- units: what is drawn, said in words

LEVEL_PHRASES = {  # metric -> (axis title, phrase for the chart title); the words are in the catalogue
    "detained": ("people on a date", "people in ICE detention on a date"),
    "atd": ("people on a date", "people in Alternatives to Detention on a date"),
    "adp": ("people (average daily population)", "average daily population in ICE detention (people)"),
    "facility-adp": ("people (average daily population)", "people per facility (average daily population)"),
    "alos": ("days (average length of stay)", "average length of stay in ICE detention (days)"),
}


def _period_word(days: float) -> str | None:
    for lo, hi, word in ((0, 1, "day"), (6, 8, "week"), (13, 15, "two weeks"), (27, 32, "month"),
                         (88, 93, "quarter"), (364, 367, "year")):
        if lo <= days <= hi:
            return word
    return None


def _per(unit: str, word: str, lang: str) -> str:
    """"arrests per week" in ``lang`` (the catalogue's unit word and its "per" phrase)."""
    return i18n.t("unit.per." + word.replace(" ", "_"), lang, unit=i18n.unit(unit, lang))


def unit_phrase(p, info, lang: str = "en") -> tuple[str, str]:
    """(axis title, title phrase) for what a prepared series draws: "arrests per day", "book-ins per month",
    "people on a date", "index (100 = base date)". The axis title is the unit alone; the phrase may add the
    subject for levels (whose catalogue unit is just "people"). In ``lang``: the words are the catalogue's."""
    unit = p.unit
    rolling = next((n.split("-day")[0] for n in p.notes if n.endswith("-day rolling average")), None)

    def avg(text: str) -> str:
        return i18n.t("phrase.rolling", lang, unit=text, n=rolling) if rolling else text

    if unit.startswith("index"):
        return i18n.t("phrase.index_axis", lang), i18n.t("phrase.index_title", lang)
    if unit.endswith(" per day"):
        return avg(i18n.unit(unit, lang)), avg(i18n.unit(unit, lang))
    metric = str(info.get("metric", ""))
    f = p.frame
    span = float(np.median(((f["end"] - f["date"]).dt.days + 1).to_numpy())) if len(f) else 1.0
    if metric in LEVEL_PHRASES and unit in ("people", "days"):
        axis, phrase = i18n.t(f"phrase.{metric}_axis", lang), i18n.t(f"phrase.{metric}_title", lang)
        if rolling:
            plain_axis = i18n.t("phrase.people_plain" if unit == "people" else "phrase.days_plain", lang)
            plain = i18n.t(f"phrase.{metric}_plain", lang) if i18n.has(f"phrase.{metric}_plain", lang) else phrase
            return i18n.t("phrase.axis_rolling", lang, axis=plain_axis, n=rolling), avg(plain)
        resampled = next((n for n in p.notes if n.endswith(" averages")), None)
        if resampled and metric in ("detained", "atd"):
            word = i18n.t("phrase." + resampled.split()[0], lang)
            return (i18n.t("phrase.people_average", lang, word=word),
                    i18n.t("phrase.level_average", lang, phrase=i18n.t(f"phrase.{metric}_plain", lang), word=word))
        return axis, phrase
    if is_flow(info) and unit != "as reported":
        if str(info.get("frequency")) == "daily" and span <= 1:
            return avg(_per(unit, "day", lang)), avg(_per(unit, "day", lang))
        period = _period_word(span)
        if period:
            return _per(unit, period, lang), _per(unit, period, lang)
        u = i18n.unit(unit, lang)
        return i18n.t("phrase.total_axis", lang, unit=u), i18n.t("phrase.total_title", lang, unit=u)
    return i18n.unit(unit, lang), i18n.unit(unit, lang)


def series_title(snap_or_info, series_id: str, lang: str = "en") -> str:
    """A series' title in ``lang`` (the catalogue's, or locales/series.es.csv's)."""
    info = snap_or_info.info(series_id) if hasattr(snap_or_info, "info") else snap_or_info
    return i18n.series_text(series_id, "title", lang, str(info.get("title", series_id)))


def view_title(prepared, phrases: list[str], agencies: list[str], flows: list[bool], lang: str = "en") -> str:
    """What is drawn, in which unit. One series: its name and unit. Several: the unit (with the agency when they
    share one) and how many series, since a title cannot name twelve of them."""
    if len(prepared) == 1:
        return f"{display_label(prepared[0], lang)}: {phrases[0]}"
    groups = list(dict.fromkeys(phrases))
    parts = []
    for g in groups:
        idx = [i for i, ph in enumerate(phrases) if ph == g]
        ag = {agencies[i] for i in idx}
        flow = all(flows[i] for i in idx)
        parts.append((i18n.t("figure.agency_phrase", lang, agency=ag.pop(), phrase=g) if len(ag) == 1 and flow else g))
    head = "; ".join(x[:1].upper() + x[1:] for x in parts)
    n = len(prepared)
    return (i18n.t("figure.n_series", lang, head=head, n=n) if len(groups) == 1 else
            i18n.t("figure.n_series_panels", lang, head=head, n=n, panels=len(groups)))


# ---------------------------------------------------------------- a whole view

def source_lines(snap, prepared, lang: str = "en") -> list[str]:
    """One line per source in view: who published it, which release was used, and how far the data run.
    Publishers and titles stay as published, in any language."""
    lines = []
    for sid in dict.fromkeys(p.source for p in prepared):
        entry = snap.source_entry(sid)
        parts = [p for p in prepared if p.source == sid]
        rel = [p.frame["release"].max() for p in parts if len(p.frame) and p.frame["release"].notna().any()]
        to = [p.frame["end"].max() for p in parts if len(p.frame)]
        text = i18n.t("figure.source", lang, publisher=entry.get("publisher", sid), title=entry.get("title", ""))
        if rel:
            text += i18n.t("figure.latest_release", lang, date=max(rel).date().isoformat())
        if to:
            text += i18n.t("figure.data_to", lang, date=max(to).date().isoformat())
        lines.append(text + ".")
        files = {f for p in parts if "file" in p.frame for f in p.frame["file"].unique() if f}
        line = file_origins_line(entry, files, lang=lang)
        if line:
            lines.append(line)
        if entry.get("attribution"):
            text = entry["attribution"]  # the credit line each loader declares, worded as the source asks
            if lang != "en" and text.startswith("Source: "):
                text = i18n.t("figure.source_prefix", lang) + text[len("Source: "):]
            lines.append(text + ".")
    return lines


def compact_source_lines(snap, prepared, lang: str = "en", ages=(), elsewhere: bool = True) -> list[str]:
    """The sources of an article-size figure in a line or two: who published each and how far the data run,
    then ``ages`` (``compact_age_notes``: the sources drawn that are overdue or behind a known release), then,
    with ``elsewhere``, where the rest is (releases used, official files, credits: the CSV and the HTML export
    carry ``source_lines`` in full)."""
    names, to = [], [p.frame["end"].max() for p in prepared if len(p.frame)]
    for sid in dict.fromkeys(p.source for p in prepared):
        if sid in SHORT_NAMES:
            who = SHORT_NAMES[sid]
        else:
            who = re.split(r" \(| and analysts", str(snap.source_entry(sid).get("publisher") or sid))[0]
        names.append(who[4:] if who.startswith("the ") else who)
    head = i18n.t("figure.sources_compact", lang, names="; ".join(dict.fromkeys(names)),
                  date=max(to).date().isoformat() if to else "")
    tail = [i18n.t("figure.sources_elsewhere", lang)] if elsewhere else []
    return [" ".join([head, *ages, *tail])]


READ_WORDS = {"archive": "read from an archive copy", "mirror": "read from a copy in another repository",
              "reconstruction": "rebuilt from a copy's text", "digitised": "digitised from a chart",
              "transcription": "transcribed", "producer": "read from the producer's repository"}


def file_origins_line(entry: dict, files: set[str], most: int = 3, lang: str = "en") -> str:
    """The official URLs of the files behind a line, and how any copy was read ("read from an archive copy")."""
    recs = [f for f in entry.get("files", []) if f.get("name") in files and f.get("origin")]
    if not recs:
        return ""
    urls = list(dict.fromkeys(f["origin"].get("official_url", "") for f in sorted(recs, key=lambda f: f["name"])))
    shown = "; ".join(u for u in urls[:most] if u) + (i18n.t("figure.and_n_more", lang, n=len(urls) - most)
                                                       if len(urls) > most else "")
    kinds: dict[str, int] = {}  # how each file was read, in words: how many files
    for f in recs:
        how_read = f["origin"].get("read_as", "")
        word = i18n.t("read." + how_read, lang) if how_read in READ_WORDS else None
        if word:
            kinds[word] = kinds.get(word, 0) + 1
    how = ", ".join(i18n.t("read.n_of", lang, n=n, total=len(recs), word=w) if len(recs) > 1 else w
                    for w, n in sorted(kinds.items()))
    key = "figure.official_files" if len(urls) > 1 else "figure.official_file"
    return i18n.t(key, lang, urls=shown) + (f" ({how})" if how else "") + "."


NOTE_PATTERNS = (  # the notes ``analysis.view.prepare`` writes, and their catalogue keys
    (r"^(weekly|monthly) (averages|totals)$", lambda m, lang: i18n.t(
        "note.resampled", lang, granularity=i18n.t("phrase." + m[1], lang), how=i18n.t("note." + m[2], lang))),
    (r"^(.*): already (\w+); shown as published$", None),  # starts with the series title: handled below
    (r"^(\d+)-day rolling average$", lambda m, lang: i18n.t("note.rolling", lang, n=m[1])),
    (r"^rolling average applies to daily series only; (\w+) shown as published$", lambda m, lang: i18n.t(
        "note.rolling_daily_only", lang, frequency=i18n.t("frequency." + m[1], lang)
        if i18n.has("frequency." + m[1], lang) else m[1])),
    (r"^indexed to 100 at (\d{4}-\d\d-\d\d)$", lambda m, lang: i18n.t("note.indexed", lang, date=m[1])),
    (r"^could not index: no non-zero value at or before the base date$",
     lambda m, lang: i18n.t("note.cannot_index", lang)),
)


def note_text(note: str, lang: str = "en") -> str:
    """A transform note of ``prepare`` in ``lang``. The notes stay English inside ``Prepared`` (code reads
    them); they are put in the language where they are shown. A note no pattern knows is shown as it is."""
    if lang == "en":
        return note
    for pattern, make in NOTE_PATTERNS:
        m = re.match(pattern, note)
        if m and make:
            return make(m, lang)
    return note


def _series_note(p, note: str, lang: str) -> str:
    """A prepared series' note in ``lang``; "<title>: already monthly; shown as published" names the series."""
    title = p.label.split(": ")[0] if p.key else p.label
    if lang != "en" and note.startswith(title + ": already "):
        freq = note[len(title + ": already "):].split(";")[0]
        return i18n.t("note.already", lang, title=localised_label(p, lang).split(": ")[0] if p.key else
                      localised_label(p, lang), frequency=i18n.t("frequency." + freq, lang)
                      if i18n.has("frequency." + freq, lang) else freq)
    return note_text(note, lang)


_INDEX_NOTES = ("indexed to 100 at ", "not indexed to 100 at ")


def index_notes(prepared, lang: str = "en") -> list[str]:
    """The index's words, said once for the whole view: "indexed to 100 at 9 February 2025" (every series
    shares the base date: ``analysis.view.common_base``), or why the chart is not indexed, naming the series
    with no value at or before the date asked."""
    p = next((p for p in prepared if p.index_base or p.index_refused), None)
    if p is None:
        return []
    if p.index_base:
        return [i18n.t("note.indexed", lang, date=i18n.date(p.index_base, lang))]
    asked, missing = p.index_refused
    names = {q.ref: localised_label(q, lang) for q in prepared}
    return [i18n.t("note.not_indexed", lang, date=i18n.date(asked, lang),
                   series="; ".join(names.get(ref, ref) for ref in missing))]


def subtitle_for(view, lo, hi, prepared, ages: list[str] | None = None) -> str:
    """The range drawn, the as-published date, per day, the series' notes, the index, the log scale, then
    ``ages``: the sources drawn that are overdue or behind a known release (``age_notes``)."""
    lang = getattr(view, "lang", "en")
    bits = [i18n.date_range(lo, hi, lang)]
    if view.as_of:
        bits.append(i18n.t("figure.as_published_on", lang, date=view.as_of.isoformat()))
    if view.per_day and any(str(p.unit).endswith(" per day") for p in prepared):
        # Only where a drawn series is a period total shown per day: a chart of headcounts has none to convert.
        bits.append(i18n.t("figure.per_day_shown", lang))
    notes = sorted({_series_note(p, n, lang) for p in prepared for n in p.notes
                    if not n.startswith(p.label) and not n.startswith(_INDEX_NOTES)})
    bits += notes
    bits += index_notes(prepared, lang)
    if view.log:
        bits.append(i18n.t("figure.log_scale", lang))
    # Last: the lines above keep the places they had, so a phrase a reader (or a test) looks for is not cut.
    return " · ".join(bits + list(ages or []))


def age_notes(snap, view, prepared, today: dt.date) -> list[str]:
    """The sources drawn that are overdue by their own cadence or behind a known release, each with how far its
    drawn data run (``analysis.status.chart_age_notes``: the cards' rule). None for a chart "as published on" a
    past date: it shows an earlier state on purpose."""
    if view.as_of:
        return []
    return status.chart_age_notes(snap, _drawn_to(prepared), today, getattr(view, "lang", "en"))


def _drawn_to(prepared) -> dict[str, dt.date]:
    """Each source's last day drawn."""
    data_to: dict[str, dt.date] = {}
    for p in prepared:
        if len(p.frame):
            end = p.frame["end"].max().date()
            data_to[p.source] = max(end, data_to.get(p.source, end))
    return data_to


def footer_sources(snap, view, prepared, sz: Size, today: dt.date) -> tuple[list[str], list[str], tuple]:
    """The footer's source lines for ``sz``, the subtitle's age lines, and the source lines' shorter forms
    (pairs of a line and the line that replaces it when the figure outgrows its size's height).

    The page and the full-size image give every source in full and say in the subtitle which sources drawn are
    overdue or behind a known release (``age_notes``). An article image or a social card says it in its one
    source line, in short (``status.compact_age_notes``), after the data's date; the sentence on where the
    releases and credits are is the part that gives way when the figure runs over its height, never the age."""
    lang = getattr(view, "lang", "en")
    if not sz.compact:
        return source_lines(snap, prepared, lang), age_notes(snap, view, prepared, today), ()
    drawn = _drawn_to(prepared)
    ages = [] if view.as_of else status.compact_age_notes(snap, drawn, today, lang,
                                                           shown_to=max(drawn.values(), default=None))
    full = compact_source_lines(snap, prepared, lang, ages)
    return full, [], tuple(zip(full, compact_source_lines(snap, prepared, lang, ages, elsewhere=False)))


def fiscal_ticks(lo, hi, lang: str = "en") -> tuple[list, list[str]]:
    """Ticks for fiscal-year labels. Over two years or more: one tick per fiscal year (1 October). On a
    shorter range a single FY tick says little, so every quarter is labelled with its month and fiscal year
    ("Oct FY2026", "Jan", ...)."""
    if (hi - lo).days >= 730:
        vals, text = [], []
        d = _dt.date(lo.year - 1, 10, 1)
        while d <= hi:
            if d >= lo - _dt.timedelta(days=366):
                vals.append(d)
                text.append(i18n.t("figure.fy", lang, year=d.year + 1))
            d = _dt.date(d.year + 1, 10, 1)
        return vals, text
    vals, text = [], []
    d = _dt.date(lo.year, ((lo.month - 1) // 3) * 3 + 1, 1)
    while d <= hi:
        if d >= lo:
            fy = d.year + 1 if d.month >= 10 else d.year
            vals.append(d)
            text.append(i18n.t("figure.fy_quarter", lang, month=i18n.MONTHS_SHORT[lang][d.month - 1], year=d.year,
                               fy=fy, q=((d.month - 10) % 12) // 3 + 1))
        m = d.month + 3
        d = _dt.date(d.year + (m > 12), (m - 1) % 12 + 1, 1)
    return vals, text


def flag_reasons(snap, prepared, limit: int = 6, lang: str = "en", sep: str = ",") -> list[str]:
    """The integrity checks' own words for the flagged points in view (quality_flags.csv rows whose series, or
    whole release, and file match a drawn point), so a figure says why a point is flagged, not only that it is.
    The checks write their messages in English (quality_flags.csv is data); another language's figure renders
    each from the catalogue's sentence for its kind, with the finding's own figures (wording.flag_messages)."""
    flags = getattr(snap, "flags", None)
    if flags is None or not len(flags) or "message" not in flags:
        return []
    out: list[str] = []
    for p in prepared:
        f = p.frame
        if not len(f) or "file" not in f or "release" not in f:
            continue
        pts = f[f["flag"] != ""]
        drawn = set(zip(pts["release"].astype(str).str[:10], pts["file"].astype(str)))
        codes = {c for x in pts["flag"] for c in x.split(";") if c}
        hit = flags[(flags["series"].isin(["", p.series_id])) & flags["flag"].isin(codes)]
        for flag, release, file, message in zip(hit["flag"].tolist(), hit["release"].tolist(), hit["file"].tolist(),
                                                hit["message"].tolist()):
            if (release, file) not in drawn:
                continue  # a finding about a point not drawn: not worded at all
            line = i18n.t("figure.flag_reason", lang, flag=flag_name(flag, lang), release=release, file=file,
                          message=flag_messages.explain(flag, message, lang, sep))
            if line not in out:
                out.append(line)
    more = len(out) - limit
    return out[:limit] + ([i18n.t("figure.more_flags", lang, n=more)] if more > 0 else [])


def flag_text(code: str, lang: str = "en") -> str:
    """A quality flag's explanation in ``lang`` (loaders.tidy.FLAGS holds the English)."""
    if lang != "en" and i18n.has("flag." + code, lang):
        return i18n.t("flag." + code, lang)
    return FLAGS.get(code, code)


def flag_name(code: str, lang: str = "en") -> str:
    """A quality flag's name: its code in English (as the CSVs' flag column writes it), words in another
    language ("digitised" -> "digitalizado")."""
    key = "flag_name." + code
    return i18n.t(key, lang) if lang != "en" and i18n.has(key, lang) else code


def per_day_divisors(snap, p, lang: str = "en") -> list[str]:
    """For a line shown per day: each point whose period its source covers only in part, in words ("per day over
    the 174 days covered, 2018-04-10 to 2018-09-30"); "" for the others (divided by their whole period)."""
    f = p.frame
    if not str(p.unit).endswith(" per day") or not len(f):
        return [""] * len(f)
    first, last, days = covered_bounds(f, coverage_spans(snap, p.source))
    own = covered_bounds(f)[2]
    a, b = iso_days(first), iso_days(last)
    return [i18n.t("figure.hover_per_day_covered", lang, n=int(n), start=s, end=e) if n != m else ""
            for n, m, s, e in zip(days, own, a, b)]


def per_day_coverage_notes(snap, prepared, lang: str = "en") -> list[str]:
    """The footer's line on periods shown per day that their source covers only in part: each is divided by the
    days covered, and the line names them ("Deaths in ICE custody, by fiscal year: FY starting 2017-10-01 ...")."""
    named = []
    for p in prepared:
        words = per_day_divisors(snap, p, lang)
        named += [f"{localised_label(p, lang)}, {d:%Y-%m-%d}: {w}" for d, w in zip(p.frame["date"], words) if w]
    return [i18n.t("figure.per_day_covered_note", lang, periods="; ".join(named))] if named else []


def point_hover(snap, p, codes, lang: str = "en") -> np.ndarray:
    """Each point's second hover line (``codes``: each point's flag codes, as sets): the period its value
    covers (when more than a day), the release it comes from, the publisher, and any quality flag in words, so
    a reader checking one point before quoting it has everything on it."""
    f = p.frame
    start, end = iso_days(f["date"].to_numpy()), iso_days(f["end"].to_numpy())
    period = np.where(start != end, np.char.add(np.char.add(start.astype(str), "|"), end.astype(str)), "")
    divided = per_day_divisors(snap, p, lang)
    release = iso_days(f["release"].to_numpy()) if "release" in f else np.full(len(f), "NaT")
    who = html_text(str(snap.source_entry(p.source).get("publisher") or p.source))
    words = {c: html_text(f"{flag_name(c, lang)}: {flag_text(c, lang)}") for cs in codes for c in cs}
    out = np.empty(len(f), dtype=object)
    for i, (per, rel, cs) in enumerate(zip(period, release, codes)):
        parts = []
        if per:
            a, b = per.split("|")
            parts.append(i18n.t("figure.hover_period", lang, start=a, end=b))
        if rel != "NaT":
            parts.append(i18n.t("figure.hover_release", lang, date=rel))
        text = " · ".join(parts + [who])
        if divided[i]:  # a line of its own: on one line with the period and the publisher the box ran off the chart
            text += "<br>" + divided[i]
        if cs:
            text += "<br>" + i18n.t("figure.hover_flags", lang, text="; ".join(words[c] for c in sorted(cs)))
        out[i] = _template_literal(text)
    return out


def band_hover(band, lang: str = "en", sep: str = ",") -> np.ndarray:
    """Each period's hover text for its revision band: how many releases printed it and the range of their
    figures, the release that first printed it and the last that changed it (or that none did)."""
    first, last = iso_days(band["first_release"].to_numpy()), iso_days(band["last_revised"].to_numpy())
    out = np.empty(len(band), dtype=object)
    for i, (n, a, b) in enumerate(zip(band["releases"], band["low"], band["high"])):
        if not np.isfinite(n):
            out[i] = None
            continue
        digits = 0 if max(abs(a), abs(b)) >= 100 else 2
        low, high = i18n.number(a, lang, sep, digits), i18n.number(b, lang, sep, digits)
        head = i18n.plural("figure.band_hover", int(n), lang, n=int(n)) + (
            i18n.t("figure.band_range", lang, low=low, high=high) if low != high
            else i18n.t("figure.band_one_value", lang, value=low))
        tail = (i18n.t("figure.band_revised", lang, first=first[i], last=last[i]) if last[i] != "NaT"
                else i18n.t("figure.band_not_revised", lang, first=first[i]))
        out[i] = _template_literal(html_text(head) + "<br>" + html_text(tail))
    return out


def band_notes(prepared, view, lang: str = "en") -> list[str]:
    """The footer's words for the revision band: what the shading is, and which lines have none and why."""
    notes = []
    if any(getattr(p, "band", None) is not None and len(p.band) for p in prepared):
        notes.append(i18n.t("figure.band_note_as_of", lang, date=view.as_of.isoformat()) if view.as_of
                     else i18n.t("figure.band_note", lang))
    why: dict[str, list[str]] = {}
    for p in prepared:
        if getattr(p, "band_missing", ""):
            why.setdefault(p.band_missing, []).append(localised_label(p, lang))
    for reason, labels in sorted(why.items()):
        notes.append(i18n.t("figure.band_none_" + reason, lang, labels="; ".join(labels)))
    return notes


def lone_point_label(f, lo, hi, lang: str = "en", sep: str = ",") -> tuple[str, str]:
    """For a series with one value in view: its value and what date it is ("58,766 on 4 Apr 2026", "1,104 a
    day in Mar 2026" for a month), and which side of the point it goes so it stays inside the plot.
    ("", "") for any other series."""
    f = f[f["value"].notna()] if "value" in f else f
    if len(f) != 1:
        return "", "middle right"
    r = f.iloc[0]
    v = float(r["value"])
    value = i18n.number(v, lang, sep, 0 if abs(v) >= 100 else 2)
    start, end = r["date"].date(), r["end"].date() if "end" in f and r["end"] == r["end"] else r["date"].date()
    if start == end:
        label = i18n.t("figure.point_on", lang, value=value, date=i18n.date(start, lang, "short"))
    else:
        label = i18n.t("figure.point_period", lang, value=value, start=i18n.date(start, lang, "short"),
                       end=i18n.date(end, lang, "short"))
    # Beside the point, not over it: a lone point is the top of its panel, and a label above it would leave
    # the panel for the strip of event markers.
    where = (start - lo).days / max((hi - lo).days, 1)
    return label, "middle right" if where < 0.6 else "middle left"


def build_view_figure(snap, view, prepared, lo, hi, *, events_in_view=None, reported=None,
                      generated_on: dt.date | None = None, size="page", withheld: dict | None = None,
                      notes: list[str] | None = None) -> go.Figure:
    """The trend chart for a view, as the page shows it and as every export writes it, laid out for ``size``.
    Series of different units go into separate panels on one date axis; reported figures go into the panel of
    the series they sit beside (column ``panel_ref``), counts, bounds and targets each in their own style;
    ``withheld`` counts, by measure, the figures of a measure no panel shows (named in the footer); ``notes``
    are the caller's footer lines (series left off the chart). Every text is in ``view.lang``."""
    lang, sep = getattr(view, "lang", "en"), getattr(view, "sep", ",")
    sz = size_of(size)
    infos = [snap.info(p.series_id) for p in prepared]
    phr = [unit_phrase(p, i, lang) for p, i in zip(prepared, infos)]
    axis_titles = [a for a, _ in phr]
    panel_units = list(dict.fromkeys(axis_titles))
    panel_of = {p.ref: panel_units.index(a) for p, a in zip(prepared, axis_titles)}
    panels = [Panel(u, log=view.log) for u in panel_units]
    lines: list[Line] = []
    flagged_notes: set[str] = set()
    info_notes: dict[str, set[str]] = {}  # an informational flag: the labels of the series that carry it
    left_off = list(notes or [])
    for p in prepared:
        f = p.frame
        codes = f["flag"].map(lambda x: {c for c in x.split(";") if c})
        flagged = codes.map(lambda c: bool(c - INFO_FLAGS)).to_numpy(dtype=bool)
        for cs in codes:
            flagged_notes.update(cs - INFO_FLAGS)
            for c in cs & INFO_FLAGS:
                info_notes.setdefault(c, set()).add(localised_label(p, lang))
        label, side = lone_point_label(f, lo, hi, lang, sep)
        band = getattr(p, "band", None)
        if band is not None and len(band):
            # One band row per point of the line, blank where no release printed the whole period (a month
            # only ever printed while running): a gap in the fill there, never a fill joined across it.
            band = f[["date"]].merge(band, on="date", how="left")
        lines.append(Line(display_label(p, lang), f["date"].to_numpy(), f["value"].to_numpy(dtype="float64"),
                          unit=axis_titles[len(lines)], flagged=flagged, panel=panel_of[p.ref],
                          hover=point_hover(snap, p, codes, lang), point_label=label, point_side=side,
                          band=None if band is None or not len(band) else Band(
                              band["date"].to_numpy(), band["low"].to_numpy(dtype="float64"),
                              band["high"].to_numpy(dtype="float64"),
                              band_hover(band, lang, sep),
                              name=i18n.t("figure.band_name", lang))))
    notes = left_off
    if getattr(view, "band", False):
        notes += band_notes(prepared, view, lang)
    # The explanations' shortest forms, for a figure at its height limit: the CSV and the HTML say them in full.
    tighter: list[tuple[str, str]] = []
    notes += flag_notes(snap, prepared, flagged_notes, info_notes, sz, lang, sep, tighter)
    rep_panel = []
    if reported is not None and len(reported):
        refs = reported["panel_ref"] if "panel_ref" in reported else [prepared[0].ref] * len(reported)
        rep_panel = [panel_of.get(r, 0) for r in refs]
        for k, v in zip(rep_panel, reported["value"]):
            panels[k].extra_values.append(float(v))  # every kind selected is drawn, targets too
    said = reported_notes(reported, withheld, lang, sep, compact=sz.compact)
    notes += said
    if sz.compact:
        tighter += zip(said, reported_notes(reported, withheld, lang, sep, compact=True, brief=True))
    if len(panels) > 1 and not sz.compact:  # an article figure's axis titles say it: one line less
        notes.append(i18n.t("figure.panels_note", lang))
    title = view_title(prepared, [b for _, b in phr], [str(i.get("agency", "")) for i in infos],
                       [is_flow(i) for i in infos], lang=lang)
    # A range chosen past the end of the data says the data's last date in the subtitle (the axis keeps the range);
    # a range that ends inside the data keeps its own end.
    last = max((snap.by_series[p.series_id]["end"].max().date() for p in prepared if p.series_id in snap.by_series),
               default=hi)
    sources, ages, shorter = footer_sources(snap, view, prepared, sz, generated_on or clock.today())
    spec = trend_spec(lines, title=title, subtitle=subtitle_for(view, lo, min(hi, last), prepared, ages),
                      sources=sources, notes=notes, generated_on=generated_on, size=sz, panels=panels, lang=lang,
                      sep=sep)
    spec = replace(spec, shorter=shorter, tighter=tuple(tighter))
    xaxis = dict(spec.layout["xaxis"], range=[lo.isoformat(), hi.isoformat()])
    if view.fiscal_axis:
        vals, text = fiscal_ticks(lo, hi, lang)
        xaxis.update(tickvals=[v.isoformat() for v in vals], ticktext=text)
    # Every source line in full, whatever the footer shows (an article's names the publishers only): the HTML
    # export prints them under the chart (charts.export.html_details). ``meta`` is data Plotly does not draw.
    spec = replace(spec, layout=dict(spec.layout, xaxis=xaxis, meta=dict(source_lines=source_lines(snap, prepared, lang))))
    if reported is not None and len(reported):
        shown, drawn = set(), []  # one legend entry per style, on the first panel that draws it
        for k in sorted(set(rep_panel)):
            groups = reported_groups(reported[[p == k for p in rep_panel]])
            for g, draw in (("counts", reported_trace), ("bounds", bound_trace), ("targets", target_trace)):
                if len(groups[g]):
                    args = (groups[g], hi) if g == "targets" else (groups[g],)
                    # A compact figure's footer says what the styles are (two legend rows of an article's
                    # height), and each figure's label says what it is.
                    drawn.append(draw(*args, panel=k, size=sz, legend=g not in shown and not sz.compact, lang=lang,
                                      sep=sep))
                    shown.add(g)
        point_labels = [lab for k in sorted(set(rep_panel)) for lab in
                        reported_labels(reported[[p == k for p in rep_panel]], hi, panel=k, lang=lang, sep=sep)]
        spec = replace(spec, data=spec.data + tuple(drawn), point_labels=spec.point_labels + tuple(point_labels))
    if events_in_view is not None and len(events_in_view):
        # an event's hover box must not merge with the series values
        spec = replace(spec, layout=dict(spec.layout, hovermode="closest"))
    laid_out = _with_events(spec, events_in_view, snap, prepared, lo, hi, lang)
    # Built once, without Plotly re-checking every property (that check cost a third of a page rerun); the
    # tests build the same figures with checking on (tests/test_export.py), so a bad property cannot hide.
    fig = go.Figure(laid_out, _validate=VALIDATE)
    fig._title_plain = title
    return fig


MIN_PLOT_SHARE = 0.5  # of a compact figure's height, for its panels, before its event key takes lines


def plot_share(laid_out: dict) -> float:
    """The panels' share of a laid-out figure's height (the strip of event markers above them excluded)."""
    lay = laid_out["layout"]
    area = lay["height"] - lay["margin"]["t"] - lay["margin"]["b"]
    top = max(ax["domain"][1] for k, ax in lay.items() if k == "yaxis" or (k.startswith("yaxis") and k[5:].isdigit()
                                                                            and int(k[5:]) < 9))
    return area * top / lay["height"]


def _with_events(spec: FigureSpec, events_in_view, snap, prepared, lo, hi, lang: str) -> dict:
    """``_laid_out``; when that outgrows the size's shape (an article's ratio, a social card's square) and the
    spec has shorter forms of footer lines, laid out again with them (the source line then keeps its data date
    and age and gives up the sentence on where the credits are); when it still runs past the size's height
    limit (a card that grew), laid out again with the notes' brief forms (``spec.tighter``)."""
    out = _laid_out(spec, events_in_view, snap, prepared, lo, hi, lang)
    sz = spec.size
    for pairs, most in ((spec.shorter, shape_height(sz)), (spec.tighter, height_limit(sz))):
        if pairs and sz.compact and out["layout"]["height"] > most + 1:
            short = dict(pairs)
            spec = replace(spec, footer=tuple(short.get(t, t) for t in spec.footer))
            out = _laid_out(spec, events_in_view, snap, prepared, lo, hi, lang)
    steps = list(giving_way(spec)) if out["layout"]["height"] > height_limit(sz) + 1 else []
    # Each step lays the figure out again (with every length of event key): the first that fits is found by
    # halving, as each step only makes the text take less room than the one before.
    lo_k, hi_k, laid = 0, len(steps), {}
    while lo_k < hi_k:
        mid = (lo_k + hi_k) // 2
        laid[mid] = _laid_out(steps[mid], events_in_view, snap, prepared, lo, hi, lang)
        if laid[mid]["layout"]["height"] <= height_limit(sz) + 1:
            hi_k = mid
        else:
            lo_k = mid + 1
    if steps:  # the first step that fits, else the tightest (drawn taller, and its export says so)
        k = min(lo_k, len(steps) - 1)
        out = laid.get(k) or _laid_out(steps[k], events_in_view, snap, prepared, lo, hi, lang)
    return out


def giving_way(spec: FigureSpec):
    """A compact spec laid out tighter step by step, for a figure still past its size's height limit once the
    plot, the event key and the notes' detail have given way (twelve series in four panels): the legend in
    columns; then the legend and the footer a pixel smaller at a time, down to the size's readable floor
    (``figures.layout.text_floor``); then the notes in one line that says where they are. The title, the sources
    and their age sentence stay; a figure that still does not fit is drawn taller, never cut, and its export
    says so (``charts.export.fit_note``)."""
    sz = spec.size
    if not sz.compact:
        return
    spec = replace(spec, legend_columns=True)
    yield spec
    for font in range(sz.font - 1, text_floor(sz) - 1, -1):
        spec = replace(spec, text_font=font)
        yield spec
    yield replace(spec, footer=spec.footer[:spec.sources] + (i18n.t("figure.notes_elsewhere", spec.lang),)
                  + spec.footer[-1:], notes_elsewhere=True)


def _laid_out(spec: FigureSpec, events_in_view, snap, prepared, lo, hi, lang: str) -> dict:
    """The spec with its event layer and blackouts, laid out. A compact figure (article, social card) reserves
    room for its plot first: its event key (figures.events.event_key) gets the lines left when the panels
    have ``MIN_PLOT_SHARE`` of the height and the figure keeps its ratio, down to a key that only says where
    the events are; the events it cannot list are not drawn (the CSV lists them all)."""
    sz = spec.size

    def lay(lines: int | None) -> tuple[dict, int]:
        s, drawn = spec, 0
        if events_in_view is not None and len(events_in_view):
            layer = event_layers(events_in_view, lo=lo, hi=hi, size=sz, lang=lang, key_lines=lines)
            drawn = sum(len(g) for g in layer["traces"][-1]["customdata"]) if layer["traces"] else 0
            if spec.notes_elsewhere and not drawn:  # "n events not drawn": said by the one line of notes
                layer = dict(layer, notes=[])
            s = add_layer(s, layer)
        return finish(add_blackouts(s, snap, prepared, lo, hi, lang=lang)), drawn

    if not (sz.compact and sz.key_lines and events_in_view is not None and len(events_in_view)):
        return lay(None)[0]
    most = shape_height(sz)
    tries = [lay(lines) for lines in range(sz.key_lines, 0, -1)]  # the longest key first
    fit = [(out, n) for out, n in tries if out["layout"]["height"] <= most + 1]
    # The plot's share and the size's shape first (the longest key that leaves both); then the shape with the
    # shortest key that still draws an event; then a social card's square with a key that only says where the
    # events are; else the least growth that draws one.
    for out, n in fit:
        if n and plot_share(out) >= MIN_PLOT_SHARE:
            return out
    for out, n in reversed(fit):
        if n:
            return out
    if sz.square and fit:  # a card stays square: its key then says only where the events are
        return fit[-1][0]
    # Taller than the shape, never past the size's limit: the least growth that draws an event within it, else
    # the shortest key (one that only says where the events are).
    limit = height_limit(sz) + 1
    drawn = [out for out, n in tries if n and out["layout"]["height"] <= limit]
    return drawn[-1] if drawn else min((out for out, _ in tries), key=lambda out: out["layout"]["height"])


VALIDATE = False
REPORTED_NAME = "Reported counts and estimates (not official series)"
# A target is a goal, not a figure: grey and dotted like no data line, labelled where it starts.
TARGET_STYLE = (NEUTRAL, "dot")
# A bound's marker points the way the bound goes: down for "fewer than", up for "more than".
BOUND_SYMBOL = {"upper": "triangle-down", "lower": "triangle-up"}
UNVERIFIED = "unverified"


def _kind_of(r) -> tuple[str, str]:
    """A row's (kind, bound); rows from before the kind columns read as the loader's default does."""
    kind = str(getattr(r, "kind", "") or "")
    if not kind:
        return default_kind(str(r.metric), str(r.unit))
    return kind, str(getattr(r, "bound", "") or "")


def kind_words(r, lang: str = "en") -> str:
    """What a reported figure is, in words: "estimate", "fewer than", "more than", "target", "claim"."""
    kind, bound = _kind_of(r)
    return i18n.t("figure.bound_" + bound if kind == "bound" else "figure.kind_" + kind, lang)


def reported_groups(reported) -> dict[str, Any]:  # the values are DataFrames
    """The rows split by how they are drawn: "counts" (counts, estimates, claims), "bounds", "targets"."""
    kinds = [_kind_of(r)[0] for r in reported.itertuples(index=False)]
    group = ["targets" if k == "target" else "bounds" if k == "bound" else "counts" for k in kinds]
    return {g: reported[[x == g for x in group]] for g in ("counts", "bounds", "targets")}


def _reported_hover(r, lang: str, sep: str) -> str:
    start, end = f"{r.period_start:%Y-%m-%d}", f"{r.period_end:%Y-%m-%d}"
    h = (html_text(i18n.t("figure.reported_hover_kind", lang, kind=kind_words(r, lang),
                          value=i18n.number(r.value, lang, sep), unit=i18n.reported_text(str(r.unit), lang),
                          start=start, end=end)) + "<br>"
         + html_text(i18n.t("figure.reported_by", lang, who=i18n.reported_text(str(r.reported_by), lang),
                            quality=i18n.quality(r.source_quality, lang))))
    if r.source_quality == UNVERIFIED:
        h += "<br>" + html_text(i18n.t("figure.unverified_hover", lang))
    note = citation.no_link_note(r, lang)  # never the copy it was read at (read_at)
    if note:
        h += "<br>" + html_text(note)
    return h


def reported_trace(reported, *, panel: int = 0, size="full", legend: bool = True, lang: str = "en",
                   sep: str = ",") -> dict:
    """Counts and estimates as horizontal segments spanning the period each covers, with the source on hover.
    Bounds are drawn the same way but with a triangle pointing the bound's way (``bound_trace``); an unverified
    figure has a hollow marker, so a printed chart tells it apart without hovering."""
    return _segments(reported, panel=panel, size=size, legend=legend, lang=lang, sep=sep,
                     name=i18n.t("figure.reported_name", lang), group="reported",
                     symbols=lambda r: REPORTED_STYLE[2])


def bound_trace(reported, *, panel: int = 0, size="full", legend: bool = True, lang: str = "en",
                sep: str = ",") -> dict:
    """Bounds ("fewer than 600", "more than 11,000") as segments over their period with a triangle at each end
    pointing the way the bound goes: a bound is one side of a value, never a value."""
    return _segments(reported, panel=panel, size=size, legend=legend, lang=lang, sep=sep,
                     name=i18n.t("figure.bounds_name", lang), group="reported_bounds",
                     symbols=lambda r: BOUND_SYMBOL[_kind_of(r)[1]])


def _segments(reported, *, panel, size, legend, lang, sep, name, group, symbols) -> dict:
    sz = size_of(size)
    xs, ys, hover, sym = [], [], [], []
    for r in reported.itertuples(index=False):
        h = _reported_hover(r, lang, sep)
        s = symbols(r) + ("-open" if r.source_quality == UNVERIFIED else "")
        # A one-day figure is one marker: two on one spot drew the same figure twice.
        ends = [f"{r.period_start:%Y-%m-%d}"] + ([f"{r.period_end:%Y-%m-%d}"] if r.period_end != r.period_start else [])
        xs += ends + [None]
        ys += [r.value] * len(ends) + [None]
        hover += [h] * len(ends) + [None]
        sym += [s] * (len(ends) + 1)
    colour, dash, _ = REPORTED_STYLE
    return dict(type="scatter", x=xs, y=ys, mode="lines+markers", name=name,
                yaxis=_yref(panel), line=dict(color=colour, width=2.5, dash=dash),
                marker=dict(symbol=sym, size=sz.font * 0.7, color=colour, line=dict(color=colour, width=1.5)),
                text=hover, hovertemplate="%{text}<extra>" + i18n.t("figure.reported_tag", lang) + "</extra>",
                connectgaps=False, legendgroup=group, showlegend=legend)


def target_trace(reported, hi: dt.date, *, panel: int = 0, size="full", legend: bool = True, lang: str = "en",
                 sep: str = ",") -> dict:
    """Targets as labelled horizontal reference lines, dotted and grey, from the day each was reported to the
    end of the view (a goal has no end date), with no markers: a goal is not a data point. The label, at the
    line's right end (read leftwards, so it stays inside the plot), says it is a target, its value and who
    reported it."""
    xs, ys, hover = [], [], []
    end = f"{hi:%Y-%m-%d}"
    for r in reported.itertuples(index=False):
        h = _reported_hover(r, lang, sep)
        xs += [f"{r.period_start:%Y-%m-%d}", max(end, f"{r.period_end:%Y-%m-%d}"), None]
        ys += [r.value, r.value, None]
        hover += [h, h, None]
    colour, dash = TARGET_STYLE
    # The label is a point label at the line's right end (``reported_labels``), placed by ``finish`` where no
    # event line, marker or other label crosses it.
    return dict(type="scatter", x=xs, y=ys, mode="lines", name=i18n.t("figure.targets_name", lang),
                yaxis=_yref(panel), line=dict(color=colour, width=1.5, dash=dash),
                hovertext=hover, hovertemplate="%{hovertext}<extra>" + i18n.t("figure.target_tag", lang) + "</extra>",
                connectgaps=False, legendgroup="reported_targets", showlegend=legend)


def _who(r, lang: str) -> str:
    """Who reported a figure, short ("Washington Post" of "Washington Post, from DHS data"), and "unverified"
    when it is: the label of a hollow marker says what the hollow means."""
    who = re.split(r" \(|, ", str(r.reported_by))[0]
    return i18n.t("figure.label_unverified", lang, who=who) if r.source_quality == UNVERIFIED else who


def reported_labels(reported, hi: dt.date, *, panel: int = 0, lang: str = "en", sep: str = ",") -> list[dict]:
    """The words beside each reported figure in a panel: its value and who reported it ("787 (NewsNation;
    unverified)", "fewer than 600 (Washington Post)", "Target 1,875 a day (Washington Post)"), at the end of
    its period (a target: at the right end of its line). A run of one-day counts from one reporter on
    consecutive days (ICE's daily posts) gets one label with their range, at the highest. Labels whose points
    fall on one spot are joined later (``figures.layout.place_labels``)."""
    out: list[dict] = []
    runs: dict[str, list] = {}
    for r in reported.sort_values("period_start", kind="mergesort").itertuples(index=False):
        kind, bound = _kind_of(r)
        value = i18n.number(r.value, lang, sep)
        who = _who(r, lang)
        if kind == "target":
            text = i18n.t("figure.target_label", lang, value=value, who=str(r.reported_by).split(" (")[0])
            if any(lab["text"] == text for lab in out):  # two reports of one goal share its line and label
                continue
            out.append(dict(x=f"{max(hi, r.period_end.date()):%Y-%m-%d}", y=float(r.value), panel=panel, text=text,
                            side="left"))
            continue
        if kind == "count" and r.period_start == r.period_end:
            run = runs.setdefault(str(r.reported_by), [])
            if run and (r.period_start - run[-1][-1].period_start).days != 1:
                run.append([])
            if not run:
                run.append([])
            run[-1].append(r)
            continue
        key = "figure.label_" + (bound if kind == "bound" else kind)
        out.append(dict(x=f"{r.period_end:%Y-%m-%d}", y=float(r.value), panel=panel,
                        text=i18n.t(key, lang, value=value, who=who)))
    for groups in runs.values():
        for g in groups:
            top = max(g, key=lambda r: r.value)
            if len(g) == 1:
                text = i18n.t("figure.label_count", lang, value=i18n.number(top.value, lang, sep), who=_who(top, lang))
            else:
                low = min(r.value for r in g)
                text = i18n.t("figure.label_run", lang, low=i18n.number(low, lang, sep),
                              high=i18n.number(top.value, lang, sep), n=len(g), who=_who(top, lang))
            out.append(dict(x=f"{top.period_end:%Y-%m-%d}", y=float(top.value), panel=panel, text=text))
    return out


def flag_notes(snap, prepared, flagged: set[str], info: dict[str, set[str]], sz: Size, lang: str, sep: str,
               tighter: list[tuple[str, str]]) -> list[str]:
    """The footer's words on flagged points (open circles) and informational flags. A compact figure names the
    flags (what each means is in the CSV's flag column and the HTML), and adds to ``tighter`` the line's form
    without their names; a full one says what each flag means and the checks' own words."""
    notes = []
    if flagged and sz.compact:
        notes.append(i18n.t("figure.open_circles_compact", lang,
                            codes=", ".join(flag_name(c, lang) for c in sorted(flagged))))
        tighter.append((notes[-1], i18n.t("figure.open_circles_brief", lang)))
    elif flagged:
        notes.append(i18n.t("figure.open_circles", lang,
                            codes="; ".join(f"{flag_name(c, lang)}: {flag_text(c, lang)}" for c in sorted(flagged))))
        notes += flag_reasons(snap, prepared, lang=lang, sep=sep)
    for c, labels in sorted(info.items()):
        notes.append(i18n.t("figure.info_note", lang, code=flag_name(c, lang), text=flag_text(c, lang),
                            labels="; ".join(sorted(labels))))
    return notes


def reported_notes(reported, withheld: dict | None, lang: str = "en", sep: str = ",", compact: bool = False,
                   brief: bool = False) -> list[str]:
    """The footer's words on reported figures: what each style means (only those drawn), which figures are
    unverified (named, so a printed chart says it), that each is labelled and how labels of one spot are
    shared, and which figures of another measure were left off. A compact figure (article, social card) says
    what they are in a line: its legend shows the styles and each label says "unverified" where it is; with
    ``brief``, without how markers on one spot are set (the form a figure at its height limit uses)."""
    notes = []
    if reported is not None and len(reported) and compact:
        groups = reported_groups(reported)
        styles = ", ".join(i18n.t("figure.compact_" + g, lang) for g in ("counts", "bounds", "targets") if len(groups[g]))
        notes.append(i18n.t("figure.note_reported_brief" if brief else "figure.note_reported_compact", lang,
                            styles=styles[:1].upper() + styles[1:]))
    elif reported is not None and len(reported):
        groups = reported_groups(reported)
        # One footer line for the styles drawn, so a small card keeps its shape.
        notes.append(" ".join(i18n.t("figure.note_" + g, lang) for g in ("counts", "bounds", "targets")
                              if len(groups[g])).rstrip(";") )
        unverified = [r for r in reported.itertuples(index=False) if r.source_quality == UNVERIFIED]
        if unverified:  # who reported each is in the CSV and the hover: the footer names the figure only
            notes.append(i18n.t("figure.note_unverified", lang, figures="; ".join(
                f"{i18n.number(r.value, lang, sep)} {i18n.unit(str(r.unit), lang)}" for r in unverified)))
        notes.append(i18n.t("figure.note_labels", lang))
    for measure, n in sorted((withheld or {}).items()):
        notes.append(i18n.plural("figure.note_withheld", n, lang, measure=i18n.t("figure.measure_" + measure, lang)))
    # One paragraph, not a line each: a square social card keeps its shape with every kind drawn.
    return [" ".join(notes)] if notes else []


def build_totals_figure(snap, view, prepared, *, phrases: list[str], generated_on: dt.date | None = None,
                        size="page") -> go.Figure:
    """Figures given as one total over a period (arrests by state, Jan 2025 - Jul 2026) as horizontal bars,
    largest first, each labelled with its value; the period is in the title. A dot on the period's first day
    of a date axis would say nothing."""
    lang, sep = getattr(view, "lang", "en"), getattr(view, "sep", ",")
    sz = size_of(size)
    rows = []
    for p, ph in zip(prepared, phrases):
        f = p.frame
        for r in f.itertuples(index=False):
            rows.append((display_label(p, lang).split(": ")[-1] if p.key else display_label(p, lang), float(r.value),
                         r.date.date(), r.end.date(), ph))
    rows.sort(key=lambda r: r[1])
    periods = sorted({(a, b) for _, _, a, b, _ in rows})
    period = "; ".join(i18n.date_range(a, b, lang) for a, b in periods)
    unit = "; ".join(dict.fromkeys(r[4] for r in rows))
    first = localised_label(prepared[0], lang)
    base = first.split(": ")[0] if prepared[0].key else first
    member = {"state": "state", "aor": "aor", "facility": "facility", "country": "country"}.get(
        str(snap.info(prepared[0].series_id).get("breakdown", "")), "other")
    title = i18n.t("figure.totals_title", lang, base=base, unit=unit) + (
        i18n.t("figure.totals_members", lang, n=len(rows), members=i18n.t("figure.members_" + member, lang))
        if len(rows) > 1 else "")
    colour = STYLES[0][0]
    data = [dict(type="bar", orientation="h", x=[r[1] for r in rows], y=[html_text(r[0]) for r in rows],
                 marker=dict(color=colour), name=html_text(unit),
                 text=[i18n.number(r[1], lang, sep, 0 if r[1] >= 100 else 1) for r in rows],
                 textposition="outside", textfont=dict(size=sz.font, color=TEXT), cliponaxis=False,
                 hovertemplate="%{y}: %{x:,.1f}<extra></extra>", showlegend=False)]
    spec = trend_spec([], title=title, subtitle=i18n.t("figure.totals_subtitle", lang, period=period),
                      sources=source_lines(snap, prepared, lang), size=sz, panels=[Panel("")],
                      notes=[i18n.t("figure.totals_note", lang)],
                      generated_on=generated_on, height=max(160, len(rows) * (sz.font * 2.1)), lang=lang, sep=sep)
    spec = replace(spec, data=tuple(data), x_title=unit, layout=dict(
        spec.layout,
        xaxis=dict(_AXIS, title=dict(text=html_text(unit), font=dict(size=sz.font)), tickfont=dict(size=sz.font),
                   tickformat=",~r", range=[0, max(r[1] for r in rows) * 1.15], type="linear"),
        yaxis=dict(_AXIS, tickfont=dict(size=sz.font), type="category", automargin=True, title=None)))
    laid_out = finish(spec)
    laid_out["layout"]["margin"]["l"] = int(min(sz.width * 0.4, 20 + max(len(r[0]) for r in rows) * sz.font * CHAR_EM))
    fig = go.Figure(laid_out, _validate=VALIDATE)
    fig._title_plain = title
    return fig


def build_study_figure(windows, *, title: str, subtitle: str, unit: str, sources: list[str],
                       generated_on: dt.date | None = None, size="page", x_title: str = "",
                       notes: list[str] | None = None, lang: str = "en", sep: str = ",") -> go.Figure:
    lines = []
    for label, g in windows.groupby("window", sort=False):
        lines.append(Line(label, g["days_from_date"].to_numpy(), g["value"].to_numpy(dtype="float64"), unit=unit))
    spec = trend_spec(lines, title=title, subtitle=subtitle, sources=sources, y_title=unit,
                      notes=(notes or []) + [i18n.t("figure.study_note", lang)],
                      generated_on=generated_on, size=size, lang=lang, sep=sep,
                      x_title=x_title or i18n.t("figure.study_x", lang))
    # Ticks on whole periods counted from the date (0): a month or a day has no half (Plotly's own ticks read
    # "-1, -0.5, 0, 0.5, 1" on a one-month window).
    xs = [float(v) for ln in lines for v in ln.x]
    span = (max(xs) - min(xs)) if xs else 0.0
    spec = replace(
        spec, data=tuple(dict(t, hovertemplate="%{x}: %{y:,.1f}<extra></extra>") for t in spec.data),
        layout=dict(spec.layout,
                    shapes=[dict(type="line", xref="x", yref="paper", x0=0, x1=0, y0=0, y1=1,
                                 line=dict(color=NEUTRAL, width=1, dash="dot"))],
                    xaxis=dict(spec.layout["xaxis"], tickmode="linear", tick0=0,
                               dtick=whole_step(span, size_of(size)), tickformat="d")))
    return go.Figure(finish(spec), _validate=VALIDATE)


def whole_step(span: float, sz: Size) -> int:
    """A whole tick step for an axis ``span`` periods long: 1, 2, 5, 10, 20, 50... the smallest that leaves
    room for each label (about one tick per 60 px of plot; at most 13 ticks)."""
    most = max(3, min(13, int((sz.width - 104) / 60)))
    steps = [m * 10 ** e for e in range(7) for m in (1, 2, 5)]
    return next((s for s in steps if span / s <= most - 1), steps[-1])
