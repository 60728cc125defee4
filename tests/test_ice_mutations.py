"""Layout mutations of every real ICE workbook layout (../shared/data; skipped when absent): the headline figures
and their dates must come out unchanged, with the right findings.

Each layout (one workbook per fiscal year) is read once with calamine into cell grids; the variants are made in
memory on copies of those grids and handed to the parser as a workbook object (``MemWorkbook``: the calls
``loaders.workbook`` makes of calamine), so dozens of variants cost seconds. The harness itself is checked: the
unmutated grids parse to exactly what the file parses to.
"""
from __future__ import annotations

import re
from types import SimpleNamespace

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from loaders import ice_detention_stats as ice
from loaders import ice_tables

HEADLINE = {s.id for s in ice.SERIES} - {s.id for s in ice_tables.SERIES}  # headcount, book-ins, ADP, ALOS, removals, facilities
COLS = ["series", "key", "date", "end", "value", "flag"]


class MemWorkbook:
    """Sheets as (name, rows, visible), answering what ``loaders.workbook`` asks of a calamine workbook."""

    def __init__(self, sheets):
        self.sheets = sheets

    @property
    def sheet_names(self):
        return [n for n, _, _ in self.sheets]

    @property
    def sheets_metadata(self):
        return [SimpleNamespace(name=n, visible="Visible" if v else "Hidden") for n, _, v in self.sheets]

    def get_sheet_by_name(self, name):
        rows = next(r for n, r, _ in self.sheets if n == name)
        return SimpleNamespace(to_python=lambda skip_empty_area=False: rows)


@pytest.fixture(scope="module")
def layouts(shared_data):
    from python_calamine import CalamineWorkbook

    SHARED = shared_data
    out, seen = {}, set()
    for p in sorted((SHARED / "ice-detention-stats" / "original_xlsx").glob("*.xlsx")):
        fy = ice.fiscal_year_from_name(p.name)
        if fy in seen:
            continue
        seen.add(fy)
        wb = CalamineWorkbook.from_path(str(p))
        sheets = [(m.name, wb.get_sheet_by_name(m.name).to_python(skip_empty_area=False), True)
                  for m in wb.sheets_metadata]
        base = ice.parse(p.read_bytes(), p.name)
        out[p.name] = (fy, sheets, base)
    if len(out) < 2:
        pytest.skip("fewer than two ICE workbook layouts held")
    return out


def parse_mem(monkeypatch, sheets, name):
    monkeypatch.setattr(ice, "open_workbook", lambda content, n, source: MemWorkbook(sheets))
    return ice.parse(b"", name)


def headline(p) -> pd.DataFrame:
    o = p.obs
    return o[o.series.isin(HEADLINE)][COLS].sort_values(COLS[:4]).reset_index(drop=True)


def copy(sheets):
    return [(n, [list(r) for r in rows], v) for n, rows, v in sheets]


def find(sheets, pattern):
    return next(i for i, (n, _, v) in enumerate(sheets) if v and re.search(pattern, n, re.I))


# ---------------------------------------------------------------- the mutations (each returns expected findings)

def hidden_leftover(sheets, other):
    """Another year's Footnotes as a hidden 'Footnotes_DEL', placed first (ICE's FY2026 file)."""
    fn = other[find(other, r"foot\s*notes?")]
    sheets.insert(0, ("Footnotes_DEL", [list(r) for r in fn[1]], False))
    return []


def renamed(sheets, other):
    """The Detention sheet's name without its year and with stray spaces ('Detention FY26' -> ' Detention ')."""
    i = find(sheets, r"^\s*Detention\b")
    n, rows, v = sheets[i]
    sheets[i] = (" Detention ", rows, v)
    return []


def table_removed(sheets, other):
    """The book-outs-by-facility-type table's title blanked: a table-unread finding naming sheet and table."""
    i = find(sheets, r"^\s*Detention\b")
    rx = re.compile(ice_tables.TABLE["book_outs_facility"].title, re.I)
    for row in sheets[i][1]:
        for c, v in enumerate(row):
            if isinstance(v, str) and rx.search(" ".join(v.split())):
                row[c] = ""
    return [("table-unread", "table 'book_outs_facility' (sheet '")]  # the sheet's name, whatever it is renamed to


def other_years_atd(sheets, other):
    """The ATD sheet holding another year's ATD layout: whatever it lacks is a finding on that sheet only."""
    i, j = find(sheets, r"^\s*ATD\b"), find(other, r"^\s*ATD\b")
    sheets[i] = (sheets[i][0], [list(r) for r in other[j][1]], True)
    # an undated (end-of-year) file is dated by the last day its tables cover, ATD's included (FY2021: 10-23):
    # with another year's ATD table set aside, that evidence is gone, so its date may be earlier
    return [("table-unread?", f"(sheet {sheets[i][0]!r})"), ("undated-release-may-move", "")]


