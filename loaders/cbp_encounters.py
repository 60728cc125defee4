"""CBP encounter public data files (Southwest Land Border and Nationwide Encounters CSVs).

Publisher: U.S. Customs and Border Protection (CBP). Files are listed on
https://www.cbp.gov/document/stats/southwest-land-border-encounters and
https://www.cbp.gov/document/stats/nationwide-encounters (the dashboards live under /newsroom/stats/).
Cadence: monthly, around the middle of the month for the month before. Each file is a rolling window of four
fiscal years, replaced by a file with a new name: ``sbo-encounters-fy22-fy25-aug.csv`` (Southwest border, FY22
to FY25 through August), ``nationwide-encounters-fy23-fy26-jul-aor.csv`` / ``...-state.csv`` (nationwide, by
area of responsibility or by state). CBP says the figures come from live systems and change until the fiscal
year closes, so every file is kept as a release and each month is shown from the latest release.
Terms: US federal government work, public domain.

An encounter is an event, not a person: one person caught twice is two encounters. It counts U.S. Border
Patrol (USBP) apprehensions between ports of entry, Office of Field Operations (OFO) inadmissibles at ports
of entry, and, from March 2020 to May 2023, Title 42 expulsions by either. USBP apprehensions and OFO
inadmissibles are different things done by different parts of CBP; neither is an ICE arrest.

Quirks, and what this module does about each:
- ``Fiscal Year`` is a number for closed years and a string for the running one (``"2025 (FYTD)"``): the
  leading four digits are the fiscal year.
- ``Month (abbv)`` is an upper-case abbreviation (``OCT`` ... ``SEP``) inside the fiscal year: October to
  December belong to the calendar year before the fiscal year's number.
- ``Month Grouping`` (``FYTD`` / ``Remaining``) only says whether a month of an earlier year falls inside the
  current year-to-date window, for CBP's dashboard comparisons; it carries no data and is ignored.
- Rows are fine-grained (component x demographic x citizenship x title x encounter type; in the nationwide
  files also region and AOR or state); every series here is a sum of ``Encounter Count`` over the rows, never
  an estimate. The Southwest file groups citizenship into five buckets (``Citizenship Grouping``: four named
  countries and Other); the nationwide files give every country in upper case. Nationwide citizenship is left out: it would add
  thousands of rows per monthly release to the snapshot, and the page does not use it.
- The state file has no ``Component`` or ``Encounter Type`` column; it only gives the by-state series, so
  the nationwide totals come from one file (the AOR file) and never from two that might disagree.
- The data month is the file name's month suffix (``-aug`` = August of the window's last fiscal year);
  without a suffix it is the last month in the file. If the suffix disagrees with the file's last month every
  row is flagged ``stale-header``. The release date is an estimate of when CBP put the file out: the 15th of
  the month after the data month, since CBP publishes "around the middle of the month for the month before"
  (its stated cadence; the upload folders of the URLs seen agree: April 2026 data under ``/2026-05/``, July
  2026 data under ``/2026-08/``). The parser sees only the file name, not the upload day, so the source says
  ``release_dated="estimated"``; the data-through date is each row's ``end`` and the file's ``data_date``.
  Dating a file by its data month put every CBP figure about two weeks before it could have been read in an
  "as published on" view.
- Values are CBP's exact counts (no rounding), unlike the OHSS tables of the same encounters.
"""
from __future__ import annotations

import datetime as dt
import io
import re

import pandas as pd

from . import fiscal, tidy
from .base import Series, Source
from .errors import FetchError, ParseError
from .fetch import linked_files, read_page

ID = "cbp_encounters"
LANDING_SWB = "https://www.cbp.gov/document/stats/southwest-land-border-encounters"
LANDING_NATIONWIDE = "https://www.cbp.gov/document/stats/nationwide-encounters"
FILE_RE = re.compile(
    r"(?:sbo-encounters-fy\d\d-fy\d\d(?:-[a-z]{3})?|nationwide-encounters-fy\d\d-fy\d\d(?:-[a-z]{3})?-(?:aor|state))\.csv",
    re.I)
HREF_RE = re.compile(r"""href\s*=\s*["']([^"'#?]+\.csv)(?:\?[^"']*)?["']""", re.I)
NAME_RE = re.compile(r"encounters-fy(\d\d)-fy(\d\d)(?:-([a-z]{3}))?(?:-(?:aor|state))?\.csv$", re.I)
COMPONENTS = {"U.S. Border Patrol": "USBP", "Office of Field Operations": "OFO"}

