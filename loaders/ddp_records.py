"""Deportation Data Project: record-level ICE tables (arrests, detainers, removals) aggregated to daily counts.

Publisher: Deportation Data Project (UC Berkeley Law / UCLA CILP), which obtains ICE's record-level tables
under FOIA and republishes them, processed, as ``<table>-latest.parquet`` in its ``ice`` repository (Git
LFS; 37-144 MB each, millions of rows). Licence CC0. Landing page: https://deportationdata.org/data/ice.html
Cadence: irregular, a new release every few months.

None of these files is on this project's machines; the snapshot does not need them. When one is downloaded
(``python -m loaders update ddp_records``) or handed to ``aggregate_records``, DuckDB counts rows per day
straight from the parquet (a single pass with GROUPING SETS), so millions of rows never become a pandas frame.
Only daily counts are stored; 7- and 30-day averages are derived at chart time from them.

Column names. DDP's codebook (``ddp-codebook/ddp_ice_fields_codebook.csv``, a Nov-2025 snapshot of its codebook
page) gives display names only ("Apprehension Date", "Apprehension AOR", "Apprehension Criminality",
"Apprehension Method", "Apprehension State", "Citizenship Country", "Detainer Prepare Date", "Facility AOR",
"Facility State", "Detainer Prepared Criminality", "Departed Date", "Case Criminality"). DDP's processing code
reads ICE's spreadsheets and applies ``janitor::clean_names``, which lower-cases and joins words with "_", so
"Apprehension Date" -> ``apprehension_date``. The names below were then checked against DDP's own scripts in
the ``deportationdata/ice`` repository (read in the public code index): ``code/arrests-latest.R`` (commit
7c03e21..., and a later version that writes ``arrests-latest.parquet``) renames ``aor`` -> ``apprehension_aor``
and ``state`` -> ``apprehension_state_original``, adds ``apprehension_state_filled_in`` (state imputed from the
landmark or AOR where ICE left it blank), ``duplicate_likely`` (every row of an arrest episode: same person,
arrests at most 24 hours apart) and ``duplicate_drop_row`` (every row of such an episode but its first);
``code/detainers-latest.R`` gives ``detainer_prepare_date``, ``facility_aor``, ``facility_state``,
``detainer_prepared_criminality``; the removals script gives ``departed_date``, ``case_aor``, ``apprehension_state``
(renamed from ``state``), ``case_criminality``, ``departure_country`` and ``duplicate_likely`` (same person, same
departure date). Older releases use other names (``apprehension_state``, no ``duplicate_drop_row``), so each
breakdown lists candidate columns in order of preference and the first one present is used; a breakdown with
no column in the file is skipped, never guessed.

Duplicates ("count arrests after dropping rows DDP flags as duplicates"):
1. if the file has ``duplicate_drop_row``, rows where it is true are dropped (DDP's rule: keep the first row of
   each episode; rows without a person identifier are never duplicates);
2. else if it has ``duplicate_likely`` and ``unique_identifier``, one row is kept per person and day among the
   rows marked likely duplicates (exactly DDP's removals rule; for arrests it approximates the 24-hour rule);
   dropping every ``duplicate_likely`` row, as some users do, would drop the first arrest too and undercount;
3. else nothing is dropped and every row is flagged ``with-duplicates``.

Other choices: empty or missing breakdown values are counted under "(not recorded)", so the members of a
breakdown add up to the national count; a day with no records for a member has no row (absent = zero); the
last day in the file is flagged ``partial`` because releases end part-way through a day; rows without a date
are not counted (their number is in ``frame.attrs["counts"]``).
"""
from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from . import tidy
from .base import Series, Source
from .errors import ParseError

ID = "ddp_records"
NOT_RECORDED = "(not recorded)"
BREAKDOWN_TITLES = {"aor": "ICE field office (AOR)", "state": "state", "criminality": "criminality",
                    "method": "apprehension method"}


@dataclass(frozen=True)
class RecordTable:
    """How to count one DDP table: its date column and the columns that give each breakdown."""

    name: str
    metric: str
    noun: str
    date: tuple[str, ...]
    breakdowns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    drop_flag: str = "duplicate_drop_row"
    likely_flag: str = "duplicate_likely"
    person: str = "unique_identifier"
    definition: str = ""


