"""The snapshot for researchers: ``python -m loaders export-data --out DIR``.

Writes one generation of the snapshot (read and checked against its manifest like every other reader) as

- ``*.parquet``: one file per table, with declared column types that do not depend on the values (a date column
  is a date even when it is empty; a value that does not fit its declared type stops the export naming the file,
  row and column, instead of quietly changing the column's type);
- ``datapackage.json``: a Frictionless data package describing every Parquet file (fields, types, descriptions,
  units, sizes and sha256) with the licences and sources of the snapshot's manifest;
- ``snapshot.duckdb``: the same tables, plus the views ``latest`` (per series, breakdown member and period, the
  figure the page shows) and ``as_published`` (every dated figure with the day it was superseded, so that "as
  published on D" is a WHERE clause).

The export is a pure function of the snapshot: no clock, no network; the Parquet files and ``datapackage.json``
are byte-identical for the same snapshot and library versions. The DuckDB file is built from the Parquet files,
so both hold the same rows. The views are SQL (``latest_sql``, ``as_published_sql``) that run on the Parquet files, local or in
object storage, as well as on the DuckDB file (docs/data.md).

Text columns keep the CSV's empty string (in the observations an empty ``key`` is the series' total); empty cells of
date, number and boolean columns are NULL.
"""
from __future__ import annotations

import datetime as dt
import io
import json
import os
import re
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import tidy
from .errors import LoaderError
from .snapshot import MANIFEST, alive, read_generation, sha256

PACKAGE_NAME = "us-immigration-enforcement-snapshot"
DUCKDB_NAME = "snapshot.duckdb"
DATAPACKAGE = "datapackage.json"
MARKER = "export-data"  # recorded in datapackage.json: a folder holding it may be replaced by a new export
UNDOCUMENTED = "Column not described yet in loaders/export_data.py; read as text."
LATER_KNOWN_WRONG = "later-known-wrong"


class ExportError(LoaderError):
    """The snapshot cannot be exported as declared; the message names the file, row and column."""


@dataclass(frozen=True)
class Field:
    name: str
    type: str  # Frictionless type: string, integer, number, date, boolean
    description: str
    unit: str = ""
    format: str = ""  # how the CSV writes a date when it is not YYYY-MM-DD (strptime pattern)


ARROW = {"string": pa.string(), "integer": pa.int64(), "number": pa.float64(), "date": pa.date32(),
         "boolean": pa.bool_()}

# ---------------------------------------------------------------- what each table holds

