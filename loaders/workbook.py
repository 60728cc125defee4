"""Workbook helpers and the table-spec reader shared by the spreadsheet sources.

Reading a publisher's workbook takes three steps, each here once:

1. ``open_workbook(content, name, source)``: the bytes as a calamine workbook, or a ParseError naming the file.
2. ``choose_sheet(wb, pattern, what, fy=...)``: the sheet whose name matches ``pattern``. A workbook can carry a
   leftover sheet from another fiscal year (ICE's FY2023 file holds ``ATD FY24 YTD`` beside ``ATD EOFY23``), so
   when several sheets match, the one whose name names fiscal year ``fy`` wins; when none or several do (or the
   only match names another year) the error lists the candidates and what each belongs to.
3. ``read_table(sheet, spec)``: one table found by its title, declared as a ``TableSpec``.

TableSpec -- a table declared as data
-------------------------------------
::

    TableSpec(
        name="book_ins",                       # short id
        heading="ICE Initial Book-Ins by Arresting Agency and Month",  # the printed name, used in errors
        title=r"Initial Book-?Ins by Arresting Agency and Month",   # regex searched in the sheet's text cells
        sheet=r"^\\s*Detention\\b",              # regex on sheet names (chosen by fiscal year, see above)
        columns=MONTHS + ("Total",),           # header labels that must be present (case and spacing ignored)
        layout="grid",                         # "grid": a header row under the title, labelled body rows
                                               # "pairs": label rows with one number to the right (no header)
        series="book_ins_{agency}",            # series id template, filled from the row's fields (see ``rows``)
        rows=AGENCY_ROWS,                      # row label -> fields, e.g. "ICE  " -> {"agency": "ice"}
        required=True,                         # False: a workbook without the table parses, without its rows
        date="book_ins",                       # which of the release's dates the table's figures carry
        notes="...",                           # anything a reader of the spec should know
    )

``read_table`` returns a ``TableRead``: the title cell, the header (label -> column), and the body rows as
``BodyRow(row, label, fields, cells)`` where ``cells`` maps each header label to the raw cell, ``fields`` is what
``spec.rows`` made of the label (a dict; a row label ``spec.rows`` does not know raises an error naming the
sheet, table, row and label) and ``row`` is the 1-based sheet row. ``TableRead.number(body_row, column)``
reads a cell through ``loaders.parsing.number`` so a bad cell names sheet, table, row and column.

Header rows are read from the title's column rightward to the first blank cell (tables sit side by side:
ICE's book-ins table starts two blank columns right of the currently-detained one); ``header_gap`` allows
that many blank cells inside a header. Body rows run to the first row whose label cell is blank; ``stop``
(a regex) also ends the body at a matching label. Whitespace runs in labels are collapsed before comparing
(ICE writes ``ICE  `` and ``Average ``).

Monthly tables (Oct..Sep columns, maybe an "FY Overall" column): ``month_cells(read, fy)`` yields
``(body row, month start, value)`` and ``(body row, None, value)`` for the fiscal-year column. Footnote sheets:
``sections(sheet)`` gives ``(row, section label, text)``, the label carried down from the sheet's label
column (column A as ICE prints it).

Every ICE table is a ``TableSpec``: the headline tables (``ice_detention_stats.TABLES``) and the others
(``ice_tables.TABLES``). For the latter ``columns`` is a mapping, header label (or a tuple of the publisher's
spellings) -> (series id suffix, breakdown member), matched by ``match_columns(read)``, and the spec also says the
fiscal years that carry the table (``first_fy``, ``last_fy``), where its date comes from, and how its keys are made
(``fy_key``, ``row_fy``, ``children``). ``layout`` names the shape the publisher prints (``LAYOUTS``): "grid" and
"pairs" are read here, by ``read_table``; each other shape has one reader in ``ice_tables`` (``READERS``).

A new table is a new ``TableSpec`` plus the few lines that turn its ``BodyRow``s into tidy rows; the sources'
own modules keep their specs in a tuple (``ice_detention_stats.TABLES``, ``ice_tables.TABLES``). For example::

    SPEC = TableSpec("atd_tech", r"ATD .*Technology", sheet=r"^\\s*ATD\\b", columns=("Count",))
    t = read_table(choose_sheet(wb, SPEC.sheet, "ATD", fy=fy, file=name, source=ID), SPEC)
    rows = [{"series": f"{ID}.atd_by_technology", "key": r.label, "value": t.number(r, "Count", lenient=False)}
            for r in t.rows]
"""
from __future__ import annotations

