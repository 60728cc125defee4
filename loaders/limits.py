"""Bounds on what a raw file may cost to read and parse, checked before any parser sees it.

Why: the parsers trusted their input's size. A 392 KB parquet of 10 million rows took 1.6 GB to load, a 47 MB
JSON 36 s and 1.7 GB, ``/dev/zero`` was read until memory ran out, a FIFO hung the command, and a zip bomb
named ``.bin`` got past a check that looked at the name ``.xlsx``. So, for every source and every path into
a parser (``parse``, ``rebuild``, ``update``):

- only regular files are read (no FIFO, device, directory), and never more than the source's byte cap;
- the kind of a file is decided by its first bytes, not its name: a zip (every XLSX) is checked for bombs and
  for formula cells without a cached value, a parquet for its row count, cells and decoded size (from its
  footer, before anything is loaded), a JSON or CSV for its number of records;
- error messages quote at most a short excerpt of a cell (``errors.excerpt``).
"""
from __future__ import annotations

import io
import os
import re
import stat
import zipfile
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .errors import ParseError, excerpt
from .fetch import check_zip

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


_WIDTH = {"BOOLEAN": 1, "INT32": 4, "FLOAT": 4, "INT64": 8, "DOUBLE": 8, "INT96": 12}


def _row_group_decoded(content: bytes, pf, i: int, *, source: str, name: str) -> int:
    """Bytes one row group takes once decoded (see ``check_parquet``)."""
    rg = pf.metadata.row_group(i)
    total, texts = 0, []
    for j in range(rg.num_columns):
        c = rg.column(j)
        width = c.type_length if c.physical_type == "FIXED_LEN_BYTE_ARRAY" else _WIDTH.get(c.physical_type, 0)
        if c.physical_type == "BYTE_ARRAY" and c.has_dictionary_page:
            texts.append(c.path_in_schema)
        else:
            total += max(c.total_uncompressed_size, c.num_values * width)
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


def _sheet_names(zf: zipfile.ZipFile) -> dict[str, str]:
    """Zip member of each worksheet -> the sheet's name shown in Excel (member name when unknown)."""
    try:
        wb = ElementTree.fromstring(zf.read("xl/workbook.xml"))
        rels = ElementTree.fromstring(zf.read("xl/_rels/workbook.xml.rels"))
    except (KeyError, ElementTree.ParseError):
        return {}
    target = {r.get("Id"): r.get("Target", "") for r in rels.findall("rel:Relationship", _NS)}
    out = {}
    for sheet in wb.findall("m:sheets/m:sheet", _NS):
        t = target.get(sheet.get(f"{{{_NS['r']}}}id"), "")
        member = t.lstrip("/") if t.startswith("/") else "xl/" + t
        out[member] = sheet.get("name", member)
    return out


def _member_xml(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes | None:
    """A worksheet's XML, or None when ``ZipFile.read`` refuses it (encrypted, a bad stream or CRC): the parser
    then reports it, naming its sheet."""
    try:
        return zf.read(info)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, ValueError, OSError, EOFError):
        return None


def check_workbook_formulas(content: bytes, *, source: str, name: str, zf: zipfile.ZipFile | None = None) -> None:
    """Refuse a workbook with a formula cell that has no cached value, naming the sheet and cell.

    A reader gets nothing for such a cell (the value exists only once a spreadsheet program recalculates),
    and the parsers would have turned it into a gap; ICE's parser refused it, the others did not. Checked on
    the XML, so every workbook source and reader is covered. A text formula may cache an empty string.
    """
    if zf is None:
        try:
            zf = zipfile.ZipFile(io.BytesIO(content))
        except (zipfile.BadZipFile, ValueError, OSError):
            return  # not a workbook after all: the zip check has spoken already
    members = {i.filename: i for i in zf.infolist()
               if i.filename.startswith("xl/worksheets/") and i.filename.endswith(".xml")}
    for member in sorted(members):
        xml = _member_xml(zf, members[member])
        if xml is None:
            continue  # a broken member is reported by the parser, naming its sheet
        if b"<f" not in xml:
            continue  # no formula at all (most sheets)
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
                # Parsed only to name the sheet in the error: workbook.xml took a fifth of this check's time.
                sheet = _sheet_names(zf).get(member, member)
                raise ParseError(f"sheet {excerpt(sheet)} cell {cell} holds a formula with no cached value (the "
                                 "workbook was saved without calculating); open and save it in a spreadsheet "
                                 "program, or get the published file", source=source, file=name)
