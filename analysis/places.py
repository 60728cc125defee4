"""Places: one table of detention facilities joined across sources, and sums by state and field office.

Pure pandas over the snapshot (no Streamlit). Sources, and what each contributes:
- ICE's Facilities sheet of every workbook (``ice_detention_stats.facilities`` + ``facility_adp_fytd``): name,
  city, state, field office, type and the fiscal-year-to-date average daily population (ADP), per release. ICE
  prints no facility code, and names drift between releases ("EDEN DETENTION CENTER" / "EDEN DETENTION CTR").
- The registry's parse of ICE's 2026-07-20 sheet (``facility_registry.ice_sheet``): the same columns with
  the code beside each name, which anchors most ICE names to a code.
- DDP's facility-day file (``ddp_facility_daily.facilities`` + ``facility_midnight_monthly``): codes and names,
  the monthly average of each facility's midnight count, to 2026-03-10.
- TRAC's facilities table (``trac_detention.facilities`` + ``facility_adp``): ICE's figures as TRAC re-keyed them
  (April and July 2026), with city, state and type.
- The registry (``facility_registry.facilities``): code -> county FIPS, state, field office, address.
- Census (``census.county_points``, ``census.state_population``): approximate points and per-capita rates.
- The ``zipcodes`` package (its US ZIP code table, with a centre point per code, ships inside the wheel: no
  download at run time): a place for a facility whose county has no Census point or is not known.

Where a facility is drawn (``placed``), best first: its county's Census internal point (``county``); else the
centre of the ZIP code in its address or TRAC's listing (``zip``); else the middle of the centres of its city's
ZIP codes (``city``). Each is approximate and says which it is; a facility none of these places is listed with
the reason (``place_note``), never dropped.

Names are matched to codes in this order: the reviewed crosswalk (``data/facility_crosswalk.csv``: every
match that is not automatic, each with the reviewer's reason), then the normalised name with the state, then
the normalised name alone when it names one code only. A facility no rule matches keeps a name-only id
(``name:<normalised>|<state>``) and is listed with the reason; nothing is dropped. Two different names on one
release's list are two facilities: they never share an id in that release (``split_shared_codes``).
"""
from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import zipcodes

from loaders.census import STATES, TERRITORIES, USPS
from wording import i18n

CROSSWALK = Path(__file__).resolve().parent.parent / "data" / "facility_crosswalk.csv"
CROSSWALK_COLUMNS = ["source", "name", "state", "code", "reason"]
# Whose names a crosswalk row speaks for: every list ("any"), ICE's workbooks, TRAC, ICE's 2026 sheet, or the list of
# deaths in custody (its names are the compiler's spellings: "Stewart Detention Center (GA)").
CROSSWALK_SOURCES = ("any", "ice", "trac", "sheet", "deaths")

# Spellings ICE, TRAC, DDP and the registry use for the same words; expanded before names are compared.
ABBREVIATIONS = {
    "DET": "DETENTION", "CTR": "CENTER", "CNTR": "CENTER", "CORR": "CORRECTIONAL", "CORRECTION": "CORRECTIONAL",
    "CORRECTIONS": "CORRECTIONAL", "CORECTIONS": "CORRECTIONAL", "CO": "COUNTY", "CNTY": "COUNTY", "CTY": "COUNTY",
    "FAC": "FACILITY", "FACILI": "FACILITY", "INST": "INSTITUTION", "FED": "FEDERAL", "REG": "REGIONAL",
    "PROC": "PROCESSING", "SVC": "SERVICE", "ST": "SAINT", "STE": "SAINTE", "JUST": "JUSTICE", "PEN": "PENITENTIARY",
    "DEPT": "DEPARTMENT", "HOSP": "HOSPITAL", "MED": "MEDICAL", "NW": "NORTHWEST", "FAM": "FAMILY",
    "PROCESS": "PROCESSING", "PROCSESING": "PROCESSING", "PROCESSSING": "PROCESSING",
}
_STATE_WORDS = {n.upper() for _, n in STATES.values()} | {u for u, _ in STATES.values()}
DETLOC = re.compile(r"^[A-Z0-9]{3,8}$")  # ICE facility codes; the registry's "ice-..." / "biweekly-..." ids are not

# The caveats' words live in the catalogues (locales/*.toml, places.caveat_*); these names are the English.
CAVEAT_ADP = i18n.t("places.caveat_adp")
CAVEAT_POINTS = i18n.t("places.caveat_points")
CAVEAT_REGISTRY = i18n.t("places.caveat_registry")
CAVEAT_ARRESTS_STATE = i18n.t("places.caveat_arrests_state")


def caveat(name: str, lang: str = "en") -> str:
    """A caveat ("adp", "points", "registry", "arrests_state") in the reader's language."""
    return i18n.t(f"places.caveat_{name}", lang)


def office_key(name: str) -> str:
    """A field office's city, whatever the source calls it: "New York City Field Office", "New York",
    "Atlanta Area of Responsibility", "Washington DC"."""
    s = re.sub(r"\b(FIELD OFFICE|AREA OF RESPONSIBILITY|AOR)\b", " ", str(name).upper())
    words = normalise_name(s).split()
    while len(words) > 1 and words[-1] in ("CITY", "DC"):
        words.pop()
    return " ".join(words)


def normalise_name(name: str) -> str:
    """Upper case, punctuation to spaces, footnote digits glued to a word dropped, abbreviations expanded."""
    s = str(name).upper().replace("&", " AND ").replace("'", "")
    s = re.sub(r"(?<=[A-Z])\d\b", "", s)  # "RESIDENTIAL CENTER1": ICE's footnote markers
    s = re.sub(r"[^A-Z0-9 ]", " ", s)
    return " ".join(ABBREVIATIONS.get(w, w) for w in s.split())


def loose_name(name: str) -> str:
    """A second, looser key: parenthesised parts and trailing state names removed ("CAMBRIA COUNTY JAIL PA",
    "CASCADE COUNTY JAIL (MONTANA)", "... CENTER (CLIPC)")."""
    s = re.sub(r"\([^)]*\)?", " ", str(name))
    words = normalise_name(s).split()
    while len(words) > 2 and words[-1] in _STATE_WORDS:
        words.pop()
    return " ".join(words)


