"""The Places view as data: what the page shows and the permalink holds, rendered by one function that the
page and ``python -m charts export --view places`` share (so both draw the same figure from the same rows).

Its link parameters (``view=places&map=...``) are read and written by ``views.link``; the standalone map
page and the command's export are outputs (``charts.places_export``).
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from analysis import deaths as DV
from analysis import places as P
from analysis.view import INAUGURATION
from figures import maps
from loaders import clock
from wording import i18n

MAPS = {m: i18n.t(f"places.map_{m.replace('-', '_')}") for m in
        ("state", "facilities", "field-offices", "deaths-state", "deaths-facilities", "facility", "state-history")}
DEATH_MAPS = ("deaths-state", "deaths-facilities")


def map_label(m: str, lang: str = "en") -> str:
    """A map's name in the reader's language (the keys of ``MAPS`` stay the permalink's values)."""
    return i18n.t(f"places.map_{m.replace('-', '_')}", lang)


@dataclass
class PlacesView:
    map: str = "state"
    release: str = ""  # "<source>:<YYYY-MM-DD>"; "" = the latest ICE workbook
    per_capita: bool = False
    facility: str = ""
    state: str = ""
    start: dt.date | None = None  # the deaths maps' period, by date of death (None: the page's date range)
    end: dt.date | None = None
    death: str = ""  # the record open in the record view: its row in the list's file

    def period(self, today: dt.date | None = None) -> tuple[dt.date, dt.date]:
        """The deaths maps' period: the one chosen, else from the page's default start (20 January 2025) to today
        (``today``, else the page's day: ``loaders.clock``)."""
        return self.start or INAUGURATION, self.end or today or clock.today()


def link_notes(q: dict, pl: P.Places, lang: str = "en") -> list[str]:
    """What a Places permalink asked for that is not there (an unknown facility or state): said, as a trend link's
    unknown series is, instead of being dropped without a word (issue 32)."""
    if q.get("view") != "places":
        return []
    notes = []
    fac = str(q.get("facility", "") or "")
    if fac and fac not in set(pl.facilities["facility_id"]):
        notes.append(i18n.t("places.unknown_facility", lang, asked=repr(fac[:60])))
    state = str(q.get("state", "") or "")
    if state and state.upper() not in P.USPS:
        notes.append(i18n.t("places.unknown_state", lang, asked=repr(state[:20])))
    return notes


def death_link_note(q: dict, recs: pd.DataFrame, lang: str = "en") -> str:
    """What a link's ``death=`` asked for when the list has no such row ("" when it has, or asks nothing)."""
    asked = str(q.get("death", "") or "") if q.get("view") == "places" else ""
    if not asked or DV.record(recs, asked) is not None:
        return ""
    return i18n.t("deaths.unknown_record", lang, asked=repr(asked[:20]))


def default_release(pl: P.Places) -> str:
    ice = pl.releases[pl.releases["source"] == "ice"]
    r = ice.iloc[0] if len(ice) else (pl.releases.iloc[0] if len(pl.releases) else None)
    return "" if r is None else P.release_key(r["source"], r["release"])


@dataclass
class Rendered:
    figure: go.Figure | None
    table: pd.DataFrame
    title: str
    sources: list[str]
    problem: str = ""


def _clean_title(fig: go.Figure) -> str:
    """The map's title as typed (kept by ``figures.maps._title``; file names and alt text want it unescaped)."""
    return fig._title_plain


def render(snap, pl: P.Places, view: PlacesView, lang: str = "en", separators: str = ",",
           today: dt.date | None = None) -> Rendered:
    """The Places view drawn: its figure, its table, its title and its source lines, every number in those lines
    written with the chosen marks ("per 100.000 residents" when "." is chosen, as in the figure). ``today``: the
    day the figure says it was made on, and where a deaths map's open period ends (else the page's day,
    ``loaders.clock``)."""
    r = _render(snap, pl, view, lang, separators, today or clock.today())
    r.sources = [i18n.localise_numbers(line, separators) for line in r.sources]
    return r


def _render(snap, pl: P.Places, view: PlacesView, lang: str, separators: str, today: dt.date) -> Rendered:
    rel = view.release or default_release(pl)
    source, release = P.parse_release_key(rel) if rel else ("ice", "")
    pts = snap.tables.get("census.county_points")
    if view.map == "state":
        fig = maps.state_map(pl, source, release, per_capita=view.per_capita, county_points=pts, lang=lang,
                            separators=separators, today=today)
        t = P.state_totals(pl, source, release)[["state", "state_name", "detained_adp", "facilities", "residents",
                                                   "population_year", "per_100k", "territory"]]
        return Rendered(fig, t, _clean_title(fig), maps._source_lines(pl, source, release, per_capita=True,
                                                                            lang=lang))
    if view.map == "facilities":
        fig = maps.facility_map(pl, source, release, lang=lang, separators=separators, today=today)
        t = P.facility_cross_section(pl, source, release)[["facility_id", "code", "name", "city", "state", "county",
                                                           "field_office", "type", "value", "lat", "lon", "notes"]]
        t = t.rename(columns={"value": "detained_adp"})
        return Rendered(fig, t, _clean_title(fig), maps._source_lines(pl, source, release, lang=lang)
                        + [P.caveat("points", lang)])
    if view.map == "field-offices":
        fig = maps.field_office_figure(pl, source, release, snap, lang=lang, separators=separators, today=today)
        t = P.field_office_totals(pl, source, release, snap)
        return Rendered(fig, t, _clean_title(fig), maps._source_lines(pl, source, release, lang=lang)
                        + [i18n.t("places.sources_field_offices", lang)])
    if view.map in DEATH_MAPS:
        return _render_deaths(snap, pl, view, lang, separators, today)
    if view.map == "facility":
        if view.facility not in set(pl.facilities["facility_id"]):
            return Rendered(None, pd.DataFrame(), "", [], problem=f"unknown facility {view.facility!r}; pick one "
                            "from the facility table (its code, or the name-only id shown there)")
        fig = maps.facility_history_figure(pl, view.facility, lang=lang, separators=separators, today=today)
        t = P.facility_history(pl, view.facility)
        return Rendered(fig, t, _clean_title(fig), [i18n.t("places.sources_all", lang), P.caveat("adp", lang)])
    if view.map == "state-history":
        if not view.state:
            return Rendered(None, pd.DataFrame(), "", [], problem="give a state (two-letter code), e.g. TX")
        fig = maps.state_history_figure(pl, view.state, snap, lang=lang, separators=separators, today=today)
        t = P.state_history(pl, view.state)
        return Rendered(fig, t, _clean_title(fig), [i18n.t("places.sources_all", lang), P.caveat("adp", lang)])
    return Rendered(None, pd.DataFrame(), "", [], problem=f"unknown map {view.map!r}")


def death_notes(recs: pd.DataFrame, start: dt.date, end: dt.date, lang: str = "en") -> list[str]:
    """What the list cannot say about the period, and the enforcement-action deaths left out of its counts."""
    notes = DV.coverage_notes(recs, start, end, lang)
    n = len(DV.in_period(recs, start, end, custody=False))
    if n:
        notes.append(i18n.plural("deaths.enforcement_apart", n, lang))
    return notes


def _render_deaths(snap, pl: P.Places, view: PlacesView, lang: str, separators: str, today: dt.date) -> Rendered:
    """The deaths maps: counts by state or facility in the period, with the list's source, credit and limits in
    the figure and in the CSV. The tables hold counts, dates and places only: no name, no cause."""
    recs = DV.records(snap)
    start, asked_end = view.period(today)
    last = DV.list_end(recs)
    # The period as the list covers it: a period chosen past the list's last entry (the page's range runs to
    # today) ends there in the title, subtitle and CSV, and a note says the list stops (death_notes).
    end = DV.shown_end(start, asked_end, last)
    sources = maps.deaths_source_lines(snap.source_entry(DV.SOURCE), last, lang)
    notes = death_notes(recs, start, asked_end, lang)
    period = i18n.date_range(start, end, lang, "iso")
    if view.map == "deaths-state":
        t = DV.by_state(recs, start, end)
        fig = maps.deaths_state_map(t, start, end, notes, sources, county_points=snap.tables.get("census.county_points"),
                                    lang=lang, separators=separators, today=today)
        t = t.assign(**{"from": start.isoformat(), "to": end.isoformat()})
    else:
        t, unplaced = DV.by_facility(recs, pl, start, end, lang)
        fig = maps.deaths_facility_map(t, unplaced, start, end, notes, sources, lang=lang, separators=separators,
                                       today=today)
        t = DV.facility_table(t, unplaced).assign(**{"from": start.isoformat(), "to": end.isoformat()})
    title = f"{_clean_title(fig)}, {period}"
    return Rendered(fig, t, title, sources + [i18n.t("deaths.caveat", lang)] + notes)


# The room's pieces: what the Places room shows beside its map, for the page to lay out.
def places_data(snap) -> P.Places:
    """The places join of the snapshot (facilities, releases, field offices): about 3 s, so the page keeps it."""
    return P.build(snap)


def death_records(snap) -> pd.DataFrame:
    """The list of deaths in ICE custody held in the snapshot, one row a death."""
    return DV.records(snap)


def deaths_not_drawn(snap, pl: P.Places, start: dt.date, end: dt.date, lang: str = "en") -> pd.DataFrame:
    """The period's deaths the facility map cannot draw, each with the reason (what its render counted)."""
    return DV.by_facility(DV.records(snap), pl, start, end, lang)[1]


def release_labels(pl: P.Places, lang: str = "en") -> dict[str, str]:
    """Each release a map can show, by its link value ("ice:2026-04-09"), named in words in ``lang``."""
    r = pl.releases
    return dict(zip((P.release_key(s, rel) for s, rel in zip(r["source"], r["release"])),
                    [P.release_text(s, rel, d, lang) for s, rel, d in zip(r["source"], r["release"], r["date"])]))


def map_caption(view: PlacesView, lang: str = "en") -> str:
    """The caveats under the main map: what its dots and figures are and are not."""
    if view.map in DEATH_MAPS:
        return i18n.t("deaths.caveat", lang) + (" " + P.caveat("points", lang) + " "
                                                + i18n.t("deaths.facility_pick_hint", lang)
                                                if view.map == "deaths-facilities" else "")
    return (P.caveat("adp", lang) + (" " + P.caveat("points", lang) if view.map == "facilities" else "")
            + " " + P.caveat("registry", lang))


def facility_choices(pl: P.Places, no_code: str) -> tuple[pd.DataFrame, dict[str, str]]:
    """The facilities by name, and each one's name for the picker ("name — city, state (code)"; ``no_code``
    where the facility has no code)."""
    fac = pl.facilities.sort_values("name")
    names = dict(zip(fac["facility_id"], fac["name"] + " — " + fac["city"] + ", " + fac["state"] + " ("
                     + fac["code"].where(fac["code"] != "", no_code) + ")"))
    return fac, names


def search_facilities(fac: pd.DataFrame, query: str) -> pd.DataFrame:
    """The facilities with every word of ``query`` in their name, city, state or code."""
    return P.search_facilities(fac, query)


def state_choices(pl: P.Places) -> list[str]:
    """The states (postal codes) that have a facility, in order."""
    return sorted({x for x in pl.facilities["state"] if x in P.USPS})


def state_name(usps: str) -> str:
    """A state's name from its postal code."""
    return P.USPS[usps][1]


def state_facilities(pl: P.Places, release: str, usps: str) -> pd.DataFrame:
    """The facilities of a state in a release (its link value) with their average daily population (``value``)."""
    src, rel = P.parse_release_key(release)
    cs = P.facility_cross_section(pl, src, rel)
    return cs[cs["state"] == usps][["name", "city", "type", "field_office", "value", "code"]]


def state_arrests(snap, usps: str, lang: str = "en") -> pd.DataFrame:
    """ICE's arrests in a state's area of responsibility, without the series column."""
    arr = maps.arrests_by_state(snap, usps, lang)
    return arr.drop(columns="series") if len(arr) else arr


def arrests_caveat(lang: str = "en") -> str:
    """What the state's arrests table counts and what it does not."""
    return P.caveat("arrests_state", lang)
