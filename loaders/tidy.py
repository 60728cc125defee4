"""The one tidy shape, its validation, and the vintage logic.

Every figure is a row:

=========  ==========================================================================================
series     catalogue id, e.g. ``trac_detention.detained`` (metric, agency, unit... live in the catalogue)
key        breakdown member ("" for none): a criminality, a state, a facility...
date       first day the value covers (ISO date)
end        last day the value covers, inclusive (ISO date); a snapshot has ``end == date``; a month
           still in progress has ``end`` = the data date, so "per day" divides by the days covered
value      the number as published (float)
release    the date of the release it came from ("" when the source has no releases)
flag       "" or one or more quality codes joined by ";" (see ``FLAGS``)
file       the raw file it was parsed from; the manifest gives its URL, time, checksum
=========  ==========================================================================================

"As published on D" is, for each (series, key, date), the row of the latest release on or before D.
"""
from __future__ import annotations

import datetime as dt
import math
import re

import numpy as np
import pandas as pd
import pyarrow as pa

from .base import FISCAL_YTD
from .errors import ValidationError

COLUMNS = ["series", "key", "date", "end", "value", "release", "flag", "file"]
IDENTITY = ["series", "key", "date"]
FLAGS = {
    "partial": "the period was still in progress at the data date",
    "transposed": "ICE and CBP columns appear swapped in this release",
    "stale-header": "the release's header date disagrees with its data",
    "sum-mismatch": "parts do not add up to the published total",
    "decreased": "a cumulative fiscal-year figure fell between releases",
    "facility-mismatch": "facility figures do not add up to the national figure",
    "fy-adp-mismatch": "the printed fiscal-year average does not follow from the monthly figures and their days",
    "stale-release": "the release's tables run to a date well before the release's own date",
    "repeated": "the release repeats an earlier release's figures",
    "digitised": "value read off a published chart, not a table",
    "lower-bound": "known to undercount",
    "rounded": "rounded by the publisher",
    "bad-copy": "this copy of the file holds another release's figures",
    "mislabelled": "the publisher's labels do not fit its figures (e.g. two rows' labels swapped); kept as printed",
    "with-duplicates": "raw record count: rows the publisher marks as likely duplicates are included",
    "reposted": "the file is byte for byte one already held, posted again under another name; read once",
    "listed-twice": "the publisher lists this facility more than once with different figures; every listing kept",
    "not-ice-link": "a record's report link is not on www.ice.gov and the record does not say it comes from the press",
    "outside-period": "a record is dated outside the span of the source it says it comes from",
    "future-date": "a record is dated after the day the snapshot was built",
    "duplicate-record": "the same person and date appear on more than one record",
    "unknown-facility": "a record's facility is in none of the facility lists the snapshot holds",
    "table-unread": "a table of this release was missing or in a layout the parser does not know; the release is kept without it",
    "corrected": "corrected from the printed figures, where the file itself proves them wrong (e.g. two rows' labels "
                 "swapped); the finding names the printed values",
    "out-of-range": "the value breaks a rule its series must keep (a fraction in 0-1, a whole count not below 0, a part "
                    "not above its total, a share equal to its parts' ratio)",
    "stub-column": "a month column printed past the table's own data-through date was dropped",
    "column-unread": "a column of a table could not be placed by its header label, or a column the table needs was "
                     "not found; its figures are left out and the rest of the table kept",
    "dated-from-contents": "the file name carries no date of the publisher's: the release is dated from the file's own "
                           "contents (the earliest day it can have been published)",
    "later-known-wrong": "a later release's figure for this period is known to be wrong; this earlier release's figure is shown",
    "partial-coverage": "the source covers only part of this period (its coverage starts or stops inside it): the "
                        "figure counts only the part covered",
    "row-dropped": "a row of a table could not be kept (a figure that is no number or is negative, a row printed twice); "
                   "it is left out and the rest of the release kept",
    "name-date-overruled": "the date in the file name cannot be the release's date (outside its fiscal year): the "
                           "release is dated from the file's own contents",
    "year-from-contents": "the file name names another fiscal year than the sheets hold: the file is read as a release "
                          "of the year its sheets hold",
    "other-year-footnote": "a footnote dates a table outside the release's fiscal year (another year's footnotes left in "
                           "the file): the table takes another date of the release",
}


