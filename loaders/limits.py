"""Bounds on what a raw file may cost to read and parse, checked before any parser sees it.

Why: the parsers trusted their input's size. A 392 KB parquet of 10 million rows took 1.6 GB to load, a 47 MB
JSON 36 s and 1.7 GB, ``/dev/zero`` was read until memory ran out, a FIFO hung the command, and a zip bomb
named ``.bin`` got past a check that looked at the name ``.xlsx``. So, for every source and every path into
a parser (``parse``, ``rebuild``, ``update``):

- only regular files are read (no FIFO, device, directory), and never more than the source's byte cap;
- the kind of a file is decided by its first bytes, not its name: a zip (every XLSX) is checked for bombs,
  each of its parts inflated a chunk at a time and never past its declared size, each sheet for the span of
  its cells (the grid a reader builds) and for formula cells without a cached value; a parquet for its row
  count, cells and decoded size (from its footer and its page headers, before anything is loaded); a JSON or
  CSV for its number of records;
- error messages quote at most a short excerpt of a cell (``errors.excerpt``).
"""
from __future__ import annotations

import dataclasses
import io
import os
import re
import stat
import zipfile
import zlib
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .errors import ParseError, excerpt

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
PARQUET_MAGIC = b"PAR1"
DEFAULT_MAX_ROWS = 2_000_000
# Cells (rows x columns) and decoded bytes a parquet may hold: a columnar file compresses repetitive data so
# well that its size on disk says nothing about the memory it takes once read.
CELLS_PER_ROW_CAP = 40
# Columns on one line and bytes in one field of a CSV: the widest real file (Census) has under 200 columns and
# no field near a kilobyte.
MAX_CSV_COLUMNS = 2_000
MAX_FIELD_BYTES = 100_000
# Decoded bytes a parquet may take once read: with the parser's own copies, under about 1 GB of memory in all
# (the real ddp_facility_daily file decodes to 58 MB).
MAX_DECODED_BYTES = 400_000_000
# A source that reads a parquet a batch at a time (``ddp_records``: 262,144 rows a batch, through DuckDB) holds
# at most one row group's worth at once: each row group is bounded instead of the whole file, by the cap the whole
# file had before (real DDP record files, up to 400 MB, passed it; none is in the shared data to measure).
MAX_ROW_GROUP_DECODED = 1_000_000_000
# A parquet's dictionaries, all text columns of one row group together, read from their page headers: the
# dictionary is loaded to size the values it stands for, so it is bounded before (a 1.9 MB file with a 300 MB
# dictionary took 1.75 GB to size). The real files' dictionaries are under 1 MB.
MAX_DICTIONARY_BYTES = 64_000_000
# A worksheet: the grid a reader builds spans A1 to its last non-empty cell, the empty ones between included
# (32 bytes each in the reader, then a list slot each): a sheet may span at most this many cells, about 200 MB.
# The widest real sheet in the shared data (OHSS's KHSM "Monthly Rgn and Citp") spans 14,890 x 5 = 74,450.
MAX_GRID_CELLS = 5_000_000
EXCEL_ROWS, EXCEL_COLUMNS = 1_048_576, 16_384
# Bytes of XML one worksheet may inflate to (the zip check already caps the whole zip at 200 MB).
MAX_MEMBER_BYTES = 200_000_000


def _kind_name(mode: int) -> str:
    for test, what in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return what
    return "not a regular file"


def read_regular(path: Path | str, max_bytes: int, *, source: str | None = None) -> bytes:
    """The bytes of ``path`` if it is a regular file of at most ``max_bytes``; a ``ParseError`` otherwise.

    Opened non-blocking so that a FIFO cannot hang the command, checked with ``fstat`` on the open file (no
    race with a swap of the path), and read with a cap so that a file growing while read cannot exceed it.
    """
    path = Path(path)
    name = path.name or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except IsADirectoryError:
        raise ParseError(f"{path} is a folder, not a file", source=source, file=name) from None
    except FileNotFoundError:
        raise ParseError(f"{path}: no such file", source=source, file=name) from None
    except OSError as e:
        raise ParseError(f"{path} cannot be opened ({e.strerror})", source=source, file=name) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ParseError(f"{path} is {_kind_name(st.st_mode)}; only regular files are read",
                             source=source, file=name)
        if st.st_size > max_bytes:
            raise ParseError(f"file is {st.st_size:,} bytes, over the {max_bytes:,}-byte cap for this source",
                             source=source, file=name)
        chunks, total = [], 0
        while True:
            try:
                chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            except OSError as e:
                raise ParseError(f"{path} could not be read ({e.strerror})", source=source, file=name) from None
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise ParseError(f"file grew past the {max_bytes:,}-byte cap while being read",
                                 source=source, file=name)
        return b"".join(chunks)
    finally:
        os.close(fd)