def read_crosswalk(path: Path | str = CROSSWALK) -> pd.DataFrame:
    """The reviewed name -> code matches. A bad row is an error naming the file and row."""
    path = Path(path)
    if not path.exists():
        return pd.DataFrame(columns=CROSSWALK_COLUMNS)
    cw = pd.read_csv(path, dtype=str, keep_default_na=False)
    miss = [c for c in CROSSWALK_COLUMNS if c not in cw.columns]
    if miss:
        raise ValueError(f"{path.name}: missing column(s) {miss}")
    for i, r in enumerate(cw.itertuples(index=False), start=2):
        if r.source not in CROSSWALK_SOURCES:
            raise ValueError(f"{path.name} row {i} field 'source': {r.source!r} is not any, ice, trac, sheet "
                             "or deaths")
        if not r.name.strip():
            raise ValueError(f"{path.name} row {i} field 'name': empty")
        if r.code and not DETLOC.match(r.code):
            raise ValueError(f"{path.name} row {i} field 'code': {r.code!r} is not an ICE facility code")
        if not r.reason.strip():
            raise ValueError(f"{path.name} row {i} field 'reason': every reviewed match needs its reason")
    return cw


@dataclass
class Places:
    facilities: pd.DataFrame  # one row per facility id
    names: pd.DataFrame  # facility_id, source, name, state, city, first, last
    populations: pd.DataFrame  # facility_id, source, release, date, end, value, label
    releases: pd.DataFrame  # source, release, date, label (the cross-sections a map can show)
    state_population: pd.DataFrame
    field_offices: pd.DataFrame
    # Name (and state) -> code, as the join used it: other lists of facility names (the deaths in custody) are
    # matched with the same rules and the same reviewed crosswalk.
    matcher: "_Matcher | None" = field(default=None, repr=False)
    # Read-only once built: in a key of ``loaders.memo.kept`` it counts by identity (its repr prints whole frames).
    MEMO_BY_IDENTITY: ClassVar[bool] = True


def _table(snap, name: str, columns: list[str]) -> pd.DataFrame:
    t = snap.tables.get(name)
    if t is None:
        return pd.DataFrame(columns=columns)
    return t


class _Matcher:
    """Name (and state) -> ICE code, from every source that prints both."""

    def __init__(self, registry: pd.DataFrame, sheet: pd.DataFrame, ddp: pd.DataFrame, crosswalk: pd.DataFrame):
        self.state_of: dict[str, str] = {}
        self.by_name_state: dict[tuple[str, str], set] = {}
        self.by_name: dict[str, set] = {}
        # DDP's codes come with the names in ICE's own records, so an exact name there wins over the registry's
        # cross-references (which give FOLKSTON MAIN IPC the annex's code, for one).
        self.ddp_by_name: dict[str, set] = {}
        for n, c in zip(ddp["name"], ddp["code"]):
            self.ddp_by_name.setdefault(normalise_name(n), set()).add(c)
        self.sheet_codes = set(sheet["code"]) - {""}
        self.ddp_last = dict(zip(ddp["code"], ddp["last_held"]))
        for df in (registry, sheet, ddp):
            has_state = "state" in df.columns
            for n, c, s in zip(df["name"], df["code"], df["state"] if has_state else [""] * len(df)):
                if not DETLOC.match(c or ""):
                    continue
                if has_state and s:
                    self.state_of.setdefault(c, s)
                for k in {normalise_name(n), loose_name(n)}:
                    self.by_name.setdefault(k, set()).add(c)
                    if has_state and s:
                        self.by_name_state.setdefault((k, s), set()).add(c)
        # Keyed by the normalised name: the workbooks of 2023-12 to 2024-04 print names in mixed case ("Pike County
        # Correctional Facility"), and a reviewed row is about the name, not its letter case or abbreviations.
        self.crosswalk = {(r.source, normalise_name(r.name), r.state): (r.code, r.reason)
                          for r in crosswalk.itertuples(index=False)}

    def reviewed(self, source: str, name: str, state: str) -> tuple[str, str] | None:
        """The reviewed crosswalk's (code, reason) for a name as a list prints it, most specific row first."""
        n = normalise_name(name)
        return next((self.crosswalk[k] for k in ((source, n, state), ("any", n, state), (source, n, ""), ("any", n, ""))
                     if k in self.crosswalk), None)

    def _pick(self, codes: set, state: str) -> str | None:
        if len(codes) == 1:
            return next(iter(codes))
        if state:
            codes = {c for c in codes if self.state_of.get(c, state) == state}
            if len(codes) == 1:
                return next(iter(codes))
        in_sheet = codes & self.sheet_codes
        if len(in_sheet) == 1:
            return next(iter(in_sheet))
        return None

    def match(self, source: str, name: str, state: str) -> tuple[str, str]:
        """(code or "", how it was matched or why not)."""
        hit = self.reviewed(source, name, state)
        if hit:
            return hit[0], f"reviewed crosswalk: {hit[1]}" if hit[0] else f"reviewed: no code ({hit[1]})"
        ddp_hit = self.ddp_by_name.get(normalise_name(name), set())
        if len(ddp_hit) == 1 and (not state or self.state_of.get(next(iter(ddp_hit)), state) == state):
            return next(iter(ddp_hit)), "same name in DDP's file"
        for key_fn, how in ((normalise_name, "name"), (loose_name, "name without parentheses or state")):
            k = key_fn(name)
            if state and (k, state) in self.by_name_state:
                c = self._pick(self.by_name_state[(k, state)], state)
                if c:
                    return c, f"{how} and state"
            if k in self.by_name:
                c = self._pick(self.by_name[k], state)
                if c:
                    return c, how
                return "", f"several codes carry this name ({', '.join(sorted(self.by_name[k]))}) and nothing tells them apart"
        return "", "no source that prints codes has this name"


