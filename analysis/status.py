"""Publication status per source, and the spans when a publisher released nothing (blackouts).

Two kinds of knowledge meet here. The snapshot says which releases this project holds. ``data/
publication_status.csv`` (hand-edited, each row with its evidence and whether it is verified) says what is
known beyond that: releases that exist but are not held, mirrors whose dates stand in for releases not held,
spans with no release and why, publishers that stopped, claims reported but not verified, and the series
that carry on after a source went quiet.

A blackout is a span longer than twice a source's cadence with no known release: computed from the release
dates held (plus declared releases and a declared mirror's dates), replaced by a declared span where one
overlaps (it has the exact dates and the reason). Computed spans only say "none in this snapshot": a
missing file is not proof that nothing was published.
"""
from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from loaders import data as cdata
from loaders import freshness as _freshness
from loaders import registry
from loaders.freshness import (  # noqa: F401  (the freshness rule, read here by the page, the cards and tests)
    COLUMNS,
    DECLARED,
    KINDS,
    REASONS,
    UNSCHEDULED_DAYS,
    DeclaredError,
    Freshness,
    cadence_days,
    command_status,
    declared_releases,
    declared_stamp,
    freshness,
    is_reference,
    open_silence,
    read_declared,
    status_words,
)
from loaders.ledger import SHORT_NAMES, day, releases_of
from wording import i18n
from wording.i18n import declared_key  # each fact's id in locales/publication_status.<lang>.csv


@dataclass(frozen=True)
class Blackout:
    source: str
    start: dt.date
    end: dt.date | None  # None: still no release
    statement: str
    evidence_source: str
    declared: bool
    reason: str = ""  # a code of ``REASONS``: why nothing was released, when the evidence says

    def label(self, publisher: str) -> str:
        to = f"to {day(self.end)}" if self.end else "onward"
        return f"{publisher}: no release {day(self.start)} {to}"


def _d(text: str) -> dt.date | None:
    return dt.date.fromisoformat(text) if text else None


def publication_dates(snap: cdata.Snapshot, source: str, declared: pd.DataFrame) -> list[dt.date]:
    """Every date a release of ``source`` is known: held, declared, or seen through a declared mirror."""
    dates = {r.date() for r in releases_of(snap, source)}
    mine = declared[declared["source"] == source]
    dates |= {_d(s) for s in mine.loc[mine["kind"] == "release", "start"]}
    for mirror in mine.loc[mine["kind"] == "mirror", "target"]:
        dates |= {r.date() for r in releases_of(snap, mirror)}
    return sorted(dates)


def blackouts(snap: cdata.Snapshot, source: str, today: dt.date | None = None,
              declared: pd.DataFrame | None = None) -> list[Blackout]:
    today = today or dt.date.today()
    declared = read_declared() if declared is None else declared
    mine = declared[declared["source"] == source]
    # A blackout's and a stopped publisher's start is required (``_read_declared``).
    decl = [Blackout(source, dt.date.fromisoformat(r.start), _d(r.end), r.statement, r.evidence_source, True, r.reason)
            for r in mine.itertuples() if r.kind == "blackout"]
    # A publisher that stopped: from the last day its data cover (as declared), with no end.
    decl += [Blackout(source, dt.date.fromisoformat(r.start), None, r.statement, r.evidence_source, True)
             for r in mine.itertuples() if r.kind == "stopped"]
    cad = cadence_days(snap, source)
    computed = []
    dates = publication_dates(snap, source, declared)
    if cad and cad < UNSCHEDULED_DAYS and dates:
        publisher = SHORT_NAMES.get(source, source)
        publisher = publisher[0].upper() + publisher[1:]
        for a, b in zip(dates, dates[1:]):
            if (b - a).days > 2 * cad:
                computed.append(Blackout(source, a, b, f"No {publisher} release in this snapshot between "
                                         f"{day(a)} and {day(b)} (its cadence: {cad} days).", "this snapshot", False))
        if (today - dates[-1]).days > 2 * cad:
            computed.append(Blackout(source, dates[-1], None, f"No {publisher} release in this snapshot after "
                                     f"{day(dates[-1])}.", "this snapshot", False))
    keep = [c for c in computed if not any(_overlap(c, d, today) for d in decl)]
    return sorted(decl + keep, key=lambda b: b.start)


