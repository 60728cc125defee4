"""Deaths in ICE custody (loaders/deaths_in_custody.py): the counts, the record table, the checks, the rate, and
a cross-check of the yearly counts against what ICE and the press reported."""
from __future__ import annotations

import csv
import datetime as dt
import io

import pandas as pd
import pytest

from loaders import deaths_in_custody as dic
from loaders import pipeline, registry
from loaders.errors import ParseError

SRC = dic.SOURCE
NAME = "all_274_deaths_detailed.csv"
HEADER = list(dic.COLUMNS)
FOIA = "https://www.ice.gov/doclib/foia/reports/detaineedeaths-2003-2017.pdf"
PRESS = "https://www.theguardian.com/us-news/2026/jan/28/deaths-ice-2026-"


def _row(name, date, facility, period, link=FOIA, cause="Cardiac arrest", ftype="IGSA", age="40.0",
         location="Somewhere, TX"):
    return [name, "Male", age, "MEXICO", date, cause, facility, location, ftype, link, period]


def sample_rows() -> list[list[str]]:
    """A few rows in the real layout, with the real quirks: no-break and doubled spaces, a float age, a blank
    age, an FY2018-2025 row dated in FY2026 that links the press, an enforcement-action death."""
    return [
        _row("A ONE", "2003-10-07", "Atwater US Penitentiary CA", "FY2003-2017", ftype="BOP"),
        _row("B TWO", "2003-12-20", "Columbia\xa0Care\xa0 Center SC", "FY2003-2017", ftype="HOSPITAL"),
        _row("C THREE", "2017-05-31", "Stewart Detention Center (GA)", "FY2003-2017", ftype="DIGSA"),
        _row("D FOUR", "2017-11-02", "Stewart Detention Center (GA)", "FY2018-2025",
             link="https://www.ice.gov/doclib/foia/reports/ddrFour.pdf", ftype="DIGSA"),
        _row("E FIVE", "2025-12-14", "Adams County Correctional Center", "FY2018-2025",
             link="https://www.theguardian.com/us-news/ng-interactive/2026/jan/04/ice-2025-deaths-timeline",
             ftype="Not stated", age=""),
        _row("F SIX", "2026-01-05", "HCA Houston Healthcare (Conroe)", "Public reporting (CY2026)", link=PRESS,
             ftype="Not stated"),
        _row("J ENF", "2026-01-07", "ICE enforcement action (Minneapolis)", "Public reporting (CY2026)",
             link=PRESS, cause="Shot by a federal agent (ICE-related death; not in custody).", ftype="Not stated"),
        _row("G SEVEN", "2026-01-14", "Camp East Montana", "Public reporting (CY2026)", link=PRESS,
             ftype="Not stated"),
    ]


def csv_bytes(rows, header=HEADER) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue().encode()


@pytest.fixture
def parsed():
    return dic.parse(csv_bytes(sample_rows()), NAME)


def _series(obs, sid, key=""):
    return obs[(obs.series == f"{dic.ID}.{sid}") & (obs.key == key)].set_index("date")


def test_registered_and_declared():
    assert registry.get(dic.ID) is SRC
    for s in SRC.series:
        assert s.unit and s.definition and s.measure in ("flow", "level")
    rate = next(s for s in SRC.series if s.id in SRC.derived)
    # the definition names both inputs and the years
    assert "ice_detention_stats.adp_total_fytd" in rate.definition and "2019 to 2025" in rate.definition
    assert "FY2026" in rate.definition and rate.measure == "level"


def test_enforcement_deaths_are_never_in_the_custody_count(parsed):
    obs = parsed.obs
    jan = _series(obs, "deaths_monthly").loc["2026-01-01"]
    assert jan["value"] == 2  # F SIX and G SEVEN; the shooting is not a death in custody
    enf = _series(obs, "enforcement_deaths_monthly")
    assert enf.loc["2026-01-01", "value"] == 1
    fy26 = _series(obs, "deaths_fy").loc["2025-10-01"]
    assert fy26["value"] == 3 and "partial" in fy26["flag"] and fy26["end"] == "2026-01-14"
    assert "ICE enforcement action (Minneapolis)" not in set(_series(obs, "deaths_fy").index)
    assert not (obs.key == "ICE enforcement action (Minneapolis)").any()


