"""U.S. Census Bureau reference files: state population estimates and county internal points.

Publisher: U.S. Census Bureau. Public domain (U.S. government work).
- ``NST-EST2025-ALLDATA.csv``: Population Estimates Program, Vintage 2025, state totals
  (https://www2.census.gov/programs-surveys/popest/datasets/2020-2025/state/totals/). One row per nation (SUMLEV
  010), region (020), division (030) and state (040: the 50 states, DC and Puerto Rico, STATE 72).
  ``POPESTIMATE<year>`` is the July 1 estimate of that year. Cadence: a new vintage every December, which
  revises the earlier years too (so the vintage is kept with each figure).
- ``2025_Gaz_counties_national.txt``: the 2025 Gazetteer county file
  (https://www2.census.gov/geo/docs/maps-data/data/gazetteer/2025_Gazetteer/), pipe-delimited, one row per county
  or county equivalent with its internal point (INTPTLAT / INTPTLONG, decimal degrees). Cadence: yearly.

Both are reference tables for the Places view (per-100,000-resident rates; approximate map points), not time
series, so the parser returns no observations, only tables (``data/snapshot/tables/census.*.csv``).

Quirks, and what this module does about each:
- Codes have leading zeros (STATE ``01``, GEOID ``01001``; SUMLEV ``040``): every field is read as text and
  checked against its pattern, never as a number.
- The state file carries no postal abbreviation; ``STATES`` below maps FIPS codes to USPS codes (the Gazetteer
  file, which has both, agrees for every state in it; a test checks that).
- Connecticut appears in the 2025 Gazetteer as its 9 planning regions (GEOID 09110-09190), not its 8 former
  counties: codes 09001-09015 elsewhere will not match, and the Places view says so instead of guessing.
- The Gazetteer has no rows for Guam, the U.S. Virgin Islands, the Northern Mariana Islands or American Samoa,
  so facilities there have no internal point; the page lists them instead of dropping them.
- The last column of the Gazetteer header has carried trailing spaces in some years: headers are stripped.
"""
from __future__ import annotations

import csv
import io
import re

import pandas as pd

from . import parsing, tidy
from .base import Parsed, Source
from .errors import ParseError

ID = "census"

# FIPS state code -> (USPS code, name). Facts of the FIPS 5-2 / USPS code lists; territories included because
# facilities sit there even where the Census files used here have no row for them.
STATES = {
    "01": ("AL", "Alabama"), "02": ("AK", "Alaska"), "04": ("AZ", "Arizona"), "05": ("AR", "Arkansas"),
    "06": ("CA", "California"), "08": ("CO", "Colorado"), "09": ("CT", "Connecticut"), "10": ("DE", "Delaware"),
    "11": ("DC", "District of Columbia"), "12": ("FL", "Florida"), "13": ("GA", "Georgia"), "15": ("HI", "Hawaii"),
    "16": ("ID", "Idaho"), "17": ("IL", "Illinois"), "18": ("IN", "Indiana"), "19": ("IA", "Iowa"),
    "20": ("KS", "Kansas"), "21": ("KY", "Kentucky"), "22": ("LA", "Louisiana"), "23": ("ME", "Maine"),
    "24": ("MD", "Maryland"), "25": ("MA", "Massachusetts"), "26": ("MI", "Michigan"), "27": ("MN", "Minnesota"),
    "28": ("MS", "Mississippi"), "29": ("MO", "Missouri"), "30": ("MT", "Montana"), "31": ("NE", "Nebraska"),
    "32": ("NV", "Nevada"), "33": ("NH", "New Hampshire"), "34": ("NJ", "New Jersey"), "35": ("NM", "New Mexico"),
    "36": ("NY", "New York"), "37": ("NC", "North Carolina"), "38": ("ND", "North Dakota"), "39": ("OH", "Ohio"),
    "40": ("OK", "Oklahoma"), "41": ("OR", "Oregon"), "42": ("PA", "Pennsylvania"), "44": ("RI", "Rhode Island"),
    "45": ("SC", "South Carolina"), "46": ("SD", "South Dakota"), "47": ("TN", "Tennessee"), "48": ("TX", "Texas"),
    "49": ("UT", "Utah"), "50": ("VT", "Vermont"), "51": ("VA", "Virginia"), "53": ("WA", "Washington"),
    "54": ("WV", "West Virginia"), "55": ("WI", "Wisconsin"), "56": ("WY", "Wyoming"),
    "60": ("AS", "American Samoa"), "66": ("GU", "Guam"), "69": ("MP", "Northern Mariana Islands"),
    "72": ("PR", "Puerto Rico"), "78": ("VI", "U.S. Virgin Islands"),
}
TERRITORIES = {"AS", "GU", "MP", "PR", "VI"}
USPS = {v[0]: (k, v[1]) for k, v in STATES.items()}

_STATE_NEED = ("SUMLEV", "STATE", "NAME")
_GAZ_NEED = ("USPS", "GEOID", "NAME", "INTPTLAT", "INTPTLONG")


def _fail(msg: str, name: str) -> ParseError:
    return ParseError(msg, source=ID, file=name)


def _text(content: bytes, name: str) -> str:
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            return content.decode("latin-1")  # older Census files are Latin-1 (accented county names)
        except UnicodeDecodeError as e:  # pragma: no cover - latin-1 decodes every byte
            raise _fail(f"not readable text ({e})", name) from None


