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
import pytest
from babel import Locale

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
# The catalogue's counted messages: every one said "(s)" before it had singular and plural forms, except
# page.events.already_saved (Spanish "1 ya estaban") and page.events.rejected_count (was inside "accepted").
COUNTED = ("figure.note_withheld", "events.csv_head", "page.sources.flags", "page.events.upload_kept",
           "page.events.accepted", "page.events.saved", "page.events.local_refused", "deaths.enforcement_apart",
           "deaths.unplaced", "deaths.fig.hover_deaths", "deaths.fig.no_state", "deaths.fig.not_drawn",
           "page.events.already_saved", "page.events.rejected_count", "figure.band_hover")
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
    fields = {f: f"<{f}>" for f in i18n.fields_of(i18n.t(key + ".other", lang))}
    for f in ("n", "added"):
        if f in fields:
            fields[f] = n
    if key == "page.events.accepted":  # as page/uploads.py fills it: the rejected rows counted in their own words
        fields["rejected"] = i18n.plural("page.events.rejected_count", n, lang)
    return fields


def counted_messages() -> dict[str, str]:
    """Each counted message in both languages for a few counts (every count field set to the same count)."""
    return {f"{key}|{lang}|{n}": i18n.plural(key, n, lang, **_fields(key, lang, n))
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


def test_a_count_of_one_takes_the_singular_and_any_other_the_plural():
    assert i18n.plural("deaths.fig.hover_deaths", 1, "en") == "1 death in custody"
    assert i18n.plural("deaths.fig.hover_deaths", 2, "en") == "2 deaths in custody"
    assert i18n.plural("deaths.fig.hover_deaths", 0, "en") == "0 deaths in custody"
    assert i18n.plural("deaths.fig.hover_deaths", 1, "es") == "1 muerte bajo custodia"
    assert i18n.plural("deaths.fig.hover_deaths", 2, "es") == "2 muertes bajo custodia"
    # Spanish CLDR has a "many" category (a million); the catalogue writes no such form, so "other" serves.
    assert i18n.plural_category(1000000, "es") == "many"
    assert i18n.plural("deaths.fig.hover_deaths", 1000000, "es") == "1000000 muertes bajo custodia"
    # Counts as pandas gives them, and the count written with the reader's separators as ``n``.
    assert i18n.plural("page.sources.flags", np.int64(1), "es").startswith("Las comprobaciones de integridad "
                                                                           "señalaron 1 elemento en")
    assert i18n.plural("deaths.fig.hover_deaths", 1000, "es", n=i18n.number(1000, "es", ".")) == (
        "1.000 muertes bajo custodia")


def test_a_counted_message_is_asked_for_with_its_count():
    with pytest.raises(KeyError, match="counted message"):
        i18n.t("deaths.fig.hover_deaths", "en", n=2)
    with pytest.raises(KeyError, match="no counted message"):
        i18n.plural("deaths.caveat", 2, "en")


def test_counted_messages_are_whole_in_both_languages():
    """Every counted message has "one" and "other" in both catalogues, no form CLDR does not know for the
    language, the same fields in every form; and no message counts with "(s)" any more."""
    for lang in i18n.LANGS:
        cat, tags = i18n.catalogue(lang), Locale.parse(lang).plural_form.tags | {"other"}
        counted = {k.rsplit(".", 1)[0] for k in cat if k.endswith((".one", ".other"))}
        assert counted >= set(COUNTED)
        for key in counted:
            forms = {k.rsplit(".", 1)[1]: v for k, v in cat.items() if k.rsplit(".", 1)[0] == key}
            assert {"one", "other"} <= set(forms) <= tags, (lang, key, sorted(forms))
            assert len({frozenset(i18n.fields_of(v)) for v in forms.values()}) == 1, (lang, key)
        assert [k for k, v in cat.items() if "(s)" in v.replace("http(s)", "")] == [], lang


def test_numbers_round_the_exact_value_of_a_float_as_before():
    """Babel alone writes a float as text first and rounds that: 2.675 -> "2.68"; the float is 2.67499..."""
    assert i18n.number(2.675, "en", ",", 2) == "2.67"
    assert i18n.number(2.675, "es", ".", 2) == "2,67"
    assert i18n.number(-0.04, "es", ".", 1, signed=True) == "-0,0"
    assert i18n.number(1234567.891, "es", ".", 2, signed=True) == "+1.234.567,89"


def _write() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for path, data in ((FORMATS_FILE, formats()), (MESSAGES_FILE, counted_messages())):
        path.write_text(json.dumps(data, ensure_ascii=False, indent=0, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {path} ({len(data)} cases)")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    _write()
