"""The blackout layer: shade the spans when a series' publisher released nothing, say inside the figure
whose data stopped, when, and why when ``data/publication_status.csv`` declares it (its ``reason`` column:
"No ICE release (federal shutdown): ..."), and never draw a line across such a span. In a figure laid out by
``figures.core.finish`` the notes sit in rows of their own above the event markers (``figures.layout.
stack_notes``): drawn inside the plot they covered the markers and each other.

``add_blackouts(spec, snap, prepared, lo, hi)`` is the one call a figure builder makes: it takes a figure spec
(``figures.spec.FigureSpec``, from ``figures.core.trend_spec``) or a plain figure dict (data and layout) and
returns a new one with the shapes and notes added, each line broken where two consecutive points sit on
either side of a blackout further apart than the series' usual step. Points that
exist are still joined: a month ICE filled in after a pause is data, not a gap.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import replace
from typing import TypeVar

import numpy as np

from analysis.status import Blackout, series_blackouts
from figures.labels import display_label
from figures.spec import FigureSpec
from loaders.ledger import SHORT_NAMES
from loaders.text import html_text
from wording import i18n

# A figure spec or a plain figure dict: add_blackouts returns the kind it was given.
SpecOrDict = TypeVar("SpecOrDict", FigureSpec, dict)

SHADE = "rgba(107,107,107,0.09)"
NOTE_COLOUR = "#4a4a4a"
# Sources that are one compiled list rather than a publisher's series of releases (deaths in custody): their
# declared end is where the list stops, not a release that failed to come.
COMPILED_LISTS = {"deaths_in_custody"}



def _who(source: str, lang: str = "en") -> str:
    who = SHORT_NAMES.get(source, source)
    if lang != "en" and who.startswith("the "):  # "the Deportation Data Project": the name as published
        who = who[4:]
    return who[0].upper() + who[1:]


def note_text(spans: list[Blackout], lang: str = "en") -> str:
    """One note for spans with the same dates (ICE and its mirror TRAC often pause together)."""
    b = spans[0]
    who = i18n.t("blackout.and", lang).join(dict.fromkeys(_who(s.source, lang) for s in spans))

    def day(d):
        # Spanish long dates ("24 de septiembre de 2025") are half as long again: short ones keep the note
        # inside the shaded span.
        return i18n.date(d, lang, "long" if lang == "en" else "short")

    if not b.declared:  # computed from the files held: say only that
        to = i18n.t("blackout.to", lang, date=day(b.end)) if b.end else i18n.t("blackout.onward", lang)
        return i18n.t("blackout.none_in_snapshot", lang, who=who, start=day(b.start), to=to)
    if b.end is None and b.source in COMPILED_LISTS:
        # a list someone compiled, not a publisher's releases: it simply holds nothing after its last entry
        if lang != "en" and i18n.has(f"news.who.{b.source}", lang):  # the list's name in the reader's language
            who = i18n.t(f"news.who.{b.source}", lang)
            who = who[0].upper() + who[1:]
        return i18n.t("blackout.list_ends", lang, who=who, date=day(b.start - dt.timedelta(days=1)))
    if b.end is None:
        stopped = "stopped" in b.statement or "last published" in b.statement
        return i18n.t("blackout.stopped" if stopped else "blackout.none_after", lang, who=who, date=day(b.start))
    if b.reason:  # why, when publication_status.csv declares it: "No ICE release (federal shutdown): ..."
        return i18n.t("blackout.none_between_why", lang, who=who, why=i18n.t("blackout.reason_" + b.reason, lang),
                      start=day(b.start), end=day(b.end))
    return i18n.t("blackout.none_between", lang, who=who, start=day(b.start), end=day(b.end))


def statement(b: Blackout, lang: str = "en") -> str:
    """What is known of a span with no release, for its hover box: the declared statement
    (``data/publication_status.csv``, in ``lang`` from ``locales/publication_status.<lang>.csv``), or for a span
    this snapshot shows (written in English by ``analysis.status``) the note's own words in ``lang``."""
    if lang == "en":
        return b.statement
    if b.declared:
        for kind in ("blackout", "stopped"):  # a span with no end is either
            text = i18n.declared_text(i18n.declared_key(b.source, kind, b.start.isoformat(), ""), lang, "")
            if text:
                return text
    return note_text([b], lang) + "."


SNAPSHOT_EVIDENCE = "this snapshot"  # analysis.status: a span found from the release dates held


def evidence(b: Blackout, lang: str = "en") -> str:
    """Where a span's evidence is: a document named as written, or this snapshot's release dates (in ``lang``)."""
    if b.evidence_source == SNAPSHOT_EVIDENCE:
        return i18n.t("blackout.this_snapshot", lang)
    return b.evidence_source


