"""A short text alternative for a chart, generated from the numbers drawn.

Read by screen readers on the page (``st.plotly_chart(alt=...)``), written into exported SVG (``<title>`` and
``<desc>``) and HTML, and offered for copying next to the downloads so a newsroom can paste it as the image's
alt text. It says what is drawn, how each series moved (first value, last value and peak, rounded to two
significant figures and said to be "about"), and how many events and reported figures are marked.
"""
from __future__ import annotations

import math

import pandas as pd

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


def about(v: float) -> str:
    """A value rounded to two significant figures for reading aloud: 1,584 -> "1,600"; 42.6 -> "43"."""
    if v is None or not math.isfinite(v):
        return "n/a"
    if v == 0:
        return "0"
    digits = 2 - int(math.floor(math.log10(abs(v)))) - 1
    r = round(v, digits)
    return f"{r:,.0f}" if abs(r) >= 10 or r == int(r) else f"{r:,.{max(0, digits)}f}"


def day(d) -> str:
    """"20 January 2025" (no platform-specific strftime flags)."""
    return f"{d.day} {MONTHS[d.month - 1]} {d.year}"


def when(start: pd.Timestamp, end: pd.Timestamp) -> str:
    """A point's period in words: "July 2026" for a month or longer, "late January 2025" for a day or week."""
    if (end - start).days >= 27:
        return f"{MONTHS[start.month - 1]} {start.year}"
    part = "early" if start.day <= 10 else "mid" if start.day <= 20 else "late"
    return f"{part} {MONTHS[start.month - 1]} {start.year}"


def series_sentence(label: str, unit: str, f: pd.DataFrame) -> str:
    f = f[f["value"].notna()]
    if f.empty:
        return f"{label}: no values in this range"
    first, last = f.iloc[0], f.iloc[-1]
    peak = f.loc[f["value"].idxmax()]
    a, b = float(first["value"]), float(last["value"])
    change = (b - a) / abs(a) if a else (1 if b > a else 0)
    verb = "rose" if change > 0.05 else "fell" if change < -0.05 else "held at about the same level,"
    text = (f"{label} ({unit}) {verb} from about {about(a)} in {when(first['date'], first['end'])} "
            f"to about {about(b)} in {when(last['date'], last['end'])}")
    if peak["date"] not in (first["date"], last["date"]) and float(peak["value"]) > max(a, b) * 1.05:
        text += f", peaking at about {about(float(peak['value']))} in {when(peak['date'], peak['end'])}"
    return text


def alt_text(r, snap=None, max_series: int = 3) -> str:
    """The alt text of a rendered view (``charts.compose.Rendered``)."""
    from .figures import display_label, unit_phrase
    parts = []
    series = r.series
    if series:
        kind = "Line chart" + (" in panels" if len({p.unit for p in series}) > 1 else "")
        parts.append(f"{kind}, {day(r.lo)} to {day(r.hi)}")
        for p in series[:max_series]:
            unit = unit_phrase(p, snap.info(p.series_id))[0] if snap is not None else p.unit
            parts.append(series_sentence(display_label(p), unit, p.frame))
        if len(series) > max_series:
            parts.append(f"and {len(series) - max_series} more series")
    if r.totals:
        vals = sorted(((float(p.frame["value"].iloc[0]), p.key or p.label) for p in r.totals), reverse=True)
        top = ", ".join(f"{k} about {about(v)}" for v, k in vals[:3])
        f = r.totals[0].frame
        parts.append(f"Bar chart of {len(vals)} totals over {day(f['date'].iloc[0])} to "
                     f"{day(f['end'].iloc[0])}; largest: {top}")
    n_ev = 0 if r.events is None else len(r.events)
    if n_ev:
        parts.append(f"{n_ev} event{'s' if n_ev != 1 else ''} marked")
    n_rep = 0 if r.reported is None else len(r.reported)
    if n_rep:
        parts.append(f"{n_rep} reported figure{'s' if n_rep != 1 else ''} drawn as dashed segments")
    return "; ".join(parts) + "."
