"""Rows as the snapshot stores them: the layout of fiscal-year-to-date series, the values' text, the CSV.

The loaders compute in the drawn layout (a fiscal-year-to-date figure dated by the day it runs to); the snapshot
stores each such figure over its period (``tidy.fytd_periods``: dated 1 October, ending on that day, flagged
``partial`` until 30 September). Everything that writes or describes stored rows goes through here, so that a
rebuild, a kept result and a result put together from per-file parts (``loaders.parts``) write the same bytes.
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
import pandas as pd

from . import registry, tidy
from .base import FISCAL_YTD


def format_values(v: pd.Series) -> pd.Series:
    """Integers without '.0', others as Python's shortest repr: stable text for git diffs and rebuilds."""
    arr = v.to_numpy(dtype="float64")
    whole = np.isfinite(arr) & (arr == np.round(arr)) & (np.abs(arr) < 2**53)
    out = np.empty(len(arr), dtype=object)
    # only the whole values become integers: converting every value first overflowed on 1e308 (a traceback)
    out[whole] = pd.Series(arr[whole]).round().astype("int64").astype(str).to_numpy(dtype=object)
    # repr only for the rest (most values are whole): 0.3 s of a rebuild's 250,000 ICE rows went to repr'ing
    # values then overwritten
    rest = ~whole
    out[rest] = [repr(x) for x in arr[rest].tolist()]
    return pd.Series(out, index=v.index)


def csv_text(df: pd.DataFrame) -> str:
    out = df.copy()
    if "value" in out:
        out["value"] = format_values(out["value"])
    return out.to_csv(index=False, lineterminator="\n")


def csv_lines(df: pd.DataFrame) -> tuple[str, list[str]] | None:
    """``csv_text(df)`` as its header and one line per row (no line ends), or None when a field holds a line
    break (the text of one row would then span lines)."""
    header, *lines = csv_text(df).split("\n")[:-1]
    return (header, lines) if len(lines) == len(df) else None


@functools.lru_cache(maxsize=1)
def fytd_series() -> dict[str, str]:
    """Every declared fiscal-year-to-date series, with the breakdown its stored rows are keyed by."""
    return {s.id: tidy.stored_breakdown(s.breakdown, s.period) for s in registry.catalogue() if s.period == FISCAL_YTD}


def stored_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Rows (or findings) as the snapshot stores them: fiscal-year-to-date series laid out by their period
    (``tidy.fytd_periods``); everything the loaders compute in between uses the drawn layout."""
    out = tidy.fytd_periods(df, fytd_series())
    return tidy.sort_canonical(out) if out is not df and "end" in out else out


def file_facts(df: pd.DataFrame) -> tuple[int, list[str], str | None, str | None]:
    """(rows, distinct releases, first date, last end) of one file's tidy rows, dated as the snapshot stores them
    (a fiscal-year-to-date figure covers the days from 1 October)."""
    return stored_facts(tidy.fytd_periods(df, fytd_series()))


def stored_facts(stored: pd.DataFrame) -> tuple[int, list[str], str | None, str | None]:
    """``file_facts`` of rows already laid out as stored."""
    n = int(len(stored))
    return (n, sorted(r for r in stored["release"].unique() if r), stored["date"].min() if n else None,
            stored["end"].max() if n else None)


class StoredText(NamedTuple):
    """A source's rows as the snapshot's CSV, and what its manifest entry says of them."""

    text: str
    rows: int
    date_min: str | None  # the first stored date (a fiscal-year-to-date figure from 1 October)
    date_max: str | None  # the last day any row covers


def stored_text(obs: pd.DataFrame) -> StoredText:
    """All of a source's rows at once: as the snapshot stores them, and what the manifest says of them."""
    stored = stored_rows(obs)
    n = int(len(stored))
    return StoredText(csv_text(stored), n, stored["date"].min() if n else None, stored["end"].max() if n else None)
