"""Events on the time charts, in the table under them and in exports. Pure: no Streamlit.

Each event in view gets a number in date order. The chart shows a thin vertical line and a small numbered
marker along the top; the words live in the hover box and in the legend table under the chart (and, for an
exported image, in a few compact legend lines), so a busy month never piles labels on top of each other.

All event text is data. Plotly renders a subset of HTML in hover text, so it is escaped here; the hover
text is set with ``hovertext`` rather than ``hovertemplate`` so ``%{...}`` in a title is not expanded either.

Lines are plain shapes with no annotation text: ``add_vline(annotation_text=...)`` has been unreliable on date
axes (it positions the label by arithmetic on x), and text labels are what overlap in busy periods. The numbers
are one scatter trace on a hidden overlay axis running 0..1 from bottom to top, so they sit along the top
whatever the data's scale, and hover works on them.
"""
from __future__ import annotations

import csv
import datetime as dt
import html
import io
import textwrap

import pandas as pd
import plotly.graph_objects as go

from loaders.copies import describe_link, is_copy
from loaders.events import CATEGORIES, neutralise_for_csv

event_categories: dict[str, str] = dict(CATEGORIES)

# Paul Tol's "muted" scheme: distinguishable with common colour-vision deficiencies, and none of it reads as
# an alarm colour. Statistic releases get grey because they mark data, not actions.
CATEGORY_COLOURS = {
    "personnel": "#332288",
    "policy": "#117733",
    "operation": "#882255",
    "legal": "#AA4499",
    "funding": "#999933",
    "statistic-report": "#777777",
    "political": "#44AA99",
}
OVERLAY_AXIS = "yaxis9"  # a name no figure builder in this project uses
_LANES = (0.965, 0.905, 0.845, 0.785)
TRACE_NAME = "Events"


def filter_events(df: pd.DataFrame, start=None, end=None, categories=None, text: str | None = None) -> pd.DataFrame:
    """Events between ``start`` and ``end`` (inclusive, any date-like; None = open), of the given category keys
    (None = all), whose title, description or source contains ``text`` (case-insensitive, literal).
    Returned in date order with a ``number`` column starting at 1."""
    out = df
    if start is not None:
        out = out[out["date"] >= pd.Timestamp(start)]
    if end is not None:
        out = out[out["date"] <= pd.Timestamp(end)]
    if categories is not None:
        out = out[out["category"].isin(list(categories))]
    if text and text.strip():
        needle = text.strip().casefold()
        hay = (out["title"].fillna("") + "\n" + out["description"].fillna("") + "\n"
               + out["source_name"].fillna("")).str.casefold()
        out = out[hay.map(lambda h: needle in h).astype(bool)]
    return number_events(out)


def number_events(df: pd.DataFrame) -> pd.DataFrame:
    """Sort by date (then id, so ties are stable) and number from 1. Idempotent: the chart, the table and the
    exports all call it, so their numbers agree."""
    out = df.sort_values(["date", "id"], kind="mergesort").reset_index(drop=True)
    return out.assign(number=range(1, len(out) + 1))


def add_events_to_figure(fig: go.Figure, events_in_view: pd.DataFrame) -> go.Figure:
    """Draw each event as a thin vertical line plus a numbered marker along the top; return the figure."""
    layer = event_layers(events_in_view)
    if not layer["traces"]:
        return fig
    # All lines in one assignment: each add_shape re-validates every shape already on the figure, which made
    # 80 events cost 0.7 s (quadratic) against 0.01 s for the same shapes set at once.
    fig.update_layout(shapes=list(fig.layout.shapes) + layer["shapes"], **layer["layout"])
    fig.add_traces(layer["traces"])
    return fig