def test_months_are_zero_where_covered_and_absent_where_no_source_covers(parsed):
    """The FOIA list covers to 5 June 2017; the list's ICE death reports start with their first row (here
    2 November 2017), not on 1 October 2017 (issue 37: the real list's start on 10 April 2018 left FY2018 at 6
    deaths where ICE gave 9, with nothing said). Between them nothing is counted; a month or fiscal year a
    coverage starts or stops inside is marked ``partial-coverage``."""
    m = _series(parsed.obs, "deaths_monthly")
    assert m.loc["2004-02-01", "value"] == 0  # a covered month without a death is a real zero
    assert m.loc["2017-06-01", "end"] == "2017-06-05" and m.loc["2017-06-01", "flag"] == "partial-coverage"
    # between the FOIA list and the first report: no month, not even a zero
    assert not {"2017-07-01", "2017-08-01", "2017-09-01", "2017-10-01"} & set(m.index)
    assert m.loc["2017-11-01", "flag"] == "partial-coverage" and m.loc["2017-11-01", "end"] == "2017-11-30"
    assert m.loc["2017-12-01", "flag"] == ""
    fy = _series(parsed.obs, "deaths_fy")
    assert fy.loc["2016-10-01", "end"] == "2017-06-05" and fy.loc["2016-10-01", "flag"] == "partial-coverage"
    assert fy.loc["2017-10-01", "value"] == 1 and fy.loc["2017-10-01", "flag"] == "partial-coverage"
    assert fy.loc["2017-10-01", "end"] == "2018-09-30"  # the fiscal year keeps its dates; the flag says it
    assert fy.loc["2018-10-01", "flag"] == ""
    by_type = parsed.obs[(parsed.obs.series == f"{dic.ID}.deaths_fy_by_facility_type")
                         & (parsed.obs.date == "2017-10-01")]
    assert set(by_type["flag"]) == {"partial-coverage"}  # every series built on the list marks it
    # the monthly counts add up to the yearly ones, and both to the custody rows
    assert m["value"].sum() == fy["value"].sum() == 7


def test_breakdowns_and_facility_names_cleaned(parsed):
    fac = parsed.obs[parsed.obs.series == f"{dic.ID}.deaths_fy_by_facility"]
    assert "Columbia Care Center SC" in set(fac.key)  # no-break and doubled spaces made one space
    assert fac[fac.key == "Stewart Detention Center (GA)"]["value"].tolist() == [1.0, 1.0]
    typ = parsed.obs[parsed.obs.series == f"{dic.ID}.deaths_fy_by_facility_type"]
    assert typ.groupby("date")["value"].sum().to_dict() == _series(parsed.obs, "deaths_fy")["value"].loc[
        lambda v: v > 0].to_dict()


def test_record_table_holds_the_text_and_names_stay_out_of_the_series(parsed):
    recs = parsed.tables["records"]
    assert len(recs) == 8 and set(dic.RECORD_COLUMNS) == set(recs.columns)
    five = recs[recs["name"] == "E FIVE"].iloc[0]
    assert five["age"] == "" and five["custody"] == "in custody" and five["fiscal_year"] == "2026"
    assert recs[recs["name"] == "A ONE"].iloc[0]["age"] == "40"
    assert recs[recs["facility"].str.startswith("ICE enforcement")].iloc[0]["custody"] == "enforcement action"
    names = set(recs["name"])
    assert not names & set(parsed.obs["key"])


