"""How a source and its series are declared.

A source module declares one ``Source`` (who publishes it, where, how often, under what terms, how to find
the download URLs and how to parse a raw file) and a list of ``Series`` for the catalogue. Everything that
is the same for every source (fetching, validation, writing, the manifest) lives once in ``fetch``,
``tidy`` and ``pipeline``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

# Kept short and closed so the page can group and filter by them.
METRICS = {
    "arrests": "Arrests (administrative arrests by ICE ERO)",
    "book-ins": "Initial book-ins into ICE detention",
    "detained": "People detained on a given day (headcount)",
    "adp": "Average daily population in detention",
    "alos": "Average length of stay in detention (days)",
    "removals": "Removals",
    "returns": "Returns",
    # Some DHS tables count the two together and cannot be split; never mix these into "removals".
    "removals-and-returns": "Removals and returns counted together (not separable in the table)",
    "encounters": "Border encounters",
    "atd": "People in Alternatives to Detention",
    "detainers": "Detainers lodged",
    "facility-adp": "Average daily population by facility",
    "book-outs": "Book-outs: people whose ICE detention ended (removed, released or transferred)",
    "bonds": "Immigration bonds and book-outs on bond",
    "fear-screening": "Credible and reasonable fear decisions of people in ICE detention",
    "iclos": "Time held so far by people in ICE detention (in-custody length of stay)",
    "segregation": "Segregation placements in ICE detention",
    "deaths": "Deaths in ICE custody (and, kept apart, deaths during enforcement actions)",
}
AGENCIES = {"ICE", "CBP", "ICE+CBP", "DHS", "USBP", "OFO", "CBP (USBP+OFO)"}
FREQUENCIES = {"daily", "weekly", "monthly", "biweekly", "release", "annual", "irregular", "quarterly", "semimonthly"}
# What each row's period is, when it is not simply ``date`` to ``end`` of a regular calendar period (declared once
# per series; ``tidy.fytd_periods`` lays the rows out by it, docs/data.md describes it).
FISCAL_YTD = "fiscal-year-to-date"
PERIODS = {
    "": "each row covers its own period, date to end (a day, a week, a month, a fiscal year...)",
    FISCAL_YTD: "a running total or average from the fiscal year's first day: date is 1 October, end the day the "
                "release's figures run to (one row per fiscal year and release, flagged partial until 30 September)",
}
# What a series measures, declared once per series and read everywhere (per-day conversion, resampling, headline
# cards, the event study, the agreement between sources): summing a level or dividing it by days is the
# mistake this guards against.
MEASURES = {
    "flow": "a count of events over the period each row covers (date to end): periods may be summed, and a "
            "total may be shown per day (divided by the days it covers)",
    "level": "a value on a date (people detained, a running total to date) or an average or rate over a period "
             "(average daily population, a reported rate per day): never summed, never divided by days",
}


@dataclass(frozen=True)
class Series:
    """One catalogue entry. ``breakdown`` names what the ``key`` column holds ("" when there is none)."""

    id: str
    title: str
    metric: str
    agency: str
    unit: str
    frequency: str
    definition: str
    source: str
    breakdown: str = ""
    # "flow" or "level" (see MEASURES). Keyword-only and without a default, so no series is declared without
    # saying which it is.
    measure: str = field(kw_only=True)
    # Rules every value must keep, checked on every release (``loaders.series_rules``; a row that breaks one
    # gets an ``out-of-range`` finding saying which): ``bounds`` "fraction" (0 to 1) or "count" (whole, not
    # below 0); ``part_of`` the id of the series this one is a part of (never above it, same key and date);
    # ``share_of`` "part id / whole id" whose ratio this series is.
    bounds: str = field(default="", kw_only=True)
    part_of: str = field(default="", kw_only=True)
    share_of: str = field(default="", kw_only=True)
    # "" or FISCAL_YTD (see PERIODS). A fiscal-year-to-date series is parsed, checked and drawn one point per
    # release at its data date (the fiscal year first in the key, except in a facility list); the snapshot and
    # the data package store it with the period convention of every other series (``tidy.fytd_periods``).
    period: str = field(default="", kw_only=True)

    def __post_init__(self):
        if self.metric not in METRICS:
            raise ValueError(f"series {self.id}: unknown metric {self.metric!r}; known: {sorted(METRICS)}")
        if self.frequency not in FREQUENCIES:
            raise ValueError(f"series {self.id}: unknown frequency {self.frequency!r}")
        if self.measure not in MEASURES:
            raise ValueError(f"series {self.id}: measure must be one of {sorted(MEASURES)}, not {self.measure!r}")
        if self.period not in PERIODS:
            raise ValueError(f"series {self.id}: period must be one of {sorted(PERIODS)}, not {self.period!r}")
        if self.bounds not in ("", "fraction", "count"):
            raise ValueError(f"series {self.id}: bounds must be 'fraction', 'count' or '', not {self.bounds!r}")
        if not self.id.startswith(self.source + "."):
            raise ValueError(f"series {self.id}: id must start with its source id {self.source!r}")


@dataclass
class Parsed:
    """What a parser may return instead of a bare tidy frame: the observations plus reference tables.

    ``tables`` hold attributes that are not time series (e.g. each facility's city, state, AOR and type).
    Each is written to ``data/snapshot/tables/<source>.<name>.csv``; rows from several files are concatenated and
    de-duplicated, so include a column such as ``release`` when the attributes change between releases.
    """

    obs: pd.DataFrame
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)


def table_frame(columns: list[str], rows: list[list]) -> pd.DataFrame:
    """A reference table from row lists, every column as Python objects (what ``pd.DataFrame(row_dicts,
    dtype=object)`` gives for rows with these keys in this order)."""
    return pd.DataFrame(rows, columns=list(columns), dtype=object)


def _no_discovery(session) -> list[str]:  # pragma: no cover - trivial
    return []


RELEASE_DATED = {
    "published": "the day the publisher put the file out, as the file, its name or its page states it",
    "estimated": "an estimate of the publication day from the publisher's stated timing (the rule says how)",
    "data date": "the date the file's data run to: publication came later, on a day not recorded",
    "none": "the rows carry no release date (published once, or digitised)",
}


@dataclass(frozen=True)
class Source:
    """A source declared as data.

    ``parse(content, name)`` is pure: raw bytes (and the file name, which for some publishers carries the
    release date) in, a tidy frame (or a ``Parsed`` with reference tables) out. It never reads the network or the disk.
    ``discover(session)`` returns the URL(s) to download now; for most sources that is a fixed list, for
    ICE it means reading the landing page because the file name changes with every release.
    ``raw_globs`` find this source's raw files under a raw folder: both the project's own cache layout
    (``<id>/*``) and the layout of the shared research copies.
    """

    id: str
    title: str
    publisher: str
    landing_page: str
    licence: str
    cadence: str
    cadence_days: int
    parse: Callable[[bytes, str], pd.DataFrame]
    series: tuple[Series, ...]
    raw_globs: tuple[str, ...]
    discover: Callable = _no_discovery
    download_urls: tuple[str, ...] = ()
    allowed_hosts: tuple[str, ...] = ()
    # ice.gov sits behind a CDN that refuses the default python-requests agent.
    browser_user_agent: bool = False
    max_bytes: int = 50_000_000
    # Records a raw file may hold (parquet rows from its footer, JSON objects, CSV lines), checked before
    # parsing: size on disk says little about the memory a columnar or repetitive file takes once read.
    max_rows: int = 2_000_000
    attribution: str = ""
    # True: a rebuild keeps this source's parses and results and reuses them while their inputs and the code
    # that made them are unchanged (``loaders.parse_cache``, which finds the code by itself: nothing to bump).
    cache_parses: bool = False
    # Integrity checks over all of a source's rows: returns a frame of findings with columns
    # series, key, date, release, file, flag, message ("" matches any); the rows found are flagged, not fixed.
    check: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    # ``check`` in two halves, for a rebuild that keeps its work per file (``cache_parses``; ``loaders.parts``):
    # ``check_file`` reads one file's rows at a time (each finding names its file, and its findings over several
    # files are those over each file alone), ``check_across`` compares the files (and reads no ``flag``: it is
    # handed rows already marked by ``check_file``). Declared together, and ``check(obs)`` gives what the two
    # give; then a new file costs its own checks and the comparisons only.
    check_file: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    check_across: Callable[[pd.DataFrame], pd.DataFrame] | None = None
    # Curated inputs that live in the project itself (e.g. data/reported_figures.csv), relative to its root.
    project_files: tuple[str, ...] = ()
    # True for a source whose raw files are not expected in a rebuild's raw folder (not in the bundled
    # snapshot): a full rebuild without them keeps its current rows instead of refusing.
    optional_raw: bool = False
    # Checks over the source's own reference tables (one row per record): findings in the shape ``check``
    # returns. Run with ``check`` whenever the tables are at hand (rebuild, update).
    check_tables: Callable[[dict], pd.DataFrame] | None = None
    # Work that needs the generation being written, not one source's files: rows derived from another source's
    # series (a rate and its denominator) and checks against other sources' tables. ``finish(obs, tables, other)``
    # returns (rows, findings); ``other.obs(source_id)`` and ``other.table(source_id, name)`` read what the new
    # generation holds (None when absent). The rows must belong to the series named in ``derived`` (no parser
    # gives them), the findings use only the codes in ``finish_flags``, so that both can be replaced when another
    # source changes and this one is only carried over.
    finish: Callable | None = None
    derived: tuple[str, ...] = ()
    finish_flags: tuple[str, ...] = ()
    extra: dict = field(default_factory=dict)
    # What the ``release`` of its rows is (``RELEASE_DATED``): the day the publisher put the file out, an
    # estimate of that day from the publisher's stated timing, or only the date of the data (a lower bound on
    # publication). Said in the manifest and the researchers' export, so nobody reads a data date as a
    # publication date; ``release_rule`` says how the date is found, in words.
    release_dated: str = "published"
    release_rule: str = ""

    @property
    def downloadable(self) -> bool:
        """Whether ``update`` can fetch this source: it has fixed download addresses or finds them at run time
        (a landing page). The others are fixed copies or curated in the project, rebuilt from their files."""
        return bool(self.download_urls) or self.discover is not _no_discovery
