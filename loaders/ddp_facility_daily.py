"""Deportation Data Project: people in ICE detention per day, by facility (parquet).

Publisher: Deportation Data Project (UC Berkeley Law / UCLA CILP), built from the detention stints ICE released
under FOIA. File ``facilities-daily-population-latest.parquet`` in DDP's ``ice`` repository (Git LFS), CC0.
Landing page: https://deportationdata.org/data/ice.html
Cadence: irregular, with each DDP release of ICE's detention data (every few months).

What the file is: one row per facility and day (2022-10-01 .. release end; the copy read here runs to
2026-03-10 with 707 facility codes x 1,257 days = 888,699 rows). Columns: ``detention_facility_code``,
``detention_facility``, ``date``, ``n_detained`` (anyone held at some time during that day),
``n_detained_at_midnight`` (held at 23:59, the closest thing to ICE's headcount), and 24-hour breakdowns
``n_detained_male``, ``n_detained_female``, ``n_detained_convicted_criminal``, ``n_detained_possibly_under_18``.

Quirks, and what this module does about each:
- National figures are not in the file; they are sums over facilities, computed here (DDP does not publish
  them). They track ICE's own snapshots within about 0.5% (2025-09-21: 59,478 here vs ICE 59,762).
- The sex / conviction / under-18 columns count people held at any time that day (they add up to
  ``n_detained``, not to the midnight count), so their series say "24-hour".
- Ten facility names belong to several codes (e.g. "POLK COUNTY JAIL" in Florida and Iowa). The facility
  key is the name, with the code appended in brackets for those ten, so no two facilities share a key.
  A reference table ``facilities`` lists every code with its name.
- The by-facility series is a MONTHLY average of the midnight count (to keep the snapshot small); months in
  which a facility held nobody at any midnight are left out (an absent month means zero, not unknown).
  The release's last month is partial: its ``end`` is the last date in the file and it is flagged ``partial``.
- The file has no location fields (no state, city or AOR). Facility codes often end in a state
  abbreviation, but that is a naming habit, not data, so no state or AOR breakdown is derived here.
- The file name carries no date, so a new download replaces the old (as for every source, update replaces
  the rows of a file by those of a new file of the same name); the release is taken to be the last date in
  the file.
"""
from __future__ import annotations

import io

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import tidy
from .base import Parsed, Series, Source
from .ddp_records import DDP_FACTS
from .errors import ParseError

ID = "ddp_facility_daily"
URL = "https://github.com/deportationdata/ice/raw/refs/heads/main/data/facilities-daily-population-latest.parquet"
ATTRIBUTION = "Source: Deportation Data Project (deportationdata.org), from ICE detention records released under FOIA"
COLUMNS = ("detention_facility_code", "detention_facility", "date", "n_detained", "n_detained_at_midnight",
           "n_detained_male", "n_detained_female", "n_detained_convicted_criminal", "n_detained_possibly_under_18")

_DEF = (" Summed over every facility in DDP's facility-day table, which DDP built from ICE's record-level "
        "detention stints (FOIA); the sum is this project's, not a published DDP figure. Not ICE's own headcount, "
        "which ICE publishes every two weeks: on the dates both cover, the midnight count runs below it and the "
        "24-hour count above it (the README gives the figures, recomputed by its tests).")

