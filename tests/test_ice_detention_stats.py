"""ICE detention-statistics workbooks: discovery, file-name dates, parsing, vintages, integrity checks, DDP cross-check."""
import datetime as dt
import hashlib
from dataclasses import replace

import pandas as pd
import pytest
import requests
import responses

from loaders import fetch, pipeline, tidy
from loaders import ice_detention_stats as ice
from loaders.errors import FetchError, ParseError
from tests.conftest import record_downloads
from tests.ice_workbook_factory import Release, build

SRC = ice.SOURCE
S = "ice_detention_stats."
D = dt.date


def parse(rel: Release) -> pd.DataFrame:
    return pipeline.parse_bytes(SRC, build(rel), rel.name)


def value(df, series, key="", date=None, release=None):
    m = (df.series == S + series) & (df.key == key)
    if date:
        m &= df.date == date
    if release:
        m &= df.release == release
    vals = df.loc[m, "value"].tolist()
    assert len(vals) == 1, f"{series} {key} {date} {release}: {vals}"
    return vals[0]


def findings(releases: list[Release]) -> pd.DataFrame:
    obs = pd.concat([parse(r) for r in releases], ignore_index=True)
    return ice.check(tidy.validate(obs, source=SRC.id, series_ids={s.id for s in SRC.series}))


# ---------------------------------------------------------------- a typical release, mid-February 2025

@pytest.fixture
def feb_release() -> Release:
    return Release("FY25_detentionStats02272025.xlsx", 2025, D(2025, 2, 18), D(2025, 2, 22), ice=22622, cbp=21137,
                   docket=D(2025, 2, 23))


# ---------------------------------------------------------------- discovery

LANDING_HTML = """<html><body><h1>Detention Management</h1>
<a href="/doclib/detention/FY26_detentionStats_04092026.xlsx">FY2026 Detention Statistics</a>
<a href="https://www.ice.gov/doclib/detention/FY25_detentionStats09242025.xlsx">FY2025</a>
<a href="/doclib/detention/FY26_detentionStats_04092026.xlsx">again</a>
<a href="/doclib/detention/atd-report.xlsx">ATD</a>
<a href="/doclib/detention/FY19-detentionstats.pdf">pdf</a>
<a href="http://www.ice.gov/doclib/detention/FY21_detention-stats_0301.xlsx?v=2">old</a>
</body></html>"""


@responses.activate
def test_discover_finds_the_workbook_links():
    responses.get(ice.LANDING, body=LANDING_HTML)
    urls = ice.discover(fetch.make_session(browser_ua=True))
    assert urls == ["https://www.ice.gov/doclib/detention/FY26_detentionStats_04092026.xlsx",
                    "https://www.ice.gov/doclib/detention/FY25_detentionStats09242025.xlsx",
                    "https://www.ice.gov/doclib/detention/FY21_detention-stats_0301.xlsx?v=2"]
    assert responses.calls[0].request.headers["User-Agent"] == fetch.BROWSER_UA
    assert SRC.browser_user_agent and SRC.discover is ice.discover


@responses.activate
def test_discover_without_a_workbook_link_says_so():
    responses.get(ice.LANDING, body="<html><body><a href='/detain'>Detention</a></body></html>")
    with pytest.raises(FetchError, match="no .xlsx link containing 'detentionstats'"):
        ice.discover(requests.Session())


@responses.activate
def test_discover_http_error():
    responses.get(ice.LANDING, status=403)
    with pytest.raises(FetchError, match="HTTP 403"):
        ice.discover(requests.Session())


# ---------------------------------------------------------------- dates in file names

@pytest.mark.parametrize("name, expected", [
    ("FY25_detentionStats09242025.xlsx", D(2025, 9, 24)),      # MMDDYYYY
    ("FY26_detentionStats_02122026.xlsx", D(2026, 2, 12)),     # with underscore
    ("FY22_detentionStats03172022b.xlsx", D(2022, 3, 17)),     # letter suffix
    ("FY21_detentionStats060921.xlsx", D(2021, 6, 9)),         # MMDDYY
    ("FY23_detentionStats230316.xlsx", D(2023, 3, 16)),        # YYMMDD: 23/03/16 is no MMDDYY date
    ("FY21_detention-stats_0301.xlsx", D(2021, 3, 1)),         # MMDD, year from the fiscal year
    ("FY21_detention-stats_1115.xlsx", D(2020, 11, 15)),       # Oct-Dec belong to the year before the FY
    ("20250106074944-FY25_detentionStats01032025.xlsx", D(2025, 1, 3)),  # Wayback prefix
    ("fy24_DETENTIONSTATS12202023.xlsx", D(2023, 12, 20)),     # casing
    ("FY24_detentionStats.xlsx", None),                        # undated end-of-year file
    ("FY19-detentionstats.xlsx", None),
    ("FY22-detentionStats.xlsx", None),
    ("FY26_detentionStats04092026 (2).xlsx", D(2026, 4, 9)),  # a browser's copy suffix
    ("download (3).xlsx", None),                               # a downloader's own name
])
def test_release_date_from_every_name_variant(name, expected):
    assert ice.release_date_from_name(name) == expected


def test_six_digit_dates_disambiguated_by_fiscal_year():
    # 110322 reads as Nov 3 2022 (MMDDYY) in FY23, but in FY11 only YYMMDD (2011-03-22) lies in the window.
    assert ice.release_date_from_name("FY23_detentionStats110322.xlsx") == D(2022, 11, 3)
    assert ice.release_date_from_name("FY11_detentionStats110322.xlsx") == D(2011, 3, 22)
    with pytest.raises(ParseError, match="no date inside fiscal year 2025"):
        ice.release_date_from_name("FY25_detentionStats13452025.xlsx")


def test_undated_file_takes_the_iids_date_as_release(feb_release):
    # end-of-year style: the tables end Sep 30, the pull is later: the IIDS date is the release
    eoy = replace(feb_release, name="FY25_detentionStats.xlsx", iids=D(2025, 10, 7), through=D(2025, 9, 30),
                  docket=D(2025, 10, 4))
    assert set(parse(eoy).release) == {"2025-10-07"}
    # a footnote date after the IIDS date (FY2020: IIDS 09-30, docket 10-02): the file came out after both
    df = parse(replace(feb_release, name="FY25_detentionStats.xlsx"))
    assert set(df.release) == {"2025-02-23"}


def test_a_workbook_saved_under_a_downloaders_name_is_dated_from_its_contents_and_says_so(feb_release):
    """Issue 27: "download (3).xlsx" carries no ICE date. The release is dated from the workbook itself (the
    fiscal year from the Detention sheet's titles, the date from its footnotes), marked ``dated_from_contents``
    with a finding that says what the date is; never a download time presented as a publication date."""
    content = build(feb_release)
    p = pipeline.parse_file(SRC, content, "download (3).xlsx")
    rel = p.tables["releases"].iloc[0]
    assert set(p.obs.release) == {"2025-02-23"}  # the latest date the workbook states (the docket snapshot)
    assert rel["fiscal_year"] == 2025 and bool(rel["dated_from_contents"]) is True
    assert rel["release_date_from"] == "latest footnote date (no ICE date in the file name)"
    f = p.tables["findings"]
    f = f[f.flag == "dated-from-contents"]
    assert len(f) == 1 and f.iloc[0]["date"] == "2025-02-23" and f.iloc[0]["file"] == "download (3).xlsx"
    assert "'download (3).xlsx' carries no ICE date" in f.iloc[0]["message"]
    assert "earliest day it can have been published" in f.iloc[0]["message"]
    # The same bytes under ICE's own name: dated from the name, not marked, no finding
    named = pipeline.parse_file(SRC, content, feb_release.name)
    assert set(named.obs.release) == {"2025-02-27"}
    assert bool(named.tables["releases"].iloc[0]["dated_from_contents"]) is False
    assert "dated-from-contents" not in set(named.tables["findings"].flag)
    # A browser's copy suffix keeps ICE's date: "(1)" is the downloader's, the date is ICE's
    copy = pipeline.parse_file(SRC, content, "FY25_detentionStats02272025 (1).xlsx")
    assert set(copy.obs.release) == {"2025-02-27"}
    assert copy.tables["releases"].iloc[0]["release_date_from"] == "file name"
    # ICE's own undated end-of-year name: dated from contents and marked, as before with its own wording
    eoy = pipeline.parse_file(SRC, content, "FY25_detentionStats.xlsx").tables["releases"].iloc[0]
    assert bool(eoy["dated_from_contents"]) is True
    assert eoy["release_date_from"] == "latest footnote date (undated file name)"