def check_zip(content: bytes, *, source: str, name: str, max_total: int = 200_000_000,
              max_members: int = 1000, max_ratio: int = 100) -> zipfile.ZipFile:
    """Refuse zip bombs before any XML parser sees the file (XLSX is a zip of XML parts). Returns the opened
    zip, so that the formula check reads the same directory instead of parsing it a second time."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(content))
        infos = zf.infolist()
    except (zipfile.BadZipFile, ValueError, OSError) as e:
        raise ParseError(f"not a readable XLSX/zip file ({e})", source=source, file=name) from None
    if len(infos) > max_members:
        raise ParseError(f"zip has {len(infos)} members (limit {max_members})", source=source, file=name)
    total = sum(i.file_size for i in infos)
    if total > max_total:
        raise ParseError(f"zip would expand to {total:,} bytes (limit {max_total:,})", source=source, file=name)
    for i in infos:
        if i.file_size > 10_000_000 and i.compress_size and i.file_size / i.compress_size > max_ratio:
            raise ParseError(f"zip member {i.filename} has a compression ratio over {max_ratio}", source=source, file=name)
    return zf


def is_zip(content: bytes) -> bool:
    return content[:4] in ZIP_MAGIC


def check_content(content: bytes, *, source: str, name: str, max_rows: int = DEFAULT_MAX_ROWS,
                  kind: str = "", streamed: bool = False) -> bytes:
    """Every bound that applies to this content, by what the bytes are (``kind`` only adds text kinds). Returns
    ``content``, for the parser to read."""
    if is_zip(content):
        zf = check_zip(content, source=source, name=name)  # the zip's directory, parsed once for both checks
        check_workbook_formulas(content, source=source, name=name, zf=zf)
    elif content[:4] == PARQUET_MAGIC:
        check_parquet(content, source=source, name=name, max_rows=max_rows, streamed=streamed)
    elif kind == "json" or content.lstrip()[:1] in (b"[", b"{"):
        # Every record is an object: the count of "{" bounds the records without parsing anything.
        n = content.count(b"{")
        if n > max_rows:
            raise ParseError(f"JSON holds up to {n:,} objects, over the cap of {max_rows:,} records",
                             source=source, file=name)
    elif kind == "csv":
        check_csv(content, source=source, name=name, max_rows=max_rows)
    return content


def check_csv(content: bytes, *, source: str, name: str, max_rows: int = DEFAULT_MAX_ROWS) -> None:
    """Lines, cells, columns per line and bytes per field of a CSV, counted on the bytes before any parser runs.

    Why all four: a cap on cells alone let ``"a,"`` x 10 million (one line of 10 million columns, 20 MB) through,
    and pandas then ran for minutes at 2 GB; a single 49 MB field became a series key. The separators are found
    with numpy (one pass at memory speed); a comma inside quotes counts as a separator here, which only ever
    overstates a line's columns, and the caps leave room for that.
    """
    rows = content.count(b"\n")
    if rows > max_rows:
        raise ParseError(f"CSV has {rows:,} lines, over the cap of {max_rows:,} rows", source=source, file=name)
    arr = np.frombuffer(content, dtype=np.uint8)
    newlines = np.flatnonzero(arr == 0x0A)
    commas = np.flatnonzero(arr == 0x2C)
    # commas before each line's end, per line (the last line may lack its newline)
    ends = np.append(newlines, len(content))
    per_line = np.diff(np.searchsorted(commas, ends), prepend=0)
    widest = int(per_line.max()) + 1 if len(per_line) else 1
    if widest > MAX_CSV_COLUMNS:
        line = int(per_line.argmax()) + 1
        raise ParseError(f"CSV line {line:,} has {widest:,} columns, over the cap of {MAX_CSV_COLUMNS:,}",
                         source=source, file=name)
    cells = int(per_line.sum()) + len(per_line)
    if cells > max_rows * CELLS_PER_ROW_CAP:
        raise ParseError(f"CSV has {len(per_line):,} lines and {cells:,} cells, over the cap of "
                         f"{max_rows * CELLS_PER_ROW_CAP:,} cells", source=source, file=name)
    seps = np.flatnonzero((arr == 0x0A) | (arr == 0x2C))  # already in order: no sort
    gaps = np.diff(seps, prepend=-1, append=len(content)) - 1
    longest = int(gaps.max()) if len(gaps) else len(content)
    if longest > MAX_FIELD_BYTES:
        at = int(seps[gaps.argmax() - 1]) + 1 if gaps.argmax() else 0
        line = int(np.searchsorted(newlines, at)) + 1
        raise ParseError(f"CSV line {line:,} has a field of {longest:,} bytes, over the cap of {MAX_FIELD_BYTES:,} "
                         "bytes a field", source=source, file=name)


def check_parquet(content: bytes, *, source: str, name: str, max_rows: int = DEFAULT_MAX_ROWS,
                  streamed: bool = False) -> None:
    """Rows, cells and decoded size, before any column is decoded.

    The decoded size is not the footer's ``total_byte_size``: that counts a dictionary page once, and a 201 KB
    file whose string column repeats a few 360-byte values over 5 million rows declared 1.4 MB and took 1.8 GB
    once read (issue 32). So each dictionary-encoded text column is read still encoded (its dictionary and one
    index per value: at most 4 bytes a row) and its values' lengths summed through the indices; every other
    column counts its uncompressed size or its values' fixed width, whichever is larger. ``streamed``: the
    source reads the file a batch at a time (``ddp_records``), so each row group is bounded instead of the whole.
    """
    try:
        pf = pq.ParquetFile(io.BytesIO(content))
        meta = pf.metadata
    except Exception as e:  # pyarrow raises several types for a bad footer
        raise ParseError(f"not a readable parquet file ({excerpt(str(e))})", source=source, file=name) from None
    rows, cols = meta.num_rows, meta.num_columns
    if rows > max_rows:
        raise ParseError(f"parquet has {rows:,} rows, over the cap of {max_rows:,} for this source",
                         source=source, file=name)
    if rows * cols > max_rows * CELLS_PER_ROW_CAP:
        raise ParseError(f"parquet has {rows:,} rows of {cols:,} columns, over the cap of "
                         f"{max_rows * CELLS_PER_ROW_CAP:,} cells", source=source, file=name)
    total, cap = 0, MAX_ROW_GROUP_DECODED if streamed else MAX_DECODED_BYTES
    for i in range(meta.num_row_groups):
        part = _row_group_decoded(content, pf, i, source=source, name=name)
        total = part if streamed else total + part
        if total > cap:
            what = f"row group {i + 1} would decode to" if streamed else "parquet would decode to at least"
            raise ParseError(f"{what} {total:,} bytes, over the {cap:,}-byte cap (a column of repeated text "
                             "expands once read); nothing was loaded", source=source, file=name)


_DELTA_BYTE_ARRAY = 7  # parquet.thrift Encoding


@dataclasses.dataclass(frozen=True)
class _Page:
    dictionary: bool
    values: int
    size: int  # uncompressed bytes of the page as written (still encoded)
    encoding: int


def _pages(content: bytes, c, *, source: str, name: str, where: str) -> list[_Page]:
    """Every page of one column chunk, from the page headers alone (nothing is decompressed or decoded): the
    footer's sizes and encodings are a summary a writer may get wrong; the reader follows the headers."""
    start = c.dictionary_page_offset if c.has_dictionary_page and c.dictionary_page_offset else c.data_page_offset
    end = start + c.total_compressed_size
    if start < 4 or end > len(content) - 8 or c.total_compressed_size < 0:
        raise ParseError(f"{where} lies outside the file", source=source, file=name)
    pages, at = [], start
    try:
        while at < end:
            header, at = _thrift_struct(content, at)
            kind, size, compressed = header.get(1), header.get(2), header.get(3)
            if not isinstance(size, int) or not isinstance(compressed, int) or size < 0 or compressed < 0:
                raise ValueError("a page header without its sizes")
            detail = header.get(7) if kind == 2 else header.get(8) if kind == 3 else header.get(5)
            detail = detail if isinstance(detail, dict) else {}
            values = detail.get(1, 0)
            encoding = detail.get(4 if kind == 3 else 2, 0)
            if kind in (0, 2, 3):
                pages.append(_Page(kind == 2, int(values), size, int(encoding)))
            at += compressed
            if len(pages) > 10_000_000:
                raise ValueError("too many pages")
    except (ValueError, IndexError, RecursionError) as e:
        raise ParseError(f"{where}: a page header cannot be read ({excerpt(str(e))})", source=source,
                         file=name) from None
    return pages


