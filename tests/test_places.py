"""Places: the facility join, sums by state and field office, per-capita rates, territories, maps offline.

Most tests run on the bundled snapshot, which a test (test_pipeline) proves is exactly what the loaders make
from the real files; those reading ../shared/data directly are marked ``shared``. A facility missing from the
registry is tested on a snapshot built here with the real table layouts.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import re

import numpy as np
import pandas as pd
import pytest

from analysis import places as P
from charts.places_export import map_html
from figures import maps
from loaders import census, facility_registry, pipeline
from loaders import data as cdata
from loaders.errors import ParseError
from tests import bundled
from tests.conftest import ROOT
from views import link
from views.places import PlacesView, render
from wording import i18n

SNAP = bundled.snapshot()


@pytest.fixture(scope="module")
def pl() -> P.Places:
    return P.build(SNAP)


def ice_releases() -> list[str]:
    obs = SNAP.by_series["ice_detention_stats.facility_adp_fytd"]
    return sorted(obs["release"].dt.strftime("%Y-%m-%d").unique())


# ---------------------------------------------------------------- the join

def test_every_facility_figure_of_every_source_is_in_the_join(pl):
    """Nothing dropped: each facility row ICE, the registry's sheet and TRAC publish has its place in the table."""
    for sid, src in (("ice_detention_stats.facility_adp_fytd", "ice"), ("facility_registry.ice_sheet_adp_fytd", "sheet"),
                     ("trac_detention.facility_adp", "trac"), ("ddp_facility_daily.facility_midnight_monthly", "ddp")):
        obs = SNAP.by_series[sid]
        got = pl.populations[pl.populations["source"] == src]
        # a facility listed twice on one release's list is one row of the join holding both listings
        further = obs["key"].str.contains(r" \(listing \d+ of \d+\)$", regex=True).sum()
        assert len(got) == len(obs) - further, src
        assert got["value"].sum() == pytest.approx(obs["value"].sum()), src
    assert set(pl.populations["facility_id"]) <= set(pl.facilities["facility_id"])


def test_no_two_names_of_one_release_are_joined_into_one_facility(pl):
    """A wrong automatic match would put two of a release's rows on one facility (as FOLKSTON MAIN IPC did
    when the registry's code was trusted over DDP's); every release has at most one row per facility."""
    p = pl.populations[pl.populations["source"] != "ddp"]
    dup = p.groupby(["facility_id", "source", "release"]).size()
    assert dup.max() == 1, dup[dup > 1].head()


def test_a_facility_listed_twice_in_a_release_counts_both_listings(pl):
    """ICE printed some facilities twice on one release's list (flag listed-twice, the further listing keyed
    "(listing 2 of 2)"): on the map that facility's population is both listings, once, as in ICE's own total."""
    obs = SNAP.by_series["ice_detention_stats.facility_adp_fytd"]
    twice = obs[obs["flag"].str.contains("listed-twice")]
    if twice.empty:
        pytest.skip("no facility is listed twice in the bundled snapshot")
    ice = pl.populations[pl.populations["source"] == "ice"]
    listed = SNAP.tables["ice_detention_stats.facilities"]
    for (release, name), g in twice.groupby([twice["release"].dt.strftime("%Y-%m-%d"),
                                             twice["key"].str.replace(r" \(listing \d+ of \d+\)$", "", regex=True)]):
        # The listings' own state: one name can be two facilities in two states (BUTLER COUNTY JAIL is BUTLEKS in
        # El Dorado, KS and BUTLEOH in Hamilton, OH), so a listing is looked up by name, state and release.
        states = listed.loc[(listed["release"] == release) & (listed["name"] == name), "state"].unique()
        assert len(states) == 1, (name, release, states)
        n = pl.names
        ids = n[(n["source"] == "ice") & (n["name"] == name) & (n["state"] == states[0]) & (n["when"] == release)][
            "facility_id"].unique()
        assert len(ids) == 1, (name, ids)
        row = ice[(ice["facility_id"] == ids[0]) & (ice["release"] == release)]
        assert len(row) == 1 and row["value"].iloc[0] == pytest.approx(g["value"].sum()), (name, release)
    folkston = pl.facilities.set_index("facility_id")
    assert "FOLKSTON MAIN IPC" in folkston.at["FIPCMGA", "names"]
    assert "FOLKSTON ANNEX IPC" in folkston.at["FIPCAGA", "names"]


def test_most_ice_names_get_a_code_and_the_rest_say_why(pl):
    f = pl.facilities
    in_ice = f[f["ice_releases"] > 0]
    # the rest: mostly 2021's hotels and other short-lived sites no list with codes has (counted in docs/sources.md)
    assert (in_ice["code"] != "").mean() > 0.9
    ice = pl.populations[pl.populations["source"] == "ice"]
    coded = ice["facility_id"].isin(set(f.loc[f["code"] != "", "facility_id"]))
    assert ice.loc[coded, "value"].sum() / ice["value"].sum() > 0.995  # by people held, nearly all
    for r in f[f["code"] == ""].itertuples():
        assert r.facility_id.startswith("name:") and r.notes.startswith("no ICE facility code: "), r
    # a facility only DDP knows is listed with the reason it is in no ICE sheet
    only_ddp = f[~f["in_ice"] & ~f["in_trac"] & f["in_ddp"]]
    assert len(only_ddp) > 100
    assert only_ddp["notes"].str.contains("in none of ICE's facility sheets").all()


