"""Property tests (hypothesis) of every registered parser and of the events validator.

The promise (loaders/errors.py): whatever bytes a parser is given, it either returns rows that pass
``tidy.validate`` or raises the project's own ``LoaderError`` naming the file. Anything else escaping a parser
is a bug. The parser is called directly, not through ``pipeline.parse_file``, whose catch-all would hide it.
Inputs: arbitrary bytes, and mutations of a small valid sample (truncation, byte flips, inserted junk rows).
"""
from __future__ import annotations

import contextlib
import io
import zipfile

import pandas as pd
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from loaders import registry, tidy
from loaders.base import Parsed
from loaders.errors import LoaderError, ValidationError
from tests import fault_samples as fs

SOURCE_IDS = sorted(registry.SOURCES)
# No shrinking: on a 130 KB workbook it takes minutes; the failing example is printed as found.
FUZZ = settings(max_examples=80, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
FEW = settings(FUZZ, max_examples=25)  # for parsers that take ~0.1 s a file (workbooks, parquet)


def check_parser(sid: str, content: bytes, name: str) -> None:
    """Parse; the result must validate, or the failure must be a LoaderError that names the file."""
    src = registry.get(sid)
    try:
        out = src.parse(content, name)
    except LoaderError as e:
        assert e.file == name or name in str(e), f"{sid}: error does not name the file: {e}"
        return
    assert isinstance(out, (pd.DataFrame, Parsed)), f"{sid} returned {type(out).__name__}"
    obs = out.obs if isinstance(out, Parsed) else out
    df = tidy.frame(obs)
    df["file"] = name
    # e.g. a flipped digit made a negative count: the pipeline refuses the file, naming row and field
    with contextlib.suppress(ValidationError):
        tidy.validate(df, source=sid, series_ids={s.id for s in src.series}, file=name)


def sample_or_skip(sid: str) -> tuple[str, bytes, str]:
    got = fs.sample(sid)
    if got is None:
        pytest.skip(fs.why_no_sample(sid))
    name, content = got
    return name, content, fs.kind_of(registry.get(sid), name)


def is_slow(sid: str) -> bool:
    got = fs.sample(sid)
    return bool(got) and fs.kind_of(registry.get(sid), got[0]) in ("xlsx", "parquet")


@pytest.mark.parametrize("sid", SOURCE_IDS)
def test_arbitrary_bytes(sid):
    name, _, kind = sample_or_skip(sid)

    @(FEW if is_slow(sid) else FUZZ)
    @given(st.one_of(st.binary(max_size=600),
                     st.text(max_size=300).map(str.encode),
                     st.binary(max_size=200).map(lambda b: b"PK\x03\x04" + b),
                     st.binary(max_size=200).map(lambda b: b"PAR1" + b + b"PAR1")))
    def run(content):
        check_parser(sid, content, name)
    run()


@pytest.mark.parametrize("sid", SOURCE_IDS)
def test_truncated_and_flipped(sid):
    name, good, kind = sample_or_skip(sid)

    @(FEW if is_slow(sid) else FUZZ)
    @given(cut=st.integers(0, len(good)),
           flips=st.lists(st.tuples(st.integers(0, len(good) - 1), st.integers(0, 255)), max_size=6))
    def run(cut, flips):
        b = bytearray(good)
        for pos, val in flips:
            b[pos] = val
        check_parser(sid, bytes(b[:cut] if cut < len(good) // 2 else b), name)
    run()


JUNK_CELL = st.one_of(st.text(max_size=12), st.integers(-10**12, 10**12).map(str),
                      st.sampled_from(["", "n/a", "-", "*", "1,234", "1e308", "NaN", "inf", "-5", "0x1F",
                                       "2025-02-30", "13/45/2025", "=1+2", "<b>x</b>", "\x00", "Total"]))


def insert_text_rows(content: bytes, at: int, rows: list[list[str]], ncol: int) -> bytes:
    lines = content.decode("utf-8-sig", errors="replace").splitlines(keepends=True)
    at = min(at, len(lines))
    junk = ["".join(",".join(c.replace(",", " ").replace("\n", " ") for c in (r + [""] * ncol)[:ncol]) + "\n")
            for r in rows]
    return "".join(lines[:at] + junk + lines[at:]).encode()


def insert_json_records(content: bytes, at: int, rows: list[list[str]]) -> bytes:
    import json
    data = json.loads(content.decode("utf-8-sig"))
    recs = fs._records(data)
    keys = list(recs[0]) if recs else ["a"]
    for r in rows:
        recs.insert(min(at, len(recs)), {k: (r[i] if i < len(r) else None) for i, k in enumerate(keys)})
    return json.dumps(data).encode()


@pytest.fixture(scope="module")
def xlsx_cache():
    return {}


def insert_xlsx_rows(content: bytes, at: int, rows: list[list[str]]) -> bytes:
    """Junk rows inserted into every sheet at the same position (through openpyxl, as a publisher would)."""
    from openpyxl import load_workbook
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
    rows = [[ILLEGAL_CHARACTERS_RE.sub("", v) for v in r] for r in rows]  # XLSX cannot hold control characters
    wb = load_workbook(io.BytesIO(content))
    for ws in wb.worksheets:
        for rng in list(ws.merged_cells.ranges):
            ws.unmerge_cells(str(rng))
        row = min(at, ws.max_row) + 1
        ws.insert_rows(row, len(rows))
        for i, r in enumerate(rows):
            for j, v in enumerate(r):
                ws.cell(row + i, j + 1, v)
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def insert_parquet_rows(content: bytes, at: int, rows: list[list[str]]) -> bytes:
    """Junk rows inserted with the file's own column types: a junk cell that does not convert becomes null."""
    import datetime as dt

    import pyarrow as pa
    import pyarrow.parquet as pq
    t = pq.read_table(io.BytesIO(content))

    def convert(v, typ):
        try:
            if pa.types.is_integer(typ):
                return int(v)
            if pa.types.is_floating(typ):
                return float(v)
            if pa.types.is_boolean(typ):
                return {"true": True, "false": False}[v.lower()]
            if pa.types.is_date(typ) or pa.types.is_timestamp(typ):
                d = dt.date.fromisoformat(v)
                return d if pa.types.is_date(typ) else dt.datetime.combine(d, dt.time())
            return v
        except (ValueError, KeyError, OverflowError):
            return None

    cols = {}
    for j, n in enumerate(t.column_names):
        typ = t.schema.field(n).type
        vals = t.column(n).to_pylist()
        ins = [convert(r[j], typ) if j < len(r) else None for r in rows]
        try:
            cols[n] = pa.array(vals[:at] + ins + vals[at:], typ)
        except (pa.ArrowInvalid, OverflowError):
            cols[n] = pa.array(vals[:at] + [None] * len(rows) + vals[at:], typ)
    out = io.BytesIO()
    pq.write_table(pa.table(cols), out)
    return out.getvalue()


@pytest.mark.parametrize("sid", SOURCE_IDS)
def test_junk_rows(sid):
    name, good, kind = sample_or_skip(sid)
    if kind == "xlsx" or kind in ("csv", "json", "parquet"):
        ncol = 12
    else:
        pytest.skip(f"no junk-row mutation for {kind} files")

    @(settings(FEW, max_examples=8) if kind == "xlsx" else FEW if is_slow(sid) else FUZZ)
    @given(at=st.integers(0, 60), rows=st.lists(st.lists(JUNK_CELL, min_size=1, max_size=ncol), min_size=1, max_size=3))
    def run(at, rows):
        if kind == "csv":
            bad = insert_text_rows(good, at, rows, ncol)
        elif kind == "json":
            bad = insert_json_records(good, at, rows)
        elif kind == "xlsx":
            bad = insert_xlsx_rows(good, at, rows)
        else:
            bad = insert_parquet_rows(good, at, rows)
        check_parser(sid, bad, name)
    run()


def test_zip_of_garbage_members_is_refused_or_parsed():
    """An XLSX-looking zip with random members: every workbook parser must refuse it with a LoaderError."""
    xlsx = [s for s in SOURCE_IDS if fs.sample(s) and fs.kind_of(registry.get(s), fs.sample(s)[0]) == "xlsx"]
    if not xlsx:
        pytest.skip("no workbook source registered")

    @FEW
    @given(members=st.dictionaries(st.sampled_from(["xl/workbook.xml", "xl/worksheets/sheet1.xml",
                                                    "[Content_Types].xml", "xl/sharedStrings.xml",
                                                    "xl/_rels/workbook.xml.rels"]),
                                   st.binary(max_size=200), min_size=1))
    def run(members):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            for k, v in members.items():
                z.writestr(k, v)
        for sid in xlsx:
            check_parser(sid, buf.getvalue(), fs.sample(sid)[0])
    run()


# ---------------------------------------------------------------- the events validator

def events_module():
    return pytest.importorskip("loaders.events", reason="loaders/events.py has not landed on this branch")


EVENT_HEADER = "id,date,date_precision,title,category,description,source_name,source_url\n"
EVENT_ROW = ("e1,2025-01-20,exact,Inauguration,political,Second term begins,White House,"
             "https://www.whitehouse.gov/\n")


def check_events(ev, content: bytes) -> None:
    try:
        accepted, rejected = ev.validate_events(content, "upload.csv")
    except LoaderError as e:
        assert "upload.csv" in str(e)
        return
    assert isinstance(accepted, pd.DataFrame) and isinstance(rejected, pd.DataFrame)
    assert set(ev.COLUMNS) <= set(accepted.columns)
    assert list(rejected.columns)[:3] == ["row", "field", "reason"] or rejected.empty
    for col in ("title", "description", "source_name"):
        # Accepted text never starts like a formula: the validator rejects such cells.
        assert not accepted[col].astype(str).str.startswith(("=", "+", "-", "@")).any()
    assert accepted["source_url"].astype(str).str.match(r"^https?://").all()


def test_events_validator_arbitrary_bytes():
    ev = events_module()

    @FUZZ
    @given(st.one_of(st.binary(max_size=800),
                     st.text(max_size=400).map(lambda t: (EVENT_HEADER + t).encode("utf-8", "surrogatepass")),
                     st.binary(max_size=300).map(lambda b: EVENT_HEADER.encode() + b)))
    def run(content):
        check_events(ev, content)
    run()


EVENT_CELL = st.one_of(st.text(max_size=30), st.sampled_from([
    "=HYPERLINK(\"http://x\",\"y\")", "+1", "-2+3", "@SUM(A1)", "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>", "javascript:alert(1)", "data:text/html,<b>x</b>", "\u202eevil", "2025-02-30",
    "1989-12-31", "9999-01-01", "exact", "approximate", "policy", "https://example.org/a", "x" * 600, "\r\n", '"']))


def test_events_validator_mutated_rows():
    ev = events_module()

    @FUZZ
    @given(rows=st.lists(st.lists(EVENT_CELL, min_size=8, max_size=9), max_size=5), keep=st.booleans())
    def run(rows, keep):
        import csv
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        for r in rows:
            w.writerow(r)
        content = (EVENT_HEADER + (EVENT_ROW if keep else "") + out.getvalue()).encode("utf-8", "surrogatepass")
        check_events(ev, content)
    run()
