"""The other tables of ICE's detention workbook (loaders/ice_tables.py).

Built workbooks (tests/ice_workbook_factory.py + tests/ice_tables_factory.py, the real layout) run everywhere: what
each table becomes, its dates, and the errors for a missing table or a renamed header. The real workbooks
(@pytest.mark.shared) must all parse, and every table is cross-checked against the Deportation Data Project's parse
of the same release; each difference found is asserted to be the one explained, so a new one fails.
"""
from __future__ import annotations

import datetime as dt
import io
from dataclasses import replace

import pandas as pd
import pytest
from openpyxl import load_workbook

from loaders import ice_detention_stats as ice
from loaders import ice_tables, pipeline, tidy
from loaders.errors import ParseError
from tests.conftest import SHARED
from tests.ice_workbook_factory import Release, build

S = "ice_detention_stats."
D = dt.date


@pytest.fixture
def rel() -> Release:
    return Release("FY26_detentionStats_04092026.xlsx", 2026, D(2026, 4, 2), D(2026, 4, 4))


def parse(content: bytes, name: str) -> pd.DataFrame:
    p = ice.parse(content, name)
    df = p.obs.assign(file=name)
    return tidy.validate(df, source=ice.ID, series_ids={s.id for s in ice.SERIES})


def rows(df, series, key=None):
    out = df[df.series == S + series]
    return out if key is None else out[out.key == key]


def edit(content: bytes, sheet: str, cell: str, value) -> bytes:
    """The same workbook with one cell changed (a renamed header, a title removed)."""
    wb = load_workbook(io.BytesIO(content))
    wb[sheet][cell] = value
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


# ---------------------------------------------------------------- built workbooks

def test_every_declared_series_is_in_the_catalogue():
    ids = {s.id for s in ice.SERIES}
    assert {s.id for s in ice_tables.SERIES} <= ids
    suffixes = set()
    for t in ice_tables.TABLES:
        suffixes |= {v[0] for v in t.columns.values()} | ({t.month_series, t.total_column} - {""})
    assert {S + x for x in suffixes} == {s.id for s in ice_tables.SERIES}
    assert all(s.id.startswith(S) and s.definition and s.unit for s in ice_tables.SERIES)


def test_snapshot_and_fytd_tables_are_dated_by_their_own_footnote(rel):
    df = parse(build(rel), rel.name)
    through = "2026-04-04"
    # currently detained by disposition: one point at the docket date, never the IIDS date (04-02)
    d = rows(df, "detained_by_disposition")
    assert set(d.date) == set(d.end) == {through}
    assert rows(df, "detained_by_disposition", "Total | Total").value.item() == rel.ice + rel.cbp
    assert rows(df, "detained_by_disposition", "Expedited Removal (I-860) | FSC").value.item() == 4
    # fiscal-year-to-date: the fiscal year first in the key
    assert rows(df, "book_ins_by_facility_type_fytd", "FY2026 | FSC | Other Immigration Violator").value.item() == 40
    assert rows(df, "book_outs_by_facility_type_fytd", "FY2026 | Adult").value.item() == 220
    assert rows(df, "fear_decision_to_release_days", "FY2026 | Adult").value.item() == 98.5
    assert rows(df, "detained_with_fear_decision", "FSC").value.item() == 16
    # ATD: the BI report date under the table; the field office table nests technologies under each office
    assert set(rows(df, "atd_by_technology").date) == {through}
    assert rows(df, "atd_by_aor", "Boston | Ankle Monitor").value.item() == 260
    assert rows(df, "atd_alip_by_aor", "Atlanta").value.item() == 700.0
    # court appearances: fiscal year to the end of the month in the title (through April 4 -> "thru March")
    c = rows(df, "atd_court_appearances", "FY2026 | Failed to Attend")
    assert (c.date.item(), c.value.item()) == ("2026-03-31", 3)


def test_monthly_tables_end_the_partial_month_at_the_footnote_date(rel):
    df = parse(build(rel), rel.name)
    b = rows(df, "book_outs_by_reason", "Bonded Out | Convicted Criminal").set_index("date")
    assert list(b.index) == ["2025-10-01", "2025-11-01", "2025-12-01", "2026-01-01", "2026-02-01", "2026-03-01",
                             "2026-04-01"]  # May-Sep are ICE's zeros: missing, not zero
    assert (b.loc["2026-04-01", "end"], b.loc["2026-04-01", "flag"]) == ("2026-04-04", "partial")
    assert (b.loc["2026-03-01", "end"], b.loc["2026-03-01", "flag"]) == ("2026-03-31", "")
    assert rows(df, "book_outs_by_reason", "Total | Total").query("date == '2025-10-01'").value.item() == \
        sum(10 * (k + 1) + 100 * (k + 1) for k in range(3))
    fy = rows(df, "book_outs_by_reason_fytd", "FY2026 | Bonded Out | Total")
    assert (fy.date.item(), fy.value.item()) == ("2026-04-04", sum(sum(10 * (k + 1) + i for i in range(7))
                                                                   for k in range(3)))
    a = rows(df, "adp_by_facility_type", "Adult").set_index("date")
    assert a.loc["2026-04-01", "end"] == "2026-04-04" and a.loc["2026-04-01", "value"] == 1006.0
    assert rows(df, "adp_by_facility_type_fytd", "FY2026 | Adult").date.item() == "2026-04-04"
    bond = rows(df, "bond_book_outs_total").set_index("date")
    assert bond.index.min() == "2025-04-01" and bond.loc["2026-04-01", "flag"] == "partial"
    assert not rows(df, "bond_book_outs_total").flag.str.contains("mislabelled").any()