def test_a_facility_that_changed_name_keeps_one_history(pl):
    """Jena, LA: LASALLE ICE PROCESSING CENTER (JENA) in 2019, CENTRAL LOUISIANA ICE PROCESSING CENTER (CLIPC)
    later, JENADLA in DDP's file; one facility with every release of every source."""
    f = pl.facilities.set_index("facility_id").loc["JENADLA"]
    assert "LASALLE ICE PROCESSING CENTER (JENA)" in f["names"]
    assert "CENTRAL LOUISIANA ICE PROCESSING CENTER (CLIPC)" in f["names"]
    assert f["first_ice_release"] == "2019-10-07" and f["last_ice_release"] == ice_releases()[-1]
    assert f["state"] == "LA" and f["county"] == "LaSalle Parish, LA" and f["field_office"] == "NOL"
    h = P.facility_history(pl, "JENADLA")
    assert set(h["source"]) == {"ice", "sheet", "trac", "ddp"}
    assert h[h["source"] == "ice"]["release"].nunique() == len(ice_releases())


def test_crosswalk_rows_are_reviewed_and_used(pl, tmp_path):
    cw = P.read_crosswalk()
    assert len(cw) >= 30 and (cw["reason"].str.len() > 10).all()
    used = set(pl.names.loc[pl.names["match"].str.startswith("reviewed"), "name"])
    # Rows for the deaths list's spellings are checked against that list (tests/test_deaths_view.py).
    lists = cw[cw["source"] != "deaths"]
    assert set(lists["name"]) <= used, set(lists["name"]) - used  # no stale row
    bad = tmp_path / "cw.csv"
    bad.write_text("source,name,state,code,reason\nany,X JAIL,TX,not a code!,typo\n")
    with pytest.raises(ValueError, match=r"cw.csv row 2 field 'code'"):
        P.read_crosswalk(bad)


def test_name_normalisation():
    assert P.normalise_name("EDEN DETENTION CTR") == P.normalise_name("Eden Detention Center")
    assert P.normalise_name("BERKS COUNTY RESIDENTIAL CENTER1") == "BERKS COUNTY RESIDENTIAL CENTER"
    assert P.loose_name("CASCADE COUNTY JAIL (MONTANA)") == P.loose_name("CASCADE COUNTY JAIL MT")
    assert P.office_key("New York City Field Office") == P.office_key("New York")
    assert P.office_key("Atlanta Area of Responsibility") == P.office_key("Atlanta")


# ---------------------------------------------------------------- state sums, per capita, field offices

def test_state_sums_equal_the_facility_list_and_sit_just_under_ices_national_figure(pl):
    nat = SNAP.by_series["ice_detention_stats.adp_total_fytd"]
    fac = SNAP.by_series["ice_detention_stats.facility_adp_fytd"]
    flagged = set(SNAP.flags.loc[SNAP.flags["flag"] == "facility-mismatch", "release"]) if len(SNAP.flags) else set()
    for rel in ice_releases():
        t = P.state_totals(pl, "ice", rel)
        listed = fac.loc[fac["release"] == rel, "value"].sum()
        assert t["detained_adp"].sum() == pytest.approx(listed, rel=1e-12), rel  # no facility lost by state
        assert "(no state)" not in set(t["state"]), rel  # blank states are filled from the join
        n = nat[nat["release"] == rel]
        if len(n) and rel not in flagged:
            ratio = t["detained_adp"].sum() / n["value"].iloc[-1]
            assert 0.94 <= ratio <= 1.02, (rel, ratio)
    sheet = P.state_totals(pl, "sheet", "2026-07-20")
    assert round(sheet["detained_adp"].sum(), 1) == 62517.9  # the registry's parse: ICE's July facilities


@pytest.mark.shared
def test_per_capita_arithmetic_against_the_census_file(pl, shared_data):
    rows = list(csv.DictReader(io.StringIO((shared_data / "census" / "NST-EST2025-ALLDATA.csv").read_text("latin-1"))))
    pop = {r["NAME"]: int(r["POPESTIMATE2025"]) for r in rows}
    states = [r for r in rows if r["SUMLEV"] == "040" and r["STATE"] != "72"]
    assert sum(int(r["POPESTIMATE2025"]) for r in states) == pop["United States"] == 341_784_857
    t = P.state_totals(pl, "ice", "2026-04-09").set_index("state")
    assert t.at["TX", "residents"] == pop["Texas"] == 31_709_821
    assert t.at["TX", "population_year"] == "2025"
    assert t.at["TX", "per_100k"] == pytest.approx(t.at["TX", "detained_adp"] / 31_709_821 * 100_000)
    assert t.at["PR", "residents"] == pop["Puerto Rico"]
    assert np.isnan(t.at["GU", "residents"])  # no Census row: no rate rather than a wrong one
    old = P.state_totals(pl, "ice", "2019-10-07").set_index("state")
    assert old.at["TX", "population_year"] == "2020"  # earliest estimate for a release before it


