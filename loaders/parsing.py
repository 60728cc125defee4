"""One way to read numbers and dates out of raw files, with errors that name the row and the field.

Every source used to carry its own number parser and month-end helper (five of each, with slightly different
ideas of what a blank or a thousands separator is). They all call these now, so a cell that is not a number
fails the same way everywhere: ``[source X, file Y] sheet 'Detention FY25' row 23 field 'Oct': 'n/a' is not a
number``.

- ``number(v, ...)``: ints, floats and numeric strings (spaces and thousands separators allowed) to float;
  a missing marker (blank by default; a source passes its own, e.g. ``{"", "NA", "X"}``) to None; anything else
  raises ``ParseError`` naming ``row`` and ``field`` -- or, with ``lenient=True``, gives None (for cells that
  are searched rather than required, such as ICE's future months).
- ``iso_date``, ``mdy``: strict date fields; ``find_mdy``: the first MM/DD/YYYY date inside a sentence.
- ``month_start``, ``month_end``: calendar months (and fiscal months, through ``loaders.fiscal``).

``row`` may be an int (written "row N") or a ready-made phrase ("record 5", "sheet 'X' row 7"); ``field`` is
the column or field name.
"""
from __future__ import annotations

import calendar
import csv
import datetime as dt
import io
import math
import re

from .errors import ParseError

BLANK = frozenset({""})


def where(row: int | str | None, field: str | None, field_kind: str = "field") -> str:
    """'row 12 field 'Oct'' -- the place of a cell, as error messages write it (``field_kind="column"`` for sheets)."""
    parts = []
    if row is not None and row != "":
        parts.append(f"row {row}" if isinstance(row, int) else str(row))
    if field:
        parts.append(f"{field_kind} {field!r}")
    return " ".join(parts) or "value"


def number(v, *, source: str | None = None, file: str | None = None, row: int | str | None = None,
           field: str | None = None, missing: frozenset[str] | set[str] = BLANK, lenient: bool = False,
           field_kind: str = "field") -> float | None:
    """A cell as a float; None for a missing marker; ParseError (naming row and field) for anything else."""
    if v.__class__ is float and math.isfinite(v):  # most cells: a finite float, returned as it is
        return v
    if v is None:
        return None
    if isinstance(v, bool):  # True is an int to Python, never a count to a publisher
        if lenient:
            return None
        raise ParseError(f"{where(row, field, field_kind)}: {v!r} is not a number", source=source, file=file)
    if isinstance(v, (int, float)):
        if isinstance(v, float) and not math.isfinite(v):
            if lenient:
                return None
            raise ParseError(f"{where(row, field, field_kind)}: {v!r} is not a finite number", source=source, file=file)
        return float(v)
    s = str(v).strip()
    if s in missing or s.upper() in missing:
        return None
    try:
        return float(s.replace(",", ""))
    except ValueError:
        if lenient:
            return None
        known = ", ".join(repr(m) for m in sorted(missing) if m)
        raise ParseError(f"{where(row, field, field_kind)}: {v!r} is not a number"
                         + (f" or a missing marker ({known})" if known else ""),
                         source=source, file=file) from None


def date_or_none(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


# The days a source here can report: a date outside is a typing error or a placeholder (9999-12-31), and it
# overflowed the month arithmetic and pandas' timestamps (which end in 2262) with no row or field named.
FIRST_DAY, LAST_DAY = dt.date(1900, 1, 1), dt.date(2099, 12, 31)


def plausible(d: dt.date, v, *, source: str | None = None, file: str | None = None, row: int | str | None = None,
              field: str | None = None) -> dt.date:
    """``d`` (read from ``v``) if it lies in FIRST_DAY..LAST_DAY; a ``ParseError`` naming the row and field if not."""
    if not FIRST_DAY <= d <= LAST_DAY:
        raise ParseError(f"{where(row, field)}: {v!r} is outside the years {FIRST_DAY.year}-{LAST_DAY.year} a source "
                         "can report", source=source, file=file)
    return d


def iso_date(v, *, source: str | None = None, file: str | None = None, row: int | str | None = None,
             field: str | None = None) -> dt.date:
    """A strict YYYY-MM-DD date (a real calendar day, in FIRST_DAY..LAST_DAY)."""
    s = str(v).strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
        d = date_or_none(int(s[:4]), int(s[5:7]), int(s[8:]))
        if d:
            return plausible(d, v, source=source, file=file, row=row, field=field)
    raise ParseError(f"{where(row, field)}: {v!r} is not a real YYYY-MM-DD date", source=source, file=file)


_MDY = re.compile(r"(?<!\d)(\d{1,2})/(\d{1,2})/(\d{4})(?!\d)")


def mdy(v, *, source: str | None = None, file: str | None = None, row: int | str | None = None,
        field: str | None = None) -> dt.date:
    """A strict MM/DD/YYYY date (the whole field, in FIRST_DAY..LAST_DAY)."""
    m = _MDY.fullmatch(str(v).strip())
    d = date_or_none(int(m[3]), int(m[1]), int(m[2])) if m else None
    if d is None:
        raise ParseError(f"{where(row, field)}: {v!r} is not a MM/DD/YYYY date", source=source, file=file)
    return plausible(d, v, source=source, file=file, row=row, field=field)


def find_mdy(text) -> dt.date | None:
    """The first real MM/DD/YYYY date inside a sentence, or None."""
    for m in _MDY.finditer(str(text or "")):
        d = date_or_none(int(m[3]), int(m[1]), int(m[2]))
        if d:
            return d
    return None


def month_start(d: dt.date) -> dt.date:
    return d.replace(day=1)


_LAST_DAY: dict[tuple[int, int], int] = {}
_END: dict[dt.date, dt.date] = {}


def month_end(d: dt.date) -> dt.date:
    """The last day of d's calendar month. Parsers ask for the same few dozen months tens of thousands of times
    (ICE: 36,000 calls a rebuild), so a plain date's answer is remembered (one dict look-up instead of a
    ``replace``), and a month's length is looked up once per (year, month)."""
    if d.__class__ is dt.date:  # not a datetime or Timestamp: those keep their time of day (and type)
        end = _END.get(d)
        if end is None:
            end = _month_end(d)
            if len(_END) < 10_000:
                _END[d] = end
        return end
    return _month_end(d)


def _month_end(d: dt.date) -> dt.date:
    key = (d.year, d.month)
    last = _LAST_DAY.get(key)
    if last is None:
        last = _LAST_DAY[key] = calendar.monthrange(d.year, d.month)[1]
    return d.replace(day=last)


def days(start: dt.date, end: dt.date) -> int:
    """Days covered from start to end, both included."""
    return (end - start).days + 1


def csv_rows(content: bytes, need, *, source: str, file: str):
    """A UTF-8 CSV file's data rows as (line number, {column: raw text}), blank lines skipped; the file refused,
    naming it, when it is not UTF-8, not CSV, empty, lacks a column of ``need`` or has a row of another width.
    The one record reader of the CSV sources whose columns are named (deaths in custody, facility registry)."""
    def fail(msg):
        return ParseError(msg, source=source, file=file)
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise fail(f"not UTF-8 text ({e})") from None
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as e:
        raise fail(f"not a readable CSV file ({e})") from None
    if not rows:
        raise fail("empty file")
    header = [h.strip() for h in rows[0]]
    miss = [c for c in need if c not in header]
    if miss:
        raise fail(f"missing column(s) {miss}")
    for n, r in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in r):
            continue
        if len(r) != len(header):
            raise fail(f"row {n}: {len(r)} fields, header has {len(header)}")
        yield n, dict(zip(header, r))
