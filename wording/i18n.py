"""The dashboard's words in English and Spanish: message catalogues, the glossary, numbers and dates.

The text lives in data files under ``locales/`` (one catalogue per language, reviewed like data), not in code:

- ``locales/en.toml`` and ``locales/es.toml``: every user-facing message, by key ("figure.generated_on");
  placeholders are ``str.format`` fields ("{date}") and must be the same in both languages;
- ``locales/glossary.toml``: one rendering per term (an arrest is "arresto administrativo", a book-in
  "ingreso en detención"), shown on the Sources view and checked against every Spanish text by the tests;
- ``locales/series.es.csv`` and ``locales/events.es.csv``: Spanish titles and descriptions keyed by id (the
  English stays in ``data/``; series.csv is machine-readable and stays English).

Numbers take their separators as a choice separate from the language: US Spanish outlets print both "75,000"
and "75.000". ``separators`` names the thousands mark ("," or "."); the decimal mark is the other one.

Plural forms, month names, date patterns and number symbols come from Babel (the Unicode CLDR data): a counted
message holds one text per plural category of its language (``key.one``, ``key.other``) and ``plural`` picks
the right one, so "1 death" / "2 deaths" and "1 muerte" / "2 muertes", never "death(s)".

This module imports nothing from the rest of the project, so ``loaders`` can use it too.
"""
from __future__ import annotations

import csv
import datetime as dt
import decimal
import functools
import math
import re
import string
import tomllib
from pathlib import Path

from babel import Locale
from babel.dates import format_date, get_month_names
from babel.numbers import format_decimal, get_decimal_symbol, get_group_symbol

LANGS = ("en", "es")
LANG_NAMES = {"en": "English", "es": "Español"}
SEPARATORS = (",", ".")  # the thousands mark; the decimal mark is the other one
DEFAULT_SEPARATORS = {"en": ",", "es": ","}  # a US audience: "75,000" unless "." is chosen
LOCALES = Path(__file__).resolve().parent.parent / "locales"

# The CLDR locale whose number symbols a reader gets: the language, in the region that writes its thousands
# with the chosen mark ("," as in the United States, "." as in Germany or Spain). Babel takes the decimal mark
# (and the signs) from it.
NUMBER_LOCALES = {("en", ","): "en_US", ("en", "."): "en_DE", ("es", ","): "es_US", ("es", "."): "es_ES"}

# The dashboard writes the day before the month in both languages ("20 January 2025"), not CLDR's US order
# ("January 20, 2025"): these are CLDR patterns, the names in them are CLDR's.
DATE_PATTERNS = {
    "en": {"long": "d MMMM y", "short": "d MMM y", "month": "MMMM y"},
    "es": {"long": "d 'de' MMMM 'de' y", "short": "d MMM y", "month": "MMMM 'de' y"},
}
MONTHS = {lang: tuple(get_month_names("wide", locale=lang)[m] for m in range(1, 13)) for lang in LANGS}
MONTHS_SHORT = {lang: tuple(get_month_names("abbreviated", locale=lang)[m] for m in range(1, 13))
                for lang in LANGS}


class CatalogueError(ValueError):
    """A catalogue file that cannot be used: names the file and the key."""


def check_lang(lang: str | None) -> str:
    """``lang`` if it is one of ``LANGS``; "en" for None or ""; a clear error otherwise."""
    if not lang:
        return "en"
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}; use one of {', '.join(LANGS)}")
    return lang


def _flatten(table: dict, prefix: str = "") -> dict[str, str]:
    out = {}
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


@functools.lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """Every message of one language, by dotted key."""
    path = LOCALES / f"{check_lang(lang)}.toml"
    try:
        with open(path, "rb") as fh:
            flat = _flatten(tomllib.load(fh))
    except tomllib.TOMLDecodeError as e:
        raise CatalogueError(f"{path}: {e}") from None
    for k, v in flat.items():
        if not isinstance(v, str):
            raise CatalogueError(f"{path}: {k} is a {type(v).__name__}, not text")
    return flat