_ZIP_AT_END = re.compile(r"\b(\d{5})(?:-\d{4})?\s*$")


def zip_of(address: str) -> str:
    """The five-digit ZIP code ending an address ("..., HAGATNA, GU 96910" -> "96910"), or ""."""
    m = _ZIP_AT_END.search(address or "")
    return m[1] if m else ""


def city_of(address: str) -> str:
    """The city of a one-line address "STREET, CITY, ST[ ZIP]" (its second-last part), or ""."""
    parts = [p.strip() for p in (address or "").split(",")]
    return parts[-2] if len(parts) >= 3 else ""


def zip_point(code: str) -> tuple[float, float] | None:
    """The centre the gazetteer gives a ZIP code, or None for a code it does not know."""
    if not re.fullmatch(r"\d{5}", code or ""):
        return None
    for z in zipcodes.matching(code):
        pt = _point(z)
        if pt:
            return pt
    return None


def _point(z: dict) -> tuple[float, float] | None:
    """A gazetteer row's centre; None for a military post office code (the table gives those 0, 0, not a place)."""
    try:
        lat, lon = float(z.get("lat") or "nan"), float(z.get("long") or "nan")
    except ValueError:
        return None
    if z.get("zip_code_type") == "MILITARY" or not (np.isfinite(lat) and np.isfinite(lon)) or (lat, lon) == (0.0, 0.0):
        return None
    return lat, lon


_CITY_WORDS = {"FT": "FORT", "ST": "SAINT", "STE": "SAINTE", "MT": "MOUNT"}


def _city_key(city: str) -> str:
    """A city name compared as words, abbreviations spelt out ("FT. WAYNE" = "Fort Wayne")."""
    return " ".join(_CITY_WORDS.get(w, w) for w in re.sub(r"[.']", " ", (city or "").upper()).split())


def city_point(city: str, state: str) -> tuple[float, float, int] | None:
    """The middle (median latitude and longitude) of the centres of a city's ZIP codes, and how many there are:
    street-delivery codes when the city has any, else all its codes (PO boxes, single addresses). A city the
    gazetteer does not list under that state (ICE writes "FPO" for the Guantanamo site) gives None."""
    want = _city_key(city)
    if not want or not state:
        return None
    try:
        zs = zipcodes.filter_by_state(state)
    except (TypeError, ValueError):
        return None
    mine = [z for z in zs if _point(z) and (
        _city_key(z["city"]) == want or want in (_city_key(c) for c in z.get("acceptable_cities") or ()))]
    standard = [z for z in mine if z.get("zip_code_type") == "STANDARD"]
    pts = [pt for z in (standard or mine) if (pt := _point(z))]
    if not pts:
        return None
    return float(np.median([p[0] for p in pts])), float(np.median([p[1] for p in pts])), len(pts)


def _gazetteer_place(zips: list[str], cities: list[str], state: str) -> tuple[float, float, str, str]:
    """(lat, lon, placed, note) from the ZIP codes and cities a facility's sources give, best first."""
    for z in dict.fromkeys(c for c in zips if c):
        pt = zip_point(z)
        if pt:
            return pt[0], pt[1], "zip", f"placed at the centre of its ZIP code {z} (approximate)"
    for c in dict.fromkeys(c for c in cities if c):
        cpt = city_point(c, state)
        if cpt:
            return cpt[0], cpt[1], "city", (f"placed at the centre of {c.title()}, {state} (the middle of its "
                                            f"{cpt[2]} ZIP code centre(s); approximate)")
    tried = [f"ZIP code {z}" for z in dict.fromkeys(c for c in zips if c)] + [
        f"city {c!r}, {state}" for c in dict.fromkeys(c for c in cities if c)]
    return (np.nan, np.nan, "", "not on the map: " + (f"the gazetteer knows none of {', '.join(tried)}" if tried
                                                      else "no county, ZIP code or city known"))


def _name_id(name: str, state: str) -> str:
    return f"name:{loose_name(name)}|{state}"


def _strength(how: str) -> int:
    """How much a match says, strongest first: a reviewed row, a code printed beside the same name (DDP's file, the
    registry's sheet), the name with the state, the name alone."""
    if how.startswith("reviewed"):
        return 0
    if how.startswith(("same name in DDP", "code the registry gives")):
        return 1
    return 2 if how.endswith("and state") else 3


def split_shared_codes(listings, resolved: dict) -> dict:
    """Two different names on one release's list are two facilities, so they never share a facility id.
    ``listings`` are (release, name, state) rows of one source; ``resolved`` maps (name, state) to (facility id,
    code, how). Where several names of one release resolve to one code, the name matched by the strongest rule
    keeps it in that release; the others (all of them when no rule is stronger) get their name-only id and say
    why. Names that would still share a name-only id (two spellings with one normalised form) each get an id of
    their own name as printed. Returns {(release, name, state): (facility id, code, how)} for the listings that
    changed."""
    out: dict = {}
    listings = set(listings)

    def groups() -> dict:
        by: dict[tuple[str, str], set] = {}
        for rel, name, state in listings:
            fid = (out.get((rel, name, state)) or resolved[(name, state)])[0]
            by.setdefault((rel, fid), set()).add((name, state))
        return {k: v for k, v in sorted(by.items()) if len(v) > 1}

    for (rel, _), names in groups().items():
        code = resolved[next(iter(names))][1]
        if not code:
            continue
        ranked = sorted(names, key=lambda ns: (_strength(resolved[ns][2]), ns))
        keep = ranked[0] if _strength(resolved[ranked[0]][2]) < _strength(resolved[ranked[1]][2]) else None
        for n, st in names:
            if (n, st) == keep:
                continue
            others = ", ".join(sorted(x[0] for x in names if x != (n, st)))
            why = (f"the release of {rel} also lists {others}, which keeps {code} by a stronger match" if keep else
                   f"the release of {rel} also lists {others}, matched to {code} as strongly")
            out[(rel, n, st)] = (_name_id(n, st), "", why + "; two rows of one release are two facilities")
    for (rel, _), names in groups().items():
        for n, st in names:
            _, code, how = out.get((rel, n, st)) or resolved[(n, st)]
            out[(rel, n, st)] = (f"name:{n}|{st}|as printed", code, how)
    return out


