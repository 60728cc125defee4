"""A curated row's source as it is cited, in the reader's language.

A row whose original's address was not found (``loaders.copies``: ``link_status`` ``not found``) has no link;
every place that shows its source says so and cites the original by outlet, title and date instead. The copy the
row was read at (``read_at``) is never part of a citation. Outlet and title are data and stay as written.
"""
from __future__ import annotations

import math

from wording import i18n

NOT_FOUND = "not found"  # loaders.copies.NOT_FOUND (wording does not import the data side)


def _text(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value).strip()


def no_link(row, lang: str = "en") -> bool:
    """Whether the row (a dict or a named tuple) cites its original without a link."""
    get = row.get if isinstance(row, dict) else lambda k, d=None: getattr(row, k, d)
    return _text(get("link_status", "")).lower() == NOT_FOUND


def citation(outlet, title, date, lang: str = "en") -> str:
    """'Washington Post, "ICE struggles ...", 2025-02-15', with words for what is not known."""
    outlet, title, date = _text(outlet), _text(title), _text(date)
    who = outlet if outlet and outlet != "unknown" else i18n.t("cite.outlet_unknown", lang)
    what = i18n.t("cite.title", lang, title=title) if title else i18n.t("cite.title_unknown", lang)
    when = date or i18n.t("cite.date_unknown", lang)
    return f"{who}, {what}, {when}"


def no_link_note(row, lang: str = "en") -> str:
    """'' for a row with the original's own link; else the sentence that says there is none and how to cite it."""
    if not no_link(row):
        return ""
    get = row.get if isinstance(row, dict) else lambda k, d=None: getattr(row, k, d)
    return i18n.t("cite.no_link", lang, citation=citation(get("original_outlet", ""), get("original_title", ""),
                                                          get("original_date", ""), lang))
