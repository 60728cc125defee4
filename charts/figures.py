"""Pure figure builders: prepared series in, a Plotly figure out, with everything that matters inside it.

Whatever lives only outside a figure is lost when someone downloads the PNG, so the title, the date range,
the source line (with release and data dates) and the generated-on line are drawn into the figure itself.
"""
from __future__ import annotations

import datetime as dt
import textwrap
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from loaders.copies import describe_link

# Okabe-Ito: distinguishable with the common colour-vision deficiencies; no alarm red.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#56B4E9", "#CC79A7", "#D55E00", "#F0E442", "#000000"]
NEUTRAL = "#6b6b6b"
# A light look written out, not Plotly's "plotly_white" template: resolving that template costs ~10 ms on
# every figure, a tenth of a page rerun.
_GRID = "#EBF0F8"
_AXIS = dict(gridcolor=_GRID, linecolor=_GRID, zerolinecolor=_GRID, ticks="", automargin=True)
LIGHT_LAYOUT = dict(paper_bgcolor="white", plot_bgcolor="white", font=dict(color="#2a3f5f"), colorway=PALETTE)


def _x(values) -> np.ndarray:
    """Dates as ISO text: Plotly converts datetime64 arrays value by value (3 ms a trace); text goes straight
    through and draws the same date axis."""
    arr = np.asarray(values)
    if np.issubdtype(arr.dtype, np.datetime64):
        return np.datetime_as_string(arr, unit="D")
    return arr


@dataclass
class Line:
    label: str
    x: np.ndarray  # datetime64
    y: np.ndarray  # float
    unit: str = ""
    flagged: np.ndarray | None = None  # bool mask of points to mark (partial, quality flags)


def build_trend_figure(lines: list[Line], **kw) -> go.Figure:
    """A line chart with its title, subtitle, sources, notes and generated-on line inside it."""
    return go.Figure(trend_spec(lines, **kw))


def trend_spec(lines: list[Line], *, title: str, subtitle: str, sources: list[str], x_title: str = "",
               y_title: str = "", log_y: bool = False, notes: list[str] | None = None,
               generated_on: dt.date | None = None, height: int = 560) -> dict:
    """The figure as a plain dict (data and layout), for callers that add layers before building it once."""
    traces = []
    for i, ln in enumerate(lines):
        colour = PALETTE[i % len(PALETTE)]
        x, y = break_gaps(ln.x, ln.y)
        # Labels carry data (facility and office names from the files): escaped for the legend and the hover
        # box, and "%{" split so a name cannot inject a hovertemplate field such as %{customdata}.
        label, unit = _esc(ln.label), _template_literal(_esc(ln.unit))
        traces.append(dict(
            type="scatter", x=_x(x), y=y, name=label, mode="lines+markers" if len(ln.x) < 80 else "lines",
            line=dict(color=colour, width=2), marker=dict(size=5),
            hovertemplate="%{x|%Y-%m-%d}: %{y:,.0f}" + (f" {unit}" if unit else "") + "<extra>"
                          + _template_literal(_esc(ln.label[:60])) + "</extra>",
        ))
        if ln.flagged is not None and ln.flagged.any():
            traces.append(dict(
                type="scatter", x=_x(ln.x[ln.flagged]), y=ln.y[ln.flagged], mode="markers", showlegend=False,
                name=_esc(ln.label) + " (flagged)", marker=dict(symbol="circle-open", size=11, color=colour, line=dict(width=2)),
                hovertemplate="%{x|%Y-%m-%d}: %{y:,.0f} (partial or flagged)<extra></extra>",
            ))
    footer = list(sources)
    if notes:
        footer += notes
    footer.append(f"Generated on {(generated_on or dt.date.today()).isoformat()} with the open-source "
                  "immigration-enforcement dashboard.")
    footer = [w for t in footer for w in textwrap.wrap(t, 170, break_long_words=False)]
    n_footer = len(footer)
    layout = dict(
        LIGHT_LAYOUT,
        title=dict(text=f"<b>{_esc(title)}</b><br><span style='font-size:13px;color:{NEUTRAL}'>{_esc(subtitle)}</span>",
                   x=0.01, xanchor="left", y=0.97, yanchor="top"),
        height=height + 16 * n_footer,
        margin=dict(l=60, r=20, t=90, b=(92 if x_title else 70) + 16 * n_footer),
        legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0, xanchor="left"),
        yaxis=dict(_AXIS, title=y_title, type="log" if log_y else "linear", rangemode="tozero" if not log_y else None),
        xaxis=dict(_AXIS, title=x_title or None),
        hovermode="x unified",
        annotations=[dict(
            text="<br>".join(_esc(t) for t in footer), xref="paper", yref="paper", x=0, y=0, xanchor="left",
            yanchor="top", yshift=-62 if x_title else -40, showarrow=False, align="left",
            font=dict(size=11, color=NEUTRAL))],
    )
    return {"data": traces, "layout": layout}