OBSERVATIONS = [
    Field("source", "string", "Source id (see the sources table); the observations file the row comes from."),
    Field("series", "string", "Series id (see the series table: title, unit, agency, definition)."),
    Field("key", "string", "Breakdown member (a state, a facility, a criminality group...); empty for the series' "
          "total or for a series without a breakdown."),
    Field("date", "date", "First day of the period the value covers."),
    Field("end", "date", "Last day of the period the value covers (the same day as date for a daily figure or a "
          "count on one day). A reserved word in SQL: write \"end\" in quotes."),
    Field("value", "number", "The figure, in the unit given by the series' unit column in the series table (the "
          "units property of this resource lists them)."),
    Field("release", "date", "Date of the publication (release) the figure was read from; empty for sources "
          "published once or digitised, which have no release date."),
    Field("flag", "string", "Semicolon-separated notes on the figure (rounded, partial, lower-bound, corrected...; "
          "README, 'known data problems'); empty when there is none."),
    Field("file", "string", "Name of the raw file the figure was read from (see the source_files table)."),
]
SERIES = [
    Field("id", "string", "Series id, as in observations.series."),
    Field("title", "string", "Title of the series."),
    Field("metric", "string", "What is counted (arrests, book-ins, adp, encounters...): a book-in is not an arrest."),
    Field("agency", "string", "Whose enforcement the figure counts (ICE, CBP, ICE+CBP...)."),
    Field("unit", "string", "Unit of observations.value for this series."),
    Field("frequency", "string", "How often a period is reported (monthly, daily, release...)."),
    Field("definition", "string", "What the figure is and is not, in the source's terms."),
    Field("source", "string", "Source id (see the sources table)."),
    Field("breakdown", "string", "What observations.key holds for this series; empty when it has no breakdown."),
    Field("measure", "string", "flow (events in the period: may be summed) or level (a count on a day or an "
          "average over the period: never summed)."),
    Field("bounds", "string", "The range the checks hold the value to: count (whole, not below 0) or fraction (0 to "
          "1); empty when none is declared."),
    Field("part_of", "string", "Series id this series is a part of, when it is one."),
    Field("share_of", "string", "'part id / whole id' when this series is the ratio of two series."),
    Field("period", "string", "'fiscal-year-to-date' for a running total or average since 1 October: each row "
          "has date = the fiscal year's first day and end = the day the release's figures run to (flag partial "
          "before 30 September); empty when each row covers date to end of its own period."),
    Field("national_total", "string", "Where the series' national figure is (loaders/totals.py): empty = its "
          "member with key ''; 'member:<key>' = that member; "
          "'series:<id>' = another series (never sum the members instead); 'each member' = every member is a "
          "figure of its own; 'none' = the source has no national figure for it."),
]
QUALITY_FLAGS = [
    Field("source", "string", "Source id."),
    Field("series", "string", "Series id the finding concerns; empty when it concerns a whole file."),
    Field("key", "string", "Breakdown member; empty for a total or a whole file."),
    Field("date", "date", "First day of the period concerned; empty when it concerns a whole file."),
    Field("release", "date", "Release of the file concerned; empty for sources without release dates."),
    Field("file", "string", "Raw file the finding was made in."),
    Field("flag", "string", "Short code of the finding (also set in observations.flag where it marks a figure)."),
    Field("message", "string", "The finding in words, with the file, row and values."),
]
EVENTS = [
    Field("id", "string", "Event id (its date and a slug of its title)."),
    Field("date", "date", "Date of the event."),
    Field("date_precision", "string", "exact, or approximate when the source gives only a month or a rough date."),
    Field("title", "string", "Short title of the event."),
    Field("category", "string", "Kind of event (policy, statistic-report, political, personnel...)."),
    Field("description", "string", "What happened, in this project's words."),
    Field("source_name", "string", "Who reported it (the original publisher)."),
    Field("source_url", "string", "The original's own address; empty when it was not found (link_status)."),
    Field("link_status", "string", "original, or 'not found' when the original's address was not established: the "
                                   "event is then cited by original_outlet, original_title and original_date."),
    Field("original_outlet", "string", "The original publisher."),
    Field("original_title", "string", "The original's title, where known."),
    Field("original_date", "date", "Publication date of the original, where known."),
    Field("read_at", "string", "A copy the text was read at, for checking; never the source to cite."),
    Field("study_default", "boolean", "Whether the page's event study selects the event by default."),
    Field("row", "integer", "Row of the event in data/events.csv, numbered as the loader's messages number it."),
]
SOURCES = [
    Field("id", "string", "Source id."),
    Field("title", "string", "What the source is."),
    Field("publisher", "string", "Who publishes the files read."),
    Field("licence", "string", "Licence or terms of the files, as recorded when they were read."),
    Field("attribution", "string", "Credit line to print with figures from this source (it names the changes "
          "this project made, where the licence asks for that)."),
    Field("landing_page", "string", "The publisher's page for the source."),
    Field("cadence", "string", "How often the publisher releases new files."),
    Field("cadence_days", "integer", "The publisher's cadence in days, against which the page judges how old the "
          "source is.", unit="days"),
    Field("latest_release", "date", "Latest release held; empty for sources without release dates."),
    Field("release_dated", "string", "What the release dates of this source's rows are: 'published' (the day the "
          "publisher put the file out), 'estimated' (an estimate of that day from the publisher's stated timing), "
          "'data date' (the date the data run to; publication came later) or 'none' (no release dates). The "
          "date the data run to is each row's end, and each file's data_date in source_files."),
    Field("release_rule", "string", "How a release date is found for this source, in words."),
    Field("date_min", "date", "First day covered by the source's observations."),
    Field("date_max", "date", "Last day covered by the source's observations."),
    Field("rows", "integer", "Observations held.", unit="rows"),
]
SOURCE_FILES = [
    Field("source", "string", "Source id."),
    Field("name", "string", "File name (as in observations.file)."),
    Field("release", "date", "Release date of the file; empty for files without one."),
    Field("data_date", "date", "Date the file's data run to, as the file states it."),
    Field("date_min", "date", "First day covered by the file's observations."),
    Field("date_max", "date", "Last day covered by the file's observations."),
    Field("retrieved", "date", "Day the file was downloaded or copied for this snapshot (UTC, for a download)."),
    Field("rows", "integer", "Observations read from the file.", unit="rows"),
    Field("bytes", "integer", "Size of the file.", unit="bytes"),
    Field("sha256", "string", "SHA-256 of the file's bytes."),
    Field("url", "string", "Address the file was read from."),
    Field("licence", "string", "Licence or terms of the file."),
    Field("same_bytes_as", "string", "Another file of the snapshot with the same bytes, when there is one."),
    Field("producer", "string", "Who made the file (the origin record)."),
    Field("title", "string", "What the file is (the origin record)."),
    Field("official_url", "string", "The producer's address for the file."),
    Field("read_url", "string", "The address actually read (a mirror or an archive when not the producer's)."),
    Field("read_as", "string", "How the copy read relates to the producer's file (producer, mirror, archive, "
          "digitised, transcription, reconstruction...)."),
    Field("archive_url", "string", "Archived copy of the file, when one was used."),
    Field("copy_as_of", "string", "When the copy read was taken (a day or a month, as known)."),
    Field("date_published", "string", "When the producer published the file, when known."),
    Field("date_accessed", "string", "When the copy was read."),
    Field("origin_note", "string", "Notes on where the file comes from."),
]

