"""US federal fiscal-year months as calendar dates.

DHS, CBP and ICE count in fiscal years that start on 1 October: FY2025 runs from October 2024 to September
2025, so October, November and December belong to the calendar year before the fiscal year's number.
"""
from __future__ import annotations

import calendar
import datetime as dt

from .parsing import month_end  # noqa: F401 (the one month-end helper, re-exported for the sources)

MONTH_NUMBERS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
MONTH_NUMBERS.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
# Position of each calendar month in the fiscal year (October = 1 ... September = 12).
FISCAL_POSITION = {m: (m - 10) % 12 + 1 for m in range(1, 13)}


def month_number(name: str) -> int | None:
    """1-12 for a month name or abbreviation in any case ("OCT", "October", "oct"); None otherwise."""
    return MONTH_NUMBERS.get(str(name).strip().lower())


def month_start(fiscal_year: int, month: int) -> dt.date:
    """First day of calendar month ``month`` within fiscal year ``fiscal_year``."""
    return dt.date(fiscal_year - 1 if month >= 10 else fiscal_year, month, 1)
