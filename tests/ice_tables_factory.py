"""The tables ``loaders.ice_tables`` reads, added to a workbook built by ``ice_workbook_factory.build``.

The layout is the FY2025-FY2026 one (checked against FY26_detentionStats_04092026.xlsx): on the Detention sheet the
processing-disposition table in A8 with the two fear tables beside it (G8, N8), book-ins and book-outs by facility
type in A27 and H27, book-outs by reason from A36, ADP and ALOS by facility type from A124; the ATD sheet's
technology, status and field-office tables with the court tables beside them; the ICLOS, bond, segregation and
vulnerable-population sheets; and their Footnotes. Footnote sentences sit in their own rows and avoid the words
the main module's "updated through" search keys on, so they never change what that search finds.

Figures are small and consistent: totals are the sums of their parts, so a test can check what it reads.
"""
from __future__ import annotations

import datetime as dt

MONTHS = ["Oct", "Nov", "Dec", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep"]
CRIMS = ["Convicted Criminal", "Pending Criminal Charges", "Other Immigration Violator"]
MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
               "November", "December"]


def _months(fy: int, through: dt.date, base: float) -> list[float]:
    """Twelve values, ICE's 0 for months starting after ``through``; month i holds base + i."""
    out = []
    for i in range(12):
        start = dt.date(fy - 1 if i < 3 else fy, (i + 9) % 12 + 1, 1)
        out.append(base + i if start <= through else 0.0)
    return out