_STATE = Field("state", "string", "Two-letter state (or territory) code.")
TABLES: dict[str, list[Field]] = {
    "census.county_points": [
        Field("geoid", "string", "Five-digit county FIPS code."),
        Field("usps", "string", "Two-letter state code."),
        Field("name", "string", "County name."),
        Field("lat", "number", "Latitude of the county's internal point (Census gazetteer).", unit="degrees"),
        Field("lon", "number", "Longitude of the county's internal point (Census gazetteer).", unit="degrees"),
    ],
    "census.state_population": [
        Field("fips", "string", "Two-digit state FIPS code."),
        Field("usps", "string", "Two-letter state code."),
        Field("name", "string", "State name."),
        Field("year", "integer", "Year of the estimate."),
        Field("population", "integer", "Resident population estimated for 1 July of the year.", unit="people"),
        Field("vintage", "integer", "Vintage of the estimates (each vintage revises the earlier years)."),
    ],
    "ddp_facility_daily.facilities": [
        Field("code", "string", "ICE's detention facility code."),
        Field("name", "string", "Facility name in DDP's file."),
        Field("key", "string", "The name used as observations.key for the facility."),
        Field("first_held", "date", "First day the file shows someone held there."),
        Field("last_held", "date", "Last day the file shows someone held there."),
        Field("release", "date", "DDP release the facility list comes from."),
    ],
    "deaths_in_custody.records": [
        Field("row", "integer", "Row of the death in the raw file, numbered as the loader's messages number it."),
        Field("date", "date", "Date of death."),
        Field("fiscal_year", "integer", "Federal fiscal year of the death (1 October to 30 September, named by its "
              "end year)."),
        Field("custody", "string", "in custody, or enforcement action (died during an enforcement action, not in "
              "custody; not counted in the custody series)."),
        Field("name", "string", "Name as printed in the list."),
        Field("age", "integer", "Age at death, as printed; empty when not given.", unit="years"),
        Field("sex", "string", "Sex, as printed."),
        Field("country", "string", "Country of citizenship, as printed."),
        Field("facility", "string", "Facility as printed in the list."),
        Field("location", "string", "Facility and place, as printed."),
        Field("facility_type", "string", "ICE's facility type (IGSA, DIGSA, SPC, HOSPITAL...), as printed."),
        Field("cause", "string", "Cause of death, as printed."),
        Field("link", "string", "Address of the report the row comes from."),
        Field("link_kind", "string", "ICE (an ICE report), press or other."),
        Field("period", "string", "The part of the list the row belongs to (which ICE source, or press reporting)."),
        Field("file", "string", "Raw file the row comes from."),
    ],
    "deaths_in_custody.fy_totals": [
        Field("fiscal_year", "integer", "Federal fiscal year (1 October to 30 September, named by its end year)."),
        Field("list_deaths", "integer", "Deaths in ICE custody the list counts in the year (in the days it covers).",
              unit="deaths"),
        Field("list_covers_from", "date", "First day of the year the list covers."),
        Field("list_covers_to", "date", "Last day of the year the list covers."),
        Field("whole_year", "string", "yes when the list covers the whole year; no when its coverage starts or stops "
              "inside it (the year's series rows are flagged partial-coverage or partial)."),
        Field("ice_total", "integer", "ICE's own total of deaths in custody for the year, where one is sourced; empty "
              "when none is (not a zero).", unit="deaths"),
        Field("ice_total_outlet", "string", "Where ICE's total was printed."),
        Field("ice_total_date", "date", "Day ICE's total was printed."),
        Field("ice_total_url", "string", "Address of the page ICE's total was read on."),
    ],
    "deaths_in_custody.coverage": [
        Field("start", "date", "First day of a span of days the list covers."),
        Field("end", "date", "Last day of the span (the list's latest death for the last span)."),
    ],
    "facility_registry.facilities": [
        Field("code", "string", "ICE's detention facility code; empty when the registry gives none."),
        Field("name", "string", "Facility name in the registry."),
        Field("kind", "string", "Kind of place in the registry."),
        Field("county", "string", "County as written in the registry."),
        Field("county_fips", "string", "Five-digit county FIPS codes, several separated by | when the registry "
              "could not decide."),
        Field("county_names", "string", "County names and state for county_fips, separated by |; not in "
              "the order of the codes (the codes are in number order)."),
        _STATE,
        Field("address", "string", "Street address."),
        Field("field_office", "string", "ICE field office (three-letter code)."),
        Field("agreement", "string", "Type of detention agreement (IGSA, DIGSA, CDF, USMS IGA, BOP, STATE...)."),
        Field("function", "string", "Function of the facility, when given (HOLD, JUVENILE...)."),
        Field("capacity", "number", "Capacity as listed by the registry, when given."),
        Field("first_used", "date", "First day of use, as the registry lists it."),
        Field("last_used", "date", "Last day of use, as the registry lists it."),
        Field("registry_adp_total", "number", "Average daily population the registry lists (an average, not a "
              "headcount).", unit="people"),
        Field("registry_id", "string", "The registry's own id for the facility."),
    ],
    "facility_registry.field_offices": [
        Field("id", "string", "The registry's id for the field office."),
        Field("code", "string", "ICE field office (three-letter code)."),
        Field("name", "string", "Name of the field office."),
        _STATE,
        Field("address", "string", "Street address."),
        Field("area", "string", "States or areas the field office covers, in words."),
        Field("county_fips", "string", "The counties it covers: five-digit FIPS codes separated by |."),
    ],
    "facility_registry.ice_sheet": [
        Field("key", "string", "The name used as observations.key for the facility."),
        Field("code", "string", "ICE's detention facility code; empty when the sheet gives none."),
        Field("name", "string", "Facility name in ICE's sheet."),
        Field("address", "string", "Street address."),
        Field("zip", "string", "ZIP code."),
        _STATE,
        Field("field_office", "string", "ICE field office (three-letter code)."),
        Field("agreement", "string", "Type of detention agreement."),
        Field("as_of", "date", "Date of ICE's sheet."),
        Field("url", "string", "Address of ICE's workbook."),
    ],
    "ice_detention_stats.facilities": [
        Field("release", "date", "Release of the ICE workbook the row comes from."),
        Field("fiscal_year", "integer", "Fiscal year of the workbook."),
        Field("key", "string", "The name used as observations.key for the facility."),
        Field("name", "string", "Facility name in the workbook."),
        Field("city", "string", "City."),
        _STATE,
        Field("aor", "string", "ICE area of responsibility (field office code)."),
        Field("facility_type", "string", "ICE's facility type, as printed."),
    ],
    "ice_detention_stats.findings": [
        Field("series", "string", "Series id concerned."),
        Field("key", "string", "Breakdown member; empty for a total."),
        Field("date", "date", "First day of the period concerned."),
        Field("release", "date", "Release of the workbook."),
        Field("file", "string", "Workbook file name."),
        Field("flag", "string", "Short code of the finding."),
        Field("message", "string", "What was printed, what it was corrected to and why."),
    ],
    "ice_detention_stats.releases": [
        Field("file", "string", "Workbook file name."),
        Field("fiscal_year", "integer", "Fiscal year of the workbook."),
        Field("release_date", "date", "Release date given to the workbook (observations.release)."),
        Field("release_date_from", "string", "Where the release date was read (file name, footnote...)."),
        Field("dated_from_contents", "boolean", "Whether the release date was read from the workbook's own "
              "text (no ICE date in its file name): the earliest day it could have been published, not a known one."),
        Field("data_date", "date", "Data date of the workbook."),
        Field("footnote_data_through", "date", "The 'data are updated through' date of the footnotes."),
        Field("header_sheet_date", "date", "Date printed on the workbook's header sheet, when it has one."),
        Field("stale_header", "string", "Why the header sheet's date is stale (the tables run later), when it is."),
        Field("detention_data_through", "date", "Last day the detention tables cover."),
        Field("detention_data_through_from", "string", "Where that date was read."),
        Field("book_ins_data_through", "date", "Last day the book-in tables cover."),
        Field("book_ins_data_through_from", "string", "Where that date was read."),
        Field("removals_data_through", "date", "Last day the removals tables cover."),
        Field("removals_data_through_from", "string", "Where that date was read."),
        Field("docket_as_of", "date", "Date of the National Docket snapshot behind the headcount tables."),
        Field("docket_as_of_from", "string", "Where that date was read."),
        Field("detention_sheet", "string", "Name of the detention sheet in the workbook."),
        Field("facilities_sheet", "string", "Name of the facilities sheet in the workbook."),
    ],
    "reported_figures.rows": [
        Field("row", "integer", "Line of the figure in data/reported_figures.csv."),
        Field("period_start", "date", "First day of the period the figure covers."),
        Field("period_end", "date", "Last day of the period the figure covers."),
        Field("metric", "string", "What the figure counts (an ICE arrest is not a book-in; a target is not a count)."),
        Field("value", "number", "The figure as reported, in the row's unit."),
        Field("unit", "string", "Unit of value, as reported (with 'upper bound' and the like where it is one)."),
        Field("reported_by", "string", "Who reported the figure."),
        Field("url", "string", "The original's own address; empty when it was not found (link_status)."),
        Field("source_quality", "string", "official, primary news, syndicated copy or unverified."),
        Field("note", "string", "Notes on the figure."),
        Field("kind", "string", "count, estimate, bound, target or claim."),
        Field("bound", "string", "upper or lower for a bound; empty otherwise."),
        Field("link_status", "string", "original, or 'not found' when the original's address was not established: "
                                       "the figure is then cited by original_outlet, original_title and original_date."),
        Field("original_outlet", "string", "The original publisher."),
        Field("original_title", "string", "The original's title, where known."),
        Field("original_date", "date", "Publication date of the original, when known."),
        Field("read_at", "string", "A copy the figure was read at, for checking; never the source to cite."),
    ],
    "trac_detention.facilities": [
        Field("name", "string", "Facility name in TRAC's table."),
        Field("city", "string", "City."),
        _STATE,
        Field("zip", "string", "ZIP code."),
        Field("type", "string", "ICE's facility type, as TRAC gives it."),
        Field("download_date", "date", "Date of TRAC's table (written MM/DD/YYYY in the snapshot's CSV).",
              format="%m/%d/%Y"),
    ],
}

