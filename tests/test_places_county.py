"""Places: each facility is drawn in the county its registry row names, at that county's Census internal point.

The registry lists a row's county codes in number order and their names in another order (Stewart Detention
Center: ``13239|13259`` beside ``Stewart County, GA|Quitman County, GA``); a code taken by the position of its
name drew 44 facilities at another county's point (issue 37). The first test walks the whole bundled registry;
the others build small files in the registry's and the Census file's real layouts.
"""
from __future__ import annotations

import io
import json

import pandas as pd
import pytest

from analysis import places as P
from figures import maps
from loaders import census, facility_registry
from loaders import data as cdata
from tests import bundled
from views.places import PlacesView, render

SNAP = bundled.snapshot()


@pytest.fixture(scope="module")
def pl() -> P.Places:
    return P.build(SNAP)


def census_points() -> pd.DataFrame:
    pts = SNAP.tables["census.county_points"].copy()
    pts["label"] = pts["name"] + ", " + pts["usps"]
    return pts.set_index("geoid")


def test_every_facility_the_registry_places_in_a_county_is_drawn_at_that_countys_point(pl):
    """Over the whole registry: a facility with a county is drawn at the Census point of that very code, the
    county printed beside it is that code's Census name, and the row names that county among its own."""
    pts = census_points()
    reg = SNAP.tables["facility_registry.facilities"]
    rows = {c: r for c, r in zip(reg["code"], reg.to_dict("records")) if P.DETLOC.match(c or "")}
    f = pl.facilities[pl.facilities["county_fips"] != ""]
    assert len(f) > 600
    checked = 0
    for r in f.itertuples(index=False):
        if r.county_fips in pts.index:
            assert r.county == pts.at[r.county_fips, "label"], (r.facility_id, r.county, r.county_fips)
            assert r.placed == "county", r.facility_id
            assert (r.lat, r.lon) == (pytest.approx(float(pts.at[r.county_fips, "lat"])),
                                      pytest.approx(float(pts.at[r.county_fips, "lon"]))), r.facility_id
        else:  # no Census point (Guam, the Marianas, the Virgin Islands): placed from its ZIP code or city
            assert r.placed != "county", r.facility_id
        row = rows.get(r.code)
        if row is None:
            continue
        listed = row["county_names"].split("|")
        assert r.county_fips in row["county_fips"].split("|"), r.facility_id
        assert r.county in listed or r.county_fips in listed, (r.facility_id, r.county, listed)
        # Where the row's county field and the first of its names agree, that is the county.
        field = row["county"].strip().upper()
        if field and listed[0].upper().startswith(field + " "):
            assert r.county == listed[0], (r.facility_id, r.county, listed)
            checked += 1
    assert checked > 400


def test_the_facilities_named_in_issue_37_sit_in_their_own_counties(pl):
    """The cases the issue saw, by their Census points (not the module's own lookup)."""
    pts = census_points()
    f = pl.facilities.set_index("facility_id")
    for code, county in (("STWRTGA", "Stewart County, GA"), ("ADLNTCA", "San Bernardino County, CA"),
                         ("OTRPCNM", "Otero County, NM")):
        geoid = pts.index[pts["label"] == county][0]
        assert f.at[code, "county"] == county
        assert f.at[code, "lat"] == pytest.approx(float(pts.at[geoid, "lat"]))
        assert f.at[code, "lon"] == pytest.approx(float(pts.at[geoid, "lon"]))


def test_the_facilities_csv_export_prints_each_countys_own_point(pl, tmp_path):
    """The facilities map's CSV, as the command line writes it: every row's coordinates are its county's."""
    from charts.__main__ import main
    out = tmp_path / "facilities.csv"
    assert main(["export", "--query", "view=places&map=facilities", "--out", str(out)]) == 0
    body = pd.read_csv(io.StringIO(out.read_text("utf-8")), comment="#", dtype={"county": str}, keep_default_na=False)
    by_label = census_points().reset_index().set_index("label")
    with_county = body[body["county"].isin(by_label.index)]
    assert len(with_county) > 150
    for r in with_county.itertuples(index=False):
        assert float(r.lat) == pytest.approx(float(by_label.at[r.county, "lat"]), abs=1e-5), (r.name, r.county)
        assert float(r.lon) == pytest.approx(float(by_label.at[r.county, "lon"]), abs=1e-5), (r.name, r.county)
    stewart = body[body["code"] == "STWRTGA"].iloc[0]
    assert stewart["county"] == "Stewart County, GA" and float(stewart["lat"]) == pytest.approx(32.073225)


# ---------------------------------------------------------------- built files

GAZ = ("USPS|GEOID|NAME|INTPTLAT|INTPTLONG\n"
       "GA|13239|Quitman County|31.860|-85.010\n"
       "GA|13259|Stewart County|32.073|-84.835\n"
       "NM|35013|Doña Ana County|32.350|-106.835\n"
       "NM|35035|Otero County|32.616|-105.751\n"
       "TX|48163|Frio County|28.869|-99.109\n"
       "TX|48283|La Salle County|28.345|-99.101\n"
       "MS|28001|Adams County|31.482|-91.353\n")