def test_iclos_points_are_one_day_snapshots_and_unreached_days_dropped(rel):
    df = parse(build(rel), rel.name)
    i = rows(df, "iclos_days", "Total")
    assert (i.date == i.end).all()
    assert i.date.max() == "2026-03-31"  # April 15 is after the footnote's 04/04: ICE's 0 there is dropped
    assert "2026-01-15" in set(i.date)  # the year row stops at 2025; January after December is 2026
    assert set(rows(df, "iclos_detainees").key) == {"Adult Facility Aliens | 0-180 Days",
                                                     "Adult Facility Aliens | 181-365 Days",
                                                     "Adult Facility Aliens | Total"}


def test_segregation_blocks_cover_whole_periods(rel):
    df = parse(build(rel), rel.name)
    s = rows(df, "segregation_placements_by_facility", "Total").set_index("date")
    assert dict(s.end) == {"2026-03-01": "2026-03-31", "2026-02-01": "2026-02-28"}
    q = rows(df, "segregation_placements_by_reason")
    # FY2025 Q1 = Oct-Dec 2024; ICE's "Medical Mental" (Q2) is the same reason as "Medical/Mental Health"
    assert set(zip(q.date, q.end)) == {("2024-10-01", "2024-12-31"), ("2025-01-01", "2025-03-31")}
    assert set(q.key) == {"Disciplinary", "Medical/Mental Health", "Total"}


def test_bond_rows_printed_swapped_are_kept_and_flagged(rel):
    content = build(rel)
    wb = load_workbook(io.BytesIO(content))
    b = wb["Monthly Bond Statistics"]
    b["A4"], b["A5"] = b["A5"].value, b["A4"].value  # ICE's 2026-04-09 release: the two count rows' labels swapped
    buf = io.BytesIO()
    wb.save(buf)
    df = parse(buf.getvalue(), rel.name)
    t = rows(df, "bond_book_outs_total").set_index("date")
    assert t.loc["2025-10-01", "value"] == 1000 + 10 * 6  # as printed
    assert set(t.flag.str.contains("mislabelled")) == {True}
    assert not rows(df, "bond_average_amount").flag.str.contains("mislabelled").any()


def unread(content: bytes, name: str) -> pd.DataFrame:
    """The release parsed (it must be), and its table-unread findings."""
    p = ice.parse(content, name)
    f = p.tables["findings"]
    assert set(f.file) <= {name}
    headline = p.obs[p.obs.series.isin([S + "detained_total", S + "book_ins_total", S + "adp_total_fytd",
                                        S + "removals_fytd", S + "facility_adp_fytd"])]
    assert set(headline.series) == {S + "detained_total", S + "book_ins_total", S + "adp_total_fytd",
                                    S + "removals_fytd", S + "facility_adp_fytd"}  # the release is kept
    return f[f.flag == "table-unread"]


def test_a_missing_secondary_table_is_a_finding_naming_sheet_and_table_not_a_lost_release(rel):
    content = build(replace(rel, omit=("atd_aor",)))
    f = unread(content, rel.name)
    assert len(f) == 1
    msg = f.message.iloc[0]
    assert msg.startswith("table 'atd_aor' (sheet 'ATD FY26 YTD') not read: title not found")
    assert f.release.iloc[0] == "2026-04-09"
    df = parse(content, rel.name)
    assert rows(df, "atd_by_aor").empty and not rows(df, "atd_by_status").empty  # its neighbours are read
    # the finding reaches quality_flags.csv through the pipeline, with the source named
    q = pipeline.parse_findings(ice.ID, ice.parse(content, rel.name).tables)
    assert list(q.columns) == pipeline.FLAG_COLUMNS
    assert q[q.flag == "table-unread"][["source", "file"]].values.tolist() == [[ice.ID, rel.name]]


def test_a_renamed_header_is_a_finding_naming_sheet_table_and_column(rel):
    content = edit(build(rel), "Detention FY26", "B28", "Convicted")  # book-ins by facility type header row
    f = unread(content, rel.name)
    assert f.message.tolist() == [
        f.message.iloc[0]] and f.message.iloc[0].startswith("table 'book_ins_facility' (sheet 'Detention FY26') "
                                                            "not read: column(s) ['Convicted Criminal'] "
                                                            "not found in header row 28")
    assert rows(parse(content, rel.name), "book_ins_by_facility_type_fytd").empty


