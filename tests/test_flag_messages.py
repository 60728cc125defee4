"""The integrity checks' findings in Spanish (wording.flag_messages): every sentence the checks write is read
back into its fields and rendered from the catalogue with the same figures; English stays the message itself."""
import re

import pandas as pd
import pytest

from loaders import ice_checks
from wording import flag_messages as fm
from wording import i18n

# One message per sentence of loaders/ice_checks.py, as its f-strings write them.
SAMPLES = [
    ("sum-mismatch", "detained: ICE 41500 + CBP 3200 != total 44800", "sum_total"),
    ("sum-mismatch", "adp ICE: criminality rows sum to 39000, total says 39500", "sum_criminality"),
    ("sum-mismatch", "detained ICE+CBP: criminality rows sum to 1.23457e+06, total says 1.2e+06", "sum_criminality"),
    ("decreased", "removals_fytd fell from 120000 (data date 2025-05-31, release 2025-06-10) to 119500", "decreased"),
    ("transposed", "ICE/CBP detained 38000/9000 in release 2025-03-01 and 9000/38000 in 2025-03-15 swap; this "
     "release's ICE column has the criminality mix of CBP arrests", "swap_mix"),
    ("transposed", "ICE/CBP detained 38000/9000 in release 2025-03-01 and 9000/38000 in 2025-03-15 swap; one of the "
     "two has ICE and CBP transposed", "swap_either"),
    ("transposed", "ICE column has a smaller convicted share (12%) than CBP's (40%): ICE and CBP look transposed",
     "inverted_mix"),
    ("facility-mismatch", "facility FYTD ADPs sum to 51,234, 91.2% of the national FYTD ADP 56,180 (expected "
     "94%-100%); 59000 detained on the docket date", "facility_docket"),
    ("facility-mismatch", "facility FYTD ADPs sum to 51,234, 91.2% of the national FYTD ADP 56,180 (expected "
     "94%-100%)", "facility"),
    ("fy-adp-mismatch", "ICE FY Overall ADP printed 48,123.45, but the monthly ADPs weighted by the days each month "
     "covers (the last month counted 2025-06-01 to 2025-06-30) give 48,300.10; the printed figure fits if the last "
     "month ran 14 days, to 2025-06-14, not to 2025-06-30", "fy_adp_hint"),
    ("fy-adp-mismatch", "ICE+CBP FY Overall ADP printed 48,123.45, but the monthly ADPs weighted by the days each "
     "month covers (the last month counted 2025-06-01 to 2025-06-30) give 48,300.10", "fy_adp"),
    ("stale-release", "the release dated 2021-10-23 holds detention tables that run only to 2021-09-11, 42 days "
     "earlier (a regular release is 0-7 days after its data): its figures are older than its date says",
     "stale_release"),
    ("repeated", "its headcount (ICE 41,500, CBP 3,200) and FY2025 removals (120,000) are exactly those of the "
     "earlier release 2025-06-10 (FY25_detentionStats.xlsx): it repeats that release's figures rather than adding "
     "new ones", "repeated"),
    ("stale-header", "12 rows: the file's header date disagrees with its own data", "header_rows"),
    ("stale-header", "release 2025-02-14 repeats the IIDS data date 2025-01-21 of release 2025-01-31 but its figures "
     "changed (detained ICE 39000 -> 40100)", "header_repeat"),
    ("table-unread", "table 'atd_aor' (sheet 'ATD FY26 YTD') not read: title not found (no cell matching "
     "/Active ATD Participants/); the release is kept with its other tables and this table's series have no rows "
     "from it", "table_unread"),
    ("corrected", "2025-10: printed 'Total' 1,124 and 'with Bond Posted' 37,537, share 33.4 = 37,537 / 1,124: the "
     "two count rows' labels are swapped (the share row proves it); corrected to total 37,537, bond posted 1,124, "
     "share 0.0299", "bond_swap_corrected"),
    ("out-of-range", "33.4 is a fraction outside 0-1 (its series declares a fraction)", "range_fraction"),
    ("out-of-range", "12.5 is not a whole count of at least 0 (its series declares a count)", "range_count"),
    ("out-of-range", "37,537 is above its total 1,124 (ice_detention_stats.bond_book_outs_total, 1,124)",
     "range_part"),
    ("out-of-range", "0.5 is not the ratio of its parts: 1,124 / 37,537 = 0.0299", "range_share"),
    ("stub-column", "table 'book_ins': the 2024-12 column lies past the table's data-through date 2024-11-30 (its "
     "footnote) and was dropped (3 figures, e.g. 7)", "stub_column"),
    ("column-unread", "table 'adp' (sheet 'Detention FY25'): column 'Q1 Total' (E91) is not a column this table "
     "is read by; its figures are left out and the rest of the table kept", "column_unplaced"),
    ("column-unread", "table 'adp' (sheet 'Detention FY25'): no fiscal-year column ('FY Overall') in header row 91; "
     "the table's fiscal-year-to-date figures have no row from this release and the rest of the table is kept",
     "column_missing"),
    # what a parser leaves out or overrules (issue 39: loaders/ice_tables.sieve, loaders/ice_detention_stats)
    ("row-dropped", "sheet 'ATD FY24 YTD' table 'atd_aor' row 'Chicago | No Technology' (2023-12-02): figure -7 is "
     "negative, which no count, average or share can be; the row is left out and the rest of the release kept",
     "row_negative"),
    ("row-dropped", "sheet 'ATD FY24 YTD' table 'atd_aor' row 'Total' (2023-12-02): figure inf is not a finite "
     "number in the range a figure can take; the row is left out and the rest of the release kept", "row_not_number"),
    ("row-dropped", "sheet 'Detention FY25' table 'book_ins' row '' (2025-01-01): figure 2.5 is not a whole number, "
     "and its series counts people or events; the row is left out and the rest of the release kept", "row_not_whole"),
    ("row-dropped", "sheet 'ATD FY22 YTD' table 'atd_aor' row 'Total' (2022-07-16): printed 2 times with the same "
     "figure 296250; kept once", "row_repeat"),
    ("row-dropped", "sheet 'ATD FY22 YTD' table 'atd_aor' row 'Total' (2022-07-16): printed 2 times with different "
     "figures (749.9, 751); the row is left out, as no figure of them can be told to be the right one",
     "row_conflict"),
    ("row-dropped", "sheet 'Facilities FY22 ' table 'facilities' row 54 ('PLYMOUTH COUNTY CORRECTIONAL FACILITY'): "
     "its Level A-D cells hold text that is not a number ('n/a'); the row is left out and the rest of the release "
     "kept", "facility_text"),
    ("row-dropped", "sheet 'Facilities FY25' table 'facilities' row 10 ('CLINTON COUNTY JAIL'): a Level A-D cell is "
     "negative (-3); the row is left out and the rest of the release kept", "facility_negative"),
    ("name-date-overruled", "file name date '07222020' is no date inside fiscal year 2021's release window: the "
     "release is dated 2021-07-17 from the workbook itself (latest footnote date), the earliest day it can have been "
     "published, not a known publication date", "name_date"),
    ("year-from-contents", "the file name says FY2024, but its Detention and Facilities sheets hold FY2025 "
     "('Detention FY25' FY2025, 'Facilities FY25' FY2025): the workbook is read as a FY2025 release",
     "year_from_contents"),
    ("other-year-footnote", "the Footnotes sheet dates the book_ins tables 2020-06-20, outside fiscal year 2021: "
     "another year's footnote, not used; those tables take another date of the release", "other_year_footnote"),
    ("stale-header", "IIDS data date 2021-09-27 is 26 days before the release date 2021-10-23 (usually 5-14)",
     "header_days"),
]