import datetime as dt
import io
import re
from dataclasses import dataclass, field
from math import isfinite
from typing import Callable, Literal, Mapping, overload

from python_calamine import CalamineError, CalamineWorkbook

from .errors import ParseError
from .parsing import number

MONTHS = ("Oct", "Nov", "Dec", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep")


def label(v) -> str:
    """A cell as a label: whitespace runs collapsed ("ICE  " -> "ICE"); "" for an empty cell."""
    if v is None:
        return ""
    return " ".join(str(v).split())


def norm(v) -> str:
    return label(v).lower()


# ---------------------------------------------------------------- workbook and sheets

def open_workbook(content: bytes, name: str, source: str):
    try:
        return CalamineWorkbook.from_filelike(io.BytesIO(content))
    except Exception as e:  # calamine raises its own error types for broken zips/XML
        raise ParseError(f"not a readable workbook ({type(e).__name__}: {e})", source=source, file=name) from None


_FY_IN_NAME = re.compile(r"FY\s*'?(\d{4}|\d{2})(?!\d)", re.I)


def fiscal_year_of(text: str) -> int | None:
    """The fiscal year a sheet name or title names ("Detention FY25", "Facilities EOYFY20 ", "FY2026"), or None."""
    m = _FY_IN_NAME.search(text or "")
    if not m:
        return None
    y = int(m[1])
    return y + 2000 if y < 100 else y


def text_cells(rows: list[list]) -> list[tuple[int, int, str]]:
    """(row, column, label) of every non-empty text cell of a sheet's rows (a whitespace-only cell labelled "")."""
    return [(r, c, label(v)) for r, row in enumerate(rows) for c, v in enumerate(row) if isinstance(v, str) and v]


def column_letter(c: int) -> str:
    """A 0-based column as a spreadsheet names it: 0 -> A, 25 -> Z, 26 -> AA."""
    out = ""
    c += 1
    while c:
        c, rem = divmod(c - 1, 26)
        out = chr(65 + rem) + out
    return out


class Sheet:
    """One sheet's cells (a list of rows), with the file and source named in every error it raises."""

    def __init__(self, name: str, rows: list[list], file: str, source: str):
        self.name, self.rows, self.file, self.source = name, rows, file, source

    def cell(self, r: int, c: int):
        if r < 0 or c < 0:
            return None
        try:
            return self.rows[r][c]
        except IndexError:
            return None

    def fail(self, what: str) -> ParseError:
        return ParseError(f"sheet {self.name!r}: {what}", source=self.source, file=self.file)

    @property
    def texts(self) -> list[tuple[int, int, str]]:
        """(row, column, label) of every non-blank text cell, row-major; built once, searched by every title."""
        t = self.__dict__.get("_texts")
        if t is None:
            t = self._texts = [cell for cell in text_cells(self.rows) if cell[2]]
        return t

    @property
    def label_column(self) -> int:
        """The leftmost column holding any text: the column a sheet's labels are in (column A as ICE prints its
        sheets, further right when a column is put before them). 0 on a sheet without text."""
        return min((c for _r, c, _lab in self.texts), default=0)

    def find(self, pattern: str | re.Pattern, start: int = 0) -> tuple[int, int] | None:
        """The first text cell (row-major from row ``start``) matching ``pattern``, whitespace collapsed."""
        rx = re.compile(pattern, re.I) if isinstance(pattern, str) else pattern
        for r, c, lab in self.texts:
            if r >= start and rx.search(lab):
                return r, c
        return None

    def find_all(self, pattern: str | re.Pattern) -> list[tuple[int, int]]:
        rx = re.compile(pattern, re.I) if isinstance(pattern, str) else pattern
        return [(r, c) for r, c, lab in self.texts if rx.search(lab)]


def read_sheet(wb, sheet_name: str, file: str, source: str) -> Sheet:
    try:
        cells = wb.get_sheet_by_name(sheet_name).to_python(skip_empty_area=False)
    except CalamineError as e:  # the zip opened but this sheet's XML is broken (corrupt or cut-off download)
        raise ParseError(f"sheet {sheet_name!r} is not readable ({type(e).__name__}: {e})", source=source,
                         file=file) from None
    return Sheet(sheet_name, cells, file, source)


# A sheet kept out of the way rather than deleted: "Footnotes_DEL", "ATD_OLD", "Detention FY25 - deleted".
_LEFTOVER = re.compile(r"(?:^|[\s_-])(?:del|deleted|old|bak|backup)\s*$", re.I)


def hidden_sheets(wb) -> set[str]:
    """Names of the workbook's hidden sheets (python-calamine's ``sheets_metadata``; a workbook object without
    it, such as a test's stand-in, has none)."""
    meta = getattr(wb, "sheets_metadata", None) or ()
    return {m.name for m in meta if "visible" not in str(getattr(m, "visible", "visible")).lower()}


def data_sheets(wb, pattern: str) -> list[str]:
    """The names of the visible sheets matching ``pattern`` that are not leftovers by their name: the sheets
    ``choose_sheet_name`` chooses among."""
    rx, hidden = re.compile(pattern, re.I), hidden_sheets(wb)
    return [s for s in wb.sheet_names if rx.search(s) and s not in hidden and not _LEFTOVER.search(s)]


def content_fiscal_year(rows: list[list]) -> int | None:
    """The fiscal year a sheet's own titles and footnotes name most often ("FY2026 ICE Average Daily
    Population ...", "FY2020 YTD ICE Removals data ..."); None when it names none, or two equally often."""
    counts: dict[int, int] = {}
    for _r, _c, lab in text_cells(rows):
        y = fiscal_year_of(lab)
        if y is not None and 2000 <= y <= 2100:
            counts[y] = counts.get(y, 0) + 1
    if not counts:
        return None
    top = sorted(counts.items(), key=lambda kv: -kv[1])
    return None if len(top) > 1 and top[0][1] == top[1][1] else top[0][0]


def choose_sheet_name(names: list[str], pattern: str, what: str, *, fy: int | None, file: str, source: str,
                      required: bool = True, hidden: set[str] | frozenset = frozenset(),
                      content_year: Callable[[str], int | None] | None = None) -> str | None:
    """The sheet name matching ``pattern`` that belongs to fiscal year ``fy`` (see the module docstring).

    Hidden sheets (``hidden``) and leftovers named so ("Footnotes_DEL") hold no data of the release: they are
    not candidates (a FY2026 file carries a hidden ``Footnotes_DEL`` with FY2020's text beside ``Footnotes``).
    Where the names do not settle it (two sheets without a year in the name, or two naming ``fy``),
    ``content_year(name)`` -- the fiscal year the sheet's own titles and footnotes name -- decides; only a real
    tie is refused, naming the candidates."""
    rx = re.compile(pattern, re.I)
    matched = [s for s in names if rx.search(s)]
    hits = [s for s in matched if s not in hidden and not _LEFTOVER.search(s)]
    if not hits:
        if not required:
            return None
        set_aside = f" ({_describe_aside(matched, hidden)})" if matched else ""
        raise ParseError(f"no {what} sheet (no visible sheet name matching /{pattern}/{set_aside}; sheets: "
                         f"{list(names)})", source=source, file=file)
    if len(hits) == 1 and (fy is None or fiscal_year_of(hits[0]) in (None, fy)):
        return hits[0]
    if fy is None:
        raise ParseError(f"{len(hits)} {what} sheets and no fiscal year to choose by: {_describe(hits)}",
                         source=source, file=file)
    same = [s for s in hits if fiscal_year_of(s) == fy]
    if len(same) == 1:
        return same[0]
    if len(same) > 1:
        return _by_content(same, what, fy, file, source, content_year,
                           f"{len(same)} {what} sheets name fiscal year {fy}")
    unnamed = [s for s in hits if fiscal_year_of(s) is None]
    if len(unnamed) == 1:
        return unnamed[0]  # a sheet name without a year ("Footnotes"): the caller checks the titles' year
    if unnamed:
        return _by_content(unnamed, what, fy, file, source, content_year,
                           f"{len(unnamed)} {what} sheets and none names fiscal year {fy}")
    raise ParseError(f"no {what} sheet for fiscal year {fy}; the workbook's {what} sheet(s) belong to another "
                     f"year: {_describe(hits)}", source=source, file=file)


def _by_content(cands: list[str], what: str, fy: int, file: str, source: str, content_year, why: str) -> str:
    """The one candidate whose own titles and footnotes name fiscal year ``fy``; else a refusal naming each
    candidate and the year its content names."""
    years = {s: content_year(s) for s in cands} if content_year is not None else {}
    mine = [s for s in cands if years.get(s) == fy]
    if len(mine) == 1:
        return mine[0]
    said = ", ".join(f"{s!r} (its titles name {'FY%d' % y if (y := years.get(s)) else 'no single fiscal year'})"
                     for s in cands) if years else _describe(cands)
    count = "none of them holds" if not mine else f"{len(mine)} of them hold"
    raise ParseError(f"{why}, and {count} fiscal year {fy} by its titles and footnotes; cannot tell which holds "
                     f"its figures: {said}", source=source, file=file)


def _describe_aside(matched: list[str], hidden) -> str:
    return "set aside: " + ", ".join(f"{s!r} ({'hidden' if s in hidden else 'a leftover by its name'})"
                                    for s in matched)


def _describe(names: list[str]) -> str:
    return ", ".join(f"{s!r} ({'FY%d' % y if (y := fiscal_year_of(s)) else 'no year in the name'})" for s in names)


@overload
def choose_sheet(wb, pattern: str, what: str, *, fy: int | None, file: str, source: str,
                 required: Literal[True] = True) -> Sheet: ...
@overload
def choose_sheet(wb, pattern: str, what: str, *, fy: int | None, file: str, source: str,
                 required: bool) -> Sheet | None: ...


def choose_sheet(wb, pattern: str, what: str, *, fy: int | None, file: str, source: str,
                 required: bool = True) -> Sheet | None:
    """The sheet for ``what`` (``choose_sheet_name``), read; None only when it is not ``required`` (a required
    one that is missing is a ParseError there)."""
    read: dict[str, Sheet] = {}

    def year_of(name: str) -> int | None:
        read[name] = read.get(name) or read_sheet(wb, name, file, source)
        return content_fiscal_year(read[name].rows)

    name = choose_sheet_name(wb.sheet_names, pattern, what, fy=fy, file=file, source=source, required=required,
                             hidden=hidden_sheets(wb), content_year=year_of)
    return None if name is None else (read.get(name) or read_sheet(wb, name, file, source))


# ---------------------------------------------------------------- table specs

RowRule = Callable[[str], "Mapping[str, str] | None"]


@dataclass(frozen=True)
class TableSpec:
    """One table of a workbook, declared as data (see the module docstring). The one spec type of every ICE
    table: the headline tables (``ice_detention_stats.TABLES``) and the rest (``ice_tables.TABLES``)."""

    name: str
    title: str
    sheet: str = r"^\s*Detention\b"
    # Header labels: a tuple of labels that must be present, or a mapping of header label (a tuple lists the
    # publisher's spellings) -> (series id suffix, the breakdown member the column adds to the key; "" adds none,
    # "@" the column's printed label).
    columns: tuple[str, ...] | Mapping = ()
    # The shape the publisher prints (``LAYOUTS``); "grid" and "pairs" are read by ``read_table``, the others by
    # the shape readers of the module that declares them (``ice_tables.READERS``).
    layout: str = "grid"
    series: str | Mapping[str, str] = ""
    rows: RowRule | None = None
    required: bool = True
    # Which date the figures carry: a release date's name ("docket", "book_ins"; headline tables) or where it is
    # read, ("footnote", section, phrase), ("atd",) or ("atd-court",) (``ice_tables``).
    date: str | tuple = ""
    header_gap: int = 0
    stop: str | None = None
    max_rows: int = 200
    heading: str = ""  # the table's name as the publisher prints it, for error messages
    notes: str = ""
    # ---- what the other ICE tables also declare (``ice_tables``)
    period: str = ""  # "snapshot", "fytd", "monthly", "semimonthly", "quarterly"
    first_fy: int = 2019  # the first and last fiscal year whose workbooks carry the table
    last_fy: int = 9999
    label_columns: int = 1  # 2: a second label column splits each group (the first label is carried down)
    month_series: str = ""  # "months": series suffix of the monthly figures
    total_column: str = ""  # "months": series suffix of the fiscal-year column ("FY Overall" / "Total")
    children: frozenset = frozenset()  # "nested": labels nested under the row above them (ATD technologies)
    fy_key: bool = False  # prefix keys with the fiscal year (fiscal-year-to-date figures)
    row_fy: bool = False  # the row label is itself a fiscal year ("FY2026"): it becomes the key's first part
    optional: tuple = ()  # columns a layout may leave out (the family-facility column while none were in use)
    # Release-date windows in which the publisher may leave the table out: missing there is skipped, not an error.
    may_lack: tuple = ()
    label_header: str = ""  # blocks: the header's first label; a block printed without its header reuses the last
    # Monthly grid tables: the spellings of the fiscal-year column printed right of the months ("FY Overall").
    # It is found by its header label wherever it sits in the header row right of the title, past blank cells
    # too (``_fiscal_year_column``).
    fy_column: tuple[str, ...] = ()
    # Other tables declared for the same figures in another year's layout: read instead when this table's title
    # is not on its sheet but theirs is.
    layouts: tuple = ()

    @property
    def what(self) -> str:
        return self.heading or self.name

    def spellings(self) -> dict[str, tuple]:
        """Each header spelling (case and spacing folded) -> (the ``columns`` key, its target)."""
        out: dict[str, tuple] = {}
        items = self.columns.items() if isinstance(self.columns, Mapping) else ((k, None) for k in self.columns)
        for k, target in items:
            for lab in (k if isinstance(k, tuple) else (k,)):
                out[norm(lab)] = (k, target)
        return out


# The shapes ICE prints, each read by one reader: "grid" (labelled rows under a header row) and "pairs" (label rows
# with one number beside them) here; the others in ``ice_tables``: "nested" (field offices with their technologies
# under them), "months" (rows x Oct..Sep), "calendar-months" (rows x dated month columns), "snapshot-days" (year /
# month / mid-end header rows), "monthly-blocks" and "quarterly-blocks" (a block per period, titled by it).
LAYOUTS = ("grid", "pairs", "nested", "months", "calendar-months", "snapshot-days", "monthly-blocks",
           "quarterly-blocks")


@dataclass
class BodyRow:
    row: int  # 1-based sheet row
    label: str
    fields: Mapping[str, str]
    cells: dict[str, object] = field(default_factory=dict)


@dataclass
class TableRead:
    spec: TableSpec
    sheet: Sheet
    title: str
    at: tuple[int, int]  # 0-based (row, column) of the title cell
    header: dict[str, int]
    rows: list[BodyRow]

    def where(self, r: BodyRow) -> str:
        return f"sheet {self.sheet.name!r} table {self.spec.what!r} row {r.row}"

    def number(self, r: BodyRow, column: str, *, lenient: bool = True, missing=frozenset({"", "-"})) -> float | None:
        v = r.cells.get(column)
        if v.__class__ is float and isfinite(v):  # most cells: no need to build the error's row phrase
            return v
        if v is None or (v == "" and "" in missing):  # a blank cell, as ``number`` answers it
            return None
        return number(v, source=self.sheet.source, file=self.sheet.file,
                      row=f"table {self.spec.what!r} sheet {self.sheet.name!r} row {r.row} ({r.label!r})",
                      field=column, missing=missing, lenient=lenient, field_kind="column")

    def fail(self, what: str) -> ParseError:
        return self.sheet.fail(f"table {self.spec.what!r}: {what}")


def _header(sh: Sheet, r: int, c: int, gap: int, spec: TableSpec) -> tuple[int, dict[str, int]]:
    for hr in range(r + 1, min(r + 4, len(sh.rows))):
        row = sh.rows[hr]
        if not any(label(sh.cell(hr, cc)) for cc in range(c, c + 1 + gap)):
            continue
        cols: dict[str, int] = {}
        cc, blanks = c, 0
        while cc < len(row):
            lab = label(row[cc])
            if lab:
                cols.setdefault(lab, cc)
                blanks = 0
            else:
                blanks += 1
                if blanks > gap:
                    break
            cc += 1
        return hr, cols
    raise sh.fail(f"table {spec.what!r}: no header row below its title (row {r + 1})")


def _columns_elsewhere(row: list, c: int, spec: TableSpec, header: dict[str, int]) -> None:
    """Adds to ``header`` the columns ``spec`` wants that are not in it but are elsewhere in its header row: a
    column moved past a blank one or to the left of the title (a publisher's reordering). Of two cells with a
    wanted label, the one nearest the title's column is taken (a neighbouring table may use the same label).
    Nothing changes for a header that has every wanted column."""
    have = {norm(k) for k in header}
    wanted = {s for s in spec.spellings() if s not in have}
    if not wanted:
        return
    for cc in sorted(range(len(row)), key=lambda cc: (abs(cc - c), cc)):
        lab = label(row[cc])
        if lab and norm(lab) in wanted:
            wanted.discard(norm(lab))
            header.setdefault(lab, cc)


def _fiscal_year_column(row: list, c: int, spec: TableSpec, header: dict[str, int]) -> None:
    """Adds ``spec.fy_column`` to ``header`` when the contiguous header lacks it: the first labelled cell right of
    the header (blank cells skipped) is taken when its label is one of the column's spellings. Any other label
    there belongs to something else (a neighbouring table), so the search stops at it."""
    spell = {norm(s) for s in spec.fy_column}
    if not spell or any(norm(k) in spell for k in header):
        return
    cc = max([c, *header.values()]) + 1
    while cc < len(row):
        lab = label(row[cc])
        if lab:
            if norm(lab) in spell:
                header.setdefault(lab, cc)
            return
        cc += 1


def unplaced_columns(t: TableRead, known: tuple[str, ...]) -> list[tuple[str, int]]:
    """(label, 0-based column) of every header column of ``t`` other than its label column whose label is none
    of ``known`` nor ``spec.fy_column``: a column the reader cannot place, whose figures it would leave out."""
    ok = {norm(k) for k in (*known, *t.spec.fy_column)}
    return [(k, cc) for k, cc in t.header.items() if cc != t.at[1] and norm(k) not in ok]


def read_table(sh: Sheet, spec: TableSpec) -> TableRead | None:
    """Find ``spec``'s table on ``sh`` by its title and read it (see the module docstring)."""
    at = sh.find(spec.title)
    if at is None:
        if spec.required:
            raise sh.fail(f"table {spec.what!r} not found (no cell matching /{spec.title}/)")
        return None
    r, c = at
    title = label(sh.cell(r, c))
    if spec.layout == "pairs":
        return _read_pairs(sh, spec, at, title)
    hr, header = _header(sh, r, c, spec.header_gap, spec)
    _columns_elsewhere(sh.rows[hr], c, spec, header)
    _fiscal_year_column(sh.rows[hr], c, spec, header)
    want = {norm(k): k for k in header}
    required = () if isinstance(spec.columns, Mapping) else spec.columns
    missing = [col for col in required if norm(col) not in want]
    if missing:
        raise sh.fail(f"table {spec.what!r}: column(s) {missing} not found in its header row {hr + 1} "
                      f"(header: {list(header)})")
    # Columns by the spec's spelling, whatever spacing and case the sheet used.
    cols = {col: header[want[norm(col)]] for col in required}
    for k, v in header.items():
        cols.setdefault(k, v)
    stop = re.compile(spec.stop, re.I) if spec.stop else None
    rows: list[BodyRow] = []
    rr = hr + 1
    col_items = list(cols.items())
    while rr < len(sh.rows) and len(rows) < spec.max_rows:
        row = sh.rows[rr]
        n = len(row)
        lab = label(row[c] if c < n else None)
        if not lab or (stop and stop.search(lab)):
            break
        # the row's cells read straight from it (header columns are never negative): ``sh.cell`` per cell was
        # a method call for every cell of every table
        rows.append(BodyRow(rr + 1, lab, _fields(sh, spec, rr, lab),
                            {k: row[cc] if cc < n else None for k, cc in col_items}))
        rr += 1
    return TableRead(spec, sh, title, at, cols, rows)


def match_columns(t: TableRead) -> dict:
    """The header columns a spec with a ``columns`` mapping wants: its key -> (the label as printed, its target),
    each key's first spelling left to right; a wanted column missing (and not ``optional``) is an error."""
    spell = t.spec.spellings()
    found: dict = {}
    for lab in t.header:
        if (hit := spell.get(norm(lab))) and hit[0] not in found:
            found[hit[0]] = (lab, hit[1])
    missing = [k if isinstance(k, str) else k[0] for k in t.spec.columns
               if k not in found and k not in t.spec.optional]
    if missing:
        raise t.fail(f"column(s) {missing} not found in header row {t.rows[0].row - 1 if t.rows else '?'} "
                     f"(header: {list(t.header)})")
    return found


def _fields(sh: Sheet, spec: TableSpec, rr: int, lab: str) -> Mapping[str, str]:
    if spec.rows is None:
        return {}
    f = spec.rows(lab)
    if f is None:
        raise sh.fail(f"table {spec.what!r} row {rr + 1}: unknown row label {lab!r}")
    return f


def _read_pairs(sh: Sheet, spec: TableSpec, at: tuple[int, int], title: str) -> TableRead:
    """Label rows with one number to their right (within four columns), in the ``max_rows`` rows under the title."""
    r, c = at
    rows = []
    for rr in range(r + 1, min(r + 1 + spec.max_rows, len(sh.rows))):
        lab = label(sh.cell(rr, c))
        if not lab:
            continue
        val = next((v for cc in range(c + 1, c + 5)
                    if (v := number(sh.cell(rr, cc), lenient=True, missing=frozenset({"", "-"}))) is not None), None)
        if val is None:
            continue  # a heading row ("Removals", "Total")
        rows.append(BodyRow(rr + 1, lab, _fields(sh, spec, rr, lab), {"value": val}))
    return TableRead(spec, sh, title, at, {"value": -1}, rows)


# ---------------------------------------------------------------- monthly tables

def fiscal_month_start(fy: int, month: str):
    """1st of fiscal month ``month`` ("Oct".."Sep") of fiscal year ``fy`` (Oct-Dec fall in the year before)."""
    i = MONTHS.index(month)
    return dt.date(fy - 1 if i < 3 else fy, (i + 9) % 12 + 1, 1)


def month_cells(t: TableRead, fy: int, overall: tuple[str, ...] = ("FY Overall", "Total", "FY Total")):
    """(body row, month start, value) for every Oct..Sep cell of a monthly table, then (body row, None, value)
    for its fiscal-year column when the header has one. Values via ``TableRead.number`` (blank -> None)."""
    col = next((k for k in t.header if norm(k) in {norm(o) for o in overall}), None)
    starts = [(m, fiscal_month_start(fy, m)) for m in MONTHS]  # once per table, not per cell
    for r in t.rows:
        for m, start in starts:
            yield r, start, t.number(r, m)
        if col is not None:
            yield r, None, t.number(r, col)


# ---------------------------------------------------------------- labelled notes (footnote sheets)

def sections(sh: Sheet, label_col: int | None = None) -> list[tuple[int, str, str]]:
    """(1-based row, section label, text) for every row with text: the label is the last non-blank cell of
    ``label_col`` at or above the row (footnote sheets label a section once, then continue below it); the text is
    the row's other cells joined. ``label_col`` defaults to the sheet's own label column (``Sheet.label_column``),
    so that a column put before the notes does not make every label a sentence."""
    if label_col is None:
        label_col = sh.label_column
    out: list[tuple[int, str, str]] = []
    current = ""
    by_row: dict[int, list[tuple[int, str]]] = {}
    for r, c, lab in sh.texts:
        by_row.setdefault(r, []).append((c, lab))
    for r, cells in by_row.items():
        for c, lab in cells:
            if c == label_col:
                current = lab
        rest = " ".join(lab for c, lab in cells if c != label_col)
        if rest:
            out.append((r + 1, current, rest))
    return out