_CBP = (" Counts are encounters (events), not people: someone caught twice counts twice. Exact counts from "
        "CBP's public data file; CBP revises them until the fiscal year closes, and each month is shown from the "
        "latest file.")
_T42 = " From March 2020 to May 2023 this includes Title 42 expulsions (see the by-title series)."


def _s(sid, title, agency, definition, breakdown=""):
    return Series(f"{ID}.{sid}", title, "encounters", agency, "encounters", "monthly", definition + _CBP, ID,
                  breakdown=breakdown, measure="flow")


SERIES = (
    _s("swb_total", "CBP encounters at the southwest land border, all of CBP (CBP file)", "CBP (USBP+OFO)",
       "Southwest land border encounters by both parts of CBP: U.S. Border Patrol apprehensions between ports "
       "of entry plus Office of Field Operations inadmissibles at ports of entry." + _T42),
    _s("swb_usbp", "U.S. Border Patrol encounters at the southwest land border (CBP file)", "USBP",
       "Border Patrol encounters between ports of entry on the southwest land border: Title 8 apprehensions, "
       "plus Title 42 expulsions while that order ran. Not port-of-entry inadmissibles, not ICE arrests."),
    _s("swb_ofo", "Office of Field Operations encounters at southwest land ports of entry (CBP file)", "OFO",
       "People found inadmissible at southwest land ports of entry by CBP officers (Title 8 inadmissibles), plus "
       "Title 42 expulsions while that order ran. Not Border Patrol apprehensions."),
    _s("swb_by_component_and_type", "Southwest border encounters by CBP component and encounter type (CBP file)",
       "CBP (USBP+OFO)",
       "Southwest land border encounters split into what CBP's file distinguishes: USBP apprehensions (Title 8), "
       "USBP expulsions (Title 42), OFO inadmissibles (Title 8) and OFO expulsions (Title 42).",
       breakdown="component and encounter type"),
    _s("swb_by_title", "Southwest border encounters by legal authority, Title 8 or Title 42 (CBP file)",
       "CBP (USBP+OFO)",
       "Southwest land border encounters by the authority they were processed under: Title 8 (immigration law: "
       "apprehensions and inadmissibles) or Title 42 (the public-health expulsion order, March 2020 to May 2023).",
       breakdown="title of authority"),
    _s("swb_by_demographic", "Southwest border encounters by demographic group (CBP file)", "CBP (USBP+OFO)",
       "Southwest land border encounters by CBP's demographic group: Single Adults; FMUA (individuals in family "
       "units); UAC (unaccompanied children); Accompanied Minors (children with an adult at ports of entry).",
       breakdown="demographic"),
    _s("swb_by_citizenship", "Southwest border encounters by citizenship group (CBP file)", "CBP (USBP+OFO)",
       "Southwest land border encounters by CBP's citizenship grouping: Mexico, Guatemala, Honduras and El "
       "Salvador by name, every other country together as Other (so Other mixes many nationalities, e.g. "
       "Venezuelans and Cubans). The file gives no finer split.", breakdown="citizenship"),
    _s("nationwide_total", "CBP encounters nationwide, all of CBP (CBP file)", "CBP (USBP+OFO)",
       "All CBP encounters in the country: Border Patrol apprehensions on every border and the coasts plus Office "
       "of Field Operations inadmissibles at land, sea and air ports of entry." + _T42),
    _s("nationwide_usbp", "U.S. Border Patrol encounters nationwide (CBP file)", "USBP",
       "Border Patrol encounters on all borders and coasts: Title 8 apprehensions, plus Title 42 expulsions while "
       "that order ran. Not port-of-entry inadmissibles."),
    _s("nationwide_ofo", "Office of Field Operations encounters nationwide (CBP file)", "OFO",
       "Inadmissibles at all land, sea and air ports of entry (plus Title 42 expulsions while that order ran). "
       "Not Border Patrol apprehensions."),
    _s("nationwide_by_region", "CBP encounters by border region (CBP nationwide file)", "CBP (USBP+OFO)",
       "All CBP encounters by CBP's land border region (Southwest, Northern, and Other for coasts and airports).",
       breakdown="region"),
    _s("nationwide_usbp_by_region", "U.S. Border Patrol encounters by border region (CBP nationwide file)", "USBP",
       "Border Patrol encounters only, by CBP's land border region.", breakdown="region"),
    _s("nationwide_by_aor", "CBP encounters by area of responsibility (CBP nationwide file)", "CBP (USBP+OFO)",
       "All CBP encounters by area of responsibility: Border Patrol sectors and OFO field offices.",
       breakdown="aor"),
    _s("nationwide_by_state", "CBP encounters by state (CBP nationwide file)", "CBP (USBP+OFO)",
       "All CBP encounters by the state where they happened, as CBP's state file gives it.", breakdown="state"),
)

