"""Record-level arrests: 5 million generated rows with DDP's arrest schema, aggregated to daily counts, the
project's path (loaders.ddp_records.aggregate_records, DuckDB on the parquet) against plain pandas.

    .venv/bin/python bench/bench_records.py [--rows 5000000] [--runs 3]

The rows use the column names ``loaders/ddp_records.py`` reads (ARRESTS): apprehension_date,
apprehension_aor, apprehension_state_filled_in, apprehension_criminality, apprehension_method,
duplicate_drop_row, duplicate_likely, unique_identifier, plus three columns nobody reads (citizenship_country,
gender, birth_year) as in DDP's files. Values: 2023-09-01..2025-10-15, the 25 AOR names of DDP's codebook
(../shared/data/ddp-arrests-aggregates/ddp-codebook/ice-areas-of-responsibility.csv), ICE's three criminality
labels, 1% blank AOR/state (counted as "(not recorded)"), 3% rows flagged duplicate_drop_row. Generated with
numpy and written with pyarrow to a temporary parquet (zstd).

Two tasks, each timed best of ``--runs``, both engines producing the same counts (checked):
- "AOR and criminality": daily national counts, daily by AOR, daily by criminality, after dropping DDP's
  duplicate rows: ``aggregate_records(path, ARRESTS restricted to those two breakdowns)`` vs pandas
  ``read_parquet(columns=...)`` + filter + three ``groupby().size()``;
- "all four breakdowns": what the project stores for arrests (AOR, state, criminality, method):
  ``aggregate_records(path, "arrests")`` vs the same in pandas.
The project's times include everything ``aggregate_records`` does (its second pass counting rows, undated
rows and dropped duplicates, and building the validated tidy frame). Target: under 1 s and >= 5x faster
than pandas.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import functools
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import SHARED, best_of, header, verdict  # noqa: E402

CODEBOOK = SHARED / "ddp-arrests-aggregates" / "ddp-codebook" / "ice-areas-of-responsibility.csv"
CRIMINALITY = ["1 Convicted Criminal", "2 Pending Criminal Charges", "3 Other Immigration Violator"]
METHODS = ["CAP Local Incarceration", "Located", "Non-Custodial Arrest", "Probation and Parole", "Other efforts",
           "CAP State Incarceration", "CAP Federal Incarceration", "287(g) Program", "Inspections", "Patrol Border"]
STATES = ["AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA",
          "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK",
          "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY", "DC", "PR"]
NOT_RECORDED = "(not recorded)"


def aor_names() -> list[str]:
    if CODEBOOK.exists():
        with CODEBOOK.open(newline="", encoding="utf-8") as f:
            names = sorted({r["office_name"].strip() for r in csv.DictReader(f, skipinitialspace=True)} - {""})
        if names:
            return [f"{n} Area of Responsibility" for n in names]
    return [f"Field office {i}" for i in range(25)]


def generate(path: Path, n: int, seed: int = 7) -> float:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)

    def labels(values: list[str], weights=None, blank: float = 0.0):
        p = None if weights is None else np.asarray(weights, dtype=float) / np.sum(weights)
        idx = rng.choice(len(values), size=n, p=p).astype("int32")
        arr = pa.DictionaryArray.from_arrays(pa.array(idx), pa.array(values)).cast(pa.string())
        if blank:
            arr = pa.compute.if_else(pa.array(rng.random(n) < blank), pa.scalar(""), arr)
        return arr

    start = np.datetime64("2023-09-01")
    days = int((np.datetime64("2025-10-15") - start).astype(int)) + 1
    # More arrests later in the period, as in the real series.
    day = np.minimum((rng.power(1.6, n) * days).astype("int64"), days - 1)
    aors = aor_names()
    table = pa.table({
        "apprehension_date": pa.array(start + day.astype("timedelta64[D]"), type=pa.date32()),
        "apprehension_aor": labels(aors, rng.uniform(0.3, 3, len(aors)), blank=0.01),
        "apprehension_state_filled_in": labels(STATES, rng.uniform(0.1, 5, len(STATES)), blank=0.01),
        "apprehension_criminality": labels(CRIMINALITY, [0.35, 0.25, 0.40]),
        "apprehension_method": labels(METHODS, rng.uniform(0.2, 3, len(METHODS))),
        "duplicate_drop_row": pa.array(rng.random(n) < 0.03),
        "duplicate_likely": pa.array(rng.random(n) < 0.06),
        "unique_identifier": pa.array(rng.integers(0, n // 2, n)).cast(pa.string()),
        "citizenship_country": labels(["MEXICO", "GUATEMALA", "HONDURAS", "EL SALVADOR", "VENEZUELA", "COLOMBIA",
                                       "ECUADOR", "CUBA", "HAITI", "INDIA", "CHINA", "BRAZIL"]),
        "gender": labels(["Male", "Female", "Unknown"], [0.85, 0.14, 0.01]),
        "birth_year": pa.array(rng.integers(1950, 2008, n).astype("int32")),
    })
    pq.write_table(table, path, compression="zstd")
    return time.perf_counter() - t0


def pandas_counts(path: Path, breakdowns: dict[str, str]) -> dict:
    """Plain pandas: read the columns needed, drop DDP's duplicate rows, count per day (and per member)."""
    import pandas as pd
    cols = ["apprehension_date", "duplicate_drop_row", *breakdowns.values()]
    df = pd.read_parquet(path, columns=cols)
    df = df[~df["duplicate_drop_row"].fillna(False).astype(bool)]
    out = {"": df.groupby("apprehension_date").size()}
    for b, col in breakdowns.items():
        member = df[col].str.strip().replace("", NOT_RECORDED).fillna(NOT_RECORDED)
        out[b] = df.groupby([df["apprehension_date"], member]).size()
    return out