def _overlap(a: Blackout, b: Blackout, today: dt.date) -> bool:
    return a.start < (b.end or today) and b.start < (a.end or today)


def series_blackouts(snap: cdata.Snapshot, series_ids, lo: dt.date, hi: dt.date,
                     today: dt.date | None = None, declared_path: Path | str = DECLARED) -> dict[str, list[Blackout]]:
    """For each series in view, its source's blackouts that reach into [lo, hi]."""
    declared = read_declared(declared_path)
    stamp = declared_stamp(declared_path)
    today = today or dt.date.today()
    out = {}
    for sid in series_ids:
        src = sid.split(".", 1)[0]
        # Kept on the (read-only) snapshot per source, day and version of the declared file (by value):
        # page reruns ask every time.
        kept = snap.memo.keep(("blackouts", src, today, stamp), functools.partial(blackouts, snap, src, today, declared))
        hit = [b for b in kept if b.start <= hi and (b.end or hi) >= lo]
        if hit:
            out[sid] = hit
    return out


# ---------------------------------------------------------------- freshness (one place for the page, the cards
# and `python -m loaders status`: each once computed its own age from its own date, and they disagreed). The rule
# and the declared file's reading are the data side's (loaders.freshness); here with the releases held read once
# per snapshot.

def source_freshness(snap: cdata.Snapshot, source: str, today: dt.date | None = None,
                     declared: pd.DataFrame | None = None) -> Freshness:
    """``loaders.freshness.source_freshness``, the releases held read through ``releases_of``."""
    return _freshness.source_freshness(snap, source, today, declared, releases=releases_of)


# ---------------------------------------------------------------- age in words (the cards, the chart's subtitle)

# Sources whose files carry their own publication date (for ICE, only files dated in their name): only for these
# is the latest release held a day something was published. For the others (TRAC's snapshot dates, CBP's data
# months) it stands for the data, so an overdue figure is said as "no newer data", never "nothing since".
PUBLICATION_DATED = ("ice_detention_stats", "ohss_monthly_tables")


@dataclass(frozen=True)
class Age:
    """How old a figure is and whether its source is overdue, as the words under a headline card and in a
    chart's subtitle say it (``age_sentences``)."""
    source: str
    fresh: Freshness
    cadence_days: int
    silent_since: dt.date | None  # the start of a declared span with no release that is still open
    stopped: bool  # the publisher stopped (declared)
    stopped_verified: bool

    @property
    def overdue(self) -> bool:
        return bool(self.fresh.overdue_days) or self.stopped


def age_of(snap: cdata.Snapshot, source: str, fresh: Freshness, today: dt.date,
           declared: pd.DataFrame | None = None) -> Age:
    """``fresh`` (the card's or the chart's ``freshness``) with what the declared facts add: a stopped publisher,
    or a declared open span with no release."""
    declared = read_declared() if declared is None else declared
    mine = declared[(declared["source"] == source) & (declared["kind"] == "stopped")]
    return Age(source, fresh, cadence_days(snap, source), open_silence(declared, source),
               bool(len(mine)), bool(len(mine)) and mine.iloc[0]["verified"] == "yes")


def source_age(snap: cdata.Snapshot, source: str, today: dt.date, data_date: dt.date | None = None,
               declared: pd.DataFrame | None = None) -> Age:
    """A source's age (``source_freshness``), from ``data_date`` when a figure ends earlier than the source."""
    declared = read_declared() if declared is None else declared
    fresh = source_freshness(snap, source, today, declared)
    if data_date is not None and fresh.data_date != data_date:
        fresh = replace(fresh, data_date=data_date, age_days=(today - data_date).days)
    return age_of(snap, source, fresh, today, declared)


def publisher_name(source: str, lang: str = "en") -> str:
    """The short name of a source's publisher in running text ("ICE", "CBP"; "la CBP" in Spanish)."""
    if lang != "en" and i18n.has(f"news.who.{source}", lang):
        return i18n.t(f"news.who.{source}", lang)
    return SHORT_NAMES.get(source, source)


def _opening(text: str) -> str:
    """A sentence's first letter in capitals, and Spanish's contractions where a publisher's article follows
    "de" or "a" ("de el DHS" is "del DHS")."""
    text = text.replace(" de el ", " del ").replace(" a el ", " al ")
    return text[:1].upper() + text[1:]


