"""Small valid raw files for every registered source, and generic ways to break them.

The fault and fuzz tests run over ``loaders.registry.SOURCES``, so a new source is covered the day it is
registered. Each needs one small valid file to start from:
- a builder in ``BUILDERS`` (small files with the real layout, so the tests run everywhere), a ``sample()`` in
  the source's own test module, or a curated file that lives in the project (``Source.project_files``);
  ``tests/test_fault_samples.py`` requires one of them for every registered source. Samples never come from
  ../shared/data (they once could, as a stopgap for a source without a builder; no source had used it since
  every one got a builder), so what these tests check is the same with or without the real files, and CI's
  second run, which has none, need not repeat them (tests/shared_deps.py).

The mutations below change a file the way publishers do (renamed sheets, moved tables, reordered columns,
missing fields, nulls, junk values) and are written once per file kind, not per source.
"""
from __future__ import annotations

import csv
import functools
import importlib
import io
import json
import re
import zipfile
from pathlib import Path

from loaders import pipeline, registry
from loaders.base import Source

ROOT = Path(__file__).resolve().parent.parent
MAX_SAMPLE_BYTES = 2_000_000  # keep the tests quick: a bigger project file is no sample


# ---------------------------------------------------------------- builders for sources with no small real file

def trac_detention_sample() -> tuple[str, bytes]:
    recs = [
        {"date": "09/21/2025", "ice_all": 46015, "cbp_all": 13747, "total_all": 59762, "ice_other": 1, "cbp_other": 2,
         "total_other": 3, "ice_pend": 4, "cbp_pend": 5, "total_pend": 9, "ice_conv": 46010, "cbp_conv": 13740,
         "total_conv": 59750},
        {"date": "01/26/2025", "ice_all": 14882, "cbp_all": 24356, "total_all": 39238, "ice_other": 10, "cbp_other": 20,
         "total_other": 30, "ice_pend": 40, "cbp_pend": 50, "total_pend": 90, "ice_conv": 14832, "cbp_conv": 24286,
         "total_conv": 39118},
    ]
    return "pop_agen_table.json", json.dumps(recs).encode()


def ddp_records_sample() -> tuple[str, bytes]:
    """A few rows in the layout of DDP's arrests-latest.parquet (the real files are 37-144 MB)."""
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq
    days = [dt.date(2025, 3, 1), dt.date(2025, 3, 1), dt.date(2025, 3, 2), dt.date(2025, 3, 3)]
    table = pa.table({
        "apprehension_date": pa.array(days, pa.date32()),
        "apprehension_aor": ["Miami Area of Responsibility", "Dallas Area of Responsibility",
                             "Miami Area of Responsibility", None],
        "apprehension_state_filled_in": ["FLORIDA", "TEXAS", "FLORIDA", ""],
        "apprehension_criminality": ["1 Convicted Criminal", "3 Other Immigration Violator",
                                     "2 Pending Criminal Charges", "1 Convicted Criminal"],
        "apprehension_method": ["Located", "CAP Local Incarceration", "Located", "Non-Custodial Arrest"],
        "unique_identifier": ["P1", "P2", "P1", None],
        "duplicate_likely": pa.array([False, False, False, None], pa.bool_()),
        "duplicate_drop_row": pa.array([False, False, False, None], pa.bool_()),
    })
    out = io.BytesIO()
    pq.write_table(table, out)
    return "arrests-latest.parquet", out.getvalue()


