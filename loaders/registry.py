"""The explicit list of sources. Add a module here to add a source (see docs/contributing.md, "Adding a source")."""
from __future__ import annotations

from . import (
    cbp_encounters,
    census,
    ddp_arrests_aggregates,
    ddp_facility_daily,
    ddp_records,
    deaths_in_custody,
    facility_registry,
    ice_detention_stats,
    ohss_khsm,
    ohss_monthly,
    reported_figures,
    trac_detention,
)
from .base import Series, Source

SOURCES: dict[str, Source] = {m.SOURCE.id: m.SOURCE for m in (
    ice_detention_stats,
    trac_detention,
    ddp_facility_daily,
    ddp_records,
    ddp_arrests_aggregates,
    cbp_encounters,
    ohss_monthly,
    ohss_khsm,
    reported_figures,
    facility_registry,
    census,
    deaths_in_custody,
)}


def get(source_id: str) -> Source:
    try:
        return SOURCES[source_id]
    except KeyError:
        raise KeyError(f"unknown source {source_id!r}; known: {', '.join(SOURCES)}") from None


def catalogue() -> list[Series]:
    return [s for src in SOURCES.values() for s in src.series]