def layer(snap, series_ids, lo: dt.date, hi: dt.date, today: dt.date | None = None, lang: str = "en") -> dict:
    """Shapes (shaded spans) and annotations (a note inside each span) for the series in view."""
    groups: dict[tuple, list[Blackout]] = {}
    for bs in series_blackouts(snap, series_ids, lo, hi, today).values():
        for b in bs:
            g = groups.setdefault((b.start, b.end, b.declared), [])
            if b.source not in {x.source for x in g}:
                g.append(b)
    declared = [g[0] for g in groups.values() if g[0].declared]
    shapes: list[dict] = []
    notes: list[dict] = []
    ordered = sorted(groups.values(), key=lambda g: (g[0].start, g[0].source))
    for g in ordered:
        b = g[0]
        x0 = max(b.start, lo)
        x1 = min(b.end or hi, hi)
        if x1 <= x0:
            continue
        shapes.append(dict(type="rect", xref="x", yref="paper", x0=x0.isoformat(), x1=x1.isoformat(), y0=0, y1=1,
                           fillcolor=SHADE, line=dict(width=0), layer="below"))
        # A computed span inside a declared one (TRAC pausing with ICE) is shaded; the declared note explains it.
        if not b.declared and any(d.start < (b.end or hi) and b.start < (d.end or hi) for d in declared):
            continue
        # A note near the right edge hangs left from the span's end so it stays inside the plot.
        right = (x0 - lo).days > 0.7 * max((hi - lo).days, 1)
        notes.append(dict(text=html_text(note_text(g, lang)), x=(x1 if right else x0).isoformat(), xref="x",
                          xanchor="right" if right else "left", yref="paper",
                          y=0.99 - 0.055 * (len(notes) % 4), yanchor="top", showarrow=False, align="left",
                          font=dict(size=10, color=NOTE_COLOUR), bgcolor="rgba(255,255,255,0.75)",
                          hovertext=html_text(" ".join(statement(x, lang) for x in g)
                                         + i18n.t("blackout.evidence", lang, source=evidence(b, lang))),
                          name=f"blackout:{'+'.join(x.source for x in g)}:{b.start.isoformat()}",
                          _x0=x0.isoformat(), _x1=x1.isoformat()))
    return {"shapes": shapes, "annotations": notes, "spans": [b for g in ordered for b in g]}


def break_at(x, y, spans: list[Blackout], hi: dt.date, text=None):
    """Insert a blank between consecutive points whose step crosses a blackout and is longer than usual.
    With ``text`` (per-point hover text) the blanks go there too, and the three lists are returned."""
    xs = np.asarray(x)
    ys = list(y)
    if text is not None:
        bx, by = break_at(x, list(zip(ys, text)), spans, hi)
        return bx, [v if v is None else v[0] for v in by], [v if v is None else v[1] for v in by]
    if len(xs) < 2 or not spans:
        return list(xs), ys
    days = np.array([np.datetime64(str(v)[:10], "D") if v is not None and str(v)[:10] not in ("NaT", "None", "nan")
                     else np.datetime64("NaT") for v in xs])
    valid = ~np.isnat(days)
    steps = np.diff(days[valid]).astype("int64")
    usual = float(np.median(steps)) if len(steps) else 0.0
    out_x: list = []  # the points' own x values (dates or strings) with None at each break
    out_y: list = []
    prev = None
    for v, val, d in zip(xs, ys, days):
        broken = bool(out_x) and out_x[-1] is None  # the line is already broken here (a gap in the data)
        if np.isnat(d):
            if not broken:
                out_x.append(None)
                out_y.append(None)
            continue
        if prev is not None and not broken and (d - prev).astype("int64") > 1.5 * usual:
            a, b = prev.astype(dt.date), d.astype(dt.date)
            if any(s.start < b and a < (s.end or hi) for s in spans):
                out_x.append(None)
                out_y.append(None)
        out_x.append(v)
        out_y.append(val)
        prev = d
    return out_x, out_y


def add_blackouts(spec: SpecOrDict, snap, prepared, lo: dt.date, hi: dt.date, today: dt.date | None = None,
                  lang: str = "en") -> SpecOrDict:
    """``spec`` with the blackout layer added, as a new spec of the same kind (``spec`` is left as it was).

    A ``FigureSpec`` (laid out by ``figures.core.finish``) gets the notes as ``strip_notes``, at the figure's
    own text size; a plain figure dict (``{"data": ..., "layout": ...}``, laid out by its builder) gets them
    as layout annotations inside the plot."""
    ids = [p.series_id for p in prepared]
    lay = layer(snap, ids, lo, hi, today, lang=lang)
    if not lay["shapes"]:
        return spec
    per_series = series_blackouts(snap, ids, lo, hi, today)
    names = {html_text(p.label): p.series_id for p in prepared}
    # The traces are named by their legend label (figures.labels.display_label), in the figure's language.
    names.update({html_text(display_label(p, lang)): p.series_id for p in prepared if hasattr(p, "unit")})
    data = []
    for tr in (spec.data if isinstance(spec, FigureSpec) else spec["data"]):
        name = tr.get("name")
        sid = names.get(name) if isinstance(name, str) else None  # a trace with no name is not a series
        if sid and sid in per_series and "lines" in tr.get("mode", "lines"):
            if tr.get("text") is not None:
                x, y, text = break_at(tr["x"], tr["y"], per_series[sid], hi, text=tr["text"])
                tr = dict(tr, x=x, y=y, text=text, connectgaps=False)
            else:
                x, y = break_at(tr["x"], tr["y"], per_series[sid], hi)
                tr = dict(tr, x=x, y=y, connectgaps=False)
        data.append(tr)
    notes = lay["annotations"]  # made here: changed freely
    if isinstance(spec, FigureSpec):
        # The notes go in rows of their own above the event markers (figures.layout.stack_notes), never over a
        # marker, a line or each other. Drawn inside the plot, a note covered the markers of the span's events
        # and the next span's note. At the figure's own text size (an article-size export must stay readable
        # at 680 px).
        for a in notes:
            a["font"]["size"] = max(a["font"]["size"], spec.size.font)
            a["_span"] = (a.pop("_x0"), a.pop("_x1"))
        layout = dict(spec.layout, shapes=list(spec.layout.get("shapes") or []) + lay["shapes"])
        return replace(spec, data=tuple(data), layout=layout, strip_notes=spec.strip_notes + tuple(notes))
    for a in notes:
        a.pop("_x0"), a.pop("_x1")
    layout = dict(spec["layout"], shapes=list(spec["layout"].get("shapes") or []) + lay["shapes"])
    layout["annotations"] = list(layout.get("annotations") or []) + notes
    return dict(spec, data=data, layout=layout)