def _rows(text: str, delimiter: str, need: tuple[str, ...], name: str) -> tuple[list[str], list[list[str]]]:
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    except csv.Error as e:
        raise _fail(f"not a readable delimited file ({e})", name) from None
    if not rows:
        raise _fail("empty file", name)
    header = [h.strip() for h in rows[0]]
    miss = [c for c in need if c not in header]
    if miss:
        raise _fail(f"missing column(s) {miss} (header: {header[:8]})", name)
    return header, rows[1:]


def _int(v: str, *, name: str, line: int, field: str) -> int:
    """A whole, non-negative count (read by the project's one number parser)."""
    x = parsing.number(v, source=ID, file=name, row=f"line {line}", field=field, lenient=True)
    if x is None or x < 0 or x != int(x):
        raise _fail(f"line {line} field {field!r}: {v!r} is not a whole number", name)
    return int(x)


def _coord(v: str, *, name: str, line: int, field: str, bound: float) -> float:
    x = parsing.number(v, source=ID, file=name, row=f"line {line}", field=field)
    if x is None:
        raise _fail(f"line {line} field {field!r}: {v!r} is not a number", name)
    if not -bound <= x <= bound:
        raise _fail(f"line {line} field {field!r}: {x} is outside -{bound}..{bound}", name)
    return x


def parse_state_population(content: bytes, name: str) -> pd.DataFrame:
    """One row per state and year: fips, usps, name, year, population (July 1 estimate), vintage."""
    header, rows = _rows(_text(content, name), ",", _STATE_NEED, name)
    years = sorted(int(m[1]) for h in header if (m := re.fullmatch(r"POPESTIMATE(\d{4})", h)))
    if not years:
        raise _fail(f"no POPESTIMATE<year> columns (header: {header[:8]})", name)
    vintage = re.search(r"EST(\d{4})", name)
    col = {h: i for i, h in enumerate(header)}
    out = []
    for n, r in enumerate(rows, start=2):
        if not any(c.strip() for c in r):
            continue
        if len(r) < len(header):
            raise _fail(f"line {n}: {len(r)} fields, header has {len(header)}", name)
        sumlev = r[col["SUMLEV"]].strip()
        _int(sumlev, name=name, line=n, field="SUMLEV")
        pops = {y: _int(r[col[f"POPESTIMATE{y}"]], name=name, line=n, field=f"POPESTIMATE{y}") for y in years}
        if sumlev != "040":
            continue  # nation, regions and divisions: the page sums states itself and says which it sums
        fips = r[col["STATE"]].strip()
        if fips not in STATES:
            raise _fail(f"line {n} field 'STATE': {fips!r} is not a known state FIPS code", name)
        for y, p in pops.items():
            out.append({"fips": fips, "usps": STATES[fips][0], "name": r[col["NAME"]].strip(), "year": str(y),
                        "population": str(p), "vintage": vintage[1] if vintage else ""})
    if not out:
        raise _fail("no state rows (SUMLEV 040)", name)
    return pd.DataFrame(out)


def parse_county_points(content: bytes, name: str) -> pd.DataFrame:
    """One row per county: geoid, usps, name, lat, lon (the Census internal point)."""
    header, rows = _rows(_text(content, name), "|", _GAZ_NEED, name)
    col = {h: i for i, h in enumerate(header)}
    out = []
    for n, r in enumerate(rows, start=2):
        if not any(c.strip() for c in r):
            continue
        if len(r) < len(header):
            raise _fail(f"line {n}: {len(r)} fields, header has {len(header)}", name)
        geoid = r[col["GEOID"]].strip()
        if not re.fullmatch(r"\d{5}", geoid):
            raise _fail(f"line {n} field 'GEOID': {geoid!r} is not a 5-digit county code", name)
        lat = _coord(r[col["INTPTLAT"]], name=name, line=n, field="INTPTLAT", bound=90)
        lon = _coord(r[col["INTPTLONG"]], name=name, line=n, field="INTPTLONG", bound=180)
        out.append({"geoid": geoid, "usps": r[col["USPS"]].strip(), "name": r[col["NAME"]].strip(),
                    "lat": f"{lat:.6f}", "lon": f"{lon:.6f}"})
    if not out:
        raise _fail("no county rows", name)
    return pd.DataFrame(out)


def parse(content: bytes, name: str = "") -> Parsed:
    head = content[:400].lstrip(b"\xef\xbb\xbf")
    if head.startswith(b"USPS|") or name.lower().endswith(".txt"):
        return Parsed(tidy.empty(), {"county_points": parse_county_points(content, name)})
    return Parsed(tidy.empty(), {"state_population": parse_state_population(content, name)})


SOURCE = Source(
    id=ID,
    title="Census Bureau state population estimates and county internal points",
    publisher="U.S. Census Bureau",
    landing_page="https://www.census.gov/programs-surveys/popest.html",
    licence="public domain (U.S. government work)",
    cadence="yearly (population estimates each December; Gazetteer files each year)",
    cadence_days=400,
    release_dated="none",
    release_rule="no release date: one vintage of population estimates, read once",
    parse=parse,
    series=(),
    raw_globs=(f"{ID}/*.csv", f"{ID}/*.txt", "census/NST-EST*-ALLDATA.csv", "census/*_Gaz_counties_national.txt"),
    download_urls=(
        "https://www2.census.gov/programs-surveys/popest/datasets/2020-2025/state/totals/NST-EST2025-ALLDATA.csv",
    ),
    allowed_hosts=("www2.census.gov",),
    attribution="Source: U.S. Census Bureau, Vintage 2025 population estimates and 2025 Gazetteer county file",
)
