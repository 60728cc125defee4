"""What a figure is laid out for: its sizes (the page, an article column, a social card, the full image), the
axes that events and shaded spans are drawn on (``place_layers``) and the rows of span notes above the event
markers (``stack_notes``).

Its own module because the figure builders (``figures.core``) and the layers drawn on the overlay
(``figures.events``) both need these names, and the builders import the layers.
"""
from __future__ import annotations

from dataclasses import dataclass

OVERLAY_AXIS = "yaxis9"  # where layers put their traces; ``place_layers`` moves them (panels use yaxis..yaxis4)
OVERLAY_REF = "y9"


@dataclass(frozen=True)
class Size:
    """One export size. Font sizes are CSS pixels at ``width``; ``scale`` only multiplies the pixels of a PNG."""
    name: str
    width: int
    scale: float
    font: int  # ticks, legend, footer (the smallest text on the figure)
    title: int
    plot_height: int  # the panels' area, before the title, legend and footer
    square: bool = False
    list_events: bool = True  # the page lists events in a table under the chart instead
    description: str = ""
    # The narrowest width the figure is drawn at (the page's chart stretches to its column, which on a narrow
    # window is far less than ``width``): footer lines are wrapped for it, so none runs past the figure's edge.
    wrap_px: int = 0
    # At most this many times as tall as wide (0: no limit). An article column cannot take a chart three
    # times taller than its plot: the panels shrink to a floor, and the footer says where the rest is.
    max_ratio: float = 0.0
    compact: bool = False  # sources in one or two lines, events as a short key; the full lists go in the CSV/HTML
    # A phone's page chart: the legend goes under the plot with the footer (above it, its rows pushed the plot
    # a screen down), and the top ``toolbar_px`` are left to Plotly's toolbar (drawn over the title otherwise).
    legend_below: bool = False
    toolbar_px: int = 0
    # At most one event drawn per this many px of plot (0: every event): the rest are named in the footer and
    # listed in the table (``figures.events.thin_events`` says which are kept).
    event_px: int = 0


SIZES = {
    "page": Size("page", 1100, 1, 12, 19, 460, list_events=False, description="the page's chart", wrap_px=700),
    "full": Size("full", 1200, 1, 13, 20, 470, description="1200 px wide, the full-size image"),
    "article": Size("article", 680, 2, 12, 16, 340, max_ratio=1.3, compact=True,
                    description="680 px wide for an article column (at most 1.3 times as tall as wide; no text "
                                "under 12 px; PNG at 2x)"),
    # A card, not a document: events as the short key and sources in a line or two (compact), as in an article.
    "social": Size("social", 1080, 1, 22, 32, 420, square=True, compact=True,
                   description="1080 x 1080 social card (taller only when its text cannot fit; the full lists of "
                               "events and sources are in the CSV and HTML)"),
}
EXPORT_SIZES = ("article", "social", "full")


def size_of(size) -> Size:
    if isinstance(size, Size):
        return size
    try:
        return SIZES[size or "page"]
    except KeyError:
        raise ValueError(f"unknown size {size!r}; use one of {', '.join(SIZES)}") from None


def place_layers(lay: dict, data: list[dict], panels: int, *, strip_bottom: float,
                 strip_top: float = 1.0) -> list[dict]:
    """Put the layers' traces where they can be seen without taking the mouse from the data.

    A layer's traces come on the overlay axis ``y9``: markers with ``_strip_y`` (0 = strip bottom, 1 = top) go in
    the strip above the panels, which becomes ``y9``'s whole domain; every other overlay trace (the events'
    dotted lines, shaded spans: y from 0 to 1 = a panel's full height) is drawn once per panel on an invisible
    axis overlaying that panel's (``y10``, ``y11``...). Overlaying axes share their panel's plot area, so the
    panel's data points still answer the mouse. (A full-height overlay subplot drawn over the panels took every
    hover: no data point or reported figure could be read.) Copies after the first stay out of the legend,
    grouped with it so that a click on the legend entry hides every copy."""
    out, layered = [], []
    for t in data:
        if t.get("yaxis") != OVERLAY_REF:
            out.append(t)
            continue
        f = t.pop("_strip_y", None)
        if f is not None:
            t["y"] = [f] * len(t["x"])
            out.append(t)
        else:
            layered.append(t)
    for i, t in enumerate(layered):
        group = t.get("legendgroup") or f"layer{i}"
        for k in range(max(1, panels)):
            name = overlay_axis_name(k)
            lay.setdefault(name, dict(overlaying=panel_ref(k), range=[0, 1], anchor="x", visible=False,
                                      fixedrange=True))
            copy = dict(t, yaxis=overlay_ref(k), legendgroup=group)
            if k:
                copy["showlegend"] = False
            out.append(copy)
    if any(t.get("yaxis") == OVERLAY_REF for t in out):
        lay[OVERLAY_AXIS].update(domain=[min(strip_bottom, 0.999), max(strip_top, min(strip_bottom, 0.999) + 0.001)],
                                 range=[0, 1])
    else:
        del lay[OVERLAY_AXIS]
    return out


def overlay_axis_name(k: int) -> str:
    return f"yaxis{10 + k}"


def overlay_ref(k: int) -> str:
    return f"y{10 + k}"


def panel_axis_name(k: int) -> str:
    return "yaxis" if k == 0 else f"yaxis{k + 1}"


def panel_ref(k: int) -> str:
    return "y" if k == 0 else f"y{k + 1}"


NOTE_EM = 0.5  # the notes' sans font measures about 0.46 em a character in an export: a row's estimate errs wide


def stack_notes(notes: list[dict], lo: str, hi: str, plot_px: float, font: float, pad: float = 8.0) -> int:
    """Put each note of a span (``_span``: its first and last day, ISO) in a row of its own strip above the
    event markers: at the span's start, moved left as far as needed to end inside the plot, in the first row
    (from the top) where it overlaps no note already placed. Sets each note's ``x`` (paper), ``xanchor`` and
    ``_row``; returns the number of rows. Notes never sit over the markers, the data or each other."""
    import datetime as dt
    a, b = dt.date.fromisoformat(str(lo)[:10]), dt.date.fromisoformat(str(hi)[:10])
    days = max((b - a).days, 1)
    rows: list[list[tuple[float, float]]] = []
    for n in sorted(notes, key=lambda n: n["_span"][0]):
        n.pop("_span")
        w = len(n["text"]) * font * NOTE_EM + pad
        x0 = (dt.date.fromisoformat(n["x"][:10]) - a).days / days * plot_px
        if n.get("xanchor") == "right":
            x0 -= w
        x0 = max(0.0, min(x0, plot_px - w))
        x1 = x0 + w
        row = next((i for i, r in enumerate(rows) if all(x1 + pad <= p or q + pad <= x0 for p, q in r)), len(rows))
        if row == len(rows):
            rows.append([])
        rows[row].append((x0, x1))
        n.update(x=x0 / plot_px, xref="paper", xanchor="left", _row=row)
    return len(rows)