def _varint(buf: bytes, at: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        b = buf[at]
        at += 1
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n, at
        shift += 7
        if shift > 63:
            raise ValueError("a varint over 64 bits")


def _thrift_value(buf: bytes, at: int, kind: int, depth: int):
    """One value of Thrift's compact protocol (the encoding of parquet's page headers) and where it ends."""
    if kind in (1, 2):
        return kind == 1, at
    if kind == 3:
        return buf[at], at + 1
    if kind in (4, 5, 6):
        n, at = _varint(buf, at)
        return (n >> 1) ^ -(n & 1), at
    if kind == 7:
        return None, at + 8
    if kind == 8:
        n, at = _varint(buf, at)
        if at + n > len(buf):
            raise ValueError("a string past the end of the file")
        return None, at + n
    if kind in (9, 10):
        return None, _thrift_list_end(buf, at, depth)
    if kind == 11:
        return None, _thrift_map_end(buf, at, depth)
    if kind == 12:
        return _thrift_struct(buf, at, depth + 1)
    raise ValueError(f"an unknown Thrift type {kind}")


def _thrift_list_end(buf: bytes, at: int, depth: int) -> int:
    """Where a compact-protocol list or set ends: a header byte (its size, or 15 and a varint, and its element
    type), then the elements."""
    head = buf[at]
    at += 1
    n, elem = head >> 4, head & 0x0F
    if n == 15:
        n, at = _varint(buf, at)
    if n > len(buf):
        raise ValueError("a list longer than the file")
    for _ in range(n):
        if elem in (1, 2):  # a bool in a list is a byte of its own
            at += 1
        else:
            _v, at = _thrift_value(buf, at, elem, depth)
    return at


def _thrift_map_end(buf: bytes, at: int, depth: int) -> int:
    """Where a compact-protocol map ends: its size as a varint, then (when not empty) a byte of key and value
    types and the pairs."""
    n, at = _varint(buf, at)
    if n:
        types = buf[at]
        at += 1
        for _ in range(n):
            _k, at = _thrift_value(buf, at, types >> 4, depth)
            _v, at = _thrift_value(buf, at, types & 0x0F, depth)
    return at


def _thrift_struct(buf: bytes, at: int, depth: int = 0) -> tuple[dict, int]:
    if depth > 16:
        raise ValueError("structures nested too deep")
    out: dict = {}
    field = 0
    while True:
        head = buf[at]
        at += 1
        if head == 0:
            return out, at
        delta, kind = head >> 4, head & 0x0F
        if delta:
            field += delta
        else:
            n, at = _varint(buf, at)
            field = (n >> 1) ^ -(n & 1)
        out[field], at = _thrift_value(buf, at, kind, depth)


_WIDTH = {"BOOLEAN": 1, "INT32": 4, "FLOAT": 4, "INT64": 8, "DOUBLE": 8, "INT96": 12}


def _row_group_decoded(content: bytes, pf, i: int, *, source: str, name: str) -> int:
    """Bytes one row group takes once decoded (see ``check_parquet``)."""
    rg = pf.metadata.row_group(i)
    total, texts, dictionaries = 0, [], 0
    for j in range(rg.num_columns):
        c = rg.column(j)
        width = c.type_length if c.physical_type == "FIXED_LEN_BYTE_ARRAY" else _WIDTH.get(c.physical_type, 0)
        pages = _pages(content, c, source=source, name=name, where=f"column {excerpt(c.path_in_schema)} of row "
                       f"group {i + 1}")
        values = sum(p.values for p in pages if not p.dictionary)
        size = sum(p.size for p in pages if not p.dictionary)
        if c.physical_type == "BYTE_ARRAY":
            delta = [p for p in pages if p.encoding == _DELTA_BYTE_ARRAY]
            if delta:
                raise ParseError(f"column {excerpt(c.path_in_schema)} of row group {i + 1} holds text encoded "
                                 "DELTA_BYTE_ARRAY, whose size once read cannot be known without decoding it (4 "
                                 "million rows of 10 MB became 4 GB); write it PLAIN or with a dictionary",
                                 source=source, file=name)
            dictionaries += sum(p.size for p in pages if p.dictionary)
            if dictionaries > MAX_DICTIONARY_BYTES:
                raise ParseError(f"the dictionaries of row group {i + 1} hold {dictionaries:,} bytes of text, over "
                                 f"the cap of {MAX_DICTIONARY_BYTES:,}; nothing was loaded", source=source,
                                 file=name)
            if any(p.dictionary for p in pages):
                texts.append(c.path_in_schema)
                continue
            # PLAIN and DELTA_LENGTH_BYTE_ARRAY pages hold every byte of their values, and Arrow adds an offset
            total += size + 4 * values
        else:
            total += max(size, c.total_uncompressed_size, max(values, c.num_values) * width)
    if not texts:
        return total
    try:
        # read_dictionary keeps the values encoded: memory is the dictionary plus one index per value
        enc = pq.ParquetFile(io.BytesIO(content), read_dictionary=texts)
        table = enc.read_row_group(i, columns=texts)
    except Exception as e:  # a nested or broken column: refused, since its cost cannot be bounded
        raise ParseError(f"the text columns of row group {i + 1} cannot be sized before reading them "
                         f"({excerpt(str(e))})", source=source, file=name) from None
    for col in table.columns:
        for chunk in col.chunks:
            total += 4 * len(chunk)  # Arrow's offset per value
            if pa.types.is_dictionary(chunk.type):
                lengths = pc.binary_length(chunk.dictionary)
                total += int(pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0)
            else:
                total += chunk.nbytes
    return total


# ---------------------------------------------------------------- workbooks: formulas without a cached value

_CELL_RE = re.compile(rb"<c\b((?:[^>/]|/(?!>))*)>(.*?)</c>", re.S)
_FORMULA_RE = re.compile(rb"<f[\s>/]")
_SUSPECT_F_RE = re.compile(rb"<f\b[^>]*(?:/>|>[^<]*</f>)(?!<v>[^<])")
_VALUE_RE = re.compile(rb"<v(?:\s[^>]*)?>([^<]*)</v>|<v\s*/>")
_REF_RE = re.compile(rb'\br="([A-Z]+[0-9]+)"')
_TYPE_RE = re.compile(rb'\bt="([a-zA-Z]+)"')
_NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
       "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
       "rel": "http://schemas.openxmlformats.org/package/2006/relationships"}