SERIES = (
    Series(f"{ID}.detained_midnight", "People in ICE detention at midnight, daily (DDP records)", "detained",
           "ICE+CBP", "people", "daily",
           "People held in an ICE detention facility at the end of the day, whoever arrested them (ICE or CBP)." + _DEF,
           ID, measure="level"),
    Series(f"{ID}.detained_24h", "People held in ICE detention at any time during the day (DDP records)", "detained",
           "ICE+CBP", "people", "daily",
           "Everyone held in an ICE detention facility at some point during the day, including people booked in or "
           "out that day; so it is higher than the midnight count and is not a headcount." + _DEF, ID, measure="level"),
    Series(f"{ID}.detained_24h_by_sex", "People held in ICE detention during the day, by sex (DDP records)",
           "detained", "ICE+CBP", "people", "daily",
           "The 24-hour count split by ICE's recorded sex (male, female); people with neither value are in neither."
           + _DEF, ID, breakdown="sex", measure="level"),
    Series(f"{ID}.detained_24h_convicted", "People held in ICE detention during the day with a criminal conviction "
           "(DDP records)", "detained", "ICE+CBP", "people", "daily",
           "Of the 24-hour count, people ICE records as having a criminal conviction." + _DEF, ID, measure="level"),
    Series(f"{ID}.detained_24h_possibly_under_18", "People held in ICE detention during the day who were possibly "
           "under 18 (DDP records)", "detained", "ICE+CBP", "people", "daily",
           "Of the 24-hour count, people DDP marks as possibly under 18 from their birth year (birth dates are not "
           "released, so this is an upper bound)." + _DEF, ID, measure="level"),
    Series(f"{ID}.facility_midnight_monthly", "People in ICE detention at midnight by facility, monthly average "
           "(DDP records)", "detained", "ICE+CBP", "people", "monthly",
           "The facility's midnight count averaged over the days of the month. This is an average of daily headcounts "
           "(like ICE's average daily population), not a headcount on any one day. Months in which the facility held "
           "nobody at midnight are omitted.", ID, breakdown="facility", measure="level"),
)


def read_table(content: bytes, name: str):
    """The parquet as an Arrow table, checked for the columns this module needs."""
    try:
        names = pq.read_schema(io.BytesIO(content)).names
        # Only the columns used: a file padded with extra columns is not loaded whole.
        table = pq.read_table(io.BytesIO(content), columns=[c for c in COLUMNS if c in names])
    except Exception as e:  # pyarrow raises several types for a bad file
        raise ParseError(f"not a readable parquet file ({e})", source=ID, file=name) from None
    missing = [c for c in COLUMNS if c not in table.column_names]
    if missing:
        raise ParseError(f"missing column(s) {missing}; found {names}", source=ID, file=name)
    # The SQL below compares and sums these columns; a column of another type (e.g. counts written as text)
    # would fail inside DuckDB with an error that names neither the file nor the column.
    for col in COLUMNS:
        t = table.schema.field(col).type
        want = _expected_type(col)
        if not _TYPE_OK[want](t):
            raise ParseError(f"column {col!r} has type {t}, expected {want}", source=ID, file=name)
    return table


_TYPE_OK = {
    "a date": lambda t: pa.types.is_date(t) or pa.types.is_timestamp(t),
    "text": lambda t: pa.types.is_string(t) or pa.types.is_large_string(t),
    "numbers": lambda t: pa.types.is_integer(t) or pa.types.is_floating(t),
}


def _expected_type(col: str) -> str:
    return "a date" if col == "date" else "numbers" if col.startswith("n_") else "text"


def check_values(con, name: str) -> None:
    bad = con.sql("""
        select count(*) filter (where date is null) as no_date,
               count(*) filter (where detention_facility_code is null or detention_facility is null) as no_facility,
               count(*) filter (where n_detained is null or n_detained_at_midnight is null) as no_count,
               count(*) filter (where n_detained < 0 or n_detained_at_midnight < 0) as negative
        from t""").fetchall()[0]
    for field, n in zip(("date", "detention_facility", "n_detained", "n_detained"), bad):
        if n:
            raise ParseError(f"{n} row(s) with a missing or negative {field!r}", source=ID, file=name)
    dup = con.sql("select detention_facility_code, date from t group by 1, 2 having count(*) > 1 limit 1").fetchall()
    if dup:
        raise ParseError(f"facility {dup[0][0]!r} has more than one row for {dup[0][1]}", source=ID, file=name)


