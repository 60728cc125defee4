"""Write the golden inputs that are built rather than copied, and (re)write the expected output beside each.

    .venv/bin/python tests/golden/regen.py            # show which expected files would change; write nothing
    .venv/bin/python tests/golden/regen.py --write    # rewrite them (then read the diff before committing!)
    .venv/bin/python tests/golden/regen.py --inputs   # also rebuild the generated inputs listed in INPUTS

Layout: ``tests/golden/<source id>/<case>__<file name>`` is an input file; the part after ``__`` is the name the
parser sees (ICE reads the fiscal year and release date from it). Beside it ``<input>.expected.csv`` holds the
validated tidy rows (the snapshot's CSV format) or ``<input>.error.txt`` the error message the parser must give;
``<input>.<table>.csv`` holds a reference table the parser returns. ``tests/test_golden.py`` checks every input.
A new regression is a dropped-in input file plus ``regen.py --write`` (and a look at what it wrote).

Never run by the tests: expected files are only rewritten on purpose.
"""
from __future__ import annotations

import argparse
import datetime as dt
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from loaders import pipeline, registry  # noqa: E402
from loaders.errors import LoaderError  # noqa: E402

D = dt.date


def _ice_inputs() -> dict[str, bytes]:
    from tests.ice_workbook_factory import (Release, build, edit_cells, rename_sheet, swap_bond_rows,
                                           with_sheet_from)
    feb = Release("FY25_detentionStats02272025.xlsx", 2025, D(2025, 2, 18), D(2025, 2, 22), ice=22622, cbp=21137,
                  docket=D(2025, 2, 23))
    fy26 = Release("FY26_detentionStats_02122026.xlsx", 2026, D(2026, 2, 5), D(2026, 2, 7), ice=55000, cbp=13000,
                   book_ins_ice=[36646, 33000, 35000, 34000, 9000], book_ins_cbp=[4995, 4000, 4200, 3600, 800],
                   adp_ice=[52000.0, 53000.0, 54000.0, 55000.0, 56000.0],
                   adp_cbp=[12600.0, 12100.0, 11000.0, 10500.0, 10000.0], removals=150000)
    eoy = Release("FY19-detentionstats.xlsx", 2019, D(2019, 10, 7), D(2019, 9, 30), docket=D(2019, 10, 4),
                  famu=None, book_ins_ice=[11892.0] * 12, book_ins_cbp=[28659.0] * 12, adp_ice=[21367.58] * 12,
                  adp_cbp=[24216.45] * 12, removals=267258)
    fy20 = Release("FY20-detentionstats.xlsx", 2020, D(2020, 9, 30), D(2020, 9, 26), ice=5000, cbp=15000, famu=None)
    apr26 = Release("FY26_detentionStats_04092026.xlsx", 2026, D(2026, 4, 2), D(2026, 4, 4))
    dec24 = Release("FY25_detentionStats12052024.xlsx", 2025, D(2024, 11, 28), D(2024, 11, 30), ice=20000, cbp=18000)
    return {
        # FY2025 mid-year layout: partial February to the footnote date, headcount at the docket date
        "fy25-midyear__FY25_detentionStats02272025.xlsx": build(feb),
        # the same release with moved tables, an extra table and end-of-year sheet names
        "fy25-moved__FY25_detentionStats02272025.xlsx": build(replace(feb, shift=7, extra_table=True,
                                                                     detention_sheet=" Detention EOFY2025 ",
                                                                     facilities_sheet="Facilities EOYFY25 ")),
        # an undated end-of-year file: release = IIDS date, no partial month, headcount after Sep 30
        "eoy__FY19-detentionstats.xlsx": build(eoy),
        # FY2026 with the FY2025 Detention sheet left in front of its own
        "fy26-leftover__FY26_detentionStats_02122026.xlsx": with_sheet_from(build(fy26), build(feb), "Detention FY25",
                                                                            first=True),
        # Once refused whole, read since issue 39: a FY26 name over another year's workbook and yearless sheets
        # titled for another year (each read as that year's release, with a year-from-contents finding); no
        # removals table (the release without it, a table-unread finding)
        "other-year__FY26_detentionStats_02122026.xlsx": build(replace(feb, name=fy26.name)),
        "title-year__FY26_detentionStats_02122026.xlsx": rename_sheet(
            rename_sheet(build(feb), "Detention FY25", "Detention"), "Facilities FY25", "Facilities"),
        "no-removals__FY25_detentionStats02272025.xlsx": build(replace(feb, omit=("removals",))),
        # still refused: no IIDS line, so nothing dates the facility list or the release
        "error-no-iids__FY25_detentionStats02272025.xlsx": build(replace(feb, omit=("iids",))),
        # The layout cases issue 27 brought, each read (never a lost release) with the findings it calls for:
        # a hidden "Footnotes_DEL" holding FY2020's text before FY2026's own Footnotes (not read as data)
        "fy26-hidden-del__FY26_detentionStats_02122026.xlsx": with_sheet_from(
            build(fy26), build(fy20), "Footnotes", as_name="Footnotes_DEL", first=True, hidden=True),
        # a visible leftover named as one ("_DEL")
        "fy26-visible-del__FY26_detentionStats_02122026.xlsx": with_sheet_from(
            build(fy26), build(fy20), "Footnotes", as_name="Footnotes_DEL", first=True),
        # a mid-year FY2021 release printing book-outs by reason in the annual layout ("...: FY2021 YTD")
        "fy21-annual-book-outs__FY21_detentionStats060921.xlsx": build(replace(
            apr26, name="FY21_detentionStats060921.xlsx", fy=2021, iids=D(2021, 5, 31), through=D(2021, 6, 5),
            book_outs_annual=True)),
        # one facility listed twice with different figures (NASSAU COUNTY, ICE's 2025-07-07 file)
        "fy25-listed-twice__FY25_detentionStats02272025.xlsx": build(replace(feb, facilities=feb.facilities + [
            ("NASSAU COUNTY CORRECTIONAL CENTER", "EAST MEADOW", "NY", "NYC", "USMS IGA", 12.0),
            ("NASSAU COUNTY CORRECTIONAL CENTER", "EAST MEADOW", "NY", "NYC", "USMS IGA", 3.0)])),
        # a December book-ins column (7 = 3 CBP + 4 ICE) past the footnote's "updated through 11/30/2024"
        "fy25-stub-column__FY25_detentionStats12052024.xlsx": edit_cells(build(dec24), "Detention FY25",
                                                                         {"L20": 7, "L21": 3, "L22": 4}),
        # the bond sheet's two count rows swapped: proven by the share row (corrected), and not (kept, flagged)
        "fy26-bond-swap-proven__FY26_detentionStats_04092026.xlsx": swap_bond_rows(build(apr26), share_proves_it=True),
        "fy26-bond-swap-unproven__FY26_detentionStats_04092026.xlsx": swap_bond_rows(build(apr26),
                                                                                     share_proves_it=False),
        # a secondary table missing (the ATD field-office table): a table-unread finding, the release kept
        "fy26-no-atd-aor__FY26_detentionStats_04092026.xlsx": build(replace(apr26, omit=("atd_aor",))),
        # a workbook saved under a downloader's own name: dated from its contents, marked, with a finding
        "downloaders-name__download (3).xlsx": build(feb),
    }