TABLE_DESCRIPTIONS = {
    "census.county_points": "One row per county: the Census Bureau's internal point (latitude, longitude), which "
                            "places the county on the maps.",
    "census.state_population": "Census Bureau estimates of each state's resident population on 1 July of each year, "
                               "with the vintage (each vintage revises the earlier years).",
    "ddp_facility_daily.facilities": "One row per facility of DDP's daily detention population file: ICE's code, the "
                                     "name, and the first and last day someone was held there.",
    "deaths_in_custody.records": "One row per death in the compiled list (in custody, or during an enforcement action "
                                 "outside custody), as printed, with the report it comes from.",
    "deaths_in_custody.fy_totals": "One row per fiscal year the list of deaths counts: its count, the days of the "
                                   "year it covers, and ICE's own total beside it where one is sourced.",
    "deaths_in_custody.coverage": "The spans of days the list of deaths covers: a period shown per day is divided "
                                  "by the days of it these spans cover, not by the whole period.",
    "facility_registry.facilities": "Detention System Data's facility registry: one row per facility, with its "
                                    "county, ICE field office, agreement type and dates of use.",
    "facility_registry.field_offices": "ICE's field offices (areas of responsibility) and the counties each covers.",
    "facility_registry.ice_sheet": "The facilities of ICE's latest detention-statistics sheet held by the registry, "
                                   "with address, field office and agreement type.",
    "ice_detention_stats.facilities": "The facilities sheet of each ICE detention-statistics release: name, city, "
                                      "state, area of responsibility and facility type.",
    "ice_detention_stats.findings": "Figures of ICE's workbooks corrected on reading (two rows' labels swapped...): "
                                    "what was printed, what it was corrected to and why.",
    "ice_detention_stats.releases": "One row per ICE detention-statistics workbook: its release date, where that date "
                                    "was read, and the day each of its tables runs to.",
    "reported_figures.rows": "Figures reported by officials and the press, curated by this project: each with its "
                             "period, who reported it, where it was read and how reliable that copy is.",
    "trac_detention.facilities": "TRAC's facility list, one row per facility and TRAC table date: city, state, ZIP "
                                 "and type.",
}

BOOLEANS = {"true": True, "false": False, "yes": True, "no": False}


# ---------------------------------------------------------------- typed columns

def _typed(values: list[str] | pd.Series, f: Field, where: str) -> pa.Array:
    """One column of CSV text as the declared Arrow type; a value that does not fit stops the export."""
    s = pd.Series(values, dtype=object).fillna("").astype(str)
    if f.type == "string":
        return pa.array(s.tolist(), pa.string())
    empty = s.str.strip() == ""

    def bad(mask) -> ExportError:
        i = int(mask.to_numpy().nonzero()[0][0])
        article = "an" if f.type[0] in "aeiou" else "a"
        return ExportError(f"{where} row {i + 2} column {f.name!r}: {s.iloc[i]!r} is not {article} {f.type}"
                           + (f" written {f.format}" if f.format else "") + "; declare the column's type in "
                           "loaders/export_data.py or fix the snapshot")
    if f.type == "date":
        fmt = f.format or "%Y-%m-%d"
        parsed = pd.to_datetime(s.where(~empty, None), format=fmt, errors="coerce")
        if (parsed.isna() & ~empty).any():
            raise bad(parsed.isna() & ~empty)
        days = parsed.to_numpy().astype("datetime64[D]")
        return pa.array(days, pa.date32(), mask=empty.to_numpy())
    if f.type == "boolean":
        low = s.str.strip().str.lower()
        wrong = ~empty & ~low.isin(list(BOOLEANS))
        if wrong.any():
            raise bad(wrong)
        return pa.array([None if e else BOOLEANS[v] for v, e in zip(low, empty)], pa.bool_())
    pattern = r"-?\d+" if f.type == "integer" else r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?"
    wrong = ~empty & ~s.str.strip().str.fullmatch(pattern)
    if wrong.any():
        raise bad(wrong)
    nums = [None if e else (int(v) if f.type == "integer" else float(v)) for v, e in zip(s.str.strip(), empty)]
    return pa.array(nums, ARROW[f.type])