def test_an_unknown_technology_leaves_the_table_out_instead_of_passing_as_a_field_office(rel):
    content = edit(build(rel), "ATD FY26 YTD", "A32", "Voice Kiosk")  # Atlanta's "Ankle Monitor" row renamed
    f = unread(content, rel.name)
    assert f.message.str.contains(r"^table 'atd_aor' \(sheet 'ATD FY26 YTD'\) not read: "
                                  r"field office rows \['Atlanta', 'Voice Kiosk'\]").tolist() == [True]
    assert rows(parse(content, rel.name), "atd_by_aor").empty


def test_a_missing_footnote_date_is_a_finding_not_the_iids_date(rel):
    wb = load_workbook(io.BytesIO(build(rel)))
    cell = next(c for row in wb["Footnotes"].iter_rows() for c in row if "ICLOS and Detainees Data" in str(c.value))
    content = edit(build(rel), "Footnotes", cell.coordinate, "ICE ICLOS and Detainees Data are current")  # no date
    f = unread(content, rel.name)
    assert sorted(f.message.str.extract(r"^table '(\w+)'")[0]) == ["iclos", "iclos_detainees"]
    assert f.message.str.contains("no date in the Footnotes").all()
    assert rows(parse(content, rel.name), "iclos_days").empty


def test_an_impossible_footnote_date_is_no_date(rel):
    """A footnote phrase followed by a day that does not exist (30 February) gave the table no date at all
    (None where a date must be); it is read as no date, so the table is left out with the usual finding."""
    wb = load_workbook(io.BytesIO(build(rel)))
    cell = next(c for row in wb["Footnotes"].iter_rows() for c in row if "ICLOS and Detainees Data" in str(c.value))
    content = edit(build(rel), "Footnotes", cell.coordinate, "ICE ICLOS and Detainees Data are updated through 02/30/2026")
    f = unread(content, rel.name)
    assert sorted(f.message.str.extract(r"^table '(\w+)'")[0]) == ["iclos", "iclos_detainees"]
    assert f.message.str.contains("no date in the Footnotes").all()
    assert rows(parse(content, rel.name), "iclos_days").empty


def test_without_findings_the_tables_reader_stays_strict(rel):
    from python_calamine import CalamineWorkbook
    wb = CalamineWorkbook.from_filelike(io.BytesIO(build(replace(rel, omit=("atd_aor",)))))
    with pytest.raises(ParseError, match=r"sheet 'ATD FY26 YTD' table 'atd_aor': title not found"):
        ice_tables.read(wb, fy=2026, name=rel.name, release=D(2026, 4, 9), iids=rel.iids)


def test_a_mid_year_fy2021_release_with_annual_book_outs_is_read(rel):
    # ICE's mid-year FY2021 file prints "ICE Final Releases by Release Reason and Criminality: FY2021 YTD" (the
    # FY2019-20 annual layout), not the monthly table of the FY2021 end-of-year file
    mid = replace(rel, name="FY21_detentionStats060921.xlsx", fy=2021, iids=D(2021, 5, 31), through=D(2021, 6, 5),
                  book_outs_annual=True)
    p = ice.parse(build(mid), mid.name)
    assert p.tables["findings"].empty
    df = parse(build(mid), mid.name)
    fytd = rows(df, "book_outs_by_reason_fytd").set_index("key")
    assert fytd.loc["FY2021 | Bonded Out | Total", "value"] == 450
    assert fytd.loc["FY2021 | Total | Total", "value"] == 1100
    assert set(fytd.date) == {"2021-06-05"}  # dated by the book-outs footnote, like the monthly table's total
    assert rows(df, "book_outs_by_reason").empty  # no monthly figures printed: none made up


def test_older_layouts_skip_tables_they_do_not_carry(rel):
    # an FY2021 workbook: no ICLOS, bond, segregation or vulnerable-population figures even though the built file
    # holds those sheets; book-outs by reason is monthly from FY2021
    old = replace(rel, name="FY21_detentionStats060921.xlsx", fy=2021, iids=D(2021, 5, 31), through=D(2021, 6, 5))
    df = parse(build(old), old.name)
    got = {s.removeprefix(S) for s in df.series if s.removeprefix(S) in {x.id.removeprefix(S) for x in ice_tables.SERIES}}
    assert not got & {"iclos_days", "bond_book_outs_total", "segregation_placements_by_facility",
                      "segregation_placements_by_reason", "atd_by_technology", "atd_court_appearances"}
    assert {"book_outs_by_reason", "atd_by_aor", "detained_by_disposition"} <= got


def test_the_sheet_of_the_workbooks_own_year_is_read():
    ctx = ice_tables._Ctx(type("WB", (), {"sheet_names": ["Header", "ATD FY24 YTD", "ATD EOFY23 "]})(), 2023, "f.xlsx")
    assert ctx.sheet(r"^\s*ATD\b", "atd_status") == "ATD EOFY23 "
    ctx = ice_tables._Ctx(type("WB", (), {"sheet_names": ["ATD FY24 YTD", "ATD FY25 YTD"]})(), 2023, "f.xlsx")
    with pytest.raises(ParseError, match=r"no 'atd_status' sheet for fiscal year 2023; the workbook's 'atd_status' "
                                         r"sheet\(s\) belong to another year: 'ATD FY24 YTD' \(FY2024\), 'ATD FY25 YTD'"):
        ctx.sheet(r"^\s*ATD\b", "atd_status")


