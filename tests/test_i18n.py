"""The message catalogues, the glossary and the Spanish texts keyed by id.

They fail when a key is missing in either language, when the placeholders of a message differ between
languages, when a Spanish message is the English one left untranslated (outside a reviewed list), when a
Spanish text uses a rendering other than the glossary's (or the glossary's where the English does not name
the term: "arresto" where the English says "book-in"), and when a series or event has no Spanish row or a
Spanish row has no series or event."""
from __future__ import annotations

import csv
import datetime as dt
import re
import tomllib

import pandas as pd
import pytest

from wording import i18n

ROOT = i18n.LOCALES.parent


def _identical() -> dict[str, str]:
    with open(i18n.LOCALES / "identical.toml", "rb") as fh:
        return tomllib.load(fh)["keys"]


def test_both_catalogues_hold_the_same_keys():
    en, es = i18n.catalogue("en"), i18n.catalogue("es")
    assert sorted(set(en) - set(es)) == [], "keys missing from locales/es.toml"
    assert sorted(set(es) - set(en)) == [], "keys missing from locales/en.toml"


def test_placeholders_match_between_languages():
    en, es = i18n.catalogue("en"), i18n.catalogue("es")
    bad = {k: (i18n.fields_of(en[k]), i18n.fields_of(es[k])) for k in en if k in es
           and i18n.fields_of(en[k]) != i18n.fields_of(es[k])}
    assert bad == {}


def test_spanish_prose_is_translated():
    en, es, same = i18n.catalogue("en"), i18n.catalogue("es"), _identical()
    untranslated = [k for k in en if es.get(k) == en[k] and k not in same]
    assert untranslated == [], "Spanish equals English; translate, or review and list in locales/identical.toml"
    stale = [k for k in same if k not in en]
    assert stale == [], "locales/identical.toml lists keys the catalogue no longer has"


def test_a_missing_key_is_an_error_not_english():
    with pytest.raises(KeyError, match="no message"):
        i18n.t("figure.no_such_key", "es")
    with pytest.raises(ValueError, match="unknown language"):
        i18n.t("figure.generated_on", "fr", date="x")


def test_numbers_take_separators_apart_from_the_language():
    assert i18n.number(75000, "en") == "75,000"
    assert i18n.number(75000, "es", ",") == "75,000"
    assert i18n.number(75000, "es", ".") == "75.000"
    assert i18n.number(1584.25, "es", ".", decimals=1) == "1.584,2"
    assert i18n.number(1584.25, "es", ",", decimals=1) == "1,584.2"
    assert i18n.plotly_separators(".", "es") == ",."
    assert i18n.plotly_separators(",", "es") == ".,"
    with pytest.raises(ValueError, match="separators"):
        i18n.number(1, "es", " ")


def test_dates_in_each_language():
    d = dt.date(2025, 1, 20)
    assert i18n.date(d, "en") == "20 January 2025"
    assert i18n.date(d, "es") == "20 de enero de 2025"
    assert i18n.date(d, "es", "short") == "20 ene 2025"
    assert i18n.date(d, "es", "iso") == "2025-01-20"
    assert i18n.month(dt.date(2026, 7, 1), "es") == "julio de 2026"
    assert i18n.date_range(d, dt.date(2026, 7, 31), "es") == "del 2025-01-20 al 2026-07-31"


# ---------------------------------------------------------------- texts keyed by id