def test_field_offices_sum_to_the_same_total_with_atd_and_arrests(pl):
    t = P.field_office_totals(pl, "ice", "2026-04-09", SNAP)
    assert t["detained_adp"].sum() == pytest.approx(P.state_totals(pl, "ice", "2026-04-09")["detained_adp"].sum())
    row = t.set_index("field_office")
    assert row.at["NYC", "atd"] > 0 and row.at["WAS", "atd"] > 0  # "New York" / "Washington DC" in TRAC
    atl = SNAP.by_series["trac_detention.atd_by_aor"]
    assert row.at["ATL", "atd"] == atl[(atl["key"] == "Atlanta") & (atl["date"] == row.at["ATL", "atd_date"])]["value"].iloc[0]
    assert row.at["ATL", "arrests_2025_2026"] == 39581


# ---------------------------------------------------------------- maps: territories, offline

def test_territories_are_drawn_in_insets_and_listed(pl):
    fig = maps.state_map(pl, "ice", "2026-04-09", county_points=SNAP.tables["census.county_points"])
    assert fig.layout.geo.projection.type == "albers usa"
    inset_traces = {t.geo: t.text[0] for t in fig.data if t.type == "scattergeo"}
    assert inset_traces["geo2"].startswith("PR: ")
    assert inset_traces["geo3"].startswith(("GU: ", "MP: "))
    notes = " ".join(a.text for a in fig.layout.annotations)
    assert "Puerto Rico 14.9" in notes and "Guam 18.1" in notes and "Northern Mariana Islands" in notes
    fac = maps.facility_map(pl, "ice", "2026-04-09")
    pr = [t for t in fac.data if t.type == "scattergeo" and t.geo == "geo2"]
    assert pr and len(pr[0].lat) >= 1  # Puerto Rico's facility at its municipio's internal point
    gu = [t for t in fac.data if t.type == "scattergeo" and t.geo == "geo3"]
    # Guam and Saipan have no Census county point: each is drawn at its address's ZIP code centre, and says so
    assert sorted(round(x) for t in gu for x in t.lat) == [13, 15]
    assert all(t.name == "facility, at its ZIP code's centre (approximate)" for t in gu)
    assert all("placed at its ZIP code's centre" in h for t in gu for h in t.hovertext)
    assert "not drawn" not in " ".join(a.text for a in fac.layout.annotations)


def test_facility_map_draws_every_facility_of_the_latest_release_each_at_a_place_it_names(pl):
    """Issue 27: nine facilities holding 5,815 people (Camp East Montana, the Florida soft-sided site, Folkston)
    had no county point and were only counted in small print. Each now has a place, and says which kind."""
    fig = maps.facility_map(pl, "ice", "2026-04-09")
    cs = P.facility_cross_section(pl, "ice", "2026-04-09")
    # All but JTF Camp Six (Guantanamo, which no gazetteer of US places holds: see the next test)
    assert list(cs[cs["lat"].isna()]["name"]) == ["JTF CAMP SIX"]
    drawn = sum(len(t.lat) for t in fig.data if t.type == "scattergeo")
    assert drawn == len(cs) - 1
    by_kind = {t.name: len(t.lat) for t in fig.data if t.type == "scattergeo" and t.showlegend is not False}
    assert set(by_kind) <= {"facility, at its county's internal point (approximate)",
                            "facility, at its ZIP code's centre (approximate)",
                            "facility, at its city's centre (approximate)"}
    placed = dict(zip(cs["name"], cs["placed"]))
    for name in ("ERO EL PASO CAMP EAST MONTANA", "FLORIDA SOFT-SIDED FACILITY", "FOLKSTON D RAY ICE PROCESSING CTR",
                 "FOLKSTON MAIN IPC"):
        assert placed[name] in ("zip", "city"), name
    camp = cs[cs["name"] == "ERO EL PASO CAMP EAST MONTANA"].iloc[0]
    assert 31.5 < camp["lat"] < 32.1 and -106.6 < camp["lon"] < -106.0  # El Paso, not a made-up point
    hovers = [h for t in fig.data if t.type == "scattergeo" for h in t.hovertext if "CAMP EAST MONTANA" in h]
    assert len(hovers) == 1 and "(approximate)" in hovers[0] and "county's internal point" not in hovers[0]
    footer = fig.layout.annotations[-1].text
    assert "zipcodes" in footer
    assert "Not drawn (no county, ZIP code or city the gazetteer knows): 1 facilities holding 14.5" in footer
    sub = fig.layout.title.text
    n_zip, n_city = (cs["placed"] == "zip").sum(), (cs["placed"] == "city").sum()
    assert n_zip + n_city >= 8
    assert f"{len(cs) - 1} of {len(cs)} facilities drawn" in sub and f"{n_zip} at a ZIP code" in sub
    assert f"{n_city} at a city" in sub


