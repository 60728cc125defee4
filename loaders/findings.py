"""Quality findings: the table ``quality_flags.csv`` holds, and the marks they leave on the rows they point at.

A check (``Source.check``, ``check_file``, ``check_across``, ``check_tables``, a ``finish`` step) returns findings
with the fields series, key, date, release, file, flag and message; an empty field matches any row. The rows a
finding points at get its code in their ``flag`` (the codes sorted, each once), and the finding itself goes to
the findings table in ``FLAG_COLUMNS`` order. Nothing is corrected.
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

FLAG_COLUMNS = ["source", "series", "key", "date", "release", "file", "flag", "message"]
MATCHED = ("series", "key", "date", "release", "file")  # the fields a finding may point with
_NONE = np.array([], dtype=np.intp)


def finding_table(source_id: str, flags: pd.DataFrame | None) -> pd.DataFrame:
    """``flags`` as the findings table holds them: every column of ``FLAG_COLUMNS`` as text ("" when a check gave
    none), sorted, each finding once."""
    if flags is None or flags.empty:
        return pd.DataFrame(columns=FLAG_COLUMNS)
    flags = flags.assign(source=source_id)
    for c in FLAG_COLUMNS:
        if c not in flags:
            flags[c] = ""
    flags = flags[FLAG_COLUMNS].astype(str).sort_values(FLAG_COLUMNS, kind="mergesort").drop_duplicates()
    return flags.reset_index(drop=True)


def mark_findings(source_id: str, obs: pd.DataFrame, flags: pd.DataFrame | None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The findings as ``finding_table`` gives them, and ``obs`` with every row a finding points at flagged."""
    flags = finding_table(source_id, flags)
    if flags.empty:
        return obs, flags
    return mark_rows(obs, flags), flags


def mark_rows(obs: pd.DataFrame, flags: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``obs`` with each finding's code added to the flag of every row it points at."""
    # The rows holding each value of each field are found once (``groupby().indices``), and a finding's rows are
    # the intersection of its fields' row sets: comparing whole columns once per finding took 34 s of a rebuild
    # of 108 ICE releases (hundreds of findings over 250,000 rows). When every finding names its file, only those
    # files' rows are looked at: the few findings that compare releases then cost their releases' rows, not all.
    files = set(flags["file"])
    scope = None if "" in files else np.flatnonzero(obs["file"].isin(files).to_numpy())
    rows_in = obs if scope is None else obs.iloc[scope]
    where = {col: rows_in.groupby(col, sort=False).indices for col in MATCHED}
    added: dict[int, list[str]] = {}
    for f in flags.itertuples(index=False):
        sets = [where[col].get(val, _NONE) for col in MATCHED if (val := getattr(f, col))]
        rows = np.arange(len(rows_in)) if not sets else functools.reduce(
            lambda a, b: np.intersect1d(a, b, assume_unique=True), sorted(sets, key=len))
        for r in (rows if scope is None else scope[rows]).tolist():
            codes = added.setdefault(r, [])
            if f.flag not in codes:
                codes.append(f.flag)
    obs = obs.copy()
    if added:
        pos = np.fromiter(added, dtype=np.int64, count=len(added))
        col = obs.columns.get_loc("flag")
        old = obs.iloc[pos, col].tolist()
        obs.iloc[pos, col] = [_add_flags(x, added[r]) for x, r in zip(old, pos.tolist())]
    return obs


def with_findings(flags: pd.DataFrame, more: pd.DataFrame) -> pd.DataFrame:
    """Two findings tables as one (``more`` after ``flags``)."""
    if more.empty:
        return flags
    return pd.concat([flags, more], ignore_index=True) if len(flags) else more


def add_flag(existing: str, code: str) -> str:
    """A row's flag with ``code`` added: the codes sorted, each once."""
    codes = [c for c in existing.split(";") if c]
    if code not in codes:
        codes.append(code)
    return ";".join(sorted(codes))


def _add_flags(existing: str, codes: list[str]) -> str:
    """``add_flag`` for several codes at once (the same text as adding them one by one)."""
    for code in codes:
        existing = add_flag(existing, code)
    return existing