def _rows(path) -> list[dict]:
    with open(path, newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_every_series_has_a_spanish_row_and_no_other():
    # every series the loaders declare (the snapshot's catalogue lists only those it holds rows of; the others
    # come back with their files and need their Spanish then)
    from loaders import registry
    ids = {s.id for s in registry.catalogue()}
    assert set(pd.read_csv(ROOT / "data" / "snapshot" / "series.csv")["id"]) <= ids
    rows = _rows(i18n.LOCALES / "series.es.csv")
    es = [r["id"] for r in rows]
    assert len(es) == len(set(es)), "an id appears twice in locales/series.es.csv"
    assert sorted(ids - set(es)) == [], "series with no Spanish row in locales/series.es.csv"
    assert sorted(set(es) - ids) == [], "Spanish rows for series that do not exist"
    empty = [(r["id"], c) for r in rows for c in ("title", "definition", "unit") if not r[c].strip()]
    assert empty == []


def test_every_event_has_a_spanish_row_and_no_other():
    ids = set(pd.read_csv(ROOT / "data" / "events.csv")["id"])
    rows = _rows(i18n.LOCALES / "events.es.csv")
    es = [r["id"] for r in rows]
    assert len(es) == len(set(es)), "an id appears twice in locales/events.es.csv"
    assert sorted(ids - set(es)) == [], "events with no Spanish row in locales/events.es.csv"
    assert sorted(set(es) - ids) == [], "Spanish rows for events that do not exist"
    empty = [(r["id"], c) for r in rows for c in ("title", "description") if not r[c].strip()]
    assert empty == []


def test_spanish_units_are_the_catalogues():
    """A series' Spanish unit is the catalogue's rendering of its English unit (one word for one thing)."""
    s = pd.read_csv(ROOT / "data" / "snapshot" / "series.csv").set_index("id")
    bad = [(r["id"], r["unit"]) for r in _rows(i18n.LOCALES / "series.es.csv")
           if r["id"] in s.index and r["unit"] != i18n.unit(s.loc[r["id"], "unit"], "es")]
    assert bad == []


def test_methods_texts_have_spanish():
    from wording import methods
    for name in ("DEFINITIONS", "QUALITY_NOTES", "COMPARISONS"):
        en = getattr(methods, name)
        es = methods.texts(name, "es")
        assert len(es) == len(en), name
        for (et, ex), (st, sx) in zip(en, es):
            assert st and sx and st != et and sx != ex, (name, et)


# ---------------------------------------------------------------- the glossary

def _pairs() -> list[tuple[str, str, str]]:
    """(where, English, Spanish) for every translated text."""
    out = []
    en, es = i18n.catalogue("en"), i18n.catalogue("es")
    out += [(f"catalogue {k}", en[k], es[k]) for k in en]
    s = pd.read_csv(ROOT / "data" / "snapshot" / "series.csv").set_index("id")
    for r in _rows(i18n.LOCALES / "series.es.csv"):
        if r["id"] in s.index:
            for c in ("title", "definition"):
                out.append((f"series {r['id']} {c}", str(s.loc[r["id"], c]), r[c]))
    e = pd.read_csv(ROOT / "data" / "events.csv").set_index("id")
    for r in _rows(i18n.LOCALES / "events.es.csv"):
        if r["id"] in e.index:
            for c in ("title", "description"):
                out.append((f"event {r['id']} {c}", str(e.loc[r["id"], c]), r[c]))
    from wording import methods
    for name in ("DEFINITIONS", "QUALITY_NOTES", "COMPARISONS"):
        for (et, ex), (st, sx) in zip(getattr(methods, name), methods.texts(name, "es")):
            out += [(f"methods {name} {et!r} title", et, st), (f"methods {name} {et!r} text", ex, sx)]
    for term in i18n.glossary():
        out.append((f"glossary {term['id']} note", term["en_note"], term["es_note"]))
    return out


def _search(pattern: str, text: str) -> bool:
    return re.search(pattern, text, re.IGNORECASE) is not None


def test_glossary_is_well_formed():
    terms = i18n.glossary()
    assert len({t["id"] for t in terms}) == len(terms)
    for term in terms:
        assert _search(term["en_pattern"], term["en"]), term["id"]
        assert _search(term["es_pattern"], term["es"]) or term["id"] == "removal" and _search(
            term["es_pattern"], term["es"].split(" (")[0]), term["id"]
        for c in term.get("competing", []):
            assert not _search(c, term["es"]), (term["id"], c)
    assert {"arrest", "book_in", "removal", "return", "encounter", "adp", "headcount", "detention", "atd", "ice",
            "cbp"} <= {t["id"] for t in terms}


def _exceptions() -> dict[tuple[str, str], str]:
    """Reviewed (text, term) pairs the check is wrong about: an English word used in another sense ("return
    ICE to Rikers" is the verb, not a DHS return). Each says why; a stale entry fails the test below."""
    with open(i18n.LOCALES / "glossary_exceptions.toml", "rb") as fh:
        rows = tomllib.load(fh).get("exception", [])
    return {(r["where"], r["term"]): r["reason"] for r in rows}


def _glossary_problems(term, pairs) -> tuple[list, list, list]:
    missing, competing, stray = [], [], []
    allowed = term.get("allowed_when_en")
    for where, en, es in pairs:
        if _search(term["en_pattern"], en) and not _search(term["es_pattern"], es):
            missing.append(where)
        for c in term.get("competing", []):
            if _search(c, es) and not (allowed and _search(allowed, en)):
                competing.append(where)
        if term.get("reverse") and _search(term["es_pattern"], es) and not _search(term["en_pattern"], en):
            stray.append(where)
    return missing, competing, stray


@pytest.mark.parametrize("term", i18n.glossary(), ids=lambda t: t["id"])
def test_spanish_texts_use_the_glossary_rendering(term):
    excused = _exceptions()
    missing, competing, stray = (sorted(set(w for w in found if (w, term["id"]) not in excused))
                                 for found in _glossary_problems(term, _pairs()))
    assert missing == [], f"English names {term['en']!r}, Spanish lacks {term['es']!r}"
    assert competing == [], f"a competing rendering of {term['en']!r}"
    assert stray == [], f"Spanish says {term['es']!r} where the English does not name {term['en']!r}"


def test_glossary_exceptions_are_still_needed():
    pairs = _pairs()
    terms = {t["id"]: t for t in i18n.glossary()}
    stale = [k for k in _exceptions() if k[1] not in terms
             or k[0] not in {w for found in _glossary_problems(terms[k[1]], pairs) for w in found}]
    assert stale == [], "locales/glossary_exceptions.toml excuses texts the check no longer flags"


def test_the_glossary_check_catches_a_slip():
    """The check itself: 'arresto' for a book-in is found, as is a competing word for removal."""
    book_in = next(t for t in i18n.glossary() if t["id"] == "book_in")
    arrest = next(t for t in i18n.glossary() if t["id"] == "arrest")
    removal = next(t for t in i18n.glossary() if t["id"] == "removal")
    en, es = "Initial book-ins into ICE detention", "Arrestos de ICE"
    assert _search(book_in["en_pattern"], en) and not _search(book_in["es_pattern"], es)
    assert _search(arrest["es_pattern"], es) and not _search(arrest["en_pattern"], en)
    assert any(_search(c, "deportaciones de ICE") for c in removal["competing"])
    assert not any(_search(c, "expulsión (deportación formal)") for c in removal["competing"])


def test_numbers_in_prose_take_the_chosen_separators():
    text = "unas 59,000 personas, 1.5 % de 41,500 camas, el 2026-08-06, a las 3:30, 287(g), 52-47, EE. UU."
    assert i18n.localise_numbers(text, ",") == text
    assert i18n.localise_numbers(text, ".") == ("unas 59.000 personas, 1,5 % de 41.500 camas, el 2026-08-06, a las "
                                                "3:30, 287(g), 52-47, EE. UU.")
    assert i18n.localise_numbers("45,000 millones y 38,200 millones", ".") == "45.000 millones y 38.200 millones"


def test_every_declared_publication_fact_and_cadence_has_its_spanish_text():
    """The publication-status table and the Releases tab's evidence are Spanish on the Spanish page: every row
    of data/publication_status.csv has one Spanish statement (locales/publication_status.es.csv, no extra
    ids) and every source's cadence one Spanish rendering (locales/cadence.es.csv)."""
    import datetime as dt

    from analysis import status
    from loaders import registry
    from loaders.data import load_snapshot
    from tests.conftest import ROOT
    declared = status.read_declared()
    keys = [i18n.declared_key(r.source, r.kind, r.start, r.target) for r in declared.itertuples()]
    es = i18n._table("publication_status.es.csv")
    assert len(set(keys)) == len(keys) and set(es) == set(keys), set(es) ^ set(keys)
    assert set(i18n._table("cadence.es.csv")) == set(registry.SOURCES)
    table = status.status_table(status.publication_status(load_snapshot(ROOT / "data"), dt.date(2026, 12, 1)), "es")
    cells = " ".join(str(v) for v in table.to_numpy().ravel())
    for r in declared.itertuples():
        assert r.statement not in cells  # the English statement is not shown on the Spanish table
    # The cadence column holds the Spanish rendering (a one-word English cadence such as "monthly" is also part of
    # a source id in the table, so the column is compared, not the whole table's text).
    cadences = set(table[i18n.t("status.col_cadence", "es")])
    for src in registry.SOURCES.values():
        assert src.cadence not in cadences


def test_a_reported_figures_unit_per_day_is_translated_like_the_catalogues():
    """The Spanish chart's footer printed "787 arrests/day": the press's "/day" is the catalogue's "per day"."""
    assert i18n.unit("arrests/day", "es") == i18n.unit("arrests per day", "es") == "arrestos por día"
    assert i18n.unit("arrests/day", "en") == "arrests/day"
