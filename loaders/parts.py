"""A source's result put together from per-file parts: after one new file, a rebuild redoes that file's work and
the comparisons across files, not every file's (issue 39).

A rebuild of all ICE releases validates, checks, marks and formats 250,000 rows. Most of that work reads one
file's rows at a time, so it is done once per file and kept (``loaders.parse_cache``, keyed by the file's bytes
and name and by the code of all of ``loaders``, as a source's result is). A **part** holds, for one file:

- its rows, validated (``tidy.validate``, the same rules as for all rows at once) and in canonical order, marked
  with the findings of ``Source.check_file``, and those findings;
- for each row, the key and date the snapshot stores it under and its line of the snapshot's CSV (``stored``);
- its reference tables, and the facts its manifest entry gives (``stored.file_facts``).

``assemble`` then does what needs every file: the canonical order of all rows, ``Source.check_across`` (and
``check_tables`` over the combined reference tables), the marks those findings leave (the lines of the rows they
mark are made again), the findings table, and the CSV text in the stored order. The result is the same bytes as
the whole-source path (``pipeline._source_result`` without parts); tests/test_parse_cache.py compares them, and
bench/bench_rebuild_cache.py on every real release.

Only a source that declares its checks split (``Source.check_file`` and ``check_across``) is put together this
way: a source with a single ``check`` over all rows has nothing to keep per file beyond its parses.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

from . import tidy
from .base import Parsed, Source
from .findings import finding_table, mark_rows
from .stored import StoredText, csv_lines, csv_text, file_facts, fytd_series, stored_facts, stored_text

LINE_COLUMNS = ["skey", "sdate", "sflag", "line"]
FINDING_COLUMNS = ["series", "key", "date", "release", "file", "flag", "message"]
_NONE = np.array([], dtype=np.intp)


@dataclass
class ArrowRows:
    """A part's rows as kept (an Arrow table), not yet a pandas frame: the rows of many kept parts are made into
    one frame at once (``rows_frame``), 0.14 s for 107 ICE releases where one frame each took 0.35 s."""

    table: pa.Table
    object_columns: tuple[str, ...]  # the text columns the frame held as Python objects (the rest: pandas text)


@dataclass
class Part:
    """One file's share of its source's result (see the module notes)."""

    obs: pd.DataFrame | ArrowRows  # validated, canonical order, marked with ``findings``
    findings: pd.DataFrame  # what ``check_file`` found in these rows alone
    lines: pd.DataFrame | None  # per row of ``obs``: stored key, date and flag, CSV line (``_lines``); or None
    tables: dict[str, pd.DataFrame]
    facts: tuple  # ``stored.file_facts`` of the rows


def can_split(source: Source) -> bool:
    """Whether ``source`` declares its checks in the two halves a result from parts runs (``Source.check_file``,
    ``check_across``)."""
    return source.check_file is not None and source.check_across is not None


def _declared(check: Callable[[pd.DataFrame], pd.DataFrame] | None) -> Callable[[pd.DataFrame], pd.DataFrame]:
    if check is None:  # only a source that ``can_split`` is put together from parts
        raise TypeError("a source put together from parts declares check_file and check_across")
    return check


def make_parts(source: Source, parsed: list[tuple[str, Parsed]]) -> list[Part]:
    """The parts of files not kept yet, from their parses (``pipeline._finish`` without validation), in one pass
    over all their rows: the validation and the checks cost per call, not per row, so 107 files checked one by
    one took three times as long as all at once. Their findings and rows are then shared out by file (every
    finding of ``check_file`` names its file). A row that fails validation raises ``ValidationError`` naming its
    file and its row within that file, as the whole source's validation does."""
    if not parsed:
        return []
    frames = [p.obs for _, p in parsed]
    obs = tidy.validate(pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0], source=source.id,
                        series_ids={s.id for s in source.series}, whole=tidy.value_rules(source.series))
    found = _declared(source.check_file)(obs) if len(obs) else None
    table = finding_table(source.id, found)
    if len(table):
        obs = mark_rows(obs, table)
    lines = _lines(obs)
    rows = obs.groupby("file", sort=False).indices
    if found is None:
        found = pd.DataFrame(columns=FINDING_COLUMNS)
    by_file = found.groupby("file", sort=False).indices
    out = []
    for name, p in parsed:
        at = rows.get(name, _NONE)
        mine = obs.iloc[at].reset_index(drop=True)
        mine_lines = lines.iloc[at].reset_index(drop=True) if lines is not None else None
        # the stored dates are the lines' own: no second layout of the rows
        facts = file_facts(mine) if mine_lines is None else stored_facts(
            mine.assign(date=mine_lines["sdate"].to_numpy()))
        findings = found.iloc[by_file.get(name, _NONE)].reset_index(drop=True)
        out.append(Part(mine, findings, mine_lines, dict(p.tables), facts))
    return out