def build(snap, crosswalk: pd.DataFrame | None = None) -> Places:
    """Join every facility source into one table (see the module docstring)."""
    cw = read_crosswalk() if crosswalk is None else crosswalk
    reg = _table(snap, "facility_registry.facilities", ["code", "name", "state", "county", "county_fips",
                                                         "county_names", "address", "field_office", "agreement"])
    reg_all = reg
    reg = reg[reg["code"].map(lambda c: bool(DETLOC.match(c or "")))]
    sheet = _table(snap, "facility_registry.ice_sheet", ["key", "code", "name", "address", "state", "field_office",
                                                         "agreement", "as_of"])
    ddp = _table(snap, "ddp_facility_daily.facilities", ["code", "name", "key", "first_held", "last_held", "release"])
    ice = _table(snap, "ice_detention_stats.facilities", ["release", "fiscal_year", "key", "name", "city", "state",
                                                          "aor", "facility_type"])
    trac = _table(snap, "trac_detention.facilities", ["name", "city", "state", "zip", "type", "download_date"])
    m = _Matcher(reg, sheet, ddp, cw)

    name_rows, pop_rows = [], []

    def resolve(source, name, state):
        code, how = m.match(source, name, state)
        return (code or _name_id(name, state)), code, how

    # ICE workbooks, release by release
    ice_obs = snap.by_series.get("ice_detention_stats.facility_adp_fytd")
    ice_vals = {} if ice_obs is None else {
        (k, r.strftime("%Y-%m-%d")): (v, d, e) for k, r, v, d, e in
        zip(ice_obs["key"], ice_obs["release"], ice_obs["value"], ice_obs["date"], ice_obs["end"])}
    cache: dict = {}
    listed: dict = {}  # (facility, release, name, state) -> its population row, for a facility listed twice
    ice_names = {(n, st): resolve("ice", n, st) for n, st in dict.fromkeys(zip(ice["name"], ice["state"]))}
    ice_split = split_shared_codes(zip(ice["release"], ice["name"], ice["state"]), ice_names)
    for r in ice.itertuples(index=False):
        fid, code, how = ice_split.get((r.release, r.name, r.state)) or ice_names[(r.name, r.state)]
        name_rows.append({"facility_id": fid, "source": "ice", "name": r.name, "state": r.state, "city": r.city,
                          "field_office": r.aor, "type": r.facility_type, "when": r.release, "match": how})
        hit = ice_vals.get((r.key, r.release))
        if hit:
            again = listed.get((fid, r.release, r.name, r.state))
            if again is not None:
                # The same facility printed twice on one release's list (NASSAU COUNTY CORRECTIONAL CENTER,
                # 2025-07-07; flagged ``listed-twice``): both listings are its population, as in ICE's own
                # facility total. Two different names matched to one facility stay two rows (a wrong match).
                again["value"] += hit[0]
                continue
            pop_rows.append({"facility_id": fid, "source": "ice", "release": r.release, "date": hit[1], "end": hit[2],
                             "value": hit[0], "state": r.state, "field_office": r.aor})
            listed[(fid, r.release, r.name, r.state)] = pop_rows[-1]
    # ICE's 2026-07-20 sheet, through the registry: its codes are ICE's own
    sh_obs = snap.by_series.get("facility_registry.ice_sheet_adp_fytd")
    sh_vals = {} if sh_obs is None else dict(zip(sh_obs["key"], zip(sh_obs["value"], sh_obs["date"])))
    for r in sheet.itertuples(index=False):
        ck = ("sheet", r.name, r.state)
        if ck not in cache:
            cache[ck] = resolve("sheet", r.name, r.state)
        fid, code, how = cache[ck]
        if r.code and (not code or not how.startswith(("reviewed", "same name in DDP"))):
            fid, code, how = r.code, r.code, "code the registry gives beside ICE's name"
        name_rows.append({"facility_id": fid, "source": "sheet", "name": r.name, "state": r.state,
                          "city": city_of(r.address), "zip": zip_of(r.address), "field_office": r.field_office,
                          "type": r.agreement, "when": r.as_of, "match": how})
        if r.key in sh_vals:
            v, d = sh_vals[r.key]
            pop_rows.append({"facility_id": fid, "source": "sheet", "release": r.as_of, "date": d, "end": d, "value": v,
                             "state": r.state, "field_office": r.field_office})
    # TRAC
    tr_obs = snap.by_series.get("trac_detention.facility_adp")
    tr_vals = {} if tr_obs is None else {(k, d.strftime("%Y-%m-%d")): v for k, d, v in
                                         zip(tr_obs["key"], tr_obs["date"], tr_obs["value"])}
    trac_when = [pd.to_datetime(d, format="%m/%d/%Y").strftime("%Y-%m-%d") for d in trac["download_date"]]
    trac_names = {(n, st): resolve("trac", n, st) for n, st in dict.fromkeys(zip(trac["name"], trac["state"]))}
    trac_split = split_shared_codes(zip(trac_when, trac["name"], trac["state"]), trac_names)
    for r, when in zip(trac.itertuples(index=False), trac_when):
        fid, code, how = trac_split.get((when, r.name, r.state)) or trac_names[(r.name, r.state)]
        name_rows.append({"facility_id": fid, "source": "trac", "name": r.name, "state": r.state, "city": r.city,
                          "zip": str(r.zip or "").split("-")[0].zfill(5) if str(r.zip or "").strip() else "",
                          "field_office": "", "type": r.type, "when": when, "match": how})
        v = tr_vals.get((r.name, when))
        if v is not None:
            pop_rows.append({"facility_id": fid, "source": "trac", "release": when, "date": pd.Timestamp(when),
                             "end": pd.Timestamp(when), "value": v, "state": r.state, "field_office": ""})
    # DDP: codes are its own; monthly averages of the midnight count, keyed by DDP's facility name
    ddp_obs = snap.by_series.get("ddp_facility_daily.facility_midnight_monthly")
    ddp_code = dict(zip(ddp["key"], ddp["code"]))
    for r in ddp.itertuples(index=False):
        name_rows.append({"facility_id": r.code, "source": "ddp", "name": r.name, "state": "", "city": "",
                          "field_office": "", "type": "", "when": r.last_held, "match": "code in DDP's file"})
    if ddp_obs is not None and len(ddp_obs):
        d = ddp_obs[["key", "date", "end", "value", "release"]].copy()
        d["facility_id"] = d["key"].map(ddp_code).fillna(d["key"].map(lambda k: _name_id(k, "")))
        d["source"] = "ddp"
        d["release"] = d["release"].dt.strftime("%Y-%m-%d")
        d["state"] = d["field_office"] = ""
        pop_rows_ddp = d.drop(columns="key")
    else:
        pop_rows_ddp = pd.DataFrame()

    names = pd.DataFrame(name_rows)
    if len(names):
        names["zip"] = names["zip"].fillna("") if "zip" in names else ""
    pops = pd.concat([pd.DataFrame(pop_rows), pop_rows_ddp], ignore_index=True)
    facilities = _facility_rows(names, reg, reg_all, snap)
    releases = _releases(pops)
    state_pop = _table(snap, "census.state_population", ["fips", "usps", "name", "year", "population", "vintage"])
    fo = _table(snap, "facility_registry.field_offices", ["id", "code", "name", "state", "address", "area"])
    return Places(facilities, names, pops, releases, state_pop, fo, matcher=m)