def _fields_for(columns: list[str], declared: list[Field]) -> list[Field]:
    by_name = {f.name: f for f in declared}
    return [by_name.get(c) or Field(c, "string", UNDOCUMENTED) for c in columns]


# pandas' reading of each type (the "pandas" metadata pyarrow itself writes): integers and booleans come back as
# pandas' nullable dtypes, so a missing age is <NA> in an integer column, not NaN turning the column into floats.
# Frictionless reads Parquet through pandas, and validates those columns as integers because of it.
_PANDAS = {"string": ("unicode", "object"), "integer": ("int64", "Int64"), "number": ("float64", "float64"),
           "date": ("date", "object"), "boolean": ("bool", "boolean")}


def _pandas_metadata(fields: list[Field]) -> bytes:
    cols = [{"name": f.name, "field_name": f.name, "pandas_type": _PANDAS[f.type][0],
             "numpy_type": _PANDAS[f.type][1], "metadata": None} for f in fields]
    return json.dumps({"index_columns": [], "column_indexes": [], "columns": cols, "attributes": {},
                       "creator": {"library": "pyarrow", "version": pa.__version__},
                       "pandas_version": pd.__version__}).encode("utf-8")


def _arrow(df: pd.DataFrame, fields: list[Field], where: str) -> pa.Table:
    arrays = [_typed(df[f.name] if f.name in df else [""] * len(df), f, where) for f in fields]
    schema = pa.schema([pa.field(f.name, ARROW[f.type]) for f in fields],
                       metadata={b"pandas": _pandas_metadata(fields)})
    return pa.Table.from_arrays(arrays, schema=schema)


def _csv(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)


# ---------------------------------------------------------------- the tables of one generation

@dataclass
class Table:
    name: str  # resource name; "<source>.<table>" for a source's reference table
    path: str  # relative path of the Parquet file
    fields: list[Field]
    data: pa.Table
    title: str
    description: str
    sources: tuple[str, ...]  # source ids whose licence and credit apply
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[tuple[str, str, str], ...] = ()  # (field, resource, field)
    from_file: str = ""  # the snapshot file it was made from


# One row per series, breakdown member, period, release and file: the key the snapshot's validator holds
# (``tidy.SORT_KEYS``; a file is one release, and ``release`` is empty for sources published once). Files of
# one source never share a series, so ``source`` is not needed in it.
OBSERVATIONS_KEY = tuple(tidy.SORT_KEYS)


def _check_unique(df: pd.DataFrame, key: list[str], where: str) -> None:
    """Refuse rows that repeat the primary key, naming the file and both rows (CSV line numbers)."""
    dup = df.duplicated(key, keep="first").to_numpy()
    if dup.any():
        later = int(dup.nonzero()[0][0])
        same = (df[key] == df.iloc[later][key]).all(axis=1).to_numpy()
        earlier = int(same.nonzero()[0][0])
        raise ExportError(f"{where} rows {earlier + 2} and {later + 2}: the same series, key, date, release and file "
                          f"twice ({', '.join(f'{c}={df.iat[later, df.columns.get_loc(c)]!r}' for c in key)}); "
                          "rebuild the snapshot")


def utc_day(value) -> str:
    """The day (UTC) of a time written with its zone (``update`` records when it downloaded a file so:
    ``2026-12-03T14:05:00+00:00``); a plain date, or text that is neither, as it is (the typed column then names
    a wrong value's row). Every snapshot with a file fetched by ``update`` stopped the export here."""
    text = str(value)
    if len(text) <= 10:
        return text
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        return text
    if when.tzinfo is None:
        return text
    return when.astimezone(dt.timezone.utc).date().isoformat()