# Flags that describe a whole series (how it was obtained) rather than a problem with a point: charts state
# them once in a note instead of ringing every point.
INFO_FLAGS = {"digitised", "lower-bound", "rounded", "with-duplicates"}
# Flags that say a figure is wrong as printed (not merely odd): the "latest" view does not let such a figure
# replace an earlier release's figure for the same period (``loaders.data.series_rows``).
KNOWN_WRONG = {"mislabelled", "out-of-range", "transposed"}


def mark_coverage(df: pd.DataFrame, covered: list[tuple[dt.date, dt.date]]) -> pd.DataFrame:
    """A count's rows against the spans its source covers (inclusive dates, in any order): a row whose period
    the spans cover only in part is flagged ``partial-coverage``, and its end is cut to the last day covered
    when the coverage stops inside it (its start stays the period's: it is the row's identity); a row whose
    period no span touches is dropped, since a zero there would count days nobody looked at. Rows come back in
    their order. Any source whose coverage starts or stops inside a month or a fiscal year can use it."""
    if df.empty or not covered:
        return df
    spans = sorted(covered)
    keep, flags, ends = [], [], []
    for start, end, flag in zip(df["date"], df["end"], df["flag"]):
        a, b = dt.date.fromisoformat(str(start)[:10]), dt.date.fromisoformat(str(end)[:10])
        hits = [(max(a, lo), min(b, hi)) for lo, hi in spans if lo <= b and hi >= a]
        keep.append(bool(hits))
        whole = any(lo <= a and b <= hi for lo, hi in spans)
        codes = [c for c in str(flag).split(";") if c]
        if hits and not whole and "partial-coverage" not in codes:
            codes.append("partial-coverage")
        flags.append(";".join(codes))
        ends.append(max(h[1] for h in hits).isoformat() if hits else str(end)[:10])
    out = df.assign(flag=flags, end=_iso_column(pd.Series(ends, index=df.index)))
    return out[keep].reset_index(drop=True)


# ---------------------------------------------------------------- fiscal-year-to-date series
#
# A fiscal-year-to-date series (``Series.period == FISCAL_YTD``) has two layouts, one the inverse of the other:
#
# - stored (the snapshot's files, the data package): the convention of every other series. ``date`` is the
#   period's first day (1 October), ``end`` the day the release's figures run to, ``key`` the breakdown member
#   alone, ``flag`` carries ``partial`` until the year is complete (end before 30 September). A researcher joins
#   it on period and date like any series; the ``latest`` view gives each fiscal year's latest figure.
# - drawn (what the parsers emit, the checks compare and the page plots): one point per release at its data
#   date (``date == end``), the fiscal year first in the key ("FY2026 | Adult"; "FY2026" alone for a series with
#   no other breakdown), so successive releases of a year draw a line and the page's addresses keep their keys.
#   A facility list (breakdown "facility") keeps the facility as its key: the fiscal year is the one holding
#   the date.
_FY_PART = "fiscal year"


def stored_breakdown(breakdown: str, period: str) -> str:
    """What ``key`` holds in the stored layout: the drawn breakdown without its fiscal-year part."""
    if period != FISCAL_YTD:
        return breakdown
    parts = [p for p in breakdown.split(" | ") if p and p != _FY_PART]
    return " | ".join(parts)


def drawn_breakdown(breakdown: str, period: str) -> str:
    """The inverse of ``stored_breakdown``: the fiscal year first, except in a facility list."""
    if period != FISCAL_YTD or not _fy_keyed(breakdown) or breakdown.split(" | ")[0] == _FY_PART:
        return breakdown
    return " | ".join(p for p in (_FY_PART, breakdown) if p)


def _fy_keyed(stored: str) -> bool:
    return stored != "facility"


def _fy_start(day: dt.date) -> dt.date:
    return dt.date(day.year if day.month >= 10 else day.year - 1, 10, 1)