REGISTRY = (
    "id,kind,primary_name,county,county_fips,county_names,states,address,fieldOffice\n"
    # codes in number order, names in another: the field and the list both say Stewart
    'STEWART,detention,STEWART DETENTION CENTER,STEWART,13239|13259,"Stewart County, GA|Quitman County, GA",GA,'
    '"146 CCA ROAD, LUMPKIN, GA 31815",ATL\n'
    # the field says Doña Ana, the list and the address's ZIP code (88081) say Otero: Otero, and the hover says so
    'OTERO,detention,OTERO COUNTY PROCESSING CENTER,DONA ANA,35013|35035,"Otero County, NM|Doña Ana County, NM",NM,'
    '"26 MCGREGOR RANGE ROAD, CHAPARRAL, NM 88081",ELP\n'
    # one county, and its field names it: no disagreement
    'ADAMS,detention,ADAMS COUNTY CORRECTIONAL CENTER,ADAMS,28001,"Adams County, MS",MS,'
    '"20 HOBO FORK RD., NATCHEZ, MS 39120",NOL\n'
    # two counties, a field that names neither, no name list, no ZIP code: no county; placed from its city
    'NOWHERE,detention,SOUTH TEXAS SITE,COUNTY,48163|48283,,TX,"1 MAIN ST, DILLEY, TX",SNA\n')


def built_places() -> P.Places:
    names = {"STEWART": ("STEWART DETENTION CENTER", "GA"), "OTERO": ("OTERO COUNTY PROCESSING CENTER", "NM"),
             "ADAMS": ("ADAMS COUNTY CORRECTIONAL CENTER", "MS"), "NOWHERE": ("SOUTH TEXAS SITE", "TX")}
    sheet = [{"xref": code, "state": st, "sourceAsOf": "2026-07-20", "fields": {
        "name": [{"value": name}], "address": {"full": ""}, "fieldOffice": "X", "agreement": "IGSA",
        "adpTotal": 100.0 + i}} for i, (code, (name, st)) in enumerate(names.items())]
    parts = [facility_registry.parse(REGISTRY.encode(), "release-x_facilities.csv"),
             facility_registry.parse(json.dumps(sheet).encode(), "source_ice-biweekly.json"),
             census.parse(GAZ.encode(), "2025_Gaz_counties_national.txt")]
    tables = {f"{sid}.{k}": v.astype(str) for sid, p in zip(["facility_registry", "facility_registry", "census"], parts)
              for k, v in p.tables.items()}
    obs = pd.concat([p.obs for p in parts], ignore_index=True)
    for c in ("date", "end", "release"):
        obs[c] = pd.to_datetime(obs[c])
    by_series = {sid: g.reset_index(drop=True) for sid, g in obs.groupby("series")}
    snap = cdata.Snapshot(obs, pd.DataFrame(), {}, pd.DataFrame(), tables, by_series)
    return P.build(snap, crosswalk=pd.DataFrame(columns=P.CROSSWALK_COLUMNS))


def test_a_county_is_found_by_its_name_not_by_its_place_in_the_list():
    f = built_places().facilities.set_index("facility_id")
    assert f.at["STEWART", "county"] == "Stewart County, GA" and f.at["STEWART", "county_fips"] == "13259"
    assert (f.at["STEWART", "lat"], f.at["STEWART", "lon"]) == (pytest.approx(32.073), pytest.approx(-84.835))
    assert f.at["STEWART", "county_views"] == ()
    assert f.at["ADAMS", "county"] == "Adams County, MS" and f.at["ADAMS", "county_views"] == ()
    assert f.at["OTERO", "county"] == "Otero County, NM" and f.at["OTERO", "lat"] == pytest.approx(32.616)
    assert "sources disagree about its county" in f.at["OTERO", "notes"]
    # nobody tells the two counties apart: no county is guessed, the facility is placed from its city
    assert f.at["NOWHERE", "county_fips"] == "" and f.at["NOWHERE", "placed"] == "city"
    assert "the registry lists 2 counties" in f.at["NOWHERE", "notes"]


@pytest.mark.parametrize("lang, words", [("en", ("Sources disagree about its county",
                                                 "registry's county field, Doña Ana County, NM",
                                                 "ZIP code table for 88081, Otero County, NM")),
                                         ("es", ("Las fuentes no coinciden en su condado",
                                                 "campo de condado del registro, Doña Ana County, NM",
                                                 "tabla de códigos postales para el 88081, Otero County, NM"))])
def test_the_hover_says_where_sources_disagree_about_a_county(lang, words):
    fig = maps.facility_map(built_places(), "sheet", "2026-07-20", lang=lang)
    hovers = {h.split("</b>")[0].removeprefix("<b>"): h for t in fig.data if t.type == "scattergeo"
              for h in t.hovertext}
    otero = hovers["OTERO COUNTY PROCESSING CENTER"]
    for w in words:
        assert w in otero
    assert "(Otero County, NM)" in otero
    assert words[0] not in hovers["STEWART DETENTION CENTER"] and words[0] not in hovers["ADAMS COUNTY CORRECTIONAL CENTER"]


def test_county_names_compare_without_accents_kinds_or_abbreviations():
    assert P.county_key("Doña Ana County, NM") == P.county_key("DONA ANA") == "DONAANA"
    assert P.county_key("LaSalle Parish") == P.county_key("La Salle") == "LASALLE"
    assert P.county_key("St. Louis city") == "SAINTLOUISCITY" != P.county_key("St. Louis County")
    assert P.county_key("Juneau City and Borough") == "JUNEAU"


def test_the_places_view_table_is_the_export_table(pl):
    """The page's facilities table carries the same corrected points (the CSV is written from it)."""
    t = render(SNAP, pl, PlacesView(map="facilities")).table
    pts = census_points().reset_index().set_index("label")
    row = t[t["code"] == "ADLNTCA"].iloc[0]
    assert row["county"] == "San Bernardino County, CA"
    assert row["lat"] == pytest.approx(float(pts.at["San Bernardino County, CA", "lat"]))