def test_a_facility_no_source_places_is_listed_with_the_reason(pl):
    """JTF Camp Six (Guantanamo; ICE's city "FPO", a military post office) has no place in the gazetteer: it
    stays off the map, and its notes say why, in the release that lists it."""
    f = pl.facilities[pl.facilities["name"] == "JTF CAMP SIX"].iloc[0]
    assert np.isnan(f["lat"]) and f["placed"] == ""
    assert "not on the map: the gazetteer knows none of" in f["notes"] and "'FPO', FL" in f["notes"]
    cs = P.facility_cross_section(pl, "ice", "2026-04-09")
    assert "the gazetteer knows none of" in cs[cs["name"] == "JTF CAMP SIX"].iloc[0]["notes"]
    assert "JTF CAMP SIX (14)" in maps.facility_map(pl, "ice", "2026-04-09").layout.annotations[-1].text


def test_bundled_outlines_match_their_provenance():
    prov = (ROOT / "static" / "maps" / "PROVENANCE.md").read_text("utf-8")
    for name in maps.TOPOJSON:
        digest = hashlib.sha256((maps.MAPS_DIR / f"{name}.json").read_bytes()).hexdigest()
        assert f"`{name}.json`" in prov and digest in prov, name
    assert "MIT" in prov and "4.1.1" in prov


def test_html_export_carries_the_outlines(pl):
    fig = maps.state_map(pl, "ice", "2026-04-09")
    page = map_html(fig).decode()
    m = re.search(r"window\.PlotlyGeoAssets = \{topojson: (\{.*?\})\};</script>", page, re.S)
    assert m, "no embedded outlines"
    topo = json.loads(m.group(1))
    assert set(topo) == {"usa_110m", "world_110m"} and topo["usa_110m"]["type"] == "Topology"
    assert page.index("window.PlotlyGeoAssets") < page.index("Plotly.newPlot")


def test_loopback_outline_server_serves_only_the_maps_folder():
    import urllib.error
    import urllib.request
    url = maps.topojson_url()
    assert url.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(url + "usa_110m.json", timeout=5) as r:
        assert r.headers["Access-Control-Allow-Origin"] == "*"
        assert json.loads(r.read())["type"] == "Topology"
    with pytest.raises(urllib.error.HTTPError):
        urllib.request.urlopen(url + "../../dashboard.py", timeout=5)


# ---------------------------------------------------------------- the view, the command line

def test_view_round_trips_and_refuses_junk():
    v = PlacesView(map="facility", release="ice:2026-04-09", facility="JENADLA", state="LA")
    assert link.places_from_query(link.places_to_query(v)) == v
    junk = link.places_from_query({"map": "<script>", "release": "x", "state": "ZZ", "facility": "<b>"})
    assert junk == PlacesView()


@pytest.mark.slow
def test_command_line_export_is_the_page_figure(pl, tmp_path, capsys):
    from charts.__main__ import main
    out = tmp_path / "fo.csv"
    assert main(["export", "--view", "places", "--map", "field-offices", "--release", "ice:2026-04-09",
                 "--out", str(out)]) == 0
    text = out.read_text("utf-8")
    assert text.startswith("# People held and in Alternatives to Detention, by ICE field office")
    assert "not a headcount" in text and "TRAC" in text
    body = pd.read_csv(io.StringIO(text), comment="#")
    page = render(SNAP, pl, PlacesView(map="field-offices", release="ice:2026-04-09")).table
    assert list(body["field_office"]) == list(page["field_office"])
    assert body["detained_adp"].sum() == pytest.approx(page["detained_adp"].sum())
    assert main(["export", "--query", "view=places&map=state&release=ice:1999-01-01", "--out",
                 str(tmp_path / "x.csv")]) == 2
    assert "no release ice:1999-01-01" in capsys.readouterr().err
    html = tmp_path / "map.html"
    assert main(["export", "--query", "view=places&map=facilities", "--out", str(html)]) == 0
    assert "window.PlotlyGeoAssets" in html.read_text("utf-8")


# ---------------------------------------------------------------- a facility missing from the registry (built files)