def _flag_with(flag: str, code: str, on: bool) -> str:
    codes = {c for c in flag.split(";") if c} - {code}
    return ";".join(sorted(codes | ({code} if on else set())))


_FY_KEY = re.compile(r"FY(\d{4})(?: \| (.*))?")


def fytd_periods(df: pd.DataFrame, fytd: dict[str, str]) -> pd.DataFrame:
    """Rows of the drawn layout in the stored one (see above). ``fytd`` maps each fiscal-year-to-date series
    id to its stored breakdown; other series' rows, and rows already stored, come back as they are. Works on
    tidy rows (``date``/``end`` ISO text) and on quality findings (no ``end``: the date is the data date)."""
    hit = df["series"].isin(list(fytd)) & (df["date"].astype(str) != "") if len(df) else pd.Series(False, index=df.index)
    if not hit.any():  # (a finding on a whole file or table has no date: nothing to place)
        return df
    out = df.copy()
    has_end = "end" in out
    keys, dates, flags = [], [], []
    for sid, key, date, end, flag in zip(out.loc[hit, "series"], out.loc[hit, "key"], out.loc[hit, "date"],
                                         out.loc[hit, "end"] if has_end else out.loc[hit, "date"],
                                         out.loc[hit, "flag"]):
        day = dt.date.fromisoformat(str(end)[:10])
        m = _FY_KEY.fullmatch(key) if _fy_keyed(fytd[sid]) else None
        if m:
            fy, key = int(m[1]), m[2] or ""
        elif _fy_keyed(fytd[sid]):  # stored already
            fy = dt.date.fromisoformat(str(date)[:10]).year + 1
        else:
            fy = _fy_start(dt.date.fromisoformat(str(date)[:10])).year + 1
        keys.append(key)
        dates.append(dt.date(fy - 1, 10, 1).isoformat())
        flags.append(_flag_with(flag, "partial", has_end and day < dt.date(fy, 9, 30)) if has_end else flag)
    out.loc[hit, "key"] = keys
    out.loc[hit, "date"] = dates
    out.loc[hit, "flag"] = flags
    return out


def fytd_points(df: pd.DataFrame, fytd: dict[str, str]) -> pd.DataFrame:
    """The inverse of ``fytd_periods`` for tidy rows: stored rows in the drawn layout (drawn rows unchanged)."""
    hit = df["series"].isin(list(fytd)) if len(df) else pd.Series(False, index=df.index)
    if not hit.any():
        return df
    out = df.copy()
    keys, flags = [], []
    for sid, key, date, flag in zip(out.loc[hit, "series"], out.loc[hit, "key"], out.loc[hit, "date"],
                                    out.loc[hit, "flag"]):
        if _fy_keyed(fytd[sid]) and not _FY_KEY.fullmatch(key):
            fy = dt.date.fromisoformat(str(date)[:10]).year + 1
            key = " | ".join(p for p in (f"FY{fy}", key) if p)
        keys.append(key)
        flags.append(_flag_with(flag, "partial", False))
    out.loc[hit, "key"] = keys
    out.loc[hit, "flag"] = flags
    out.loc[hit, "date"] = out.loc[hit, "end"]
    return out


def fytd_layout_errors(df: pd.DataFrame, fytd: dict[str, str]) -> list[str]:
    """Where stored rows break the fiscal-year-to-date convention (empty when none does): each fiscal-year-to-
    date row starts on 1 October, ends inside that fiscal year, has no fiscal year in its key, and is flagged
    partial exactly when it ends before 30 September."""
    errors = []
    for i, (sid, key, date, end, flag) in enumerate(zip(df["series"], df["key"], df["date"], df["end"], df["flag"])):
        if sid not in fytd:
            continue
        a, b = dt.date.fromisoformat(str(date)[:10]), dt.date.fromisoformat(str(end)[:10])
        fy_end = dt.date(a.year + 1, 9, 30)
        why = ("date is not 1 October" if (a.month, a.day) != (10, 1) else
               "end is outside the fiscal year" if not a <= b <= fy_end else
               "key holds a fiscal year" if re.match(r"(?:EO)?FY\s*\d", key) else
               "flag partial does not match end" if ("partial" in flag.split(";")) != (b < fy_end) else "")
        if why:
            errors.append(f"row {i} (series {sid}, key {key!r}, date {date}): {why}")
    return errors


