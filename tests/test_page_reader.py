"""What a reader meets on the page (issue 26): the events table in words, a custom range that ends where the
data end, links that keep the language, the frequency control that says what it cannot change, and headline
cards that are one sentence to quote. Streamlit's AppTest on the bundled snapshot."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT, open_trend_panels


def app(query: dict | None = None, panels: tuple[str, ...] = ()) -> AppTest:
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=120)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    open_trend_panels(at, panels)
    at.run()
    assert not at.exception, [e.message for e in at.exception]
    return at


def events_table(at: AppTest):
    """The events table under the chart: (its frame, its column settings as the browser gets them)."""
    for d in at.dataframe:
        frame = d.value
        if "number" in frame.columns and "title" in frame.columns:
            return frame, json.loads(d.proto.columns or "{}")
    raise AssertionError("no events table on the page")


@pytest.mark.parametrize("lang, words", [("en", ("Date precision", "Category", "Source")),
                                         ("es", ("Precisión de la fecha", "Categoría", "Fuente"))])
def test_the_events_table_shows_reader_labels_not_field_names(lang, words):
    at = app({"lang": lang}, panels=("x_events_legend",))
    frame, columns = events_table(at)
    labels = {c: (columns.get(c) or {}).get("label") for c in frame.columns}
    raw = [c for c, label in labels.items() if not label or label == c]
    assert not raw, f"columns shown under their field names: {raw}"
    shown = " | ".join(labels.values())
    for w in words:
        assert w in shown, shown
    # The precision is a word of the reader's language too, not the file's code.
    precision = set(frame["date_precision"])
    assert precision and not precision & ({"exacta", "aproximada"} if lang == "en" else {"exact", "approximate"})
