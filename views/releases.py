"""The Releases room and the release facts other rooms quote: publication status per source with its evidence,
what's new in the latest releases (ready to paste), the ledger of every release with its revisions, the
continuity charts and the catalogued sources the snapshot lacks. The page lays these out in plain-text elements.

The ledger and status computations are read through one import each (``loaders.ledger``, ``analysis.status``)."""
from __future__ import annotations

import datetime as dt

import pandas as pd

from analysis import status
from figures import continuity
from loaders import ledger
from wording import i18n

from .data import Snapshot


def statuses(snap: Snapshot, today: dt.date) -> list:
    """Each source's publication status on ``today`` (``analysis.status.Status`` records)."""
    return status.publication_status(snap, today)


def status_table(rows: list, lang: str = "en") -> pd.DataFrame:
    """The publication-status table of ``statuses``, in ``lang``."""
    return status.status_table(rows, lang)


def stopped_notes(rows: list, lang: str = "en") -> list[tuple[str, list[str]]]:
    """For each source that stopped publishing or has no release and has evidence or successors: a heading and
    its lines (the evidence, then where the figures continue), in ``lang``."""
    notes = []
    for s in rows:
        if s.status.startswith(("publication stopped", "no release")) and (s.evidence or s.continues):
            lines = [i18n.t("status.evidence_line", lang, statement=i18n.declared_text(e["key"], lang, e["statement"]),
                            source=e["source"],
                            unverified="" if e["verified"] else i18n.t("status.evidence_unverified", lang))
                     for e in s.evidence]
            if s.continues:
                lines.append(i18n.t("releases.continue", lang))
                for c in s.continues:
                    when = (i18n.t("status.cell_data_to", lang, date=c["data_through"]) if c["data_through"]
                            else i18n.t("status.cell_no_data", lang))
                    lines.append(f"- {i18n.series_text(c['series'], 'title', lang, c['title'])} ({when}): "
                                 f"{i18n.declared_text(c['key'], lang, c['note'])}")
            notes.append((f"{s.title}: {status.status_text(s.status, lang)}", lines))
    return notes


def card_status(rows: list, source: str, lang: str = "en") -> str:
    """One line for a headline card: the source's publication status in words, with its last release."""
    for s in rows:
        if s.source == source:
            last = i18n.t("status.card_last", lang, date=s.last_release_known.isoformat()) if s.last_release_known else ""
            held = (i18n.t("status.card_held", lang, date=s.last_release_held.isoformat())
                    if s.last_release_held and s.last_release_held != s.last_release_known else "")
            return i18n.t("status.card", lang, status=status.status_text(s.status, lang), last=last, held=held)
    return ""


def citation_block(snap: Snapshot, today: dt.date, lang: str = "en") -> str:
    """What's new, with the sources and the retrieval line, ready to paste."""
    return ledger.citation_text(snap, lang=lang) + "\n" + i18n.t("releases.read_on", lang, date=today.isoformat())


def whats_new_text(snap: Snapshot, sources: tuple[str, ...], lang: str = "en") -> str:
    """What's new in the latest release of each of ``sources``, with its citation ("" when nothing is)."""
    return ledger.citation_text(snap, list(sources), lang=lang)


def with_whats_new(citation: str, new: str, lang: str = "en") -> str:
    """A view's citation followed by ``new`` (``whats_new_text``) under its heading, when there is any."""
    return citation + ("\n" + i18n.t("news.whats_new", lang) + new if new else "")


def release_ledger(snap: Snapshot, lang: str = "en", separators: str = ",") -> pd.DataFrame:
    """Every release of every source, its cells in ``lang`` with the number separators ``separators``."""
    return ledger.ledger(snap, lang=lang, separators=separators)


def ledger_sources(table: pd.DataFrame) -> tuple[list[str], int]:
    """The sources of the ledger ``table`` in order, and the one shown first (ICE's detention statistics)."""
    sources = list(dict.fromkeys(table["source"]))
    return sources, sources.index("ice_detention_stats") if "ice_detention_stats" in sources else 0


def revisions_by_release(snap: Snapshot, source: str) -> pd.DataFrame:
    """How much each release of ``source`` revised, newest first."""
    return ledger.revisions_by_release(snap, source).iloc[::-1]


def revisions_by_month(snap: Snapshot, source: str) -> pd.DataFrame:
    """Each period of ``source`` that a later release revised, with its range of values."""
    return ledger.revisions_by_month(snap, source)


def continuity_figure(snap: Snapshot, measure: str, today: dt.date, lang: str = "en"):
    """The continuity chart of ``measure`` ("detained" or "arrests"): which source covers which stretch."""
    return continuity.continuity_figure(snap, measure, generated_on=today, lang=lang)


def missing_sources(snap: Snapshot) -> pd.DataFrame:
    """The catalogued series the snapshot does not hold (id, title, data); empty when none is missing."""
    pres = ledger.catalogue_presence(snap)
    return pres[~pres["in_snapshot"]][["id", "title", "data"]]
