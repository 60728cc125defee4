"""The day the page counts from: a figure's age, whether a source is overdue, a chart's "generated on" line and
the presets that run to today. The one reader of ``DASHBOARD_TODAY=YYYY-MM-DD`` is the data side's
(``loaders.clock``, reached through the view layer), so the page, ``python -m charts export`` and
``python -m loaders status`` count from the same day."""
from __future__ import annotations

from views.data import TODAY_ENV as ENV
from views.data import today

__all__ = ["ENV", "today"]
