"""Hostile intake (issue 40): the peak memory and time each attack file takes to be refused, against a bound.

    .venv/bin/python bench/bench_hostile.py [--cap-mb 400]

Builds each attack file with ``tests/hostile_samples.py`` in a temporary folder (a few KB to a few MB each;
the delta-encoded parquet takes the writer some seconds), runs ``python -m loaders parse SOURCE FILE`` on it
in its own process and reads that process's peak resident memory from /usr/bin/time. Each run is also capped
with ``ulimit -v`` (4 GB) so that a regression fails here instead of taking the machine. Asserts that every file is
refused (exit 1, one ``error:`` line naming it) under ``--cap-mb`` of peak memory. Run by hand; the figures go
into BENCHMARKS.md. The tests (tests/test_hostile.py) check the refusals under a 1 GB address-space cap.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, header  # noqa: E402

from tests import fault_samples as fs  # noqa: E402
from tests import hostile_samples as hs  # noqa: E402


def cases(d: Path) -> list[tuple[str, str, Path]]:
    """(what, source, file) for every attack file, built in ``d``."""
    out = []

    def put(what: str, sid: str, name: str, data: bytes | None = None, make=None) -> None:
        sub = d / str(len(out))
        sub.mkdir()
        p = sub / name
        if make:
            make(p)
        else:
            p.write_bytes(data or b"")
        out.append((what, sid, p))
    name, khsm = fs.sample("ohss_khsm")
    put("workbook, cells at A1 and XFD1048576", "ohss_khsm", name, hs.with_far_cell(khsm))
    put("workbook, a cell at A1000000000", "ohss_khsm", name, hs.workbook(hs.sheet_xml(hs.far_cell_rows("A1000000000"))))
    put("workbook, 2,500 rows of 2,500 unreferenced cells", "ohss_khsm", name, hs.unreferenced_wide_rows(2_500, 2_500))
    put("workbook, sheet declared 5,000 B, inflates to 3 GB", "ohss_khsm", name, hs.understated_sheet())
    pq_name = "facilities-daily-population-latest.parquet"
    put("parquet, 4M x 1,000 B strings, DELTA_BYTE_ARRAY", "ddp_facility_daily", pq_name, make=hs.delta_text_parquet)
    put("parquet, 150 MB dictionary", "ddp_facility_daily", pq_name, make=hs.big_dictionary_parquet)
    return out


def run(sid: str, path: Path) -> tuple[int, str, float, float]:
    """(exit code, stderr, seconds, peak RSS in MB) of ``python -m loaders parse`` on one file, measured by
    /usr/bin/time (a child forked from this process would count this process's memory as its own)."""
    cmd = f"ulimit -v {4 << 20}; exec {sys.executable} -m loaders parse {sid} '{path}'"
    t = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "peak_kb=%M", "sh", "-c", cmd], cwd=ROOT, capture_output=True,
                       text=True)
    secs = time.perf_counter() - t
    peak = [ln for ln in r.stderr.splitlines() if ln.startswith("peak_kb=")]
    err = "\n".join(ln for ln in r.stderr.splitlines() if not ln.startswith(("peak_kb=", "Command exited")))
    return r.returncode, err, secs, int(peak[-1].split("=")[1]) / 1024 if peak else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cap-mb", type=float, default=400, help="peak resident memory a refusal may take (MB)")
    args = ap.parse_args()
    header("hostile intake: peak memory to refuse each attack file")
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for what, sid, path in cases(Path(tmp)):
            rc, err, secs, mb = run(sid, path)
            lines = [ln for ln in err.splitlines() if ln.startswith("error:")]
            ok = rc == 1 and len(lines) == 1 and path.name in lines[0] and mb <= args.cap_mb
            failed += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {what:52} {path.stat().st_size / 1e6:7.2f} MB file  "
                  f"{mb:7.0f} MB peak  {secs:5.1f} s  rc={rc}")
            print(f"     {(lines or err.splitlines()[-1:] or [''])[0][:160]}")
    print(f"{'all refused' if not failed else f'{failed} not refused'} under {args.cap_mb:.0f} MB of peak memory")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
