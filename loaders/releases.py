"""``python -m loaders releases [SOURCE]``: the release ledger from the command line (CSV or text).

The ledger itself lives beside it in ``loaders.ledger`` (pure pandas, its cells in the catalogue's English), read
from the snapshot, so the command line, the page and the tests all describe the same releases; ``--latest`` gives
each source's publication status in the freshness rule's words (``loaders.freshness.status_words``). Nothing here
imports above the data side and the wording.
"""
from __future__ import annotations

import datetime as dt
import io
from pathlib import Path

import pandas as pd

from . import data as cdata
from . import freshness, ledger
from .text import csv_frame


def run(source: str | None, data: Path, fmt: str = "text", latest: bool = False,
        today: dt.date | None = None, revisions: bool = False) -> str:
    snap = cdata.load_snapshot(data)
    known = ledger.versioned_sources(snap)
    if source and source not in known:
        raise KeyError(f"no releases of {source!r} in {data}; versioned sources: {', '.join(known)}")
    sources = [source] if source else known
    if revisions:
        return revisions_text(snap, sources, fmt)
    if latest:
        return latest_text(snap, sources, today)
    table = ledger.ledger(snap, source)
    if fmt == "csv":
        buf = io.StringIO()
        csv_frame(table).to_csv(buf, index=False, lineterminator="\n")  # file names are the publishers'

        return buf.getvalue()
    lines = []
    for r in table.itertuples(index=False):
        lines.append(f"{r.source} {r.release.isoformat()}  [{r.files}]  data to {r.data_through.isoformat()}")
        for col in ("key_figures", "changed_since_previous", "revisions", "quality_flags"):
            v = getattr(r, col)
            if v:
                lines.append(f"    {col.replace('_', ' ')}: {v}")
    return "\n".join(lines) + "\n"


def latest_text(snap: cdata.Snapshot, sources: list[str], today: dt.date | None = None) -> str:
    """``--latest``: per source, its latest release held and its publication status on ``today`` (the words of
    ``loaders.freshness.status_words``, as the Releases tab says them in English), what's new in that release,
    and the release's data dates by table, revisions and quality flags where it has any."""
    today = today or dt.date.today()
    declared = freshness.read_declared()
    out = []
    for src in sources:
        fresh = freshness.source_freshness(snap, src, today, declared, releases=ledger.releases_of)
        rel = ledger.releases_of(snap, src)[-1].date()
        out.append(f"{src}: latest release held {rel.isoformat()}; publication status: "
                   f"{freshness.status_words(snap, src, fresh, today, declared)}")
        out += [f"  {s.text}" for s in ledger.whats_new(snap, src)]
        row = ledger.ledger(snap, src).iloc[-1]
        for col in ("data_through_by_table", "revisions", "quality_flags"):
            if row[col]:
                out.append(f"  {col.replace('_', ' ')}: {row[col]}")
    return "\n".join(out) + "\n"


def revisions_text(snap: cdata.Snapshot, sources: list[str], fmt: str = "text") -> str:
    """``--revisions``: per source, how many figures each release revised (``ledger.revisions_by_release``) and
    every revised period with its band, first and last release (``ledger.revisions_by_month``). CSV: the
    periods, one row each, with a ``source`` column."""
    if fmt == "csv":
        frames = [ledger.revisions_by_month(snap, s).assign(source=s) for s in sources]
        table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
        buf = io.StringIO()
        table[["source"] + ledger.MONTH_REVISION_COLUMNS].to_csv(buf, index=False, lineterminator="\n")
        return buf.getvalue()
    lines = []
    for src in sources:
        per_release = ledger.revisions_by_release(snap, src)
        months = ledger.revisions_by_month(snap, src)
        lines.append(f"{src}: {int(per_release['values_revised'].sum())} figures revised in "
                     f"{int((per_release['values_revised'] > 0).sum())} of {len(per_release)} releases; "
                     f"{len(months)} periods revised")
        for r in per_release[per_release["values_revised"] > 0].itertuples(index=False):
            lines.append(f"  {r.release.isoformat()}: {r.values_revised} figures in {r.series_revised} series, "
                         f"{r.periods_revised} periods")
    return "\n".join(lines) + "\n"
