"""Figures reported by officials and the press (curated in this project: ``data/reported_figures.csv``).

Not a dataset anyone publishes: each row is one figure as somebody reported it (ICE's daily posts of late January
2025, DHS statements, newspaper analyses, TRAC bulletins, analysts), with the period it covers, who reported it,
the URL where it was read and a source-quality tier. Curated from the project's research notes
(``shared/research/reported_figures.csv`` and companions); the notes are written afresh.

Rules the file follows, checked on every load (errors name the file, row and field):
- ``period_start``/``period_end`` are real ISO dates and the end is not before the start; a statement made on one
  day about a goal (a target) uses that day for both.
- ``metric`` is one of ``METRICS`` and is never mixed: an ICE arrest is not a book-in, DHS-wide arrests are not
  ICE arrests, a target is not a count.
- ``value`` is a number. "Fewer than 600" is stored as 600 with "upper bound" in ``unit``; a range is two rows.
- ``url`` is the original's own http(s) address: the outlet's article, the agency's own release or post. A row
  whose original could not be found (``link_status`` ``not found``; the "787 a day" figure, and copies whose
  original's address the research could not establish) has none and names the original's outlet, title and date.
- ``source_quality`` is one of ``QUALITY``. Where sources disagree, both rows are kept.
- ``unit`` starts with the word of the metric's kind (``UNIT_WORD``): an "arrests" row whose unit says book-ins,
  or the reverse, is refused, because that is exactly how a book-in figure gets printed as an arrest figure.
- ``kind`` says what the figure is (``KINDS``): a ``count``, an ``estimate`` (approximate, scaled, one end of a
  range), a ``bound`` ("fewer than", "more than"), a ``target`` (a goal or quota, never a count) or a ``claim``
  (a statement whose basis is not given). ``bound`` is ``upper`` ("at most", "fewer than") or ``lower`` ("at
  least", "more than") for a bound and empty otherwise. A target is metric ``target_per_day`` and the reverse;
  a unit that says "upper bound"/"lower bound" must agree with ``kind``/``bound``. Files written without the two
  columns still load: both are then read from the row (``default_kind``: the metric, then the unit's words),
  which is how the project's own rows were first classified.
- Optional citation columns (``loaders.copies``): ``link_status``, ``original_outlet``, ``original_title``,
  ``original_date``, ``read_at``. A copy the figure was read at is kept in ``read_at`` and never shown as its
  source; a ``url`` on a host that only republishes others' reports (``loaders/never_source_hosts.csv``) is
  refused; a ``syndicated copy`` row names the copy it was read at. Files without these columns still load (the
  link is then taken to be the original); an older file's ``link_is_copy`` is read as ``loaders.copies`` says.

The page draws these as markers spanning their period, apart from the official series, with the full row on
hover (``load_reported``). Tidy rows: series ``reported_figures.<metric>``, date = period start, end = period
end, key = "<reported_by> #<row>" so two reports of one period never collide.
"""
from __future__ import annotations

import io
import math
from pathlib import Path
from typing import NoReturn

import pandas as pd

from . import copies, parsing, tidy
from .base import Parsed, Series, Source
from .errors import ParseError
from .events import link_problems