ARRESTS = RecordTable(
    "arrests", "arrests", "ICE administrative arrests",
    date=("apprehension_date", "apprehension_date_time"),
    breakdowns={"aor": ("apprehension_aor",),
                "state": ("apprehension_state_filled_in", "apprehension_state", "apprehension_state_original"),
                "criminality": ("apprehension_criminality",),
                "method": ("apprehension_method",)},
    definition="Administrative arrests made by ICE Enforcement and Removal Operations, counted by arrest date from "
               "ICE's own records, after dropping the rows DDP marks as repeat records of the same arrest. Includes "
               "arrests in jails and prisons (custodial) and in the community (at large); excludes CBP arrests at "
               "the border. Not book-ins into detention: many arrests end without detention.",
)
DETAINERS = RecordTable(
    "detainers", "detainers", "ICE detainers",
    date=("detainer_prepare_date",),
    breakdowns={"aor": ("facility_aor",), "state": ("facility_state",),
                "criminality": ("detainer_prepared_criminality",)},
    definition="Detainers ICE issued to jails and prisons (requests to hold someone or to give notice of release), "
               "counted by the date ICE prepared them. A detainer is a request, not an arrest; the AOR and state "
               "are those of the jail that received it.",
)
REMOVALS = RecordTable(
    "removals", "removals", "ICE removals",
    date=("departed_date",),
    breakdowns={"aor": ("case_aor",), "state": ("apprehension_state", "state"),
                "criminality": ("case_criminality",)},
    definition="Removals (deportations) ICE carried out, counted by departure date, after keeping one row per person "
               "and day. Removals only: returns and CBP expulsions at the border are not here. DDP warns that ICE's "
               "removals tables of some periods are incomplete.",
)
TABLES = {t.name: t for t in (ARRESTS, DETAINERS, REMOVALS)}


def series_id(table: RecordTable, breakdown: str = "") -> str:
    return f"{ID}.{table.name}_daily" + (f"_by_{breakdown}" if breakdown else "")


def declare_series(table: RecordTable) -> list[Series]:
    # Every table counts events (arrests, detainers lodged, removals) per day: flows, which may be summed to
    # weeks or months (the headline's monthly average of daily arrests is such a sum).
    out = [Series(series_id(table), f"{table.noun[:1].upper() + table.noun[1:]} per day (DDP records)", table.metric, "ICE",
                  table.metric, "daily", table.definition, ID, measure="flow")]
    for b in table.breakdowns:
        out.append(Series(series_id(table, b), f"{table.noun[:1].upper() + table.noun[1:]} per day by {BREAKDOWN_TITLES[b]} "
                          "(DDP records)", table.metric, "ICE", table.metric, "daily",
                          table.definition + f" Split by {BREAKDOWN_TITLES[b]} as recorded by ICE; blank values are "
                          f"counted as {NOT_RECORDED!r}.", ID, breakdown=b, measure="flow"))
    return out


SERIES = tuple(s for t in TABLES.values() for s in declare_series(t))


def _quote(col: str) -> str:
    return '"' + col.replace('"', '""') + '"'


def _open(con, path_or_bytes, label: str) -> tuple[str, list[str]]:
    """Make the records queryable as ``records`` without loading them; return (relation, column names)."""
    if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
        try:
            pf = pq.ParquetFile(io.BytesIO(bytes(path_or_bytes)))
        except Exception as e:
            raise ParseError(f"not a readable parquet file ({e})", source=ID, file=label) from None
        reader = pa.RecordBatchReader.from_batches(pf.schema_arrow, pf.iter_batches(batch_size=262_144))
        con.register("records", reader)
        return "records", list(pf.schema_arrow.names)
    path = Path(path_or_bytes)
    try:
        names = list(pq.read_schema(path).names)
    except Exception as e:
        raise ParseError(f"not a readable parquet file ({e})", source=ID, file=label) from None
    return f"read_parquet('{str(path).replace(chr(39), chr(39) * 2)}')", names