def test_row_checks_name_the_row(parsed):
    found = dic.record_findings(parsed.tables["records"], today=dt.date(2026, 2, 1))
    by = {(f.flag, f.message.split(" (")[0]) for f in found.itertuples()}
    # row 6 = E FIVE: labelled as an ICE report but dated in FY2026 and linking the press
    assert ("not-ice-link", f"{NAME} row 6") in by and ("outside-period", f"{NAME} row 6") in by
    assert len(found) == 2  # the press rows say they are press reporting: no finding
    assert all("E FIVE" not in m for m in found.message)  # rows are named by line, date and facility


def test_future_date_and_duplicate_person():
    rows = sample_rows() + [sample_rows()[3], _row("H EIGHT", "2026-01-20", "Camp East Montana",
                                                   "Public reporting (CY2026)", link=PRESS)]
    p = dic.parse(csv_bytes(rows), NAME)
    found = dic.record_findings(p.tables["records"], today=dt.date(2026, 1, 15))
    flags = found.set_index("flag")["message"]
    assert "row 11 (2026-01-20" in flags["future-date"]
    assert "row 10 (2017-11-02" in flags["duplicate-record"] and "same person and date as row 5" in flags[
        "duplicate-record"]


def test_a_link_elsewhere_on_a_row_that_claims_ice_is_a_finding():
    rows = [_row("A", "2019-03-01", "X", "FY2018-2025", link="http://www.ice.gov/doclib/x.pdf"),
            _row("B", "2019-04-01", "Y", "FY2018-2025", link="https://ice.gov.example.com/x.pdf")]
    found = dic.record_findings(dic.parse(csv_bytes(rows), NAME).tables["records"], today=dt.date(2026, 1, 1))
    assert found["flag"].tolist() == ["not-ice-link", "not-ice-link"]


def test_findings_mark_the_month_they_are_about(parsed):
    obs, flags = pipeline.apply_checks(SRC, parsed.obs, tables=parsed.tables)
    assert set(flags["flag"]) >= {"not-ice-link", "outside-period"}
    dec = _series(obs, "deaths_monthly").loc["2025-12-01", "flag"]
    assert "not-ice-link" in dec and "outside-period" in dec


@pytest.mark.parametrize("mutate, what", [
    (lambda rows, h: (rows, h[:-1]), "missing column(s) ['Period']"),
    (lambda rows, h: ([r[:4] + ["2025-13-01"] + r[5:] for r in rows], h), "row 2 field 'Date_of_Death'"),
    (lambda rows, h: ([r[:10] + ["FY1999"] for r in rows], h), "row 2 field 'Period'"),
    (lambda rows, h: ([r[:2] + ["forty"] + r[3:] for r in rows], h), "row 2 field 'Age'"),
    (lambda rows, h: ([r[:6] + [""] + r[7:] for r in rows], h), "row 2 field 'Facility_Name'"),
])
def test_bad_input_named(mutate, what):
    rows, header = mutate(sample_rows(), HEADER)
    with pytest.raises(ParseError) as e:
        dic.parse(csv_bytes(rows, header), NAME)
    assert what in str(e.value) and NAME in str(e.value) and dic.ID in str(e.value)


# ---------------------------------------------------------------- the rate and the facility check

class _Other:
    def __init__(self, obs=None, tables=None):
        self._obs, self._tables = obs or {}, tables or {}

    def obs(self, sid):
        return self._obs.get(sid)

    def table(self, sid, name):
        return self._tables.get((sid, name))


def _adp(rows):
    from loaders import tidy
    return tidy.frame([{"series": dic.ADP_SERIES, "key": k, "date": d, "end": d, "value": v, "release": r}
                       for k, d, v, r in rows])


