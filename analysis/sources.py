"""The Sources and methods tab's tables, built from the snapshot: every file read (with its checksum, licence,
and where the bytes came from), the series catalogue with whether each has data, and the data-quality notes.

Pure pandas; the page caches and lays them out.
"""
from __future__ import annotations

import pandas as pd

from loaders import data as cdata
from loaders import origins
from loaders.ledger import catalogue_presence
from wording import methods

CATALOGUE_COLUMNS = ["id", "title", "metric", "agency", "breakdown", "unit", "frequency", "definition", "source"]


def files_table(snap: cdata.Snapshot) -> pd.DataFrame:
    """One row per file of every source in the manifest."""
    rows = []
    for source, entry in snap.manifest.get("sources", {}).items():
        for f in entry.get("files", []):
            o = f.get("origin") or {}
            rows.append({"source": source, "publisher": entry.get("publisher"), "file": f["name"],
                         "release": f.get("release"), "data to": f.get("data_date"),
                         "retrieved": f.get("retrieved") or "not recorded", "sha256": f["sha256"],
                         "licence": f.get("licence"), "rows": f.get("rows"),
                         "url": o.get("official_url") or f.get("url"),
                         # How the bytes were read when not from the official URL (an archive copy, a mirror).
                         "read": origins.READ_AS.get(o.get("read_as", ""), ""), "read from": o.get("read_url") or None,
                         "archive copy": o.get("archive_url") or None})
    return pd.DataFrame(rows)


def catalogue_table(snap: cdata.Snapshot) -> pd.DataFrame:
    """The series definitions, saying where a listed series has no data in this snapshot."""
    catalogue = snap.catalogue.reset_index()[CATALOGUE_COLUMNS]
    data = catalogue_presence(snap).set_index("id")["data"]  # also lists declared series the catalogue lacks
    catalogue.insert(2, "data in this snapshot", data.reindex(catalogue["id"]).to_numpy())
    return catalogue


def quality_notes_table() -> pd.DataFrame:
    return pd.DataFrame(methods.QUALITY_NOTES, columns=["problem", "what the dashboard does"])


def comparisons_table() -> pd.DataFrame:
    return pd.DataFrame(methods.COMPARISONS, columns=["measure", "how the sources differ"])


def sources_tables(snap: cdata.Snapshot) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(files, catalogue, quality notes): what the tab shows, in that order."""
    return files_table(snap), catalogue_table(snap), quality_notes_table()