# ---------------------------------------------------------------- the real workbooks

@pytest.fixture(scope="module")
def real(shared_data):
    SHARED = shared_data
    files = sorted((SHARED / "ice-detention-stats").glob("original_xlsx*/*.xlsx"))
    src = ice.SOURCE
    mine = {s.id for s in ice_tables.SERIES}
    out = {}
    for p in files:
        parsed = pipeline.parse_file(src, p.read_bytes(), p.name)
        obs = parsed.obs
        out[p.name] = (parsed.tables["releases"].iloc[0], obs[obs.series.isin(mine)])
    return out


# Which fiscal years' workbooks carry each series (checked by reading every workbook in ../shared/data).
CARRIED_FROM = {"atd_by_technology": 2022, "atd_court_appearances": 2023, "iclos_days": 2022, "bond_book_outs_total": 2022,
                "segregation_placements_by_reason": 2022, "segregation_placements_by_facility": 2024,
                "book_outs_by_reason": 2021, "fear_decision_to_release_days": 2020, "atd_by_aor": 2019,
                "detained_by_disposition": 2019, "book_ins_by_facility_type_fytd": 2019}


@pytest.mark.shared
def test_every_real_workbook_parses_and_carries_its_tables(real):
    assert len(real) == len(list((SHARED / "ice-detention-stats").glob("original_xlsx*/*.xlsx")))
    for file, (r, obs) in real.items():
        have = {s.removeprefix(S) for s in obs.series}
        for sid, fy in CARRIED_FROM.items():
            assert (sid in have) == (r.fiscal_year >= fy), (file, sid)
        # the facility-type ADP tables: FY2019-FY2023 and again once ICE held families (not FY2024, FY2025-01)
        fam = "adp_by_facility_type" in have
        assert fam == (r.fiscal_year <= 2023 or r.release_date >= "2025-04-01"), file
        # no table is dated by the IIDS pull date unless ICE's own text gives that same day
        assert not obs.empty


@pytest.mark.shared
def test_real_table_dates_come_from_the_footnotes(real):
    r, obs = real["FY26_detentionStats_04092026.xlsx"]
    assert r.data_date == "2026-04-02"
    def one(sid, key):
        return rows(obs, sid, key)

    assert one("detained_by_disposition", "Total | Total").date.item() == "2026-04-04"  # docket snapshot
    assert one("detained_by_disposition", "Total | Total").value.item() == 60311
    b = one("book_outs_by_reason", "Total | Total").set_index("date")
    assert (b.loc["2026-04-01", "end"], b.loc["2026-04-01", "value"]) == ("2026-04-04", 4110)
    assert one("iclos_days", "Total").date.max() == "2026-03-31"
    assert one("atd_by_technology", "Total").date.item() == "2026-04-04"  # BI Inc. participants report
    c = one("atd_court_appearances", "FY2026 | Total")
    assert (c.date.item(), c.value.item()) == ("2026-03-31", 37011)
    # FY2021's end-of-year file: tables run to 09/11/2021 although its IIDS date is 09/27/2021
    r, obs = real["FY21-detentionstats.xlsx"]
    assert set(rows(obs, "book_ins_by_facility_type_fytd").date) == {"2021-09-11"}
    # its ATD report is dated after the release's IIDS date: ICE's text, kept as printed
    assert set(rows(obs, "atd_by_status").date) == {"2021-10-23"}


@pytest.mark.shared
def test_real_facility_type_tables_agree_with_the_agency_tables(real):
    """DDP does not parse ADP or length of stay by facility type, so these are checked against ICE's own agency
    table of the same release: facility types partition the same population, so the totals are equal."""
    checked = 0
    for file, (r, obs) in real.items():
        if obs[obs.series == S + "adp_by_facility_type"].empty:
            continue
        full = ice.parse((__import__("tests.conftest", fromlist=["SHARED"]).SHARED / "ice-detention-stats" /
                          ("original_xlsx_wayback" if "FY25_detentionStats01" in file or file.startswith("2025")
                           else "original_xlsx") / file).read_bytes(), file).obs
        fac = rows(obs, "adp_by_facility_type", "Total").set_index("date").value
        agency = full[(full.series == S + "adp_total") & (full.key == "")].set_index("date").value
        j = pd.concat([fac, agency], axis=1, keys=["fac", "agency"]).dropna()
        assert len(j) and ((j.fac - j.agency).abs() < 0.01).all(), file
        fy = rows(obs, "adp_by_facility_type_fytd", f"FY{r.fiscal_year} | Total").value.item()
        assert abs(fy - full[full.series == S + "adp_total_fytd"].value.item()) < 0.01, file
        checked += 1
    # every workbook but the three that print no ADP by facility type: FY24's end-of-year file and the two of
    # January 2025
    assert checked == len(real) - 3