def same_counts(project, pandas_out, table) -> bool:
    """The project's tidy rows against pandas' counts: same totals per breakdown, same national series."""
    from loaders.ddp_records import series_id
    for b, counts in pandas_out.items():
        rows = project[project["series"] == series_id(table, b)]
        if int(rows["value"].sum()) != int(counts.sum()) or len(rows) != len(counts):
            return False
    return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=5_000_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    from loaders import ddp_records  # the project's own module: an import error fails the run, never "skips" it
    header("Record-level arrests: daily counts from generated DDP-schema rows")
    two = dataclasses.replace(ddp_records.ARRESTS, breakdowns={k: v for k, v in ddp_records.ARRESTS.breakdowns.items()
                                                               if k in ("aor", "criminality")})
    with tempfile.TemporaryDirectory(prefix="bench-records-") as tmp:
        path = Path(tmp) / "arrests-latest.parquet"
        took = generate(path, args.rows)
        print(f"   generated {args.rows:,} rows in {took:.1f} s: {path.stat().st_size / 2**20:.0f} MB parquet (zstd)")
        results = []
        for label, table, cols in (
            ("AOR and criminality", two, {"aor": "apprehension_aor", "criminality": "apprehension_criminality"}),
            ("all four breakdowns", ddp_records.ARRESTS,
             {"aor": "apprehension_aor", "state": "apprehension_state_filled_in",
              "criminality": "apprehension_criminality", "method": "apprehension_method"}),
        ):
            proj_out = ddp_records.aggregate_records(path, table)
            pd_out = pandas_counts(path, cols)
            ok = same_counts(proj_out, pd_out, table)
            t_proj, runs_proj = best_of(functools.partial(ddp_records.aggregate_records, path, table), args.runs)
            t_pd, runs_pd = best_of(functools.partial(pandas_counts, path, cols), args.runs)
            print(f"   {label}: project {t_proj:.3f} s (runs {' '.join(f'{t:.3f}' for t in runs_proj)}), "
                  f"pandas {t_pd:.3f} s (runs {' '.join(f'{t:.3f}' for t in runs_pd)}); "
                  f"{len(proj_out):,} tidy rows; same counts: {ok}")
            results.append((label, t_proj, t_pd, ok))
    print()
    for label, t_proj, t_pd, ok in results:
        speed = t_pd / t_proj
        print(f"{label:22} project {t_proj:.3f} s, pandas {t_pd:.3f} s, {speed:.1f}x faster; "
              f"target < 1 s and >= 5x: {verdict(t_proj < 1 and speed >= 5 and ok)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