def test_rate_only_for_whole_years_the_workbooks_cover():
    rows = [_row(str(i), f"2019-0{1 + i % 8}-10", "X", "FY2018-2025",
                 link="https://www.ice.gov/doclib/foia/reports/x.pdf") for i in range(8)]
    # The reports' first row opens FY2019, so the list covers the whole year (a later first row would make
    # FY2019 partial-coverage, and a partial year gets no rate).
    rows += [_row("first", "2018-10-01", "X", "FY2018-2025", link="https://www.ice.gov/doclib/foia/reports/f.pdf"),
             _row("late", "2025-11-02", "X", "FY2018-2025", link="https://www.ice.gov/doclib/foia/reports/y.pdf"),
             _row("p", "2026-01-02", "X", "Public reporting (CY2026)", link=PRESS)]
    p = dic.parse(csv_bytes(rows), NAME)
    adp = _adp([("FY2019", "2019-06-30", 40000.0, "2019-07-05"), ("FY2019", "2019-09-30", 50000.0, "2019-10-07"),
                ("FY2020", "2020-03-31", 30000.0, "2020-04-02"),  # ends in March: not the year's average
                ("FY2026", "2026-01-25", 67000.0, "2026-02-02")])
    rows_out, found = dic.finish(p.obs, p.tables, _Other({"ice_detention_stats": adp}))
    got = rows_out.set_index("date")["value"].to_dict()
    assert got == {"2018-10-01": pytest.approx(9 / 50000 * 100_000)}  # FY2020 too short, FY2026 partial
    assert found.empty or set(found.flag) == {"unknown-facility"}


def test_no_rate_and_no_facility_finding_without_the_other_sources(parsed):
    rows_out, found = dic.finish(parsed.obs, parsed.tables, _Other())
    assert rows_out.empty and found.empty


def test_unknown_facility_names_the_row_and_the_lists(parsed):
    lists = {("facility_registry", "facilities"): pd.DataFrame({"name": ["STEWART DETENTION CENTER",
                                                                          "ERO EL PASO CAMP EAST MONTANA"]}),
             ("ice_detention_stats", "facilities"): pd.DataFrame({"name": ["ADAMS COUNTY CORR CTR"]})}
    _, found = dic.finish(parsed.obs, parsed.tables, _Other(tables=lists))
    unknown = {m.split(": ")[0] for m in found["message"]}
    assert f"{NAME} row 4 (2017-05-31, Stewart Detention Center (GA))" not in unknown
    assert f"{NAME} row 6 (2025-12-14, Adams County Correctional Center)" not in unknown  # CORR CTR written out
    assert f"{NAME} row 9 (2026-01-14, Camp East Montana)" not in unknown  # inside a longer listed name
    assert f"{NAME} row 2 (2003-10-07, Atwater US Penitentiary CA)" in unknown
    assert not any("enforcement" in u for u in unknown)  # not a custody death: no facility to look up
    assert all("facility_registry.facilities, ice_detention_stats.facilities" in m for m in found["message"])
    # the finding points at that facility's fiscal-year row, never at the month's count of deaths (a name no
    # list knows says nothing about how many died, and a chart would ring the count as doubtful)
    atwater = found[found["message"].str.contains("row 2 \\(2003-10-07")].iloc[0]
    assert (atwater.series, atwater.key, atwater.date) == \
        (f"{dic.ID}.deaths_fy_by_facility", "Atwater US Penitentiary CA", "2003-10-01")
    assert not found["series"].eq(f"{dic.ID}.deaths_monthly").any()