def _sheet_names(content: bytes, zf: zipfile.ZipFile, *, source: str, name: str) -> dict[str, str]:
    """Zip member of each worksheet -> the sheet's name shown in Excel (member name when unknown)."""
    try:
        wb = ElementTree.fromstring(read_member(content, zf.getinfo("xl/workbook.xml"), source=source, name=name,
                                                what="the workbook's list of sheets"))
        rels = ElementTree.fromstring(read_member(content, zf.getinfo("xl/_rels/workbook.xml.rels"), source=source,
                                                  name=name, what="the workbook's relationships"))
    except (KeyError, ElementTree.ParseError, _Broken):
        return {}
    target = {r.get("Id"): r.get("Target", "") for r in rels.findall("rel:Relationship", _NS)}
    out = {}
    for sheet in wb.findall("m:sheets/m:sheet", _NS):
        t = target.get(sheet.get(f"{{{_NS['r']}}}id"), "")
        member = t.lstrip("/") if t.startswith("/") else "xl/" + t
        out[member] = sheet.get("name", member)
    return out


class _Broken(Exception):
    """A member the check cannot read (encrypted, another compression, a bad stream or CRC): the parser then
    reports it, naming its sheet."""


def member_chunks(content: bytes, info: zipfile.ZipInfo, *, source: str, name: str, what: str,
                  cap: int = MAX_MEMBER_BYTES):
    """A zip member's bytes, inflated a chunk (at most 1 MB) at a time and never past the size the zip's
    directory declares, nor past ``cap``: a member that inflates further is refused, naming it.

    Why not ``ZipFile.read``: it asks the decompressor for up to 2 GB in one call, so a sheet declaring 5,000
    bytes that inflated to 3 GB took 2.2 GB here; and stopping at the declared size would not be enough either,
    since the spreadsheet reader inflates the stream to its end. Raises ``_Broken`` for a member it cannot read
    (encrypted, another compression, a bad stream or checksum).
    """
    off = info.header_offset
    head = content[off:off + 30]
    if len(head) < 30 or head[:4] != b"PK\x03\x04" or info.flag_bits & 0x1:
        raise _Broken
    start = off + 30 + int.from_bytes(head[26:28], "little") + int.from_bytes(head[28:30], "little")
    raw = memoryview(content)[start:start + info.compress_size]
    limit = min(info.file_size, cap)

    def over() -> ParseError:
        if limit < info.file_size:
            return ParseError(f"{what} holds over {cap:,} bytes of XML, over the cap for one part of a workbook",
                              source=source, file=name)
        return ParseError(f"{what} inflates past the {info.file_size:,} bytes the zip's directory declares for it "
                          "(a damaged or forged file); nothing was read", source=source, file=name)
    total, crc = 0, 0
    if info.compress_type == zipfile.ZIP_STORED:
        if len(raw) > limit:
            raise over()
        total, crc = len(raw), zlib.crc32(raw)
        yield bytes(raw)
    elif info.compress_type == zipfile.ZIP_DEFLATED:
        inflate = zlib.decompressobj(-15)
        for at in range(0, len(raw), 1 << 16):
            piece: bytes | memoryview = raw[at:at + (1 << 16)]
            while piece and not inflate.eof:
                try:
                    out = inflate.decompress(piece, min(1 << 20, limit + 1 - total))
                except zlib.error:
                    raise _Broken from None
                total += len(out)
                if total > limit:
                    raise over()
                crc = zlib.crc32(out, crc)
                yield out
                piece = inflate.unconsumed_tail
            if inflate.eof:
                break
    else:
        raise _Broken
    if total != info.file_size or crc != info.CRC:
        raise _Broken