# Column sets of the three layouts; the first column of each pair is the name the parser uses.
COMMON = ["Fiscal Year", "Month (abbv)", "Demographic", "Title of Authority", "Encounter Count"]
LAYOUTS = {
    "swb": COMMON + ["Component", "Citizenship Grouping", "Encounter Type"],
    "aor": COMMON + ["Component", "Land Border Region", "Area of Responsibility", "Citizenship", "Encounter Type"],
    "state": COMMON + ["Land Border Region", "State", "Citizenship"],
}


def _read(content: bytes, name: str) -> pd.DataFrame:
    try:
        df = pd.read_csv(io.BytesIO(content), dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except (UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as e:
        raise ParseError(f"not a readable CSV ({type(e).__name__}: {e})", source=ID, file=name) from None
    df.columns = [re.sub(r"\s+", " ", str(c)).strip() for c in df.columns]
    if df.empty:
        raise ParseError("the CSV has a header but no rows", source=ID, file=name)
    return df


def _layout(columns, name: str) -> str:
    cols = set(columns)
    kind = "state" if "State" in cols else "aor" if "Area of Responsibility" in cols else "swb"
    missing = [c for c in LAYOUTS[kind] if c not in cols]
    if missing:
        raise ParseError(f"{kind} layout: missing column(s) {missing}; columns are {sorted(cols)}", source=ID, file=name)
    return kind


def _first_bad(mask: pd.Series, df: pd.DataFrame, field: str, what: str, name: str):
    if mask.any():
        i = int(mask.to_numpy().nonzero()[0][0])
        # +2: the header is line 1 and pandas counts from 0.
        raise ParseError(f"line {i + 2} field {field!r}: {df[field].iloc[i]!r} is not {what}", source=ID, file=name)


def _normalise(df: pd.DataFrame, kind: str, name: str) -> pd.DataFrame:
    fy = pd.to_numeric(df["Fiscal Year"].str.extract(r"^\s*(\d{4})(?:\.0)?\b", expand=False), errors="coerce")
    _first_bad(fy.isna(), df, "Fiscal Year", "a fiscal year", name)
    month = df["Month (abbv)"].map(fiscal.month_number)
    _first_bad(month.isna(), df, "Month (abbv)", "a month abbreviation", name)
    value = pd.to_numeric(df["Encounter Count"].str.replace(",", "", regex=False).str.strip(), errors="coerce")
    _first_bad(value.isna() | (value < 0), df, "Encounter Count", "a count", name)
    fy, month = fy.astype(int), month.astype(int)
    year = fy - (month >= 10).astype(int)
    out = pd.DataFrame({"date": [f"{y:04d}-{m:02d}-01" for y, m in zip(year, month)], "value": value.astype(float)})
    for c in LAYOUTS[kind]:
        if c not in ("Fiscal Year", "Month (abbv)", "Encounter Count"):
            out[c] = df[c].str.strip()
    if "Component" in out:
        _first_bad(~out["Component"].isin(COMPONENTS), out, "Component", f"one of {sorted(COMPONENTS)}", name)
        out["Component"] = out["Component"].map(COMPONENTS)
    return out


# CBP publishes around the middle of the month after the data month (see the docstring): the estimated day.
PUBLISHED_DAY = 15
RELEASE_RULE = (f"estimated: day {PUBLISHED_DAY} of the month after the file's data month (its name's month "
                "suffix, else its last month); CBP publishes around mid-month for the month before")


def data_month_of(name: str, last_month: str) -> tuple[dt.date, str]:
    """(the last day of a file's data month, flag): the month suffix of its name, else its last month; the flag
    ``stale-header`` when the suffix disagrees with the file's last month (see the docstring)."""
    last_end = fiscal.month_end(pd.Timestamp(last_month).date())
    m = NAME_RE.search(name)
    month = fiscal.month_number(m[3]) if m and m[3] else None
    if m is None or month is None:
        return last_end, ""
    named = fiscal.month_end(fiscal.month_start(2000 + int(m[2]), month))
    return named, "" if named == last_end else "stale-header"


def release_of(name: str, last_month: str) -> tuple[str, str]:
    """(release date, flag) for a file: the estimated publication day, the 15th of the month after its data
    month (``data_month_of``; see the docstring), and the data month's flag."""
    through, flag = data_month_of(name, last_month)
    return (through + dt.timedelta(days=PUBLISHED_DAY)).isoformat(), flag


def _sum(df: pd.DataFrame, series: str, by: str | list[str] | None = None, mask=None) -> pd.DataFrame:
    d = df if mask is None else df[mask]
    if d.empty:  # e.g. a file with no Border Patrol rows: no series, rather than zeros
        return pd.DataFrame(columns=["series", "key", "date", "value"])
    by_cols = [by] if isinstance(by, str) else list(by or [])
    g = d.groupby(["date"] + by_cols, sort=True)["value"].sum().reset_index()
    key = g[by_cols].astype(str).agg(" ".join, axis=1) if by_cols else ""
    return pd.DataFrame({"series": f"{ID}.{series}", "key": key, "date": g["date"], "value": g["value"]})


def parse(content: bytes, name: str = "") -> pd.DataFrame:
    raw = _read(content, name)
    kind = _layout(raw.columns, name)
    df = _normalise(raw, kind, name)
    parts: list[pd.DataFrame] = []
    if kind == "swb":
        parts += [
            _sum(df, "swb_total"),
            _sum(df, "swb_usbp", mask=df["Component"] == "USBP"),
            _sum(df, "swb_ofo", mask=df["Component"] == "OFO"),
            _sum(df, "swb_by_component_and_type", ["Component", "Encounter Type"]),
            _sum(df, "swb_by_title", "Title of Authority"),
            _sum(df, "swb_by_demographic", "Demographic"),
            _sum(df, "swb_by_citizenship", "Citizenship Grouping"),
        ]
    elif kind == "aor":
        usbp = df["Component"] == "USBP"
        parts += [
            _sum(df, "nationwide_total"),
            _sum(df, "nationwide_usbp", mask=usbp),
            _sum(df, "nationwide_ofo", mask=df["Component"] == "OFO"),
            _sum(df, "nationwide_by_region", "Land Border Region"),
            _sum(df, "nationwide_usbp_by_region", "Land Border Region", mask=usbp),
            _sum(df, "nationwide_by_aor", "Area of Responsibility"),
        ]
    else:
        parts.append(_sum(df, "nationwide_by_state", "State"))
    out = pd.concat(parts, ignore_index=True)
    release, flag = release_of(name, df["date"].max())
    ends = {d: fiscal.month_end(pd.Timestamp(d).date()).isoformat() for d in out["date"].unique()}
    out["end"] = out["date"].map(ends)
    out["release"], out["flag"], out["file"] = release, flag, name
    return tidy.frame(out)


def discover(session) -> list[str]:
    """Read both landing pages and return every encounter CSV they link to (each is a release)."""
    urls: list[str] = []
    for page in (LANDING_SWB, LANDING_NATIONWIDE):
        found = linked_files(read_page(session, page, source=ID), page, HREF_RE, lambda n: bool(FILE_RE.search(n)))
        if not found:
            raise FetchError(f"no encounter CSV link found on {page}; has the page layout or file naming changed?",
                             source=ID)
        urls += [u for u in found if u not in urls]
    return urls


SOURCE = Source(
    id=ID,
    title="CBP Southwest Land Border and Nationwide Encounters (CSV)",
    publisher="U.S. Customs and Border Protection",
    landing_page=LANDING_SWB,
    licence="US government work, public domain",
    cadence="monthly, mid-month for the month before",
    cadence_days=45,
    release_dated="estimated",
    release_rule=RELEASE_RULE,
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.csv", "cbp-encounters/sbo-encounters-*.csv", "cbp-encounters/nationwide-encounters-*.csv"),
    discover=discover,
    allowed_hosts=("www.cbp.gov",),
    attribution="Source: U.S. Customs and Border Protection, encounter data files",
    extra={"file_kind": "csv"},
)