def ddp_facility_daily_sample() -> tuple[str, bytes]:
    """DDP's facility-day table layout (the real file is 1.3 MB): two facilities over two months."""
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq
    days = [dt.date(2025, 1, 30) + dt.timedelta(days=i) for i in range(5)]
    n = len(days)
    i32 = pa.int32()
    table = pa.table({
        "detention_facility_code": ["STEWART"] * n + ["ADAMSMS"] * n,
        "date": pa.array(days * 2, pa.date32()),
        "n_detained": pa.array([1800 + i for i in range(n)] + [2100 - i for i in range(n)], i32),
        "n_detained_at_midnight": pa.array([1750 + i for i in range(n)] + [2050 - i for i in range(n)], i32),
        "n_detained_male": pa.array([1700] * n + [2000] * n, i32),
        "n_detained_female": pa.array([100] * n + [90] * n, i32),
        "n_detained_convicted_criminal": pa.array([600] * n + [700] * n, i32),
        "n_detained_possibly_under_18": pa.array([0] * n + [1] * n, i32),
        "detention_facility": ["STEWART DETENTION CENTER"] * n + ["ADAMS COUNTY DET CENTER"] * n,
    })
    out = io.BytesIO()
    pq.write_table(table, out)
    return "facilities-daily-population-latest.parquet", out.getvalue()


def ohss_monthly_sample() -> tuple[str, bytes]:
    """The OHSS tables' own test builder (the real workbook is 670 KB: too slow to rewrite per case)."""
    from tests import test_ohss_monthly as t
    return t.NAME, t.small_workbook()


def ohss_khsm_sample() -> tuple[str, bytes]:
    from tests import test_ohss_khsm as t
    return t.NAME, t.khsm_workbook()


def cbp_encounters_sample() -> tuple[str, bytes]:
    """The Southwest border file (CRLF, no quoting): a rolling four-fiscal-year window through August, the running
    year labelled "2025 (FYTD)", September of earlier years grouped "Remaining", Title 42 expulsions until FY2023."""
    from tests.test_cbp_encounters import SWB_HEADER, csv_bytes
    usbp, ofo = "U.S. Border Patrol", "Office of Field Operations"
    # (fiscal year, month, component, demographic, citizenship group, title, encounter type, count): rows of
    # the FY22-FY25 (through August) file
    rows = [
        (2022, "OCT", ofo, "Accompanied Minors", "Mexico", "Title 42", "Expulsions", 112),
        (2022, "OCT", usbp, "Single Adults", "Mexico", "Title 42", "Expulsions", 56733),
        (2022, "OCT", usbp, "FMUA", "Honduras", "Title 8", "Apprehensions", 4296),
        (2022, "SEP", usbp, "UAC", "Guatemala", "Title 8", "Apprehensions", 4442),
        (2023, "MAY", ofo, "Single Adults", "Other", "Title 8", "Inadmissibles", 11255),
        (2023, "MAY", usbp, "Single Adults", "Mexico", "Title 42", "Expulsions", 15214),
        (2024, "JAN", usbp, "Single Adults", "Other", "Title 8", "Apprehensions", 35681),
        (2024, "SEP", ofo, "FMUA", "El Salvador", "Title 8", "Inadmissibles", 380),
        (2025, "JAN", usbp, "Single Adults", "Mexico", "Title 8", "Apprehensions", 9189),
        (2025, "JAN", ofo, "UAC", "Guatemala", "Title 8", "Inadmissibles", 45),
        (2025, "JUL", usbp, "Single Adults", "Mexico", "Title 8", "Apprehensions", 2611),
        (2025, "AUG", usbp, "FMUA", "Other", "Title 8", "Apprehensions", 155),
        (2025, "AUG", ofo, "Accompanied Minors", "Mexico", "Title 8", "Inadmissibles", 62),
    ]
    return "sbo-encounters-fy22-fy25-aug.csv", csv_bytes(SWB_HEADER, [
        ["2025 (FYTD)" if fy == 2025 else str(fy), "Remaining" if month == "SEP" else "FYTD", month, *rest]
        for fy, month, *rest in rows])


def ice_detention_stats_sample() -> tuple[str, bytes]:
    """A FY2025 release from the ICE workbook factory (every table the parser reads, found by its title)."""
    import datetime as dt

    from tests.ice_workbook_factory import Release, build
    rel = Release("FY25_detentionStats03052025.xlsx", 2025, dt.date(2025, 2, 18), dt.date(2025, 2, 22),
                  ice=22622, cbp=21137)
    return rel.name, build(rel)