# The kind of county a name ends with ("Doña Ana County", "LaSalle Parish", "Juneau City and Borough"): dropped
# before names are compared, as the registry's county field leaves it out ("DONA ANA"). "city" stays: Baltimore
# city and Baltimore County are two counties.
_COUNTY_KINDS = ("CITY AND BOROUGH", "CENSUS AREA", "PLANNING REGION", "COUNTY", "PARISH", "BOROUGH", "MUNICIPIO",
                 "MUNICIPALITY")
# Who names a facility's county, in the order that breaks a tie: the registry's county field, the first county of
# the registry's list of names, the ZIP code table's county for the ZIP code of the registry's address.
COUNTY_SOURCES = ("field", "list", "zip")
_COUNTY_SOURCE_WORDS = {"field": "the registry's county field", "list": "the first of the registry's county names",
                        "zip": "the ZIP code table"}


def county_key(name: str) -> str:
    """A county's name as compared: accents folded, the state after a comma and the kind of county dropped,
    abbreviations spelt out, spaces removed ("Doña Ana County, NM" = "DONA ANA"; "LaSalle" = "LA SALLE";
    "St. Louis city" = "SAINT LOUIS CITY")."""
    s = unicodedata.normalize("NFKD", str(name).split(",")[0]).encode("ascii", "ignore").decode()
    words = normalise_name(s).split()
    for kind in _COUNTY_KINDS:
        k = kind.split()
        if len(words) > len(k) and words[-len(k):] == k:
            words = words[:-len(k)]
            break
    return "".join(words)


@dataclass(frozen=True)
class CountyPick:
    """The county a registry row places a facility in, and what each source says."""
    fips: str  # "" when the row's counties cannot be told apart
    label: str  # "Stewart County, GA"
    note: str  # how it was chosen (English, for the notes); "" when the row lists one county and no one disagrees
    # (source, county label, detail) for every source that names a county, when they do not all name the same
    # one; () when they agree. Sources: COUNTY_SOURCES; detail is the ZIP code for "zip".
    views: tuple[tuple[str, str, str], ...] = ()


class CountyNames:
    """County code <-> name through the Census county table (``census.county_points``): the registry lists its
    county codes in number order and their names in another order, so a name is never paired with a code by
    position."""

    def __init__(self, points: pd.DataFrame):
        self.name = dict(zip(points["geoid"], points["name"]))
        self.by_state: dict[str, dict[str, str]] = {}
        for g, u, n in zip(points["geoid"], points["usps"], points["name"]):
            self.by_state.setdefault(u, {}).setdefault(county_key(n), g)

    def label(self, fips: str, fallback: str = "") -> str:
        usps = STATES.get(fips[:2], ("", ""))[0]
        return f"{self.name[fips]}, {usps}" if fips in self.name else (fallback or fips)

    def among(self, name: str, cands: list[str], fallback: dict[str, str]) -> str:
        """The one candidate code the name names (the name as written, else without a trailing "city": the
        registry writes "RICHMOND" for Richmond city), or ""."""
        keys = {f: county_key(self.name.get(f, fallback.get(f, ""))) for f in cands}
        want = county_key(name)
        if not want:
            return ""
        if name.strip() in cands:  # Connecticut's rows list the planning regions' codes as their names
            return name.strip()
        for k in (str, _without_city):
            hits = [f for f, key in keys.items() if key and k(key) == k(want)]
            if len(hits) == 1:
                return hits[0]
            if hits:
                return ""
        return ""

    def in_state(self, name: str, usps: str) -> str:
        """The code of the county of that name in the state, or ""."""
        return self.by_state.get(usps, {}).get(county_key(name), "") if county_key(name) else ""


def _without_city(key: str) -> str:
    return key[:-4] if key.endswith("CITY") and len(key) > 4 else key


def zip_county(code: str) -> str:
    """The county the ZIP code table gives a ZIP code ("Stewart County"), or ""."""
    return _zip_counties().get(code or "", "")


@functools.lru_cache(maxsize=1)
def _zip_counties() -> dict[str, str]:
    # Read once per process: the package's ``matching`` scans the whole table on every call (about 7 ms of CPU;
    # Places.build took 2.5 s of CPU longer with it, against 0.3 s to read the table once).
    out: dict[str, str] = {}
    for z in zipcodes.list_all():
        if z.get("county"):
            out.setdefault(z["zip_code"], z["county"])
    return out


