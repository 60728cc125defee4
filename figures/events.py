"""Events on the time charts, in the table under them and in exports. Pure: no Streamlit.

Each event in view gets a number in date order: the dashboard's own events 1, 2, 3...; a reader's own events
(an uploaded file, or the local events file: ``origin`` "upload" or "user") are numbered apart, U1, U2..., so
adding them never renumbers the curated ones, and they are marked as the reader's in the marker (a square), the
hover box, the key and every export. The chart shows a thin dotted line per event (coloured by
category, one trace per category, so the legend explains the colours) and numbered markers in a strip above
the panels. Markers never overlap: events closer than a marker's width at the figure's size are merged into
one marker labelled with their number range ("12-15"), whose hover box lists them all. The words live in the
hover box, in the table under the page's chart and, in a full-size or social image, in a footer that lists
every event in view (the image grows taller rather than drop any). An article-size image (``Size.compact``)
must fit a column: its events are drawn in one grey, with a short key (a few words of each title, or the range
of numbers and the categories shown) and every title, date and source in the HTML export and the CSVs.

All event text is data. Plotly renders a subset of HTML in hover text, so it is escaped here; the hover
text is set with ``hovertext`` rather than ``hovertemplate`` so ``%{...}`` in a title is not expanded either.

Events are a few traces, not one layout shape each: Plotly re-lays out every shape on each redraw, which made
80 events slow to draw (issue 16).
"""
from __future__ import annotations

import csv
import datetime as dt
import functools
import io
import textwrap

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from figures.layout import OVERLAY_REF, footer_chars, place_layers, size_of
from loaders import clock
from loaders.events import CATEGORIES
from loaders.text import csv_cell, html_text
from wording import citation, i18n

event_categories: dict[str, str] = dict(CATEGORIES)

# Based on Paul Tol's "muted" scheme (distinguishable with common colour-vision deficiencies, nothing reads as
# an alarm), darkened where needed so every colour has at least 3:1 contrast on white. Statistic releases get
# grey because they mark data, not actions.
CATEGORY_COLOURS = {
    "personnel": "#332288",
    "policy": "#117733",
    "operation": "#882255",
    "legal": "#AA4499",
    "funding": "#7A7A1F",
    "statistic-report": "#6E6E6E",
    "political": "#2A7F74",
}
OVERLAY_AXIS = "yaxis9"  # the figures' full-height overlay axis (figures.layout.OVERLAY_AXIS)
TRACE_NAME = "Events"
MIXED = "#3A3A3A"  # ring of a marker that groups events of several categories
PAGE_PLOT_PX = 1000  # plot width assumed for the page's chart (it stretches to the column)


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


OWN_ORIGINS = ("user", "upload")  # loaders.events.ORIGINS: the reader's rows
OWN_PREFIX = "U"


def is_own(df: pd.DataFrame) -> np.ndarray:
    """Which events are the reader's own (uploaded, or from the local events file), as a bool array."""
    if "origin" not in df.columns:
        return np.zeros(len(df), dtype=bool)
    return df["origin"].isin(OWN_ORIGINS).to_numpy(dtype=bool)


def number_events(df: pd.DataFrame) -> pd.DataFrame:
    """Sort by date (then id, so ties are stable) and number: the dashboard's events 1, 2, 3... and the reader's
    own apart, 1, 2, 3... shown as "U1", "U2" (``label``; ``own`` says which). Idempotent: the chart, the table
    and the exports all call it, so their numbers agree, and a reader's file never renumbers a curated event."""
    out = df.sort_values(["date", "id"], kind="mergesort").reset_index(drop=True)
    own = is_own(out)
    number = np.zeros(len(out), dtype="int64")
    number[~own] = np.arange(1, int((~own).sum()) + 1)
    number[own] = np.arange(1, int(own.sum()) + 1)
    label = [f"{OWN_PREFIX}{n}" if o else str(n) for n, o in zip(number.tolist(), own.tolist())]
    return out.assign(number=number, label=label, own=own)