def test_finish_runs_when_the_snapshot_is_written_and_again_when_only_an_input_changes(tmp_path, monkeypatch):
    """A rebuild of both sources gives the rate; an update that replaces only ICE's rows recomputes it from the
    new population, though the deaths source is carried over."""
    from loaders import tidy
    # FY2018 (two deaths) is whole: the reports start on its first day and the list runs into FY2019
    first = _row("Y", "2017-10-01", "X", "FY2018-2025", link="https://www.ice.gov/doclib/foia/reports/y.pdf")
    later = _row("Z", "2018-10-15", "X", "FY2018-2025", link="https://www.ice.gov/doclib/foia/reports/z.pdf")
    p = dic.parse(csv_bytes(sample_rows()[:4] + [first, later]), NAME)
    obs, flags = pipeline.apply_checks(SRC, p.obs, tables=p.tables)
    ice = registry.get("ice_detention_stats")
    adp = tidy.validate(_adp([("FY2018", "2018-09-30", 40000.0, "2018-10-05")]), source=ice.id,
                        series_ids={s.id for s in ice.series})
    only = {dic.ID: SRC, ice.id: ice}
    monkeypatch.setattr(registry, "SOURCES", only)
    pipeline.write_snapshot(tmp_path, {dic.ID: (obs, flags, [], p.tables), ice.id: (adp, flags.iloc[:0], [], {})})
    rate = pipeline.load_source_observations(tmp_path, dic.ID)
    rate = rate[rate.series == f"{dic.ID}.deaths_per_100k_fy"]
    assert rate["value"].tolist() == [pytest.approx(2 / 40000 * 100_000)]
    adp2 = adp.assign(value=20000.0)
    pipeline.write_snapshot(tmp_path, {ice.id: (adp2, flags.iloc[:0], [], {})})
    rate = pipeline.load_source_observations(tmp_path, dic.ID)
    rate = rate[rate.series == f"{dic.ID}.deaths_per_100k_fy"]
    assert rate["value"].tolist() == [pytest.approx(2 / 20000 * 100_000)]


# ---------------------------------------------------------------- the real file

@pytest.fixture
def real(shared_data):
    path = shared_data / "deaths-in-custody" / NAME
    return dic.parse(path.read_bytes(), NAME)


@pytest.mark.shared
def test_real_file_whole(real):
    recs = real.tables["records"]
    assert len(recs) == 274
    assert (recs["custody"] == "enforcement action").sum() == 3  # two in Minneapolis, one in Norfolk
    fy = _series(real.obs, "deaths_fy")["value"]
    assert fy.sum() + 3 == 274
    found = dic.record_findings(recs, today=dt.date(2026, 12, 1))
    # the FY2018-2025 rows that link the Guardian's 2025 timeline, and the ones dated in FY2026
    assert (found.flag == "not-ice-link").sum() == 17 and (found.flag == "outside-period").sum() == 12
    assert not {"future-date", "duplicate-record"} & set(found.flag)


def _calendar(recs: pd.DataFrame, year: int, month: int | None = None) -> int:
    c = recs[recs["custody"] == "in custody"]
    d = pd.to_datetime(c["date"])
    m = d.dt.year == year
    if month:
        m &= d.dt.month == month
    return int(m.sum())


# (what, reported value, how to count it in the list, the list's value, the reason for any difference, source)
REPORTED = [
    ("FY2004", 28, "fy", 2004, "", "CNN via Border Report, 2020: 'You have to go back to FY 2004 to find a higher "
     "death tally, with 28' (https://digital-stage.wfla.com/news/report-deaths-in-ice-facilities-more-than-doubled"
     "-in-fiscal-year-2020/amp)"),
    ("FY2019", 8, "fy", 2019, "", "New York Daily News, 2020-09-30, ICE confirming: 'up from eight deaths in the "
     "2019 fiscal year' (https://www.nydailynews.com/news/national/ny-death-toll-in-ice-custody-reaches-highest-"
     "level-in-fifteen-years-20200930-cpfg33iz7zeslfrgypeamld5ri-story.html)"),
    ("FY2020", 21, "fy", 2020, "", "same article: 'At least 21 detained immigrants died in ICE custody in the "
     "latest fiscal year'; Detention Watch Network, 2020-09-30, the same 21"),
    ("FY2018", 9, "fy", 2018, "the list holds 6 deaths for FY2018 against the 9 ICE gave the press: the "
     "compilation lacks 3 of ICE's FY2018 death reports (which ones cannot be told from the files held here); the "
     "FY2018-2020 total below is short by the same 3", "same article: 'and nine in 2018'"),
    ("FY2018-2020", 38, "fys", (2018, 2019, 2020), "3 short, the FY2018 reports above",
     "Buchanan et al., AIMS Public Health 2024 (doi:10.3934/publichealth.2024011): '38 deaths from FY2018-2020'"),
    ("FY2021-2023", 12, "fys", (2021, 2022, 2023), "", "same paper: '12 deaths reported from FY2021-2023'"),
    ("calendar 2004", 32, "cy", 2004, "", "Statista, January 2026: 2004 'saw 32 deaths' (https://www.statista.com/"
     "chart/35664/deaths-of-non-us-adult-citizens-in-ice-custody)"),
    ("calendar 2025", 32, "cy", 2025, "the Guardian's count of 32 includes a man struck by a vehicle while "
     "fleeing ICE agents in Norfolk (October 2025), who was not in custody: this project counts him apart, as an "
     "enforcement-action death, so the custody count is 31 (the list's rows for 2025 are 32)",
     "the Guardian, via Statista (January 2026): 'its journalists having verified 32 names'"),
    ("September 2025", 6, "month", (2025, 9), "", "Statista: six in September, two of them in the Dallas sniper "
     "attack"),
    ("December 2025", 6, "month", (2025, 12), "the list has 7 December 2025 deaths, all from the Guardian's "
     "timeline (its rows link the press, a not-ice-link finding each); the report of six was written from ICE's "
     "notices posted by then, and ICE posts a notice up to about 30 days after a death, so a death in the last "
     "days of December can be missing from it", "Statista, January 2026: 'six people reported to have died' in "
     "December"),
]