# (SUMLEV, REGION, DIVISION, STATE, NAME, ESTIMATESBASE2020, POPESTIMATE2020 ... POPESTIMATE2025): Vintage 2025
# figures for the nation, one region, one division and four states (Puerto Rico's region and division are "X").
_CENSUS_ROWS = [
    ("010", "0", "0", "00", "United States", 331516113, 331578104, 332100166, 333996304, 336755052, 340003797, 341784857),
    ("020", "3", "0", "00", "South Region", 126281605, 126473371, 127380165, 129066102, 130894372, 132662072, 133833983),
    ("030", "3", "6", "00", "East South Central", 19405307, 19427354, 19472696, 19602668, 19763302, 19948564, 20069188),
    ("040", "3", "6", "01", "Alabama", 5025437, 5032962, 5050058, 5076868, 5117850, 5163055, 5193088),
    ("040", "3", "6", "28", "Mississippi", 2961264, 2958385, 2947603, 2941237, 2942470, 2950172, 2954160),
    ("040", "3", "7", "48", "Texas", 29149498, 29237895, 29572672, 30118002, 30719247, 31318578, 31709821),
    ("040", "X", "X", "72", "Puerto Rico", 3285874, 3281591, 3262731, 3220148, 3203794, 3202521, 3184835),
]


