"""The generic table-spec reader and sheet chooser other workbook tables build on (cells given as lists)."""
import datetime as dt

import pytest

from loaders.errors import ParseError
from loaders.workbook import (
    MONTHS,
    Sheet,
    TableSpec,
    choose_sheet_name,
    column_letter,
    match_columns,
    month_cells,
    read_table,
    sections,
)

ROWS = [
    ["ICE Initial Book-Ins by Arresting Agency and Month: FY2026", "", "", "", "", "", "", "", "", "", "", "", "", "",
     "", "ICE Removals: FY2026", "", ""],
    ["Agency", *MONTHS, "Total", "", "Removals", "", "Total"],
    ["Total", 10, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 30, "", "Total", "", 56392],
    ["ICE  ", 4, 8, "", "", "", "", "", "", "", "", "", "", 12, "", "Removals with a FAMU Identifier", "", 5237],
    ["", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""],
]
AGENCY = {"total": {"agency": "total"}, "ice": {"agency": "ice"}}
BOOK_INS = TableSpec("book_ins", r"Initial Book-?Ins by Arresting Agency", columns=MONTHS,
                     rows=lambda lab: AGENCY.get(lab.lower()), heading="ICE Initial Book-Ins")


def sheet(rows=ROWS):
    return Sheet("Detention FY26", rows, "FY26_x.xlsx", "ice_detention_stats")


def test_grid_table_by_title_header_and_rows():
    t = read_table(sheet(), BOOK_INS)
    assert t.at == (0, 0) and [r.label for r in t.rows] == ["Total", "ICE"] and t.rows[1].row == 4
    assert t.rows[1].fields == {"agency": "ice"} and t.header["Oct"] == 1
    cells = list(month_cells(t, 2026))
    assert cells[0][1:] == (dt.date(2025, 10, 1), 10.0) and cells[12][1:] == (None, 30.0)  # the Total column
    assert cells[13 + 2][1:] == (dt.date(2025, 12, 1), None)  # ICE's blank December: missing


def test_wanted_columns_past_a_blank_column_or_left_of_the_title_are_found_by_their_labels():
    """A reordering that puts a blank column inside the header, or a wanted column left of the title's column,
    still gives each column by its label, the nearest to the title where two cells have it."""
    rows = [["", "Count", "ICE Initial Book-Ins by Arresting Agency and Month: FY2026", ""] + [""] * 12,
            ["Count", "Sep", "Agency", "", *MONTHS[:-1], "Total"],
            [1, 90, "Total", "", 10, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 30],
            [2, 9, "ICE  ", "", 4, 8, "", "", "", "", "", "", "", "", "", 12]]
    spec = TableSpec("book_ins", BOOK_INS.title, columns=(*MONTHS, "Count"), rows=BOOK_INS.rows)
    t = read_table(sheet(rows), spec)
    assert [r.label for r in t.rows] == ["Total", "ICE"]
    assert t.header["Oct"] == 4 and t.header["Sep"] == 1 and t.header["Count"] == 0
    assert [t.number(r, "Sep") for r in t.rows] == [90.0, 9.0] and t.number(t.rows[1], "Nov") == 8.0
    with pytest.raises(ParseError, match=r"column\(s\) \['Dec'\] not found"):
        read_table(sheet([row[:6] + ["" if v == "Dec" else v for v in row[6:]] for row in rows]), spec)


def test_pairs_table_ignores_the_header_line():
    spec = TableSpec("removals", r"^ICE Removals\b", layout="pairs", max_rows=4)
    t = read_table(sheet(), spec)
    assert [(r.label, r.cells["value"]) for r in t.rows] == [("Total", 56392.0), ("Removals with a FAMU Identifier", 5237.0)]


def test_errors_name_sheet_table_row_and_column():
    bad = [list(r) for r in ROWS]
    bad[3][0] = "Other agency"
    with pytest.raises(ParseError, match=r"sheet 'Detention FY26': table 'ICE Initial Book-Ins' row 4: "
                                         r"unknown row label 'Other agency'"):
        read_table(sheet(bad), BOOK_INS)
    with pytest.raises(ParseError, match=r"column\(s\) \['Octo'\] not found in its header row 2"):
        read_table(sheet(), TableSpec("x", r"Initial Book-?Ins", columns=("Octo",)))
    with pytest.raises(ParseError, match=r"table 'y' not found \(no cell matching /Bond/\)"):
        read_table(sheet(), TableSpec("y", r"Bond"))
    assert read_table(sheet(), TableSpec("y", r"Bond", required=False)) is None
    bad[3][1] = "n/a"
    t = read_table(sheet(bad), TableSpec("b", r"Initial Book-?Ins", columns=MONTHS))
    with pytest.raises(ParseError, match=r"table 'b' sheet 'Detention FY26' row 4 \('Other agency'\) column 'Oct': 'n/a'"):
        t.number(t.rows[1], "Oct", lenient=False)


