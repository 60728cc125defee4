"""Small ICE detention-statistics workbooks with the real layout, written with openpyxl.

The layout follows the FY2025 releases: a ``Header`` sheet; ``Detention FY25`` with the currently-detained table
titled in A18 and the book-ins table beside it in I18, the removals block in N27, the ADP table in A90 and the
length-of-stay table in A107; ``Facilities FY25`` with the IIDS line in row 6 and the ``Name`` header in row 7;
``Footnotes`` with each table's name in column A and its "updated through" / "snapshot as of" sentence in B. Labels keep
ICE's trailing spaces (``ICE  ``, ``Average ``),
future months are 0, and every table is found by the parser from its title, so ``shift`` moves them all down.
"""
from __future__ import annotations

import datetime as dt
import io
from dataclasses import dataclass, field

from openpyxl import Workbook

from tests import ice_tables_factory

MONTHS = ["Oct", "Nov", "Dec", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep"]
CRIMS = ["Convicted Criminal", "Pending Criminal Charges", "Other Immigration Violator"]


def months_to(fy: int, through: dt.date, values: list[float]) -> list[float]:
    """Twelve monthly values with ICE's zeros for every month that starts after ``through``."""
    out = []
    for i, v in enumerate(values + [0.0] * (12 - len(values))):
        start = dt.date(fy - 1 if i < 3 else fy, (i + 9) % 12 + 1, 1)
        out.append(v if start <= through else 0.0)
    return out


@dataclass
class Release:
    """What one workbook says. Shares split a total across criminality rows so the parts add up exactly."""

    name: str
    fy: int
    iids: dt.date
    through: dt.date | None = None  # the Footnotes' "updated through" date of the detention and book-ins tables
    docket: dt.date | None = None  # the currently-detained table's "snapshot as of" date (default: ``through``)
    removals_through: dt.date | None = None  # the removals table's "updated through" date (default: ``through``)
    ice: int = 21137
    cbp: int = 22622
    ice_mix: tuple[float, float, float] = (0.55, 0.31, 0.14)  # ICE arrests: mostly convicted or charged
    cbp_mix: tuple[float, float, float] = (0.06, 0.04, 0.90)  # CBP hand-overs: mostly neither
    transpose: bool = False  # reproduce ICE's 2025-02-27 error: ICE and CBP columns swapped
    book_ins_ice: list[float] = field(default_factory=lambda: [8609, 7580, 7884, 11753, 4597])
    book_ins_cbp: list[float] = field(default_factory=lambda: [15004, 13543, 14238, 10237, 1193])
    adp_ice: list[float] = field(default_factory=lambda: [14285.19, 14594.83, 14792.81, 15535.81, 19000.5])
    adp_cbp: list[float] = field(default_factory=lambda: [24426.58, 24395.13, 24341.90, 24666.77, 22000.25])
    adp_fytd: float | None = None  # national FY Overall ADP; default: mean of the months given
    removals: int = 95474
    famu: int | None = 9337
    facilities: list[tuple] = field(default_factory=lambda: [
        ("ADAMS COUNTY DET CENTER", "NATCHEZ", "MS", "NOL", "DIGSA", 2100.0),
        ("STEWART DETENTION CENTER", "LUMPKIN", "GA", "ATL", "DIGSA", 1800.0),
        ("CLINTON COUNTY JAIL", "PLATTSBURGH", "NY", "BUF", "USMS IGA", 10.0),
        ("CLINTON COUNTY JAIL", "LOCK HAVEN", "PA", "PHI", "IGSA", 5.0),
    ])
    facility_total: float | None = None  # scale facility ADPs to sum to this (None: ~98% of the national ADP)
    header_text_date: str | None = None  # a date printed on the Header sheet
    shift: int = 0
    detention_sheet: str | None = None
    facilities_sheet: str | None = None
    extra_table: bool = False
    omit: tuple[str, ...] = ()  # "detained", "book_ins", "adp", "removals", "iids", "alos"
    book_ins_total_error: float = 0.0  # add to the printed book-ins Total row (a sum mismatch)
    # book-outs by reason in the FY2019-20 annual layout (a mid-year FY2021 release: "...: FY2021 YTD")
    book_outs_annual: bool = False


def _split(total: int, mix) -> list[int]:
    parts = [round(total * m) for m in mix[:-1]]
    return parts + [total - sum(parts)]


def build(rel: Release) -> bytes:
    yy = rel.fy % 100
    wb = Workbook()
    h = wb.active
    h.title = "Header"
    h["A1"] = "ICE Detention Statistics"
    h["A2"] = ("These statistics are made available to the public pursuant to the Fiscal Year 2020 Department of Homeland "
               "Security Appropriations Bill.")
    if rel.header_text_date:
        h["A3"] = f"Data current as of {rel.header_text_date}"
    wb.create_sheet(f"ATD FY{yy} YTD")["A1"] = "ICE Alternatives to Detention"
    d = wb.create_sheet(rel.detention_sheet or f"Detention FY{yy}")
    s = rel.shift
    d["A1"] = "U.S. Immigration and Customs Enforcement"
    d["A3"] = f"ICE DETENTION DATA, FY{rel.fy}"
    if rel.extra_table:  # a new table above the others, with look-alike labels
        d["A5"] = f"ICE Currently Detained by Gender: FY{rel.fy}"
        d["A6"], d["B6"], d["C6"] = "Gender", "ICE", "Total"
        d["A7"], d["B7"], d["C7"] = "Total", 1, 1
        s += 4
    d[f"A{8 + s}"] = f"ICE Currently Detained by Processing Disposition and Detention Facility Type: FY{rel.fy}"
    d[f"A{9 + s}"], d[f"D{9 + s}"] = "Processing Disposition", "Total"
    d[f"A{10 + s}"], d[f"D{10 + s}"] = "Total", rel.ice + rel.cbp

    ice_parts, cbp_parts = _split(rel.ice, rel.ice_mix), _split(rel.cbp, rel.cbp_mix)
    if "detained" not in rel.omit:
        r = 18 + s
        d[f"A{r}"] = f"ICE Currently Detained by Criminality and Arresting Agency: FY{rel.fy}"
        for col, v in zip("ABCDEF", ["Criminality", "ICE", "Percent ICE", "CBP", "Percent CBP", "Total"]):
            d[f"{col}{r + 1}"] = v
        rows = [("Total", rel.ice, rel.cbp)] + list(zip(CRIMS, ice_parts, cbp_parts))
        for i, (lab, a, b) in enumerate(rows):
            if rel.transpose:
                a, b = b, a
            t = a + b
            for col, v in zip("ABCDEF", [lab, a, a / t if t else 0, b, b / t if t else 0, t]):
                d[f"{col}{r + 2 + i}"] = v

    through = rel.through or rel.iids
    bi_ice = months_to(rel.fy, through, rel.book_ins_ice)
    bi_cbp = months_to(rel.fy, through, rel.book_ins_cbp)
    if "book_ins" not in rel.omit:
        r = 18 + s
        d[f"I{r}"] = f"ICE Initial Book-Ins by Arresting Agency and Month: FY{rel.fy}"
        cols = [chr(ord("J") + i) for i in range(13)]
        d[f"I{r + 1}"] = "Agency"
        for c, m in zip(cols, MONTHS + ["Total"]):
            d[f"{c}{r + 1}"] = m
        total = [a + b for a, b in zip(bi_ice, bi_cbp)]
        for i, (lab, vals) in enumerate((("Total", total), ("CBP", bi_cbp), ("ICE  ", bi_ice))):
            d[f"I{r + 2 + i}"] = lab
            for c, v in zip(cols, vals + [sum(vals) + (rel.book_ins_total_error if lab == "Total" else 0)]):
                d[f"{c}{r + 2 + i}"] = v
        if rel.book_ins_total_error:
            d[f"K{r + 2}"] = total[1] + rel.book_ins_total_error

    if "removals" not in rel.omit:
        r = 27 + s
        d[f"A{r}"] = f"ICE Initial Book-Ins by Facility Type and Criminality: FY{rel.fy}"
        d[f"H{r}"] = f"ICE Final Book Outs by Facility Type: FY{rel.fy}"
        d[f"N{r}"] = f"ICE Removals: FY{rel.fy}"
        d[f"N{r + 1}"], d[f"P{r + 1}"] = "Removals", "Total"
        d[f"N{r + 2}"], d[f"P{r + 2}"] = "Total", rel.removals
        if rel.famu is not None:
            d[f"N{r + 3}"], d[f"P{r + 3}"] = "Removals with a FAMU Identifier", rel.famu

    adp_ice = months_to(rel.fy, through, rel.adp_ice)
    adp_cbp = months_to(rel.fy, through, rel.adp_cbp)
    # ICE's FY Overall: the monthly means weighted by the days each month covers, the last to ``through``.
    w = _days_covered(rel.fy, through)
    def fy_mean(vals):
        return sum(v * d for v, d in zip(vals, w) if v) / sum(d for v, d in zip(vals, w) if v)
    fytd = rel.adp_fytd if rel.adp_fytd is not None else fy_mean([a + b for a, b in zip(adp_ice, adp_cbp)])
    ice_fytd = fy_mean(adp_ice) if rel.adp_fytd is None else fytd * rel.ice / (rel.ice + rel.cbp)
    if "adp" not in rel.omit:
        _blocks(d, 90 + s, f"ICE Average Daily Population by Arresting Agency, Month and Criminality: FY{rel.fy}",
                adp_ice, adp_cbp, fytd, rel, ice_overall=ice_fytd)
    if "alos" not in rel.omit:
        _blocks(d, 107 + s, f"ICE Average Length of Stay by Arresting Agency, Month and Criminality: FY{rel.fy}",
                [40.0 if v else 0.0 for v in adp_ice], [80.0 if v else 0.0 for v in adp_cbp], 50.0, rel, additive=False)

    f = wb.create_sheet(rel.facilities_sheet or f"Facilities FY{yy}")
    f["A1"] = " "
    f["A3"] = f"ICE FACILITIES DATA, FY{yy}"
    f["A5"] = "This list is limited to facilities that have a population count of greater than or equal to 1."
    if "iids" not in rel.omit:
        f["A6"] = f"Data Source: ICE Integrated Decision Support (IIDS), {rel.iids:%m/%d/%Y}"
    head = ["Name", "Address", "City", "State", "Zip", "AOR", "Type Detailed", "Male/Female", f"FY{yy} ALOS",
            "Level A", "Level B", "Level C", "Level D", "Male Crim", "Male Non-Crim"]
    for c, v in enumerate(head, start=1):
        f.cell(7, c, v)
    target = rel.facility_total if rel.facility_total is not None else 0.98 * fytd
    raw = sum(x[5] for x in rel.facilities)
    for i, (name, city, st, aor, typ, adp) in enumerate(rel.facilities):
        v = adp * target / raw
        for c, x in enumerate([name, "1 MAIN ST", city, st, 10001, aor, typ, "Male", 30.0,
                               v * 0.4, v * 0.3, v * 0.2, v * 0.1, v * 0.5, v * 0.5], start=1):
            f.cell(8 + i, c, x)
    f.cell(10 + len(rel.facilities), 1, "*The info. in this report is subject to change")

    fn = wb.create_sheet("Footnotes")
    fn["A1"] = "Footnotes"
    if rel.through:
        # ICE's layout: the table's name in column A, the sentence with its date in column B, one section each.
        run = rel.through + dt.timedelta(days=2)
        def tail(d):
            return f"{d:%m/%d/%Y} (IIDS Run Date {run:%m/%d/%Y}; EID as of {d:%m/%d/%Y})."
        rem, dock = rel.removals_through or rel.through, rel.docket or rel.through
        for i, (a, b) in enumerate([
            (f"FY{rel.fy} ICE Average Daily Population and ICE Average Length of Stay",
             f"FY{rel.fy} YTD ICE Detention data are updated through " + tail(rel.through)),
            (None, "Family Staging Centers (FSC) include the Karnes County Family Staging Center "
                   "(active end date of 11/03/2021)."),
            (f"FY{rel.fy} ICE Removals", f"FY{rel.fy} YTD ICE Removals data are updated through " + tail(rem)),
            ("ICE Currently Detained Population Breakdown", "ICE National Docket data are a snapshot as of " + tail(dock)),
            (f"FY{rel.fy} ICE Initial Book-Ins", f"FY{rel.fy} YTD ICE Book-ins data is updated through " + tail(rel.through)),
        ]):
            if a:
                fn[f"A{3 + i}"] = a
            fn[f"B{3 + i}"] = b
    ice_tables_factory.add(wb, rel, skip=rel.omit)  # the other tables (loaders/ice_tables.py)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _days_covered(fy: int, through: dt.date) -> list[int]:
    out = []
    for i in range(12):
        start = dt.date(fy - 1 if i < 3 else fy, (i + 9) % 12 + 1, 1)
        end = dt.date(start.year + (start.month == 12), start.month % 12 + 1, 1) - dt.timedelta(days=1)
        out.append(0 if start > through else (min(end, through) - start).days + 1)
    return out


def _blocks(d, r, title, ice, cbp, overall, rel, additive=True, ice_overall=None):
    d[f"A{r}"] = title
    cols = [chr(ord("B") + i) for i in range(13)]
    d[f"A{r + 1}"] = "Agency"
    for c, m in zip(cols, MONTHS + ["FY Overall"]):
        d[f"{c}{r + 1}"] = m
    tot = [a + b for a, b in zip(ice, cbp)] if additive else [(a + b) / 2 for a, b in zip(ice, cbp)]
    row = r + 2
    ice_o = ice_overall if ice_overall is not None else overall * rel.ice / (rel.ice + rel.cbp)
    for lab, vals, mix, o in (("CBP Average", cbp, rel.cbp_mix, overall - ice_o), ("ICE Average  ", ice, rel.ice_mix, ice_o),
                              ("Average ", tot, None, overall)):
        d[f"A{row}"] = lab
        for c, v in zip(cols, vals + [o]):
            d[f"{c}{row}"] = v
        for k, crim in enumerate(CRIMS):
            d[f"A{row + 1 + k}"] = crim
            for j, c in enumerate(cols):
                v = (vals + [o])[j]
                if not additive:
                    d[f"{c}{row + 1 + k}"] = v
                elif mix is not None:
                    d[f"{c}{row + 1 + k}"] = v * mix[k]
                else:  # the overall block: the sum of the two agencies' criminality rows
                    i_, c_ = (ice + [ice_o])[j], (cbp + [overall - ice_o])[j]
                    d[f"{c}{row + 1 + k}"] = i_ * rel.ice_mix[k] + c_ * rel.cbp_mix[k]
        row += 4


def with_sheet_from(content: bytes, other: bytes, sheet: str, as_name: str | None = None, first: bool = False,
                    hidden: bool = False) -> bytes:
    """``content`` with a copy (values only) of sheet ``sheet`` of workbook ``other``: a leftover sheet from another
    release or fiscal year, as ICE's workbooks sometimes carry (FY2023's file holds ``ATD FY24 YTD``; a FY2026
    file a hidden ``Footnotes_DEL`` with FY2020's text: ``hidden``)."""
    from openpyxl import load_workbook

    wb, src = load_workbook(io.BytesIO(content)), load_workbook(io.BytesIO(other))
    ws = wb.create_sheet(as_name or sheet, 0 if first else None)
    if hidden:
        ws.sheet_state = "hidden"
    for row in src[sheet].iter_rows():
        for c in row:
            if c.value is not None:
                ws.cell(c.row, c.column, c.value)
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def rename_sheet(content: bytes, old: str, new: str) -> bytes:
    from openpyxl import load_workbook

    wb = load_workbook(io.BytesIO(content))
    wb[old].title = new
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def edit_cells(content: bytes, sheet: str, cells: dict[str, object]) -> bytes:
    """``content`` with the given cells of ``sheet`` overwritten (``{"L20": 7}``)."""
    from openpyxl import load_workbook

    wb = load_workbook(io.BytesIO(content))
    for ref, v in cells.items():
        wb[sheet][ref] = v
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def swap_bond_rows(content: bytes, *, share_proves_it: bool) -> bytes:
    """ICE's 2026-04-09 bond sheet: the labels of the two count rows swapped; with ``share_proves_it`` the share
    row printed as the swapped ratio ("posted" / "total", 33.40 in ICE's file), as ICE printed it."""
    from openpyxl import load_workbook

    wb = load_workbook(io.BytesIO(content))
    b = wb["Monthly Bond Statistics"]
    b["A4"], b["A5"] = b["A5"].value, b["A4"].value
    if share_proves_it:
        for c in range(2, 15):
            b.cell(6, c).value = b.cell(4, c).value / b.cell(5, c).value
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()