def fields_of(text: str) -> set[str]:
    """The ``str.format`` field names in a message ("{n} series" -> {"n"})."""
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in string.Formatter().parse(text) if name}


def t(key: str, lang: str = "en", /, **fields) -> str:
    """The message ``key`` in ``lang``, its ``{fields}`` filled. A key missing from the catalogue is an error
    (a test checks both catalogues hold the same keys), never a silent fallback to English."""
    cat = catalogue(check_lang(lang))
    try:
        text = cat[key]
    except KeyError:
        if key + ".other" in cat:
            raise KeyError(f"{key!r} is a counted message: use plural({key!r}, count, ...)") from None
        raise KeyError(f"no message {key!r} in {LOCALES / (lang + '.toml')}") from None
    return text.format(**fields) if fields else text


def has(key: str, lang: str = "en") -> bool:
    return key in catalogue(check_lang(lang))


def plural_category(count, lang: str = "en") -> str:
    """CLDR's plural category of ``count`` in ``lang`` ("one", "many", "other"...), by Babel's rules:
    English and Spanish say "one" for 1 only, so 0 takes the plural ("0 deaths", "0 muertes")."""
    n = abs(count)
    return _locale(check_lang(lang)).plural_form(int(n) if n == int(n) else n)  # numpy counts too


@functools.lru_cache(maxsize=None)
def _locale(lang: str) -> Locale:
    return Locale.parse(lang)


def plural(key: str, count, lang: str = "en", /, **fields) -> str:
    """The counted message ``key`` in ``lang`` for ``count`` things: the catalogue holds one text per plural
    category (``key.one``, ``key.other``); a category the language has but the catalogue does not write (the
    Spanish "many" of "1 millón de") takes ``other``. Fields as ``t``; ``n`` is ``count`` unless given (callers
    pass the count written with the reader's separators)."""
    lang = check_lang(lang)
    cat = catalogue(lang)
    if key + ".other" not in cat:
        raise KeyError(f"no counted message {key!r} ({key}.one, {key}.other) in {LOCALES / (lang + '.toml')}")
    text = cat.get(f"{key}.{plural_category(count, lang)}", cat[key + ".other"])
    return text.format(**{"n": count, **fields})


# ---------------------------------------------------------------- numbers

def check_separators(separators: str | None, lang: str = "en") -> str:
    if not separators:
        return DEFAULT_SEPARATORS[check_lang(lang)]
    if separators not in SEPARATORS:
        raise ValueError(f"unknown separators {separators!r}; use ',' (75,000) or '.' (75.000)")
    return separators


def number(value, lang: str = "en", separators: str | None = None, decimals: int = 0, signed: bool = False) -> str:
    """A number with its thousands and decimal marks: 75000 -> "75,000" (separators ",") or "75.000" (".");
    110.6 with one decimal -> "110.6" or "110,6". ``signed``: a change, with its sign ("+110,6", "-3,2")."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return t("common.not_available", lang)
    sep = check_separators(separators, lang)
    # Rounded here, on the float's exact value, as the dashboard always has (2.675 is stored as 2.67499...,
    # so "2.67"): Babel would first write the float as text ("2.675") and round that up to "2.68".
    exact = decimal.Decimal(f"{value:.{decimals}f}")
    pattern = "#,##0" + ("." + "0" * decimals if decimals > 0 else "")
    if signed:
        pattern = f"+{pattern};-{pattern}"
    return format_decimal(exact, pattern, locale=NUMBER_LOCALES[check_lang(lang), sep])


def plotly_separators(separators: str | None = None, lang: str = "en") -> str:
    """Plotly's ``layout.separators``: the decimal mark then the thousands mark (".," or ",.")."""
    loc = NUMBER_LOCALES[check_lang(lang), check_separators(separators, lang)]
    return get_decimal_symbol(loc) + get_group_symbol(loc)