def small_snapshot(tmp_path):
    """ICE's sheet, DDP and the registry in their real layouts; NEWSITE is in ICE's sheet and DDP but not the
    registry (like the big 2025 openings)."""
    fac_csv = ("id,kind,primary_name,county,county_fips,county_names,states,address,fieldOffice,agreement,capacity,"
               "firstUsed,lastUsed,adpTotal,adpTotal_n_sources\n"
               "ADAMSMS,detention,ADAMS COUNTY CORRECTIONAL CENTER,ADAMS,28001,\"Adams County, MS\",MS,"
               "\"20 HOBO FORK RD., NATCHEZ, MS 39120\",NOL,DIGSA,2232,10/30/2008,,1878.2,1\n")
    fo_csv = "id,kind,primary_name,fieldOfficeCode,states,address\nero-nol,field-office,New Orleans Field Office,NOL,LA,x\n"
    sheet = [{"xref": code, "state": st, "sourceAsOf": "2026-07-20", "fields": {
        "name": [{"value": name}], "address": {"full": addr}, "fieldOffice": fo, "agreement": "DIGSA", "adpTotal": adp}}
        for code, name, st, addr, fo, adp in (
            ("ADAMSMS", "ADAMS COUNTY CORRECTIONAL CENTER", "MS", "20 HOBO FORK RD., NATCHEZ, MS", "NOL", 1878.2),
            ("NEWSITE", "NEW SOFT-SIDED SITE", "TX", "1 DESERT RD, EL PASO, TX", "ELP", 2500.0),
            ("GUAMSITE", "ISLAND JAIL", "GU", "203 ASPINAL AVE, HAGATNA, GU 96910", "HON", 20.0),
            ("CAMPSIX", "JTF CAMP SIX", "FL", "JTF CAMP SIX, FPO, FL 34009", "MIA", 14.0))]
    parts = [facility_registry.parse(fac_csv.encode(), "release-x_facilities.csv"),
             facility_registry.parse(fo_csv.encode(), "release-x_field_offices.csv"),
             facility_registry.parse(json.dumps(sheet).encode(), "source_ice-biweekly.json"),
             census.parse(b"USPS|GEOID|NAME|INTPTLAT|INTPTLONG\nMS|28001|Adams County|31.4823|-91.3533\n",
                          "2025_Gaz_counties_national.txt")]
    tables = {f"{sid}.{k}": v.astype(str) for sid, p in zip(["facility_registry"] * 3 + ["census"], parts)
              for k, v in p.tables.items()}
    tables["ddp_facility_daily.facilities"] = pd.DataFrame(
        {"code": ["ADAMSMS", "NEWSITE"], "name": ["ADAMS COUNTY CORRECTIONAL CENTER", "NEW SOFT-SIDED SITE"],
         "key": ["ADAMS COUNTY CORRECTIONAL CENTER", "NEW SOFT-SIDED SITE"], "first_held": ["2022-10-01", "2025-08-01"],
         "last_held": ["2026-03-10", "2026-03-10"], "release": ["2026-03-10", "2026-03-10"]})
    obs = pd.concat([p.obs for p in parts], ignore_index=True)
    for c in ("date", "end"):
        obs[c] = pd.to_datetime(obs[c])
    obs["release"] = pd.to_datetime(obs["release"])
    by_series = {sid: g.reset_index(drop=True) for sid, g in obs.groupby("series")}
    return cdata.Snapshot(obs, pd.DataFrame(), {}, pd.DataFrame(), tables, by_series)


def test_a_facility_missing_from_the_registry_is_listed_not_dropped(tmp_path):
    snap = small_snapshot(tmp_path)
    pl = P.build(snap, crosswalk=pd.DataFrame(columns=P.CROSSWALK_COLUMNS))
    f = pl.facilities.set_index("facility_id")
    assert f.at["NEWSITE", "in_registry"] is False or not f.at["NEWSITE", "in_registry"]
    assert "its code is not in the facility registry (no county known)" in f.at["NEWSITE", "notes"]
    # no county, no ZIP code in its address: placed at its city's centre (from the address), and said so
    assert f.at["NEWSITE", "placed"] == "city" and f.at["NEWSITE", "state"] == "TX"
    assert 31.5 < f.at["NEWSITE", "lat"] < 32.1 and -106.6 < f.at["NEWSITE", "lon"] < -106.0
    assert "placed at the centre of El Paso, TX" in f.at["NEWSITE", "notes"]
    assert f.at["GUAMSITE", "placed"] == "zip" and f.at["GUAMSITE", "lat"] == pytest.approx(13.4762)
    assert "ZIP code 96910" in f.at["GUAMSITE", "notes"]
    assert np.isnan(f.at["CAMPSIX", "lat"]) and f.at["CAMPSIX", "placed"] == ""
    assert "not on the map: the gazetteer knows none of ZIP code 34009, city 'FPO', FL" in f.at["CAMPSIX", "notes"]
    assert f.at["ADAMSMS", "lat"] == pytest.approx(31.4823) and f.at["ADAMSMS", "county"] == "Adams County, MS"
    assert f.at["ADAMSMS", "placed"] == "county"
    t = P.state_totals(pl, "sheet", "2026-07-20").set_index("state")
    assert t.at["TX", "detained_adp"] == 2500.0  # in the state sums all the same
    fig = maps.facility_map(pl, "sheet", "2026-07-20")
    assert sum(len(t.lat) for t in fig.data if t.type == "scattergeo") == 3
    assert ("Not drawn (no county, ZIP code or city the gazetteer knows): 1 facilities holding 14.0 of 4,412.2"
            in fig.layout.annotations[-1].text)
    assert {t.name for t in fig.data if t.showlegend is not False} == {
        "facility, at its county's internal point (approximate)", "facility, at its ZIP code's centre (approximate)",
        "facility, at its city's centre (approximate)"}
    fo = P.field_office_totals(pl, "sheet", "2026-07-20").set_index("field_office")
    assert fo.at["ELP", "detained_adp"] == 2500.0 and fo.at["NOL", "office"] == "New Orleans Field Office"