def break_gaps(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Insert a blank where the spacing jumps (a source that stopped publishing), so the line breaks there
    instead of drawing a straight line across months with no data."""
    if len(x) < 3 or not np.issubdtype(np.asarray(x).dtype, np.datetime64):
        return x, y
    step = np.diff(np.asarray(x, dtype="datetime64[D]")).astype("int64")
    typical = np.median(step)
    gaps = np.flatnonzero(step > max(2.5 * typical, typical + 20))
    if not len(gaps):
        return x, y
    xs = np.insert(np.asarray(x, dtype="datetime64[ns]"), gaps + 1, np.datetime64("NaT"))
    ys = np.insert(np.asarray(y, dtype="float64"), gaps + 1, np.nan)
    return xs, ys


def _template_literal(text: str) -> str:
    """Plotly reads %{...} in a hovertemplate as a field; a lone "{" after "%" cannot start one if split."""
    return text.replace("%{", "%\u200b{")


def _esc(text: str) -> str:
    """Plotly renders a small HTML subset in text; data-derived strings must show as plain text."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# ---------------------------------------------------------------- a whole view

def source_lines(snap, prepared) -> list[str]:
    """One line per source in view: who published it, which release was used, and how far the data run."""
    lines = []
    for sid in dict.fromkeys(p.source for p in prepared):
        entry = snap.source_entry(sid)
        parts = [p for p in prepared if p.source == sid]
        rel = [p.frame["release"].max() for p in parts if len(p.frame) and p.frame["release"].notna().any()]
        to = [p.frame["end"].max() for p in parts if len(p.frame)]
        text = f"Source: {entry.get('publisher', sid)}, {entry.get('title', '')}"
        if rel:
            text += f"; latest release used {max(rel).date().isoformat()}"
        if to:
            text += f"; data to {max(to).date().isoformat()}"
        lines.append(text + ".")
        files = {f for p in parts if "file" in p.frame for f in p.frame["file"].unique() if f}
        line = file_origins_line(entry, files)
        if line:
            lines.append(line)
        if entry.get("attribution"):
            lines.append(entry["attribution"] + ".")
    return lines


READ_WORDS = {"archive": "read from an archive copy", "mirror": "read from a copy in another repository",
              "reconstruction": "rebuilt from a copy's text", "digitised": "digitised from a chart",
              "transcription": "transcribed", "producer": "read from the producer's repository"}


def file_origins_line(entry: dict, files: set[str], most: int = 3) -> str:
    """The official URLs of the files behind a line, and how any copy was read ("read from an archive copy")."""
    recs = [f for f in entry.get("files", []) if f.get("name") in files and f.get("origin")]
    if not recs:
        return ""
    urls = list(dict.fromkeys(f["origin"].get("official_url", "") for f in sorted(recs, key=lambda f: f["name"])))
    shown = "; ".join(u for u in urls[:most] if u) + (f"; and {len(urls) - most} more" if len(urls) > most else "")
    kinds = {}
    for f in recs:
        word = READ_WORDS.get(f["origin"].get("read_as", ""))
        if word:
            kinds[word] = kinds.get(word, 0) + 1
    how = ", ".join(f"{n} of {len(recs)} {w}" if len(recs) > 1 else w for w, n in sorted(kinds.items()))
    return f"Official file{'s' if len(urls) > 1 else ''}: {shown}" + (f" ({how})" if how else "") + "."


def subtitle_for(view, lo, hi, prepared) -> str:
    bits = [f"{lo.isoformat()} to {hi.isoformat()}"]
    if view.as_of:
        bits.append(f"as published on {view.as_of.isoformat()}")
    if view.per_day:
        bits.append("period totals shown per day")
    notes = sorted({n for p in prepared for n in p.notes if not n.startswith(p.label)})
    bits += notes
    if view.log:
        bits.append("log scale")
    return " · ".join(bits)


def fiscal_ticks(lo, hi) -> tuple[list, list[str]]:
    import datetime as _dt
    start = _dt.date(lo.year - 1, 10, 1)
    vals, text = [], []
    d = start
    while d <= hi:
        if d >= lo - _dt.timedelta(days=366):
            vals.append(d)
            text.append(f"FY{d.year + 1}")
        d = _dt.date(d.year + 1, 10, 1)
    return vals, text


def build_view_figure(snap, view, prepared, lo, hi, *, events_in_view=None, reported=None,
                      generated_on: dt.date | None = None) -> go.Figure:
    """The trend chart for a view, as the page shows it and as every export writes it."""
    from loaders.tidy import FLAGS, INFO_FLAGS
    lines = []
    flagged_notes, info_notes = set(), {}
    for p in prepared:
        f = p.frame
        codes = f["flag"].map(lambda x: {c for c in x.split(";") if c})
        flagged = codes.map(lambda c: bool(c - INFO_FLAGS)).to_numpy(dtype=bool)
        for cs in codes:
            flagged_notes.update(cs - INFO_FLAGS)
            for c in cs & INFO_FLAGS:
                info_notes.setdefault(c, set()).add(p.label)
        lines.append(Line(p.label, f["date"].to_numpy(), f["value"].to_numpy(dtype="float64"), unit=p.unit,
                          flagged=flagged))
    units = sorted({p.unit for p in prepared})
    notes = []
    if flagged_notes:
        notes.append("Open circles mark " + "; ".join(f"{c}: {FLAGS.get(c, c)}" for c in sorted(flagged_notes)) + ".")
    for c, labels in sorted(info_notes.items()):
        notes.append(f"Note ({c}): {FLAGS.get(c, c)}, in " + "; ".join(sorted(labels)) + ".")
    if reported is not None and len(reported):
        notes.append("Dashed segments: figures reported by officials or the press over the period they cover "
                     "(not official series).")
    if events_in_view is not None and len(events_in_view):
        try:
            from .events import events_legend_text
            notes += events_legend_text(events_in_view, max_lines=20, width=170)
        except ImportError:  # pragma: no cover - events module arrives separately
            pass
    title = prepared[0].label if len(prepared) == 1 else " vs ".join(p.label.split(" (")[0] for p in prepared[:3])
    spec = trend_spec(lines, title=title, subtitle=subtitle_for(view, lo, hi, prepared),
                      sources=source_lines(snap, prepared), y_title=" / ".join(units), log_y=view.log,
                      notes=notes, generated_on=generated_on)
    layout = spec["layout"]
    layout["xaxis"]["range"] = [lo.isoformat(), hi.isoformat()]
    if view.fiscal_axis:
        vals, text = fiscal_ticks(lo, hi)
        layout["xaxis"].update(tickvals=[v.isoformat() for v in vals], ticktext=text)
    if reported is not None and len(reported):
        spec["data"].append(reported_trace(reported))
    if events_in_view is not None and len(events_in_view):
        from .events import event_layers
        layer = event_layers(events_in_view)
        spec["data"] += layer["traces"]
        layout["shapes"] = layer["shapes"]
        layout.update(layer["layout"])
        # Markers ride along the top of the plot: leave them room above the data, and keep hover per point
        # so an event's box does not merge with the series values.
        ymax = max((float(np.nanmax(ln.y)) for ln in lines if len(ln.y) and np.isfinite(ln.y).any()), default=None)
        if ymax and not view.log:
            layout["yaxis"]["range"] = [0, ymax * 1.18]  # the main axis only, not the markers' overlay
        layout["hovermode"] = "closest"
    from .blackouts import add_blackouts  # spans with no release from the series' publishers, shaded and noted
    add_blackouts(spec, snap, prepared, lo, hi)
    # Built once, without Plotly re-checking every property (that check cost a third of a page rerun); the
    # tests build the same figures with checking on (tests/test_export.py), so a bad property cannot hide.
    return go.Figure(spec, _validate=VALIDATE)


VALIDATE = False


def reported_trace(reported) -> dict:
    """Reported figures as horizontal segments spanning the period each covers, with the source on hover."""
    xs, ys, hover = [], [], []
    for r in reported.itertuples(index=False):
        start, end = f"{r.period_start:%Y-%m-%d}", f"{r.period_end:%Y-%m-%d}"
        xs += [start, end, None]
        ys += [r.value, r.value, None]
        h = (_esc(f"{r.value:,.0f} {r.unit}, {start} to {end}") + "<br>"
             + _esc(f"reported by {r.reported_by} ({r.source_quality})"))
        copy_note = describe_link(r.url, getattr(r, "link_is_copy", ""), getattr(r, "original_outlet", ""),
                                  getattr(r, "original_date", ""))
        if copy_note:
            h += "<br>" + _esc("link: " + copy_note)
        hover += [h, h, None]
    return dict(type="scatter", x=xs, y=ys, mode="lines+markers", name="Reported figures (not official series)",
                line=dict(color=NEUTRAL, width=3, dash="dash"), marker=dict(symbol="diamond", size=7),
                text=hover, hovertemplate="%{text}<extra>reported</extra>", connectgaps=False)


def build_study_figure(windows, *, title: str, subtitle: str, unit: str, sources: list[str],
                       generated_on: dt.date | None = None) -> go.Figure:
    lines = []
    for label, g in windows.groupby("window", sort=False):
        lines.append(Line(label, g["days_from_date"].to_numpy(), g["value"].to_numpy(dtype="float64"), unit=unit))
    fig = build_trend_figure(lines, title=title, subtitle=subtitle, sources=sources, y_title=unit,
                             notes=["Descriptive comparison, not evidence of cause: other things changed too."],
                             generated_on=generated_on, height=420, x_title="days from the date (0 = the date)")
    fig.update_traces(hovertemplate="day %{x}: %{y:,.1f}")
    fig.add_vline(x=0, line=dict(color=NEUTRAL, width=1, dash="dot"))
    return fig
