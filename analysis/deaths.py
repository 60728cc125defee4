"""Deaths in ICE custody by place and period, and one death's record: pure pandas over the snapshot's record table
(``deaths_in_custody.records``, written by ``loaders.deaths_in_custody``).

- ``records(snap)``: the table with each row's date as a date, its state (from the printed location) and its
  custody flag. The text of a record (name, cause) stays here: the counts below carry none of it.
- ``in_period``: the custody deaths dated in a period; deaths during enforcement actions (outside custody) are
  counted apart and never in the custody count.
- ``by_state`` / ``by_facility``: the counts a map draws. A death's facility is matched to the Places facility
  table with the same rules and reviewed crosswalk as every other facility list (``analysis.places``; crosswalk
  rows may name the source ``deaths``); a name that matches no facility, or a facility with no place to draw it,
  is listed with the reason, never dropped.
- ``coverage_notes``: what the list cannot say about a period (it ends on its latest death; 6 June 2017 to
  9 April 2018 is covered by neither of its sources; a fiscal year it covers only in part, with ICE's own total
  beside its count where one is sourced).
"""
from __future__ import annotations

import datetime as dt
import re

import pandas as pd

from analysis import places as P
from loaders import deaths_in_custody as D
from loaders.census import TERRITORIES, USPS
from wording import i18n

TABLE = f"{D.ID}.records"
SOURCE = D.ID
_STATE_BY_NAME = {name.upper(): usps for usps, (_, name) in USPS.items()}
# The columns of the per-death table a facility view and the map's tables may show: no name, no cause.
PLAIN_COLUMNS = ["row", "date", "fiscal_year", "facility", "location", "state", "facility_type", "custody"]


def record_state(location: str, facility: str = "") -> str:
    """The state (USPS code) a record's place is in: the first ", <code or state name>" of its printed location
    ("Kern County Jail (Lerdo), CA"; "Los Fresnos, Texas"; "Jena, Louisiana (LA)"), else a code at the end of the
    facility name ("... CA", "(GA)"). "" when neither says."""
    for part in str(location).split(",")[1:]:
        words = re.sub(r"\([^)]*\)", " ", part).split("/")[0].strip().upper()
        if words in USPS:
            return words
        if words in _STATE_BY_NAME:
            return _STATE_BY_NAME[words]
    m = re.search(r"(?:\(|\s)([A-Z]{2})\)?\s*$", str(facility))
    return m[1] if m and m[1] in USPS else ""


def records(snap) -> pd.DataFrame:
    """The record table with ``day`` (a date), ``state`` and ``in_custody`` added; empty (same columns) when the
    snapshot has no deaths list. Kept on the snapshot (``Snapshot.memo``)."""
    return snap.memo.keep(("deaths", "records"), lambda: _records(snap))


def _records(snap) -> pd.DataFrame:
    t = snap.tables.get(TABLE)
    if t is None:
        t = pd.DataFrame(columns=D.RECORD_COLUMNS)
    t = t.copy()
    t["day"] = [dt.date.fromisoformat(d) for d in t["date"]]
    t["state"] = [record_state(loc, fac) for loc, fac in zip(t["location"], t["facility"])]
    t["in_custody"] = t["custody"] == "in custody"
    t = t.sort_values(["day", "row"], key=lambda c: c.astype(int) if c.name == "row" else c, kind="mergesort")
    return t.reset_index(drop=True)


def list_end(recs: pd.DataFrame) -> dt.date | None:
    """The latest date in the list (a death in custody or not): it says nothing about later days."""
    return max(recs["day"]) if len(recs) else None


def shown_end(start: dt.date, end: dt.date, last: dt.date | None) -> dt.date:
    """The end of a period as the list covers it: the list's last date when the period runs past it (a period
    that starts after the list ends keeps its own end: there is nothing in it to date)."""
    return last if last is not None and start <= last < end else end


def in_period(recs: pd.DataFrame, start: dt.date, end: dt.date, custody: bool = True) -> pd.DataFrame:
    """The deaths dated from ``start`` to ``end`` (both included): in custody, or (``custody=False``) during
    enforcement actions."""
    keep = (recs["day"] >= start) & (recs["day"] <= end) & (recs["in_custody"] == custody)
    return recs[keep]


def fy_totals(recs: pd.DataFrame) -> pd.DataFrame:
    """Each fiscal year the list counts: its count, the days it covers, and ICE's own total where one is sourced
    (``loaders.deaths_in_custody.fy_totals``, the snapshot's ``deaths_in_custody.fy_totals`` table)."""
    if not len(recs):
        return pd.DataFrame(columns=D.FY_TOTAL_COLUMNS)
    return D.fy_totals([{"date": d, "period": p, "enforcement": not c}
                        for d, p, c in zip(recs["day"], recs["period"], recs["in_custody"])])