# ---------------------------------------------------------------- dates

def _as_date(d) -> dt.date:
    if hasattr(d, "date") and callable(d.date):  # pandas Timestamp, datetime
        return d.date()
    return d


def date(d, lang: str = "en", style: str = "long") -> str:
    """A date in words: "20 January 2025" / "20 de enero de 2025" (long), "20 Jan 2025" / "20 ene 2025"
    (short), or ISO "2025-01-20" in either language (iso: what a machine or a careful reader copies)."""
    d = _as_date(d)
    lang = check_lang(lang)
    if style == "iso":
        return d.isoformat()
    return format_date(d, DATE_PATTERNS[lang]["short" if style == "short" else "long"], locale=lang)


def month(d, lang: str = "en") -> str:
    """"July 2026" / "julio de 2026"."""
    lang = check_lang(lang)
    return format_date(_as_date(d), DATE_PATTERNS[lang]["month"], locale=lang)


def date_range(lo, hi, lang: str = "en", style: str = "iso") -> str:
    """"2025-01-20 to 2026-07-31" / "del 2025-01-20 al 2026-07-31"."""
    return t("common.date_range", lang, start=date(lo, lang, style), end=date(hi, lang, style))


# ---------------------------------------------------------------- data-file translations (keyed by id)

@functools.lru_cache(maxsize=None)
def _table(name: str) -> dict[str, dict[str, str]]:
    path = LOCALES / name
    if not path.exists():
        return {}
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    out = {}
    for n, row in enumerate(rows, start=2):
        rid = (row.get("id") or "").strip()
        if not rid:
            raise CatalogueError(f"{path} row {n}: no id")
        if rid in out:
            raise CatalogueError(f"{path} row {n}: id {rid} appears twice")
        out[rid] = row
    return out


def series_text(series_id: str, field: str, lang: str = "en", english: str = "") -> str:
    """A series' title, definition or unit in ``lang`` (``locales/series.es.csv``); ``english`` (the
    catalogue's own text) in English, and where a Spanish row is missing (a test requires every one)."""
    if check_lang(lang) == "en":
        return english
    row = _table(f"series.{lang}.csv").get(series_id)
    return (row or {}).get(field) or english


def declared_key(source: str, kind: str, start: str, target: str) -> str:
    """The id of a row of data/publication_status.csv in ``locales/publication_status.<lang>.csv``."""
    # Empty cells may arrive as NaN (pandas): they are "" in the id.
    return "|".join(v if isinstance(v, str) else "" for v in (source, kind, start, target))


def declared_text(key: str, lang: str = "en", english: str = "") -> str:
    """A declared publication fact's statement in ``lang``, as ``series_text`` (a test requires every row)."""
    if check_lang(lang) == "en":
        return english
    return (_table(f"publication_status.{lang}.csv").get(key) or {}).get("statement") or english


def cadence_text(source: str, lang: str = "en", english: str = "") -> str:
    """A source's release cadence in words, in ``lang`` (``locales/cadence.<lang>.csv``)."""
    if check_lang(lang) == "en":
        return english
    return (_table(f"cadence.{lang}.csv").get(source) or {}).get("cadence") or english


def event_text(event_id: str, field: str, lang: str = "en", english: str = "") -> str:
    """An event's title or description in ``lang`` (``locales/events.es.csv``), as ``series_text``."""
    if check_lang(lang) == "en":
        return english
    row = _table(f"events.{lang}.csv").get(str(event_id))
    return (row or {}).get(field) or english


# A number written with "," thousands and "." decimals in prose ("75,000", "1.5"), not part of a date, a
# version or a word.
_PROSE_NUMBER = re.compile(r"(?<![\w.,\-/:])(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)(?![\w,.]?\d)")