def build_tables(man: dict, files: dict[str, bytes]) -> list[Table]:
    """Every table of the export, typed, from a generation's manifest and files (``read_generation``)."""
    srcs = man.get("sources", {})
    out: list[Table] = []

    obs_parts = []
    for rel in sorted(files):
        if rel.startswith("observations/") and rel.endswith(".csv"):
            df = _csv(files[rel])
            missing = [c for c in tidy.COLUMNS if c not in df.columns]
            if missing:
                raise ExportError(f"{rel}: no {missing} column(s); rebuild the snapshot")
            _check_unique(df, list(tidy.SORT_KEYS), rel)
            df.insert(0, "source", rel[len("observations/"):-len(".csv")])
            obs_parts.append(_arrow(df, OBSERVATIONS, rel))  # typed file by file: an error names its file and row
    empty = _arrow(pd.DataFrame(columns=[f.name for f in OBSERVATIONS]), OBSERVATIONS, "observations")
    all_ids = tuple(sorted(srcs))
    out.append(Table("observations", "observations.parquet", OBSERVATIONS,
                     pa.concat_tables(obs_parts).combine_chunks() if obs_parts else empty,
                     "Observations: every figure of every series, from every release held",
                     "The tidy table: one row per series, breakdown member, period and release. Several releases of "
                     "one period are all kept (see the latest and as_published views of the DuckDB file).",
                     all_ids, primary_key=OBSERVATIONS_KEY,
                     foreign_keys=(("series", "series", "id"), ("source", "sources", "id")),
                     from_file="observations/<source>.csv"))
    if "series.csv" in files:
        cat = _csv(files["series.csv"])
        fields = _fields_for(list(cat.columns), SERIES)
        out.append(Table("series", "series.parquet", fields, _arrow(cat, fields, "series.csv"),
                         "Series catalogue", "One row per series held: its title, unit, agency and definition.",
                         (), primary_key=("id",), from_file="series.csv"))
    if "quality_flags.csv" in files:
        qf = _csv(files["quality_flags.csv"])
        fields = _fields_for(list(qf.columns) or [f.name for f in QUALITY_FLAGS], QUALITY_FLAGS)
        out.append(Table("quality_flags", "quality_flags.parquet", fields, _arrow(qf, fields, "quality_flags.csv"),
                         "Quality findings", "What the checks found in the raw files (the README's known data "
                         "problems, row by row).", (), foreign_keys=(("source", "sources", "id"),),
                         from_file="quality_flags.csv"))
    if "curated/events.csv" in files:
        ev = _csv(files["curated/events.csv"])
        fields = _fields_for(list(ev.columns), EVENTS)
        out.append(Table("events", "events.parquet", fields, _arrow(ev, fields, "curated/events.csv"),
                         "Events", "Dated policy and enforcement events curated by this project, each with its "
                         "source; the page marks them on the charts.", (), primary_key=("id",),
                         from_file="curated/events.csv"))
    src_rows = [{f.name: "" if srcs[s].get(f.name) is None else str(srcs[s].get(f.name)) for f in SOURCES}
                for s in sorted(srcs)]
    out.append(Table("sources", "sources.parquet", SOURCES,
                     _arrow(pd.DataFrame(src_rows, columns=[f.name for f in SOURCES]), SOURCES, "manifest.json"),
                     "Sources", "One row per source: publisher, licence, credit line, cadence and coverage (from the "
                     "snapshot's manifest).", (), primary_key=("id",), from_file="manifest.json"))
    file_rows = []
    for sid in sorted(srcs):
        for fe in srcs[sid].get("files") or []:
            origin = fe.get("origin") or {}
            row = {"source": sid}
            for f in SOURCE_FILES[1:]:
                v = origin.get("note") if f.name == "origin_note" else fe.get(f.name, origin.get(f.name))
                row[f.name] = "" if v is None else utc_day(v) if f.name == "retrieved" else str(v)
            file_rows.append(row)
    out.append(Table("source_files", "source_files.parquet", SOURCE_FILES,
                     _arrow(pd.DataFrame(file_rows, columns=[f.name for f in SOURCE_FILES]), SOURCE_FILES,
                            "manifest.json"),
                     "Source files", "One row per raw file read: release, dates covered, size, sha256, address, "
                     "licence and origin (from the snapshot's manifest).", (),
                     primary_key=("source", "name"), foreign_keys=(("source", "sources", "id"),),
                     from_file="manifest.json"))
    for sid in sorted(srcs):
        for tname, meta in sorted((srcs[sid].get("tables") or {}).items()):
            tfile = meta.get("file") if isinstance(meta, dict) else None
            if not tfile or tfile not in files:
                raise ExportError(f"manifest.json: source {sid} table {tname} has no file in the snapshot")
            name = f"{sid}.{tname}"
            df = _csv(files[tfile])
            fields = _fields_for(list(df.columns), TABLES.get(name, []))
            out.append(Table(name, f"tables/{name}.parquet", fields, _arrow(df, fields, tfile),
                             f"{srcs[sid].get('title') or sid}: {tname.replace('_', ' ')}",
                             TABLE_DESCRIPTIONS.get(name, f"Reference table '{tname}' of source {sid}.")
                             + " Not a time series.", (sid,),
                             from_file=tfile))
    return out


# ---------------------------------------------------------------- licences and sources

_KNOWN_LICENCES = (
    (r"CC BY 4\.0\b", "CC-BY-4.0", "https://creativecommons.org/licenses/by/4.0/"),
    (r"CC0 1\.0\b", "CC0-1.0", "https://creativecommons.org/publicdomain/zero/1.0/"),
)
_US_PUBLIC_DOMAIN = "https://www.copyright.gov/title17/92chap1.html#105"


def licence_object(text: str, landing_page: str = "") -> dict:
    """A Frictionless licence for the manifest's words, which are kept verbatim as its title.

    The licence's id (an Open Definition id) and address are given only for what the words say: CC BY 4.0 and
    CC0 1.0 when the words begin with them; "other-pd" with the U.S. copyright statute for a U.S. government work;
    "other-at" (free with attribution) for terms that say so; "notspecified" for anything else (a text like
    "DDP data CC0; the analysts' repositories state no licence" is not CC0 as a whole). Those point to the
    source's landing page, where its terms are stated.
    """
    for pattern, name, url in _KNOWN_LICENCES:
        if re.match(pattern, text):
            return {"name": name, "path": url, "title": text}
    if re.fullmatch(r"(?i)(public domain \(U\.S\. government work\)|US government work, public domain)", text.strip()):
        return {"name": "other-pd", "path": _US_PUBLIC_DOMAIN, "title": text}
    out = {"name": "other-at" if re.search(r"(?i)\bfree to use with attribution\b", text) else "notspecified",
           "title": text}
    if landing_page.startswith(("http://", "https://")):
        out["path"] = landing_page
    return out


def _licence_of(entry: dict) -> dict:
    return licence_object(entry["licence"], str(entry.get("landing_page") or ""))


def _source_object(sid: str, entry: dict) -> dict:
    out = {"title": f"{entry.get('publisher') or sid} ({sid})"}
    if str(entry.get("landing_page", "")).startswith(("http://", "https://")):
        out["path"] = entry["landing_page"]
    if entry.get("attribution"):
        out["attribution"] = entry["attribution"]
    if entry.get("licence"):
        out["licence"] = entry["licence"]
    return out


def _unique(items: list[dict]) -> list[dict]:
    seen, out = set(), []
    for it in items:
        k = json.dumps(it, sort_keys=True)
        if k not in seen:
            seen.add(k)
            out.append(it)
    return out