# ---------------------------------------------------------------- parsing a workbook with the real layout

def test_parses_every_table(feb_release):
    p = pipeline.parse_file(SRC, build(feb_release), feb_release.name)
    df = p.obs
    assert set(df.release) == {"2025-02-27"}
    # currently detained: a snapshot on the National Docket date its footnote gives (not the IIDS date)
    assert value(df, "detained_ice") == 22622 and value(df, "detained_cbp") == 21137
    assert value(df, "detained_total") == 43759
    snap = df[df.series == S + "detained_ice"].iloc[0]
    assert snap.date == snap.end == "2025-02-23"
    crim = df[df.series == S + "detained_ice_by_criminality"]
    assert set(crim.key) == {"Convicted criminal", "Pending criminal charges", "Other immigration violator"}
    assert crim.value.sum() == 22622
    # book-ins: the "ICE  " row (two trailing spaces), the month holding the footnote date partial to that date,
    # later months missing
    bi = df[df.series == S + "book_ins_ice"].set_index("date")
    assert bi.loc["2025-01-01", "value"] == 11753 and bi.loc["2025-01-01", "end"] == "2025-01-31"
    assert bi.loc["2025-01-01", "flag"] == ""
    assert bi.loc["2025-02-01", "flag"] == "partial" and bi.loc["2025-02-01", "end"] == "2025-02-22"
    assert "2025-03-01" not in bi.index  # ICE prints 0 for March: missing, not zero
    assert value(df, "book_ins_total", date="2025-01-01") == 11753 + 10237
    # ADP by agency and criminality, ALOS, FYTD figures, removals
    assert value(df, "adp_ice", date="2024-10-01") == pytest.approx(14285.19)
    assert value(df, "adp_total_by_criminality", "Convicted criminal", "2024-10-01") == \
        pytest.approx(14285.19 * 0.55 + 24426.58 * 0.06)
    assert value(df, "alos_cbp", date="2024-11-01") == 80
    assert value(df, "removals_fytd", "FY2025") == 95474 and value(df, "removals_famu_fytd", "FY2025") == 9337
    assert value(df, "adp_total_fytd", "FY2025") > 0
    # facilities: FYTD ADP keyed by name; a repeated name gets its city and state
    fac = df[df.series == S + "facility_adp_fytd"]
    assert {"CLINTON COUNTY JAIL (PLATTSBURGH, NY)", "CLINTON COUNTY JAIL (LOCK HAVEN, PA)",
            "STEWART DETENTION CENTER"} <= set(fac.key)
    assert (fac.date == "2025-02-18").all()
    # reference tables
    rel = p.tables["releases"].iloc[0]
    assert (rel.release_date, rel.data_date, rel.footnote_data_through, rel.fiscal_year) == \
        ("2025-02-27", "2025-02-18", "2025-02-22", 2025)
    assert (rel.detention_data_through, rel.book_ins_data_through, rel.removals_data_through, rel.docket_as_of) == \
        ("2025-02-22", "2025-02-22", "2025-02-22", "2025-02-23")
    assert rel.docket_as_of_from == "footnote" and rel.detention_sheet == "Detention FY25"
    # ADP FYTD at the detention tables' date, removals at theirs, facilities at the IIDS date
    assert df[df.series == S + "adp_total_fytd"].date.tolist() == ["2025-02-22"]
    assert df[df.series == S + "removals_fytd"].date.tolist() == ["2025-02-22"]
    t = p.tables["facilities"].set_index("key")
    assert t.loc["STEWART DETENTION CENTER", ["city", "state", "aor", "facility_type"]].tolist() == \
        ["LUMPKIN", "GA", "ATL", "DIGSA"]


def test_per_day_is_left_to_the_page(feb_release):
    """No per-day series is stored: book-ins are declared a flow and carry the days they cover in date..end."""
    df = parse(feb_release)
    assert not any("per_day" in s for s in df.series.unique())
    assert next(s for s in SRC.series if s.id == S + "book_ins_ice").measure == "flow"
    feb = df[(df.series == S + "book_ins_ice") & (df.date == "2025-02-01")].iloc[0]
    days = (D.fromisoformat(feb.end) - D.fromisoformat(feb.date)).days + 1
    assert days == 22 and feb.value / days == pytest.approx(4597 / 22)  # Feb 1-22, the footnote's date


def test_robust_to_shifted_rows_renamed_sheets_and_an_extra_table(feb_release):
    base = parse(feb_release)
    moved = parse(replace(feb_release, shift=7, extra_table=True, detention_sheet=" Detention EOFY2025 ",
                          facilities_sheet="Facilities EOYFY25 "))
    cols = ["series", "key", "date", "end", "value", "release", "flag"]
    pd.testing.assert_frame_equal(base[cols], moved[cols])


@pytest.mark.parametrize("omit, sheet, table", [
    ("detained", "Detention FY25", "ICE Currently Detained by Criminality and Arresting Agency"),
    ("book_ins", "Detention FY25", "ICE Initial Book-Ins by Arresting Agency and Month"),
    ("adp", "Detention FY25", "ICE Average Daily Population by Arresting Agency"),
    ("removals", "Detention FY25", "ICE Removals"),
    ("iids", "Facilities FY25", "Integrated Decision Support"),
])
def test_missing_table_names_sheet_and_table(feb_release, omit, sheet, table):
    """A missing headline table costs that table, not the release (issue 39): a table-unread finding names its
    sheet and table and the other tables are kept. Without the IIDS line nothing dates the release: refused."""
    b = build(replace(feb_release, omit=(omit,)))
    if omit == "iids":
        with pytest.raises(ParseError) as e:
            ice.parse(b, feb_release.name)
        msg = str(e.value)
        assert f"sheet {sheet!r}" in msg and table in msg and feb_release.name in msg
        return
    got = pipeline.parse_file(SRC, b, feb_release.name)
    f = got.tables["findings"]
    unread = f[f.flag == "table-unread"].message.tolist()
    mine = [m for m in unread if m.startswith(f"table {omit!r} (sheet {sheet!r}) not read:")]
    assert len(mine) == 1 and "not found (no cell matching" in mine[0], unread
    kept = {"detained": "adp_ice", "book_ins": "adp_ice", "adp": "book_ins_ice", "removals": "detained_ice"}
    assert (got.obs.series == S + kept[omit]).any()
    gone = {"detained": "detained_ice", "book_ins": "book_ins_ice", "adp": "adp_ice", "removals": "removals_fytd"}
    assert not (got.obs.series == S + gone[omit]).any()


def test_missing_sheet_and_length_of_stay_optional(feb_release):
    with pytest.raises(ParseError, match="no Facilities sheet"):
        ice.parse(build(replace(feb_release, facilities_sheet="Facility list")), feb_release.name)
    df = parse(replace(feb_release, omit=("alos",)))  # ALOS is parsed "where present"
    assert not df.series.str.contains("alos").any() and (df.series == S + "adp_ice").any()


def test_nothing_half_parsed_reaches_the_snapshot(feb_release, tmp_path):
    raw = tmp_path / "raw" / "ice_detention_stats"
    raw.mkdir(parents=True)
    (raw / feb_release.name).write_bytes(build(feb_release))
    record_downloads(raw)
    out = tmp_path / "snap"
    pipeline.rebuild(tmp_path / "raw", out, ["ice_detention_stats"])
    before = (out / "snapshot" / "observations" / "ice_detention_stats.csv").read_bytes()
    bad = replace(feb_release, name="FY25_detentionStats03142025.xlsx", omit=("iids",))  # nothing dates it
    (raw / bad.name).write_bytes(build(bad))
    record_downloads(raw)
    with pytest.raises(ParseError, match="Integrated Decision Support"):
        pipeline.rebuild(tmp_path / "raw", out, ["ice_detention_stats"])
    assert (out / "snapshot" / "observations" / "ice_detention_stats.csv").read_bytes() == before


