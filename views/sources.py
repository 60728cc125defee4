"""The Sources and methods room as tables in the reader's language: the files read, the series definitions, the
comparisons between measures, the known data problems and the snapshot's integrity flags explained. The tables
themselves are ``analysis.sources``'s (English, as the data is); this module puts them in the reader's words."""
from __future__ import annotations

import pandas as pd

from analysis import sources as csources
from wording import flag_messages, i18n, methods

from .data import Snapshot


def sources_tables(snap: Snapshot) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(files read, series catalogue, known data problems) of the snapshot, in English."""
    return csources.sources_tables(snap)


def catalogue_in(table: pd.DataFrame, lang: str) -> pd.DataFrame:
    """The series definitions with each title and definition in ``lang`` (ids, codes and units' keys kept)."""
    if lang == "en":
        return table
    out = table.copy()
    for col in ("title", "definition", "unit"):
        if col in out:
            out[col] = [i18n.series_text(sid, col, lang, str(v)) for sid, v in zip(out["id"], out[col])]
    return out


def comparisons(lang: str) -> pd.DataFrame:
    """Which measures readers confuse and how they differ, in ``lang``."""
    if lang == "en":
        return csources.comparisons_table()
    return pd.DataFrame(methods.texts("COMPARISONS", lang), columns=[i18n.t("page.sources.col_measure", lang),
                                                                       i18n.t("page.sources.col_differ", lang)])


def problems(notes_table: pd.DataFrame, lang: str) -> pd.DataFrame:
    """The known data problems and what the dashboard does about each, in ``lang`` (``notes_table`` in English)."""
    if lang == "en":
        return notes_table
    return pd.DataFrame(methods.texts("QUALITY_NOTES", lang), columns=[i18n.t("page.sources.col_problem", lang),
                                                                         i18n.t("page.sources.col_does", lang)])


def flags_explained(flags: pd.DataFrame, lang: str, sep: str = ",") -> pd.DataFrame:
    """The snapshot's integrity flags: quality_flags.csv stays English (data); another language gets each finding
    explained beside it."""
    if lang == "en":
        return flags
    return flags.assign(**{i18n.t("page.sources.col_explained", lang): [
        flag_messages.explain(f, m, lang, sep) for f, m in zip(flags["flag"], flags["message"])]})