PROJECT_LICENCE = {"name": "MIT", "path": "https://opensource.org/licenses/MIT",
                   "title": "MIT (this project's own tables: catalogue, findings, events, manifest)"}


def datapackage(tables: list[Table], written: dict[str, bytes], man: dict, manifest_sha: str) -> dict:
    srcs = man.get("sources", {})
    cat = next((t for t in tables if t.name == "series"), None)
    units = {}
    if cat is not None:
        units = dict(zip(cat.data.column("id").to_pylist(), cat.data.column("unit").to_pylist()))
    resources = []
    for t in tables:
        schema: dict = {"fields": []}
        for f in t.fields:
            fd: dict[str, Any] = {"name": f.name, "type": f.type, "description": f.description}
            if f.unit:
                fd["unit"] = f.unit
            if f.type == "boolean":
                fd["trueValues"], fd["falseValues"] = ["true"], ["false"]
            schema["fields"].append(fd)
        if t.primary_key:
            schema["primaryKey"] = list(t.primary_key)
        if t.foreign_keys:
            schema["foreignKeys"] = [{"fields": [f], "reference": {"resource": r, "fields": [rf]}}
                                     for f, r, rf in t.foreign_keys]
        data = written[t.path]
        res = {"name": t.name, "type": "table", "path": t.path, "format": "parquet",
               "mediatype": "application/vnd.apache.parquet", "title": t.title, "description": t.description,
               "schema": schema,
               # Not the standard "bytes" and "hash": frictionless 5.21 reads Parquet through pyarrow, counts no
               # bytes, and would report every file as 0 bytes against them.
               "x-bytes": len(data), "x-sha256": sha256(data)}
        if t.sources:
            res["licenses"] = _unique([_licence_of(srcs[s]) for s in t.sources if srcs[s].get("licence")])
            res["sources"] = [_source_object(s, srcs[s]) for s in t.sources]
        else:
            res["licenses"] = [PROJECT_LICENCE]
        if t.name == "observations":
            res["units"] = {s: units[s] for s in sorted(units)}
        res["x-snapshot-file"] = t.from_file
        res["x-rows"] = t.data.num_rows
        resources.append(res)
    licences = _unique([_licence_of(srcs[s]) for s in sorted(srcs) if srcs[s].get("licence")]
                       + [PROJECT_LICENCE])
    return {
        "name": PACKAGE_NAME,
        "title": "US immigration-enforcement statistics: the dashboard's data snapshot",
        "description": ("The processed snapshot of the dashboard (data/snapshot/ in its repository) as Parquet: every "
                        "figure of every series and release (observations), the series catalogue with units and "
                        "definitions, quality findings, curated events, the sources and files read, and each "
                        "source's reference tables. Each resource names its own licences and sources; credit each "
                        "source as its attribution says. snapshot.duckdb beside this file holds the same tables "
                        "with the views latest and as_published (docs/data.md)."),
        "profile": "data-package",
        "licenses": licences,
        "sources": [_source_object(s, srcs[s]) for s in sorted(srcs)],
        "x-generator": MARKER,
        "x-snapshot-manifest-sha256": manifest_sha,
        "x-snapshot-format": man.get("format", ""),
        "x-duckdb": DUCKDB_NAME,
        "resources": resources,
    }


# ---------------------------------------------------------------- DuckDB: the views

def _wrong_list() -> str:
    return "[" + ", ".join(f"'{w}'" for w in sorted(tidy.KNOWN_WRONG)) + "]"


def _with_flag(expr: str) -> str:
    return (f"array_to_string(list_sort(list_distinct(list_filter(list_append(string_split({expr}, ';'), "
            f"'{LATER_KNOWN_WRONG}'), lambda x: x <> ''))), ';')")


def latest_sql(relation: str = "observations", order: str = "rowid") -> str:
    """Per series, breakdown member and period, the figure the page shows (``loaders.data.series_rows``): the
    latest release (rows without a release date count as the oldest), the later file on a tie; a figure flagged
    as known to be wrong as printed (``tidy.KNOWN_WRONG``) never replaces another figure of its period, which
    then carries the flag ``later-known-wrong``. ``order`` breaks ties in the snapshot's row order."""
    return f"""
with o as (
    select *, {order} as ord, list_has_any(string_split(flag, ';'), {_wrong_list()}) as known_wrong
    from {relation}),
p as (
    select *,
        bool_or(not known_wrong) over (partition by series, key, date) as period_has_good,
        last_value(known_wrong) over (partition by series, key, date order by release asc nulls first, file, ord
            rows between unbounded preceding and unbounded following) as last_is_wrong
    from o)
select source, series, key, date, "end", value, release,
    case when last_is_wrong and not known_wrong then {_with_flag("flag")} else flag end as flag,
    file
from p
where not known_wrong or not period_has_good
qualify row_number() over (partition by series, key, date
                           order by release desc nulls last, file desc, ord desc) = 1
"""


def as_published_sql(relation: str = "observations", order: str = "rowid") -> str:
    """Every figure with a release date, with ``superseded_on``: the release date of the figure that replaced it
    for its period on the page (NULL while it is the current one). The figures shown as published on day D are
    ``release <= D and (superseded_on is null or superseded_on > D)``. A known-wrong figure never supersedes a
    good one; ``later_known_wrong_on`` is the first release that printed one for the period after this figure
    (from that day the page adds the flag ``later-known-wrong`` to it)."""
    return f"""
with o as (
    select *, {order} as ord, list_has_any(string_split(flag, ';'), {_wrong_list()}) as known_wrong
    from {relation} where release is not null),
s as (
    select *,
        count(*) filter (where not known_wrong) over (w rows between unbounded preceding and 1 preceding)
            as good_before,
        min(release) filter (where not known_wrong) over (w rows between 1 following and unbounded following)
            as next_good_release,
        min(release) filter (where known_wrong) over (w rows between 1 following and unbounded following)
            as next_wrong_release,
        lead(release) over w as next_release
    from o
    window w as (partition by series, key, date order by release, file, ord))
select source, series, key, date, "end", value, release, flag, file,
    case when not known_wrong then next_good_release
         when good_before > 0 then release
         else next_release end as superseded_on,
    case when not known_wrong then next_wrong_release end as later_known_wrong_on
from s
"""


