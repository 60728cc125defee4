"""Small valid raw files for every registered source, and generic ways to break them.

The fault and fuzz tests run over ``loaders.registry.SOURCES``, so a new source is covered the day it is
registered. Each needs one small valid file to start from:
- a builder in ``BUILDERS`` (small files with the real layout, so the tests run everywhere), or
- the smallest real file under ../shared/data that the source's ``raw_globs`` match (tests that need it skip
  with a reason when the folder is absent).

The mutations below change a file the way publishers do (renamed sheets, moved tables, reordered columns,
missing fields, nulls, junk values) and are written once per file kind, not per source.
"""
from __future__ import annotations

import csv
import functools
import io
import json
import os
import re
import zipfile
from pathlib import Path

from loaders import pipeline, registry
from loaders.base import Source

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SHARED_DATA") or ROOT.parent / "shared" / "data")  # as tests/conftest.py
MAX_SAMPLE_BYTES = 2_000_000  # keep the tests quick: a source whose smallest real file is bigger needs a builder


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


BUILDERS = {
    "trac_detention": trac_detention_sample,
    "ddp_records": ddp_records_sample,
    "ddp_facility_daily": ddp_facility_daily_sample,
    "ohss_monthly_tables": ohss_monthly_sample,
    "ohss_khsm": ohss_khsm_sample,
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
    src = registry.get(source_id)
    # Curated files that live in the project (e.g. data/reported_figures.csv) are always at hand.
    files = [ROOT / rel for rel in src.project_files if (ROOT / rel).is_file()]
    if SHARED.is_dir():
        files += [p for p in pipeline.find_raw_files(src, SHARED) if SHARED in p.parents]
    files = [p for p in files if p.stat().st_size <= MAX_SAMPLE_BYTES]
    for p in sorted(files, key=lambda p: (ROOT not in p.parents, p.stat().st_size, p.name)):
        content = p.read_bytes()
        try:
            pipeline.parse_file(src, content, p.name)
        except Exception:  # a real file that does not parse on its own is not a usable start
            continue
        return p.name, content
    return None


def why_no_sample(source_id: str) -> str:
    if not SHARED.is_dir():
        return f"no builder for {source_id} in tests/fault_samples.py and {SHARED} is absent"
    return f"no builder for {source_id} and no real file under {MAX_SAMPLE_BYTES:,} bytes that parses"


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