def read_member(content: bytes, info: zipfile.ZipInfo, *, source: str, name: str, what: str) -> bytes:
    """A zip member's bytes through ``member_chunks`` (the same caps)."""
    return b"".join(member_chunks(content, info, source=source, name=name, what=what))


def worksheet_members(content: bytes, zf: zipfile.ZipFile, *, source: str, name: str) -> dict[str, str]:
    """Zip member of every worksheet -> its name for errors: the members under ``xl/worksheets/`` and any
    other the workbook points to as a sheet (a reader follows the workbook, not the folder)."""
    names = _sheet_names(content, zf, source=source, name=name)
    found = {i.filename for i in zf.infolist()
             if i.filename.startswith("xl/worksheets/") and i.filename.endswith(".xml")}
    found |= {m for m in names if m in zf.NameToInfo}
    return {m: names.get(m, m) for m in sorted(found)}


# Tags of rows and cells, any namespace prefix; a cell tag is ``c`` followed by a space, ``/`` or ``>`` (not
# ``<col``, nor a chart's ``<c:...>``). A cell with nothing inside (``<c r="XFC5" s="3"/>``, a styled empty cell:
# ICE's sheets carry thousands out to column XFD) is not part of the grid a reader builds.
_P = rb"(?:[A-Za-z_][\w.-]*:)?"
_GRID_TAG_RE = re.compile(rb"<" + _P + rb"(row|c)(?=[\s/>])((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>(</" + _P
                          + rb"c>)?")
