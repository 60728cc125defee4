"""Hostile raw files, built small: each costs a few kilobytes on disk and would cost gigabytes (or a hang) to a
reader without bounds (issue 40). The tests run them in a child process under an address-space cap
(``tests.test_hostile``); ``bench/bench_hostile.py`` measures the memory each takes to refuse.

Nothing here allocates more than a few megabytes: the big parts are written lazily (a deflate stream fed in
chunks, parquet pages written from a repeated small array).
"""
from __future__ import annotations

import io
import json
import re
import struct
import zipfile
import zlib
from pathlib import Path

MINIMAL_PARTS = {
    "[Content_Types].xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
        '<Default Extension="xml" ContentType="application/xml"/>'
        '<Override PartName="/xl/workbook.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
        '<Override PartName="/xl/worksheets/sheet1.xml" '
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
        '</Types>'),
    "_rels/.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'officeDocument" Target="xl/workbook.xml"/></Relationships>'),
    "xl/workbook.xml": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        '<sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>'),
    "xl/_rels/workbook.xml.rels": (
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
        '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
        'worksheet" Target="worksheets/sheet1.xml"/></Relationships>'),
}
SHEET_HEAD = ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
              '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>')
SHEET_TAIL = "</sheetData></worksheet>"


def sheet_xml(rows: str) -> bytes:
    return (SHEET_HEAD + rows + SHEET_TAIL).encode()


def workbook(sheet: bytes) -> bytes:
    """A minimal workbook of one sheet whose XML is ``sheet``."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in MINIMAL_PARTS.items():
            z.writestr(name, text)
        z.writestr("xl/worksheets/sheet1.xml", sheet)
    return out.getvalue()


# ---------------------------------------------------------------- item 1: two cells far apart

def far_cell_rows(far: str) -> str:
    """Two numbers: one at A1, one at ``far`` (``XFD1048576``, ``A1000000000``, ``ZZZZ100000``)."""
    row = re.sub(r"^[A-Z]+", "", far)
    return (f'<row r="1"><c r="A1"><v>1</v></c></row>'
            f'<row r="{row}"><c r="{far}"><v>2</v></c></row>')


def with_far_cell(content: bytes, far: str = "XFD1048576") -> bytes:
    """``content`` (a workbook) with a number added at cell ``far`` of every worksheet: the tables the parser
    reads are still there, and a reader that builds the sheet's whole grid allocates rows x columns cells."""
    row = re.sub(r"^[A-Z]+", "", far)
    extra = f'<row r="{row}"><c r="{far}"><v>2</v></c></row>'.encode()

    def edit(name: str, data: bytes) -> bytes:
        if not (name.startswith("xl/worksheets/") and name.endswith(".xml")):
            return data
        data = re.sub(rb'<dimension ref="[^"]*"\s*/>', b"", data)
        if b"</sheetData>" in data:
            return data.replace(b"</sheetData>", extra + b"</sheetData>", 1)
        return data.replace(b"<sheetData/>", b"<sheetData>" + extra + b"</sheetData>", 1)
    return rewrite_zip(content, edit)


def unreferenced_wide_rows(rows: int, cells: int) -> bytes:
    """A sheet whose cells carry no ``r`` reference: row after row, each ``cells`` cells wide. The grid is only
    known by counting, which a check that reads only references would miss."""
    row = "<row>" + "<c><v>1</v></c>" * cells + "</row>"
    return workbook(sheet_xml(row * rows))


def rewrite_zip(content: bytes, edit) -> bytes:
    src = zipfile.ZipFile(io.BytesIO(content))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for info in src.infolist():
            z.writestr(info.filename, edit(info.filename, src.read(info)), zipfile.ZIP_DEFLATED)
    return out.getvalue()


# ---------------------------------------------------------------- item 3: a member that understates its size