def add_events_to_figure(fig: go.Figure, events_in_view: pd.DataFrame, *, size="full") -> go.Figure:
    """Draw the event layer onto an already laid-out figure (lines over the whole plot, markers along its top
    edge); return the figure. ``figures.core`` adds the layer before laying out instead, with a strip above
    the panels for the markers."""
    ev = number_events(events_in_view)
    if ev.empty:
        return fig
    xr = fig.layout.xaxis.range
    lo, hi = (xr if xr else (ev["date"].min(), ev["date"].max()))
    layer = event_layers(ev, lo=lo, hi=hi, size=size)
    lay = {OVERLAY_AXIS: dict(range=[0, 1], anchor="x", visible=False, fixedrange=True)}
    panels = sum(1 for k in fig.layout.to_plotly_json() if k == "yaxis" or (k[5:].isdigit() and int(k[5:]) < 9))
    # no strip was laid out above the panels: the markers take a thin band at the top of the plot area
    traces = place_layers(lay, layer["traces"], panels, strip_bottom=0.94)
    fig.update_layout(lay)
    fig.add_traces(traces)
    return fig


# Which events a narrow chart keeps when it cannot draw them all (``Size.event_px``): the reader's own first (they
# added them to see them), then by category, the kinds of event that change enforcement figures directly before
# those that explain them; statistic releases mark data, not actions, and go last.
EVENT_RANK = ("policy", "operation", "legal", "funding", "personnel", "political", "statistic-report")