# ---------------------------------------------------------------- cross-check with DDP's parse

# DDP names files by the date in their name, undated end-of-year files "<FY>-12-31"; it stored ICE's
# FY25_detentionStats09242025.xlsx under the name ...09252025 (the same bytes).
DDP_NAME = {"FY25_detentionStats09242025.xlsx": "2025-09-25"}


def _ddp(shared, name):
    d = pd.read_parquet(shared / "ice-detention-stats" / "ddp_parsed_parquet" / f"{name}.parquet")
    return d.assign(file_date=d.file_date.astype(str), pull_date=d.pull_date.astype(str))


def _pick(t, file, r):
    named = ice.release_date_from_name(file)
    fd = DDP_NAME.get(file) or (named.isoformat() if named else f"{r.fiscal_year}-12-31")
    # DDP dates several FY2021 files 2021-12-31; its pull date (our IIDS date) tells them apart
    return t[(t.file_date == fd) & (t.pull_date == r.data_date)]


def _compare(ours: pd.DataFrame, theirs: pd.DataFrame, what: str, on=("key",)) -> tuple[int, set, set]:
    """Join on ``on``; every shared figure must be equal. Returns (figures compared, keys only ours, only theirs)."""
    on = list(on)
    a = ours[on + ["value"]]
    b = theirs[on + ["value"]].dropna(subset=["value"])
    j = a.merge(b, on=on, suffixes=("", "_ddp"))
    bad = j[(j.value - j.value_ddp).abs() > 1e-6 * j.value.abs().clip(lower=1)]
    assert bad.empty, f"{what}: differs from DDP\n{bad.head(10)}"
    ka = set(map(tuple, a[on].values)) - set(map(tuple, b[on].values))
    kb = set(map(tuple, b[on].values)) - set(map(tuple, a[on].values))
    return len(j), ka, kb


def _aor_keys(labels):
    out, parent = [], None
    for lab in labels:
        lab = ice_tables.ALIASES.get(lab, lab)
        if lab in ice_tables.TECHNOLOGIES or lab in {"VeriWatch", "Dual Tech", "No Technology"}:
            out.append(f"{parent} | {lab}")
        else:
            parent = lab
            out.append(lab)
    return out


# Differences from DDP's parse, each explained. A key only we have, or only DDP has, must match one of these;
# anything else fails the cross-check.
# Differences from DDP's parse, each explained. A key (a tuple of the joined columns) only we have must match the
# table's rule here (given the key and the release's fiscal year, file and family-facility column); anything else
# fails the cross-check. A table DDP holds no rows of for a release is listed, not compared (see DDP_LACKS).
ONLY_OURS = {
    # DDP keeps the first two rows of these small tables (Total and the next one); the third is missing there
    "book_ins_by_facility_type_fytd": lambda k, c: k[0].split(" | ")[1] in ("Adult", "FSC", "FRC"),
    "book_outs_by_facility_type_fytd": lambda k, c: k[0].split(" | ")[1] in ("Adult", "FSC", "FRC"),
    # DDP keeps four disposition rows, not ICE's "Other"; in layouts without a family column (FY2024, FY2025-01)
    # it reads no Total column
    "detained_by_disposition": lambda k, c: k[0].startswith("Other |") or (c["fam"] is None and
                                                                          k[0].endswith("| Total")),
    # DDP keeps the first seven row groups (Total and six reasons: bond, bond by ICE, by a judge, recognizance,
    # supervision, parole or court order), not removals, transfers, terminated proceedings, relief or other. The
    # 2026-04-09 release moved "Court Ordered" up, so "Paroled" falls outside DDP's seven there.
    "book_outs_by_reason": lambda k, c: _reason_cut(k[0].split(" | ")[0], c),
    "book_outs_by_reason_fytd": lambda k, c: _reason_cut(k[0].split(" | ")[1], c),
    # ICE printed one technology row without its label (FY2026-02-02, under Atlanta): DDP drops it. In the
    # 2026-02-12 and 2026-04-09 releases DDP also drops Seattle's Dual Tech row, which repeats San Francisco's
    # (same label, count 2, 76.0 days): checked in test_ddp_drops_a_repeated_atd_row
    "atd_by_aor": lambda k, c: k[0].endswith("| (no label)") or (k[0] == "Seattle | Dual Tech" and c["file"] in
                                                                 ("FY26_detentionStats_02122026.xlsx",
                                                                  "FY26_detentionStats_04092026.xlsx")),
    # DDP leaves out each month's grand total
    "segregation_placements_by_facility": lambda k, c: k[0] == "Total",
    # DDP keeps the fiscal year's months only; ICE's table also gives the twelve months before the current one
    "bond": lambda k, c: k[1] < f"{c['fy'] - 1}-10-01",
    # the FY2022 workbook titles its second quarter "FY 2022 Quarter 2 Data" (the others "Fiscal Year (FY) ...");
    # DDP misses that block
    "vulnerable": lambda k, c: c["file"] == "FY22-detentionStats.xlsx" and k[1] == "2022-01-01",
}
OTHER_REASONS = {"Release to Remove", "Relief Granted by IJ", "Transfer to U.S. Marshals or other agency",
                 "Transferred", "Other", "Proceedings Terminated", "Prosecutorial Discretion", "Total"}