# ---------------------------------------------------------------- vintages

def test_two_releases_of_a_fiscal_year_both_kept(feb_release):
    jan = Release("FY25_detentionStats01162025.xlsx", 2025, D(2025, 1, 6), D(2025, 1, 11), ice=14557, cbp=25146,
                  book_ins_ice=[8614, 7558, 7885, 2100], removals=76939)
    obs = pd.concat([parse(jan), parse(feb_release)], ignore_index=True)
    bi = obs[obs.series == S + "book_ins_ice"]
    assert set(bi.release) == {"2025-01-16", "2025-02-27"}
    latest = tidy.latest(bi).set_index("date")
    assert latest.loc["2025-01-01", "value"] == 11753 and latest.loc["2025-01-01", "release"] == "2025-02-27"
    then = tidy.as_published(bi, "2025-01-31").set_index("date")
    assert then.loc["2025-01-01", "value"] == 2100 and then.loc["2025-01-01", "flag"] == "partial"
    rev = tidy.revisions(bi)
    assert ((rev.date == "2025-01-01") & (rev.previous == 2100) & (rev.value == 11753)).any()
    assert ice.check(obs).empty  # a normal pair of releases raises nothing


# ---------------------------------------------------------------- integrity checks on the known bad releases

def _feb_2025_releases():
    """ICE's releases around the 2025-02-27 transposition, with the detained counts DDP parsed from them."""
    kw = dict(book_ins_ice=[8612, 7579, 7883, 11755, 12819], removals=103868)
    return [
        Release("FY25_detentionStats02142025.xlsx", 2025, D(2025, 2, 8), D(2025, 2, 10), ice=19304, cbp=21865,
                removals=95474),
        Release("FY25_detentionStats02272025.xlsx", 2025, D(2025, 2, 18), D(2025, 2, 22), ice=21137, cbp=22622,
                transpose=False, ice_mix=(0.06, 0.04, 0.90), cbp_mix=(0.51, 0.33, 0.16), **kw),
        Release("FY25_detentionStats03052025.xlsx", 2025, D(2025, 2, 18), D(2025, 2, 22), ice=22622, cbp=21137,
                ice_mix=(0.51, 0.33, 0.16), cbp_mix=(0.06, 0.04, 0.90), **kw),
        Release("FY25_detentionStats03142025.xlsx", 2025, D(2025, 3, 3), D(2025, 3, 8), ice=25732, cbp=20537,
                removals=113541, book_ins_ice=[8612, 7579, 7883, 11755, 14000, 1500]),
    ]


def test_transposition_2025_02_27_is_flagged():
    f = findings(_feb_2025_releases())
    t = f[f.flag == "transposed"]
    assert set(t.release) == {"2025-02-27"}
    assert "21137/22622" in t.message.iloc[0] and "22622/21137" in t.message.iloc[0]
    # the pipeline marks the rows themselves
    obs = pd.concat([parse(r) for r in _feb_2025_releases()], ignore_index=True)
    marked, _ = pipeline.apply_checks(SRC, obs)
    flagged = marked[marked.flag.str.contains("transposed")]
    assert set(flagged.release) == {"2025-02-27"} and set(flagged.series) >= {S + "detained_ice", S + "detained_cbp"}


def test_transposition_written_as_ice_wrote_it():
    """The same error built the other way: true figures, then the ICE and CBP columns swapped in the workbook."""
    rels = _feb_2025_releases()
    rels[1] = replace(rels[2], name="FY25_detentionStats02272025.xlsx", transpose=True)
    df = parse(rels[1])
    assert value(df, "detained_ice") == 21137 and value(df, "detained_cbp") == 22622  # what the file says
    f = findings(rels)
    assert set(f[f.flag == "transposed"].release) == {"2025-02-27"}


def test_transposition_pattern_in_general_not_by_date():
    """Any two consecutive releases whose ICE and CBP counts trade places (within 1%) are caught."""
    a = Release("FY22_detentionStats_03022022.xlsx", 2022, D(2022, 2, 22), ice=4889, cbp=13095, removals=20673,
                book_ins_ice=[6000, 6100, 6200, 6300, 6400], book_ins_cbp=[9000, 9100, 9200, 9300, 9400])
    b = replace(a, name="FY22_detentionStats_03172022.xlsx", iids=D(2022, 3, 7), ice=13160, cbp=4900,
                ice_mix=a.cbp_mix, cbp_mix=a.ice_mix, removals=23499)
    c = replace(a, name="FY22_detentionStats_03312022.xlsx", iids=D(2022, 3, 14), ice=5060, cbp=15673, removals=25986)
    f = findings([a, b, c])
    assert set(f[f.flag == "transposed"].release) == {"2022-03-17"}
    # a swap with no criminality evidence either way flags both sides of the pair
    b2 = replace(b, ice_mix=a.ice_mix, cbp_mix=a.cbp_mix)
    f2 = findings([a, b2])
    assert set(f2[f2.flag == "transposed"].release) == {"2022-03-02", "2022-03-17"}
    assert "one of the two" in f2[f2.flag == "transposed"].message.iloc[0]


def test_stale_header_2025_02_14_is_flagged():
    """Header (IIDS) date Jan 21 2025 kept from the 2025-02-03 release while the data ran to Feb 8."""
    feb03 = Release("FY25_detentionStats02032025.xlsx", 2025, D(2025, 1, 21), D(2025, 1, 25), ice=14882, cbp=24356,
                    book_ins_ice=[8614, 7558, 7885, 6552], removals=85769)
    feb14 = Release("FY25_detentionStats02142025.xlsx", 2025, D(2025, 1, 21), D(2025, 2, 8), ice=19304, cbp=21865,
                    book_ins_ice=[8614, 7579, 7887, 11758, 4597], removals=95474)
    df = parse(feb14)
    assert (df.flag.str.contains("stale-header")).all()
    feb = df[(df.series == S + "book_ins_ice") & (df.date == "2025-02-01")].iloc[0]
    assert feb.value == 4597 and feb.end == "2025-02-08" and "partial" in feb.flag
    f = findings([feb03, feb14])
    stale = f[f.flag == "stale-header"]
    assert set(stale.release) == {"2025-02-14"}
    assert stale.message.str.contains("repeats the IIDS data date 2025-01-21").any()
    assert stale.message.str.contains("footnotes say the data run to 2025-02-08|header date", regex=True).any()


def test_stale_header_from_data_past_every_date_in_the_file():
    """No footnote date either: a real figure for February in a file dated Jan 21 can only mean a stale header."""
    feb14 = Release("FY25_detentionStats02142025.xlsx", 2025, D(2025, 1, 21), None, ice=19304, cbp=21865,
                    book_ins_ice=[8614, 7579, 7887, 11758, 4597])
    feb14 = replace(feb14, through=None)
    b = build(feb14)
    # build() writes zeros after `through or iids`; put February back as ICE's stale file had it
    import io

    from openpyxl import load_workbook
    wb = load_workbook(io.BytesIO(b))
    wb["Detention FY25"]["N22"] = 4597
    buf = io.BytesIO()
    wb.save(buf)
    df = pipeline.parse_bytes(SRC, buf.getvalue(), feb14.name)
    feb = df[(df.series == S + "book_ins_ice") & (df.date == "2025-02-01")].iloc[0]
    assert feb.value == 4597 and feb.flag == "partial;stale-header"
    assert df[df.series == S + "detained_ice"].flag.iloc[0] == ""  # the rest of the file has no evidence against it
    assert (ice.check(df).flag == "stale-header").any()