COVERAGE_TABLE = "coverage"  # a source's reference table of the spans it covers (``coverage_table``)


def coverage_table(covered: list[tuple[dt.date, dt.date]]) -> pd.DataFrame:
    """The spans a source covers (inclusive dates), as the reference table ``<source>.coverage`` (columns
    ``start``, ``end``). With it, "per day" divides a ``partial-coverage`` period by the days covered
    (``loaders.data.days_covered``), not by the whole period: a row keeps its period's first day as its
    identity, so the rows alone cannot say where coverage starts inside one."""
    spans = sorted(covered)
    return pd.DataFrame({"start": [a.isoformat() for a, _ in spans], "end": [b.isoformat() for _, b in spans]},
                        columns=["start", "end"], dtype=object)


def empty() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series(dtype="float64" if c == "value" else "object") for c in COLUMNS})


def frame(rows: list[dict] | pd.DataFrame) -> pd.DataFrame:
    """Build a tidy frame from row dicts (missing optional columns filled), in the canonical column order."""
    df = pd.DataFrame(rows) if not isinstance(rows, pd.DataFrame) else rows.copy()
    if df.empty:
        return empty()
    for c, default in (("key", ""), ("release", ""), ("flag", ""), ("file", "")):
        if c not in df:
            df[c] = default
    if "end" not in df:
        df["end"] = df["date"]
    for c in ("date", "end", "release"):
        df[c] = _iso_column(df[c])
    for c in ("series", "key", "flag", "file"):
        df[c] = df[c].fillna("").astype(str)
    df["value"] = pd.to_numeric(df["value"], errors="coerce").astype("float64")
    return df[COLUMNS].reset_index(drop=True)


_TEXT = ("series", "key", "flag", "file")


def frame_from_columns(cols: dict[str, list]) -> pd.DataFrame:
    """``frame`` of a parser's columns (lists of equal length, dates as ISO text, values as numbers), built in
    one step with the dtypes ``frame`` gives: a workbook's few thousand rows cost pandas' fixed overhead once
    instead of once per column conversion. Missing optional columns are filled as ``frame`` fills them."""
    n = len(cols["series"])
    if n == 0:
        return empty()
    # Every column on the one index object the frame gets: pandas then neither unions the columns' indexes
    # nor reindexes each column to the union (three times the cost of the frame itself).
    idx = pd.RangeIndex(n)
    data = {}
    for c in COLUMNS:
        v = cols.get(c)
        if v is None:
            if c in _TEXT:  # one text for every row: repeated, not a list of n values converted one by one
                data[c] = repeat_text("", idx)
                continue
            v = cols["date"] if c == "end" else [""] * n
        if len(v) != n:
            raise ValueError(f"column {c!r} has {len(v)} values for {n} rows")
        if c == "value":
            try:  # numbers already (the parsers' case): one conversion
                data[c] = pd.Series(np.asarray(v, dtype="float64"), index=idx, copy=False)
            except (TypeError, ValueError):  # text among them: as ``frame`` does, not-a-number becomes NaN
                data[c] = pd.to_numeric(pd.Series(v, index=idx, dtype=object), errors="coerce").astype("float64")
        elif c in _TEXT:
            data[c] = _text_series(v, missing="", index=idx)
        else:  # date, end, release: ISO text as given (the validator names a bad one), like ``frame``
            data[c] = _iso_column(pd.Series(v, index=idx, dtype=object), fresh=True)
    return pd.DataFrame(data, index=idx, copy=False)


_STR = pd.api.types.pandas_dtype("str")