def national_rows(con, release: str) -> pd.DataFrame:
    nat = con.sql("""
        select date, sum(n_detained_at_midnight) as midnight, sum(n_detained) as h24,
               sum(n_detained_male) as male, sum(n_detained_female) as female,
               sum(n_detained_convicted_criminal) as convicted, sum(n_detained_possibly_under_18) as under18
        from t group by date order by date""").df()
    parts = []
    for col, sid, key in (("midnight", "detained_midnight", ""), ("h24", "detained_24h", ""),
                          ("male", "detained_24h_by_sex", "male"), ("female", "detained_24h_by_sex", "female"),
                          ("convicted", "detained_24h_convicted", ""),
                          ("under18", "detained_24h_possibly_under_18", "")):
        parts.append(pd.DataFrame({"series": f"{ID}.{sid}", "key": key, "date": nat["date"], "value": nat[col]}))
    out = pd.concat(parts, ignore_index=True)
    out["end"] = out["date"]
    out["release"] = release
    return out


def facility_rows(con, release: str, name: str = "") -> tuple[pd.DataFrame, pd.DataFrame]:
    """Monthly mean midnight count per facility, and the code -> name reference table."""
    ref = con.sql("""
        select detention_facility_code as code, any_value(detention_facility) as name,
               count(distinct detention_facility) as n_names,
               min(date) filter (where n_detained > 0) as first_held, max(date) filter (where n_detained > 0) as last_held
        from t group by 1 order by 1""").df()
    if (ref["n_names"] > 1).any():
        code = ref.loc[ref["n_names"] > 1, "code"].iloc[0]
        raise ParseError(f"facility code {code!r} has more than one name", source=ID, file=name)
    shared = ref.groupby("name")["code"].transform("size") > 1
    ref["key"] = ref["name"].where(~shared, ref["name"] + " [" + ref["code"] + "]")
    con.register("ref", ref[["code", "key"]])
    monthly = con.sql("""
        select r.key, date_trunc('month', t.date) as date, max(t.date) as last_day,
               count(*) as days, avg(t.n_detained_at_midnight) as value
        from t join ref r on r.code = t.detention_facility_code
        group by 1, 2 having sum(t.n_detained_at_midnight) > 0 order by 1, 2""").df()
    month_end = pd.to_datetime(monthly["date"]) + pd.offsets.MonthEnd(0)
    last = pd.to_datetime(monthly["last_day"])
    monthly["end"] = last.dt.date
    monthly["flag"] = (last < month_end).map({True: "partial", False: ""})
    monthly["series"] = f"{ID}.facility_midnight_monthly"
    monthly["release"] = release
    monthly["value"] = monthly["value"].round(2)
    table = ref[["code", "name", "key", "first_held", "last_held"]].astype(str).replace({"NaT": "", "None": "", "nan": ""})
    return monthly[["series", "key", "date", "end", "value", "release", "flag"]], table


def parse(content: bytes, name: str = "") -> Parsed:
    table = read_table(content, name)
    # Closed on every path, errors included: a connection left open until interpreter exit sometimes aborted
    # the process after the error was printed ("terminate called without an active exception", rc=134).
    with duckdb.connect() as con:
        con.register("t", table.select(list(COLUMNS)))
        check_values(con, name)
        ((last,),) = con.sql("select max(date) from t").fetchall()
        release = pd.Timestamp(last).date().isoformat()
        monthly, ref = facility_rows(con, release, name)
        obs = tidy.frame(pd.concat([national_rows(con, release), monthly], ignore_index=True))
    return Parsed(obs, {"facilities": ref.assign(release=release)})


SOURCE = Source(
    id=ID,
    title="Deportation Data Project: ICE detention population per day and facility (parquet)",
    **DDP_FACTS,
    release_dated="data date",
    release_rule="the last date in the file (DDP's release date is not in the file)",
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.parquet", "ddp-facility-daily-population/facilities-daily-population-latest.parquet"),
    download_urls=(URL,),
    allowed_hosts=("github.com", "media.githubusercontent.com", "objects.githubusercontent.com"),
    attribution=ATTRIBUTION,
    max_rows=5_000_000,  # the real file has about 0.9 million; read whole into memory
    extra={"file_kind": "parquet"},
)