def test_header_sheet_date_disagreeing_with_iids(feb_release):
    df = parse(replace(feb_release, header_text_date="01/21/2025"))
    assert df.flag.str.contains("stale-header").all()


def test_facility_inconsistency_2025_07_17_is_flagged():
    """National FY ADP 45,562 and 56,816 detained, but the facility ADPs summed to 42,221."""
    base = dict(book_ins_ice=[8609, 7580, 7884, 11753, 17378, 19123, 18215, 23642, 31590, 27457],
                book_ins_cbp=[15004, 13543, 14238, 10237, 4252, 3798, 4602, 5238, 5114, 3805])
    jul07 = Release("FY25_detentionStats07072025.xlsx", 2025, D(2025, 6, 23), ice=41447, cbp=16414,
                    adp_fytd=44881.87, facility_total=0.99 * 44881.87, removals=212645, **base)
    jul17 = Release("FY25_detentionStats07172025.xlsx", 2025, D(2025, 7, 7), ice=41349, cbp=15467,
                    adp_fytd=45562.26, facility_total=42220.71, removals=228282, **base)
    f = findings([jul07, jul17])
    fm = f[f.flag == "facility-mismatch"]
    assert set(fm.release) == {"2025-07-17"}
    assert "42,221" in fm.message.iloc[0] and "45,562" in fm.message.iloc[0] and "56816 detained" in fm.message.iloc[0]


def test_a_facility_listed_twice_keeps_both_listings_with_a_finding(feb_release):
    """ICE's 2025-07-07 file lists NASSAU COUNTY CORRECTIONAL CENTER (East Meadow, NY) twice with different
    figures: the release is kept, both listings kept as printed and told apart, and a finding names them."""
    twice = replace(feb_release, facilities=feb_release.facilities + [
        ("NASSAU COUNTY CORRECTIONAL CENTER", "EAST MEADOW", "NY", "NYC", "USMS IGA", 12.0),
        ("NASSAU COUNTY CORRECTIONAL CENTER", "EAST MEADOW", "NY", "NYC", "USMS IGA", 3.0)])
    df = parse(twice)
    fac = df[(df.series == S + "facility_adp_fytd") & df.key.str.startswith("NASSAU")]
    assert len(fac) == 2 and fac.key.nunique() == 2
    assert set(fac.key) == {"NASSAU COUNTY CORRECTIONAL CENTER",
                            "NASSAU COUNTY CORRECTIONAL CENTER (listing 2 of 2)"}
    assert (fac.flag == "listed-twice").all()
    assert fac.value.iloc[0] > fac.value.iloc[1] > 0  # each listing's own figure, in sheet order
    # the other facilities are untouched, a name shared by two places still gets city and state
    assert {"CLINTON COUNTY JAIL (PLATTSBURGH, NY)", "STEWART DETENTION CENTER"} <= set(df.key)
    assert not df[(df.series == S + "facility_adp_fytd") & ~df.key.str.startswith("NASSAU")].flag.any()
    f = findings([twice])
    lt = f[f.flag == "listed-twice"]
    assert set(lt.key) == set(fac.key)  # each listing pointed at, never every facility of the release
    assert lt.message.iloc[0].startswith("NASSAU COUNTY CORRECTIONAL CENTER is listed 2 times")


def test_a_reposted_identical_file_is_the_same_release_not_a_new_one(feb_release, tmp_path):
    """ICE posted FY25_detentionStats09242025.xlsx again, byte for byte, as FY25_detentionStats09252025.xlsx: the
    second is recorded with its origin and said to be the same file, but not read as a release of its own."""
    from tests.conftest import record_downloads
    raw = tmp_path / "raw" / "ice_detention_stats"
    raw.mkdir(parents=True)
    body = build(feb_release)
    (raw / feb_release.name).write_bytes(body)
    (raw / "FY25_detentionStats02282025.xlsx").write_bytes(body)
    record_downloads(tmp_path / "raw")
    pipeline.rebuild(tmp_path / "raw", tmp_path / "snap", ["ice_detention_stats"])
    snap = tmp_path / "snap" / "snapshot"
    obs = pd.read_csv(snap / "observations" / "ice_detention_stats.csv", dtype=str, keep_default_na=False)
    assert set(obs.file) == {feb_release.name} and set(obs.release) == {"2025-02-27"}
    rels = pd.read_csv(snap / "tables" / "ice_detention_stats.releases.csv", dtype=str)
    assert rels.file.tolist() == [feb_release.name]
    import json
    files = {f["name"]: f for f in json.loads((snap / "manifest.json").read_text())["sources"]["ice_detention_stats"]["files"]}
    again = files["FY25_detentionStats02282025.xlsx"]
    assert again["same_bytes_as"] == feb_release.name and again["rows"] == 0 and again["origin"]["sha256"]
    assert "same_bytes_as" not in files[feb_release.name]
    flags = pd.read_csv(snap / "quality_flags.csv", dtype=str, keep_default_na=False)
    rp = flags[flags.flag == "reposted"]
    assert rp.file.tolist() == ["FY25_detentionStats02282025.xlsx"] and rp.release.tolist() == ["2025-02-27"]
    assert f"byte for byte the same file as {feb_release.name}" in rp.message.iloc[0]
    assert "repeated" not in set(flags.flag)  # not read twice, so not a release repeating another


def test_cumulative_removals_must_not_fall_within_a_fiscal_year(feb_release):
    later = replace(feb_release, name="FY25_detentionStats03142025.xlsx", iids=D(2025, 3, 3), through=D(2025, 3, 8),
                    removals=90000)
    next_fy = replace(feb_release, name="FY26_detentionStats11202025.xlsx", fy=2026, iids=D(2025, 11, 10),
                      through=D(2025, 11, 12), removals=56392, book_ins_ice=[8000], book_ins_cbp=[1000],
                      adp_ice=[50000.0], adp_cbp=[12000.0])
    f = findings([feb_release, later, next_fy])
    dec = f[f.flag == "decreased"]
    assert list(zip(dec.series, dec.release)) == [(S + "removals_fytd", "2025-03-14")]
    assert "95474" in dec.message.iloc[0]


def test_parts_must_add_up(feb_release):
    f = findings([replace(feb_release, book_ins_total_error=250)])
    sm = f[f.flag == "sum-mismatch"]
    assert list(zip(sm.series, sm.date)) == [(S + "book_ins_total", "2024-11-01")]


def test_flag_codes_are_declared():
    assert {"partial", "transposed", "stale-header", "sum-mismatch", "decreased", "facility-mismatch"} <= set(tidy.FLAGS)


# ---------------------------------------------------------------- the real workbooks

REAL = "ice-detention-stats/original_xlsx"


def _real(shared_data):
    files = sorted((shared_data / "ice-detention-stats").glob("original_xlsx*/*.xlsx"))
    out = {p.name: pipeline.parse_file(SRC, p.read_bytes(), p.name) for p in files}
    return out


@pytest.fixture(scope="module")
def real(shared_data):
    return _real(shared_data)