def pick_county(row, counties: CountyNames) -> CountyPick:
    """The county a registry row places its facility in. The row names it twice (its ``county`` field and its
    list of county names) beside its codes; the ZIP code table names the county of its address's ZIP code. The
    code is the candidate most of them name (ties: the field, then the list, then the ZIP code), looked up by
    name; a row listing one code keeps it. A row whose counties nobody tells apart gives no county, and the
    facility is placed from its ZIP code or city instead."""
    cands = [f for f in str(row["county_fips"] or "").split("|") if f]
    listed = [n.strip() for n in str(row["county_names"] or "").split("|") if n.strip()]
    usps = str(row["state"] or "").split("|")[0]
    if not cands:
        return CountyPick("", "", "no county in the registry")
    # A code the Census table lacks (Guam's, Connecticut's old counties) has a name only when it is the one
    # listed: then the row's only name is its.
    fallback = {cands[0]: listed[0]} if len(cands) == 1 and listed else {}
    zip_code = zip_of(str(row["address"] or ""))
    zc = zip_county(zip_code)
    said = {"field": str(row["county"] or ""), "list": listed[0] if listed else "", "zip": zc}
    votes = {src: counties.among(said[src], cands, fallback) for src in COUNTY_SOURCES}
    if len(cands) == 1:
        fips = cands[0]
    else:
        named = [votes[s] for s in COUNTY_SOURCES if votes[s]]
        fips = max(named, key=named.count) if named else ""  # max keeps the first of a tie: field, list, zip
    # What each source says, as a county of the state in the Census table: a name that is none says nothing (the
    # field holds a city, "ABILENE", or a word, "COUNTY", in some rows; the ZIP code table still has Connecticut's
    # eight old counties, which the Census replaced by planning regions, so it cannot be compared there).
    views = []
    for src in COUNTY_SOURCES:
        code = votes[src] or counties.in_state(said[src], usps)
        if code:
            views.append((src, counties.label(code, fallback.get(code, "")), zip_code if src == "zip" else ""))
    disagree = len({county_key(v[1]) for v in views}) > 1
    label = counties.label(fips, fallback.get(fips, "")) if fips else ""
    notes = []
    if len(cands) > 1:
        if fips:
            who = [s for s in COUNTY_SOURCES if votes[s] == fips]
            notes.append(f"the registry lists {len(cands)} counties; {label} is the one named by "
                         + " and ".join(_COUNTY_SOURCE_WORDS[s] for s in who))
        else:
            notes.append(f"the registry lists {len(cands)} counties ({', '.join(listed)}) and nothing says which "
                         "one it is in")
    if disagree:
        notes.append("sources disagree about its county: " + "; ".join(
            f"{_COUNTY_SOURCE_WORDS[s]}{f' (ZIP code {d})' if d else ''}: {lab}" for s, lab, d in views))
    return CountyPick(fips, label, "; ".join(notes), tuple(views) if disagree else ())



# The order of one facility's name rows of one date: ICE's workbook first, DDP last.
_SOURCE_ORDER = {"ice": 0, "sheet": 1, "trac": 2, "ddp": 3}


def _facility_rows(names: pd.DataFrame, reg: pd.DataFrame, reg_all: pd.DataFrame, snap) -> pd.DataFrame:
    """The facilities table: one row per facility id, from its name rows in every source."""
    reg_by = reg.drop_duplicates("code").set_index("code")
    by_name = _registry_by_name(reg_all)
    pts_table = _table(snap, "census.county_points", ["geoid", "usps", "name", "lat", "lon"])
    counties = CountyNames(pts_table)
    pts = pts_table.set_index("geoid")
    rows = [_facility_row(fid, g, reg_by, by_name, counties, pts)
            for fid, g in names.groupby("facility_id", sort=True)]
    return pd.DataFrame(rows)


def _registry_by_name(reg_all: pd.DataFrame) -> dict[tuple[str, str], pd.Series]:
    """The registry's rows without an ICE code, by loose name and state (the first row of a name and state)."""
    # The registry also has rows without an ICE code (ids "ice-<slug>" from ice.gov's roster, "biweekly-<slug>"
    # from the workbook): a facility whose code it lacks can still take its county from a row of the same name.
    by_name: dict[tuple[str, str], pd.Series] = {}
    for _, r in reg_all.iterrows():
        if not DETLOC.match(r["code"] or ""):
            by_name.setdefault((loose_name(r["name"]), r["state"]), r)
    return by_name


def _facility_row(fid: str, g: pd.DataFrame, reg_by: pd.DataFrame, by_name: dict[tuple[str, str], pd.Series],
                  counties: CountyNames, pts: pd.DataFrame) -> dict:
    """One facility's row of the facilities table, from its name rows ``g``: its registry row, county, point and
    notes, and its latest name, city, field office and type (ICE's workbook first)."""
    g = g.assign(o=g["source"].map(_SOURCE_ORDER)).sort_values(["when", "o"])
    code = fid if not fid.startswith("name:") else ""
    ice = g[g["source"] == "ice"]
    sources = set(g["source"])
    latest = functools.partial(_latest, g)
    r, r_named = _registry_rows(code, g, reg_by, by_name)
    rc = r if r is not None else r_named
    state = (latest_ice(ice, "state") or (r["state"] if r is not None else "") or latest("state"))
    pick, county_note = _facility_county(r, r_named, counties)
    lat, lon, placed, point_note = _county_point(pick.fips, pts)
    county_note = _add_note(county_note, point_note)
    place_note = ""
    if not placed:
        lat, lon, placed, place_note = _place_without_county(rc, g, ice, state)
    notes = _facility_notes(code, g, r, r_named, sources) + [n for n in (county_note, place_note) if n]
    ice_rel = sorted(set(ice["when"]))
    return {
        "facility_id": fid, "code": code,
        "name": latest_ice(ice, "name") or latest("name"),
        "names": " | ".join(dict.fromkeys(g["name"])),
        "state": state, "city": latest_ice(ice, "city") or latest("city"),
        "field_office": latest_ice(ice, "field_office") or (r["field_office"] if r is not None else "")
        or latest("field_office"),
        "type": latest_ice(ice, "type") or latest("type") or (r["agreement"] if r is not None else ""),
        "address": rc["address"] if rc is not None else "",
        "county_fips": pick.fips, "county": pick.label, "county_views": pick.views, "lat": lat, "lon": lon,
        "placed": placed, "place_note": place_note,
        "first_ice_release": ice_rel[0] if ice_rel else "", "last_ice_release": ice_rel[-1] if ice_rel else "",
        "ice_releases": len(ice_rel),
        "in_ice": "ice" in sources or "sheet" in sources, "in_trac": "trac" in sources, "in_ddp": "ddp" in sources,
        "in_registry": r is not None, "notes": "; ".join(notes),
    }