def ice_listing_snapshot(tmp_path, listings):
    """The built snapshot with a registry of ADAMSMS and two BUTLER COUNTY JAILs (KS, OH), and ICE's facility
    lists holding ``listings``: (release, name, city, state, ADP) rows in the workbooks' parsed layout."""
    snap = small_snapshot(tmp_path)
    fac_csv = ("id,kind,primary_name,county,county_fips,county_names,states,address,fieldOffice,agreement,capacity,"
               "firstUsed,lastUsed,adpTotal,adpTotal_n_sources\n"
               "ADAMSMS,detention,ADAMS COUNTY CORRECTIONAL CENTER,ADAMS,28001,\"Adams County, MS\",MS,"
               "\"20 HOBO FORK RD., NATCHEZ, MS 39120\",NOL,DIGSA,2232,10/30/2008,,1878.2,1\n"
               "BUTLEKS,detention,BUTLER COUNTY JAIL,BUTLER,20015,\"Butler County, KS\",KS,"
               "\"701 SE STONE ROAD, EL DORADO, KS 67042\",KAN,IGSA,10,1/1/2010,,5,1\n"
               "BUTLEOH,detention,BUTLER COUNTY JAIL,BUTLER,39017,\"Butler County, OH\",OH,"
               "\"705 HANOVER STREET, HAMILTON, OH 45011\",DET,IGSA,10,1/1/2010,,5,1\n")
    reg = facility_registry.parse(fac_csv.encode(), "release-x_facilities.csv")
    snap.tables["facility_registry.facilities"] = reg.tables["facilities"].astype(str)
    keys = [f"{n} ({c}, {st})" for _, n, c, st, _ in listings]
    snap.tables["ice_detention_stats.facilities"] = pd.DataFrame(
        {"release": [r[0] for r in listings], "fiscal_year": [r[0][:4] for r in listings], "key": keys,
         "name": [r[1] for r in listings], "city": [r[2] for r in listings], "state": [r[3] for r in listings],
         "aor": "", "facility_type": "IGSA"})
    snap.by_series["ice_detention_stats.facility_adp_fytd"] = pd.DataFrame(
        {"series": "ice_detention_stats.facility_adp_fytd", "key": keys,
         "release": pd.to_datetime([r[0] for r in listings]), "date": pd.to_datetime([r[0] for r in listings]),
         "end": pd.to_datetime([r[0] for r in listings]), "value": [float(r[4]) for r in listings], "flag": ""})
    return snap


def test_two_names_on_one_release_never_share_a_code_and_names_are_keyed_with_their_state(tmp_path):
    """A release that lists two names has two facilities, whatever the rules say of each name: the name matched
    by the stronger rule keeps the code in that release, the other keeps its own history under its name (the
    2022-06 workbooks list PIKE COUNTY CORRECTIONAL FACILITY and PIKE COUNTY JAIL, both in Lords Valley, PA). A
    reviewed row is matched whatever the letter case (the 2023-12 to 2024-04 workbooks print "Adams County Det
    Center"), and one name in two states is two facilities."""
    listings = [
        ("2023-12-07", "Adams County Det Center", "Natchez", "MS", 10.0),
        ("2024-06-06", "ADAMS COUNTY DET CENTER", "NATCHEZ", "MS", 11.0),
        ("2024-06-06", "ADAMS COUNTY CORRECTIONAL CENTER", "NATCHEZ", "MS", 0.5),
        ("2024-07-08", "ADAMS COUNTY CORRECTIONAL CENTER", "NATCHEZ", "MS", 12.0),
        ("2024-06-06", "BUTLER COUNTY JAIL", "EL DORADO", "KS", 3.0),
        ("2024-06-06", "BUTLER COUNTY JAIL", "HAMILTON", "OH", 4.0),
        ("2024-07-08", "BUTLER COUNTY JAIL", "HAMILTON", "OH", 5.0),
        ("2024-07-08", "BUTLER CO JAIL", "HAMILTON", "OH", 6.0),
    ]
    cw = pd.DataFrame([["any", "ADAMS COUNTY DET CENTER", "MS", "ADAMSMS", "Natchez, MS; same facility"]],
                      columns=P.CROSSWALK_COLUMNS)
    pl = P.build(ice_listing_snapshot(tmp_path, listings), crosswalk=cw)
    pop = pl.populations[pl.populations["source"] == "ice"]
    assert pop.groupby(["facility_id", "release"]).size().max() == 1
    fid = {(r, n, st): i for i, n, st, r in zip(pl.names["facility_id"], pl.names["name"], pl.names["state"],
                                                pl.names["when"]) if i}
    assert fid[("2023-12-07", "Adams County Det Center", "MS")] == "ADAMSMS"
    assert fid[("2024-06-06", "ADAMS COUNTY DET CENTER", "MS")] == "ADAMSMS"
    assert fid[("2024-06-06", "ADAMS COUNTY CORRECTIONAL CENTER", "MS")] == "name:ADAMS COUNTY CORRECTIONAL CENTER|MS"
    assert fid[("2024-07-08", "ADAMS COUNTY CORRECTIONAL CENTER", "MS")] == "ADAMSMS"
    assert fid[("2024-06-06", "BUTLER COUNTY JAIL", "KS")] == "BUTLEKS"
    assert fid[("2024-06-06", "BUTLER COUNTY JAIL", "OH")] == "BUTLEOH"
    # two spellings of one name on one list, matched as strongly: neither can be told to be the code's
    assert fid[("2024-07-08", "BUTLER COUNTY JAIL", "OH")].startswith("name:")
    assert fid[("2024-07-08", "BUTLER CO JAIL", "OH")].startswith("name:")
    assert fid[("2024-07-08", "BUTLER COUNTY JAIL", "OH")] != fid[("2024-07-08", "BUTLER CO JAIL", "OH")]
    f = pl.facilities.set_index("facility_id")
    assert "the release of 2024-06-06 also lists ADAMS COUNTY DET CENTER, which keeps ADAMSMS by a stronger match" in (
        f.at["name:ADAMS COUNTY CORRECTIONAL CENTER|MS", "notes"])
    assert pop.loc[pop["facility_id"] == "ADAMSMS", "value"].sum() == pytest.approx(10.0 + 11.0 + 12.0)


