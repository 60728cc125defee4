"""Hostile intake, second round (issue 40): files built to cost gigabytes or hang a reader are refused in one line
naming the file, before any reader allocates. The attack files are built by ``tests/hostile_samples.py`` (a few
kilobytes to a few megabytes each) and parsed in a child process whose address space is capped, so that a
regression fails here instead of exhausting the machine.
"""
from __future__ import annotations

import resource
import subprocess
import sys
import zipfile

import pytest

from loaders import limits, registry
from loaders.errors import ParseError
from tests import fault_samples as fs
from tests import hostile_samples as hs
from tests.conftest import ROOT

WORKBOOK_SOURCES = [sid for sid in sorted(registry.SOURCES)
                    if any(g.endswith(".xlsx") for g in registry.get(sid).raw_globs)]


def capped(mb: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (mb << 20, mb << 20))
    return apply


def loaders_cli(*args, mb: int = 1024, timeout: int = 120) -> subprocess.CompletedProcess:
    """``python -m loaders ARGS`` in a child process capped at ``mb`` MB of address space."""
    return subprocess.run([sys.executable, "-m", "loaders", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, preexec_fn=capped(mb))


def assert_one_line_refusal(r: subprocess.CompletedProcess, name: str, *words: str) -> None:
    assert r.returncode == 1, (r.returncode, r.stderr[-2000:])
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and f"file {name}]" in lines[0], r.stderr[-2000:]
    for w in words:
        assert w in lines[0], lines[0]
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr and "panicked" not in r.stderr, r.stderr


# ---------------------------------------------------------------- 1. cells far from A1

@pytest.mark.parametrize("sid", WORKBOOK_SOURCES)
def test_a_workbook_with_a_cell_at_the_last_place_is_refused_in_every_workbook_source(sid, tmp_path):
    """Two cells at A1 and XFD1048576 made the reader ask for 512 GiB and abort (exit 134, no line)."""
    got = fs.sample(sid)
    if got is None:
        pytest.skip(fs.why_no_sample(sid))
    name, content = got
    path = tmp_path / name
    path.write_bytes(hs.with_far_cell(content, "XFD1048576"))
    r = loaders_cli("parse", sid, str(path))
    assert_one_line_refusal(r, name, "1,048,576 rows x 16,384 columns", "over the cap")


@pytest.mark.parametrize("far, words", [
    ("A1000000000", "row reference"),
    ("ZZZZ100000", "cell reference"),
])
def test_references_beyond_a_spreadsheet_are_refused(far, words, tmp_path):
    path = tmp_path / "KHSM Encounters (USBP) fy25m11.xlsx"
    path.write_bytes(hs.workbook(hs.sheet_xml(hs.far_cell_rows(far))))
    r = loaders_cli("parse", "ohss_khsm", str(path))
    assert_one_line_refusal(r, path.name, words, "Sheet1")


def test_rebuild_refuses_the_workbook_and_leaves_the_snapshot(tmp_path):
    """``rebuild`` died by signal 6 without its "left unchanged" line."""
    from tests.conftest import record_downloads
    name, content = fs.sample("ohss_khsm")
    raw = tmp_path / "raw" / "ohss_khsm"
    raw.mkdir(parents=True)
    (raw / name).write_bytes(hs.with_far_cell(content))
    record_downloads(tmp_path / "raw")
    r = loaders_cli("rebuild", "--raw", str(tmp_path / "raw"), "--out", str(tmp_path / "out"), "ohss_khsm")
    assert r.returncode == 1 and "over the cap" in r.stderr and "left unchanged" in r.stderr, r.stderr[-2000:]
    assert "Traceback" not in r.stderr


def grid(rows: str) -> None:
    limits.check_grid(hs.sheet_xml(rows), source="x", name="f.xlsx", sheet="S")


@pytest.mark.parametrize("rows", [
    # cells without a reference follow the one before: 5,000 rows of 5,000 cells span 25 million
    "<row>" + "<c><v>1</v></c>" * 5_000 + "</row>" + "<row r=\"5000\"><c><v>1</v></c></row>",
    # a namespace prefix
    '<x:row r="1"><x:c r="A1"><x:v>1</x:v></x:c></x:row><x:row r="9000"><x:c r="XFD9000"><x:v>1</x:v></x:c></x:row>',
    # the reference not first, in single quotes
    "<row><c s='1' r='A1'><v>1</v></c><c t='n' r='XFD1048576'><v>2</v></c></row>",
    # a ">" inside an attribute: the cell is not empty however the tag ends look
    '<row><c r="A1"><v>1</v></c><c r="XFD1048576" x="/>"><v>2</v></c></row>',
])
def test_the_span_is_counted_however_the_cells_are_written(rows):
    with pytest.raises(ParseError, match=f"over the cap of {limits.MAX_GRID_CELLS:,} cells"):
        grid(rows)


def test_a_cell_with_two_references_is_refused():
    with pytest.raises(ParseError, match="two references"):
        grid('<row><c r="A1" r="XFD1048576"><v>1</v></c></row>')


def test_empty_styled_cells_do_not_count_and_real_spans_pass():
    """ICE's sheets carry half a million styled empty cells out to column XFD: they are not part of the grid."""
    grid('<row r="1"><c r="A1"><v>1</v></c><c r="XFD1" s="3"/><c r="XFC1" s="3"></c></row>'
         '<row r="1048576"><c r="B1048576" s="1"/></row>')
    grid("".join(f'<row r="{i}"><c r="A{i}"><v>1</v></c><c r="CV{i}"><v>2</v></c></row>' for i in range(1, 2000)))


# ---------------------------------------------------------------- 3. a sheet that understates its size

def test_a_sheet_that_inflates_past_its_declared_size_is_refused_within_1_gb(tmp_path):
    """5,000 bytes declared, 1.5 GB inflated: the formula check read it whole (2.2 GB for 3 GB)."""
    path = tmp_path / "KHSM Encounters (USBP) fy25m11.xlsx"
    path.write_bytes(hs.understated_sheet(inflated=1_500_000_000))
    assert zipfile.ZipFile(path).getinfo("xl/worksheets/sheet1.xml").file_size == 5_000
    r = loaders_cli("parse", "ohss_khsm", str(path))
    assert_one_line_refusal(r, path.name, "inflates past the 5,000 bytes")


def test_every_part_of_a_workbook_is_read_through_the_cap():
    """Not only worksheets: the reader inflates the shared strings and styles too."""
    content = hs.understated_sheet(inflated=50_000_000, member="xl/sharedStrings.xml")
    with pytest.raises(ParseError, match="zip member 'xl/sharedStrings.xml' inflates past"):
        limits.check_content(content, source="x", name="f.xlsx")


# ---------------------------------------------------------------- 2. parquet text the footer understates

@pytest.mark.slow  # writing 4 GB of text, however well it compresses, takes the writer some seconds
def test_delta_encoded_text_is_refused_from_its_page_headers(tmp_path):
    """4 million strings of 1,000 bytes, DELTA_BYTE_ARRAY without a dictionary: the size check passed them and
    the reader reached 4.7 GB ("realloc failed" under a cap)."""
    path = tmp_path / "facilities-daily-population-latest.parquet"
    hs.delta_text_parquet(path)
    assert path.stat().st_size < 20_000_000
    r = loaders_cli("parse", "ddp_facility_daily", str(path))
    assert_one_line_refusal(r, path.name, "DELTA_BYTE_ARRAY", "'facility'", "row group 1")


def test_a_big_dictionary_is_refused_before_it_is_loaded(tmp_path):
    """A 150 MB dictionary in a 0.6 MB file: the check loaded it to size the values ("malloc ... failed" under
    a 1 GB cap; 1.75 GB for 300 MB)."""
    path = tmp_path / "facilities-daily-population-latest.parquet"
    hs.big_dictionary_parquet(path)
    assert path.stat().st_size < 2_000_000
    r = loaders_cli("parse", "ddp_facility_daily", str(path))
    assert_one_line_refusal(r, path.name, f"over the cap of {limits.MAX_DICTIONARY_BYTES:,}", "nothing was loaded")


@pytest.mark.parametrize("encoding", ["PLAIN", "DELTA_LENGTH_BYTE_ARRAY"])
def test_text_pages_are_sized_from_their_headers(encoding, monkeypatch):
    """Plain and length-prefixed text hold every byte in their pages: the size is read from the page headers,
    not the footer's summary, and no dictionary is needed."""
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq
    buf = io.BytesIO()
    pq.write_table(pa.table({"t": ["x" * 100] * 10_000}), buf, use_dictionary=False, compression="zstd",
                   column_encoding={"t": encoding})
    monkeypatch.setattr(limits, "MAX_DECODED_BYTES", 1_000_000)
    with pytest.raises(ParseError, match=r"would decode to at least 1,0[48]\d,\d{3} bytes"):
        limits.check_parquet(buf.getvalue(), source="x", name="f.parquet")


def test_a_page_header_past_the_chunk_is_refused():
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq
    buf = io.BytesIO()
    pq.write_table(pa.table({"t": ["abc"] * 10}), buf, use_dictionary=False, compression="none")
    data = bytearray(buf.getvalue())
    at = pq.ParquetFile(io.BytesIO(bytes(data))).metadata.row_group(0).column(0).data_page_offset
    data[at + 1:at + 40] = b"\xff" * 39  # the header's varints never end
    with pytest.raises(ParseError, match="a page header cannot be read"):
        limits.check_parquet(bytes(data), source="x", name="f.parquet")


# ---------------------------------------------------------------- 4. the download record beside a raw file

def trac_raw(tmp_path):
    """A raw folder with TRAC's population file and the record of its download: (raw folder, file, record)."""
    name, body = fs.trac_detention_sample()
    d = tmp_path / "raw" / "trac_detention"
    d.mkdir(parents=True)
    (d / name).write_bytes(body)
    url = next(u for u in registry.get("trac_detention").download_urls if u.endswith(name))
    record = d / (name + ".meta.json")
    record.write_text(hs.download_record(body, url))
    return tmp_path / "raw", d / name, record


def rebuild_trac(tmp_path, raw):
    return loaders_cli("rebuild", "--raw", str(raw), "--out", str(tmp_path / "out"), "trac_detention", timeout=90)


def test_a_good_download_record_passes(tmp_path):
    raw, _f, _rec = trac_raw(tmp_path)
    r = rebuild_trac(tmp_path, raw)
    assert r.returncode == 0, r.stderr[-2000:]


def test_a_fifo_as_download_record_is_refused_at_once(tmp_path):
    """A FIFO there hung ``rebuild``."""
    import os
    raw, _f, record = trac_raw(tmp_path)
    record.unlink()
    os.mkfifo(record)
    r = rebuild_trac(tmp_path, raw)
    assert_one_line_refusal(r, record.name, "FIFO", "only regular files")


def test_a_link_to_a_device_as_download_record_is_refused(tmp_path):
    """A link to /dev/zero ran out of memory after 3.5 GB."""
    raw, _f, record = trac_raw(tmp_path)
    record.unlink()
    record.symlink_to("/dev/zero")
    r = rebuild_trac(tmp_path, raw)
    assert_one_line_refusal(r, record.name, "character device")


@pytest.mark.parametrize("text, words", [
    ("[1,2]", ("a JSON list, not an object",)),
    ('{"bytes": "abc"}', ("field 'bytes'", "'abc' is not a whole number")),
    ("{not json", ("not JSON",)),
    (" " * 20_000, ("over the 16,384-byte cap",)),
])
def test_a_malformed_download_record_is_refused_naming_the_field(tmp_path, text, words):
    """``[1,2]`` gave an AttributeError traceback, ``"bytes": "abc"`` a ValueError one."""
    raw, f, record = trac_raw(tmp_path)
    if text.startswith('{"bytes"'):
        rec = __import__("json").loads(hs.download_record(f.read_bytes(), "https://tracreports.org/x/" + f.name))
        rec["bytes"] = "abc"
        text = __import__("json").dumps(rec)
    record.write_text(text)
    r = rebuild_trac(tmp_path, raw)
    assert_one_line_refusal(r, record.name, *words)


def test_a_record_naming_another_file_on_an_allowed_host_is_refused(tmp_path):
    """Any record naming an allowed host passed the origin check."""
    raw, f, record = trac_raw(tmp_path)
    record.write_text(hs.download_record(f.read_bytes(), "https://tracreports.org/anything/else.json"))
    r = rebuild_trac(tmp_path, raw)
    assert_one_line_refusal(r, f.name, "'else.json', not this file")


def test_a_record_for_a_source_without_hosts_is_refused(tmp_path):
    """(Item 8) A source declaring no download host took a record naming any URL, which exports then printed
    as the official file."""
    from loaders import origins
    assert not registry.get("deaths_in_custody").allowed_hosts
    body = b"x"
    p = tmp_path / "all_1_deaths_detailed.csv"
    p.write_bytes(body)
    (tmp_path / (p.name + ".meta.json")).write_text(hs.download_record(body, "https://evil.example/" + p.name))
    with pytest.raises(Exception, match="declares no download host"):
        origins.origin_for("deaths_in_custody", p, body)


# ---------------------------------------------------------------- 5. export-data after update

def test_export_data_takes_a_download_time_as_its_day(tmp_path, raw_dir):
    """``update`` records when it downloaded a file with its time zone; the export declared the column a date
    and stopped ("row 4 column 'retrieved' ... is not a date"). A time late in the day west of Greenwich is
    the next day in UTC."""
    import json

    import pyarrow.parquet as pq

    from loaders.__main__ import main
    record = raw_dir / "trac_detention" / "pop_agen_table.json.meta.json"
    rec = json.loads(record.read_text())
    rec["retrieved"] = "2026-11-30T22:15:00-05:00"
    record.write_text(json.dumps(rec))
    assert main(["rebuild", "--raw", str(raw_dir), "--out", str(tmp_path / "data"), "--allow-missing",
                 "trac_detention"]) == 0
    assert main(["export-data", "--data", str(tmp_path / "data"), "--out", str(tmp_path / "export")]) == 0
    files = pq.read_table(tmp_path / "export" / "source_files.parquet").to_pandas()
    got = files.set_index("name")["retrieved"].astype(str).to_dict()
    assert got["pop_agen_table.json"] == "2026-12-01", got


@pytest.mark.parametrize("value, day", [
    ("2026-12-03T14:05:00+00:00", "2026-12-03"),
    ("2026-12-03T23:30:00-02:00", "2026-12-04"),
    ("2026-12-03", "2026-12-03"),
    ("2026-12-03T14:05:00", "2026-12-03T14:05:00"),  # no zone: left for the typed column to refuse, naming the row
    ("not a date", "not a date"),
])
def test_utc_day(value, day):
    from loaders.export_data import utc_day
    assert utc_day(value) == day


# ---------------------------------------------------------------- 7. exports written atomically

def _full_disk(limit: int):
    """A child process for which a file may grow to ``limit`` bytes only, as on a nearly full disk (writing
    past it fails with EFBIG instead of killing the process)."""
    import signal

    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@pytest.mark.slow  # draws the states map (about 12 s of CPU)
def test_a_places_export_on_a_full_disk_leaves_the_good_file(tmp_path):
    """On a full disk a good ``states.html`` was replaced by a cut file, with a traceback."""
    out = tmp_path / "states.html"
    good = b"<!doctype html><p>the map written yesterday</p>\n" * 10
    out.write_bytes(good)
    r = subprocess.run([sys.executable, "-m", "charts", "export", "--view", "places", "--format", "html", "--out",
                        str(out)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                       preexec_fn=_full_disk(64_000))
    assert r.returncode == 1, r.stderr[-2000:]
    assert out.read_bytes() == good
    assert "Traceback" not in r.stderr and r.stderr.count("\n") == 1 and "cannot write" in r.stderr, r.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["states.html"]  # no temporary file left


def test_write_file_keeps_the_old_file_when_the_write_fails(tmp_path, monkeypatch):
    import errno
    import os

    from charts import export
    out = tmp_path / "chart.csv"
    out.write_bytes(b"old")

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as e:
        export.write_file(out, b"new" * 1000)
    assert out.read_bytes() == b"old" and e.value.errno == errno.ENOSPC
    assert [p.name for p in tmp_path.iterdir()] == ["chart.csv"]


# ---------------------------------------------------------------- 8. the remaining cases

def test_releases_csv_guards_a_file_name_a_spreadsheet_would_run(monkeypatch, capsys):
    """``loaders releases --format csv`` wrote a file name beginning with ``=`` as it was."""
    import csv
    import io

    from loaders import ledger
    from loaders.__main__ import main
    real = ledger.ledger

    def renamed(snap, src):
        t = real(snap, src).copy()
        t["files"] = '=HYPERLINK("https://evil.example","open")'
        return t
    monkeypatch.setattr(ledger, "ledger", renamed)
    assert main(["releases", "cbp_encounters", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows and all(r["files"] == "'" + '=HYPERLINK("https://evil.example","open")' for r in rows)


@pytest.mark.parametrize("day", ["9999-12-31", "1066-10-14"])
def test_a_death_date_no_source_can_report_is_refused_naming_row_and_field(day):
    """9999-12-31 in the deaths file gave an OverflowError naming the file but no row or field."""
    from loaders import pipeline
    name, body = fs.deaths_in_custody_sample()
    first = body.decode().splitlines()[1].split(",")[4]
    bad = body.replace(first.encode(), day.encode(), 1)
    with pytest.raises(ParseError, match=rf"row 2 field 'Date_of_Death': '{day}' is outside the years 1900-2099"):
        pipeline.parse_bytes(registry.get("deaths_in_custody"), bad, name)


@pytest.mark.parametrize("reader, value", [("iso_date", "9999-12-31"), ("mdy", "12/31/9999"), ("mdy", "01/01/1899")])
def test_the_date_readers_refuse_days_outside_the_plausible_years(reader, value):
    from loaders import parsing
    with pytest.raises(ParseError, match="row 7 field 'date': .* is outside the years"):
        getattr(parsing, reader)(value, row=7, field="date")


def _dead_pid() -> int:
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_export_data_removes_what_killed_runs_left(tmp_path, raw_dir):
    """Killed export-data runs left hidden staging folders (25 MB each) that nothing cleaned."""
    import os

    from loaders.__main__ import main
    assert main(["rebuild", "--raw", str(raw_dir), "--out", str(tmp_path / "data"), "--allow-missing",
                 "trac_detention"]) == 0
    dead, me = _dead_pid(), os.getpid()
    left = tmp_path / f".export.export-{dead}-0badc0de"
    live = tmp_path / f".export.export-{me}-0123abcd"  # another run still writing: not touched
    for d in (left, live):
        d.mkdir()
        (d / "observations.parquet").write_bytes(b"x" * 1000)
    assert main(["export-data", "--data", str(tmp_path / "data"), "--out", str(tmp_path / "export")]) == 0
    assert not left.exists() and live.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".export")) == [live.name]


def test_an_export_cut_between_its_renames_is_put_back(tmp_path):
    from loaders import export_data
    out = tmp_path / "export"
    old = tmp_path / f".export.old-{_dead_pid()}-0badc0de"
    old.mkdir()
    (old / export_data.DATAPACKAGE).write_text('{"x-generator": "%s"}' % export_data.MARKER)
    export_data.clean_leftovers(out)
    assert (out / export_data.DATAPACKAGE).is_file() and not old.exists()