@pytest.mark.shared
def test_real_files_all_parse(shared_data, real):
    assert len(real) == len(list(shared_data.glob("ice-detention-stats/original_xlsx*/*.xlsx")))
    fys = sorted(p.tables["releases"].fiscal_year.iloc[0] for p in real.values())
    assert fys[:6] == [2019, 2020, 2021, 2022, 2023, 2024] and set(fys[6:]) == {2025, 2026}
    obs = pd.concat([p.obs for p in real.values()], ignore_index=True)
    f = ice.check(obs)
    # FY21-detentionstats.xlsx (undated) cannot have come out before 2021-10-23, the date of its ATD table, while
    # its detention tables end 2021-09-11 (stale-release) and its IIDS line says 2021-09-27 (stale-header).
    # FY25_detentionStats07072025.xlsx lists NASSAU COUNTY CORRECTIONAL CENTER twice (listed-twice) and its
    # facility ADPs sum to 105% of the national FYTD ADP (facility-mismatch). Read here file by file (not as a
    # rebuild, which reads a re-posted file once), FY25_detentionStats09252025.xlsx repeats 09242025's figures.
    assert set(zip(f.file, f.flag)) == {("FY21-detentionstats.xlsx", "stale-release"),
                                        ("FY21-detentionstats.xlsx", "stale-header"),
                                        ("FY25_detentionStats07072025.xlsx", "listed-twice"),
                                        ("FY25_detentionStats07072025.xlsx", "facility-mismatch"),
                                        ("FY25_detentionStats09252025.xlsx", "repeated")}, f
    rel = pd.concat([p.tables["releases"] for p in real.values()]).set_index("file")
    assert rel.loc["FY25_detentionStats09242025.xlsx", "data_date"] == "2025-09-15"
    assert rel.loc["FY19-detentionstats.xlsx", "data_date"] == "2019-10-07"
    assert rel.loc["FY26_detentionStats_02122026.xlsx", "data_date"] == "2026-02-05"
    assert rel.loc["FY24_detentionStats.xlsx", "release_date"] == "2024-10-07"  # undated: the IIDS date
    # undated, docket snapshot (10-02) after the IIDS date (09-30): released no earlier than the docket date
    assert rel.loc["FY20-detentionstats.xlsx", ["release_date", "release_date_from"]].tolist() == \
        ["2020-10-02", "latest footnote date (undated file name)"]


@pytest.mark.shared
def test_real_sample_values(real):
    fy25 = real["FY25_detentionStats09242025.xlsx"].obs
    assert value(fy25, "detained_total") == 59762 and value(fy25, "detained_ice") == 46015
    assert value(fy25, "detained_cbp") == 13747
    bi = fy25[fy25.series == S + "book_ins_ice"].set_index("date")
    assert bi.loc["2025-01-01", "value"] == 11753 and bi.loc["2025-06-01", "value"] == 31590
    sep = bi.loc["2025-09-01"]
    assert sep.value == 21293 and sep.flag == "partial" and sep.end == "2025-09-20"  # footnote date, not IIDS 09-15
    assert bi.value.sum() == 222832
    assert value(fy25, "removals_fytd", "FY2025") == 319980
    assert value(fy25, "adp_total", date="2024-10-01") == pytest.approx(38711.77, abs=0.01)
    assert value(fy25, "adp_total_fytd", "FY2025") == pytest.approx(48404.48, abs=0.01)
    fy24 = real["FY24_detentionStats.xlsx"].obs
    assert value(fy24, "detained_total") == 37684 and value(fy24, "removals_fytd", "FY2024") == 271484
    assert fy24[fy24.series == S + "book_ins_ice"].value.sum() == 90615
    assert not fy24[fy24.series == S + "book_ins_ice"].flag.any()  # EOY file pulled Oct 7: no partial month
    fy19 = real["FY19-detentionstats.xlsx"].obs
    assert value(fy19, "detained_total") == 50922 and value(fy19, "removals_fytd", "FY2019") == 267258
    assert set(fy19[fy19.series == S + "adp_ice_by_criminality"].key) == {"Convicted criminal", "Non-criminal"}
    assert value(fy19, "removals_family_detention_fytd", "FY2019") == 1069
    fy26 = real["FY26_detentionStats_02122026.xlsx"].obs
    cbp = fy26[fy26.series == S + "book_ins_cbp"].set_index("date")
    assert list(cbp.index) == ["2025-10-01", "2025-11-01", "2025-12-01", "2026-01-01", "2026-02-01"]  # blanks missing
    assert cbp.loc["2026-02-01", "end"] == "2026-02-07"  # the footnote's date; the IIDS date is 02-05


# DDP's file_date for each of our files: the date in the name; for undated end-of-year files DDP writes
# "<FY>-12-31". Exception: DDP stored the FY25 end-of-year bytes as FY25_detentionStats09252025.xlsx.
DDP_DATE_EXCEPTIONS = {"FY25_detentionStats09242025.xlsx": "2025-09-25"}
# Known bad DDP rows (never compared): 2026-01-08 holds FY2020 figures (a wrong copy of the file) and
# 2025-02-27 carries ICE's own ICE/CBP transposition; neither release is among our eleven files.
DDP_BAD = {"2026-01-08", "2025-02-27"}


def _ddp_date(file, fy, named):
    return DDP_DATE_EXCEPTIONS.get(file) or (named or f"{fy}-12-31")


@pytest.mark.shared
def test_agrees_with_deportation_data_project_parse(shared_data, real):
    d = shared_data / "ice-detention-stats" / "ddp_parsed_parquet"
    def load(n):
        return pd.read_parquet(d / f"{n}.parquet").assign(file_date=lambda x: x.file_date.astype(str),
                                                          pull_date=lambda x: x.pull_date.astype(str))

    det, bi, adp = (load("currently-detained-by-criminality"), load("book-ins-by-arresting-agency"),
                    load("adp-by-agency-criminality"))
    rem, famu = load("removals"), load("famu-removals")
    crim = {"Total": "", "Convicted Criminal": "Convicted criminal", "Pending Criminal Charges": "Pending criminal charges",
            "Other Immigration Violator": "Other immigration violator"}
    compared = 0
    for file, p in real.items():
        r = p.tables["releases"].iloc[0]
        named = ice.release_date_from_name(file)
        fd = _ddp_date(file, r.fiscal_year, named and named.isoformat())
        assert fd not in DDP_BAD
        obs = p.obs
        # DDP dates several FY21 files "2021-12-31"; its pull date (our IIDS date) tells them apart.
        def pick(t, fd=fd, r=r):
            return t[(t.file_date == fd) & ((t.pull_date == r.data_date) | (t.file_date != "2021-12-31"))]

        det_, bi_, adp_, rem_, famu_ = (pick(t) for t in (det, bi, adp, rem, famu))
        # currently detained, every agency and criminality row
        rows = det_[det_.fiscal_year == r.fiscal_year]
        assert len(rows) >= 3, file
        for x in rows.itertuples():
            key = crim[x.criminality.strip()]
            for a in ("ice", "cbp", "total"):
                sid = f"detained_{a}_by_criminality" if key else f"detained_{a}"
                assert value(obs, sid, key) == getattr(x, a), (file, x.criminality, a)
        # monthly book-ins: every month we keep matches; every month we drop is a 0 or blank in DDP's copy
        b = bi_
        for x in b.itertuples():
            a = x.arresting_agency.strip().lower()
            ours = obs[(obs.series == S + f"book_ins_{a}") & (obs.date == str(x.date))]
            if len(ours):
                assert ours.value.iloc[0] == x.n_book_ins, (file, a, x.date)
            else:
                assert pd.isna(x.n_book_ins) or x.n_book_ins == 0, (file, a, x.date)
        # monthly ADP, agency rows
        a_rows = adp_[adp_.agency.str.strip().isin(["CBP Average", "ICE Average", "Average"])]
        for x in a_rows.itertuples():
            a = {"CBP Average": "cbp", "ICE Average": "ice", "Average": "total"}[x.agency.strip()]
            ours = obs[(obs.series == S + f"adp_{a}") & (obs.date == str(x.date))]
            if len(ours):
                assert ours.value.iloc[0] == pytest.approx(x.adp, abs=0.01), (file, a, x.date)
            else:
                assert x.adp == 0, (file, a, x.date)
        # removals and FAMU / family-detention removals
        key = f"FY{r.fiscal_year}"
        assert value(obs, "removals_fytd", key) == rem_.removals.iloc[0]
        fam = famu_.famu_removals.iloc[0]
        ours = obs[obs.series.isin([S + "removals_famu_fytd", S + "removals_family_detention_fytd"])]
        assert ours.value.tolist() == [fam], file
        compared += 1
    assert compared == len(real)  # every workbook held is in DDP's parse too