# Tables DDP holds no rows of for a release although ICE printed them (so nothing to compare there).
# DDP parses the fear-decision headcount only from its 2025-05-09 release on.
DDP_LACKS = {"detained_with_fear_decision": [
    "FY20-detentionstats.xlsx", "FY21-detentionstats.xlsx", "FY22-detentionStats.xlsx", "FY23_detentionStats.xlsx",
    "FY24_detentionStats.xlsx", "20250106074944-FY25_detentionStats01032025.xlsx", "FY25_detentionStats01162025.xlsx"]}


def _reason_cut(reason, c):
    return reason in OTHER_REASONS or (reason == "Paroled" and c["file"] == "FY26_detentionStats_04092026.xlsx")


ONLY_DDP = {
    # months not reached yet: ICE prints 0, DDP keeps the 0, we drop it (checked: DDP's value there is 0)
    "book_outs_by_reason": "zero", "bond": "zero",
}


@pytest.mark.shared
def test_agrees_with_deportation_data_project_parse(real):
    from tests.conftest import SHARED
    def L(n):
        return _ddp(SHARED, n)

    atd, aor, court = L("atd-population"), L("atd-by-aor"), L("atd-court-appearances")
    disp, fear_t, fear_f = L("currently-detained-by-disposition"), L("fear-decision-time"), L("fear-decisions-by-facility-type")
    bif, bof = L("book-ins-by-facility-type"), L("book-outs-by-facility-type")
    bor, bor_a = L("book-outs-by-reason"), L("book-outs-by-reason-annual")
    bond, seg, vul, icl = L("bond-stats"), L("segregation"), L("vulnerable-population"), L("iclos-and-detainees")
    removals = L("removals")
    crims = {"convicted_criminal": "Convicted Criminal", "pending_criminal_charges": "Pending Criminal Charges",
             "other_immigration_violator": "Other Immigration Violator", "total": "Total"}
    n: dict[str, int] = {}
    unexplained: list = []
    releases_in_both = 0

    lacks: dict[str, list] = {}
    ctx = {}

    def check(file, table, ours, theirs, on=("key",), sid=None):
        if theirs.empty:
            lacks.setdefault(table, []).append(file)
            return
        k, ka, kb = _compare(ours, theirs, f"{file} {table}", on)
        n[table] = n.get(table, 0) + k
        ok_a = ONLY_OURS.get(table, lambda *_: False)
        bad_a = [x for x in ka if not ok_a(x, ctx)]
        if ONLY_DDP.get(table) == "zero":
            z = theirs.set_index(list(on)).value
            bad_b = [x for x in kb if (z.get(x if len(x) > 1 else x[0], 0) != 0)]
        else:
            bad_b = list(kb)
        if bad_a or bad_b:
            unexplained.append((file, table, sorted(bad_a)[:4], sorted(bad_b)[:4]))

    for file, (r, obs) in real.items():
        fy = r.fiscal_year
        def pick(t, file=file, r=r):
            return _pick(t, file, r)

        if pick(removals).empty:
            continue  # a release DDP does not hold
        releases_in_both += 1
        fam = next((c for c in ("FSC", "FRC") if not rows(obs, "detained_by_disposition", f"Total | {c}").empty), None)
        ctx.update(fy=fy, file=file, fam=fam)
        leftover_atd = file == "FY23_detentionStats.xlsx"  # DDP read "ATD FY24 YTD": see the next test
        if not leftover_atd:
            a = pick(atd)
            a = a[~a.category.str.contains(r"Data from|Costs listed", na=True)]
            a = a.assign(key=a.category.str.strip().map(lambda x: ice_tables.ALIASES.get(x, x)))
            for tab, sc, sv in (("technology", "atd_by_technology", "atd_daily_cost_by_technology"),
                                ("status", "atd_by_status", "atd_alip_by_status")):
                t = a[a.table == tab]
                if t.empty and rows(obs, sc).empty:
                    continue
                check(file, sc, rows(obs, sc), t.assign(value=t["count"]))
                check(file, sv, rows(obs, sv), t.assign(value=t["value"]))
            t = pick(aor)
            if not t.empty:
                t = t.assign(key=_aor_keys(t.aor_technology.str.strip()))
                check(file, "atd_by_aor", rows(obs, "atd_by_aor"), t.assign(value=t["count"]))
                check(file, "atd_by_aor", rows(obs, "atd_alip_by_aor"), t.assign(value=t.avg_length_in_program))
            t = pick(court)
            for ht, sid in (("total", "atd_court_appearances"), ("final", "atd_court_appearances_final")):
                x = t[t.hearing_type == ht]
                if not x.empty or not rows(obs, sid).empty:
                    check(file, sid, rows(obs, sid), x.assign(key=f"FY{fy} | " + x.metric.str.strip(),
                                                              value=x["count"]))
        fam = next((c for c in ("FSC", "FRC") if not rows(obs, "detained_by_disposition", f"Total | {c}").empty), None)
        cols = [(c, lab) for c, lab in (("fsc_frc", fam), ("adult", "Adult"), ("total", "Total")) if lab]
        t = pick(disp)
        check(file, "detained_by_disposition", rows(obs, "detained_by_disposition"),
              pd.concat([t.assign(key=t.disposition.str.strip() + " | " + lab, value=t[c]) for c, lab in cols]))
        t = pick(fear_t)
        if not t.empty or not rows(obs, "fear_decision_to_release_days").empty:
            cols = [(c, lab) for c, lab in (("fsc", fam), ("adult", "Adult"), ("total", "Total")) if lab]
            check(file, "fear_decision_to_release_days", rows(obs, "fear_decision_to_release_days"),
                  pd.concat([t.assign(key="FY" + t.data_fiscal_year.astype(str) + " | " + lab, value=t[c])
                             for c, lab in cols]))
        t = pick(fear_f)
        if not t.empty or not rows(obs, "detained_with_fear_decision").empty:
            check(file, "detained_with_fear_decision", rows(obs, "detained_with_fear_decision"),
                  t.assign(key=t.facility_type.str.strip(), value=t.total_detained))
        t = pick(bif)
        check(file, "book_ins_by_facility_type_fytd", rows(obs, "book_ins_by_facility_type_fytd"),
              pd.concat([t.assign(key=f"FY{fy} | " + t.facility_type.str.strip() + " | " + lab, value=t[c])
                         for c, lab in crims.items()]))
        t = pick(bof)
        check(file, "book_outs_by_facility_type_fytd", rows(obs, "book_outs_by_facility_type_fytd"),
              t.assign(key=f"FY{fy} | " + t.facility_type.str.strip(), value=t.total))
        t = pick(bor_a)
        if not t.empty:
            check(file, "book_outs_by_reason_fytd", rows(obs, "book_outs_by_reason_fytd"),
                  pd.concat([t.assign(key=f"FY{fy} | " + t.release_reason.str.strip() + " | " + lab, value=t[c])
                             for c, lab in crims.items()]))
        t = pick(bor)
        if not t.empty:
            t = t.assign(key=t.release_reason.str.strip() + " | " + t.criminality.fillna("Total").str.strip(),
                         date=t.date.astype(str))
            check(file, "book_outs_by_reason", rows(obs, "book_outs_by_reason"), t.assign(value=t.n_book_outs),
                  on=("key", "date"))
            f = t.drop_duplicates("key")
            check(file, "book_outs_by_reason_fytd", rows(obs, "book_outs_by_reason_fytd"),
                  f.assign(key=f"FY{fy} | " + f.key, value=f.n_book_outs_ytd))
        t = pick(bond)
        if not t.empty or not rows(obs, "bond_book_outs_total").empty:
            for metric, sid in (("total_book_outs", "bond_book_outs_total"),
                                ("bond_book_outs", "bond_book_outs_bond_posted"), ("bond_pct", "bond_posted_share"),
                                ("avg_bond_amount", "bond_average_amount"), ("alos_days", "bond_length_of_stay")):
                x = t[t.metric == metric]
                ours = rows(obs, sid)
                fixed = ours.flag.str.contains("corrected")
                # DDP keeps the 2026-04-09 bond rows as printed (labels swapped); ours are corrected where the
                # file's share row proves the swap: compared below as the swap itself
                theirs = x[~x.date.astype(str).isin(ours[fixed].date)].assign(key="", date=lambda y: y.date.astype(str))
                if len(theirs) or not ours[~fixed].empty:
                    check(file, "bond", ours[~fixed], theirs, on=("key", "date"))
            total, posted = rows(obs, "bond_book_outs_total"), rows(obs, "bond_book_outs_bond_posted")
            swapped = total[total.flag.str.contains("corrected")].date
            if len(swapped):
                ddp = {m: t[t.metric == m].assign(date=lambda y: y.date.astype(str)).set_index("date").value
                       for m in ("total_book_outs", "bond_book_outs", "bond_pct")}
                mine_t, mine_p = total.set_index("date").value, posted.set_index("date").value
                for d in swapped:
                    assert (ddp["total_book_outs"][d], ddp["bond_book_outs"][d]) == (mine_p[d], mine_t[d]), (file, d)
                    assert ddp["bond_pct"][d] == pytest.approx(mine_t[d] / mine_p[d], rel=1e-3), (file, d)
        t = pick(seg)
        if not t.empty or not rows(obs, "segregation_placements_by_facility").empty:
            check(file, "segregation_placements_by_facility", rows(obs, "segregation_placements_by_facility"),
                  t.assign(key=t.facility.str.strip(), date=t.date.astype(str), value=t.placement_count),
                  on=("key", "date"))
        t = pick(vul)
        if not t.empty or not rows(obs, "segregation_placements_by_reason").empty:
            def start(y, q):
                return dt.date(y - 1 if q == 1 else y, (10 + 3 * (q - 1) - 1) % 12 + 1, 1).isoformat()

            t = t.assign(key=t.placement_reason.str.strip().map(lambda x: ice_tables.ALIASES.get(x, x)),
                         date=[start(a_, b_) for a_, b_ in zip(t.data_fiscal_year, t.data_quarter)])
            for col, sid in (("n_placements", "segregation_placements_by_reason"),
                             ("avg_consecutive_days", "segregation_consecutive_days_by_reason"),
                             ("avg_cumulative_days", "segregation_cumulative_days_by_reason")):
                check(file, "vulnerable", rows(obs, sid), t.assign(value=t[col]), on=("key", "date"))
        # ICLOS: DDP keeps, per population, the last non-zero point and the number of non-zero points
        t = pick(icl)
        if not t.empty or not rows(obs, "iclos_days").empty:
            mine = rows(obs, "iclos_days")
            mine = mine[mine.value != 0].sort_values("date")
            last = mine.groupby("key").agg(value=("value", "last"), n=("value", "size")).reset_index()
            x = t[t.section == "iclos"].assign(key=lambda y: y.population.str.strip(), value=lambda y: y.latest_value)
            check(file, "iclos", last, x)
            j = last.merge(x, on="key")
            if not (j.n == j.n_observations).all():
                unexplained.append((file, "iclos count", j[j.n != j.n_observations][["key", "n", "n_observations"]]))
    assert not unexplained, "\n".join(map(str, unexplained))
    assert lacks == DDP_LACKS, repr(lacks)
    assert releases_in_both == len(real)  # every workbook held is in DDP's parse too
    assert all(k > 0 for k in n.values()) and len(n) >= 17, n
    print("figures compared with DDP:", n)