@pytest.mark.shared
@pytest.mark.parametrize("what, reported, how, arg, why, source", REPORTED, ids=[r[0] for r in REPORTED])
def test_yearly_counts_match_what_was_reported(real, what, reported, how, arg, why, source):
    fy = _series(real.obs, "deaths_fy")["value"]
    fy.index = [int(d[:4]) + 1 for d in fy.index]
    recs = real.tables["records"]
    got = {"fy": lambda: fy[arg], "fys": lambda: sum(fy[y] for y in arg), "cy": lambda: _calendar(recs, arg),
           "month": lambda: _calendar(recs, *arg)}[how]()
    assert source
    if not why:
        assert got == reported, f"{what}: list {got}, reported {reported} ({source})"
    else:  # a known difference: the list's figure is the one the reason gives
        expected = {"FY2018": 6, "FY2018-2020": 35, "calendar 2025": 31, "December 2025": 7}[what]
        assert got == expected and got != reported, f"{what}: {why}"


@pytest.mark.shared
def test_calendar_2025_rows_are_32_with_the_enforcement_death(real):
    """The difference explained above, checked: 32 rows dated 2025, one of them not in custody."""
    recs = real.tables["records"]
    in_2025 = recs[recs["date"].str.startswith("2025")]
    assert len(in_2025) == 32 and (in_2025["custody"] == "enforcement action").sum() == 1
    # and the first nine days of 2026: four deaths in custody (Statista, from ICE's notices), the Minneapolis
    # shooting of 7 January left out
    jan = recs[(recs["date"] >= "2026-01-01") & (recs["date"] <= "2026-01-09")]
    assert (jan["custody"] == "in custody").sum() == 4 and (jan["custody"] == "enforcement action").sum() == 1


def test_the_chart_says_where_the_list_ends_in_both_languages():
    """The list is a compilation, not a publisher's releases: wherever deaths are drawn, the note says the
    list holds nothing after its last entry (never "no release"), in the reader's language."""
    import datetime as dt

    from analysis.status import series_blackouts
    from figures import blackouts
    from loaders import data as cdata
    snap = cdata.load_snapshot()
    spans = series_blackouts(snap, ["deaths_in_custody.deaths_monthly"], dt.date(2025, 1, 1), dt.date(2026, 12, 1))
    (b,) = spans.values()
    assert blackouts.note_text(b, "en") == "The list of deaths in ICE custody has no entries after 24 January 2026"
    es = blackouts.note_text(b, "es")
    assert es.startswith("La lista de muertes bajo custodia del ICE no recoge casos posteriores al 24") and "release" not in es