def test_sheet_chosen_by_fiscal_year_or_the_candidates_named():
    names = ["Header", "ATD FY24 YTD", "ATD EOFY23 ", "Detention FY23"]
    def pick(pat, fy):
        return choose_sheet_name(names, pat, "ATD", fy=fy, file="f", source="s")

    assert pick(r"^ATD", 2023) == "ATD EOFY23 " and pick(r"^ATD", 2024) == "ATD FY24 YTD"
    with pytest.raises(ParseError, match=r"no ATD sheet for fiscal year 2025.*"
                                         r"'ATD FY24 YTD' \(FY2024\), 'ATD EOFY23 ' \(FY2023\)"):
        pick(r"^ATD", 2025)
    with pytest.raises(ParseError, match=r"2 ATD sheets and no fiscal year to choose by"):
        pick(r"^ATD", None)


def test_sections_carry_the_label_down():
    rows = [["FY2026 ICE Removals", "data are updated through 04/04/2026"], ["", "more about removals"],
            ["ICE Currently Detained Population Breakdown", "a snapshot as of 04/04/2026"]]
    assert sections(Sheet("Footnotes", rows, "f", "s")) == [
        (1, "FY2026 ICE Removals", "data are updated through 04/04/2026"),
        (2, "FY2026 ICE Removals", "more about removals"),
        (3, "ICE Currently Detained Population Breakdown", "a snapshot as of 04/04/2026")]


def test_sections_take_their_labels_from_the_sheets_label_column_wherever_it_is():
    """Two columns put before the notes (a publisher's new margin): the labels are still the labels, not
    sentences of an unlabelled section."""
    rows = [["", "", "", ""], ["", "", "FY2026 ICE Removals", "data are updated through 04/04/2026"],
            ["", "", "", "more about removals"], ["", "", "ICE Book-Ins", "data are updated through 04/02/2026"]]
    sh = Sheet("Footnotes", rows, "f", "s")
    assert sh.label_column == 2
    assert sections(sh) == [(2, "FY2026 ICE Removals", "data are updated through 04/04/2026"),
                            (3, "FY2026 ICE Removals", "more about removals"),
                            (4, "ICE Book-Ins", "data are updated through 04/02/2026")]
    assert Sheet("empty", [["", 1.0]], "f", "s").label_column == 0
    assert [column_letter(c) for c in (0, 2, 25, 26, 27)] == ["A", "C", "Z", "AA", "AB"]


@pytest.mark.parametrize("text", ["", " ", "ICE", "ICE  ", " ICE", "a b", "a  b", "a\tb", "a\nb", "a\xa0b", "a\u2009b",
                                  "a\u3000b", "a\x1cb", "a\x85b", "a\u2028b", "é ü", "\xa0", "a\u200bb", "x" * 300])
def test_a_label_collapses_every_kind_of_whitespace(text):
    """ICE writes "ICE  " and "Average "; a label compares as its words joined by one space."""
    from loaders import workbook
    want = " ".join(text.split())
    assert workbook.label(text) == want
    assert workbook.text_cells([[text, 1.0]]) == ([(0, 0, want)] if text else [])


def test_hidden_and_leftover_sheets_are_not_candidates_and_content_breaks_a_name_tie():
    names = ["Footnotes_DEL", "Footnotes", "Footnotes (2)", "Old Notes"]
    years = {"Footnotes": 2020, "Footnotes (2)": 2026}
    pick = lambda **kw: choose_sheet_name(names, r"foot\s*notes?", "Footnotes", fy=2026, file="f.xlsx",  # noqa: E731
                                          source="s", **kw)
    # the content decides between the two visible sheets without a year in the name
    assert pick(content_year=years.get) == "Footnotes (2)"
    assert pick(hidden={"Footnotes (2)"}, content_year=years.get) == "Footnotes"  # the only visible one
    with pytest.raises(ParseError, match=r"2 Footnotes sheets and none names fiscal year 2026, and none of them "
                                         r"holds fiscal year 2026.*'Footnotes' \(its titles name FY2020\)"):
        pick(content_year={"Footnotes": 2020, "Footnotes (2)": 2020}.get)
    with pytest.raises(ParseError, match=r"no visible sheet name matching .*set aside: 'Footnotes_DEL' \(a leftover "
                                         r"by its name\), 'Footnotes' \(hidden\)"):
        choose_sheet_name(["Footnotes_DEL", "Footnotes"], r"foot", "Footnotes", fy=2026, file="f.xlsx", source="s",
                          hidden={"Footnotes"})


def test_a_spec_whose_columns_name_series_matches_each_spelling_and_names_a_missing_column():
    """The spec type every ICE table uses: ``columns`` may map a header label (or a tuple of the publisher's
    spellings) to the series its figures go to; ``optional`` columns may be missing."""
    spec = TableSpec("b", r"Initial Book-?Ins", columns={("October", "Oct"): ("s_oct", ""), "NOV": ("s_nov", "Nov"),
                                                         "FSC": ("s_fam", "@")}, optional=("FSC",))
    t = read_table(sheet(), spec)
    assert [r.label for r in t.rows] == ["Total", "ICE"] and t.rows[0].fields == {}
    assert match_columns(t) == {("October", "Oct"): ("Oct", ("s_oct", "")), "NOV": ("Nov", ("s_nov", "Nov"))}
    with pytest.raises(ParseError, match=r"table 'c': column\(s\) \['Dec\.'\] not found in header row 2"):
        match_columns(read_table(sheet(), TableSpec("c", r"Initial Book-?Ins", columns={"Dec.": ("s", "")})))
