"""What a figure is laid out for: its sizes (the page, an article column, a social card, the full image), the
axes that events and shaded spans are drawn on (``place_layers``) and the rows of span notes above the event
markers (``stack_notes``).

Its own module because the figure builders (``figures.core``) and the layers drawn on the overlay
(``figures.events``) both need these names, and the builders import the layers.
"""
from __future__ import annotations

import math
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
    # times taller than its plot: the panels shrink to a floor, and the footer says where the rest is. A square
    # card is laid out square and grows only when its text cannot fit, never past this (``height_limit``).
    max_ratio: float = 0.0
    compact: bool = False  # sources in one or two lines, events as a key of its own lines; the full lists in the CSV/HTML
    # A compact figure's event key takes at most this many footer lines: each event it lists has its number, date,
    # whole title and source, and the events that do not fit are not drawn (the CSV lists every event in view).
    key_lines: int = 0
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
    "article": Size("article", 680, 2, 12, 16, 340, max_ratio=1.3, compact=True, key_lines=8,
                    description="680 px wide for an article column (at most 1.3 times as tall as wide; no text "
                                "under 12 px, but 11 px in a busy view's legend and notes; PNG at 2x)"),
    # A card, not a document: events as the short key and sources in a line or two (compact), as in an article.
    "social": Size("social", 1080, 1, 22, 32, 420, square=True, max_ratio=1.6, compact=True, key_lines=7,
                   description="1080 x 1080 social card (taller only when its text cannot fit, and never past "
                               "1.6 times as tall as wide; the full lists of events and sources are in the CSV "
                               "and HTML)"),
}
EXPORT_SIZES = ("article", "social", "full")


def size_of(size) -> Size:
    if isinstance(size, Size):
        return size
    try:
        return SIZES[size or "page"]
    except KeyError:
        raise ValueError(f"unknown size {size!r}; use one of {', '.join(SIZES)}") from None


def shape_height(sz: Size) -> float:
    """The height a compact figure is laid out for first, px: a square card's width, an article column's ratio
    of its width. Past it, the footer's shorter forms and a shorter event key are used (``figures.core``)."""
    return sz.width if sz.square else sz.width * (sz.max_ratio or 1.0)


def height_limit(sz: Size) -> float:
    """The most a figure of this size may be tall, px (infinite when the size has no ratio): an article column's
    ratio, and how far a square card may grow when its text cannot fit the square."""
    return sz.width * sz.max_ratio if sz.max_ratio else math.inf


READABLE_PX = 11  # the smallest legend or footer text at an article's width (680 px), when a busy view needs room
ARTICLE_PX = 680


def text_floor(sz: Size) -> int:
    """The smallest the legend and footer may get to keep a figure within its height limit, px: 11 px at an
    article's 680 px width and as much larger as the size is wider (a social card is read scaled down: 18 px at
    its 1,080), never above the size's own font (a size that cannot shrink)."""
    return min(sz.font, math.ceil(READABLE_PX * sz.width / ARTICLE_PX))


FOOTER_EM = 0.52  # footer text is plain Latin prose: a little narrower than the title's average glyph


def left_margin(sz: Size) -> int:
    """The figure's left margin, px (the y-axis ticks and title); a social card's larger font needs more."""
    return 80 if sz.name != "social" else 110


def footer_chars(sz: Size, font: float | None = None) -> int:
    """Characters in one footer line at this size. Footer lines fit the narrowest width the figure is drawn at
    (the page's chart stretches to its column): wrapped for 1,100 px, the page's footer ran past the edge of a
    narrower column and was cut there. The event key counts its lines with the same width, so the lines it
    budgets are the lines ``figures.core.finish`` draws."""
    left = left_margin(sz)
    wrap_w = min(sz.width - left - 24, (sz.wrap_px or sz.width) - left - 24)
    return max(40, int(wrap_w / ((font or sz.font) * FOOTER_EM)))


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


CELL_PX = 32