def _first_present(candidates: tuple[str, ...], columns: list[str]) -> str | None:
    return next((c for c in candidates if c in columns), None)


def build_sql(table: RecordTable, relation: str, columns: list[str], label: str) -> tuple[str, dict, str]:
    """The single-pass aggregation for this file; returns (sql, breakdown -> column used, dedup rule)."""
    date_col = _first_present(table.date, columns)
    if date_col is None:
        raise ParseError(f"no date column: expected one of {list(table.date)} for the {table.name} table",
                         source=ID, file=label)
    used = {b: c for b, cands in table.breakdowns.items() if (c := _first_present(cands, columns))}
    fields = [f"try_cast({_quote(date_col)} as date) as d"]
    fields += [f"coalesce(nullif(trim(cast({_quote(c)} as varchar)), ''), '{NOT_RECORDED}') as b_{b}"
               for b, c in used.items()]
    if table.drop_flag in columns:
        rule = table.drop_flag
        keep = f"not coalesce(cast({_quote(table.drop_flag)} as boolean), false)"
        fields.append(f"{keep} as keep")
        kept = "select * exclude (keep) from src where keep"
    elif table.likely_flag in columns and table.person in columns:
        rule = f"{table.likely_flag}: one row per {table.person} and day"
        fields.append(f"coalesce(cast({_quote(table.likely_flag)} as boolean), false) as likely")
        fields.append(f"{_quote(table.person)} as person")
        kept = ("select * exclude (likely, person) from src qualify not likely or "
                "row_number() over (partition by d, person order by person) = 1")
    else:
        rule = ""
        kept = "select * from src"
    sets = ", ".join(["(d)"] + [f"(d, b_{b})" for b in used])
    grouping = ", ".join(f"grouping(b_{b}) as g_{b}" for b in used) or "0 as g_none"
    members = ", ".join(f"b_{b}" for b in used)
    sql = f"""
        with src as (select {", ".join(fields)} from {relation}),
             kept as ({kept})
        select d, {grouping}{", " + members if members else ""}, count(*) as n
        from kept where d is not null
        group by grouping sets ({sets})
    """
    return sql, used, rule


def aggregate_records(path_or_bytes, table: RecordTable | str, label: str = "", release: str = "") -> pd.DataFrame:
    """Daily counts (national and per breakdown) of one DDP record-level parquet, as a tidy frame.

    ``path_or_bytes`` is a parquet file path or its bytes; ``table`` a ``RecordTable`` or its name.
    ``frame.attrs["counts"]`` records rows read, rows dropped as duplicates and rows without a date.
    """
    table = TABLES[table] if isinstance(table, str) else table
    label = label or (str(path_or_bytes) if not isinstance(path_or_bytes, (bytes, bytearray)) else table.name)
    con = duckdb.connect()
    try:
        return _aggregate(con, path_or_bytes, table, label, release)
    finally:
        # Closed here, on errors too: a connection left to interpreter exit with a thread still reading the
        # registered Arrow stream aborted the process after its error was printed ("terminate called without
        # an active exception", rc=134).
        con.close()


def _aggregate(con, path_or_bytes, table: RecordTable, label: str, release: str) -> pd.DataFrame:
    relation, columns = _open(con, path_or_bytes, label)
    sql, used, rule = build_sql(table, relation, columns, label)
    try:
        agg = con.sql(sql).df()
    except duckdb.Error as e:
        raise ParseError(f"could not aggregate the {table.name} table ({e})", source=ID, file=label) from None
    if agg.empty:
        raise ParseError(f"no dated rows in the {table.name} table", source=ID, file=label)
    # Dates as ISO text in one vectorised step: tens of thousands of rows formatted one by one cost seconds.
    d = pd.to_datetime(agg["d"])
    agg["d"] = d.dt.strftime("%Y-%m-%d").astype(object)
    last = agg["d"].max()
    flag = "" if rule else "with-duplicates"
    parts = []
    for b in [""] + list(used):
        if b:
            sel = agg[agg[f"g_{b}"] == 0]
            for other in used:
                if other != b:
                    sel = sel[sel[f"g_{other}"] == 1]
            key = sel[f"b_{b}"]
        else:
            sel = agg[(agg[[f"g_{o}" for o in used]] == 1).all(axis=1)] if used else agg
            key = ""
        parts.append(pd.DataFrame({"series": series_id(table, b), "key": key, "date": sel["d"], "value": sel["n"]}))
    out = pd.concat(parts, ignore_index=True)
    is_last = (out["date"] == last).to_numpy()
    last_flag = ";".join(sorted(x for x in (flag, "partial") if x))
    out["flag"] = np.where(is_last, last_flag, flag).astype(object)
    out["release"] = release or last
    out["file"] = label if not label.startswith("/") else Path(label).name
    out["key"] = out["key"].fillna("").astype(str).astype(object)
    out["end"] = out["date"]
    out = tidy.sort_canonical(tidy.frame(out))
    out.attrs["counts"] = _counts(con, relation, table, columns, rule, agg)
    out.attrs["columns_used"] = {"date": _first_present(table.date, columns), **used, "duplicates": rule}
    return out