def _text_series(v: list, missing: str | None = None, index: pd.Index | None = None) -> pd.Series:
    """``pd.Series(v, dtype="str")`` (then ``.fillna(missing)`` when ``missing`` is given), built by pyarrow in
    one call when every value is text or None: pandas' own conversion took about 0.2 microseconds a value, half
    of building an ICE workbook's frame. Anything else in the list (a number, say) takes pandas' path, which
    turns it into text as before."""
    if getattr(_STR, "storage", None) == "pyarrow":
        try:
            arr = pa.array(v, type=pa.large_string())
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
        else:
            if missing is not None and arr.null_count:
                arr = arr.fill_null(missing)
            return pd.Series(pd.arrays.ArrowStringArray(arr, dtype=_STR), index=index, copy=False)
    col = pd.Series(v, index=index, dtype="str")
    return col.fillna(missing) if missing is not None and col.hasnans else col


def repeat_text(text: str, index: pd.Index) -> pd.Series:
    """A "str" column holding ``text`` on every row of ``index`` (a file name, say): pyarrow repeats it about
    four times faster than pandas broadcasts a scalar."""
    if getattr(_STR, "storage", None) == "pyarrow":
        arr = pa.repeat(pa.scalar(text, pa.large_string()), len(index))
        return pd.Series(pd.arrays.ArrowStringArray(arr, dtype=_STR), index=index, copy=False)
    return pd.Series(text, index=index, dtype="str")


def _iso_column(col: pd.Series, fresh: bool = False) -> pd.Series:
    """ISO text for a column of dates: text stays as given (the validator names a bad one), datetime64
    columns are formatted in one step, anything else value by value. ``fresh``: ``col`` was made for this call,
    so a text column is returned as it is instead of copied."""
    if pd.api.types.is_datetime64_any_dtype(col):
        return col.dt.strftime("%Y-%m-%d").fillna("").astype(object)
    # Parsers hand over ISO text already: a text column passes as it is (a missing value becomes "", as _iso
    # makes it), without a Python call per value.
    if isinstance(col.dtype, pd.StringDtype):
        return col.fillna("") if col.isna().any() else col.copy()
    if col.dtype == object and pd.api.types.infer_dtype(col, skipna=False) == "string":
        return col if fresh else col.copy()
    return col.map(_iso)


def _iso(v) -> str:
    if type(v) is str:
        return v
    if type(v) is dt.date:  # the common case from parsers; pd.Timestamp() on it would cost 20x more
        return v.isoformat()
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NaT or v == "":
        return ""
    if isinstance(v, str):
        return v
    return pd.Timestamp(v).date().isoformat()


# Bounds on what a row may hold (issue 32): a count of 1e308 ended in a traceback when the snapshot was written,
# 2.5 encounters were accepted, and a 49 MB field became a series key. No figure of this domain comes near ten
# trillion (dollars included); keys are names of places, facilities and categories (the longest real one has 94
# characters).
MAX_VALUE = 1e13
MAX_KEY_CHARS = 300


def value_rules(series) -> dict[str, bool]:
    """Series id -> whether its values must be whole: flows counted in people or events (a figure "as reported"
    by someone else keeps the value it was printed with)."""
    return {s.id: s.measure == "flow" and s.unit != "as reported" for s in series}