def _point_cells(data_points) -> dict[tuple[int, int], list[tuple[int, float, float, float, float]]]:
    """The data points' boxes (6 px) by panel and by a column of the plot ``CELL_PX`` wide: a candidate label box
    is checked against the points of the columns it spans only (a busy view's thousands of points against every
    box of every label took most of a social card's layout, laid out again for each length of its event key)."""
    cells: dict[tuple[int, int], list[tuple[int, float, float, float, float]]] = {}
    for p, x, y in data_points:
        cells.setdefault((p, int(x // CELL_PX)), []).append((p, x - 3, y - 3, x + 3, y + 3))
    return cells


def _near(cells, panel: int, b) -> list:
    """The point boxes of ``panel`` in the columns box ``b`` spans, and one either side (a point's box is 6 px)."""
    return [o for c in range(int(b[0] // CELL_PX) - 1, int(b[2] // CELL_PX) + 2) for o in cells.get((panel, c), ())]


LABEL_EM = 0.56  # a point label's average glyph, generous: the placement must err towards leaving room
LABEL_LINE = 1.3  # Plotly's line height in an annotation, em


def place_labels(labels: list[dict], *, panels: list[tuple[float, float]], plot_w: float, font: float,
                 points: list[tuple[int, float, float]], lines_x: list[float], marker_px: float,
                 data_points: tuple[tuple[int, float, float], ...] | list[tuple[int, float, float]] = ()) -> list[dict]:
    """Where each point label goes, in px of the plot area (x from its left edge, y down from its top).

    ``labels``: each with ``panel``, ``px`` and ``py`` (its point), ``text`` and an optional ``side`` ("left":
    tried on the left first). ``panels``: each panel's (top, bottom). ``points``: every marker drawn beside the
    labels, (panel, x, y); ``lines_x``: the event lines, which run the panels' whole height.

    Labels whose points fall within a marker of each other are joined into one label, one line each (two
    figures on one spot cannot carry two labels that do not cover each other or the other's marker). Each
    label then goes in the first place, beside its point or moved up or down its panel (an arrow then points
    at the point), that stays inside its panel and covers no label already placed and no marker, and, where
    one exists, crosses no event line and covers no point of a data line (``data_points``; a label has a white
    ground: what it cannot avoid passes under it, a line before a data point). Returns
    the joined labels with ``texts`` (their lines), ``cx``, ``cy`` (the box's centre) and ``w``, ``h``; a label
    with no such place in its panel (three short panels of an article) has ``placed`` False and no box."""
    groups: list[dict] = []
    for lab in sorted(labels, key=lambda a: (a["panel"], a["py"], a["px"])):
        g = next((g for g in groups if g["panel"] == lab["panel"] and abs(g["px"] - lab["px"]) < marker_px
                  and abs(g["py"] - lab["py"]) < marker_px), None)
        if g is None:
            groups.append(dict(lab, texts=[lab["text"]]))
        elif lab["text"] not in g["texts"]:
            g["texts"].append(lab["text"])
    r = marker_px / 2 + 1
    blocked = [(p, x - r, y - r, x + r, y + r) for p, x, y in points]
    cells = _point_cells(data_points)
    placed: list[tuple[int, float, float, float, float]] = []
    gap = marker_px / 2 + 4
    for g in groups:
        top, bottom = panels[g["panel"]]
        w = max(len(t) for t in g["texts"]) * font * LABEL_EM + 8
        h = len(g["texts"]) * font * LABEL_LINE + 6
        left_first = g.get("side") == "left" or g["px"] > plot_w * 0.7
        step = min(h / 2 + 3, font * 0.7)
        # Beside the point first (its preferred side, then the other), then anywhere in the panel, nearest first:
        # an arrow joins a label set apart to its point.
        xs = [g["px"] - gap - w, g["px"] + gap] if left_first else [g["px"] + gap, g["px"] - gap - w]
        xs += [plot_w * i / 24 - w / 2 for i in range(25)] + [0.0, plot_w - w]
        ranked: list[tuple[float, tuple[float, float, float, float]]] = []
        for k in range(0, 2 * int((bottom - top) / step) + 2):
            dy = (k + 1) // 2 * step * (1 if k % 2 else -1)
            y0 = g["py"] + dy - h / 2
            for n, x0 in enumerate(xs):
                if x0 >= 0 and x0 + w <= plot_w and top <= y0 and y0 + h <= bottom:
                    near = abs(dy) + (0 if n < 2 else abs(x0 + w / 2 - g["px"]))
                    ranked.append((near + n * 0.01, (x0, y0, x0 + w, y0 + h)))
        candidates = [b for _, b in sorted(ranked)]

        def clear(b, panel=g["panel"], lines=True, points=True):
            def hit(o):
                return o[0] == panel and min(b[2], o[3]) > max(b[0], o[1]) and min(b[3], o[4]) > max(b[1], o[2])
            if any(hit(o) for o in placed) or any(hit(o) for o in blocked) or (
                    points and any(hit(o) for o in _near(cells, panel, b))):
                return False
            return not (lines and any(b[0] - 1 < x < b[2] + 1 for x in lines_x))

        box = next((b for rule in ({}, {"lines": False}, {"lines": False, "points": False})
                    for b in candidates if clear(b, **rule)), None)
        if box is None:  # no room in its panel: left unlabelled, and the caller says so
            g.update(placed=False)
            continue
        placed.append((g["panel"], *box))
        g.update(cx=(box[0] + box[2]) / 2, cy=(box[1] + box[3]) / 2, w=w, h=h, placed=True)
    return groups
