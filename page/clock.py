"""The day the page counts from: a figure's age, whether a source is overdue, a chart's "generated on" line and
the presets that run to today. One function, so a test (or a screenshot of a given day) sets the day once with
``DASHBOARD_TODAY=YYYY-MM-DD`` and every part of the page agrees on it."""
from __future__ import annotations

import datetime as dt
import os

ENV = "DASHBOARD_TODAY"


def today() -> dt.date:
    """Today, or the day ``DASHBOARD_TODAY`` names. A value that is not a real YYYY-MM-DD date stops the page
    with an error naming the variable, rather than quietly counting from the real date."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return dt.date.today()
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"{ENV}={text!r} is not a real YYYY-MM-DD date") from None