def _other_inputs() -> dict[str, dict[str, bytes]]:
    from tests import fault_samples as fs
    trac_name, trac = fs.trac_detention_sample()
    ohss_name, ohss = fs.ohss_monthly_sample()
    bad = trac.replace(b'"ice_all": 14882', b'"ice_all": "14,88x"')
    return {"trac_detention": {f"population__{trac_name}": trac, f"error-bad-number__{trac_name}": bad},
            "ohss_monthly_tables": {f"small__{ohss_name}": ohss}}


def inputs() -> dict[str, dict[str, bytes]]:
    return {"ice_detention_stats": _ice_inputs(), **_other_inputs()}


def cases() -> list[Path]:
    out = []
    for d in sorted(p for p in HERE.iterdir() if p.is_dir() and not p.name.startswith("_")):
        names = sorted(p for p in d.iterdir() if "__" in p.name)
        for p in names:
            # an input is a file no other file in the folder is an output of
            if not any(p.name.startswith(q.name + ".") for q in names if q != p):
                out.append(p)
    return out


def outputs(path: Path) -> dict[str, str]:
    """What the parser makes of one golden input: {output file name: text}."""
    source = registry.get(path.parent.name)
    name = path.name.split("__", 1)[1]
    try:
        p = pipeline.parse_file(source, path.read_bytes(), name)
    except LoaderError as e:
        return {f"{path.name}.error.txt": str(e) + "\n"}
    out = {f"{path.name}.expected.csv": pipeline.csv_text(p.obs)}
    for t, df in sorted(p.tables.items()):
        out[f"{path.name}.{t}.csv"] = df.astype(str).to_csv(index=False, lineterminator="\n")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true", help="rewrite the expected files")
    ap.add_argument("--inputs", action="store_true", help="rebuild the generated inputs first (implies --write)")
    args = ap.parse_args()
    if args.inputs:
        for src, files in inputs().items():
            (HERE / src).mkdir(exist_ok=True)
            for n, b in files.items():
                (HERE / src / n).write_bytes(b)
        args.write = True
    changed = 0
    for path in cases():
        for n, text in outputs(path).items():
            f = path.parent / n
            if not f.exists() or f.read_text() != text:
                changed += 1
                print(("writing " if args.write else "would change ") + str(f.relative_to(HERE)))
                if args.write:
                    f.write_text(text)
    print(f"{changed} expected file(s) {'written' if args.write else 'differ'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