def _registry_rows(code: str, g: pd.DataFrame, reg_by: pd.DataFrame, by_name: dict[tuple[str, str], pd.Series]
                   ) -> tuple[pd.Series | None, pd.Series | None]:
    """The registry's row for a facility's code, or else (second) its row without a code of the same name and
    state as one of the facility's names, oldest name first; (None, None) when it has neither."""
    if code and code in reg_by.index:
        return reg_by.loc[code], None
    for n, st in zip(g["name"], g["state"]):
        named = by_name.get((loose_name(n), st)) if st else None
        if named is not None:
            return None, named
    return None, None


def _add_note(note: str, more: str) -> str:
    return f"{note}; {more}" if note and more else (note or more)


def _facility_county(r: pd.Series | None, r_named: pd.Series | None, counties: CountyNames) -> tuple[CountyPick, str]:
    """The county a facility's registry row places it in, and the note on how it was chosen."""
    rc = r if r is not None else r_named
    pick = pick_county(rc, counties) if rc is not None else CountyPick("", "", "")
    if r is None and r_named is not None:
        return pick, _add_note(pick.note, f"county from the registry's row of the same name "
                                          f"({r_named['registry_id']}), which has no ICE code")
    return pick, pick.note


def _county_point(fips: str, pts: pd.DataFrame) -> tuple[float, float, str, str]:
    """A county's Census internal point: (lat, lon, "county", ""); else no point, and a note when the county is
    known but the Census file has no point for it."""
    if fips and fips in pts.index:
        return float(pts.at[fips, "lat"]), float(pts.at[fips, "lon"]), "county", ""
    if not fips:
        return np.nan, np.nan, "", ""
    return np.nan, np.nan, "", (
        f"county {fips} has no internal point in the Census file"
        + (" (Connecticut's old county codes were replaced by planning regions)" if fips.startswith("09") else ""))


def _place_without_county(rc: pd.Series | None, g: pd.DataFrame, ice: pd.DataFrame, state: str
                          ) -> tuple[float, float, str, str]:
    """A place for a facility no county point places: the registry address's ZIP code, then the sources' ZIP codes
    (latest first), then its city as ICE, the registry and the other sources name it."""
    address = rc["address"] if rc is not None else ""
    zips = [zip_of(address)] + [z for z in reversed(list(g["zip"])) if z]
    cities = ([c for c in reversed(list(ice["city"])) if c] + [city_of(address)]
              + [c for c in reversed(list(g["city"])) if c])
    return _gazetteer_place(zips, cities, state)


def _facility_notes(code: str, g: pd.DataFrame, r: pd.Series | None, r_named: pd.Series | None,
                    sources: set[str]) -> list[str]:
    """What a facility's row lacks: an ICE code (with how its names were matched), a registry row, a listing in
    DDP's file or in any of ICE's sheets."""
    notes = []
    if not code:
        notes.append("no ICE facility code: " + "; ".join(sorted(set(g["match"]))))
    elif r is None:
        notes.append("its code is not in the facility registry" + ("" if r_named is not None else " (no county known)"))
    if "ddp" not in sources:
        notes.append("not in DDP's facility-day file (it ends 2026-03-10; later openings and name-only "
                     "facilities cannot be looked up there)")
    if not sources & {"ice", "sheet", "trac"}:
        notes.append("in none of ICE's facility sheets held here (ICE lists only facilities with people held at "
                     "the pull, and no hold rooms, hospitals or hotels)")
    return notes


def _latest(g: pd.DataFrame, col: str) -> str:
    """The last non-empty value of a column of one facility's rows (sorted oldest first), or ""."""
    return next((v for v in reversed(list(g[col])) if v), "")


def latest_ice(ice: pd.DataFrame, col: str) -> str:
    vals = [v for v in ice[col] if v]
    return vals[-1] if vals else ""


def release_text(source: str, release: str, date, lang: str = "en") -> str:
    """A release's name as the picker and the figures show it: what it is, when released, its data date."""
    return i18n.t(f"places.release_{source}", lang, rel=release, d=pd.Timestamp(date).date().isoformat())


def _releases(pops: pd.DataFrame) -> pd.DataFrame:
    if pops.empty:
        return pd.DataFrame(columns=["source", "release", "date", "label"])
    p = pops[pops["source"].isin(["ice", "sheet", "trac"])]
    r = p.groupby(["source", "release"], as_index=False)["date"].max()
    r["label"] = [release_text(s, rel, d) for s, rel, d in zip(r["source"], r["release"], r["date"])]
    return r.sort_values(["release", "source"], ascending=[False, True]).reset_index(drop=True)


# ---------------------------------------------------------------- cross-sections

def release_key(source: str, release: str) -> str:
    return f"{source}:{release}"


def parse_release_key(text: str) -> tuple[str, str]:
    source, _, release = str(text).partition(":")
    if source not in ("ice", "sheet", "trac") or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", release):
        raise ValueError(f"release {text!r} is not '<ice|sheet|trac>:YYYY-MM-DD'")
    return source, release