_PREFIXED_CELL_RE = re.compile(rb"<[A-Za-z_][\w.-]*:c[\s/>]")
_WHITESPACE = np.array([0x20, 0x09, 0x0A, 0x0D], np.uint8)
_ATTR_RE = re.compile(rb"""([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')""")
_CELL_REF_RE = re.compile(rb"([A-Z]{1,3})([0-9]{1,7})")


def _r_attr(attrs: bytes) -> bytes | None:
    """A tag's ``r`` attribute; a ``ValueError`` when it has two (which one a reader takes is its own choice)."""
    found = [m.group(2) if m.group(2) is not None else m.group(3) for m in _ATTR_RE.finditer(attrs)
             if m.group(1) == b"r"]
    if len(found) > 1:
        raise ValueError("two references")
    return found[0] if found else None


def _column(letters: bytes) -> int:
    n = 0
    for ch in letters:
        n = n * 26 + ch - 64
    return n


def check_grid(xml: bytes, *, source: str, name: str, sheet: str) -> None:
    """Refuse a worksheet whose cells span more rows x columns than ``MAX_GRID_CELLS``, or whose cell
    references lie beyond a spreadsheet's last cell (XFD1048576) or are not references at all.

    A reader builds the sheet's whole grid, from A1 to the last cell, whatever lies between: two numbers at A1
    and XFD1048576 (a 1.6 KB file) made it ask for 512 GiB and abort the process. A cell or row without a
    reference follows the one before it, as readers place it, so the span is counted the same way.
    """
    span = _span_of_plain_sheet(xml)
    if span is not None:
        _check_span(*span, *span, source=source, name=name, sheet=sheet)
        return
    rows = cols = 0
    row = col = 0  # 1-based: the current row, and the last cell's column in it
    for m in _GRID_TAG_RE.finditer(xml):
        try:
            ref = _r_attr(m.group(2))
        except ValueError:
            raise ParseError(f"sheet {excerpt(sheet)} has a {m.group(1).decode()} with two references", source=source,
                             file=name) from None
        if m.group(1) == b"row":
            if ref is None:
                row += 1
            elif ref.isdigit() and len(ref) <= 7:
                row = int(ref)
            else:
                raise _bad_ref(ref, "row", source=source, name=name, sheet=sheet)
            col = 0
        else:
            if ref is None:
                col += 1
            else:
                cell = _CELL_REF_RE.fullmatch(ref)
                if cell is None:
                    raise _bad_ref(ref, "cell", source=source, name=name, sheet=sheet)
                col, row = _column(cell.group(1)), int(cell.group(2))
            if m.group(2).endswith(b"/") or m.group(3):
                continue  # an empty cell: it moves the place of the next, and adds nothing to the grid
        rows, cols = max(rows, row), max(cols, col)
        _check_span(rows, cols, row, col, source=source, name=name, sheet=sheet)