def event_layers(events_in_view: pd.DataFrame) -> dict:
    """The event layer as plain dicts: ``shapes`` (one thin line per event), ``traces`` (the numbered markers
    on a hidden overlay axis) and ``layout`` (that axis). Figure builders add them in one step."""
    ev = number_events(events_in_view)
    if ev.empty:
        return {"shapes": [], "traces": [], "layout": {}}
    dates = [_iso(d) for d in ev["date"]]
    colours = [_colour(c) for c in ev["category"]]
    shapes = [dict(type="line", xref="x", yref="paper", x0=d, x1=d, y0=0, y1=1,
                   line=dict(color=c, width=1, dash="dot"), layer="below", name=f"event {n}")
              for d, c, n in zip(dates, colours, ev["number"])]
    marker_trace = dict(
        type="scatter", x=dates, y=_lanes(ev["date"]), yaxis="y9", mode="markers+text", name=TRACE_NAME,
        text=[str(n) for n in ev["number"]], textposition="middle center",
        textfont=dict(size=10, color="#222222"),
        marker=dict(size=18, symbol="circle", color="white", line=dict(width=2, color=colours)),
        hovertext=[hover_text(e) for e in ev.to_dict("records")], hoverinfo="text", showlegend=False,
        cliponaxis=False,
    )
    return {"shapes": shapes, "traces": [marker_trace],
            "layout": {OVERLAY_AXIS: dict(range=[0, 1], overlaying="y", visible=False, fixedrange=True)}}


def hover_text(event) -> str:
    """The hover box of one event: number, title, date, category, description and source, all escaped."""
    desc = "<br>".join(_esc(line) for line in textwrap.wrap(str(event.get("description") or ""), 70))
    parts = [
        f"<b>{event['number']}. {_esc(event['title'])}</b>",
        f"{_iso(event['date'])}" + (" (approximate date)" if event["date_precision"] == "approximate" else ""),
        _esc(event_categories.get(event["category"], event["category"])),
    ]
    if desc:
        parts.append(desc)
    parts.append("Source: " + _esc(event["source_name"]))
    copy_note = _link_note(event)
    if copy_note:
        parts.append("Link: " + _esc(copy_note))
    return "<br>".join(parts)


def _link_note(event) -> str:
    """'copy on <host> of <outlet>, <date>' when the event's link is a copy of another outlet's report, else ''."""
    return describe_link(_text(event.get("source_url")), event.get("link_is_copy"),
                         _text(event.get("original_outlet")), _text(event.get("original_date")))


def events_legend_table(events_in_view: pd.DataFrame) -> pd.DataFrame:
    """The table under the chart: one row per numbered event, with its source name and link."""
    ev = number_events(events_in_view)
    return pd.DataFrame({
        "number": ev["number"].astype("int64"),
        "date": [_iso(d) for d in ev["date"]],
        "date_precision": ev["date_precision"].astype(object),
        "title": ev["title"].astype(object),
        "category": [event_categories.get(c, c) for c in ev["category"]],
        "source_name": ev["source_name"].astype(object),
        "source_url": ev["source_url"].astype(object),
        # Says when the link is only a copy (a republisher, mirror or aggregator) and whose report it copies.
        "link": [_link_note(e) or "original" for e in ev.to_dict("records")],
    })


def events_legend_text(events_in_view: pd.DataFrame, max_lines: int = 4, width: int = 150,
                       title_chars: int = 60) -> list[str]:
    """Compact plain-text lines for inside an exported figure: "1 2025-02-11 Title; 2 ...", wrapped to
    ``width`` characters and cut to ``max_lines`` with a count of what was left out. Plain text: escape it
    before giving it to Plotly (``build_trend_figure`` does that for its notes)."""
    ev = number_events(events_in_view)
    if ev.empty or max_lines < 1:
        return []
    items = [f"{n} {_iso(d)}{'~' if p == 'approximate' else ''} {_shorten(t, title_chars)}"
             for n, d, p, t in zip(ev["number"], ev["date"], ev["date_precision"], ev["title"])]
    lines: list[str] = []
    current = "Events: "
    for i, item in enumerate(items):
        piece = item if current.endswith(": ") else "; " + item
        if len(current) + len(piece) <= width:
            current += piece
            continue
        lines.append(current)
        if len(lines) == max_lines:
            lines[-1] = _with_more(lines[-1], len(items) - i, width)
            return lines
        current = item
    lines.append(current)
    return lines