def add(wb, rel, skip: tuple[str, ...] = ()) -> None:
    """Write every table of ``loaders.ice_tables`` for release ``rel`` into ``wb`` (tables named in ``skip``
    are left out, to reproduce a layout that lacks them)."""
    fy, yy = rel.fy, rel.fy % 100
    through = rel.through or rel.iids
    s = rel.shift + (4 if rel.extra_table else 0)
    d = wb[rel.detention_sheet or f"Detention FY{yy}"]

    def put(sheet, cell_rows):
        for r, c, v in cell_rows:
            sheet.cell(r, c, v)

    # Detention sheet: the factory already titled the disposition, book-in and book-out tables; complete them.
    r = 8 + s
    if "disposition" not in skip:
        put(d, [(r + 1, 2, "FSC"), (r + 1, 3, "Adult"), (r + 1, 4, "Total")])
        disp = [("Total", 10, rel.ice + rel.cbp - 10), ("Expedited Removal (I-860)", 4, 1000),
                ("Notice to Appear (I-862)", 6, rel.ice + rel.cbp - 1010 - 10)]
        for i, (lab, f, a) in enumerate(disp):
            put(d, [(r + 2 + i, 1, lab), (r + 2 + i, 2, f), (r + 2 + i, 3, a), (r + 2 + i, 4, f + a)])
    else:
        d.cell(r, 1, None)
    put(d, [(r, 7, "Average Time from USCIS Fear Decision Service Date to ICE Release (In Days)"),
            (r + 1, 7, "ICE Release Fiscal Year"), (r + 1, 9, "FSC"), (r + 1, 10, "Adult"), (r + 1, 11, "Total"),
            (r + 2, 7, f"FY{fy}"), (r + 2, 9, 34.0), (r + 2, 10, 98.5), (r + 2, 11, 97.9),
            (r, 14, f"Aliens with USCIS-Established Fear Decisions in an ICE Detention Facility by Detention "
                    f"Facility Type: FY{fy}"),
            (r + 1, 14, "Detention Facility Type"), (r + 1, 16, "Total Detained"),
            (r + 2, 14, "Total"), (r + 2, 16, 1704), (r + 3, 14, "FSC"), (r + 3, 16, 16),
            (r + 4, 14, "Adult"), (r + 4, 16, 1688)])
    r = 27 + s
    if "removals" not in rel.omit:
        put(d, [(r + 1, 1, "Facility Type")] + [(r + 1, 2 + i, c) for i, c in enumerate(CRIMS + ["Total"])])
        for i, (lab, vals) in enumerate((("Total", [60, 70, 100]), ("FSC", [0, 3, 40]), ("Adult", [60, 67, 60]))):
            put(d, [(r + 2 + i, 1, lab)] + [(r + 2 + i, 2 + j, v) for j, v in enumerate(vals + [sum(vals)])])
        put(d, [(r + 1, 8, "Facility Type"), (r + 1, 10, "Total"), (r + 2, 8, "Total"), (r + 2, 10, 227),
                (r + 3, 8, "FSC"), (r + 3, 10, 7), (r + 4, 8, "Adult"), (r + 4, 10, 220)])

    r = 36 + s
    annual = fy <= 2020 or getattr(rel, "book_outs_annual", False)
    if "book_outs_reason" not in skip and annual:  # FY2019-20: one fiscal-year column per criminality
        d.cell(r, 1, f"ICE Final Releases by Release Reason and Criminality: FY{fy}{' YTD' if fy > 2020 else ''} ")
        put(d, [(r + 1, 1, "Release Reason")] + [(r + 1, 2 + i, c) for i, c in enumerate(CRIMS + ["Total"])])
        for i, (lab, vals) in enumerate((("Total", [120, 80, 900]), ("Bonded Out", [20, 30, 400]),
                                         ("Order of Recognizance", [100, 50, 500]))):
            put(d, [(r + 2 + i, 1, lab)] + [(r + 2 + i, 2 + j, v) for j, v in enumerate(vals + [sum(vals)])])
    elif "book_outs_reason" not in skip:
        d.cell(r, 1, f"ICE Final Book Outs by Release Reason, Month and Criminality: FY{fy}")
        put(d, [(r + 1, 1, "Release Reason"), (r + 1, 2, "Criminality")] +
            [(r + 1, 3 + i, m) for i, m in enumerate(MONTHS + ["Total"])])
        bonded = [_months(fy, through, 10 * (k + 1)) for k in range(3)]
        remove = [_months(fy, through, 100 * (k + 1)) for k in range(3)]
        def sums(parts):
            return [sum(x) for x in zip(*parts)]
        rows = [("Total", "", sums(bonded + remove))]
        for reason, parts in (("Bonded Out", bonded), ("Release to Remove", remove)):
            rows.append((reason, "Total", sums(parts)))
            rows += [("", c, p) for c, p in zip(CRIMS, parts)]
        for i, (a, b, vals) in enumerate(rows):
            put(d, [(r + 2 + i, 1, a or None), (r + 2 + i, 2, b or None)] +
                [(r + 2 + i, 3 + j, v) for j, v in enumerate(vals + [sum(vals)])])

    for r, what, base in ((124 + s, "Average Daily Population", 1000.0), (130 + s, "Average Length of Stay", 40.0)):
        d.cell(r, 1, f"ICE {what} by Facility Type and Month: FY{fy}")
        put(d, [(r + 1, 1, "Facility Type")] + [(r + 1, 2 + i, m) for i, m in enumerate(MONTHS + ["FY Overall"])])
        fam, adult = _months(fy, through, base / 10), _months(fy, through, base)
        tot = [a + b for a, b in zip(fam, adult)]
        for i, (lab, vals) in enumerate((("Total", tot), ("FSC", fam), ("Adult", adult))):
            given = [v for v in vals if v]
            put(d, [(r + 2 + i, 1, lab)] + [(r + 2 + i, 2 + j, v) for j, v in
                                            enumerate(vals + [sum(given) / len(given)])])

    # ATD sheet
    a = wb[f"ATD FY{yy} YTD"]
    asof = f"{through.month:02d}.{through.day:02d}.{through.year}"
    put(a, [(7, 1, "ATD Active Population Counts and Daily Cost by Technology"),
            (8, 1, "Technology"), (8, 2, "Count"), (8, 3, "Daily Tech Cost"),
            (9, 1, "SmartLINK"), (9, 2, 1300), (9, 3, 1248.0), (10, 1, "Ankle Monitor"), (10, 2, 460), (10, 3, 1260.4),
            (11, 1, "Total"), (11, 2, 1760), (11, 3, 2508.4),
            (12, 1, f"Data from BI Inc. Participants Report, {asof}"),
            (7, 5, f"FY{yy} thru {MONTH_NAMES[(through.month - 2) % 12]} Court Appearance: Total Hearings*"),
            (8, 5, "Metric"), (8, 6, "Count"), (8, 7, "%"), (9, 5, "Attended"), (9, 6, 97), (9, 7, 0.97),
            (10, 5, "Failed to Attend"), (10, 6, 3), (10, 7, 0.03), (11, 5, "Total"), (11, 6, 100), (11, 7, 1.0),
            (17, 1, "ATD Active Population by Status, Extended Case Management Service, Count and ALIP"),
            (18, 1, "FAMU Status"), (18, 2, "Count"), (18, 3, "ALIP"), (19, 1, "FAMU"), (19, 2, 700), (19, 3, 900.5),
            (20, 1, "Single Adult"), (20, 2, 1060), (20, 3, 650.0), (21, 1, "Total"), (21, 2, 1760), (21, 3, 749.9),
            (22, 1, f"Data from BI Inc. Participants Report, {asof}"),
            (20, 5, f"FY{yy} thru {MONTH_NAMES[(through.month - 2) % 12]} Court Appearance: Final Hearings*"),
            (21, 5, "Metric"), (21, 6, "Count"), (21, 7, "%"), (22, 5, "Attended"), (22, 6, 9), (22, 7, 0.9),
            (23, 5, "Failed to Attend"), (23, 6, 1), (23, 7, 0.1), (24, 5, "Total"), (24, 6, 10), (24, 7, 1.0)])
    if "atd_aor" not in skip:
        put(a, [(27, 1, f"Active ATD Participants and Average Length in Program, FY{yy},  as of "
                        f"{through:%m/%d/%Y}"),
                (28, 1, "AOR/Technology"), (28, 2, "Count"), (28, 3, "Average Length in Program"),
                (29, 1, "Total"), (29, 2, 1760), (29, 3, 749.9),
                (30, 1, "Atlanta"), (30, 2, 1000), (30, 3, 700.0), (31, 1, "SmartLINK"), (31, 2, 800), (31, 3, 750.0),
                (32, 1, "Ankle Monitor"), (32, 2, 200), (32, 3, 500.0),
                (33, 1, "Boston"), (33, 2, 760), (33, 3, 816.0), (34, 1, "SmartLINK"), (34, 2, 500), (34, 3, 900.0),
                (35, 1, "Ankle Monitor"), (35, 2, 260), (35, 3, 654.5)])

    # ICLOS and Detainees: Jan..(through's month) of the year before and this one; mid = 15th, end = month end.
    ic = wb.create_sheet(" ICLOS and Detainees")
    ic.cell(1, 1, "Average In Custody Length of Stay (ICLOS)")
    ic.cell(13, 1, "Detainees")
    points, c = [], 2
    for y in (through.year - 1, through.year):
        for m in range(1, 13 if y < through.year else through.month + 1):
            for half in ("mid ", "end"):
                points.append((c, y, m, half))
                c += 1
    for top in (4, 16):
        ic.cell(top, 1, "Population ")
        for c, y, m, half in points:
            if m == 1 and half == "mid ":
                ic.cell(top, c, float(y))
            if half == "mid ":
                ic.cell(top + 1, c, MONTH_NAMES[m - 1])
            ic.cell(top + 2, c, half)
    def reached(y, m, half):
        day = dt.date(y, m, 15) if half == "mid " else (dt.date(y + m // 12, m % 12 + 1, 1) - dt.timedelta(1))
        return day <= through
    for i, lab in enumerate(["Adult Facility Aliens", "FSC Facility Individuals", "Total"]):
        ic.cell(7 + i, 1, lab)
        for k, (c, y, m, half) in enumerate(points):
            ic.cell(7 + i, c, (40.0 + k / 10 + i) if reached(y, m, half) else 0.0)
    ic.cell(19, 1, "Adult Facility Aliens")
    for i, band in enumerate(["0-180 Days", "181-365 Days", "Total"]):
        ic.cell(20 + i, 1, band)
        for k, (c, y, m, half) in enumerate(points):
            v = [1000 + k, 50, 1050 + k][i]
            ic.cell(20 + i, c, float(v) if reached(y, m, half) else 0.0)

    # Monthly Bond Statistics: the 12 months before through's month and that month.
    b = wb.create_sheet("Monthly Bond Statistics")
    b.cell(1, 1, f"FY{fy} Bonded Out Book Outs Count and ALOS - Prior 12 months plus Current Month")
    first = dt.date(through.year - 1, through.month, 1)
    months = [dt.date(first.year + (first.month - 1 + i) // 12, (first.month - 1 + i) % 12 + 1, 1) for i in range(13)]
    labels = ["Total ICE Final Book Outs", "ICE Final Book Outs with Bond Posted", "Bond Posted Book Outs/Releases (%)",
              "Average Bond Amount ($)", "ALOS (Days)"]
    for i, m in enumerate(months):
        b.cell(3, 2 + i, m)
        tot, bond = 20000 + 100 * i, 1000 + 10 * i
        for j, v in enumerate([tot, bond, bond / tot, 7000.0 + i, 50.0 + i]):
            b.cell(4 + j, 2 + i, v)
    for j, lab in enumerate(labels):
        b.cell(4 + j, 1, lab)

    # Monthly Segregation (the two months before through's month) and quarterly vulnerable-population blocks.
    g = wb.create_sheet(f"FY{yy} Monthly Segregation")
    g.cell(1, 1, "U.S. Immigration and Customs Enforcement\nThis Segregation Review Management System (SRMS) data")
    row = 5
    for back in (1, 2):
        m = dt.date(through.year, through.month, 1) - dt.timedelta(days=1)
        m = m.replace(day=1) if back == 1 else (m.replace(day=1) - dt.timedelta(days=1)).replace(day=1)
        put(g, [(row, 1, f"{MONTH_NAMES[m.month - 1]} {m.year}"), (row + 1, 1, "Facilities"),
                (row + 1, 2, "Placement Count"), (row + 2, 1, "STEWART DETENTION CENTER"), (row + 2, 2, 40 + back),
                (row + 3, 1, "ADELANTO ICE PROCESSING CENTER"), (row + 3, 2, 30), (row + 4, 1, "Grand Total"),
                (row + 4, 2, 70 + back)])
        row += 8
    v = wb.create_sheet("Vulnerable & Special Population")
    v.cell(1, 1, "Definition for Vulnerable and Special Populations ")
    row = 5
    for q in (1, 2):
        put(v, [(row, 1, f"Fiscal Year (FY) {fy - 1} Quarter {q} Data"), (row + 1, 1, "Placement Reason"),
                (row + 1, 2, "Number of Placements"), (row + 1, 3, "Average Number of Consecutive Days in Segregation"),
                (row + 1, 4, "Average Number of Cumulative Days in Segregation"),
                (row + 2, 1, "Disciplinary"), (row + 2, 2, 40 + q), (row + 2, 3, 14.5), (row + 2, 4, 19.6),
                (row + 3, 1, "Medical Mental" if q == 2 else "Medical/Mental Health"), (row + 3, 2, 200),
                (row + 3, 3, 10.5), (row + 3, 4, 12.6),
                (row + 4, 1, "Grand Total"), (row + 4, 2, 240 + q), (row + 4, 3, 11.2), (row + 4, 4, 13.7),
                (row + 6, 1, "* Data represents 230 unique detainees.")])
        row += 11

    # Footnotes: headings and sentences in separate rows, below what the factory wrote.
    fn = wb["Footnotes"]
    t = f"{through:%m/%d/%Y}"
    notes = [
        ("FY ICE Average Daily Population and ICE Average Length of Stay", f"FY{fy} YTD ICE Detention data are "
                                                                         f"updated through {t}"),
        (f"FY{fy} ICE Final Book Outs", f"FY{fy} YTD ICE Final Book Out data are updated through {t}"),
        ("ICE Currently Detained Population Breakdown", f"ICE National Docket data are a snapshot as of {t}"),
        ("FY ICE Initial Book-Ins", f"FY{fy} YTD ICE detention intake data are updated through {t}"),
        ("USCIS Average Time from USCIS Fear Decision Service Date to ICE Release (In Days)",
         f"Aliens Currently in ICE Detention Facilities data are a snapshot as {t}"),
        ("", f"FY{fy} YTD ICE Final Book Out data are updated through {t}"),
        ("ICLOS and Detainees ", f"ICE ICLOS and Detainees Data are updated through {t}"),
        ("Monthly Bond Statistics", f"FY{fy} YTD ICE Final Book Out data are updated through {t}"),
    ]
    row = 10
    for head, text in notes:
        if head:
            fn.cell(row, 1, head)
            row += 1
        fn.cell(row, 2, text)
        row += 1