def _counts(con, relation: str, table: RecordTable, columns: list[str], rule: str, agg: pd.DataFrame) -> dict:
    national = agg
    for c in agg.columns:
        if c.startswith("g_") and c != "g_none":
            national = national[national[c] == 1]
    counted = int(national["n"].sum())
    if relation == "records":  # a stream is consumed once; what is known is what was counted
        return {"counted": counted, "duplicate_rule": rule}
    date_col = _first_present(table.date, columns)
    if date_col is None:  # build_sql refuses such a file before its rows are counted
        raise ParseError(f"no date column: expected one of {list(table.date)} for the {table.name} table", source=ID)
    ((rows, undated),) = con.sql(f"select count(*), count(*) filter (where try_cast({_quote(date_col)} as date) is null) "
                                 f"from {relation}").fetchall()
    return {"rows": int(rows), "undated": int(undated), "counted": counted,
            "dropped_duplicates": int(rows) - int(undated) - counted, "duplicate_rule": rule}


def table_for(name: str) -> RecordTable:
    """Which table a downloaded file holds, from DDP's file name (``arrests-latest.parquet``...)."""
    m = re.match(r"(arrests|detainers|removals)\b", Path(name).name.lower())
    if not m:
        raise ParseError(f"cannot tell which DDP table this is from its name; expected one of {sorted(TABLES)}",
                         source=ID, file=name)
    return TABLES[m[1]]


def parse(content: bytes, name: str = "") -> pd.DataFrame:
    return aggregate_records(content, table_for(name), label=name)


BASE = "https://github.com/deportationdata/ice/raw/refs/heads/main/data/"
class _Facts(TypedDict):
    publisher: str
    landing_page: str
    licence: str
    cadence: str
    cadence_days: int


# What every source built from DDP's ICE releases shares.
DDP_FACTS = _Facts(
    publisher="Deportation Data Project (UC Berkeley Law / UCLA Center for Immigration Law and Policy)",
    landing_page="https://deportationdata.org/data/ice.html",
    licence="CC0 1.0 (public domain dedication)",
    cadence="irregular, with each DDP release of ICE FOIA data (every few months)",
    cadence_days=180,
)
SOURCE = Source(
    id=ID,
    title="Deportation Data Project: ICE arrests, detainers and removals, record level (daily counts)",
    **DDP_FACTS,
    release_dated="data date",
    release_rule="the last date in the records (DDP's release date is not in the file)",
    parse=parse,
    series=SERIES,
    raw_globs=(f"{ID}/*.parquet",),
    download_urls=tuple(f"{BASE}{t}-latest.parquet" for t in TABLES),
    allowed_hosts=("github.com", "media.githubusercontent.com", "objects.githubusercontent.com"),
    max_bytes=400_000_000,
    max_rows=200_000_000,  # streamed through DuckDB in batches, never loaded whole
    optional_raw=True,  # record-level files are too big for the bundled snapshot's raw folder
    attribution="Source: Deportation Data Project (deportationdata.org), from ICE records released under FOIA",
    extra={"file_kind": "parquet", "streamed": True},  # read in batches: each row group's decoded size bounded
)