ID = "reported_figures"
FILE = "data/reported_figures.csv"
COLUMNS = ["period_start", "period_end", "metric", "value", "unit", "reported_by", "url", "source_quality", "note"]
OPTIONAL = dict.fromkeys(copies.COPY_COLUMNS, "")  # optional columns and their defaults
KIND_COLUMNS = ["kind", "bound"]  # optional: derived from the row when absent (``default_kind``)
KINDS = {
    "count": "a number counted from records (a tally, a sum of tallies, an average of counted days)",
    "estimate": "an approximate figure: 'about', one end of a range, a partial period scaled up",
    "bound": "one side only: 'fewer than' (upper) or 'more than' (lower); not a value",
    "target": "a goal or quota set for the agency; not a count of anything",
    "claim": "an official statement whose basis is not given and cannot be checked",
}
BOUNDS = {"upper": "at most (fewer than)", "lower": "at least (more than)"}
QUALITY = {
    "official": "published by the agency itself (ICE, DHS) on its own site or account",
    "primary news": "the outlet or analyst that did the reporting, read on its own site",
    "syndicated copy": "read at a copy of the report on another site (kept in read_at); the source cited is the original",
    "unverified": "the original could not be found; kept because it is widely quoted",
}
# metric -> (catalogue metric, agency, title, definition, measure). A total over the stated period is a flow;
# a rate per day, a target or a headcount is a level (never summed, never divided by days again).
METRICS = {
    "ice_arrests": ("arrests", "ICE", "ICE arrests over a period, as reported",
                    "A total of ICE arrests over the stated period as someone reported it.", "flow"),
    "ice_arrests_per_day": ("arrests", "ICE", "ICE arrests per day, as reported",
                            "A daily rate (or one day's count) of ICE arrests as someone reported it.", "level"),
    "ice_book_ins": ("book-ins", "ICE", "Book-ins into ICE detention over a period, as reported",
                     "Initial book-ins into detention after ICE arrests, as reported. Not arrests.", "flow"),
    "ice_book_ins_per_day": ("book-ins", "ICE", "Book-ins into ICE detention per day, as reported",
                             "A daily rate of book-ins after ICE arrests, as reported. Not arrests.", "level"),
    "all_book_ins_per_day": ("book-ins", "ICE+CBP",
                             "Book-ins into ICE detention after ICE or CBP arrests, per day, as reported",
                             "A daily rate of every initial book-in into ICE detention, whichever agency (ICE or "
                             "CBP) made the arrest, as reported. Not ICE arrests, and not ICE's book-ins alone.", "level"),
    "dhs_arrests": ("arrests", "DHS", "Arrests by all DHS components, as claimed",
                    "DHS-wide arrest totals (ICE, CBP and others together) from DHS statements. Not ICE arrests.", "flow"),
    "detained_population": ("detained", "ICE+CBP", "People in ICE detention, as reported",
                            "A headcount of people in ICE detention on a day, as reported.", "level"),
    "removals": ("removals", "ICE", "ICE removals, as reported",
                 "Removals by ICE as ICE counts them, as reported. ICE's removal figures include returns "
                 "(voluntary returns, voluntary departures and withdrawals), as its workbook footnotes say.", "flow"),
    "dhs_removals": ("removals", "DHS", "Removals and returns claimed by DHS",
                     "DHS-wide figures that may mix removals with border returns. Not ICE removals.", "flow"),
    "target_per_day": ("arrests", "ICE", "Arrest targets per day set for ICE, as reported",
                       "A goal officials set for ICE arrests per day. Not a count of anything.", "level"),
}

# The word a row's ``unit`` must start with, by the catalogue metric of its ``metric``.
UNIT_WORD = {"arrests": "arrests", "book-ins": "book-ins", "detained": "people", "removals": "removals"}

SERIES = tuple(
    Series(f"{ID}.{m}", t, metric, agency, "as reported", "irregular",
           d + " Each marker is one report; see its source and quality tier. Not an official statistical series.",
           ID, breakdown="report", measure=measure)
    for m, (metric, agency, t, d, measure) in METRICS.items()
)


def default_kind(metric: str, unit: str) -> tuple[str, str]:
    """(kind, bound) for a row written without those columns, from what it already says: a target metric is a
    target; a unit naming an upper/lower bound is that bound; "approximate", a range's end or a scaled partial
    month is an estimate; "claimed" is a claim; anything else a count."""
    u = unit.lower()
    if metric == "target_per_day":
        return "target", ""
    if "upper bound" in u:
        return "bound", "upper"
    if "lower bound" in u:
        return "bound", "lower"
    if any(w in u for w in ("approximate", "low end", "high end", "scaled", "peak")):
        return "estimate", ""
    if "claimed" in u:
        return "claim", ""
    return "count", ""


def _fail(name: str, row: int, field: str, msg: str) -> NoReturn:
    raise ParseError(f"row {row} field {field!r}: {msg}", source=ID, file=name)


def read_rows(content: bytes, name: str) -> pd.DataFrame:
    """The curated file, checked row by row; the full columns plus ``row`` (the line number in the file)."""
    df = _read_frame(content, name)
    has_copy_columns = any(c in df.columns for c in copies.COPY_COLUMNS + (copies.LEGACY_COLUMN,))
    for c, default in OPTIONAL.items():
        if c not in df.columns:
            df[c] = default
    _add_kinds(df, name)
    values, cited = [], []
    for i, r in enumerate(df.to_dict("records"), start=2):
        r = copies.normalise(r, "url")
        values.append(_check_row(name, i, r, has_copy_columns))
        cited.append(r)
    out = df[COLUMNS + KIND_COLUMNS + list(OPTIONAL)].copy()
    for c in ("url",) + copies.COPY_COLUMNS:  # as normalised (an older file's copy moved to read_at)
        out[c] = pd.Series([r[c] for r in cited], index=out.index, dtype=df["url"].dtype)
    out["value"] = values
    out.insert(0, "row", range(2, len(df) + 2))
    return out