def shifted(sheets, other, rows=3, cols=2):
    """Rows above every table of the Detention sheet, columns left of them; rows above the Facilities list."""
    i = find(sheets, r"^\s*Detention\b")
    n, grid, v = sheets[i]
    width = max((len(r) for r in grid), default=0) + cols
    grid = [[""] * width for _ in range(rows)] + [[""] * cols + r for r in grid]
    sheets[i] = (n, grid, v)
    k = find(sheets, r"^\s*Facilities\b")
    n, grid, v = sheets[k]
    sheets[k] = (n, [[""] * len(grid[0]) for _ in range(min(rows, 3))] + grid, v)
    return []


def trailing_spaces(sheets, other):
    """Every text cell of the Detention and Facilities sheets with a trailing space."""
    for pat in (r"^\s*Detention\b", r"^\s*Facilities\b"):
        for row in sheets[find(sheets, pat)][1]:
            for c, v in enumerate(row):
                if isinstance(v, str) and v:
                    row[c] = v + " "
    return []


def extra_table(sheets, other):
    """An unknown table, with look-alike labels, above the Detention sheet's tables."""
    i = find(sheets, r"^\s*Detention\b")
    n, grid, v = sheets[i]
    width = max(len(r) for r in grid)
    new = [["ICE Currently Detained by Gender and Arresting Agency"], ["Gender", "ICE", "CBP", "Total"],
           ["Total", 1.0, 2.0, 3.0], ["Female", 1.0, 2.0, 3.0], []]
    sheets[i] = (n, [r + [""] * (width - len(r)) for r in new] + grid, v)
    return []


MUTATIONS = {f.__name__: f for f in (hidden_leftover, renamed, table_removed, other_years_atd, shifted,
                                     trailing_spaces, extra_table)}


def check_variant(monkeypatch, layouts, name, muts, other_name):
    fy, sheets, base = layouts[name]
    variant, other = copy(sheets), layouts[other_name][1]
    expected = []
    for m in muts:
        expected += MUTATIONS[m](variant, other)
    got = parse_mem(monkeypatch, variant, name)
    pd.testing.assert_frame_equal(headline(got), headline(base))
    rel, base_rel = (x.tables["releases"].iloc[0] for x in (got, base))
    if ("undated-release-may-move", "") not in expected or base_rel.release_date_from == "file name":
        assert rel.release_date == base_rel.release_date
    expected = [e for e in expected if e[0] != "undated-release-may-move"]
    f = got.tables["findings"]
    new = f[~f.message.isin(base.tables["findings"].message)]
    for flag, where in expected:
        if flag.endswith("?"):  # may or may not be said; if said, only of this kind and place
            continue
        assert ((new.flag == flag) & new.message.str.contains(where, regex=False)).sum() == 1, (m, new.message.tolist())
    allowed = [(fl.rstrip("?"), w) for fl, w in expected]
    for fl, msg in zip(new.flag, new.message):
        assert any(fl == a and w in msg for a, w in allowed), (name, muts, fl, msg)


@pytest.mark.shared
def test_the_harness_reads_each_layout_as_the_file_reads(monkeypatch, layouts):
    for name, (_fy, sheets, base) in layouts.items():
        got = parse_mem(monkeypatch, copy(sheets), name)
        pd.testing.assert_frame_equal(got.obs, base.obs)


@pytest.mark.shared
@pytest.mark.parametrize("mutation", list(MUTATIONS))
def test_each_mutation_of_each_layout_keeps_the_headline_figures(monkeypatch, layouts, mutation):
    names = list(layouts)
    for k, name in enumerate(names):
        check_variant(monkeypatch, layouts, name, [mutation], names[(k + 3) % len(names)])


@pytest.mark.shared
@settings(max_examples=5, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_combination_of_mutations_keeps_the_headline_figures(monkeypatch, layouts, data):
    names = list(layouts)
    name = data.draw(st.sampled_from(names), label="layout")
    other = data.draw(st.sampled_from([n for n in names if layouts[n][0] != layouts[name][0]]), label="other year")
    muts = data.draw(st.lists(st.sampled_from(list(MUTATIONS)), min_size=1, max_size=4, unique=True), label="mutations")
    check_variant(monkeypatch, layouts, name, muts, other)