def thin_events(ev: pd.DataFrame, lo, hi, plot_px: float, event_px: float) -> np.ndarray:
    """Which numbered events (``number_events``' rows) a plot ``plot_px`` wide draws when it holds at most one
    event per ``event_px`` px: taken in ``EVENT_RANK`` order (the reader's own first; in a category, earliest
    first), each kept only if no event already kept lies within ``event_px`` of it, until the plot holds
    ``plot_px // event_px``. Returns a bool mask in the frame's order; every event is kept when ``event_px`` is 0."""
    n = len(ev)
    if not event_px or n == 0:
        return np.ones(n, dtype=bool)
    most = max(1, int(plot_px // event_px))
    lo, hi = pd.Timestamp(lo), pd.Timestamp(hi)
    span = max((hi - lo) / pd.Timedelta(days=1), 1.0)
    px = ((pd.to_datetime(ev["date"]) - lo) / pd.Timedelta(days=1)).to_numpy(dtype="float64") / span * plot_px
    rank = {c: i for i, c in enumerate(EVENT_RANK)}
    own = is_own(ev) if "own" not in ev else ev["own"].to_numpy(dtype=bool)
    order = sorted(range(n), key=lambda i: (not own[i], rank.get(ev["category"].iloc[i], len(EVENT_RANK)), px[i]))
    keep = np.zeros(n, dtype=bool)
    placed: list[float] = []
    for i in order:
        if len(placed) == most:
            break
        if all(abs(px[i] - p) >= event_px for p in placed):
            keep[i] = True
            placed.append(px[i])
    return keep


def label_runs(labels: list[str]) -> str:
    """Event labels as runs: ["2", "3", "4", "7", "U1"] -> "2–4, 7, U1"."""
    out: list[list[str]] = []
    for lab in labels:
        prev = out[-1][-1] if out else None
        if prev is not None and prev.isdigit() and lab.isdigit() and int(lab) == int(prev) + 1:
            out[-1].append(lab)
        else:
            out.append([lab])
    return ", ".join(_range_label(r[0], r[-1]) for r in out)


def category_label(cat: str, lang: str = "en") -> str:
    """An event category's label in ``lang`` (loaders.events.CATEGORIES holds the English)."""
    if lang != "en" and i18n.has("category." + str(cat), lang):
        return i18n.t("category." + str(cat), lang)
    return event_categories.get(cat, cat)


def event_layers(events_in_view: pd.DataFrame, *, lo=None, hi=None, size="page", plot_px: float | None = None,
                 lang: str = "en", key_lines: int | None = None) -> dict:
    """The event layer for ``figures.core.add_layer``: one dotted-line trace per category (the legend
    explains the colours), one trace of numbered markers (clustered so none overlap at this size), the strip
    height they need above the panels, and footer notes listing every event (for exported sizes)."""
    sz = size_of(size)
    ev = number_events(events_in_view)
    if ev.empty:
        return {"traces": [], "notes": [], "top_strip": 0}
    lo = pd.Timestamp(lo if lo is not None else ev["date"].min())
    hi = pd.Timestamp(hi if hi is not None else ev["date"].max())
    if plot_px is None:
        plot_px = PAGE_PLOT_PX if sz.name == "page" else sz.width - 104
    drawn = thin_events(ev, lo, hi, plot_px, sz.event_px)
    left_out = ev["label"][~drawn].astype(str).tolist()
    ev = ev[drawn].reset_index(drop=True)
    # The events as plain records, built once from column lists (DataFrame.to_dict("records"), twice, and a
    # filter per category were a third of the time to draw a new range).
    if sz.compact:
        # A compact figure draws only the events its key can list in full (``event_key``); the CSV lists all.
        keep, key_note = event_key(ev, sz, lang, key_lines)
        ev = ev.iloc[keep].reset_index(drop=True)
        if ev.empty:
            return {"traces": [], "notes": [key_note], "top_strip": 0}
    fields = [c for c in ev.columns if c in _RECORD_FIELDS]
    recs = [dict(zip(fields, row)) for row in zip(*(ev[c].tolist() for c in fields))]
    dates_by_cat: dict = {}
    for e in recs:
        dates_by_cat.setdefault(e["category"], []).append(_iso(e["date"]))
    traces = []
    for cat in [c for c in CATEGORY_COLOURS if c in dates_by_cat] + sorted(set(dates_by_cat) - set(CATEGORY_COLOURS)):
        xs, ys = [], []
        for d in dates_by_cat[cat]:
            xs += [d, d, None]
            ys += [0, 1, None]
        traces.append(dict(type="scatter", x=xs, y=ys, yaxis=OVERLAY_REF, mode="lines", hoverinfo="skip",
                           name=html_text(i18n.t("events.legend_entry", lang, category=category_label(cat, lang).lower())),
                           line=dict(color=KEY_COLOUR if sz.compact else _colour(cat), width=1.5, dash="dot"),
                           showlegend=not sz.compact))  # no legendgroup: a group stacks its entries
    clusters = cluster_events(ev, lo, hi, plot_px, sz.font)
    hovers = [hover_text(e, lang) for e in recs]  # per event; a cluster joins its members' boxes
    mx, text, sizes, rings, htext, symbols = [], [], [], [], [], []
    for c in clusters:
        first, last = recs[c[0]], recs[c[-1]]
        mx.append(_iso(first["date"] + (last["date"] - first["date"]) / 2))
        label = run_label([recs[i]["label"] for i in c], [recs[i]["own"] for i in c])
        text.append(label)
        sizes.append(marker_px(label, sz.font))
        symbols.append("square" if all(recs[i]["own"] for i in c) else "circle")  # the reader's own: a square
        cats = {recs[i]["category"] for i in c}
        rings.append(KEY_COLOUR if sz.compact else _colour(cats.pop()) if len(cats) == 1 else MIXED)
        shown = [hovers[i] for i in c[:6]]
        more = len(c) - len(shown)
        htext.append("<br><br>".join(shown) + ("<br><br>" + i18n.t("events.and_more", lang, n=more,
                                                                   first=recs[c[6]]['label'], last=last['label'])
                                               if more > 0 else ""))
    traces.append(dict(
        type="scatter", x=mx, _strip_y=0.5, yaxis=OVERLAY_REF, mode="markers+text",
        name=TRACE_NAME if lang == "en" else i18n.t("events.trace", lang),
        text=text, textposition="middle center", textfont=dict(size=sz.font, color="#111111"),
        marker=dict(size=sizes, symbol=symbols, color="white", line=dict(width=2, color=rings)),
        hovertext=htext, hoverinfo="text", showlegend=False, cliponaxis=False,
        customdata=[[recs[i]["label"] for i in c] for c in clusters],
    ))
    notes = [i18n.t("events.note", lang, n=len(ev))]
    if sz.compact:
        # One grey for every event and no legend rows for their categories (two rows of an article's height);
        # the key lists each event drawn (``keep`` above), and says where the ones left off are.
        notes = [key_note]
    elif sz.list_events:
        notes = events_legend_text(ev, max_lines=None, width=footer_chars(sz), lang=lang)
        head = i18n.t("events.list_head", lang)
        notes = [i18n.t("events.note_legend", lang, rest=notes[0][len(head):])] + notes[1:] if notes else []
    if left_out:
        notes.append(i18n.plural("events.not_drawn", len(left_out), lang, shown=len(ev), total=len(ev) + len(left_out),
                                 labels=label_runs(left_out)))
    if ev["own"].any():
        notes.append(i18n.t("events.own_note", lang, n=int(ev["own"].sum())))
    return {"traces": traces, "notes": notes, "top_strip": max(sizes) + 10}


KEY_COLOUR = "#5A5A5A"  # an article-size figure's events: one colour (6.9:1 on white)


def key_item(e, lang: str = "en") -> str:
    """One event as an exported figure lists it: number, date (``~`` when approximate), the whole title and the
    outlet it is sourced to, "6 2025-02-11 ERO chief Russell Hott and deputy Peter Berg reassigned (Newsmax
    (citing Washington Post))". Never cut: a line too long for the figure is wrapped by its footer."""
    title = " ".join(str(e["title"]).split())
    source = " ".join(_text(e.get("source_name")).split())
    approx = "~" if e.get("date_precision") == "approximate" else ""
    own = i18n.t("events.own_mark", lang) if bool(e.get("own", False)) else ""
    return f"{e['label']} {_iso(e['date'])}{approx} {title}" + (f" ({source})" if source else "") + own


def _wrapped_lines(text: str, chars: int) -> int:
    # As figures.core.finish wraps a footer line, so the count is the lines drawn.
    return len(textwrap.wrap(text, chars, break_on_hyphens=False)) or 1


def event_key(events_in_view: pd.DataFrame, size, lang: str = "en", lines: int | None = None) -> tuple[list[int], str]:
    """What a compact figure (article, social card) draws of the events in view, and its key: (the positions in
    ``number_events(events_in_view)`` of the events drawn, the key as one footer paragraph). Every event drawn
    is listed with ``key_item``. When the whole list would take more than the size's ``key_lines``, the events
    are taken by category (leadership changes first, then policy, operations, court orders, funding, releases,
    politics; by date within one) while the key still fits; the key says how many are left off and that the
    CSV export lists every event in view (rows of kind "event"), or, when it has room for no event line, that
    none is drawn and that the CSV and HTML exports list them. Numbers stay the view's, as in the CSV.
    ``lines``: the key's budget, when the figure has less room than the size's (``figures.core`` gives the
    plot its share first)."""
    sz = size_of(size)
    budget = sz.key_lines if lines is None else lines
    ev = number_events(events_in_view)
    n = len(ev)
    if not n:
        return [], ""
    chars = footer_chars(sz)
    head = i18n.t("events.key_head", lang)
    items = [key_item(e, lang) for e in ev.to_dict("records")]
    whole = head + "; ".join(items) + "."
    if not budget or _wrapped_lines(whole, chars) <= budget:
        return list(range(n)), whole

    def key(kept: list[int]) -> str:
        if not kept:  # "63 more of the 63 events" read as if some were listed: none is, and it says so
            return i18n.plural("events.key_none", n, lang)
        rest = i18n.plural("events.key_left_off", n - len(kept), lang, total=n)
        return head + "; ".join(items[i] for i in kept) + ". " + rest

    rank = {c: k for k, c in enumerate(CATEGORY_COLOURS)}
    cats = ev["category"].tolist()
    kept: list[int] = []
    for i in sorted(range(n), key=lambda i: (rank.get(cats[i], len(rank)), i)):
        trial = sorted(kept + [i])
        if _wrapped_lines(key(trial), chars) > budget:  # in order: a later, shorter one never takes its place
            break
        kept = trial
    return kept, key(kept)


# What the layer reads of an event (hover_text and the markers).
# ``read_at`` (the copy a row was read at) is left out on purpose: it is never shown as the source.
_RECORD_FIELDS = ("number", "label", "own", "date", "date_precision", "title", "category", "description", "source_name",
                  "source_url", "link_status", "original_outlet", "original_title", "original_date")


def marker_px(label: str, font: int) -> float:
    """Diameter of a marker that holds ``label`` at ``font`` px: digits are about 0.6 em wide."""
    return max(font * 1.7, len(label) * font * 0.62 + 8)


def cluster_label(ev: pd.DataFrame, idx: list[int]) -> str:
    return run_label([ev["label"].iloc[i] for i in idx], [bool(ev["own"].iloc[i]) for i in idx])


def _range_label(a, b) -> str:
    return str(a) if a == b else f"{a}\u2013{b}"


def run_label(labels: list[str], own: list[bool]) -> str:
    """A marker's text for a run of events in date order: "12", "12–15", "U1", "12–14, U1"
    (the dashboard's numbers, then the reader's own)."""
    ours = [x for x, o in zip(labels, own) if not o]
    theirs = [x for x, o in zip(labels, own) if o]
    return ", ".join(_range_label(p[0], p[-1]) for p in (ours, theirs) if p)


def cluster_events(ev: pd.DataFrame, lo, hi, plot_px: float, font: int, pad: float = 3.0) -> list[list[int]]:
    """Group events (in date order) so no two markers overlap at ``plot_px`` wide: the closest pair of
    neighbouring markers that would touch is merged, until no pair does. A cluster's marker sits at the middle
    of its first and last date. Plain lists and floats: this runs on every page rerun."""
    lo, hi = pd.Timestamp(lo), pd.Timestamp(hi)
    span = max((hi - lo) / pd.Timedelta(days=1), 1.0)
    days = ((pd.to_datetime(ev["date"]) - lo) / pd.Timedelta(days=1)).to_numpy(dtype="float64")
    px = (days / span * plot_px).tolist()
    labels = ev["label"].tolist() if "label" in ev else [str(n) for n in ev["number"]]
    own = ev["own"].tolist() if "own" in ev else [False] * len(ev)
    # A cluster is a run of neighbouring events, kept as (first, last) index. After a merge only the two gaps
    # beside the merged marker change, so only those are worked out again (recomputing every gap and width
    # after every merge was most of this function's time on a view with 60 events).
    runs = [(i, i) for i in range(len(ev))]

    def centre(r):
        return (px[r[0]] + px[r[1]]) / 2

    def width(r):
        return marker_px(run_label(labels[r[0]:r[1] + 1], own[r[0]:r[1] + 1]), font)

    def gap(a, b):
        return centre(b) - centre(a) - (width(a) + width(b)) / 2

    gaps = [gap(a, b) for a, b in zip(runs, runs[1:])]
    while gaps:
        smallest = min(gaps)
        if smallest >= pad:
            break
        worst = gaps.index(smallest)  # the first of equal gaps, as before
        runs[worst:worst + 2] = [(runs[worst][0], runs[worst + 1][1])]
        del gaps[worst]
        if worst > 0:
            gaps[worst - 1] = gap(runs[worst - 1], runs[worst])
        if worst < len(gaps):
            gaps[worst] = gap(runs[worst], runs[worst + 1])
    return [list(range(a, b + 1)) for a, b in runs]


def markers_overlap(trace: dict, lo, hi, plot_px: float) -> list[tuple[str, str]]:
    """Pairs of neighbouring markers in an event trace that overlap at ``plot_px`` wide (for tests)."""
    lo, hi = pd.Timestamp(lo), pd.Timestamp(hi)
    span = max((hi - lo) / pd.Timedelta(days=1), 1.0)
    pos = [((pd.Timestamp(x) - lo) / pd.Timedelta(days=1)) / span * plot_px for x in trace["x"]]
    size = trace["marker"]["size"]
    return [(trace["text"][i], trace["text"][i + 1]) for i in range(len(pos) - 1)
            if pos[i + 1] - pos[i] < (size[i] + size[i + 1]) / 2]


def hover_text(event, lang: str = "en") -> str:
    """The hover box of one event: number, title, date, category, description and source, all escaped; a
    reader's own event says so under its title."""
    own = bool(event.get("own", False))
    label = event.get("label", event["number"])
    return f"<b>{label}. {html_text(event['title'])}</b><br>" + (
        f"{html_text(i18n.t('events.own_hover', lang))}<br>" if own else "") + _hover_body(
        _iso(event["date"]), event["date_precision"], event["category"], _text(event.get("description")),
        _text(event.get("source_name")), _text(event.get("link_status")), _text(event.get("original_outlet")),
        _text(event.get("original_title")), _text(event.get("original_date")), lang)


@functools.lru_cache(maxsize=4096)
def _hover_body(date: str, precision, category, description: str, source_name: str, link_status: str,
                original_outlet: str, original_title: str, original_date: str, lang: str) -> str:
    # Everything but the number, which depends on the range shown: kept per event and language, since wrapping
    # and escaping each description again was a tenth of the time to draw a new range.
    desc = "<br>".join(html_text(line) for line in textwrap.wrap(description, 70))
    parts = [
        date + (i18n.t("events.approximate", lang) if precision == "approximate" else ""),
        html_text(category_label(category, lang)),
    ]
    if desc:
        parts.append(desc)
    parts.append(html_text(i18n.t("events.source", lang, name=source_name)))
    note = citation.no_link_note({"link_status": link_status, "original_outlet": original_outlet,
                                  "original_title": original_title, "original_date": original_date}, lang)
    if note:
        parts.append(html_text(note))
    return "<br>".join(parts)


def events_legend_table(events_in_view: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """The table under the chart: one row per numbered event, with its source name and link."""
    ev = number_events(events_in_view)
    return pd.DataFrame({
        "number": ev["label"].astype(str),  # "7", or "U1" for a reader's own event
        "date": [_iso(d) for d in ev["date"]],
        "date_precision": ev["date_precision"].astype(object),
        "title": ev["title"].astype(object),
        "category": [category_label(c, lang) for c in ev["category"]],
        "source_name": ev["source_name"].astype(object),
        "source_url": ev["source_url"].astype(object),
        # "original", or that the original's address was not found and how to cite it (never the copy read).
        "link": [citation.no_link_note(e, lang) or i18n.t("copies.original", lang) for e in ev.to_dict("records")],
    })


def events_legend_text(events_in_view: pd.DataFrame, max_lines: int | None = 4, width: int = 150,
                       lang: str = "en") -> list[str]:
    """Plain-text lines for inside an exported figure: "1 2025-02-11 Title (Source); 2 ...", wrapped to
    ``width`` characters and, if ``max_lines`` is given, cut to it with a count of what was left out
    (exported figures pass None: they list every event). Plain text: escape it
    before giving it to Plotly (``build_trend_figure`` does that for its notes)."""
    ev = number_events(events_in_view)
    if ev.empty or (max_lines is not None and max_lines < 1):
        return []
    items = [key_item(e, lang) for e in ev.to_dict("records")]
    lines: list[str] = []
    current = i18n.t("events.list_head", lang)
    for i, item in enumerate(items):
        piece = item if current.endswith(": ") else "; " + item
        if len(current) + len(piece) <= width:
            current += piece
            continue
        lines.append(current)
        if max_lines is not None and len(lines) == max_lines:
            lines[-1] = _with_more(lines[-1], len(items) - i, width)
            return lines
        current = item
    lines.append(current)
    return lines


def events_csv(events_in_view: pd.DataFrame, generated_on: dt.date | None = None, lang: str = "en") -> bytes:
    """The events in view as a UTF-8 CSV with citations: ISO dates, spreadsheet-safe text, and two leading
    comment rows (``#``) naming the export and its sources, in ``lang`` (the column names and codes stay: they
    are for machines; the category's label is in ``lang``). Read back with ``pd.read_csv(..., comment="#")``."""
    ev = number_events(events_in_view)
    sources = sorted(set(ev["source_name"]))
    buf = io.StringIO(newline="")
    w = csv.writer(buf, lineterminator="\r\n")
    # Comment rows are written by hand with no comma or quote in them: the line stays one cell that starts with
    # "#" (never a formula in a spreadsheet) and a reader skipping "#" lines skips all of it.
    buf.write(_comment(i18n.plural("events.csv_head", len(ev), lang,
                                   date=(generated_on or clock.today()).isoformat())))
    buf.write(_comment(i18n.t("events.csv_sources", lang,
                              sources=" | ".join(sources) if sources else i18n.t("events.none", lang))))
    cols = ["number", "id", "date", "date_precision", "title", "category", "category_label", "description",
            "source_name", "source_url", "link_status", "original_outlet", "original_title", "original_date", "origin"]
    w.writerow(cols)
    for _, e in ev.iterrows():
        row = {
            "number": e["label"], "id": e["id"], "date": _iso(e["date"]), "date_precision": e["date_precision"],
            "title": e["title"], "category": e["category"],
            "category_label": category_label(e["category"], lang),
            "description": e.get("description", ""), "source_name": e["source_name"], "source_url": e["source_url"],
            "link_status": "not found" if citation.no_link(e.to_dict()) else "original",
            "original_outlet": e.get("original_outlet", ""), "original_title": e.get("original_title", ""),
            "original_date": e.get("original_date", ""),
            "origin": e.get("origin", ""),
        }
        w.writerow([csv_cell(_text(row[c])) for c in cols])
    return buf.getvalue().encode("utf-8")


# ---------------------------------------------------------------------------------------------------------


def _comment(text: str) -> str:
    clean = " ".join(text.replace(",", ";").replace('"', "'").split())
    return "# " + "".join(ch for ch in clean if ch.isprintable()) + "\r\n"


def _colour(category: str) -> str:
    return CATEGORY_COLOURS.get(category, "#777777")


def _text(value) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def _iso(d) -> str:
    return pd.Timestamp(d).date().isoformat()


def _with_more(line: str, left: int, width: int) -> str:
    tail = f"; … {left} more in the events table"
    if len(line) + len(tail) > width:
        line = line[: max(0, width - len(tail) - 1)].rstrip() + "…"
    return line + tail