@pytest.mark.shared
def test_checks_on_ddp_history_find_the_known_bad_releases(shared_data):
    """DDP's parse of all ~134 releases, turned into our rows: the transposition is found at 2025-02-27 only."""
    d = shared_data / "ice-detention-stats" / "ddp_parsed_parquet"
    det = pd.read_parquet(d / "currently-detained-by-criminality.parquet")
    det["file_date"] = det.file_date.astype(str)
    det = det[det.file_date != "2026-01-08"]  # DDP's wrong copy (FY2020 figures), documented above
    rows = []
    for x in det.itertuples():
        key = {"Total": "", "Convicted Criminal": "Convicted criminal"}.get(x.criminality.strip())
        if key is None:
            continue
        for a in ("ice", "cbp"):
            rows.append({"series": S + (f"detained_{a}_by_criminality" if key else f"detained_{a}"), "key": key,
                         "date": str(x.pull_date), "value": getattr(x, a), "release": x.file_date,
                         "file": f"ddp-{x.file_date}"})
    obs = tidy.frame(pd.DataFrame(rows).drop_duplicates(["series", "key", "release"]))
    f = ice.check(obs)
    assert set(f[f.flag == "transposed"].release) == {"2025-02-27"}
    assert "2025-02-14" in set(f[f.flag == "stale-header"].release)


@pytest.mark.shared
def test_rebuild_end_to_end(shared_data, tmp_path):
    counts = pipeline.rebuild(shared_data, tmp_path / "snap", ["ice_detention_stats"])
    assert counts["ice_detention_stats"] > 4000
    out = pd.read_csv(tmp_path / "snap" / "snapshot" / "observations" / "ice_detention_stats.csv", dtype=str,
                      keep_default_na=False)
    # one file per release: the re-posted copy of 09242025 (byte for byte the same) is not read again
    held = {hashlib.sha256(p.read_bytes()).hexdigest() for g in SRC.raw_globs for p in shared_data.glob(g)}
    assert out.file.nunique() == len(held)
    assert (tmp_path / "snap" / "snapshot" / "tables" / "ice_detention_stats.releases.csv").exists()
    assert (tmp_path / "snap" / "snapshot" / "tables" / "ice_detention_stats.facilities.csv").exists()


# ---------------------------------------------------------------- issue 13: every table dated by its own footnote

# (file, month, ICE-arrested book-ins per day the old parser gave (month cut at the IIDS date), per day with the
# month cut at the book-ins table's own footnote date, that date). The right rates match the later full months.
ISSUE_13 = [
    ("FY21-detentionstats.xlsx", "2021-09-01", 47.8, 117.4, "2021-09-11"),
    ("FY22-detentionStats.xlsx", "2022-09-01", 255.5, 202.2, "2022-09-24"),
    ("20250106074944-FY25_detentionStats01032025.xlsx", "2024-12-01", 314.9, 258.7, "2024-12-28"),
    ("FY25_detentionStats01162025.xlsx", "2025-01-01", 393.8, 214.8, "2025-01-11"),
    ("FY25_detentionStats09242025.xlsx", "2025-09-01", 1419.5, 1064.7, "2025-09-20"),
    ("FY26_detentionStats02022026.xlsx", "2026-01-01", 1340.9, 1180.0, "2026-01-25"),
    ("FY26_detentionStats_02122026.xlsx", "2026-02-01", 1427.4, 1019.6, "2026-02-07"),
]


@pytest.mark.shared
@pytest.mark.parametrize("file, month, wrong, right, through", ISSUE_13)
def test_partial_month_ends_at_the_tables_footnote_date(real, file, month, wrong, right, through):
    from analysis import view as cview
    from loaders import data as cdata
    p = real[file]
    row = p.obs[(p.obs.series == S + "book_ins_ice") & (p.obs.date == month)].iloc[0]
    assert row.end == through and "partial" in row.flag
    rel = p.tables["releases"].iloc[0]
    assert rel.book_ins_data_through == through and rel.book_ins_data_through_from == "footnote"
    # The old figure: the same count over the days to the IIDS date (the documented bug this test pins).
    old_days = (D.fromisoformat(rel.data_date) - D.fromisoformat(month)).days + 1
    assert round(row.value / old_days, 1) == wrong
    # The page's per-day transform divides by the days date..end covers: it now gives the right rate.
    df = pd.DataFrame({"date": pd.to_datetime([row.date]), "end": pd.to_datetime([row.end]), "value": [row.value]})
    assert cdata.days_covered(df)[0] == (D.fromisoformat(through) - D.fromisoformat(month)).days + 1
    assert round(float(cview.per_day(df)["value"].iloc[0]), 1) == right


@pytest.mark.shared
def test_each_table_carries_its_own_footnote_date(real):
    """Headcount at the docket 'as of' date, removals at theirs, facilities at the IIDS date, in every layout."""
    feb = real["FY26_detentionStats_02122026.xlsx"]
    assert feb.obs[feb.obs.series == S + "detained_total"].date.tolist() == ["2026-02-07"]  # snapshot says 02-05
    r = feb.tables["releases"].iloc[0]
    assert (r.data_date, r.docket_as_of, r.removals_data_through) == ("2026-02-05", "2026-02-07", "2026-02-07")
    # FY2019-FY2026: every layout has the four footnotes; the headcount date is never the IIDS date by default.
    expect = {  # file: (detention / book-ins through, removals through, docket as of, IIDS)
        "FY19-detentionstats.xlsx": ("2019-09-30", "2019-09-30", "2019-10-04", "2019-10-07"),
        "FY20-detentionstats.xlsx": ("2020-09-30", "2020-09-30", "2020-10-02", "2020-09-30"),
        "FY21-detentionstats.xlsx": ("2021-09-11", "2021-09-11", "2021-09-11", "2021-09-27"),
        "FY22-detentionStats.xlsx": ("2022-09-24", "2022-09-24", "2022-09-25", "2022-09-19"),
        "FY23_detentionStats.xlsx": ("2023-09-30", "2023-09-30", "2023-09-30", "2023-09-30"),
        "FY24_detentionStats.xlsx": ("2024-09-30", "2024-09-30", "2024-10-03", "2024-10-07"),
        "FY26_detentionStats11202025.xlsx": ("2025-11-15", "2025-11-15", "2025-11-16", "2025-11-10"),
        "FY26_detentionStats_04092026.xlsx": ("2026-04-04", "2026-04-04", "2026-04-04", "2026-04-02"),
    }
    for file, (det, rem, dock, iids) in expect.items():
        r = real[file].tables["releases"].iloc[0]
        got = (r.detention_data_through, r.book_ins_data_through, r.removals_data_through, r.docket_as_of, r.data_date)
        assert got == (det, det, rem, dock, iids), file
        assert {r.detention_data_through_from, r.book_ins_data_through_from, r.removals_data_through_from,
                r.docket_as_of_from} == {"footnote"}, file
        o = real[file].obs
        assert o[o.series == S + "detained_ice"].date.tolist() == [dock], file
        assert set(o[o.series == S + "removals_fytd"].date) == {rem}, file
        assert set(o[o.series == S + "adp_total_fytd"].date) == {det}, file
        assert set(o[o.series == S + "facility_adp_fytd"].date) == {iids}, file


# ---------------------------------------------------------------- ICE's FY-overall ADP recomputed per release

def test_fy_overall_adp_follows_from_the_months_and_their_days(feb_release):
    """ICE's FY Overall = monthly ADPs weighted by days, the last month to the footnote date: a consistent
    release raises nothing; a release whose partial month is cut elsewhere is flagged with the reason."""
    assert findings([feb_release]).empty
    # No footnotes: the parser can only cut February at the IIDS date (02-18), while ICE's FY Overall was
    # computed to 02-22. The check sees the arithmetic fail and says which day count would fit.
    import io

    from openpyxl import load_workbook
    wb = load_workbook(io.BytesIO(build(feb_release)))
    del wb["Footnotes"]
    buf = io.BytesIO()
    wb.save(buf)
    obs = pipeline.parse_bytes(SRC, buf.getvalue(), feb_release.name)
    feb = obs[(obs.series == S + "book_ins_ice") & (obs.date == "2025-02-01")].iloc[0]
    assert feb.end == "2025-02-18"  # the IIDS date, for want of a footnote
    f = ice.check(obs)
    m = f[f.flag == "fy-adp-mismatch"]
    assert set(m.series) == {S + f"adp_{a}{s}" for a in ("ice", "cbp", "total") for s in ("", "_fytd")}
    msg = m[m.series == S + "adp_total_fytd"].message.iloc[0]
    assert "2025-02-01 to 2025-02-18" in msg and "ran 22 days, to 2025-02-22" in msg


