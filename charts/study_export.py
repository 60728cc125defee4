"""The event study's CSV: the study's numbers (``views.event_study``) written out with their comment lines."""
from __future__ import annotations

import pandas as pd

from analysis.study import StudyResult
from charts import export
from wording import i18n


def study_csv(title: str, res: StudyResult, win: pd.DataFrame, sources: tuple[str, ...], lang: str = "en",
              sep: str = ",") -> bytes:
    """The study's data as a CSV whose comment lines carry the title, how it was compared, each comparison's
    means and the sources (those lines in ``lang``, their numbers with the reader's marks; the data columns stay
    English, for machines)."""
    c = [i18n.t(f"study.col_{k}", lang) for k in ("comparison", "before", "mean_before", "after", "mean_after")]
    head = [res.note_in(lang)] + [
        i18n.t("study.csv_row", lang, comparison=row[c[0]], before=row[c[1]],
               mean_before=i18n.number(row[c[2]], lang, sep, 2), after=row[c[3]],
               mean_after=i18n.number(row[c[4]], lang, sep, 2))
        for row in res.table(lang).to_dict("records")
        if row[c[2]] is not None and row[c[4]] is not None] + list(sources)
    data = win.assign(date=win["date"].dt.date.astype(str)).rename(columns={"days_from_date": "offset"})
    return export.to_csv(data, sources=head, title=title)
