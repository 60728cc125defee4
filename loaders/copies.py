"""Cite the original: what a curated row's source link may be, and where a copy it was read at is kept.

Many curated rows (``data/events.csv``, ``data/reported_figures.csv``) could only be read on a republishing site,
an RSS mirror or an aggregator's summary, because that is where the research found them. The link a reader is
given (on the page, in a hover box, in a CSV, under an image, on the static site) is what gets printed, so it
must be the original's own address: the outlet's article, ICE's or DHS's own release or post, the court's
docket. Both curated files therefore carry these optional columns (files without them load with the defaults):

- ``link_status``: ``original`` (the default) when the source URL (``source_url`` for an event, ``url`` for a
  reported figure) is the original publisher's own address; ``not found`` when that address could not be
  established: the source URL is then empty and the row cites the original by outlet, title and date, and says
  so wherever it is shown;
- ``original_outlet``: who published the original (required with ``not found``; ``unknown`` is allowed and
  means the copy read does not say whose report it repeats);
- ``original_title``: the original's title, where known (a citation without a link needs it);
- ``original_date``: the original's publication date (YYYY-MM-DD), where known;
- ``read_at``: the copy the text was read at, kept for whoever checks the row. It is never shown as the source:
  no output that cites a source reads this column.

``never_source_hosts.csv`` (beside this module: data, not code) lists the hosts that only republish, mirror or
summarise others' reports, each with its reason. A row whose source URL is on one of them is refused, naming the
file, row and field: such an address may only be a ``read_at``.

An older file with the column ``link_is_copy`` still loads: a row marked ``yes`` had a copy as its link, so that
link becomes its ``read_at`` and the row is ``not found`` until someone finds the original's address.
"""
from __future__ import annotations

import csv
import datetime as dt
import functools
import re
from pathlib import Path
from urllib.parse import urlsplit

COPY_COLUMNS = ("link_status", "original_outlet", "original_title", "original_date", "read_at")
LEGACY_COLUMN = "link_is_copy"  # files written before read_at: "yes" when the link was a copy
ORIGINAL, NOT_FOUND = "original", "not found"
STATUSES = (ORIGINAL, NOT_FOUND)
UNKNOWN_OUTLET = "unknown"
HOSTS_FILE = Path(__file__).with_name("never_source_hosts.csv")
_YES = {"yes", "true", "1"}
_NO = {"", "no", "false", "0"}


@functools.lru_cache(maxsize=4)
def never_source_hosts(path: Path | str = HOSTS_FILE) -> dict[str, str]:
    """host -> why it is never shown as a source. A listed name covers its subdomains too (``amren.com`` covers
    ``www.amren.com``); a listed subdomain (``rss.newsmax.com``) covers only itself, not the outlet beside it."""
    path = Path(path)
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    out: dict[str, str] = {}
    for i, r in enumerate(rows, start=2):
        h, why = (r.get("host") or "").strip().lower(), (r.get("reason") or "").strip()
        if not h or not why or "/" in h or " " in h:
            raise ValueError(f"{path.name}: row {i}: give a bare host name and the reason it is never a source")
        out[h] = why
    return out


COPY_HOSTS = frozenset(never_source_hosts())


def host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def never_source_reason(url: str) -> str | None:
    """Why ``url`` may never be shown as a source (its host or a parent domain is on the list), else None."""
    h = host(url).rstrip(".")
    if not h:
        return None
    listed = never_source_hosts()
    labels = h.split(".")
    for i in range(len(labels) - 1):
        why = listed.get(".".join(labels[i:]))
        if why:
            return f"{h}: {why}"
    return None


def status_of(value) -> str:
    return str(value or "").strip().lower() or ORIGINAL


def normalise(row: dict, url_field: str) -> dict:
    """``row`` with the citation columns filled in: defaults for absent ones, and an older file's
    ``link_is_copy = yes`` read as a copy kept in ``read_at`` with the original's address not found."""
    out = dict(row)
    for c in COPY_COLUMNS:
        out[c] = str(out.get(c) or "").strip()
    legacy = str(out.pop(LEGACY_COLUMN, "") or "").strip().lower()
    if legacy in _YES and not out["link_status"] and not out["read_at"]:
        out["read_at"], out[url_field], out["link_status"] = str(out.get(url_field) or "").strip(), "", NOT_FOUND
    elif legacy not in _YES | _NO:
        out["_legacy_problem"] = legacy
    out["link_status"] = status_of(out["link_status"])
    return out


def check_copy_fields(row: dict, url: str, *, url_field: str = "source_url", has_columns: bool = True,
                      earliest: str | None = None, link_check=None) -> list[tuple[str, str]]:
    """Problems with one normalised row's source link and citation columns, as (field, reason).

    A source URL on a never-shown host is refused whatever the file's columns. ``link_check`` is the project's
    URL check (``loaders.events.link_problems``), applied to ``read_at``."""
    problems = _source_problems(row, url, url_field)
    if not has_columns:
        return problems
    status = row.get("link_status", ORIGINAL)
    if status not in STATUSES:
        return problems + [("link_status", f"{status[:20]!r} is not 'original' or 'not found'")]
    if status == NOT_FOUND:
        problems += _not_found_problems(url, str(row.get("original_outlet", "")).strip(), url_field)
    problems += _read_at_problems(str(row.get("read_at", "")).strip(), url, link_check)
    problems += _original_date_problems(str(row.get("original_date", "")).strip(), earliest)
    return problems


def _source_problems(row: dict, url: str, url_field: str) -> list[tuple[str, str]]:
    """What is refused whatever the file's columns: a source URL on a never-shown host, a bad old copy marker."""
    problems: list[tuple[str, str]] = []
    why = never_source_reason(url) if url else None
    if why:
        problems.append((url_field, f"never shown as a source ({why}): cite the original's own address, or leave "
                                    f"{url_field} empty with link_status 'not found' and keep this address in read_at"))
    if row.get("_legacy_problem"):
        problems.append((LEGACY_COLUMN, f"{row['_legacy_problem'][:20]!r} is not yes or no"))
    return problems


def _not_found_problems(url: str, outlet: str, url_field: str) -> list[tuple[str, str]]:
    """A row whose original's address is not known: no URL, and the original's outlet named."""
    problems: list[tuple[str, str]] = []
    if url:
        problems.append((url_field, "must be empty when link_status is 'not found' (the original's address "
                                    "was not established); a copy's address goes in read_at"))
    if not outlet:
        problems.append(("original_outlet", "empty: a row without the original's address must name its "
                                            f"outlet (or {UNKNOWN_OUTLET!r} when the copy does not say)"))
    return problems


def _read_at_problems(read_at: str, url: str, link_check) -> list[tuple[str, str]]:
    """The address of the copy the text was read at: it passes the link check and is not the source itself."""
    if not read_at:
        return []
    problems = [("read_at", reason) for _field, reason in (link_check(read_at) if link_check else [])]
    if url and read_at == url:
        problems.append(("read_at", "the same address as the source: read_at is only for a copy"))
    return problems


def _original_date_problems(date: str, earliest: str | None) -> list[tuple[str, str]]:
    """The original's date, when given: a real YYYY-MM-DD date, not before the start of what the row reports."""
    if not date:
        return []
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        return [("original_date", f"{date[:20]!r} is not a YYYY-MM-DD date")]
    try:
        dt.date.fromisoformat(date)
    except ValueError:
        return [("original_date", f"{date} is not a real calendar date")]
    if earliest and date < earliest:
        return [("original_date", f"{date} is before {earliest}, the start of what it reports")]
    return []


def is_not_found(value) -> bool:
    return status_of(value) == NOT_FOUND