@pytest.mark.shared
def test_ddp_drops_a_repeated_atd_row(real):
    for file in ("FY26_detentionStats_02122026.xlsx", "FY26_detentionStats_04092026.xlsx"):
        obs = real[file][1]
        def get(sid, k, obs=obs):
            return rows(obs, sid, k).value.item()

        for sid in ("atd_by_aor", "atd_alip_by_aor"):
            assert get(sid, "Seattle | Dual Tech") == get(sid, "San Francisco | Dual Tech"), file


@pytest.mark.shared
def test_ddp_fy2023_atd_figures_are_the_leftover_fy2024_sheet(real):
    """DDP's FY2023 end-of-year ATD rows are not FY2023's: they equal this module's reading of the workbook's
    other ATD sheet ("ATD FY24 YTD"), which is what a parser taking the first ATD sheet reads."""
    from python_calamine import CalamineWorkbook

    from tests.conftest import SHARED
    file = "FY23_detentionStats.xlsx"
    r, obs = real[file]
    ddp = _pick(_ddp(SHARED, "atd-population"), file, r)
    ddp = ddp[(ddp.table == "status") & (ddp.category.str.strip() == "Total")]["count"].item()
    wb = CalamineWorkbook.from_path(str(SHARED / "ice-detention-stats" / "original_xlsx" / file))
    ctx = ice_tables._Ctx(wb, 2024, file)  # the same file, its ATD table read as FY2024's
    ctx.release, ctx.iids = D(2023, 10, 7), D(2023, 10, 7)
    table = next(t for t in ice_tables.TABLES if t.name == "atd_status")
    other = ice_tables._read_table(ctx, [], table)
    leftover = next(x["value"] for x in other if x["series"] == S + "atd_by_status" and x["key"] == "Total")
    ours = rows(obs, "atd_by_status", "Total").value.item()
    assert ddp == leftover != ours


