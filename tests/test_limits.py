"""Bounded parsing: what a raw file may cost is checked before a parser runs, for every path into a parser.

Each case was observed to hang, exhaust memory or flood stderr before (issue 14, items 5, 7 and 8).
"""
from __future__ import annotations

import dataclasses
import io
import os
import re
import subprocess
import sys
import zipfile

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from loaders import limits, pipeline, registry, stored
from loaders.__main__ import main as cli
from loaders.errors import MAX_MESSAGE, ParseError
from tests import fault_samples as fs
from tests.conftest import ROOT


def parse_cli(*args, timeout=60):
    return subprocess.run([sys.executable, "-m", "loaders", "parse", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


def never_parse(monkeypatch, sid):
    """Make the source's parser fail loudly if it is reached: the bound must act before it."""
    def boom(content, name=""):
        raise AssertionError("the parser ran on a file the bounds should have refused")
    monkeypatch.setitem(registry.SOURCES, sid, dataclasses.replace(registry.get(sid), parse=boom))


# ---------------------------------------------------------------- regular files only, a byte cap before reading

def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pop_agen_table.json"
    os.mkfifo(fifo)
    r = parse_cli("trac_detention", str(fifo), timeout=30)  # used to hang for ever
    assert r.returncode == 1 and "FIFO" in r.stderr and "only regular files" in r.stderr, r.stderr


@pytest.mark.parametrize("path, what", [("/dev/zero", "character device"), ("/", "folder")])
def test_devices_and_folders_are_refused(path, what, capsys):
    assert cli(["parse", "trac_detention", path]) == 1  # /dev/zero used to be read until MemoryError
    err = capsys.readouterr().err
    assert what in err and "Traceback" not in err


def test_a_file_over_the_byte_cap_is_refused_before_it_is_read(tmp_path, capsys, monkeypatch):
    big = tmp_path / "pop_agen_table.json"
    with open(big, "wb") as f:  # sparse: costs no disk, but its size is over TRAC's 10 MB cap
        f.truncate(registry.get("trac_detention").max_bytes + 1)
    monkeypatch.setattr(os, "read", lambda *a: (_ for _ in ()).throw(AssertionError("read before the size check")))
    assert cli(["parse", "trac_detention", str(big)]) == 1
    assert "over the 10,000,000-byte cap" in capsys.readouterr().err


def test_rebuild_reads_raw_files_through_the_same_bounds(tmp_path, capsys):
    raw = tmp_path / "raw" / "trac_detention"
    raw.mkdir(parents=True)
    os.mkfifo(raw / "pop_agen_table.json")
    assert cli(["rebuild", "--raw", str(tmp_path / "raw"), "--out", str(tmp_path / "out"), "trac_detention"]) == 1
    assert "FIFO" in capsys.readouterr().err


# ---------------------------------------------------------------- row and expansion caps

def test_a_tiny_parquet_of_millions_of_rows_is_refused_from_its_footer(monkeypatch):
    """A 392 KB parquet of 10 million rows peaked at 1.6 GB; now its footer is read and the file refused."""
    n = registry.get("ddp_facility_daily").max_rows + 1
    buf = io.BytesIO()
    pq.write_table(pa.table({"date": pa.array(bytes(n), pa.uint8())}), buf, compression="zstd")
    assert len(buf.getvalue()) < 1_000_000
    never_parse(monkeypatch, "ddp_facility_daily")
    with pytest.raises(ParseError, match=r"parquet has 5,000,001 rows, over the cap of 5,000,000"):
        pipeline.parse_bytes(registry.get("ddp_facility_daily"), buf.getvalue(), "latest.parquet")


def test_a_parquet_of_too_many_cells_is_refused(monkeypatch):
    cols = {f"c{i}": pa.array(bytes(60_000), pa.uint8()) for i in range(limits.CELLS_PER_ROW_CAP + 1)}
    buf = io.BytesIO()
    pq.write_table(pa.table(cols), buf)
    src = dataclasses.replace(registry.get("ddp_facility_daily"), max_rows=60_000)
    never_parse(monkeypatch, "ddp_facility_daily")
    with pytest.raises(ParseError, match="cells"):
        pipeline.parse_bytes(src, buf.getvalue(), "wide.parquet")


def test_json_with_too_many_records_is_refused_before_parsing(monkeypatch):
    cap = registry.get("trac_detention").max_rows
    content = b"[" + b",".join([b"{}"] * (cap + 1)) + b"]"
    never_parse(monkeypatch, "trac_detention")
    with pytest.raises(ParseError, match=f"over the cap of {cap:,} records"):
        pipeline.parse_bytes(registry.get("trac_detention"), content, "pop_agen_table.json")


def test_csv_with_too_many_lines_is_refused_before_parsing(monkeypatch):
    src = dataclasses.replace(registry.get("cbp_encounters"), max_rows=1000)
    never_parse(monkeypatch, "cbp_encounters")
    with pytest.raises(ParseError, match="CSV has 1,001 lines, over the cap of 1,000 rows"):
        pipeline.parse_bytes(src, b"a,b\n" + b"1,2\n" * 1000, "sbo-encounters-x.csv")


# ---------------------------------------------------------------- zip checks by content, short excerpts

def zip_bomb() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/worksheets/sheet1.xml", b"0" * 30_000_000)
    return buf.getvalue()


@pytest.mark.parametrize("sid", ["ohss_khsm", "ohss_monthly_tables", "ice_detention_stats", "cbp_encounters"])
def test_a_zip_bomb_is_refused_whatever_its_name(sid, monkeypatch):
    """The guard ran only on names ending .xlsx: the same bomb named .bin reached 1.45 GB."""
    bomb = zip_bomb()
    never_parse(monkeypatch, sid)
    with pytest.raises(ParseError, match="compression ratio over 100"):
        pipeline.parse_bytes(registry.get(sid), bomb, "innocent.bin")


def test_error_messages_quote_only_a_short_excerpt_of_a_cell(tmp_path):
    """A 300 MB cell was printed whole to stderr; a 90 KB one here (under the field cap, ``check_csv``) is cut
    to an excerpt."""
    name, good = fs.sample("cbp_encounters") or pytest.skip("no CBP sample")
    lines = good.decode("utf-8-sig").splitlines()
    header = lines[0].split(",")
    num = next(i for i, v in enumerate(lines[1].split(",")) if re.fullmatch(r"\d+", v.strip()))
    row = lines[1].split(",")
    row[num] = "9" * 10 + "x" * 90_000
    p = tmp_path / name
    p.write_text("\n".join([lines[0], ",".join(row)] + lines[2:]) + "\n")
    r = parse_cli("cbp_encounters", str(p))
    assert r.returncode == 1 and "characters" in r.stderr, r.stderr[:300]
    assert len(r.stderr) < MAX_MESSAGE + 400 and "x" * 100 not in r.stderr
    assert header[num].strip() in r.stderr or "row" in r.stderr


# ---------------------------------------------------------------- workbooks: formulas without cached values

WORKBOOK_SOURCES = [sid for sid in sorted(registry.SOURCES)
                    if any(g.endswith(".xlsx") for g in registry.get(sid).raw_globs)]


def strip_first_cached_number(content: bytes) -> tuple[bytes, str, str]:
    """The workbook with its first numeric cell turned into a formula whose value was never calculated
    (what a program writing formulas without a calculation engine saves); (bytes, member, cell)."""
    zin = zipfile.ZipFile(io.BytesIO(content))
    out = io.BytesIO()
    done = None
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            if done is None and info.filename.startswith("xl/worksheets/") and info.filename.endswith(".xml"):
                m = re.search(rb'<c r="([A-Z]+[0-9]+)"((?:(?!t="s")[^>])*)><v>[0-9.]+</v></c>', data)
                if m:
                    data = data[:m.start()] + b'<c r="' + m[1] + b'"><f>SUM(1,2)</f></c>' + data[m.end():]
                    done = (info.filename, m[1].decode())
            zout.writestr(info, data)
    assert done, "no numeric cell found"
    return out.getvalue(), *done


@pytest.mark.parametrize("sid", WORKBOOK_SOURCES)
def test_formula_cells_without_a_cached_value_are_refused_in_every_workbook_source(sid):
    """OHSS KHSM turned such cells into silent gaps; every workbook source now names the sheet and cell."""
    got = fs.sample(sid)
    if got is None:
        pytest.skip(fs.why_no_sample(sid))
    name, content = got
    bad, member, cell = strip_first_cached_number(content)
    with pytest.raises(ParseError, match=rf"sheet '.+' cell {cell} holds a formula with no cached value"):
        pipeline.parse_bytes(registry.get(sid), bad, name)


def test_formulas_with_cached_values_pass():
    from openpyxl import Workbook
    wb = Workbook()
    wb.active["A1"] = "=SUM(1,2)"  # openpyxl writes no cached value
    buf = io.BytesIO()
    wb.save(buf)
    with pytest.raises(ParseError, match="sheet 'Sheet' cell A1"):
        limits.check_workbook_formulas(buf.getvalue(), source="x", name="f.xlsx")
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zo:
        for i in z.infolist():
            d = z.read(i)
            if i.filename.startswith("xl/worksheets/"):
                d = re.sub(rb"<f>SUM\(1,2\)</f>(<v\s*/>|<v></v>)?", b"<f>SUM(1,2)</f><v>3</v>", d)
            zo.writestr(i, d)
    limits.check_workbook_formulas(out.getvalue(), source="x", name="f.xlsx")  # no error


def _saved(wb, compression: int) -> bytes:
    """An openpyxl workbook's bytes with every member written with ``compression``."""
    buf = io.BytesIO()
    wb.save(buf)
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as zo:
        for i in z.infolist():
            zo.writestr(i.filename, z.read(i))
    return out.getvalue()


def _formula_workbook(compression: int) -> bytes:
    """A one-sheet openpyxl workbook whose A1 is a formula with no cached value, every member stored with
    ``compression`` (ZIP_DEFLATED, as Excel writes, or ZIP_STORED)."""
    from openpyxl import Workbook
    wb = Workbook()
    wb.active["B2"] = 4.0
    wb.active["A1"] = "=SUM(1,2)"  # openpyxl writes no cached value
    return _saved(wb, compression)


@pytest.mark.parametrize("compression", [zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED])
def test_the_formula_check_refuses_through_check_content(compression):
    """A formula without a cached value is refused, deflated or stored, through the one directory
    ``check_content`` opens for both zip checks."""
    content = _formula_workbook(compression)
    with pytest.raises(ParseError, match="sheet 'Sheet' cell A1 holds a formula with no cached value"):
        limits.check_content(content, source="x", name="f.xlsx")


# ---------------------------------------------------------------- the workbook the parser reads: worksheets stored


# ---------------------------------------------------------------- no DuckDB connection outlives a parse (rc=134)

@pytest.mark.parametrize("sid, mutate", [
    ("ddp_facility_daily", "negative"),
    ("ddp_records", "no-dates"),
])
def test_duckdb_connections_are_closed_when_a_parse_fails(sid, mutate, monkeypatch):
    """`parse ddp_facility_daily` on a bad file sometimes aborted after its error ("terminate called without
    an active exception", rc=134): the connection, with DuckDB threads on a registered Arrow table, was left
    to interpreter exit. Every connection a parser opens must be closed by the time its error is raised."""
    import duckdb
    opened = []
    real = duckdb.connect

    def tracking(*a, **k):
        con = real(*a, **k)
        opened.append(con)
        return con

    monkeypatch.setattr(duckdb, "connect", tracking)
    name, good = fs.sample(sid)
    table = pq.read_table(io.BytesIO(good))
    if mutate == "negative":
        col = "n_detained"
        vals = table.column(col).to_pylist()
        vals[0] = -1
        table = table.set_column(table.schema.get_field_index(col), col, pa.array(vals, table.schema.field(col).type))
    else:
        col = "apprehension_date"
        table = table.set_column(table.schema.get_field_index(col), col,
                                 pa.array([None] * len(table), table.schema.field(col).type))
    buf = io.BytesIO()
    pq.write_table(table, buf)
    with pytest.raises(ParseError):
        pipeline.parse_bytes(registry.get(sid), buf.getvalue(), name)
    assert opened, "the parser opened no DuckDB connection: the test no longer covers it"
    for con in opened:
        with pytest.raises(duckdb.ConnectionException):
            con.sql("select 1")


# ---------------------------------------------------------------- issue 32: cost bounded before decoding

def dictionary_bomb_parquet(path=None) -> bytes:
    """A valid-looking ddp_facility_daily parquet of about 200 KB: one text column, dictionary-encoded, written
    without the Arrow schema; its footer declares a few hundred KB, and it decodes to 1.8 GB (5 million values
    of 360 bytes). Read whole, it peaked at 1,819 MB."""
    import numpy as np
    n = 5_000_000
    codes = pa.array([f"{i:04d}" + "X" * 356 for i in range(64)])
    idx = pa.array((np.arange(n, dtype=np.int32) // 100_000) % 64)
    table = pa.table({"detention_facility_code": pa.DictionaryArray.from_arrays(idx, codes)})
    buf = io.BytesIO()
    pq.write_table(table, buf, store_schema=False, compression="zstd", row_group_size=n, write_statistics=False)
    data = buf.getvalue()
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    declared = sum(meta.row_group(i).total_byte_size for i in range(meta.num_row_groups))
    assert len(data) < 300_000 and declared < limits.MAX_DECODED_BYTES  # the footer alone let it through
    if path is not None:
        path.write_bytes(data)
    return data


def test_a_dictionary_encoded_parquet_is_bounded_by_its_decoded_size(monkeypatch):
    never_parse(monkeypatch, "ddp_facility_daily")
    with pytest.raises(ParseError, match=r"file bomb\.parquet\] parquet would decode to at least 1,8\d\d,\d{3},\d{3} "
                                         r"bytes, over the 400,000,000-byte cap"):
        pipeline.parse_bytes(registry.get("ddp_facility_daily"), dictionary_bomb_parquet(), "bomb.parquet")


def test_a_streamed_parquet_is_bounded_per_row_group(monkeypatch):
    buf = io.BytesIO()
    pq.write_table(pa.table({"s": pa.array(["x" * 1000] * 2000)}), buf, row_group_size=500)
    monkeypatch.setattr(limits, "MAX_DECODED_BYTES", 1_000_000)
    monkeypatch.setattr(limits, "MAX_ROW_GROUP_DECODED", 600_000)
    limits.check_parquet(buf.getvalue(), source="s", name="f.parquet", streamed=True)  # 0.5 MB a row group
    monkeypatch.setattr(limits, "MAX_ROW_GROUP_DECODED", 400_000)
    with pytest.raises(ParseError, match="row group 1 would decode to 50"):
        limits.check_parquet(buf.getvalue(), source="s", name="f.parquet", streamed=True)
    with pytest.raises(ParseError, match="parquet would decode to at least 1,00"):
        limits.check_parquet(buf.getvalue(), source="s", name="f.parquet")  # 2 MB in all


@pytest.mark.parametrize("body, message", [
    (b"a," * 100_000, r"CSV line 1 has 100,001 columns, over the cap of 2,000"),
    (b"a,b\n" + b"x" * 200_000 + b",1\n", r"CSV line 2 has a field of 200,000 bytes, over the cap of 100,000"),
])
def test_csv_is_bounded_by_columns_per_line_and_bytes_per_field(monkeypatch, body, message):
    never_parse(monkeypatch, "cbp_encounters")
    with pytest.raises(ParseError, match=r"file sbo-encounters-x\.csv\] " + message):
        pipeline.parse_bytes(registry.get("cbp_encounters"), body, "sbo-encounters-x.csv")


def _limited(mb: int):
    def apply():
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    return apply


@pytest.mark.parametrize("sid, name, make", [
    ("ddp_facility_daily", "facilities-daily-population-latest.parquet", lambda p: dictionary_bomb_parquet(p)),
    ("cbp_encounters", "sbo-encounters-x.csv", lambda p: p.write_bytes(b"a," * 10_000_000)),
    ("cbp_encounters", "sbo-encounters-y.csv", lambda p: p.write_bytes(b"a,b\n" + b"a," * 10_000_000 + b"\n")),
])
def test_the_worst_files_are_refused_within_1_gb_and_seconds(tmp_path, sid, name, make):
    """Run in a child process whose address space is capped at 1 GB (``RLIMIT_AS``) with a timeout: before, the
    parquet took 1.8 GB and the CSVs ran for minutes at 1-2 GB. Now each is refused, naming the file and the cap."""
    path = tmp_path / name
    make(path)
    r = subprocess.run([sys.executable, "-m", "loaders", "parse", sid, str(path)], cwd=ROOT, capture_output=True,
                       text=True, timeout=60, preexec_fn=_limited(1024))
    assert r.returncode == 1, r.stderr
    assert f"file {name}]" in r.stderr and "over the" in r.stderr and "cap" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr, r.stderr


# ---------------------------------------------------------------- issue 32: numbers in range, keys bounded

def _cbp_with(tmp_path, value: str) -> tuple[str, str]:
    """The CBP sample with its first encounter count replaced by ``value``: (path, file name)."""
    # a small CBP file in the real layout, built here, so the test runs without ../shared
    from tests.test_cbp_encounters import swb_file
    name, good = "sbo-encounters-fy22-fy25-aug.csv", swb_file(2024, 2025, "AUG")
    lines = good.decode("utf-8-sig").splitlines()
    row = lines[1].split(",")
    row[lines[0].split(",").index("Encounter Count")] = value
    p = tmp_path / name
    p.write_text("\n".join([lines[0], ",".join(row)] + lines[2:]) + "\n")
    return str(p), name


@pytest.mark.parametrize("value, why", [
    ("1e308", "over 10,000,000,000,000"),
    ("2.5", "not a whole number"),
])
def test_a_count_out_of_range_is_refused_with_a_line_not_a_traceback(tmp_path, value, why):
    """1e308 ended in a 30-line traceback from format_values; 2.5 encounters were accepted."""
    path, name = _cbp_with(tmp_path, value)
    r = parse_cli("cbp_encounters", path)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert f"file {name}]" in r.stderr and "field 'value'" in r.stderr and why in r.stderr, r.stderr


def test_a_key_over_the_length_bound_is_refused():
    from loaders import tidy
    df = tidy.frame(pd.DataFrame({"series": ["s"] * 2, "key": ["ok", "k" * 5000], "date": ["2024-01-01"] * 2,
                                  "value": [1, 2]}))
    with pytest.raises(Exception, match=r"row 2 field 'key': longer than 300 characters"):
        tidy.validate(df, source="x", series_ids={"s"}, file="f.csv")


def test_format_values_writes_huge_and_whole_numbers_without_overflow():
    out = stored.format_values(pd.Series([1e308, 3.0, 2.5, float("nan"), 2.0**60]))
    assert list(out) == ["1e+308", "3", "2.5", "nan", "1.152921504606847e+18"]