def census_sample() -> tuple[str, bytes]:
    """NST-EST2025-ALLDATA.csv: all 97 columns of the real header (CRLF); the components of change are made up
    to add up (change = natural change + net migration + residual), the parser reads only the populations."""
    years = range(2020, 2026)
    parts = ["NPOPCHG_", "BIRTHS", "DEATHS", "NATURALCHG", "INTERNATIONALMIG", "DOMESTICMIG", "NETMIG", "RESIDUAL"]
    rates = ["RBIRTH", "RDEATH", "RNATURALCHG", "RINTERNATIONALMIG", "RDOMESTICMIG", "RNETMIG"]
    header = (["SUMLEV", "REGION", "DIVISION", "STATE", "NAME", "ESTIMATESBASE2020"]
              + [f"POPESTIMATE{y}" for y in years] + [f"{p}{y}" for p in parts for y in years]
              + ["GQESTIMATESBASE2020"] + [f"GQESTIMATES{y}" for y in years]
              + [f"{r}{y}" for r in rates for y in years[1:]])
    rows = []
    for row in _CENSUS_ROWS:
        codes, base, pop = list(row[:5]), row[5], list(row[6:])
        change = [b - a for a, b in zip([base] + pop, pop)]
        births, deaths = [p * 11 // 1000 for p in pop], [p * 10 // 1000 for p in pop]
        natural = [b - d for b, d in zip(births, deaths)]
        intl, dom = [p * 4 // 1000 for p in pop], [0 if codes[0] != "040" else -p // 1000 for p in pop]
        net = [i + d for i, d in zip(intl, dom)]
        resid = [c - n - m for c, n, m in zip(change, natural, net)]
        comps = [change, births, deaths, natural, intl, dom, net, resid]
        gq = [base * 25 // 1000] + [p * 25 // 1000 for p in pop]
        per_1000 = [round(v / p * 1000, 9) for series in (births, deaths, natural, intl, dom, net)
                    for v, p in zip(series[1:], pop[1:])]
        rows.append([*codes, base, *pop, *(v for c in comps for v in c), *gq, *per_1000])
    return "NST-EST2025-ALLDATA.csv", _crlf_csv([header] + rows)


_REGISTRY_FIELDS = [  # after ``address``, in the release's order: each with _agreement and _n_sources companions
    "adpLevelA", "adpLevelB", "adpLevelC", "adpLevelD", "adpTotal", "agreement", "authorizingAuthority",
    "avgLengthOfStayDays", "capacity", "circuit", "county", "docket", "facilityFunction", "femaleCrim",
    "femaleNonCrim", "fieldOffice", "firstUsed", "genderServed", "guaranteedMinimumBeds", "holdsOver72h",
    "iceThreatLevel1", "iceThreatLevel2", "iceThreatLevel3", "immigrationCourt", "lastFinalRating",
    "lastInspectionEndDate", "lastInspectionStandard", "lastInspectionType", "lastUsed", "maleCrim", "maleNonCrim",
    "mandatory", "noIceThreatLevel", "phone", "underDetentionStandards"]


def facility_registry_sample() -> tuple[str, bytes]:
    """release-<version>_facilities.csv (LF, 115 columns): a facility with ICE's code and an ADP from the July
    2026 sheet, one with two candidate counties, one known only from ICE's sheet (``biweekly-<slug>`` id)."""
    head = ["id", "kind", "primary_name", "name_agreement", "county_fips", "county_names", "states", "address",
            "address_agreement", "address_n_sources"]
    header = head + [f"{f}{suffix}" for f in _REGISTRY_FIELDS for suffix in ("", "_agreement", "_n_sources")]
    facilities = [
        ({"id": "ADAMSMS", "primary_name": "ADAMS COUNTY CORRECTIONAL CENTER", "county_fips": "28001",
          "county_names": "Adams County, MS", "states": "MS", "address": "20 HOBO FORK RD., NATCHEZ, MS 39120"},
         {"adpLevelA": "1505.7", "adpLevelB": "227.8", "adpLevelC": "84", "adpLevelD": "60.7", "adpTotal": "1878.2",
          "agreement": "DIGSA", "capacity": "2232", "county": "Adams", "fieldOffice": "NOL",
          "firstUsed": "10/30/2008", "genderServed": "Male", "guaranteedMinimumBeds": "1436"}),
        ({"id": "ABTHOLD", "primary_name": "ABILENE HOLD ROOM", "county_fips": "48059|48253|48417|48441",
          "county_names": "Taylor County, TX|Jones County, TX|Callahan County, TX|Shackelford County, TX",
          "states": "TX", "address": "12071 FM 3522, ABILENE, TX 79601"},
         {"agreement": "Other", "authorizingAuthority": "DMCP", "circuit": "5", "county": "ABILENE",
          "facilityFunction": "HOLD", "fieldOffice": "DAL", "firstUsed": "5/26/2009", "lastUsed": "10/24/2017"}),
        ({"id": "biweekly-dilley-immigration-processing-center", "primary_name": "DILLEY IMMIGRATION PROCESSING CENTER",
          "county_fips": "48163|48283", "county_names": "Frio County, TX|La Salle County, TX", "states": "TX",
          "address": "300 EL RANCHO WAY, DILLEY, TX 78017"},
         {"adpTotal": "425.8", "agreement": "FAMILY", "fieldOffice": "SNA", "firstUsed": "12/15/2014",
          "genderServed": "Female/Male", "guaranteedMinimumBeds": "2000", "lastInspectionEndDate": "2026-04-09"}),
    ]
    rows = [header]
    for ident, values in facilities:
        rec = {"kind": "detention", "name_agreement": "single", "address_agreement": "single",
               "address_n_sources": "1", **ident}
        for f, v in values.items():
            rec.update({f: v, f"{f}_agreement": "single", f"{f}_n_sources": "1"})
        rows.append([rec.get(h, "") for h in header])
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return "release-2026.07.25_facilities.csv", out.getvalue().encode()


def deaths_in_custody_sample() -> tuple[str, bytes]:
    from tests import test_deaths_in_custody as t
    return t.NAME, t.csv_bytes(t.sample_rows())


def ddp_arrests_aggregates_sample() -> tuple[str, bytes]:
    """KUT News' monthly chart data (CRLF): national, Texas and Austin-area arrests per calendar month, January to
    April 2025 as the chart gives them."""
    rows = [["month_start", "national", "texas", "austin_area"],
            ["2025-01-01", "12174", "3011", "237"], ["2025-02-01", "17135", "4009", "370"],
            ["2025-03-01", "18616", "4202", "383"], ["2025-04-01", "17641", "3896", "424"]]
    return "monthly_arrests_national_texas_austin_oct2022_jul2026.csv", _crlf_csv(rows)


def _crlf_csv(rows) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerows(rows)
    return out.getvalue().encode()


BUILDERS = {
    "trac_detention": trac_detention_sample,
    "ddp_records": ddp_records_sample,
    "ddp_facility_daily": ddp_facility_daily_sample,
    "ohss_monthly_tables": ohss_monthly_sample,
    "ohss_khsm": ohss_khsm_sample,
    "cbp_encounters": cbp_encounters_sample,
    "ice_detention_stats": ice_detention_stats_sample,
    "census": census_sample,
    "facility_registry": facility_registry_sample,
    "deaths_in_custody": deaths_in_custody_sample,
    "ddp_arrests_aggregates": ddp_arrests_aggregates_sample,
}


def snapshot_bytes(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*"))
            if p.is_file() and p.name != ".update.lock"}


def leftovers(root: Path) -> list[str]:
    """Temporary files of a download or a write, and staging folders of an update."""
    return [str(p) for p in root.rglob("*") if p.name.endswith(".part") or p.name.startswith(".incoming-")]


# ---------------------------------------------------------------- finding a sample

def kind_of(src: Source, name: str) -> str:
    """The file kind the download code checks a body against (same rule as ``pipeline.update``)."""
    return src.extra.get("file_kind") or pipeline.file_kind(name)


def discovers(src: Source) -> bool:
    """True when the source finds its URLs at run time (e.g. by reading a landing page)."""
    from loaders.base import _no_discovery
    return src.discover is not _no_discovery


def downloadable(src: Source) -> bool:
    return src.downloadable


@functools.lru_cache(maxsize=None)
def sample(source_id: str) -> tuple[str, bytes] | None:
    """(file name, bytes) of a small valid file for the source, or None when none can be had here."""
    if source_id in BUILDERS:
        return BUILDERS[source_id]()
    own = own_builder(source_id)
    if own is not None:
        return own()
    src = registry.get(source_id)
    # Curated files that live in the project (e.g. data/reported_figures.csv) are always at hand.
    files = [ROOT / rel for rel in src.project_files if (ROOT / rel).is_file()]
    files = [p for p in files if p.stat().st_size <= MAX_SAMPLE_BYTES]
    for p in sorted(files, key=lambda p: (p.stat().st_size, p.name)):
        content = p.read_bytes()
        try:
            pipeline.parse_file(src, content, p.name)
        except Exception:  # a real file that does not parse on its own is not a usable start
            continue
        return p.name, content
    return None


def own_builder(source_id: str):
    """A source added since (docs/contributing.md, "Adding a source") brings its sample as ``sample()`` in its own
    test module, ``tests/test_<source id>.py``."""
    try:
        own = importlib.import_module(f"tests.test_{source_id}")
    except ModuleNotFoundError:
        return None
    return getattr(own, "sample", None) if callable(getattr(own, "sample", None)) else None


def why_no_sample(source_id: str) -> str:
    return (f"no builder for {source_id} in tests/fault_samples.py, no sample() in tests/test_{source_id}.py and "
            f"no project file under {MAX_SAMPLE_BYTES:,} bytes that parses")


# ---------------------------------------------------------------- XLSX mutations (openpyxl, whole sheets)

def _xlsx_edit(content: bytes, edit) -> bytes:
    from openpyxl import load_workbook
    wb = load_workbook(io.BytesIO(content))
    edit(wb)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def xlsx_rename_sheets(content: bytes) -> bytes:
    def edit(wb):
        for i, ws in enumerate(wb.worksheets):
            ws.title = f"Renamed {i + 1}"
    return _xlsx_edit(content, edit)


def xlsx_shift_tables(content: bytes) -> bytes:
    """Every table moves 5 rows down and 2 columns right, as when a publisher adds a banner or a column."""
    def edit(wb):
        for ws in wb.worksheets:
            ws.insert_rows(1, 5)
            ws.insert_cols(1, 2)
    return _xlsx_edit(content, edit)


def xlsx_drop_tables(content: bytes) -> bytes:
    """Every sheet emptied: the tables the parser looks for are gone."""
    def edit(wb):
        for ws in wb.worksheets:
            ws.delete_rows(1, ws.max_row)
    return _xlsx_edit(content, edit)


def xlsx_swap_columns(content: bytes) -> bytes:
    """Columns swapped pairwise, headers with them (B<->C, E<->F, ...)."""
    def edit(wb):
        for ws in wb.worksheets:
            for rng in list(ws.merged_cells.ranges):
                ws.unmerge_cells(str(rng))
            for row in ws.iter_rows():
                cells = list(row)
                for a in range(1, len(cells) - 1, 3):
                    cells[a].value, cells[a + 1].value = cells[a + 1].value, cells[a].value
    return _xlsx_edit(content, edit)


def xlsx_corrupt_member(content: bytes) -> bytes:
    """A readable zip whose worksheet XML is garbage (a half-written or mangled file)."""
    src = zipfile.ZipFile(io.BytesIO(content))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            data = src.read(info)
            if info.filename.startswith("xl/worksheets/") and info.filename.endswith(".xml"):
                data = b"<worksheet><sheetData><row r=\"1\"><c r=\"A1\" t=\"s\"><v>99999" + b"\x00\xff" * 50
            z.writestr(info, data)
    return out.getvalue()


def zip_bomb(member: str = "xl/worksheets/sheet1.xml", size: int = 30_000_000) -> bytes:
    """A valid zip whose one member inflates ~1000x (30 MB of zeros from ~30 KB)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", b"<Types/>")
        z.writestr(member, b"0" * size)
    return out.getvalue()


# ---------------------------------------------------------------- JSON mutations

def _records(data):
    """The first list of objects in a JSON document (the table), or None."""
    if isinstance(data, list) and data and all(isinstance(r, dict) for r in data):
        return data
    if isinstance(data, dict):
        for v in data.values():
            found = _records(v)
            if found is not None:
                return found
    return None


def _json_edit(content: bytes, edit) -> bytes | None:
    data = json.loads(content.decode("utf-8-sig"))
    recs = _records(data)
    if not recs:
        return None
    edit(recs)
    return json.dumps(data).encode()


def json_drop_field(content: bytes) -> bytes | None:
    """The first field of the records is gone from every record (a renamed or removed column)."""
    def edit(recs):
        first = next(iter(recs[0]))
        for r in recs:
            r.pop(first, None)
    return _json_edit(content, edit)


def json_all_nulls(content: bytes) -> bytes | None:
    def edit(recs):
        for r in recs:
            for k in r:
                r[k] = None
    return _json_edit(content, edit)


def json_wrong_types(content: bytes) -> bytes | None:
    """Every value of the first record becomes a nested object (a publisher changing the schema)."""
    def edit(recs):
        for k in recs[0]:
            recs[0][k] = {"value": recs[0][k]}
    return _json_edit(content, edit)


# ---------------------------------------------------------------- CSV mutations

_DATE = re.compile(r"^\s*(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{4}-\d{2}|[A-Za-z]{3,9}[ -]\d{2,4})\s*$")
_NUMBER = re.compile(r"^\s*-?[\d,]+(\.\d+)?\s*$")


def _csv_rows(content: bytes) -> tuple[list[list[str]], str]:
    text = content.decode("utf-8-sig")
    return list(csv.reader(io.StringIO(text))), text


def _csv_write(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def _header_index(rows: list[list[str]]) -> int:
    """The header row: the first row with at least two non-empty cells (some files start with notes)."""
    for i, r in enumerate(rows):
        if sum(1 for c in r if c.strip()) >= 2:
            return i
    return 0


def _replace_column(content: bytes, pattern: re.Pattern, bad: str, skip_years: bool = False) -> bytes | None:
    """Replace every cell of the first column whose data cells all match ``pattern`` with ``bad``."""
    rows, _ = _csv_rows(content)
    h = _header_index(rows)
    data = [r for r in rows[h + 1:] if any(c.strip() for c in r)]
    if not data:
        return None
    for col in range(len(rows[h])):
        vals = [r[col] for r in data if col < len(r) and r[col].strip()]
        if not vals or not all(pattern.match(v) for v in vals):
            continue
        if skip_years and all(re.fullmatch(r"\s*(19|20)\d{2}\s*", v) for v in vals):
            continue
        target = next(i for i, r in enumerate(rows) if i > h and col < len(r) and r[col].strip())
        rows[target][col] = bad
        return _csv_write(rows)
    return None


_MONTH = re.compile(r"^\s*(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\s*$", re.I)
_YEAR = re.compile(r"^\s*(FY)?\s*(19|20)\d{2}\s*$")


def csv_bad_date(content: bytes) -> bytes | None:
    """A date that does not exist; where dates are split into year and month columns, a month that does not."""
    return (_replace_column(content, _DATE, "2025-13-45") or _replace_column(content, _MONTH, "Smarch")
            or _replace_column(content, _YEAR, "20x5"))


def csv_bad_number(content: bytes) -> bytes | None:
    return _replace_column(content, _NUMBER, "12x3", skip_years=True)


def csv_drop_first_column(content: bytes) -> bytes | None:
    rows, _ = _csv_rows(content)
    return _csv_write([r[1:] for r in rows])


def csv_swap_columns(content: bytes) -> bytes | None:
    """The first two columns swapped, header with them."""
    rows, _ = _csv_rows(content)
    out = [([r[1], r[0]] + r[2:]) if len(r) >= 2 else r for r in rows]
    return _csv_write(out)


# ---------------------------------------------------------------- Parquet mutations

def _parquet_edit(content: bytes, edit) -> bytes:
    import pyarrow.parquet as pq
    t = pq.read_table(io.BytesIO(content))
    t = edit(t)
    out = io.BytesIO()
    pq.write_table(t, out)
    return out.getvalue()


def parquet_drop_first_column(content: bytes) -> bytes:
    return _parquet_edit(content, lambda t: t.drop_columns([t.column_names[0]]))


def parquet_reverse_columns(content: bytes) -> bytes:
    return _parquet_edit(content, lambda t: t.select(list(reversed(t.column_names))))


def parquet_all_nulls(content: bytes) -> bytes:
    import pyarrow as pa
    return _parquet_edit(content, lambda t: pa.table({n: pa.nulls(len(t), t.schema.field(n).type)
                                                      for n in t.column_names}))


def parquet_all_text(content: bytes) -> bytes:
    """Every column written as text (a re-export through a CSV step loses the types)."""
    import pyarrow as pa
    return _parquet_edit(content, lambda t: pa.table({n: pa.array([None if v is None else str(v)
                                                                   for v in t.column(n).to_pylist()], pa.string())
                                                      for n in t.column_names}))


# (name, kind, mutation, what a tolerant parser must produce: "same" = the original's rows, "valid" = any
# valid frame; otherwise it must raise a LoaderError naming the file)
MUTATIONS = [
    ("renamed sheet", "xlsx", xlsx_rename_sheets, "same"),
    ("shifted tables", "xlsx", xlsx_shift_tables, "same"),
    ("missing tables", "xlsx", xlsx_drop_tables, "error"),
    ("swapped columns", "xlsx", xlsx_swap_columns, "same"),
    ("corrupt worksheet XML", "xlsx", xlsx_corrupt_member, "error"),
    ("JSON field missing", "json", json_drop_field, "same"),
    ("JSON nulls", "json", json_all_nulls, "valid"),
    ("JSON wrong types", "json", json_wrong_types, "error"),
    ("CSV bad date", "csv", csv_bad_date, "error"),
    ("CSV bad number", "csv", csv_bad_number, "error"),
    ("CSV column missing", "csv", csv_drop_first_column, "same"),
    ("CSV swapped columns", "csv", csv_swap_columns, "same"),
    ("Parquet column missing", "parquet", parquet_drop_first_column, "same"),
    ("Parquet columns reordered", "parquet", parquet_reverse_columns, "same"),
    ("Parquet nulls", "parquet", parquet_all_nulls, "valid"),
    ("Parquet columns as text", "parquet", parquet_all_text, "valid"),
]
