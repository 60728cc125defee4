"""The link format: the one place a permalink's parameters are read and written, for every part of the page
(trends, places, the event study, the language and separators, the open tab). The page, ``python -m charts
export --query`` and the static site's views file all read links here, so a link means the same chart to each.

Reading never fails: unknown or malformed values fall back to the defaults (the trends view says so in notes,
``trends_from_query_noted``; ``view_from_link`` also checks the view against the snapshot).
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import fields
from urllib.parse import parse_qs, urlparse

import pandas as pd

from analysis import places as P
from analysis.view import GRANULARITIES, MAX_SERIES, PRESETS, ROLLING, View, _short, check_view
from loaders import data as cdata
from views.event_study import DATE_CHOICE, VINTAGES
from views.places import MAPS, PlacesView
from wording import i18n

# ---------------------------------------------------------------------------------------------- the text


def query_of(link: str) -> dict[str, str]:
    """A permalink (full URL, path or bare query string) -> its query parameters (the last of each)."""
    text = link.strip()
    if "://" in text or text.startswith("/"):
        text = urlparse(text).query
    return {k: v[-1] for k, v in parse_qs(text.lstrip("?"), keep_blank_values=False).items()}


# ---------------------------------------------------------------------------------------------- trends
# Short, stable parameter names (the view's field names); defaults are left out of the link.
DATE_FIELDS = ("start", "end", "index_at", "as_of")


def trends_to_query(view: View) -> dict[str, str]:
    q: dict[str, str] = {}
    default = View()
    for f in fields(view):
        v = getattr(view, f.name)
        if v == getattr(default, f.name):
            continue
        if isinstance(v, list):
            q[f.name] = ",".join(v) if v else "all"  # an empty category list means every category
        elif isinstance(v, bool):
            q[f.name] = "1" if v else "0"
        elif isinstance(v, dt.date):
            q[f.name] = v.isoformat()
        else:
            q[f.name] = str(v)
    return q


def trends_from_query(q) -> View:
    """Read a view from query parameters; unknown or malformed values fall back to the defaults."""
    return trends_from_query_noted(q)[0]


def trends_from_query_noted(q) -> tuple[View, list[str]]:
    """``trends_from_query`` and a note for every value it could not use (see ``view_from_link``)."""
    v = View()
    notes: list[str] = []
    get = (lambda k: q.get(k)) if hasattr(q, "get") else (lambda k: None)
    # The language first: every note below is written in it.
    raw_lang = get("lang")
    raw_lang = str(raw_lang[-1] if isinstance(raw_lang, list) else raw_lang or "")
    lang = raw_lang if raw_lang in i18n.LANGS else "en"
    if raw_lang and raw_lang not in i18n.LANGS:
        notes.append(i18n.t("link.unknown_lang", "en", value=_short(raw_lang)))
    for f in fields(View):
        raw = get(f.name)
        if raw is None or raw == "":
            continue
        if isinstance(raw, list):
            raw = raw[-1]
        raw = str(raw)[:2000]
        try:
            setattr(v, f.name, _value(f.name, getattr(v, f.name), raw, lang, notes))
        except ValueError:
            key = "link.not_a_date" if f.name in DATE_FIELDS else "link.not_a_number"
            notes.append(i18n.t(key, lang, name=f.name, value=_short(raw)))
    return v, notes + _fall_back(v, lang)


def _value(name: str, cur, raw: str, lang: str, notes: list[str]) -> list[str] | bool | int | dt.date | str:
    """One parameter's text read as the type of the view's field (``cur`` is the default); ValueError when it
    is not one. A list longer than ``MAX_SERIES`` is cut, said in ``notes``."""
    if isinstance(cur, list):
        val = [] if raw == "all" else [s for s in raw.split(",") if s]
        if len(val) > MAX_SERIES:
            notes.append(i18n.t("link.too_many", lang, n=len(val), what=name, most=MAX_SERIES))
            val = val[:MAX_SERIES]
        return val
    if isinstance(cur, bool):
        return raw in ("1", "true", "True", "yes")
    if isinstance(cur, int):
        return int(raw)
    if name in DATE_FIELDS:
        return dt.date.fromisoformat(raw)
    return raw


def _fall_back(v: View, lang: str) -> list[str]:
    """Values of the right type that name no preset, granularity, average or separator: the default, said."""
    notes = []
    default = View()
    v.lang = lang
    if v.preset not in PRESETS:
        notes.append(i18n.t("link.unknown_preset", lang, value=_short(v.preset),
                            default=i18n.t("preset." + default.preset, lang)))
        v.preset = default.preset
    if v.granularity not in GRANULARITIES:
        notes.append(i18n.t("link.unknown_granularity", lang, value=_short(v.granularity)))
        v.granularity = default.granularity
    if v.rolling not in ROLLING:
        notes.append(i18n.t("link.unknown_rolling", lang, n=v.rolling))
        v.rolling = default.rolling
    if v.sep not in i18n.SEPARATORS:
        notes.append(i18n.t("link.unknown_sep", lang, value=_short(v.sep), default=repr(default.sep)))
        v.sep = default.sep
    return notes


def view_from_link(q, snap: cdata.Snapshot, *, events: pd.DataFrame | None = None,
                     today: dt.date | None = None) -> tuple[View, list[str]]:
    """A permalink's query parameters -> a view that renders, and the notes saying what was adjusted."""
    v, notes = trends_from_query_noted(q)
    v, more = check_view(v, snap, events=events, today=today)
    return v, notes + more