def validate(df: pd.DataFrame, *, source: str, series_ids: set[str], file: str | None = None,
             whole: dict[str, bool] | None = None) -> pd.DataFrame:
    """Check a tidy frame; raise ``ValidationError`` naming the row and field of the first problems.

    ``whole``: series id -> its values must be whole numbers (``value_rules``).

    Returns the frame sorted in the canonical order, so what is written is deterministic.
    """
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ValidationError(f"missing columns {missing}", source=source, file=file)
    # A new frame of the columns, not a copy of their data: pandas' copy-on-write keeps the caller's frame as it
    # was when a column is replaced below (a copy of the 40,000 rows of a source was a millisecond for nothing).
    df = df[COLUMNS]
    problems: list[str] = []
    # A frame of several files (one source's files, validated once per rebuild): a problem names the row's own
    # file and its row number within that file's rows, as a check of that file alone would have.
    per_file = file is None and bool(len(df)) and bool(df["file"].ne("").any())
    bad_files: set[str] = set()

    def report(mask: pd.Series, field: str, what: str):
        for i in np.flatnonzero(np.asarray(mask, dtype=bool))[:5]:
            where = f"row {i + 1}"
            if per_file and isinstance(f := df["file"].iat[i], str) and f:
                bad_files.add(f)
                where = f"file {f!r} row {int((df['file'].iloc[:i + 1] == f).sum())}"
            problems.append(f"{where} field {field!r}: {what} (value {df.iloc[i][field]!r})")

    report(~df["series"].isin(series_ids), "series", "series id not declared in the source's catalogue")
    # The five key columns are factorized once (sorted): the date checks, the duplicate check and the canonical
    # sort all use the same codes, where each used to factorize the columns again.
    ranked = _rank_keys(df)
    dates = _iso_dates(df["date"], ranked and ranked[2])
    ends = _iso_dates(df["end"])
    rel = _iso_dates(df["release"], ranked and ranked[3])
    report(dates.isna(), "date", "not an ISO date")
    report(ends.isna(), "end", "not an ISO date")
    report(_not_blank(df["release"], ranked and ranked[3]) & rel.isna(), "release", "not an ISO date")
    report(ends < dates, "end", "ends before it starts")
    report(dates < pd.Timestamp("1990-01-01"), "date", "implausibly early")
    report(dates > pd.Timestamp.today() + pd.Timedelta(days=366), "date", "in the future")
    vals = pd.to_numeric(df["value"], errors="coerce")
    report(~np.isfinite(vals.to_numpy(dtype="float64", na_value=np.nan)), "value", "not a finite number")
    report(vals < 0, "value", "negative")
    report(vals > MAX_VALUE, "value", f"over {MAX_VALUE:,.0f}, beyond any figure this dashboard shows")
    if whole:
        counted = df["series"].map(whole).fillna(False).astype(bool)
        report(counted & np.isfinite(vals.to_numpy(dtype="float64", na_value=np.nan)) & (vals != vals.round()),
               "value", "not a whole number, and this series counts people or events")
    report(df["key"].astype(str).str.len() > MAX_KEY_CHARS, "key", f"longer than {MAX_KEY_CHARS} characters")
    # A frame holds a handful of distinct flag strings: check each once, then mark the rows that carry a bad one.
    bad_codes = {f for f in df["flag"].unique() if any(x not in FLAGS for x in f.split(";") if x)}
    report(df["flag"].isin(bad_codes), "flag", "unknown flag code")
    if ranked is None:
        order = None
        dup = df.duplicated(subset=list(SORT_KEYS), keep="first")
    else:
        order, dup = _order_and_duplicates([codes for codes, _ in ranked])
    report(dup, "date", "duplicate row for the same series, key, date, release and file")
    if problems:
        more = "" if len(problems) <= 10 else f" (and {len(problems) - 10} more)"
        one = next(iter(bad_files)) if len(bad_files) == 1 else None
        raise ValidationError("; ".join(problems[:10]) + more, source=source, file=file or one)
    df["value"] = vals.astype("float64")
    if order is not None and ranked is not None and all(_plain_text(codes, uniq) for codes, uniq in ranked):
        return df.iloc[order].reset_index(drop=True)  # what sort_canonical gives, from the codes already made
    return sort_canonical(df)


SORT_KEYS = ("series", "key", "date", "release", "file")


def _rank_keys(df: pd.DataFrame) -> list[tuple[np.ndarray, object]] | None:
    """(codes, sorted distinct values) of each of ``SORT_KEYS`` (``pd.factorize(sort=True)``), or None when a
    column's values cannot be sorted against each other (then each check does its own work, as before)."""
    try:
        return [pd.factorize(df[c], sort=True) for c in SORT_KEYS]
    except TypeError:
        return None