def figures_of(text: str) -> list[str]:
    """The numbers of a text (dates give their parts; a trailing comma or full stop is punctuation)."""
    return sorted(n.rstrip(",.") for n in re.findall(r"\d[\d,.]*(?:e[+-]\d+)?%?", text))


@pytest.mark.parametrize("flag,message,key", SAMPLES, ids=[s[2] + str(i) for i, s in enumerate(SAMPLES)])
def test_each_sentence_is_read_and_rendered_with_its_own_figures(flag, message, key):
    found = fm.parse(flag, message)
    assert found is not None and found[0] == key
    es = fm.explain(flag, message, "es")
    assert "inglés" not in es and es != message
    # Every number and date of the finding is in the Spanish (the fields are the message's own).
    missing = [n for n in figures_of(message) if n not in es]
    assert missing == [], (missing, es)
    assert fm.explain(flag, message, "en") == message


def test_the_english_catalogue_sentence_is_the_checks_sentence():
    """The English templates are the checks' own sentences: rendering the parsed fields in English gives the
    message back, so the patterns and the catalogue describe the same text."""
    for flag, message, key in SAMPLES:
        _, fields = fm.parse(flag, message)
        assert i18n.t(f"flag_message.{key}", "en", **fields) == message


def test_an_unread_message_is_shown_and_said_to_be_english():
    es = fm.explain("stale-header", "a sentence no pattern knows", "es")
    assert es == "mensaje de la comprobación, en inglés: a sentence no pattern knows"


