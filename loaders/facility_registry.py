"""Detention System Data's facility registry: ICE facility codes linked to county, state and field office.

Publisher of the compilation: the Detention System Data project (repository
``detentionsystemdata/detention-system-data``, releases under ``releases/<version>/``; landing page
https://github.com/detentionsystemdata/detention-system-data). Licence: CC0 1.0 for the compilation; the facts it
compiles come from ICE and EOIR (public domain) and a FOIA-derived facility list. Cadence: irregular releases
(the one bundled is 2026.07.25). The project itself warns that values may be wrong, stale or duplicated and
asks users to check the primary sources; the Places view repeats that warning.

Files read, and what each gives (``data/snapshot/tables/facility_registry.*.csv`` and one series):
- ``release-<version>_facilities.csv``: one row per facility. ``id`` is ICE's facility code (DETLOC, e.g.
  ``ADAMSMS``) or ``biweekly-<slug>`` for facilities that appear in ICE's workbook with no code anywhere else;
  ``county_fips`` (5 digits, several joined by ``|`` when the compilers could not decide); ``states``;
  ``address``; ``fieldOffice`` (ICE's three-letter field-office code); agreement type, capacity, first and last
  use. -> table ``facilities``.
- ``release-<version>_field_offices.csv``: the ICE ERO field offices with their codes, seats and counties.
  -> table ``field_offices``.
- ``source_ice-biweekly.json``: the compilers' parse of the Facilities sheet of ICE's 2026-07-20 workbook
  (``FY26_detentionStats07202026.xlsx``, which this project cannot redistribute), with the facility code beside
  every name ICE prints. -> series ``facility_registry.ice_sheet_adp_fytd`` (each facility's fiscal-year-to-date
  average daily population as ICE gives it; key = ICE's facility name, as in ``ice_detention_stats``) and table
  ``ice_sheet`` (name -> code, address, field office, type).

Quirks, and what this module does about each:
- Every column has ``<field>_agreement`` and ``<field>_n_sources`` companions; only the values are kept, but
  the counts are still checked as whole numbers so a damaged file is refused rather than half-read.
- ``county_fips`` is ambiguous for about a third of the rows (``48163|48283``); the registry's own ``county``
  name column usually says which one is meant. ``county_names`` names the same counties in another order
  (codes in number order, names with the registry's likeliest county first: ``13239|13259`` beside
  ``Stewart County, GA|Quitman County, GA``), so a name cannot be paired with a code by position: the Places view
  finds the code by its name in the Census county table (``analysis.places.pick_county``) and says when the
  sources disagree. Both columns are kept as given.
- Dates (``firstUsed``, ``lastUsed``) are M/D/YYYY without leading zeros; they are written as ISO dates.
- One row has two states (``ID|IN``); it is kept as given.
- The ICE-sheet parse has 43 facilities without a code (``xref`` = ``biweekly-<slug>``, among them big 2025
  openings such as the Dilley and Moshannon Valley processing centres): kept, with an empty code.
"""
from __future__ import annotations

import json
import re

import pandas as pd

from . import parsing, tidy
from .base import FISCAL_YTD, Parsed, Series, Source
from .errors import ParseError

ID = "facility_registry"
AS_OF_SHEET = "2026-07-20"

SERIES = (
    Series(f"{ID}.ice_sheet_adp_fytd",
           "Average daily population by detention facility, fiscal year to date (ICE 2026-07-20 sheet, "
           "as parsed by Detention System Data)", "facility-adp", "ICE+CBP", "people", "release",
           "ICE's own fiscal-year-to-date average daily population for each facility on the Facilities sheet of "
           "its 20 July 2026 workbook, taken from the Detention System Data registry's parse of that sheet "
           "(the workbook itself is not redistributable). An average over the fiscal year, not a headcount. "
           "Key = facility name as ICE prints it; the facility code is in the ice_sheet table.",
           ID, breakdown="facility", measure="level", period=FISCAL_YTD),
)

_FAC_NEED = ("id", "primary_name", "county_fips", "states", "fieldOffice")
_FO_NEED = ("id", "primary_name", "fieldOfficeCode", "states")
_FAC_KEEP = {"id": "code", "primary_name": "name", "kind": "kind", "county": "county", "county_fips": "county_fips",
             "county_names": "county_names", "states": "state", "address": "address", "fieldOffice": "field_office",
             "agreement": "agreement", "facilityFunction": "function", "capacity": "capacity",
             "firstUsed": "first_used", "lastUsed": "last_used", "adpTotal": "registry_adp_total"}
_FO_KEEP = {"id": "id", "fieldOfficeCode": "code", "primary_name": "name", "states": "state", "address": "address",
            "areaOfResponsibility": "area", "county_fips": "county_fips"}


def _fail(msg: str, name: str) -> ParseError:
    return ParseError(msg, source=ID, file=name)


def _csv(content: bytes, name: str, need: tuple[str, ...]) -> list[dict]:
    out = []
    for n, raw in parsing.csv_rows(content, need, source=ID, file=name):
        rec = {h: v.strip() for h, v in raw.items()}
        rec["_row"] = n
        for h, v in rec.items():
            if isinstance(h, str) and h.endswith("_n_sources") and v and not v.isdigit():
                raise _fail(f"row {n} field {h!r}: {v!r} is not a whole number", name)
        out.append(rec)
    if not out:
        raise _fail("no data rows", name)
    return out


def _optional_mdy(v: str, *, name: str, row: int, field: str) -> str:
    """An optional M/D/YYYY cell as an ISO date (the shared parser names row and field when it is not one)."""
    return parsing.mdy(v, source=ID, file=name, row=row, field=field).isoformat() if v else ""