def _span_of_plain_sheet(xml: bytes, batch: int = 1 << 20) -> tuple[int, int] | None:
    """(rows, columns) a sheet's non-empty cells span, when every cell is written as spreadsheet programs write
    it (``<c r="B7" ...>``: the reference first and only once, no namespace prefix, no ">" but ending tags);
    None otherwise, and ``check_grid`` then walks the cells one by one.

    Why with numpy: a Python loop over the cells, or a regular expression listing them, took 0.5-1.4 s on one
    11 MB sheet of ICE's (half a million cells, nearly all empty and styled), against 0.04 s for the whole
    formula check before. Here every cell's reference is read at once from the bytes after ``<c r="``.
    """
    if b":c" in xml and _PREFIXED_CELL_RE.search(xml):
        return None
    a = np.frombuffer(xml, dtype=np.uint8)
    n = len(a)
    if n < 8:
        return 0, 0
    lt = np.flatnonzero(a[:-2] == 0x3C)  # "<"
    lt = lt[a[lt + 1] == 0x63]  # "c"
    tags = lt[np.isin(a[lt + 2], np.append(_WHITESPACE, [0x2F, 0x3E]))]  # then a space, "/" or ">"
    # As many ">" as "<": no ">" inside an attribute or a text, so the first ">" after "<c" ends its tag
    if xml.count(b">") != xml.count(b"<"):
        return None
    gts = np.flatnonzero(a == 0x3E)
    rs = np.flatnonzero(a[1:] == 0x72)  # an attribute named r...: whitespace, then "r"
    rs = rs[np.isin(a[rs], _WHITESPACE)]

    def within(pos, start, stop):  # how many of the sorted positions ``pos`` lie in [start, stop)
        return np.searchsorted(pos, stop) - np.searchsorted(pos, start)
    rows = cols = 0
    for at in range(0, len(tags), batch):
        tag = tags[at:at + batch]
        if not (a[np.minimum(tag[:, None] + np.arange(2, 6), n - 1)] == np.frombuffer(b' r="', np.uint8)).all():
            return None
        ends = np.searchsorted(gts, tag)
        if (ends >= len(gts)).any():
            return None
        end = gts[ends]
        if (within(rs, tag, end) != 1).any():  # a second attribute named r...
            return None
        # An empty cell adds nothing to the grid: only the others' references are read
        after = a[np.minimum(end[:, None] + np.arange(1, 5), n - 1)]
        full = (a[end - 1] != 0x2F) & ~(after == np.frombuffer(b"</c>", np.uint8)).all(axis=1)
        tag = tag[full]
        if not len(tag):
            continue
        win = a[np.minimum(tag[:, None] + np.arange(6, 17), n - 1)].astype(np.int64)
        col = np.zeros(len(tag), np.int64)
        row = np.zeros(len(tag), np.int64)
        letters = np.zeros(len(tag), np.int64)
        digits = np.zeros(len(tag), np.int64)
        done = np.zeros(len(tag), bool)
        for k in range(win.shape[1]):
            ch = win[:, k]
            is_letter = ~done & (digits == 0) & (ch >= 65) & (ch <= 90)
            is_digit = ~done & (letters > 0) & (ch >= 48) & (ch <= 57)
            col = np.where(is_letter, col * 26 + ch - 64, col)
            row = np.where(is_digit, row * 10 + ch - 48, row)
            letters += is_letter
            digits += is_digit
            done |= ~is_letter & ~is_digit & (ch == 0x22)
        if not (done & (letters >= 1) & (letters <= 3) & (digits >= 1) & (digits <= 7)).all():
            return None
        rows, cols = max(rows, int(row.max())), max(cols, int(col.max()))
    return rows, cols