def test_fy_overall_adp_that_ice_misprinted_is_flagged(feb_release):
    f = findings([replace(feb_release, adp_fytd=41000.0)])
    m = f[(f.flag == "fy-adp-mismatch") & (f.series == S + "adp_total_fytd")]
    assert len(m) == 1 and "printed 41,000.00" in m.message.iloc[0]


# ---------------------------------------------------------------- sheets chosen by the fiscal year they belong to

def _fy26() -> Release:
    return Release("FY26_detentionStats_02122026.xlsx", 2026, D(2026, 2, 5), D(2026, 2, 7), ice=55000, cbp=13000,
                   book_ins_ice=[36646, 33000, 35000, 34000, 9000], book_ins_cbp=[4995, 4000, 4200, 3600, 800],
                   adp_ice=[52000.0, 53000.0, 54000.0, 55000.0, 56000.0], adp_cbp=[12600.0, 12100.0, 11000.0,
                                                                                  10500.0, 10000.0], removals=150000)


def test_a_leftover_sheet_of_another_fiscal_year_is_not_read(feb_release):
    from tests.ice_workbook_factory import with_sheet_from
    fy26 = _fy26()
    clean = parse(fy26)
    # ICE's FY2025 Detention sheet left in the FY2026 workbook, placed first (a first-match parser reads it)
    b = with_sheet_from(build(fy26), build(feb_release), "Detention FY25", first=True)
    got = pipeline.parse_file(SRC, b, fy26.name)
    pd.testing.assert_frame_equal(got.obs, clean)
    assert got.tables["releases"].detention_sheet.iloc[0] == "Detention FY26"
    assert value(got.obs, "detained_ice") == 55000


def test_a_workbook_holding_only_another_years_sheets_is_read_as_that_years_release(feb_release):
    """Sheets are taken by what they hold (issue 39: ICE's FY24_detentionStats11152024 holds only FY2025 sheets):
    a FY26 name over a FY2025 workbook is a FY2025 release, with a year-from-contents finding naming the sheets.
    It used to be refused whole."""
    from tests.ice_workbook_factory import rename_sheet
    fy26 = _fy26()
    clean = parse(feb_release)
    b = build(replace(feb_release, name=fy26.name))
    got = pipeline.parse_file(SRC, b, fy26.name)
    rel = got.tables["releases"].iloc[0]
    assert (rel.fiscal_year, rel.detention_sheet) == (2025, "Detention FY25")
    f = got.tables["findings"]
    assert f.flag.tolist() == ["year-from-contents"]
    assert f.message.iloc[0] == ("the file name says FY2026, but its Detention and Facilities sheets hold FY2025 "
                                 "('Detention FY25' FY2025, 'Facilities FY25' FY2025): the workbook is read as a "
                                 "FY2025 release")
    # the same figures as the release under its own name; only the release date (the name's) differs
    cols = ["series", "key", "date", "end", "value"]
    pd.testing.assert_frame_equal(got.obs[cols].reset_index(drop=True), clean[cols].reset_index(drop=True))
    # sheets without a year in their names: the year their titles name
    b = rename_sheet(rename_sheet(build(feb_release), "Detention FY25", "Detention"), "Facilities FY25", "Facilities")
    got = pipeline.parse_file(SRC, b, fy26.name)
    assert got.tables["releases"].fiscal_year.iloc[0] == 2025
    assert "'Detention' FY2025, 'Facilities' FY2025" in got.tables["findings"].message.iloc[0]


def test_a_stale_detention_sheet_of_another_year_costs_its_tables_not_the_release(feb_release):
    """ICE's FY21_detentionStats060921 carries FY2020's 'Detention FY20 YTD' beside FY2021's Facilities and ATD
    sheets: the detention tables are left out (a table-unread finding each, naming the sheet), the facility list
    and the other sheets' tables are kept. It used to be refused whole."""
    from tests.ice_workbook_factory import with_sheet_from
    fy26 = _fy26()
    b = with_sheet_from(build(fy26), build(feb_release), "Detention FY25")
    import io

    from openpyxl import load_workbook
    wb = load_workbook(io.BytesIO(b))
    del wb["Detention FY26"]
    buf = io.BytesIO()
    wb.save(buf)
    got = pipeline.parse_file(SRC, buf.getvalue(), fy26.name)
    assert got.tables["releases"].fiscal_year.iloc[0] == 2026
    unread = got.tables["findings"].query("flag == 'table-unread'").message
    for t in ("detained", "book_ins", "adp", "removals"):
        assert unread.str.startswith(f"table {t!r} (no Detention sheet of FY2026) not read: the workbook's "
                                     "Detention sheet(s) belong to another year: 'Detention FY25' (FY2025)").any()
    assert not got.obs.series.str.startswith(S + "detained_").any()
    assert (got.obs.series == S + "facility_adp_fytd").sum() == 4
    assert got.tables["releases"].detention_sheet.iloc[0] == ""


def test_two_sheets_of_the_same_year_cannot_be_told_apart():
    """Two Detention sheets naming the year, neither told apart by its titles: their tables are left out with a
    finding naming both sheets; the rest of the release is kept."""
    from tests.ice_workbook_factory import with_sheet_from
    fy26 = _fy26()
    b = with_sheet_from(build(fy26), build(replace(fy26, ice=1)), "Detention FY26", as_name="Detention FY26 (2)")
    got = pipeline.parse_file(SRC, b, fy26.name)
    msg = got.tables["findings"].query("flag == 'table-unread'").message.iloc[0]
    assert "2 Detention sheets name fiscal year 2026" in msg
    assert "'Detention FY26'" in msg and "'Detention FY26 (2)'" in msg
    assert (got.obs.series == S + "facility_adp_fytd").any()


def _fy20() -> Release:
    return Release("FY20-detentionstats.xlsx", 2020, D(2020, 9, 30), D(2020, 9, 26), ice=5000, cbp=15000, famu=None)


def test_a_hidden_leftover_footnotes_sheet_of_another_year_is_not_read():
    from tests.ice_workbook_factory import with_sheet_from
    fy26 = _fy26()
    clean = pipeline.parse_file(SRC, build(fy26), fy26.name)
    # ICE's FY2026 file: a hidden "Footnotes_DEL" holding FY2020's text, placed before the visible "Footnotes"
    b = with_sheet_from(build(fy26), build(_fy20()), "Footnotes", as_name="Footnotes_DEL", first=True, hidden=True)
    got = pipeline.parse_file(SRC, b, fy26.name)
    pd.testing.assert_frame_equal(got.obs, clean.obs)
    assert got.tables["releases"].book_ins_data_through.iloc[0] == "2026-02-07"
    # the same leftover visible but named as one ("_DEL"), or hidden under a plain name: not read either
    for name, hide in (("Footnotes_DEL", False), ("Footnotes old", False), ("Footnotes 2", True)):
        b = with_sheet_from(build(fy26), build(_fy20()), "Footnotes", as_name=name, first=True, hidden=hide)
        pd.testing.assert_frame_equal(pipeline.parse_file(SRC, b, fy26.name).obs, clean.obs)


def test_two_footnotes_sheets_are_told_apart_by_the_year_their_text_names():
    from tests.ice_workbook_factory import with_sheet_from
    fy26 = _fy26()
    clean = pipeline.parse_file(SRC, build(fy26), fy26.name)
    # both visible, neither name carries a year: FY2020's text is not FY2026's
    b = with_sheet_from(build(fy26), build(_fy20()), "Footnotes", as_name="Footnotes (2)", first=True)
    pd.testing.assert_frame_equal(pipeline.parse_file(SRC, b, fy26.name).obs, clean.obs)
    # a real tie (both name FY2026) is refused, naming both candidates and what their text says
    b = with_sheet_from(build(fy26), build(replace(fy26, ice=1)), "Footnotes", as_name="Footnotes (2)", first=True)
    with pytest.raises(ParseError, match=r"2 Footnotes sheets and none names fiscal year 2026, and 2 of them hold "
                                         r"fiscal year 2026 by its titles and footnotes; cannot tell which holds its "
                                         r"figures: 'Footnotes \(2\)' \(its titles name FY2026\), 'Footnotes' "
                                         r"\(its titles name FY2026\)"):
        ice.parse(b, fy26.name)