# ---------------------------------------------------------------- the two new sources

def test_registry_parser_refuses_damaged_files():
    head = "id,primary_name,county_fips,states,fieldOffice,capacity\n"
    with pytest.raises(ParseError, match=r"row 2 field 'capacity': '12x3' is not a number"):
        facility_registry.parse((head + "ABCDEFG,X JAIL,01001,AL,ATL,12x3\n").encode(), "release-x_facilities.csv")
    with pytest.raises(ParseError, match=r"row 2 field 'county_fips'"):
        facility_registry.parse((head + "ABCDEFG,X JAIL,1001,AL,ATL,1\n").encode(), "release-x_facilities.csv")
    with pytest.raises(ParseError, match=r"missing column\(s\) \['id'\]"):
        facility_registry.parse(b"primary_name,county_fips,states,fieldOffice\nX,01001,AL,ATL\n", "f.csv")


def test_census_parser_reads_codes_as_text_and_refuses_bad_numbers():
    good = b"SUMLEV,REGION,DIVISION,STATE,NAME,POPESTIMATE2024,POPESTIMATE2025\n040,3,6,01,Alabama,5157699,5193088\n"
    t = census.parse(good, "NST-EST2025-ALLDATA.csv").tables["state_population"]
    assert t.to_dict("records")[1] == {"fips": "01", "usps": "AL", "name": "Alabama", "year": "2025",
                                       "population": "5193088", "vintage": "2025"}
    with pytest.raises(ParseError, match=r"line 2 field 'POPESTIMATE2025': '5,19x' is not a whole number"):
        census.parse(good.replace(b"5193088", b'"5,19x"'), "NST-EST2025-ALLDATA.csv")
    with pytest.raises(ParseError, match=r"line 2 field 'INTPTLAT': 123.0 is outside"):
        census.parse(b"USPS|GEOID|NAME|INTPTLAT|INTPTLONG\nAL|01001|A|123|-86\n", "g.txt")


@pytest.mark.shared
def test_real_registry_and_census_files(shared_data):
    fac = pipeline.parse_file(facility_registry.SOURCE, (shared_data / "facility-registry" /
                              "release-2026.07.25_facilities.csv").read_bytes(), "release-2026.07.25_facilities.csv")
    t = fac.tables["facilities"]
    assert len(t) == 1615 and (t["registry_id"].str.startswith("biweekly-")).sum() == 43
    assert {"PR", "GU", "VI", "MP"} <= set(t["state"])
    sheet = pipeline.parse_file(facility_registry.SOURCE, (shared_data / "facility-registry" /
                                "source_ice-biweekly.json").read_bytes(), "source_ice-biweekly.json")
    assert len(sheet.obs) == 208 and round(sheet.obs["value"].sum(), 1) == 62517.9
    gaz = census.parse((shared_data / "census" / "2025_Gaz_counties_national.txt").read_bytes(),
                       "2025_Gaz_counties_national.txt").tables["county_points"]
    assert len(gaz) == 3222 and (gaz["usps"] == "PR").sum() == 78
    assert not gaz["geoid"].str.match(r"^0900[1-9]|^0901[0-5]").any()  # Connecticut: planning regions only
    # the FIPS -> USPS table in census.py agrees with the Gazetteer for every state in it
    for usps, geoid in zip(gaz["usps"], gaz["geoid"]):
        assert census.STATES[geoid[:2]][0] == usps