def _read_frame(content: bytes, name: str) -> pd.DataFrame:
    """The file as text cells; refused when it is not a CSV, lacks a column or has no rows."""
    try:
        df = pd.read_csv(io.BytesIO(content), dtype=str, keep_default_na=False)
    except Exception as e:
        raise ParseError(f"not a readable CSV ({e})", source=ID, file=name) from None
    missing = [c for c in COLUMNS if c not in df.columns]
    if missing:
        raise ParseError(f"missing column(s) {missing}", source=ID, file=name)
    if df.empty:
        raise ParseError("no rows", source=ID, file=name)
    return df


def _add_kinds(df: pd.DataFrame, name: str) -> None:
    """Both kind columns, or neither: then each row's kind is read from its metric and unit (an older file)."""
    has_kind = [c for c in KIND_COLUMNS if c in df.columns]
    if has_kind and len(has_kind) < len(KIND_COLUMNS):
        raise ParseError(f"has {has_kind} but not all of {KIND_COLUMNS}: give both or neither", source=ID, file=name)
    if not has_kind:  # an older file: each row's kind read from its metric and unit (stated in the docstring)
        derived = [default_kind(m, u) for m, u in zip(df["metric"], df["unit"])]
        df["kind"] = [k for k, _ in derived]
        df["bound"] = [b for _, b in derived]


def _check_row(name: str, i: int, r: dict, has_copy_columns: bool) -> float:
    """One row (file line ``i``), its citation as ``copies.normalise`` reads it: its period, metric, value,
    source quality, link, words and kind; returns its value. The first problem is raised."""
    start = parsing.iso_date(r["period_start"], source=ID, file=name, row=i, field="period_start").isoformat()
    end = parsing.iso_date(r["period_end"], source=ID, file=name, row=i, field="period_end").isoformat()
    if end < start:
        _fail(name, i, "period_end", f"{end} is before period_start {start}")
    if r["metric"] not in METRICS:
        _fail(name, i, "metric", f"{r['metric']!r} is not one of {sorted(METRICS)}")
    v = _nonnegative(name, i, r["value"])
    if r["source_quality"] not in QUALITY:
        _fail(name, i, "source_quality", f"{r['source_quality']!r} is not one of {sorted(QUALITY)}")
    _check_citation(name, i, r, start, has_copy_columns)
    for f in ("unit", "reported_by", "note"):
        if not r[f].strip():
            _fail(name, i, f, "empty")
    word = UNIT_WORD[METRICS[r["metric"]][0]]
    if not r["unit"].strip().lower().startswith(word):
        _fail(name, i, "unit", f"{r['unit'][:40]!r} does not start with {word!r}, the kind of figure metric "
                               f"{r['metric']!r} holds (a book-in is not an arrest; a headcount is people)")
    _check_kind(name, i, r)
    return v


def _nonnegative(name: str, i: int, text: str) -> float:
    """A row's value through the loaders' one number parser; anything but a finite, non-negative number is refused."""
    v = parsing.number(text, lenient=True, missing=frozenset())
    if v is None or not math.isfinite(v) or v < 0:
        _fail(name, i, "value", f"{text!r} is not a non-negative number")
    return v


def _check_citation(name: str, i: int, r: dict, start: str, has_copy_columns: bool) -> None:
    """A row's URL and citation columns: the copy fields agree, a syndicated copy names where it was read, the
    URL passes the link check, and only an unverified row or an original not found has no URL."""
    url = r["url"].strip()
    for field, why in copies.check_copy_fields(r, url, url_field="url", has_columns=has_copy_columns,
                                               earliest=start, link_check=link_problems):
        _fail(name, i, field, why)
    if has_copy_columns and r["source_quality"] == "syndicated copy" and not r["read_at"]:
        _fail(name, i, "read_at", "empty: a 'syndicated copy' row names the copy it was read at")
    # The project's one URL check (the events' own): it refuses a user name before '@'
    # (https://trusted.gov@evil.example/x), loopback and private hosts and look-alike names, which the pattern
    # used here before accepted.
    for _field, why in (link_problems(url) if url else []):
        _fail(name, i, "url", f"{url!r}: {why}")
    if not url and r["source_quality"] != "unverified" and not copies.is_not_found(r["link_status"]):
        _fail(name, i, "url", "empty; only an 'unverified' row or one whose link_status is 'not found' may "
                              "lack a URL")