def _deflate_repeated(head: bytes, filler: bytes, repeat: int, tail: bytes) -> tuple[bytes, int]:
    """Raw deflate of head + filler * repeat + tail, and its size, without compressing the repeats: each part is
    compressed once with a full flush (byte-aligned, no reference to earlier data), so the filler's part can be
    repeated as it is."""
    def part(data: bytes, mode: int) -> bytes:
        co = zlib.compressobj(9, zlib.DEFLATED, -15)
        return co.compress(data) + co.flush(mode)
    block_copies = max(1, min(repeat, (1 << 20) // len(filler)))
    block = part(filler * block_copies, zlib.Z_FULL_FLUSH)
    whole, rest = divmod(repeat, block_copies)
    data = (part(head, zlib.Z_FULL_FLUSH) + block * whole + part(filler * rest, zlib.Z_FULL_FLUSH)
            + part(tail, zlib.Z_FINISH))
    return data, len(head) + len(filler) * repeat + len(tail)


def understated_sheet(inflated: int = 3_000_000_000, declared: int = 5_000,
                      member: str = "xl/worksheets/sheet1.xml") -> bytes:
    """A workbook whose sheet declares ``declared`` bytes in the zip's directory but inflates to about
    ``inflated`` bytes of cells (a few MB compressed); ``member`` is where it lies. The CRC recorded is that of
    the first ``declared`` bytes, so a reader that stops at the declared size finds nothing wrong; the rest is
    still there."""
    cell = b'<row><c t="inlineStr"><is><t>' + b"x" * 200 + b"</t></is></c></row>"
    head, tail = SHEET_HEAD.encode(), SHEET_TAIL.encode()
    repeat = max(1, (inflated - len(head) - len(tail)) // len(cell))
    data, _size = _deflate_repeated(head, cell, repeat, tail)
    first = (head + cell * (declared // len(cell) + 1))[:declared]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in MINIMAL_PARTS.items():
            z.writestr(name, text)
    body = out.getvalue()
    # Append the sheet by hand: a local header, the data, and a central directory entry that lies.
    zf = zipfile.ZipFile(io.BytesIO(body))
    entries = [(i, zf.read(i)) for i in zf.infolist()]
    out = io.BytesIO()
    central = []
    for info, raw in entries:
        comp = zlib.compressobj(6, zlib.DEFLATED, -15)
        c = comp.compress(raw) + comp.flush()
        central.append(_write_entry(out, info.filename.encode(), c, len(raw), zlib.crc32(raw)))
    central.append(_write_entry(out, member.encode(), data, declared, zlib.crc32(first)))
    _write_central(out, central)
    return out.getvalue()


def _write_entry(out: io.BytesIO, name: bytes, data: bytes, size: int, crc: int) -> bytes:
    offset = out.tell()
    out.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", 20, 0, 8, 0, 0, crc & 0xFFFFFFFF, len(data), size,
                          len(name), 0) + name + data)
    return struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 8, 0, 0, crc & 0xFFFFFFFF, len(data), size,
                       len(name), 0, 0, 0, 0, 0, offset) + name


def _write_central(out: io.BytesIO, central: list[bytes]) -> None:
    start = out.tell()
    blob = b"".join(central)
    out.write(blob)
    out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, len(central), len(central), len(blob), start, 0))


# ---------------------------------------------------------------- item 2: parquet text the footer understates

def delta_text_parquet(path: Path, rows: int = 4_000_000, width: int = 1_000) -> None:
    """``rows`` strings of ``width`` bytes each, DELTA_BYTE_ARRAY-encoded without a dictionary: the prefix
    coding makes them nearly free on disk (about 10 MB) and ``rows * width`` bytes once read."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    per = 50_000
    value = "x" * width
    schema = pa.schema([("facility", pa.string())])
    with pq.ParquetWriter(path, schema, use_dictionary=False, column_encoding={"facility": "DELTA_BYTE_ARRAY"},
                          compression="zstd", write_statistics=False) as w:
        batch = pa.table({"facility": pa.array([value] * per, pa.string())})
        for _ in range(rows // per):  # one row group of ``per`` rows per call
            w.write_table(batch)


def big_dictionary_parquet(path: Path, values: int = 150_000, width: int = 1_000) -> None:
    """One row group whose text column's dictionary holds ``values`` distinct strings of ``width`` bytes
    (150 MB) and compresses to about 1 MB. The strings are built in one numpy buffer (no Python string each)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    data = np.full((values, width), ord("y"), dtype=np.uint8)
    n = np.arange(values)
    for k in range(12):  # the last 12 bytes: the value's number, so that every value differs
        data[:, width - 1 - k] = ord("0") + (n // 10 ** k) % 10
    offsets = pa.py_buffer((np.arange(values + 1, dtype=np.int32) * width).tobytes())
    column = pa.StringArray.from_buffers(values, offsets, pa.py_buffer(data.reshape(-1)))
    del data
    pq.write_table(pa.table({"facility": column}), path, use_dictionary=True, compression="zstd",
                   write_statistics=False, dictionary_pagesize_limit=1 << 31, row_group_size=values)


# ---------------------------------------------------------------- item 4: download records

def download_record(body: bytes, url: str, **over) -> str:
    import hashlib
    rec = {"url": url, "retrieved": "2026-01-01T00:00:00+00:00", "sha256": hashlib.sha256(body).hexdigest(),
           "bytes": len(body), "etag": "", "last_modified": ""}
    rec.update(over)
    return json.dumps(rec)