def localise_numbers(text: str, separators: str = ",") -> str:
    """Numbers in written text with the chosen marks: "75,000 and 1.5%" -> "75.000 and 1,5%" for ".".
    The Spanish texts are written with "," thousands (the US Spanish convention); this swaps them on request."""
    if separators != ".":
        return text
    return _PROSE_NUMBER.sub(lambda m: m[0].translate(_SWAP_MARKS), text)


_SWAP_MARKS = str.maketrans(",.", ".,")  # thousands and decimal marks trade places


def translated_events(events, lang: str = "en", separators: str = ","):
    """The events frame with its title and description in ``lang`` (ids, dates, sources unchanged), numbers in
    the text written with ``separators``."""
    if events is None or check_lang(lang) == "en" or not len(events) or "id" not in events:
        return events
    out = events.copy()
    for col in ("title", "description"):
        if col in out:
            out[col] = [localise_numbers(event_text(i, col, lang, e), separators)
                        for i, e in zip(out["id"].astype(str), out[col].astype(str))]
    return out


def reported_text(text: str, lang: str = "en") -> str:
    """A reported figure's curated words (``data/reported_figures.csv``: its unit with the press's own
    qualifier, "arrests/day (approximate)", or who reported it, "NewsNation (as cited by Latin Times)") in
    ``lang``, from ``locales/reported_figures.<lang>.csv`` keyed by the English text (a test requires a row for
    every one in the file); a unit with no row is put in words by ``unit``."""
    if check_lang(lang) == "en" or not text:
        return text
    row = _table(f"reported_figures.{lang}.csv").get(str(text).strip())
    return (row or {}).get("text") or unit(text, lang)


def quality(code: str, lang: str = "en") -> str:
    """A reported figure's source quality ("syndicated copy", "unverified"...) in ``lang``."""
    key = "quality." + str(code)
    return t(key, lang) if has(key, lang) else str(code)


def unit(unit_text: str, lang: str = "en") -> str:
    """A catalogue unit ("arrests", "people", "book-ins per day") in ``lang``: the unit words are in the
    catalogue under ``unit.*``; "per day" and the other period words are appended in the language."""
    if check_lang(lang) == "en" or not unit_text:
        return unit_text
    if unit_text.endswith("/day"):  # a reported figure's unit as the press gives it ("arrests/day")
        return unit(unit_text[: -len("/day")] + " per day", lang)
    for suffix in ("per day", "per week", "per month", "per two weeks", "per quarter", "per year"):
        if unit_text.endswith(" " + suffix):
            base = unit_text[: -len(suffix) - 1]
            return t("unit.per." + suffix.split(" ", 1)[1].replace(" ", "_"), lang, unit=unit(base, lang))
    key = "unit." + unit_text
    return t(key, lang) if has(key, lang) else unit_text


# ---------------------------------------------------------------- glossary

@functools.lru_cache(maxsize=None)
def glossary() -> list[dict]:
    """The terms, in the file's order: each with ``en``/``es`` (the one rendering), ``en_note``/``es_note``
    (what it is), ``es_pattern`` (how the rendering is matched, inflected), ``en_pattern``, ``competing``
    (renderings never to be used for it) and ``keep_acronym``."""
    path = LOCALES / "glossary.toml"
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    terms = []
    for tid, term in data.get("term", {}).items():
        for need in ("en", "es", "en_note", "es_note", "en_pattern", "es_pattern"):
            if not term.get(need):
                raise CatalogueError(f"{path}: term {tid} has no {need}")
        terms.append(dict(term, id=tid))
    return terms


def glossary_rows(lang: str = "en") -> list[dict[str, str]]:
    """The glossary for the Sources view, in both languages: the English term, the Spanish term, and what it
    is in ``lang`` (column names in ``lang`` too)."""
    lang = check_lang(lang)
    cols = (t("glossary.english", lang), t("glossary.spanish", lang), t("glossary.meaning", lang))
    return [{cols[0]: g["en"], cols[1]: g["es"], cols[2]: g[f"{lang}_note"]} for g in glossary()]