def overdue_sentence(age: Age, lang: str = "en") -> str:
    """Why the source is behind, in one sentence, or "" when it is not: a stopped publisher; a declared span
    with no release ("ICE has published nothing since 20 July 2026"); a dated source with no later release
    held; or, for a source whose files carry no publication date, no newer data held."""
    if not age.overdue:
        return ""
    who, f, cad = publisher_name(age.source, lang), age.fresh, age.cadence_days
    if age.stopped:
        return _opening(i18n.t("age.stopped" if age.stopped_verified else "age.stopped_reported", lang, who=who))
    last = f.newer_release or f.release
    if age.silent_since is not None:
        text = i18n.t("age.nothing_since", lang, who=who, date=i18n.date(age.silent_since, lang), cad=cad)
    elif age.source in PUBLICATION_DATED and last is not None:
        text = i18n.t("age.none_held_since", lang, who=who, date=i18n.date(last, lang), n=f.overdue_days, cad=cad)
    else:
        text = i18n.t("age.no_newer_data", lang, who=who, n=f.overdue_days, cad=cad)
    return _opening(text)


def age_sentences(age: Age, lang: str = "en") -> list[str]:
    """What a headline card says under its figure: its data date and age; when the source is overdue by its own
    cadence, that it is; when a newer release is known but not held, that too."""
    f, out = age.fresh, []
    if f.data_date is not None:
        out.append(i18n.plural("age.data_to", f.age_days or 0, lang, date=i18n.date(f.data_date, lang),
                               days=f.age_days))
    return [s for s in out + [overdue_sentence(age, lang), newer_sentence(age, lang)] if s]


def newer_sentence(age: Age, lang: str = "en") -> str:
    """That a release newer than the one held is known (declared), or "": the figure is behind, whether or
    not the publisher is late too."""
    if age.fresh.newer_release is None or age.stopped:
        return ""
    return _opening(i18n.t("age.newer_not_held", lang, who=publisher_name(age.source, lang),
                           date=i18n.date(age.fresh.newer_release, lang)))


def _behind(snap: cdata.Snapshot, data_to: dict[str, dt.date], today: dt.date):
    """Each source drawn (``data_to``: its last day drawn) with its ``Age``, when it is overdue or behind a
    known release."""
    declared = read_declared()
    for source, to in data_to.items():
        age = source_age(snap, source, today, to, declared)
        if age.overdue or (age.fresh.newer_release is not None and not age.stopped):
            yield source, to, age


def chart_age_notes(snap: cdata.Snapshot, data_to: dict[str, dt.date], today: dt.date, lang: str = "en") -> list[str]:
    """For a chart's subtitle: one line per source drawn whose source is overdue or behind a known release
    (``data_to``: each source's last day drawn), with how far its data run. Sources on time add nothing (the
    footer gives every source's data date)."""
    out = []
    for source, to, age in _behind(snap, data_to, today):
        behind = [s for s in (overdue_sentence(age, lang), newer_sentence(age, lang)) if s]
        out.append(" ".join([_opening(i18n.t("age.chart_data_to", lang, who=publisher_name(source, lang),
                                             date=i18n.date(to, lang)))] + behind))
    return out


def compact_age_sentence(age: Age, lang: str = "en") -> str:
    """``overdue_sentence`` and ``newer_sentence`` in one short sentence, for the footer of an article image or
    a social card (no cadence; a silence that starts on the unheld release says the date once): "ICE has
    published nothing since its release of 20 July 2026, which is not in this snapshot"."""
    who, f = publisher_name(age.source, lang), age.fresh
    if age.stopped:
        return overdue_sentence(age, lang)
    newer = f.newer_release
    if age.overdue and age.silent_since is not None and newer == age.silent_since:
        return _opening(i18n.t("age.compact_silent_unheld", lang, who=who, date=i18n.date(newer, lang))) + "."
    parts = []
    if age.overdue:
        last = newer or f.release
        if age.silent_since is not None:
            parts.append(i18n.t("age.compact_nothing_since", lang, who=who, date=i18n.date(age.silent_since, lang)))
        elif age.source in PUBLICATION_DATED and last is not None:
            parts.append(i18n.t("age.compact_none_held_since", lang, who=who, date=i18n.date(last, lang),
                                n=f.overdue_days))
        else:
            parts.append(i18n.t("age.compact_no_newer_data", lang, who=who, n=f.overdue_days))
    if newer is not None:
        parts.append(i18n.t("age.compact_newer_not_held", lang, who=who, date=i18n.date(newer, lang)))
    return _opening("; ".join(parts)) + "." if parts else ""