def _check_span(rows: int, cols: int, row: int, col: int, *, source: str, name: str, sheet: str) -> None:
    if rows > EXCEL_ROWS or cols > EXCEL_COLUMNS:
        raise ParseError(f"sheet {excerpt(sheet)} has a cell at row {row:,}, column {col:,}: beyond the last cell "
                         f"a spreadsheet holds (XFD{EXCEL_ROWS}: row {EXCEL_ROWS:,}, column {EXCEL_COLUMNS:,})",
                         source=source, file=name)
    if rows * cols > MAX_GRID_CELLS:
        raise ParseError(f"sheet {excerpt(sheet)} spans {rows:,} rows x {cols:,} columns (a cell at row {row:,}, "
                         f"column {col:,}), over the cap of {MAX_GRID_CELLS:,} cells a sheet may span; nothing "
                         "was read", source=source, file=name)


def _bad_ref(ref: bytes, what: str, *, source: str, name: str, sheet: str) -> ParseError:
    return ParseError(f"sheet {excerpt(sheet)} has a {what} reference {excerpt(ref.decode('latin-1'))!r} that is "
                      "not one", source=source, file=name)


def check_workbook_formulas(content: bytes, *, source: str, name: str, zf: zipfile.ZipFile | None = None) -> None:
    """Every bound on a workbook's parts, checked on the XML before a reader sees it (so every workbook source
    and reader is covered):

    - every part inflates to no more than its declared size (``member_chunks``);
    - every worksheet spans at most ``MAX_GRID_CELLS`` cells from A1 (``check_grid``);
    - no formula cell lacks a cached value: a reader gets nothing for such a cell (the value exists only once a
      spreadsheet program recalculates), and the parsers would have turned it into a gap; ICE's parser refused
      it, the others did not. A text formula may cache an empty string.
    """
    if zf is None:
        try:
            zf = zipfile.ZipFile(io.BytesIO(content))
        except (zipfile.BadZipFile, ValueError, OSError):
            return  # not a workbook after all: the zip check has spoken already
    sheets = worksheet_members(content, zf, source=source, name=name)
    for info in zf.infolist():
        what = f"sheet {excerpt(sheets[info.filename])}" if info.filename in sheets else \
            f"zip member {excerpt(info.filename)}"
        try:
            if info.filename not in sheets:
                for _chunk in member_chunks(content, info, source=source, name=name, what=what):
                    pass  # only its size matters: the reader inflates it too
                continue
            xml = read_member(content, info, source=source, name=name, what=what)
        except _Broken:
            continue  # a broken member is reported by the parser, naming its sheet
        check_grid(xml, source=source, name=name, sheet=sheets[info.filename])
        _check_formulas(xml, source=source, name=name, sheet=sheets[info.filename])


def _check_formulas(xml: bytes, *, source: str, name: str, sheet: str) -> None:
    if b"<f" not in xml:
        return  # no formula at all (most sheets)
    # Only formulas not followed by a non-empty cached value need a look at their cell: scanning every
    # cell of sheets full of formulas took most of a second per rebuild.
    for m in _SUSPECT_F_RE.finditer(xml):
        start = max(xml.rfind(b"<c ", 0, m.start()), xml.rfind(b"<c>", 0, m.start()))
        end = xml.find(b"</c>", m.end())
        cell_xml = _CELL_RE.match(xml, start, end + 4) if start >= 0 and end >= 0 else None
        if cell_xml is None:
            continue
        v = _VALUE_RE.search(cell_xml.group(2))
        typ = _TYPE_RE.search(cell_xml.group(1))
        cached = v is not None and (bool(v.group(1)) or (typ is not None and typ.group(1) == b"str"))
        if not cached:
            ref = _REF_RE.search(cell_xml.group(1))
            cell = ref.group(1).decode() if ref else "?"
            raise ParseError(f"sheet {excerpt(sheet)} cell {cell} holds a formula with no cached value (the "
                             "workbook was saved without calculating); open and save it in a spreadsheet "
                             "program, or get the published file", source=source, file=name)