# ---------------------------------------------------------------------------------------------- places
# ``view=places&map=<state|facilities|field-offices|deaths-state|deaths-facilities|facility|state-history>
# &release=<source>:<date>`` plus ``per=100k`` (state map per 100,000 residents), ``facility=<id>``,
# ``state=<USPS>``, and for the deaths maps ``from=<YYYY-MM-DD>&to=<YYYY-MM-DD>`` (the period, by date of death)
# and ``death=<row>`` (the record open in the record view: the row of the list's file).


def places_to_query(view: PlacesView) -> dict[str, str]:
    q = {"view": "places", "map": view.map}
    if view.release:
        q["release"] = view.release
    if view.per_capita:
        q["per"] = "100k"
    if view.facility:
        q["facility"] = view.facility
    if view.state:
        q["state"] = view.state
    if view.start:
        q["from"] = view.start.isoformat()
    if view.end:
        q["to"] = view.end.isoformat()
    if view.death:
        q["death"] = view.death
    return q


def places_from_query(q: dict) -> PlacesView:
    """Unknown or malformed values fall back to defaults rather than failing the page."""
    m = q.get("map", "state")
    rel = q.get("release", "")
    try:
        P.parse_release_key(rel)
    except ValueError:
        rel = ""
    fac = q.get("facility", "")
    if not re.fullmatch(r"[A-Za-z0-9:|() .,'&/-]{1,120}", fac or "x"):
        fac = ""
    st = q.get("state", "").upper()
    start, end = _date(q.get("from")), _date(q.get("to"))
    if start and end and start > end:
        start, end = end, start
    death = str(q.get("death", "") or "")
    return PlacesView(map=m if m in MAPS else "state", release=rel, per_capita=q.get("per") == "100k",
                      facility=fac, state=st if st in P.USPS else "", start=start, end=end,
                      death=death if re.fullmatch(r"\d{1,6}", death) else "")


def _date(text) -> dt.date | None:
    try:
        return dt.date.fromisoformat(str(text)) if text else None
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------- the study
# ?study=<series>&study_event=<id>&study_days=30&study_date=YYYY-MM-DD (the date only when no event is chosen)
# &study_vintage=first (figures as first published; none for the latest figures).
DEFAULT_STUDY_DAYS = 30


def study_from_query(q: dict, options: list[str]) -> dict:
    """The study's settings a link holds, by parameter name (``series``, ``event``, ``vintage``, ``days``,
    ``date``); what is missing, unknown or malformed is left out (the tab's defaults then hold)."""
    out: dict = {}
    if q.get("study") in options:
        out["series"] = q["study"]
    if q.get("study_event"):
        out["event"] = str(q["study_event"])[:200]
    if q.get("study_vintage") in VINTAGES:
        out["vintage"] = q["study_vintage"]
    try:
        if q.get("study_days"):
            out["days"] = min(365, max(7, int(q["study_days"])))
        if q.get("study_date"):
            out["date"] = dt.date.fromisoformat(q["study_date"])
    except ValueError:
        pass  # a malformed value falls back to the default, as the view's parameters do
    return out


def study_to_query(series: str | None, event: str | None, date: dt.date | None, vintage: str, days) -> dict[str, str]:
    q = {}
    if series:
        q["study"] = series
    if event and event != DATE_CHOICE:
        q["study_event"] = event
    elif event == DATE_CHOICE and date:
        q["study_event"], q["study_date"] = DATE_CHOICE, date.isoformat()
    if vintage != "latest":
        q["study_vintage"] = vintage
    if days and int(days) != DEFAULT_STUDY_DAYS:
        q["study_days"] = str(int(days))
    return q


# ---------------------------------------------------------------------------------------------- tab, language
# The page's rooms (its tabs), in order. The open one is in the link: ?tab=<name> (none for the first).
# ``view=places`` (the Places room's own view) opens Places as well.
ROOMS = ("trends", "study", "places", "sources", "releases")


def tab_from_query(q: dict) -> str:
    """The name of the room a link opens (the first room when it names none, or one that does not exist)."""
    if q.get("tab") in ROOMS:
        return q["tab"]
    return "places" if q.get("view") == "places" else ROOMS[0]


def tab_to_query(name: str | None) -> dict[str, str]:
    return {"tab": name} if name in ROOMS and name != ROOMS[0] else {}


def lang_from_query(q: dict) -> tuple[str, str]:
    """(language, thousands mark) a link asks for: English unless it names a known language; the language's
    default mark unless it names a known one."""
    lang = str(q["lang"]) if q.get("lang") in i18n.LANGS else "en"
    sep = str(q["sep"]) if q.get("sep") in i18n.SEPARATORS else i18n.DEFAULT_SEPARATORS[lang]
    return lang, sep


def lang_to_query(lang: str, sep: str) -> dict[str, str]:
    """The language and separators as a link carries them (nothing for the defaults, English and ",")."""
    q = {}
    if lang != "en":
        q["lang"] = lang
    if sep != ",":
        q["sep"] = sep
    return q