def _comment(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ident(name: str) -> str:
    """``source.table`` -> schema and table; the others live in the main schema."""
    return ".".join('"' + p.replace('"', '""') + '"' for p in name.split(".", 1))


def write_duckdb(path: Path, out_dir: Path, tables: list[Table]) -> None:
    con = duckdb.connect(str(path))
    try:
        for t in tables:
            if "." in t.name:
                con.execute(f"create schema if not exists {_ident(t.name.split('.')[0])}")
            pq_path = str(out_dir / t.path).replace("'", "''")
            con.execute(f"create table {_ident(t.name)} as select * from read_parquet('{pq_path}')")
            con.execute(f"comment on table {_ident(t.name)} is {_comment(t.title + '. ' + t.description)}")
            for f in t.fields:
                text = f.description + (f" Unit: {f.unit}." if f.unit else "")
                con.execute(f"comment on column {_ident(t.name)}.\"{f.name}\" is {_comment(text)}")
        con.execute(f"create view latest as {latest_sql()}")
        con.execute("comment on view latest is " + _comment(
            "Per series, breakdown member and period, the figure the dashboard shows: the latest release held."))
        con.execute(f"create view as_published as {as_published_sql()}")
        con.execute("comment on view as_published is " + _comment(
            "Every figure with a release date and the day it was superseded; as published on D: "
            "release <= D and (superseded_on is null or superseded_on > D)."))
        con.execute("checkpoint")
    finally:
        con.close()


# ---------------------------------------------------------------- the command

def _parquet_bytes(table: pa.Table) -> bytes:
    buf = pa.BufferOutputStream()
    # Fixed settings, no pandas metadata, no timestamps: the same table gives the same bytes.
    pq.write_table(table, buf, compression="zstd", compression_level=3, row_group_size=1 << 20,
                   use_dictionary=True, write_statistics=True, store_schema=True)
    return buf.getvalue().to_pybytes()


def _is_export(folder: Path) -> bool:
    try:
        return json.loads((folder / DATAPACKAGE).read_text("utf-8")).get("x-generator") == MARKER
    except (OSError, ValueError, AttributeError):
        return False


def clean_leftovers(out_dir: Path) -> list[str]:
    """Remove what killed runs of ``export`` into ``out_dir`` left beside it (``.<name>.export-<pid>-*``, 25 MB
    each, and ``.<name>.old-<pid>-*``), and put the previous export back when a run was killed between its two
    renames. A live run's folders are left alone. Returns what was removed."""
    if not out_dir.parent.is_dir():
        return []
    pattern = re.compile(rf"\.{re.escape(out_dir.name)}\.(export|old)-(\d+)-[0-9a-f]+")
    removed = []
    for p in sorted(out_dir.parent.iterdir()):
        m = pattern.fullmatch(p.name)
        if m is None or alive(m[2]) or not p.is_dir() or p.is_symlink():
            continue
        if m[1] == "old" and not out_dir.exists() and _is_export(p):
            os.rename(p, out_dir)
            continue
        shutil.rmtree(p, ignore_errors=True)
        removed.append(str(p))
    return removed


def export(data_dir: Path | str, out_dir: Path | str) -> dict[str, tuple[int, int]]:
    """Write the export of the snapshot in ``data_dir`` into ``out_dir``; returns {file: (rows, bytes)}.

    The export is written beside ``out_dir`` and then moved in: ``out_dir`` holds the previous export or the new
    one, whole. A folder that holds something other than an export is refused (a mistyped ``--out`` must not
    wipe it).
    """
    out_dir = Path(out_dir)
    clean_leftovers(out_dir)
    if out_dir.exists() and (not out_dir.is_dir() or (any(out_dir.iterdir()) and not _is_export(out_dir))):
        raise ExportError(f"{out_dir} is not empty and holds no earlier export (no {DATAPACKAGE} written by "
                          "export-data); choose an empty or new folder")
    gen, man, files = read_generation(data_dir)
    if not man.get("sources"):
        raise ExportError(f"no snapshot in {data_dir}")
    # The checksum of manifest.json as it is on disk, which names every file's checksum in turn.
    manifest_bytes = (gen / MANIFEST).read_bytes()
    if json.loads(manifest_bytes) != man:
        raise ExportError(f"the snapshot in {data_dir} changed while it was read (an update?); run export-data again")
    manifest_sha = sha256(manifest_bytes)
    tables = build_tables(man, files)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.parent / f".{out_dir.name}.export-{os.getpid()}-{secrets.token_hex(4)}"
    tmp.mkdir()
    try:
        written: dict[str, bytes] = {}
        summary: dict[str, tuple[int, int]] = {}
        for t in tables:
            data = written[t.path] = _parquet_bytes(t.data)
            (tmp / t.path).parent.mkdir(parents=True, exist_ok=True)
            (tmp / t.path).write_bytes(data)
            summary[t.path] = (t.data.num_rows, len(data))
        pkg = datapackage(tables, written, man, manifest_sha)
        text = json.dumps(pkg, indent=2, ensure_ascii=False) + "\n"
        (tmp / DATAPACKAGE).write_text(text, "utf-8")
        summary[DATAPACKAGE] = (len(pkg["resources"]), len(text.encode("utf-8")))
        write_duckdb(tmp / DUCKDB_NAME, tmp, tables)
        summary[DUCKDB_NAME] = (len(tables), (tmp / DUCKDB_NAME).stat().st_size)
        old = None
        if out_dir.exists():
            old = out_dir.parent / f".{out_dir.name}.old-{os.getpid()}-{secrets.token_hex(4)}"
            os.rename(out_dir, old)
        os.rename(tmp, out_dir)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        return summary
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