def test_the_checks_own_output_is_read():
    """Run two of the real checks on a small frame: their messages are read, so a change to a check's
    sentence that the patterns miss fails here."""
    rows = []
    for sid, v in (("detained_ice", 100.0), ("detained_cbp", 20.0), ("detained_total", 150.0)):
        rows.append(dict(series=f"ice_detention_stats.{sid}", key="", date="2025-03-01", end="2025-03-01",
                         release="2025-03-05", file="f.xlsx", value=v, flag=""))
    for d, v in (("2025-02-01", 500.0), ("2025-03-01", 400.0)):
        rows.append(dict(series="ice_detention_stats.removals_fytd", key="FY2025", date=d, end=d,
                         release=d, file="f.xlsx", value=v, flag=""))
    obs = pd.DataFrame(rows)
    found = ice_checks._sum_checks(obs) + ice_checks._decrease_checks(obs)
    assert {f["flag"] for f in found} == {"sum-mismatch", "decreased"}
    for f in found:
        assert fm.parse(f["flag"], f["message"]) is not None, f["message"]
        assert "inglés" not in fm.explain(f["flag"], f["message"], "es")


def test_the_snapshot_flags_are_all_read():
    from loaders import data as cdata
    from tests.conftest import ROOT
    snap = cdata.load_snapshot(ROOT / "data")
    assert len(snap.flags)
    unread = [m for f, m in zip(snap.flags["flag"], snap.flags["message"]) if fm.parse(f, m) is None]
    assert unread == []


def test_the_spanish_figure_note_explains_the_flag():
    line = i18n.t("figure.flag_reason", "es", flag="stale-header", release="2021-10-23", file="x.xlsx",
                  message=fm.explain("stale-header", SAMPLES[-1][1], "es"))
    assert "en inglés" not in line and "26 días anterior" in line and line.startswith("stale-header (publicación")


def test_the_figures_follow_the_chosen_thousands_mark():
    """Issue #20: with sep=. a finding's figures read "51.234" and "91,2%", not "51,234" and "91.2%"; its dates
    and file names keep their marks, and "," leaves the sentence as it was."""
    msg = dict((k, m) for _, m, k in SAMPLES)
    es = fm.explain("facility-mismatch", msg["facility_docket"], "es", ".")
    assert "51.234" in es and "56.180" in es and "91,2%" in es and "51,234" not in es and "91.2%" not in es
    assert fm.explain("facility-mismatch", msg["facility_docket"], "es", ",") \
        == fm.explain("facility-mismatch", msg["facility_docket"], "es")
    es = fm.explain("fy-adp-mismatch", msg["fy_adp_hint"], "es", ".")
    assert "48.123,45" in es and "48.300,10" in es and "2025-06-14" in es and "2025-06-30" in es
    es = fm.explain("repeated", msg["repeated"], "es", ".")
    assert "41.500" in es and "120.000" in es and "FY25_detentionStats.xlsx" in es and "2025-06-10" in es
    en = fm.explain("repeated", msg["repeated"], "en", ".")
    assert "41.500" in en and "3.200" in en and "FY25_detentionStats.xlsx" in en and "2025-06-10" in en
    assert fm.explain("repeated", msg["repeated"], "en") == msg["repeated"]


def test_the_figures_flag_note_passes_the_separators_on():
    """figures.core.flag_reasons: the note under a chart writes the finding's figures with the view's marks."""
    from types import SimpleNamespace

    from figures import core as figures
    msg = dict((k, m) for _, m, k in SAMPLES)["facility"]
    snap = SimpleNamespace(flags=pd.DataFrame({"series": [""], "flag": ["facility-mismatch"], "release": ["2025-06-10"],
                                               "file": ["x.xlsx"], "message": [msg]}))
    prepared = [SimpleNamespace(series_id="ice_detention_stats.adp_total", frame=pd.DataFrame(
        {"flag": ["facility-mismatch"], "release": ["2025-06-10"], "file": ["x.xlsx"]}))]
    point = figures.flag_reasons(snap, prepared, lang="es", sep=".")
    assert len(point) == 1 and "51.234" in point[0] and "91,2%" in point[0] and "2025-06-10" in point[0]
    assert "51,234" in figures.flag_reasons(snap, prepared, lang="es")[0]
    assert figures.flag_reasons(snap, prepared)[0].endswith(msg)