def compact_age_notes(snap: cdata.Snapshot, data_to: dict[str, dt.date], today: dt.date, lang: str = "en",
                      shown_to: dt.date | None = None) -> list[str]:
    """``chart_age_notes`` in short sentences, for a compact figure's footer: one per source drawn that is
    overdue or behind a known release. How far its data run is said only when it differs from ``shown_to``
    (the date the footer's source line already gives)."""
    out = []
    for source, to, age in _behind(snap, data_to, today):
        text = compact_age_sentence(age, lang)
        if to != shown_to:
            text = _opening(i18n.t("age.chart_data_to", lang, who=publisher_name(source, lang),
                                   date=i18n.date(to, lang))) + " " + text
        out.append(text)
    return out


# ---------------------------------------------------------------- status

@dataclass
class Status:
    source: str
    title: str
    publisher: str
    last_release_held: dt.date | None
    last_release_known: dt.date | None  # held or declared (e.g. a release known only through TRAC)
    cadence: str
    cadence_days: int
    days_since: int | None
    days_overdue: int | None
    status: str  # in words
    in_snapshot: bool
    evidence: list[dict] = field(default_factory=list)  # {statement, source, verified}
    continues: list[dict] = field(default_factory=list)  # {series, title, data_through, note}
    data_through: dt.date | None = None  # the last day the data cover
    data_age_days: int | None = None  # days from that day to today: the age of what a reader sees
    newer_release: dt.date | None = None  # a release known (declared) after the latest held, not held

    def summary(self) -> str:
        bits = [f"{self.title}: {self.status}"]
        if self.last_release_known:
            bits.append(f"last release {self.last_release_known.isoformat()}"
                        + ("" if self.last_release_known == self.last_release_held else
                           f" (latest held: {self.last_release_held.isoformat() if self.last_release_held else 'none'})"))
        return "; ".join(bits)


def publication_status(snap: cdata.Snapshot, today: dt.date | None = None,
                       declared: pd.DataFrame | None = None) -> list[Status]:
    """One status per registered source in the snapshot's manifest, plus declared publications (such as
    ICE's statistics pages) that are not sources of the snapshot."""
    today = today or dt.date.today()
    declared = read_declared() if declared is None else declared
    ids = list(snap.manifest.get("sources", {}))
    ids += [s for s in registry.SOURCES if s not in ids]  # sources the snapshot lacks (DDP's record-level files)
    ids += [s for s in dict.fromkeys(declared["source"]) if s not in ids]
    return [source_status(snap, s, today, declared) for s in ids]


def source_status(snap: cdata.Snapshot, source: str, today: dt.date | None = None,
                  declared: pd.DataFrame | None = None) -> Status:
    today = today or dt.date.today()
    declared = read_declared() if declared is None else declared
    entry = snap.source_entry(source)
    mine = declared[declared["source"] == source]
    fresh = source_freshness(snap, source, today, declared)
    held_last = fresh.release
    known_last = fresh.newer_release or held_last
    cad = cadence_days(snap, source)
    in_snap = any(s.split(".", 1)[0] == source for s in snap.by_series)
    days_since = (today - known_last).days if known_last else None
    words = status_words(snap, source, fresh, today, declared)
    title = entry.get("title") or _registry_title(source) or source
    if source == "ice_statistics_page":
        title = "ICE enforcement statistics pages (ice.gov/statistics)"
    return Status(source, title, entry.get("publisher", ""), held_last, known_last, entry.get("cadence", ""), cad,
                  days_since, fresh.overdue_days, words, in_snap, _evidence(source, mine), _continues(snap, source, mine),
                  fresh.data_date, fresh.age_days, fresh.newer_release)


def _evidence(source: str, mine: pd.DataFrame) -> list[dict]:
    """The declared facts about a source's releases, blackouts, stop and claims, with each one's catalogue key."""
    return [dict(statement=r.statement, source=r.evidence_source, verified=r.verified == "yes", kind=r.kind,
                 key=declared_key(source, r.kind, r.start, r.target))
            for r in mine.itertuples() if r.kind in ("release", "blackout", "stopped", "claim")]


