"""A series' label in the page's language, and its legend label.

Its own module because the figure builders (``figures.core``) and the shaded blackouts
(``figures.blackouts``), which the builders import, both name traces by these labels.
"""
from __future__ import annotations

from wording import i18n


def localised_label(p, lang: str = "en") -> str:
    """``p.label`` ("title: member") with the title in ``lang``; members are data and stay as published."""
    if lang == "en":
        return p.label
    title = i18n.series_text(p.series_id, "title", lang, "")
    if not title:
        return p.label
    return title + (f": {p.key}" if p.key else "")


ES_PERIOD_WORDS = (("semana", "semanales"), ("mes", "mensuales"))


def display_label(p, lang: str = "en") -> str:
    """The legend label. A weekly series drawn per day keeps its name without "per week" contradicting the
    axis: "ICE arrests per week, 2011-2025" becomes "ICE arrests, weekly data, 2011-2025"."""
    label = localised_label(p, lang)
    if p.unit.endswith(" per day") or p.unit.startswith("index"):
        if lang == "es":
            for word, adj in ES_PERIOD_WORDS:
                label = label.replace(f" por {word},", f", datos {adj},").replace(f" por {word} ", f", datos {adj} ")
                if label.endswith(f" por {word}"):
                    label = label[: -len(f" por {word}")] + f", datos {adj}"
            return label
        for word in ("week", "month", "fortnight"):
            label = label.replace(f" per {word},", f", {word}ly data,").replace(f" per {word} ", f", {word}ly data ")
            if label.endswith(f" per {word}"):
                label = label[: -len(f" per {word}")] + f", {word}ly data"
    return label
