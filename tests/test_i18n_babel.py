"""The translation layer's dates, months and numbers, compared with golden files written before Babel took
them over (tests/golden/i18n/), and its plural forms.

The golden files were generated from the hand-written code (month tables and separator swapping) and are
never rewritten by the tests. Regenerate on purpose only, and read the diff before committing:

    /work/main/.venv/bin/python tests/test_i18n_babel.py --write
"""
from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wording import i18n  # noqa: E402

GOLDEN = Path(__file__).resolve().parent / "golden" / "i18n"
FORMATS_FILE = GOLDEN / "formats.json"
MESSAGES_FILE = GOLDEN / "counted_messages.json"

# One day in every month (single- and two-digit days, a leap day, year ends), and the input types callers pass.
DAYS = [dt.date(2025, m, d) for m, d in ((1, 5), (2, 28), (3, 31), (4, 1), (5, 15), (6, 9), (7, 4), (8, 31),
                                          (9, 30), (10, 1), (11, 11), (12, 31))] + [dt.date(2024, 2, 29),
                                                                                     dt.date(1999, 12, 1)]
DAY_INPUTS = [("date", d) for d in DAYS] + [
    ("timestamp", pd.Timestamp("2026-07-31")), ("datetime", dt.datetime(2025, 1, 20, 23, 59))]
VALUES = [0, 1, -1, 7, 999, 1000, -1000, 1234.5678, -1234.5678, 75000, 110.6, -3.25, 2.675, 0.125, 1.005, 0.5,
          1.5, 2.5, 0.04, -0.04, 1584.25, 1e6, 12345678.9, 10 ** 18, 999.9999, np.int64(42000), np.float64(0.35),
          float("nan"), float("inf"), None]
# The catalogue's counted messages: every one said "(s)" before it had singular and plural forms.
COUNTED = ("figure.note_withheld", "events.csv_head", "page.sources.flags", "page.events.upload_kept",
           "page.events.accepted", "page.events.saved", "page.events.local_refused", "deaths.enforcement_apart",
           "deaths.unplaced", "deaths.fig.hover_deaths", "deaths.fig.no_state", "deaths.fig.not_drawn")
COUNTS = (0, 1, 2, 5, 21, 1000, 1000000)


def formats() -> dict[str, str]:
    """Every date, month and number format the code uses, over a grid of inputs, languages and separators."""
    out = {}
    for lang in i18n.LANGS:
        for kind, d in DAY_INPUTS:
            for style in ("long", "short", "iso"):
                out[f"date|{lang}|{style}|{kind}|{d}"] = i18n.date(d, lang, style)
            out[f"month|{lang}|{kind}|{d}"] = i18n.month(d, lang)
        for style in ("iso", "long", "short"):
            out[f"date_range|{lang}|{style}"] = i18n.date_range(DAYS[0], DAYS[-1], lang, style)
        for m in range(12):
            out[f"MONTHS|{lang}|{m + 1}"] = i18n.MONTHS[lang][m]
            out[f"MONTHS_SHORT|{lang}|{m + 1}"] = i18n.MONTHS_SHORT[lang][m]
        for sep in (None, ",", "."):
            out[f"plotly_separators|{lang}|{sep}"] = i18n.plotly_separators(sep, lang)
            for v in VALUES:
                for decimals in (0, 1, 2, 3):
                    for signed in (False, True):
                        out[f"number|{lang}|{sep}|{decimals}|{signed}|{type(v).__name__}|{v!r}"] = i18n.number(
                            v, lang, sep, decimals, signed)
    return out


def _fields(key: str, lang: str, n: int) -> dict:
    fields = {f: f"<{f}>" for f in i18n.fields_of(i18n.t(key if i18n.has(key, lang) else key + ".other", lang))}
    for f in ("n", "added", "rejected"):
        if f in fields:
            fields[f] = n
    return fields


def counted_messages() -> dict[str, str]:
    """Each counted message in both languages for a few counts (every count field set to the same count)."""
    return {f"{key}|{lang}|{n}": i18n.t(key, lang, **_fields(key, lang, n))
            for key in COUNTED for lang in i18n.LANGS for n in COUNTS}


def _compare(now: dict[str, str], path: Path) -> None:
    golden = json.loads(path.read_text(encoding="utf-8"))
    assert sorted(set(golden) ^ set(now)) == [], f"the grid and {path.name} name different cases"
    diff = {k: (golden[k], now[k]) for k in golden if golden[k] != now[k]}
    assert diff == {}, f"{len(diff)} outputs differ from {path.name} (golden, now); first: {list(diff.items())[:5]}"


def test_dates_months_and_numbers_are_as_before():
    _compare(formats(), FORMATS_FILE)


def test_counted_messages_are_as_recorded():
    _compare(counted_messages(), MESSAGES_FILE)


def _write() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for path, data in ((FORMATS_FILE, formats()), (MESSAGES_FILE, counted_messages())):
        path.write_text(json.dumps(data, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {path} ({len(data)} cases)")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    _write()