def _continues(snap: cdata.Snapshot, source: str, mine: pd.DataFrame) -> list[dict]:
    """The series a source's figures continue in (declared ``continues`` rows), with the data date of each."""
    continues = []
    for r in mine[mine["kind"] == "continues"].itertuples():
        df = snap.by_series.get(r.target)
        title = snap.catalogue.loc[r.target, "title"] if r.target in snap.catalogue.index else r.target
        continues.append(dict(series=r.target, title=title, note=r.statement,
                              key=declared_key(source, r.kind, r.start, r.target),
                              data_through=df["end"].max().date() if df is not None and len(df) else None))
    return continues


def _registry_title(source: str) -> str:
    return registry.SOURCES[source].title if source in registry.SOURCES else ""


STATUS_COLUMNS = ("source", "title", "status", "data_through", "data_age_days", "last_release_held",
                  "last_release_known", "cadence", "days_since", "days_overdue", "evidence", "continues_in")


def status_table(statuses: list[Status], lang: str = "en") -> pd.DataFrame:
    """One row per source. In another language than English the status words, the table's own words in its
    cells, the cadences, the evidence's statements and the headers are translated (locales/); ids, source
    titles and the names of where the evidence was read stay as written."""
    en = lang == "en"
    unverified = "; not verified" if en else i18n.t("status.cell_not_verified", lang)
    data_to = (lambda d: f"data to {d}") if en else (lambda d: i18n.t("status.cell_data_to", lang, date=d))
    no_data = "no data in this snapshot" if en else i18n.t("status.cell_no_data", lang)
    rows = []
    for s in statuses:
        rows.append(dict(source=s.source, title=s.title, status=status_text(s.status, lang),
                         data_through=s.data_through, data_age_days=s.data_age_days,
                         last_release_held=s.last_release_held, last_release_known=s.last_release_known,
                         cadence=i18n.cadence_text(s.source, lang, s.cadence), days_since=s.days_since,
                         days_overdue=s.days_overdue,
                         evidence=" | ".join(f"{i18n.declared_text(e['key'], lang, e['statement'])} "
                                             f"[{e['source']}{'' if e['verified'] else unverified}]"
                                             for e in s.evidence),
                         continues_in="; ".join(
                             f"{i18n.series_text(c['series'], 'title', lang, c['title'])} "
                             f"({data_to(c['data_through']) if c['data_through'] else no_data})"
                             for c in s.continues)))
    out = pd.DataFrame(rows, columns=list(STATUS_COLUMNS))
    return out if en else out.rename(columns={c: i18n.t(f"status.col_{c}", lang) for c in STATUS_COLUMNS})


# The words ``loaders.freshness.status_words`` writes, and their catalogue keys (locales/*.toml, status.*).
STATUS_PATTERNS = (
    (r"publication stopped( \(reported, not verified\))?", "stopped"),
    (r"no data in this snapshot( \(record-level files not downloaded\))?", "no_data"),
    (r"not published on a schedule \(fixed or curated files\)", "unscheduled"),
    (r"not versioned", "not_versioned"),
    (r"on time", "on_time"),
    (r"late \((?P<n>\d+) days past its (?P<cad>\d+)-day cadence\)", "late"),
    (r"no release for (?P<n>\d+) days", "no_release_for"),
    (r"no release in this snapshot for (?P<n>\d+) days", "no_release_held_for"),
    (r"reference table, used as it is \(not tracked for lateness\)", "reference"),
)
NEWER_SUFFIX = r"; a newer release of (?P<date>\d{4}-\d\d-\d\d) is known, not held"


def status_text(words: str, lang: str = "en") -> str:
    """A source's status words (``Status.status``) in ``lang``; English words the patterns do not know are
    returned as they are."""
    if lang == "en":
        return words
    newer = re.search(NEWER_SUFFIX + "$", words)
    if newer:
        return status_text(words[:newer.start()], lang) + i18n.t("status.newer_known", lang, date=newer["date"])
    for pattern, key in STATUS_PATTERNS:
        m = re.fullmatch(pattern, words)
        if m:
            fields = {k: v for k, v in m.groupdict().items() if v is not None}
            text = i18n.t("status." + key, lang, **fields)
            if m.groups() and m.group(1) and key in ("stopped", "no_data"):
                text += i18n.t("status." + key + "_extra", lang)
            return text
    return words
