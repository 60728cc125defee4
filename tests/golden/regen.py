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
    from tests.ice_workbook_factory import Release, build, rename_sheet, with_sheet_from
    feb = Release("FY25_detentionStats02272025.xlsx", 2025, D(2025, 2, 18), D(2025, 2, 22), ice=22622, cbp=21137,
                  docket=D(2025, 2, 23))
    fy26 = Release("FY26_detentionStats_02122026.xlsx", 2026, D(2026, 2, 5), D(2026, 2, 7), ice=55000, cbp=13000,
                   book_ins_ice=[36646, 33000, 35000, 34000, 9000], book_ins_cbp=[4995, 4000, 4200, 3600, 800],
                   adp_ice=[52000.0, 53000.0, 54000.0, 55000.0, 56000.0],
                   adp_cbp=[12600.0, 12100.0, 11000.0, 10500.0, 10000.0], removals=150000)
    eoy = Release("FY19-detentionstats.xlsx", 2019, D(2019, 10, 7), D(2019, 9, 30), docket=D(2019, 10, 4),
                  famu=None, book_ins_ice=[11892.0] * 12, book_ins_cbp=[28659.0] * 12, adp_ice=[21367.58] * 12,
                  adp_cbp=[24216.45] * 12, removals=267258)
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
        # errors: a FY26 name over another year's workbook; a yearless sheet titled for another year; no removals
        "error-other-year__FY26_detentionStats_02122026.xlsx": build(replace(feb, name=fy26.name)),
        "error-title-year__FY26_detentionStats_02122026.xlsx": rename_sheet(
            rename_sheet(build(feb), "Detention FY25", "Detention"), "Facilities FY25", "Facilities"),
        "error-no-removals__FY25_detentionStats02272025.xlsx": build(replace(feb, omit=("removals",))),
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