@pytest.mark.browser
def test_png_and_svg_exports_draw_the_map_from_the_local_outlines(pl):
    """Kaleido's headless browser gets the outlines from the loopback server, not from cdn.plot.ly."""
    from charts import export
    if not export.find_browser():
        pytest.skip("no Chrome or Chromium for image export")
    maps._MapsHandler.served.clear()
    fig = maps.state_map(pl, "ice", "2026-04-09")
    png = maps.to_image(fig, "png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    svg = maps.to_image(maps.facility_map(pl, "ice", "2026-04-09"), "svg").decode()
    assert svg.count("<path") > 200 and "Not drawn" in svg
    asked = " ".join(maps._MapsHandler.served)
    assert "/usa_110m.json" in asked and "/world_110m.json" in asked


def test_search_facilities_needs_every_word_in_name_city_state_or_code():
    import pandas as pd

    from analysis.places import search_facilities
    fac = pd.DataFrame({"facility_id": ["KRO", "KRNRCTX", "KRHUBFL", "X1"],
                        "name": ["KROME NORTH SPC", "KARNES CO IMMIGRATION PROCESS CTR", "KROME/MIAMI HUB", "OTERO"],
                        "names": ["", "", "", "OTERO COUNTY PROCESSING CENTER"],
                        "city": ["MIAMI", "KARNES CITY", "", "CHAPARRAL"],
                        "state": ["FL", "TX", "FL", "NM"], "code": ["KRO", "KRNRCTX", "KRHUBFL", "X1"]})
    assert list(search_facilities(fac, "Krome")["facility_id"]) == ["KRO", "KRHUBFL"]
    assert list(search_facilities(fac, "krome miami")["facility_id"]) == ["KRO", "KRHUBFL"]
    assert list(search_facilities(fac, "texas")["facility_id"]) == ["KRNRCTX"]
    assert list(search_facilities(fac, "otero county")["facility_id"]) == ["X1"]  # another name it goes by
    assert list(search_facilities(fac, "krnrctx")["facility_id"]) == ["KRNRCTX"]
    assert search_facilities(fac, "krome texas").empty and len(search_facilities(fac, "  ")) == 4


def test_figures_write_numbers_with_the_chosen_thousands_mark(pl):
    """Issue #20: with sep=. the footers, notes and hovers print "75.000,5", not "75,000.5"; "," (the default)
    leaves the figure exactly as it was."""
    t = P.state_totals(pl, "ice", "2026-04-09")
    total = t["detained_adp"].sum()
    assert total >= 1000  # the test needs a thousands mark to look at
    comma = f"{total:,.1f}"
    point = comma.translate(str.maketrans({",": ".", ".": ","}))
    for lang in ("en", "es"):
        fig = maps.state_map(pl, "ice", "2026-04-09", lang=lang, separators=".")
        notes = " ".join(a.text for a in fig.layout.annotations)
        assert point in notes and comma not in notes, (lang, notes[-300:])
        assert "Puerto Rico 14,9" in notes
        assert fig.layout.separators == ",."  # Plotly's own hover numbers too
        assert maps.state_map(pl, "ice", "2026-04-09", lang=lang, separators=",").to_json() \
            == maps.state_map(pl, "ice", "2026-04-09", lang=lang).to_json()
    cs = P.facility_cross_section(pl, "ice", "2026-04-09")
    fac = maps.facility_map(pl, "ice", "2026-04-09", lang="es", separators=".")
    all_adp = f"{cs['value'].sum():,.1f}".translate(str.maketrans({",": ".", ".": ","}))
    assert all_adp in fac.layout.annotations[-1].text
    hover = [h for tr in fac.data if tr.type == "scattergeo" for h in (tr.hovertext or ())]
    big = cs[(cs["value"] >= 1000) & cs["lat"].notna()].iloc[0]
    assert any(f"{big['value']:,.1f}".translate(str.maketrans({",": ".", ".": ","})) in h for h in hover)
    for view in (PlacesView(map="field-offices", release="ice:2026-04-09"), PlacesView(map="facility", facility="JENADLA"),
                 PlacesView(map="state-history", state="TX")):
        assert render(SNAP, pl, view, "es", ".").figure.layout.separators == ",.", view
        assert render(SNAP, pl, view, "es").figure.layout.separators is None


def test_the_source_lines_of_a_places_view_write_numbers_with_the_chosen_marks(pl):
    # The figure's footer said "100.000" with sep=. but the source lines beside it (the CSV's header, the page)
    # kept "100,000"; file names and dates in those lines are left as they are.
    view = PlacesView(map="state", release="ice:2026-04-09", per_capita=True)
    for lang in ("en", "es"):
        point = " ".join(render(SNAP, pl, view, lang, ".").sources)
        comma = " ".join(render(SNAP, pl, view, lang, ",").sources)
        assert "100,000" in comma and "100,000" not in point and "100.000" in point, (lang, point[:300])
        assert i18n.localise_numbers(comma, ".") == point
        assert render(SNAP, pl, view, lang).sources == render(SNAP, pl, view, lang, ",").sources