def _number(v, *, name: str, row, field: str) -> str:
    """An optional non-negative count, as stable text for the reference table."""
    x = parsing.number(v, source=ID, file=name, row=row, field=field)
    if x is None:
        return ""
    if x < 0:
        raise _fail(f"row {row} field {field!r}: {v!r} is not a non-negative number", name)
    return repr(x) if x != int(x) else str(int(x))


def parse_facilities(content: bytes, name: str) -> pd.DataFrame:
    out = []
    for rec in _csv(content, name, _FAC_NEED):
        n = rec["_row"]
        if not rec["id"]:
            raise _fail(f"row {n} field 'id': empty facility id", name)
        fips = rec.get("county_fips", "")
        if fips and not re.fullmatch(r"\d{5}(\|\d{5})*", fips):
            raise _fail(f"row {n} field 'county_fips': {fips!r} is not 5-digit county codes joined by '|'", name)
        row = {new: rec.get(old, "") for old, new in _FAC_KEEP.items()}
        row["code"] = "" if rec["id"].startswith("biweekly-") else rec["id"]
        row["registry_id"] = rec["id"]
        row["capacity"] = _number(rec.get("capacity", ""), name=name, row=n, field="capacity")
        row["registry_adp_total"] = _number(rec.get("adpTotal", ""), name=name, row=n, field="adpTotal")
        row["first_used"] = _optional_mdy(rec.get("firstUsed", ""), name=name, row=n, field="firstUsed")
        row["last_used"] = _optional_mdy(rec.get("lastUsed", ""), name=name, row=n, field="lastUsed")
        out.append(row)
    return pd.DataFrame(out)


def parse_field_offices(content: bytes, name: str) -> pd.DataFrame:
    out = []
    for rec in _csv(content, name, _FO_NEED):
        code = rec["fieldOfficeCode"]
        if not re.fullmatch(r"[A-Z]{3}", code):
            raise _fail(f"row {rec['_row']} field 'fieldOfficeCode': {code!r} is not a three-letter code", name)
        out.append({new: rec.get(old, "") for old, new in _FO_KEEP.items()})
    return pd.DataFrame(out)


def parse_ice_sheet(content: bytes, name: str) -> Parsed:
    try:
        recs = json.loads(content.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _fail(f"not valid JSON ({e})", name) from None
    if not isinstance(recs, list) or not recs:
        raise _fail("expected a non-empty JSON list of records", name)
    table = []
    for i, r in enumerate(recs, start=1):
        if not isinstance(r, dict) or not isinstance(r.get("fields"), dict):
            raise _fail(f"record {i}: no 'fields' object", name)
        f = r["fields"]
        names = f.get("name")
        fac = names[0].get("value") if isinstance(names, list) and names and isinstance(names[0], dict) else None
        if not isinstance(fac, str) or not fac.strip():
            raise _fail(f"record {i} field 'name': no facility name", name)
        as_of = r.get("sourceAsOf")
        if not isinstance(as_of, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", as_of):
            raise _fail(f"record {i} field 'sourceAsOf': {as_of!r} is not a YYYY-MM-DD date", name)
        xref_given = r.get("xref")
        xref = xref_given if isinstance(xref_given, str) else ""
        addr = f.get("address") if isinstance(f.get("address"), dict) else {}
        adp = _number(f.get("adpTotal"), name=name, row=i, field="adpTotal")
        state = r.get("state") if isinstance(r.get("state"), str) else ""
        table.append({"key": fac.strip(), "code": "" if xref.startswith("biweekly-") else xref, "name": fac.strip(),
                      "address": str(addr.get("full") or ""), "zip": str(addr.get("zip") or ""), "state": state,
                      "field_office": str(f.get("fieldOffice") or ""), "agreement": str(f.get("agreement") or ""),
                      "as_of": as_of, "url": str(r.get("url") or "")})
        table[-1]["_adp"] = adp
    t = pd.DataFrame(table)
    dup = t["key"].duplicated(keep=False)
    if dup.any():  # the same printed name twice: tell them apart by code, as ICE's own parser does by city
        t.loc[dup, "key"] = t.loc[dup, "key"] + " (" + t.loc[dup, "code"] + ")"
    obs = [{"series": f"{ID}.ice_sheet_adp_fytd", "key": k, "date": d, "value": float(a), "release": d}
           for k, d, a in zip(t["key"], t["as_of"], t["_adp"]) if a != ""]
    t = t.drop(columns="_adp")
    return Parsed(tidy.frame(obs), {"ice_sheet": t})


def parse(content: bytes, name: str = "") -> Parsed:
    low = name.lower()
    if low.endswith(".json"):
        return parse_ice_sheet(content, name)
    head = content[:300].decode("utf-8", "replace")
    if "fieldOfficeCode" in head or "field_offices" in low:
        return Parsed(tidy.empty(), {"field_offices": parse_field_offices(content, name)})
    return Parsed(tidy.empty(), {"facilities": parse_facilities(content, name)})


SOURCE = Source(
    id=ID,
    title="Detention System Data facility registry (ICE facility codes, counties, field offices)",
    publisher="Detention System Data (compilation of ICE, EOIR and FOIA sources)",
    landing_page="https://github.com/detentionsystemdata/detention-system-data",
    licence="CC0 1.0 (compilation); upstream facts public domain",
    cadence="irregular releases",
    cadence_days=180,
    release_dated="data date",
    release_rule="the date of ICE's facility sheet the registry copied",
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.csv", f"{ID}/*.json", "facility-registry/release-*_facilities.csv",
               "facility-registry/release-*_field_offices.csv", "facility-registry/source_ice-biweekly.json"),
    attribution="Source: Detention System Data facility registry, release 2026.07.25 (CC0)",
)