def _lines(obs: pd.DataFrame) -> pd.DataFrame | None:
    """Each row's stored key, date and flag and its CSV line, row for row with ``obs``; None when a line does not
    end in its flag and file fields as written (a field breaking a line, a quoted flag): the text is then made
    from all rows at once."""
    stored = tidy.fytd_periods(obs, fytd_series())  # row for row: only key, date and the partial flag change
    got = csv_lines(stored)
    if got is None:
        return None
    flags = stored["flag"].to_numpy(dtype=object)
    tails = _tails(stored["file"])
    if not all(line.endswith(f + t) for line, f, t in zip(got[1], flags, tails)):
        return None
    # The lines stay Python strings (not pandas' Arrow-backed text): they are only reordered and joined, which
    # an object array does without copying 39 MB of text through Arrow.
    return pd.DataFrame({"skey": stored["key"].to_numpy(), "sdate": stored["date"].to_numpy(),
                         "sflag": pd.Series(flags, dtype=object), "line": pd.Series(got[1], dtype=object)})


def _tails(files: pd.Series) -> list[str]:
    """Each row's end of line after its flag: the comma and the file field as the CSV writes it."""
    names = list(dict.fromkeys(files))
    written = csv_lines(pd.DataFrame({"flag": [""] * len(names), "file": names}))
    tail = dict(zip(names, written[1])) if written else {}  # each line: an empty flag, then the file field
    return [tail.get(f, "\0") for f in files]  # (a file name breaking a line: no line ends in "\0")


def _relined(lines: np.ndarray, old: np.ndarray, new: np.ndarray, tails: list[str]) -> np.ndarray:
    """``lines`` whose stored flag went from ``old`` to ``new``: the flag field between the line's start and its
    tail replaced (``_lines`` checked that each line ends in its flag and tail)."""
    return np.array([line[:len(line) - len(o) - len(t)] + n + t for line, o, n, t in zip(lines, old, new, tails)],
                    dtype=object)


def assemble(source: Source, parts: list[Part], tables: dict[str, pd.DataFrame]
             ) -> tuple[pd.DataFrame, pd.DataFrame, StoredText]:
    """(rows, findings, stored text) of the whole source from its files' parts, as ``pipeline.apply_checks`` and
    ``stored.stored_text`` give them from all rows at once. ``tables``: the parts' reference tables combined."""
    obs = rows_frame([p.obs for p in parts])
    order = tidy.canonical_order(obs)
    obs = obs.iloc[order].reset_index(drop=True)
    if obs.empty:
        return obs, finding_table(source.id, None), stored_text(obs)
    across = [_declared(source.check_across)(obs)]
    if source.check_tables is not None and tables:
        across.append(source.check_tables(tables))
    across = [f for f in across if f is not None and not f.empty]
    found = [p.findings for p in parts if len(p.findings)] + across
    flags = finding_table(source.id, pd.concat(found, ignore_index=True) if found else None)
    marked = mark_rows(obs, finding_table(source.id, pd.concat(across, ignore_index=True))) if across else obs
    if any(p.lines is None for p in parts):
        return marked, flags, stored_text(marked)
    lines = pd.concat([p.lines for p in parts], ignore_index=True).iloc[order].reset_index(drop=True)
    text = lines["line"].to_numpy(dtype=object, copy=True)
    changed = np.flatnonzero(marked["flag"].to_numpy() != obs["flag"].to_numpy())
    if len(changed):  # rows a comparison across files marked: their flag, so their line, is new
        rows = marked.iloc[changed]
        now = tidy.fytd_periods(rows, fytd_series())["flag"].to_numpy(dtype=object)
        text[changed] = _relined(text[changed], lines["sflag"].to_numpy(dtype=object)[changed], now,
                                 _tails(rows["file"]))
    keys = pd.DataFrame({"series": marked["series"], "key": lines["skey"], "date": lines["sdate"],
                         "release": marked["release"], "file": marked["file"]})
    body = "\n".join([csv_text(tidy.empty()).rstrip("\n"), *text[tidy.canonical_order(keys)]]) + "\n"
    return marked, flags, StoredText(body, len(marked), lines["sdate"].min(), marked["end"].max())


def rows_frame(rows: list[pd.DataFrame | ArrowRows]) -> pd.DataFrame:
    """The parts' rows, in order, as one frame (``tidy.empty()`` for none): each run of kept parts' Arrow tables
    joined first and made a frame at once."""
    frames: list[pd.DataFrame] = []
    run: list[ArrowRows] = []
    for r in [*rows, None]:
        if isinstance(r, ArrowRows):
            run.append(r)
            continue
        if run:
            df = pa.concat_tables([a.table for a in run], promote_options="default").to_pandas()
            for c in sorted({c for a in run for c in a.object_columns}):
                df[c] = df[c].astype(object)
            frames.append(df)
            run = []
        if r is not None:
            frames.append(r)
    if not frames:
        return tidy.empty()
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].reset_index(drop=True)
