"""Ingest: parse every ICE detention-statistics workbook with the project's loader, against the floor of merely
reading the same sheets with python-calamine, and against a plain openpyxl read. One run, side by side.

    .venv/bin/python bench/bench_ingest.py [--runs 5]

- project: ``loaders.pipeline.parse_files(registry.get("ice_detention_stats"), [(name, bytes), ...])``, the
  rebuild's own path (``build_source`` calls it): per file the zip and formula checks, the parse and the tidy
  frame, then one validation of all the rows (the rebuild validates a source once, not file by file); the
  files' bytes already in memory;
- calamine floor: open each workbook with python-calamine and ``to_python(skip_empty_area=False)`` exactly the
  sheets the loader reads (recorded by watching one project parse of each file), nothing else;
- openpyxl: ``load_workbook(read_only=True, data_only=True)`` and ``iter_rows(values_only=True)`` of the same
  sheets.
Project and floor run alternately, ``--runs`` rounds; best of each (openpyxl: best of 2, after them). Target: project /
calamine floor <= 1.5.
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SHARED, best_of, header, verdict  # noqa: E402

FOLDER = SHARED / "ice-detention-stats"


class _Recorder:
    """Stands in for CalamineWorkbook during one parse, to learn which sheets the loader reads."""

    def __init__(self, wb, seen: list[str]):
        self._wb, self._seen = wb, seen

    def get_sheet_by_name(self, name):
        self._seen.append(name)
        return self._wb.get_sheet_by_name(name)

    def get_sheet_by_index(self, i):
        self._seen.append(self._wb.sheet_names[i])
        return self._wb.get_sheet_by_index(i)

    def __getattr__(self, attr):
        return getattr(self._wb, attr)


def sheets_read(parse, content: bytes, name: str) -> list[str]:
    import python_calamine
    real = python_calamine.CalamineWorkbook
    seen: list[str] = []

    class Recording:
        @staticmethod
        def from_filelike(f):
            return _Recorder(real.from_filelike(f), seen)

        @staticmethod
        def from_path(p):
            return _Recorder(real.from_path(p), seen)

    # The loaders open workbooks through loaders.workbook, which holds its own name for the class.
    from loaders import workbook
    python_calamine.CalamineWorkbook = workbook.CalamineWorkbook = Recording
    try:
        parse(content, name)
    finally:
        python_calamine.CalamineWorkbook = workbook.CalamineWorkbook = real
    return list(dict.fromkeys(seen))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    # The project's own modules: an import error fails the run, never "skips" it.
    from loaders import pipeline, registry
    source = registry.get("ice_detention_stats")
    files = sorted(p for p in FOLDER.glob("original_xlsx*/*.xlsx"))
    if not files:
        print(f"skipped: no workbooks under {FOLDER}/original_xlsx*/")
        return 0
    import openpyxl
    from python_calamine import CalamineWorkbook

    header("Ingest: ICE detention-statistics workbooks")
    blobs = {p.name: p.read_bytes() for p in files}
    sheets = {n: sheets_read(lambda c, nm: pipeline.parse_file(source, c, nm), b, n) for n, b in blobs.items()}
    cells = 0
    for n, b in blobs.items():
        wb = CalamineWorkbook.from_filelike(io.BytesIO(b))
        cells += sum(len(r) for s in sheets[n] for r in wb.get_sheet_by_name(s).to_python(skip_empty_area=False))
    print(f"   {len(files)} workbooks, {sum(map(len, blobs.values())) / 2**20:.1f} MB, "
          f"{sum(map(len, sheets.values()))} sheets read by the loader, {cells:,} cells in them")

    rows = []

    def project():
        rows.append(len(pipeline.parse_files(source, blobs.items())[0]))

    def calamine():
        for n, b in blobs.items():
            wb = CalamineWorkbook.from_filelike(io.BytesIO(b))
            for s in sheets[n]:
                wb.get_sheet_by_name(s).to_python(skip_empty_area=False)

    def plain_openpyxl():
        for n, b in blobs.items():
            wb = openpyxl.load_workbook(io.BytesIO(b), read_only=True, data_only=True)
            for s in sheets[n]:
                for _ in wb[s].iter_rows(values_only=True):
                    pass
            wb.close()

    # Project and floor alternate run by run, so a burst of load from other work on the machine falls on both
    # alike; the ratio of the bests and the median of the per-round ratios are both printed.
    # CPU time of this process is recorded beside the wall clock: other jobs on a shared machine inflate it less.
    times = {"project (parse_files)": [], "calamine floor": []}
    cpu = {k: [] for k in times}
    for _ in range(args.runs):
        for label, fn in (("project (parse_files)", project), ("calamine floor", calamine)):
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            times[label].append(time.perf_counter() - t0)
            cpu[label].append(time.process_time() - c0)
    results = {k: min(v) for k, v in times.items()}
    best, times["openpyxl read_only"] = best_of(plain_openpyxl, max(1, min(args.runs, 2)))
    results["openpyxl read_only"] = best
    for label, ts in times.items():
        print(f"   {label:24} best {results[label]:7.3f} s   (runs: {' '.join(f'{t:.3f}' for t in ts)})")
    print(f"   tidy rows from the project parse: {rows[0]:,}")
    floor = results["calamine floor"]
    ratio = results["project (parse_files)"] / floor
    rounds = statistics.median(p / f for p, f in zip(times["project (parse_files)"], times["calamine floor"]))
    print()
    print(f"project / calamine floor: {ratio:.2f}x (median of the {args.runs} rounds: {rounds:.2f}x)   "
          f"openpyxl / calamine floor: {results['openpyxl read_only'] / floor:.1f}x"
          f"   openpyxl / project: {results['openpyxl read_only'] / results['project (parse_files)']:.1f}x")
    cpu_ratio = min(cpu["project (parse_files)"]) / min(cpu["calamine floor"])
    print(f"CPU time (process_time), best of {args.runs}: project {min(cpu['project (parse_files)']):.3f} s, floor "
          f"{min(cpu['calamine floor']):.3f} s = {cpu_ratio:.2f}x")
    print(f"load average after the run: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    print(f"target project within 1.5x of the floor: {ratio:.2f}x  {verdict(ratio <= 1.5)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
