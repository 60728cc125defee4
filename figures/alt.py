"""A short text alternative for a chart, generated from the numbers drawn.

Read by screen readers on the page (``st.plotly_chart(alt=...)``), written into exported SVG (``<title>`` and
``<desc>``) and HTML, and offered for copying next to the downloads so a newsroom can paste it as the image's
alt text. It says what is drawn, how each series moved (first value, last value and peak, rounded to two
significant figures and said to be "about"), and how many events and reported figures are marked.
"""
from __future__ import annotations

import math

import pandas as pd

from figures.core import unit_phrase
from figures.events import TRACE_NAME
from figures.labels import display_label, localised_label
from wording import i18n


def about(v: float, lang: str = "en", sep: str = ",") -> str:
    """A value rounded to two significant figures for reading aloud: 1,584 -> "1,600"; 42.6 -> "43"."""
    if v is None or not math.isfinite(v):
        return i18n.t("common.not_available", lang)
    if v == 0:
        return "0"
    digits = 2 - int(math.floor(math.log10(abs(v)))) - 1
    r = round(v, digits)
    return i18n.number(r, lang, sep, 0 if (abs(r) >= 10 or r == int(r)) else max(0, digits))


def day(d, lang: str = "en") -> str:
    """"20 January 2025" / "20 de enero de 2025" (no platform-specific strftime flags)."""
    return i18n.date(d, lang)


def when(start: pd.Timestamp, end: pd.Timestamp, lang: str = "en") -> str:
    """A point's period in words, with its preposition: "in July 2026" for a month or longer, "in late January
    2025" for a day or week."""
    if (end - start).days >= 27:
        return i18n.t("alt.in_month", lang, month=i18n.month(start, lang))
    part = "early" if start.day <= 10 else "mid" if start.day <= 20 else "late"
    return i18n.t("alt." + part, lang, month=i18n.month(start, lang))


def series_sentence(label: str, unit: str, f: pd.DataFrame, lang: str = "en", sep: str = ",") -> str:
    f = f[f["value"].notna()]
    if f.empty:
        return i18n.t("alt.no_values", lang, label=label)
    first, last = f.iloc[0], f.iloc[-1]
    if len(f) == 1:  # one point in view: say one point, not a change "from 320,000 to 320,000"
        return i18n.t("alt.one_point", lang, label=label, unit=unit, value=about(float(first["value"]), lang, sep),
                      when=when(first["date"], first["end"], lang))
    peak = f.loc[f["value"].idxmax()]
    a, b = float(first["value"]), float(last["value"])
    change = (b - a) / abs(a) if a else (1 if b > a else 0)
    verb = i18n.t("alt.rose" if change > 0.05 else "alt.fell" if change < -0.05 else "alt.held", lang)
    text = i18n.t("alt.sentence", lang, label=label, unit=unit, verb=verb, first=about(a, lang, sep),
                  first_when=when(first["date"], first["end"], lang), last=about(b, lang, sep),
                  last_when=when(last["date"], last["end"], lang))
    if peak["date"] not in (first["date"], last["date"]) and float(peak["value"]) > max(a, b) * 1.05:
        text += i18n.t("alt.peak", lang, value=about(float(peak["value"]), lang, sep),
                       when=when(peak["date"], peak["end"], lang))
    return text


def alt_text(r, snap=None, max_series: int = 3) -> str:
    """The alt text of a rendered view (``charts.compose.Rendered``), in the view's language."""
    lang, sep = getattr(r.view, "lang", "en"), getattr(r.view, "sep", ",")
    parts = []
    series = r.series
    if series:
        drawn = [p for p in series if len(p.frame)] or series  # a series with no data in range has no panel
        kind = i18n.t("alt.line_chart_panels" if len({p.unit for p in drawn}) > 1 else "alt.line_chart", lang)
        parts.append(i18n.t("alt.range", lang, kind=kind, start=day(r.lo, lang), end=day(r.hi, lang)))
        for p in series[:max_series]:
            unit = unit_phrase(p, snap.info(p.series_id), lang)[0] if snap is not None else i18n.unit(p.unit, lang)
            parts.append(series_sentence(display_label(p, lang), unit, p.frame, lang, sep))
        if len(series) > max_series:
            parts.append(i18n.t("alt.more_series", lang, n=len(series) - max_series))
    if r.totals:
        vals = sorted(((float(p.frame["value"].iloc[0]), p.key or localised_label(p, lang)) for p in r.totals),
                      reverse=True)
        top = ", ".join(i18n.t("alt.bar_item", lang, key=k, value=about(v, lang, sep)) for v, k in vals[:3])
        f = r.totals[0].frame
        parts.append(i18n.t("alt.bars", lang, n=len(vals), start=day(f["date"].iloc[0], lang),
                            end=day(f["end"].iloc[0], lang), top=top))
    n_ev = 0 if r.events is None else len(r.events)
    # A compact image draws the events its key can list (figures.events.event_key): the alt text says so.
    drawn = sum(len(g) for t in (r.figure.data if r.figure is not None else ()) if getattr(t, "name", "") in
                (TRACE_NAME, i18n.t("events.trace", lang)) and t.customdata is not None for g in t.customdata)
    if n_ev and 0 < drawn < n_ev:
        parts.append(i18n.t("alt.events_some", lang, drawn=drawn, n=n_ev))
    elif n_ev and not drawn and r.figure is not None:  # a key with room for no event: the image marks none
        parts.append(i18n.plural("alt.events_none", n_ev, lang))
    elif n_ev:
        parts.append(i18n.t("alt.events_one", lang) if n_ev == 1 else i18n.t("alt.events_many", lang, n=n_ev))
    n_rep = 0 if r.reported is None else len(r.reported)
    if n_rep:
        parts.append(i18n.t("alt.reported_one", lang) if n_rep == 1 else i18n.t("alt.reported_many", lang, n=n_rep))
    return "; ".join(parts) + "."