def test_a_bond_month_of_zeros_in_every_row_is_missing(rel):
    wb = load_workbook(io.BytesIO(build(rel)))
    b = wb["Monthly Bond Statistics"]
    for r in range(4, 9):
        b.cell(r, 2, 0.0)  # the first (April 2025) column, as FY2026 workbooks print the prior year's months
    buf = io.BytesIO()
    wb.save(buf)
    df = parse(buf.getvalue(), rel.name)
    assert rows(df, "bond_book_outs_total").date.min() == "2025-05-01"
    assert len(rows(df, "bond_average_amount")) == 12


def test_every_ice_table_is_one_spec_type_with_one_reader_for_its_shape():
    """Headline and other tables alike are ``workbook.TableSpec``s; the headline ones are read by the generic
    ``read_table`` ("grid", "pairs"), every other shape by the one reader ``ice_tables`` has for it."""
    from loaders.workbook import LAYOUTS, TableSpec
    assert all(type(t) is TableSpec for t in ice.TABLES + ice_tables.TABLES)
    assert {t.layout for t in ice.TABLES} == {"grid", "pairs"}
    blocks = {"monthly-blocks", "quarterly-blocks"}
    assert set(ice_tables.READERS) == set(ice_tables.DATING) == set(LAYOUTS) - {"pairs"} - blocks
    assert {t.layout for t in ice_tables.TABLES} == set(LAYOUTS) - {"pairs"}  # no reader without a table