def facility_cross_section(pl: Places, source: str, release: str) -> pd.DataFrame:
    """Each facility's figure in one release, with its place. ``state`` is the one the release prints, or the
    joined facility's state when the release leaves it blank."""
    p = pl.populations[(pl.populations["source"] == source) & (pl.populations["release"] == release)]
    f = pl.facilities.set_index("facility_id")
    out = p[["facility_id", "value", "date", "state", "field_office"]].copy()
    out["state"] = [s or f.at[i, "state"] for i, s in zip(out["facility_id"], out["state"])]
    out["field_office"] = [s or f.at[i, "field_office"] for i, s in zip(out["facility_id"], out["field_office"])]
    for c in ("name", "code", "city", "type", "county", "county_views", "lat", "lon", "placed", "place_note", "address",
              "notes"):
        out[c] = out["facility_id"].map(f[c])
    return out.sort_values("value", ascending=False).reset_index(drop=True)


def population_year(release: str, state_pop: pd.DataFrame) -> str:
    """The Census July 1 estimate used for a release: its year, or the latest estimate before it."""
    years = sorted(set(state_pop["year"]))
    if not years:
        return ""
    y = release[:4]
    earlier = [v for v in years if v <= y]
    return earlier[-1] if earlier else years[0]


def state_totals(pl: Places, source: str, release: str) -> pd.DataFrame:
    """Facility figures summed by state, with residents and the rate per 100,000 (Census estimate)."""
    cs = facility_cross_section(pl, source, release)
    cs["state"] = cs["state"].replace("", "(no state)")
    t = cs.groupby("state", as_index=False).agg(detained_adp=("value", "sum"), facilities=("facility_id", "nunique"))
    year = population_year(release, pl.state_population)
    sp = pl.state_population[pl.state_population["year"] == year].set_index("usps")
    t["state_name"] = t["state"].map(lambda s: USPS.get(s, ("", s))[1])
    t["residents"] = t["state"].map(lambda s: float(sp.at[s, "population"]) if s in sp.index else np.nan)
    t["per_100k"] = t["detained_adp"] / t["residents"] * 100_000
    t["population_year"] = year
    t["territory"] = t["state"].isin(TERRITORIES)
    return t.sort_values("detained_adp", ascending=False).reset_index(drop=True)


def field_office_totals(pl: Places, source: str, release: str, snap=None) -> pd.DataFrame:
    """Facility figures summed by ICE field office, with TRAC's ATD count for the nearest snapshot."""
    cs = facility_cross_section(pl, source, release)
    cs["field_office"] = cs["field_office"].replace("", "(none)")
    t = cs.groupby("field_office", as_index=False).agg(detained_adp=("value", "sum"),
                                                        facilities=("facility_id", "nunique"))
    fo = pl.field_offices.set_index("code")
    t["office"] = t["field_office"].map(lambda c: fo.at[c, "name"] if c in fo.index else c)
    t["atd"] = np.nan
    t["atd_date"] = ""
    if snap is not None and "trac_detention.atd_by_aor" in snap.by_series:
        atd = snap.by_series["trac_detention.atd_by_aor"]
        dates = sorted(atd["date"].unique())
        rel = pd.Timestamp(release)
        near = min(dates, key=lambda d: abs(d - rel)) if dates else None
        if near is not None:
            a = atd[atd["date"] == near]
            by_city = {office_key(k): v for k, v in zip(a["key"], a["value"])}
            t["atd"] = t["office"].map(lambda o: by_city.get(office_key(o), np.nan))
            t["atd_date"] = pd.Timestamp(near).date().isoformat()
    t["arrests_2025_2026"] = np.nan
    if snap is not None and "ddp_arrests_aggregates.total_by_aor_2025_2026" in snap.by_series:
        arr = snap.by_series["ddp_arrests_aggregates.total_by_aor_2025_2026"]
        by_city = {office_key(k): v for k, v in zip(arr["key"], arr["value"])}
        t["arrests_2025_2026"] = t["office"].map(lambda o: by_city.get(office_key(o), np.nan))
    return t.sort_values("detained_adp", ascending=False).reset_index(drop=True)


def facility_history(pl: Places, facility_id: str) -> pd.DataFrame:
    p = pl.populations[pl.populations["facility_id"] == facility_id].copy()
    return p.sort_values(["source", "date"]).reset_index(drop=True)


def state_history(pl: Places, state: str) -> pd.DataFrame:
    """Sum of the state's facility figures in every ICE, sheet and TRAC release, and DDP's monthly sums."""
    f = pl.facilities.set_index("facility_id")["state"]
    p = pl.populations.copy()
    p["st"] = [s or f.get(i, "") for i, s in zip(p["facility_id"], p["state"])]
    p = p[p["st"] == state]
    return (p.groupby(["source", "release", "date", "end"], as_index=False)
            .agg(value=("value", "sum"), facilities=("facility_id", "nunique")).sort_values(["source", "date"]))


def search(pl: Places, text: str, limit: int = 50) -> pd.DataFrame:
    """Facilities whose code, any name, city or state contains the text (case-insensitive)."""
    t = str(text).strip().upper()
    f = pl.facilities
    if not t:
        return f.head(0)
    hay = (f["code"] + " " + f["names"].str.upper() + " " + f["city"].str.upper() + " " + f["state"])
    return f[hay.str.contains(re.escape(t), regex=True)].head(limit)


def search_facilities(facilities: pd.DataFrame, text: str) -> pd.DataFrame:
    """The facilities whose name (or another name it goes by), city, state (code or name) or facility code
    contain every word of ``text``, ignoring case: "Krome" finds the Krome facilities and nothing else (the
    picker's own fuzzy filter matched letters in order, so KARNES CO came up too). Blank text: all of them."""
    words = str(text or "").casefold().split()
    if not words:
        return facilities
    state_names = facilities["state"].map(lambda u: USPS[u][1] if u in USPS else "")
    hay = (facilities["name"].astype(str) + " | " + facilities["names"].astype(str) + " | "
           + facilities["city"].astype(str) + " | " + facilities["state"].astype(str) + " | " + state_names
           + " | " + facilities["code"].astype(str)).str.casefold()
    keep = np.ones(len(facilities), dtype=bool)
    for w in words:
        keep &= hay.str.contains(w, regex=False).to_numpy()
    return facilities[keep]