def events_csv(events_in_view: pd.DataFrame, generated_on: dt.date | None = None) -> bytes:
    """The events in view as a UTF-8 CSV with citations: ISO dates, spreadsheet-safe text, and two leading
    comment rows (``#``) naming the export and its sources. Read back with ``pd.read_csv(..., comment="#")``."""
    ev = number_events(events_in_view)
    sources = sorted(set(ev["source_name"]))
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\r\n")
    # Comment rows are written by hand with no comma or quote in them: the line stays one cell that starts with
    # "#" (never a formula in a spreadsheet) and a reader skipping "#" lines skips all of it.
    buf.write(_comment(f"Events timeline exported {(generated_on or dt.date.today()).isoformat()} from the "
                       f"open-source immigration-enforcement dashboard; {len(ev)} event(s); each row cites its source."))
    buf.write(_comment("Sources: " + (" | ".join(sources) if sources else "none")))
    cols = ["number", "id", "date", "date_precision", "title", "category", "category_label", "description",
            "source_name", "source_url", "link_is_copy", "original_outlet", "original_date", "origin"]
    w.writerow(cols)
    for _, e in ev.iterrows():
        row = {
            "number": int(e["number"]), "id": e["id"], "date": _iso(e["date"]), "date_precision": e["date_precision"],
            "title": e["title"], "category": e["category"],
            "category_label": event_categories.get(e["category"], e["category"]),
            "description": e.get("description", ""), "source_name": e["source_name"], "source_url": e["source_url"],
            "link_is_copy": "yes" if is_copy(e.get("link_is_copy")) else "no",
            "original_outlet": e.get("original_outlet", ""), "original_date": e.get("original_date", ""),
            "origin": e.get("origin", ""),
        }
        w.writerow([neutralise_for_csv(_text(row[c])) if c != "number" else row[c] for c in cols])
    return buf.getvalue().encode("utf-8")


# ---------------------------------------------------------------------------------------------------------


def _lanes(dates: pd.Series) -> list[float]:
    """Stagger markers that would touch: an event goes in the first lane whose last marker is far enough back.
    "Far enough" is 1/45 of the span in view, about one marker width on a typical chart."""
    ds = pd.to_datetime(dates).reset_index(drop=True)
    span = max((ds.max() - ds.min()) / pd.Timedelta(days=1), 30.0)
    gap = pd.Timedelta(days=span / 45)
    last: list[pd.Timestamp | None] = [None] * len(_LANES)
    out = []
    for d in ds:
        free = [i for i, t in enumerate(last) if t is None or d - t >= gap]
        # All lanes crowded: reuse the one that has waited longest.
        lane = free[0] if free else min(range(len(_LANES)), key=lambda i: last[i])
        last[lane] = d
        out.append(_LANES[lane])
    return out


def _comment(text: str) -> str:
    clean = " ".join(text.replace(",", ";").replace('"', "'").split())
    return "# " + "".join(ch for ch in clean if ch.isprintable()) + "\r\n"


def _colour(category: str) -> str:
    return CATEGORY_COLOURS.get(category, "#777777")


def _esc(text) -> str:
    return html.escape("" if text is None or (isinstance(text, float) and pd.isna(text)) else str(text), quote=False)


def _text(value) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def _iso(d) -> str:
    return pd.Timestamp(d).date().isoformat()


def _shorten(text: str, n: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _with_more(line: str, left: int, width: int) -> str:
    tail = f"; … {left} more in the events table"
    if len(line) + len(tail) > width:
        line = line[: max(0, width - len(tail) - 1)].rstrip() + "…"
    return line + tail
