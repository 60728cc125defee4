"""The day everything counts from: a figure's age, whether a source is overdue, a chart's "generated on" line,
a CSV's export date and the presets that run to today. One function, read by the page (through
``views.data.today``), by ``python -m charts export`` and by ``python -m loaders status``, so a test (or a
screenshot, or an image made for a given day) sets the day once with ``DASHBOARD_TODAY=YYYY-MM-DD`` and the
page, the exported images and the command line agree on it."""
from __future__ import annotations

import datetime as dt
import os

ENV = "DASHBOARD_TODAY"


def today() -> dt.date:
    """Today, or the day ``DASHBOARD_TODAY`` names. A value that is not a real YYYY-MM-DD date is refused with
    an error naming the variable, rather than quietly counting from the real date."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{ENV}={text!r} is not a real YYYY-MM-DD date") from None