def coverage_notes(recs: pd.DataFrame, start: dt.date, end: dt.date, lang: str = "en", ends: bool = True) -> list[str]:
    """What the list cannot say about the period, each in a sentence: it ends (``deaths.list_ends``), a span is
    covered by no source (``deaths.uncovered``), the period starts before the list does, and for each fiscal
    year of the period the list covers only in part (its last excepted: that is where the list ends), its count
    beside ICE's own total, or that no such total is sourced here. ``ends=False`` leaves out where the list ends
    (a trend chart shades that span and says it already: figures.blackouts)."""
    notes = []
    last = list_end(recs)
    if ends and last is not None and end > last:
        notes.append(i18n.t("deaths.list_ends", lang, date=i18n.date(last, lang, "long")))
    spans = D.coverage(zip(recs["day"], recs["period"]), last) if last is not None else []
    for lo, hi in D.gaps(spans):
        if start <= hi and end >= lo:
            notes.append(i18n.t("deaths.uncovered", lang, start=i18n.date(lo, lang, "long"),
                                end=i18n.date(hi, lang, "long")))
    first = spans[0][0] if spans else D.PERIODS["FY2003-2017"][0]
    if start < first:
        notes.append(i18n.t("deaths.list_starts", lang, date=i18n.date(first, lang, "long")))
    for r in (fy_totals(recs) if last is not None else pd.DataFrame(columns=D.FY_TOTAL_COLUMNS)).itertuples(index=False):
        fy = int(r.fiscal_year)
        if r.whole_year == "yes" or (last is not None and fy == D.fiscal_year(last)) or not (
                start <= dt.date(fy, 9, 30) and end >= dt.date(fy - 1, 10, 1)):
            continue
        covered = dict(fy=i18n.t("head.fy", lang, year=fy), n=r.list_deaths,
                       start=i18n.date(dt.date.fromisoformat(r.list_covers_from), lang, "long"),
                       end=i18n.date(dt.date.fromisoformat(r.list_covers_to), lang, "long"))
        if r.ice_total and r.ice_total != r.list_deaths:
            text = i18n.t("deaths.fy_part_ice", lang, ice=r.ice_total, outlet=r.ice_total_outlet, url=r.ice_total_url,
                          date=i18n.date(dt.date.fromisoformat(r.ice_total_date), lang, "long"), **covered)
        else:
            text = i18n.t("deaths.fy_part", lang, **covered)
        notes.append(text[:1].upper() + text[1:])  # "año fiscal 2018: ..." opens a sentence
    return notes


def by_state(recs: pd.DataFrame, start: dt.date, end: dt.date) -> pd.DataFrame:
    """Custody deaths in the period by the state of the place printed on each record."""
    d = in_period(recs, start, end)
    st = d["state"].where(d["state"] != "", "(no state)")
    t = st.value_counts().rename_axis("state").reset_index(name="deaths")
    t["state_name"] = t["state"].map(lambda s: USPS.get(s, ("", s))[1])
    t["territory"] = t["state"].isin(TERRITORIES)
    return t.sort_values(["deaths", "state"], ascending=[False, True]).reset_index(drop=True)[
        ["state", "state_name", "deaths", "territory"]]


def facility_matches(recs: pd.DataFrame, pl: P.Places, lang: str = "en") -> pd.DataFrame:
    """Each record's facility matched to the Places facility table: ``facility_id`` ("" when none), and ``match``
    (how it was matched, or why not, in ``lang``). Hospitals and names no list prints stay unmatched."""
    known = set(pl.facilities["facility_id"])
    cache: dict = {}
    rows = []
    for r in recs.itertuples(index=False):
        k = (r.facility, r.location, r.state, r.facility_type)
        if k not in cache:
            cache[k] = _match_one(pl, r.facility, r.location, r.state, r.facility_type, known, lang)
        rows.append(cache[k])
    return pd.DataFrame(rows, columns=["facility_id", "match"], index=recs.index)


def _why(how: str, lang: str) -> str:
    """The matcher's reason for no match (``analysis.places``), in the reader's language."""
    if how.startswith("reviewed: no code ("):
        return i18n.t("deaths.why.reviewed_none", lang, reason=how[len("reviewed: no code ("):-1])
    if how.startswith("several codes"):
        return i18n.t("deaths.why.several", lang) + how[how.index(" ("):how.index(")") + 1]
    return i18n.t("deaths.why.no_name", lang)


def _match_one(pl: P.Places, facility: str, location: str, state: str, ftype: str, known: set,
               lang: str) -> tuple[str, str]:
    if pl.matcher is None:
        return "", i18n.t("deaths.why.no_table", lang)
    # A reviewed crosswalk row for the name as printed comes first. Then the name without its trailing state code
    # or bracketed initials ("Laredo Processing Center TX", "... Center (KCIPC)": the bare name finds DDP's exact
    # one, where the printed one matched a hold room by a looser rule), the name as printed, and the facility part
    # of the location ("Kern County Jail (Lerdo), CA").
    hit = pl.matcher.reviewed("deaths", facility, state)
    if hit is not None:
        if hit[0] in known:
            return hit[0], f"reviewed crosswalk: {hit[1]}"
        return "", i18n.t("deaths.why.reviewed_none", lang, reason=hit[1])
    bare = re.sub(r"\s*\([^)]*\)", "", facility).strip()
    if re.search(r"\s[A-Z]{2}$", bare) and bare[-2:] in USPS:
        bare = bare[:-3].strip()
    tried = []
    for name in dict.fromkeys([bare, facility, str(location).split(",")[0].strip()]):
        if not name:
            continue
        code, how = pl.matcher.match("deaths", name, state)
        if code and code in known:
            return code, how
        tried.append(how)
    if ftype == "HOSPITAL" or re.search(r"hospital|medical cent|healthcare|health care", facility, re.I):
        return "", i18n.t("deaths.why.hospital", lang)
    why = _why(tried[0], lang)
    return "", (i18n.t("deaths.why.no_state", lang) + "; " + why) if not state else why