def _check_kind(name: str, i: int, r: dict) -> None:
    """``kind`` and ``bound`` agree with each other, with the metric and with the unit's own words: a target
    filed as a count, or "fewer than" filed as a value, is exactly what draws a goal or a bound as a figure."""
    kind, bound, unit = r["kind"].strip(), r["bound"].strip(), r["unit"].lower()
    if kind not in KINDS:
        _fail(name, i, "kind", f"{r['kind']!r} is not one of {sorted(KINDS)}")
    if kind == "bound" and bound not in BOUNDS:
        _fail(name, i, "bound", f"{r['bound']!r}: a bound must say its side, one of {sorted(BOUNDS)}")
    if kind != "bound" and bound:
        _fail(name, i, "bound", f"{bound!r} given for a {kind!r} row; only a bound has a side")
    if (kind == "target") != (r["metric"] == "target_per_day"):
        _fail(name, i, "kind", f"{kind!r} with metric {r['metric']!r}: a target is metric 'target_per_day' "
                               "and that metric holds targets only")
    for side in BOUNDS:
        if f"{side} bound" in unit and (kind, bound) != ("bound", side):
            _fail(name, i, "kind", f"unit {r['unit'][:40]!r} says {side} bound but kind is {kind!r}"
                                   + (f" ({bound})" if bound else ""))


def load_reported(path: str | Path | None = None) -> pd.DataFrame:
    """Every reported figure with all its columns (for hover text), validated. Defaults to the project's file."""
    p = Path(path) if path else Path(__file__).resolve().parent.parent / FILE
    return read_rows(p.read_bytes(), p.name)


ROWS_TABLE = f"{ID}.rows"  # the snapshot's table of every row with all its columns (tables/reported_figures.rows.csv)


def parse(content: bytes, name: str = "") -> Parsed:
    """Tidy rows for the chart, and the checked rows in full (who reported each figure, the link, the tier) as
    the table ``rows``, so the page and the exports read them from the snapshot like every source's tables."""
    df = read_rows(content, name)
    rows = [{"series": f"{ID}.{r.metric}", "key": f"{r.reported_by} #{r.row}", "date": r.period_start,
             "end": r.period_end, "value": r.value} for r in df.itertuples(index=False)]
    return Parsed(tidy.frame(rows), {"rows": df})


def from_table(table: pd.DataFrame | None) -> pd.DataFrame | None:
    """The snapshot's ``rows`` table (read as text) typed as ``read_rows`` returns it; None when absent."""
    if table is None:
        return None
    # The rebuild sorts a table's rows as text: back in file order (row 2 first, not rows 10-19).
    typed = table.astype({"value": "float64", "row": "int64"})
    if "kind" not in typed:  # a snapshot rebuilt before the kind columns: the loader's own default
        derived = [default_kind(m, u) for m, u in zip(typed["metric"], typed["unit"])]
        at = typed.columns.get_loc("note") + 1
        typed.insert(at, "kind", [k for k, _ in derived])
        typed.insert(at + 1, "bound", [b for _, b in derived])
    typed[["kind", "bound"]] = typed[["kind", "bound"]].fillna("")
    for c in copies.COPY_COLUMNS:  # a snapshot rebuilt before a column existed: its default (see loaders.copies)
        typed[c] = typed[c].fillna("") if c in typed else ""
    return typed.sort_values("row", kind="mergesort").reset_index(drop=True)


SOURCE = Source(
    id=ID,
    title="Figures reported by officials and the press (curated)",
    publisher="This project, from ICE, DHS, news outlets, TRAC and analysts (each row names its source)",
    landing_page="data/reported_figures.csv in this repository",
    licence="Figures are facts as reported; each row links its source",
    cadence="curated by hand when new figures are reported",
    cadence_days=3650,
    release_dated="none",
    release_rule="no release date: each figure carries its own report's date",
    parse=parse,
    series=SERIES,
    raw_globs=(),
    project_files=(FILE,),
    attribution="Reported figures: see each marker's source and quality tier",
    extra={"file_kind": "csv"},
)