# ---------------------------------------------------------------- stale and repeated releases

def test_stale_and_repeated_releases_are_flagged_in_plain_words(feb_release):
    """A file whose tables end weeks before its own date, repeating an earlier release's figures (the shape of
    FY21-detentionstats.xlsx: IIDS line 2021-09-27, tables to 2021-09-11, figures of the 2021-09-16 release)."""
    sep16 = Release("FY21_detentionStats09162021.xlsx", 2021, D(2021, 9, 6), D(2021, 9, 11), ice=4623, cbp=16943,
                    removals=55590, famu=None, book_ins_ice=[2000] * 12, book_ins_cbp=[9000] * 12,
                    adp_ice=[6000.0] * 12, adp_cbp=[15000.0] * 12)
    eoy = replace(sep16, name="FY21-detentionstats.xlsx", iids=D(2021, 9, 27))
    f = findings([sep16, eoy])
    assert set(zip(f.release, f.flag)) == {("2021-09-27", "stale-release"), ("2021-09-27", "repeated")}
    stale = f[f.flag == "stale-release"].message.iloc[0]
    assert "run only to 2021-09-11, 16 days earlier" in stale and "older than its date says" in stale
    rep = f[f.flag == "repeated"].message.iloc[0]
    assert "ICE 4,623, CBP 16,943" in rep and "FY2021 removals (55,590)" in rep and "2021-09-16" in rep
    # the pipeline marks every row of that release, and writes the finding with its reason
    obs = pd.concat([parse(sep16), parse(eoy)], ignore_index=True)
    marked, flags = pipeline.apply_checks(SRC, obs)
    eoy_rows = marked[marked.release == "2021-09-27"]
    assert eoy_rows.flag.str.contains("stale-release").all() and eoy_rows.flag.str.contains("repeated").all()
    assert not marked[marked.release == "2021-09-16"].flag.str.contains("repeated|stale-release").any()
    assert set(flags.flag) == {"stale-release", "repeated"} and flags.message.str.len().min() > 60
    # a regular next release (new figures, a few days after its data) raises neither
    oct = replace(sep16, name="FY21_detentionStats09302021.xlsx", iids=D(2021, 9, 20), through=D(2021, 9, 25),
                  ice=4700, removals=57000)
    assert findings([sep16, oct]).empty


@pytest.mark.shared
def test_fy21_end_of_year_file_repeats_the_2021_09_16_release(shared_data, real):
    """The real FY21 file against DDP's parse of the 2021-09-16 release (a file we do not hold): both checks fire."""
    p = real["FY21-detentionstats.xlsx"]
    d = pd.read_parquet(shared_data / "ice-detention-stats" / "ddp_parsed_parquet" / "currently-detained-by-criminality.parquet")
    rem = pd.read_parquet(shared_data / "ice-detention-stats" / "ddp_parsed_parquet" / "removals.parquet")
    x = d[(d.file_date.astype(str) == "2021-09-16") & (d.criminality.str.strip() == "Total")].iloc[0]
    r = rem[rem.file_date.astype(str) == "2021-09-16"].iloc[0]
    earlier = tidy.frame([{"series": S + sid, "key": key, "date": "2021-09-11", "end": "2021-09-11", "value": v,
                           "release": "2021-09-16", "file": "FY21_detentionStats09162021.xlsx (DDP's parse)"}
                          for sid, key, v in (("detained_ice", "", x.ice), ("detained_cbp", "", x.cbp),
                                              ("detained_total", "", x.total), ("removals_fytd", "FY2021", r.removals))])
    f = ice.check(pd.concat([earlier, p.obs], ignore_index=True))
    mine = f[f.file == "FY21-detentionstats.xlsx"]
    assert set(mine.flag) == {"stale-release", "repeated", "stale-header"}
    assert "2021-09-16" in mine[mine.flag == "repeated"].message.iloc[0]


def test_release_flags_reach_the_page_and_the_exports(tmp_path):
    """Rebuild a snapshot from a stale, repeating release and its original: the finding and its reason are in
    quality_flags.csv (listed on the page and zipped with the full export) and inside the chart's own notes."""
    from analysis.view import View
    from loaders import data as cdata
    from views import compose
    sep16 = Release("FY21_detentionStats09162021.xlsx", 2021, D(2021, 9, 6), D(2021, 9, 11), ice=4623, cbp=16943,
                    removals=55590, famu=None, book_ins_ice=[2000] * 12, book_ins_cbp=[9000] * 12,
                    adp_ice=[6000.0] * 12, adp_cbp=[15000.0] * 12)
    eoy = replace(sep16, name="FY21-detentionstats.xlsx", iids=D(2021, 9, 27))
    raw = tmp_path / "raw" / "ice_detention_stats"
    raw.mkdir(parents=True)
    for r in (sep16, eoy):
        (raw / r.name).write_bytes(build(r))
    from tests.conftest import record_downloads
    record_downloads(tmp_path / "raw")  # test files stand in for downloads: they carry a download record
    pipeline.rebuild(tmp_path / "raw", tmp_path / "snap", ["ice_detention_stats"])
    snap = cdata.load_snapshot(tmp_path / "snap")
    assert {"stale-release", "repeated"} <= set(snap.flags.flag)
    assert snap.flags[snap.flags.flag == "repeated"].message.str.contains("repeats that release's figures").all()
    out = compose.render(snap, View(series=[S + "book_ins_ice"], preset="all"))
    text = " ".join(a.text for a in out.figure.layout.annotations if a.text)
    assert "stale-release (release 2021-09-27, FY21-detentionstats.xlsx)" in text
    assert "repeated (release 2021-09-27" in text and "older than its date says" in text


def test_parse_reads_as_named_steps_each_short():
    """``parse`` is a list of named steps (issue 28: it was 155 lines with a complexity of 60); each step fits
    on a screen."""
    import inspect
    steps = [ice.parse, ice._fiscal_year, ice._sheets, ice._read_facilities, ice._dating, ice._headline_rows,
             ice._monthly_rows, ice._month_row, ice._removals_rows, ice._release_of, ice._release_row, ice._columns]
    sizes = {f.__name__: len(inspect.getsource(f).splitlines()) for f in steps}
    assert max(sizes.values()) <= 40, sizes


def test_the_checks_per_file_and_across_releases_are_the_whole_check():
    """What a rebuild from per-file parts runs (loaders/parts.py): ``check_across`` finds every kind of finding
    that compares releases, and ``check_file`` over several files gives what it gives over each file alone; on
    the bundled snapshot's releases. (That the two halves give the whole check's findings is checked by the
    rebuild of the bundled snapshot, byte for byte, in tests/test_pipeline.py.)"""
    obs = pipeline.load_source_observations(pipeline.DATA, SRC.id)
    obs = obs.assign(value=pd.to_numeric(obs["value"]))

    def rows(f: pd.DataFrame) -> set[tuple]:
        return set(f.astype(str).itertuples(index=False, name=None))
    across = SRC.check_across(obs)
    assert {"decreased", "repeated", "transposed", "stale-header"} <= set(across["flag"])
    # it reads no flag (a rebuild hands it rows already marked by the per-file checks)
    assert rows(SRC.check_across(obs.assign(flag="stale-header;repeated"))) == rows(across)
    some = sorted(obs["file"].unique())[::12]  # a dozen files, one by one
    by_file = set().union(*(rows(SRC.check_file(obs[obs["file"] == f])) for f in some))
    assert by_file and by_file == {r for r in rows(SRC.check_file(obs[obs["file"].isin(some)]))}