def _order_and_duplicates(codes: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The stable order of rows by the key codes, and ``duplicated(keep="first")`` of the keys: in that order a
    row equal to the one before it repeats an earlier row (the sort is stable, so the first one kept is the
    first in the frame). Missing values share the code -1, so they count as equal, as in ``duplicated``."""
    order = np.lexsort(codes[::-1])
    dup = np.zeros(len(order), dtype=bool)
    if len(order) > 1:
        same = np.ones(len(order) - 1, dtype=bool)
        for c in codes:
            s = c[order]
            same &= s[1:] == s[:-1]
        dup[order[1:][same]] = True
    return order, dup


def _plain_text(codes: np.ndarray, uniq) -> bool:
    """No missing value and every distinct value text without a NUL: the condition under which the rank order
    is the order of the NUL-joined key (``sort_canonical``)."""
    if not (codes >= 0).all():
        return False
    values = uniq.tolist() if hasattr(uniq, "tolist") else list(uniq)
    if not all(type(u) is str for u in values):
        return False
    return "\x00" not in "".join(values)


def _not_blank(col: pd.Series, factorized=None) -> pd.Series:
    """``col != ""``, from the column's ``pd.factorize`` when there is one: one comparison per distinct value
    instead of one per row. A missing value (code -1) is not "", as ``!=`` says."""
    if not factorized:
        return col != ""
    codes, uniq = factorized
    per_value = np.append(np.asarray(uniq, dtype=object) != "", True)  # [-1]: the missing values' answer
    return pd.Series(per_value[codes], index=col.index)


def _iso_dates(col: pd.Series, factorized=None) -> pd.Series:
    """Strict ISO dates (anything else NaT), parsed once per distinct value: a source's rows share a few hundred
    dates, and parsing each row's text was most of the validation's date checks. ``factorized``: the column's
    ``pd.factorize`` made already."""
    codes, uniq = factorized if factorized else pd.factorize(col)
    parsed = pd.to_datetime(pd.Series(uniq, dtype=object), format="%Y-%m-%d", errors="coerce").to_numpy()
    if not len(parsed):
        return pd.Series(np.full(len(col), np.datetime64("NaT"), dtype="datetime64[us]"), index=col.index)
    return pd.Series(np.where(codes >= 0, parsed[codes], np.datetime64("NaT")), index=col.index)


def sort_canonical(df: pd.DataFrame) -> pd.DataFrame:
    """Rows in (series, key, date, release, file) order (``canonical_order``)."""
    return df.iloc[canonical_order(df)].reset_index(drop=True)


def canonical_order(df: pd.DataFrame) -> np.ndarray:
    """The stable order of rows by (series, key, date, release, file): the order of the five joined by "\x00"
    (which sorts before every character), computed from per-column ranks when no value holds a NUL."""
    cols = [df[c] for c in SORT_KEYS]
    # Without NUL or missing values the joined-key order is the order of the five columns compared in turn: rank
    # each column's distinct values once (a sorted factorize) and sort the ranks, stable as the argsort below.
    ranked = [pd.factorize(c, sort=True) for c in cols]
    if all(_plain_text(codes, uniq) for codes, uniq in ranked):
        return np.lexsort([codes for codes, _ in ranked][::-1])
    joined = cols[0] + "\x00" + cols[1] + "\x00" + cols[2] + "\x00" + cols[3] + "\x00" + cols[4]
    return np.argsort(joined.to_numpy(dtype=object), kind="stable")


def latest(df: pd.DataFrame) -> pd.DataFrame:
    """Each (series, key, date) from the latest release that covers it."""
    if df.empty:
        return df
    ordered = df.sort_values(["release", "file"], kind="mergesort")
    return ordered.drop_duplicates(IDENTITY, keep="last").sort_values(IDENTITY, kind="mergesort").reset_index(drop=True)


def as_published(df: pd.DataFrame, on: str) -> pd.DataFrame:
    """The view a reader had on date ``on``: only releases on or before it, latest of those per period."""
    keep = (df["release"] == "") | (df["release"] <= on)
    return latest(df[keep])


def revisions(df: pd.DataFrame) -> pd.DataFrame:
    """Every change of a published value between consecutive releases of the same period."""
    d = df[df["release"] != ""].sort_values(IDENTITY + ["release"], kind="mergesort")
    prev = d.groupby(IDENTITY, sort=False)["value"].shift()
    prev_rel = d.groupby(IDENTITY, sort=False)["release"].shift()
    out = d.assign(previous=prev, previous_release=prev_rel)
    out = out[out["previous"].notna() & (out["previous"] != out["value"])]
    out = out.assign(change=out["value"] - out["previous"])
    return out[IDENTITY + ["previous_release", "previous", "release", "value", "change"]].reset_index(drop=True)