def with_facilities(recs: pd.DataFrame, pl: P.Places, lang: str = "en") -> pd.DataFrame:
    """The records with their matched ``facility_id``, ``match`` and the facility's point (``lat``, ``lon``)."""
    m = facility_matches(recs, pl, lang)
    out = recs.join(m)
    f = pl.facilities.set_index("facility_id")
    out["lat"] = out["facility_id"].map(f["lat"]) if len(f) else float("nan")
    out["lon"] = out["facility_id"].map(f["lon"]) if len(f) else float("nan")
    out["places_name"] = out["facility_id"].map(f["name"]) if len(f) else ""
    return out


def by_facility(recs: pd.DataFrame, pl: P.Places, start: dt.date, end: dt.date,
                lang: str = "en") -> tuple[pd.DataFrame, pd.DataFrame]:
    """(counts by matched facility with its point, the custody deaths of the period not drawn at a facility with
    the reason). A facility matched but with no point (no county known) is in the second table too."""
    d = with_facilities(in_period(recs, start, end), pl, lang)
    placed = d[(d["facility_id"] != "") & d["lat"].notna()]
    t = (placed.groupby("facility_id", as_index=False)
         .agg(deaths=("row", "size"), first=("date", "min"), last=("date", "max"),
              facility_names_printed=("facility", lambda s: " | ".join(dict.fromkeys(s)))))
    f = pl.facilities.set_index("facility_id")
    for c in ("name", "code", "city", "state", "lat", "lon"):
        t[c] = t["facility_id"].map(f[c])
    t = t.sort_values(["deaths", "name"], ascending=[False, True]).reset_index(drop=True)
    t = t[["facility_id", "code", "name", "city", "state", "deaths", "first", "last", "facility_names_printed", "lat", "lon"]]
    rest = d[~d.index.isin(placed.index)].copy()
    rest["reason"] = [m if not fid else i18n.t("deaths.why.no_point", lang, name=pn)
                      for fid, m, pn in zip(rest["facility_id"], rest["match"], rest["places_name"])]
    unplaced = rest[["row", "date", "facility", "location", "state", "facility_type", "reason"]].reset_index(drop=True)
    return t, unplaced


def facility_table(placed: pd.DataFrame, unplaced: pd.DataFrame) -> pd.DataFrame:
    """The facility map's table for a CSV: the facilities drawn, then the deaths not drawn grouped by the name
    printed, each with the reason (``not_on_map``), so the rows add up to every custody death of the period."""
    rest = (unplaced.groupby(["facility", "state", "reason"], as_index=False, sort=False)
            .agg(deaths=("row", "size"), first=("date", "min"), last=("date", "max")))
    rest = rest.rename(columns={"facility": "facility_names_printed", "reason": "not_on_map"})
    out = pd.concat([placed.assign(not_on_map=""), rest], ignore_index=True)
    for c in ("facility_id", "code", "name", "city"):
        out[c] = out[c].fillna("")
    return out[list(placed.columns) + ["not_on_map"]]


def at_facility(recs: pd.DataFrame, pl: P.Places, facility_id: str) -> pd.DataFrame:
    """Every death in the list matched to one facility (custody and enforcement alike, each marked), oldest
    first, without names or causes: the facility view links each to its record."""
    d = with_facilities(recs, pl)
    d = d[d["facility_id"] == facility_id]
    return d[PLAIN_COLUMNS].reset_index(drop=True)


def record(recs: pd.DataFrame, row: str) -> dict | None:
    """One death's record by its row in the source file, or None."""
    hit = recs[recs["row"] == str(row)]
    return None if hit.empty else hit.iloc[0].to_dict()


def report_text(rec: dict, lang: str = "en") -> str:
    """What the record's link is: ICE's report, press reporting (when the row says so), or another link."""
    return i18n.t(f"deaths.link_{rec['link_kind'].lower()}" if rec["link_kind"] in ("ICE", "press", "other")
                  else "deaths.link_other", lang)


def search_records(recs: pd.DataFrame, text: str) -> pd.DataFrame:
    """Records whose name, facility, location, country, cause or date contain every word of ``text`` (any case)."""
    words = str(text or "").casefold().split()
    if not words:
        return recs
    hay = (recs["name"] + " | " + recs["facility"] + " | " + recs["location"] + " | " + recs["country"] + " | "
           + recs["cause"] + " | " + recs["date"] + " | " + recs["state"]).str.casefold()
    keep = pd.Series(True, index=recs.index)
    for w in words:
        keep &= hay.str.contains(w, regex=False)
    return recs[keep]
