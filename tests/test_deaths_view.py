"""Deaths in ICE custody on the page: the Places maps by state and facility for a period, the record view, a
facility's deaths, and what every export of them carries. Names stay in the record view: no chart, map, hover or
series export holds one. Read from the bundled snapshot (data/), which every clone has."""
from __future__ import annotations

import datetime as dt
import html
import io
import json

import pandas as pd
import pytest

from analysis import deaths as DV
from analysis import places as P
from analysis.view import View
from charts import export
from charts.places_export import map_html
from figures import maps
from figures.core import source_lines
from loaders import data as cdata
from views import event_study as es
from views import link
from views.compose import render as render_trend
from views.data import series_options
from views.places import DEATH_MAPS, PlacesView, death_link_note, render

SNAP = cdata.load_snapshot()
WHOLE = (dt.date(2003, 10, 1), dt.date(2026, 12, 31))
LAST = dt.date(2026, 1, 24)  # the latest date in the bundled list


@pytest.fixture(scope="module")
def pl():
    return P.build(SNAP)


@pytest.fixture(scope="module")
def recs():
    return DV.records(SNAP)


def names(recs) -> list[str]:
    """Every person's name in the list, as printed (upper case) and as a reader might write it."""
    out = [n for n in recs["name"] if n.strip()]
    assert len(out) > 250  # the list names nearly everyone: the test below checks real names
    return out + [n.title() for n in out] + [html.escape(n) for n in out if html.escape(n) != n]


def _texts_of(r, lang) -> list[str]:
    fig = r.figure.to_json()
    page = map_html(r.figure).decode("utf-8")
    csv = export.to_csv(r.table, sources=r.sources, title=r.title, lang=lang).decode("utf-8")
    return [fig, page, csv]


@pytest.mark.parametrize("lang", ["en", "es"])
@pytest.mark.parametrize("which", DEATH_MAPS)
def test_no_name_on_a_deaths_map_its_hover_or_its_csv(pl, recs, which, lang):
    r = render(SNAP, pl, PlacesView(map=which, start=WHOLE[0], end=WHOLE[1]), lang)
    assert r.figure is not None, r.problem
    everyone = names(recs)
    for text in _texts_of(r, lang):
        found = [n for n in everyone if n in text]
        assert found == [], found[:5]
    # and the figure does draw deaths: the check above is not passed by an empty map
    assert r.table["deaths"].sum() == recs["in_custody"].sum()


def test_no_name_in_the_deaths_series_chart_or_its_exports(recs):
    sids = [s for s in SNAP.series_ids() if s.startswith("deaths_in_custody.")]
    refs = [s for s in sids if not SNAP.info(s)["breakdown"]] + ["deaths_in_custody.deaths_fy_by_facility_type|IGSA"]
    r = render_trend(SNAP, View(series=refs, preset="all"), generated_on=dt.date(2026, 12, 1))
    csv = export.to_csv(r.table, sources=source_lines(SNAP, r.prepared), title="t").decode("utf-8")
    fig = r.figure.to_json()
    full = r.totals_figure.to_json() if r.totals_figure is not None else ""
    everyone = names(recs)
    assert [n for n in everyone if n in fig or n in csv or n in full] == []
    assert len(r.table) > 200
    # the whole dataset's download (every series, the catalogue, the findings) holds none either
    import zipfile
    with zipfile.ZipFile(io.BytesIO(export.full_dataset_zip(cdata.DATA))) as z:
        text = " ".join(z.read(n).decode("utf-8") for n in z.namelist())
    assert "deaths_in_custody.deaths_monthly" in text
    assert [n for n in everyone if n in text] == []


def test_custody_counts_leave_out_deaths_during_enforcement_actions(pl, recs):
    jan = (dt.date(2026, 1, 1), dt.date(2026, 1, 31))
    enforcement = DV.in_period(recs, *jan, custody=False)
    assert len(enforcement) == 2 and set(enforcement["state"]) == {"MN"}
    by_state = DV.by_state(recs, *jan)
    assert "MN" not in set(by_state["state"])
    assert by_state["deaths"].sum() == ((recs["day"] >= jan[0]) & (recs["day"] <= jan[1]) & recs["in_custody"]).sum()
    placed, unplaced = DV.by_facility(recs, pl, *jan)
    assert placed["deaths"].sum() + len(unplaced) == by_state["deaths"].sum()
    assert not unplaced["facility"].str.contains("enforcement action", case=False).any()
    r = render(SNAP, pl, PlacesView(map="deaths-state", start=jan[0], end=jan[1]))
    assert any("2 deaths in this period during enforcement actions" in s for s in r.sources)
    # the series keeps them apart too: the monthly custody count of January 2026 is the custody rows only
    m = SNAP.by_series["deaths_in_custody.deaths_monthly"]
    assert float(m.loc[m["date"] == "2026-01-01", "value"].iloc[0]) == by_state["deaths"].sum()


def test_every_death_of_the_period_is_drawn_or_listed_with_its_reason(pl, recs):
    placed, unplaced = DV.by_facility(recs, pl, *WHOLE)
    assert placed["deaths"].sum() + len(unplaced) == recs["in_custody"].sum()
    assert placed["lat"].notna().all() and (placed["facility_id"] != "").all()
    assert (unplaced["reason"].str.len() > 10).all()
    hosp = unplaced[unplaced["facility"] == "Columbia Care Center SC"]
    assert len(hosp) and hosp["reason"].str.contains("hospital").all()
    table = DV.facility_table(placed, unplaced)
    assert table["deaths"].sum() == recs["in_custody"].sum()
    assert (table.loc[table["facility_id"] == "", "not_on_map"] != "").all()
    es_reasons = DV.by_facility(recs, pl, *WHOLE, lang="es")[1]["reason"]
    assert es_reasons.str.contains("hospital|ninguna lista|revisado|condado").all()


def test_facilities_are_matched_through_the_places_crosswalk(pl, recs):
    w = DV.with_facilities(recs[recs["in_custody"]], pl)
    by_name = dict(zip(w["facility"], w["facility_id"]))
    assert by_name["Stewart Detention Center (GA)"] == "STWRTGA"
    assert by_name["Port Isabel Detention Center (PIDC)"] == "PIC"  # a reviewed row (source "deaths")
    assert by_name["Laredo Processing Center TX"] == "LRDICDF"  # not the hold room of a looser rule
    assert by_name["Karnes County Immigration Processing Center (KCIPC)"] == "KRNRCTX"
    assert w.loc[w["facility"] == "Port Isabel Detention Center (PIDC)", "match"].iloc[0].startswith("reviewed")
    cw = P.read_crosswalk()
    mine = cw[cw["source"] == "deaths"]
    assert len(mine) >= 10 and set(mine["name"]) <= set(recs["facility"])  # no stale row


def test_the_list_end_is_said_wherever_the_period_runs_past_it(pl, recs):
    assert DV.list_end(recs) == LAST
    for which in DEATH_MAPS:
        r = render(SNAP, pl, PlacesView(map=which, start=dt.date(2025, 6, 1), end=dt.date(2026, 6, 30)))
        said = "The list has no entries after 24 January 2026"
        assert any(said in s for s in r.sources)
        assert said in json.dumps(json.loads(r.figure.to_json())["layout"]).replace("<br>", " ")
        r_es = render(SNAP, pl, PlacesView(map=which, start=dt.date(2025, 6, 1), end=dt.date(2026, 6, 30)), "es")
        assert any("no recoge casos posteriores al 24 de enero de 2026" in s for s in r_es.sources)
        inside = render(SNAP, pl, PlacesView(map=which, start=dt.date(2025, 6, 1), end=LAST))
        assert not any("no entries after" in s for s in inside.sources)
    gap = DV.coverage_notes(recs, dt.date(2017, 1, 1), dt.date(2017, 12, 31))
    # the FOIA list stops on 5 June 2017 and the list's ICE death reports start on 10 April 2018 (issue 37)
    assert "From 6 June 2017 to 9 April 2018" in gap[0]
    assert gap[1].startswith("FY2017: the list covers only 1 October 2016 to 5 June 2017")
    assert gap[2].startswith("FY2018: the list covers only 10 April 2018 to 30 September 2018 of the year and "
                             "counts 6 deaths in custody; ICE gave 9 for the whole year") and len(gap) == 3


def test_deaths_exports_carry_the_source_and_the_cc_by_credit(pl, recs):
    for which in DEATH_MAPS:
        for lang in ("en", "es"):
            r = render(SNAP, pl, PlacesView(map=which, start=WHOLE[0], end=WHOLE[1]), lang)
            fig, page, csv = _texts_of(r, lang)
            for text in (fig, page, csv):
                assert "CC BY 4.0" in text and "E. Chin" in text and "ice-detention-mortality" in text
            body = pd.read_csv(io.StringIO(csv), comment="#", dtype=str, keep_default_na=False)
            assert {"deaths", "from", "to", "state"} <= set(body.columns)
    # the series' own exports (trend chart CSV and footer, event study sources) carry the same credit
    r = render_trend(SNAP, View(series=["deaths_in_custody.deaths_monthly"], preset="all"))
    lines = source_lines(SNAP, r.prepared)
    assert any("CC BY 4.0" in s and "E. Chin" in s for s in lines)
    assert "CC BY 4.0" in json.dumps(json.loads(r.figure.to_json())["layout"])
    assert any("CC BY 4.0" in s for s in es.full_range_sources(SNAP, "deaths_in_custody.deaths_monthly", "es"))


def test_the_spanish_credit_translates_the_declared_one_word_for_word():
    from loaders.deaths_in_custody import ATTRIBUTION
    from wording import i18n
    assert i18n.t("deaths.credit", "en") == ATTRIBUTION == SNAP.source_entry("deaths_in_custody")["attribution"]
    lines = maps.deaths_source_lines(SNAP.source_entry("deaths_in_custody"), LAST, "es")
    assert lines[1] == i18n.t("deaths.credit", "es") + "." and "CC BY 4.0" in lines[1]


def test_the_deaths_series_are_selectable_on_the_trends_chart_and_in_the_event_study():
    opts = series_options(SNAP)
    for sid in ("deaths_in_custody.deaths_monthly", "deaths_in_custody.deaths_fy",
                "deaths_in_custody.deaths_per_100k_fy", "deaths_in_custody.enforcement_deaths_monthly"):
        assert sid in opts
    assert any(o.startswith("deaths_in_custody.deaths_fy_by_facility_type|") for o in opts)
    flow, first, last, res = es.study_numbers(SNAP, "deaths_in_custody.deaths_monthly", dt.date(2025, 1, 20), 90)
    assert flow and last.date() == LAST and res is not None


def test_record_state_reads_the_printed_place():
    assert DV.record_state("Kern County Jail (Lerdo), CA") == "CA"
    assert DV.record_state("Los Fresnos, Texas") == "TX"
    assert DV.record_state("Jena, Louisiana (LA)") == "LA"
    assert DV.record_state("Winnfield, Louisiana (WCC) / Alexandria, Louisiana (CSFC)") == "LA"
    assert DV.record_state("", "Stewart Detention Center (GA)") == "GA"
    assert DV.record_state("somewhere", "No state here") == ""


def test_a_facility_has_its_deaths_without_names(pl, recs):
    d = DV.at_facility(recs, pl, "STWRTGA")
    assert len(d) >= 12 and list(d.columns) == DV.PLAIN_COLUMNS
    assert d["date"].is_monotonic_increasing
    assert not set(d.astype(str).to_numpy().ravel()) & set(recs["name"])
    assert DV.record(recs, d["row"].iloc[0])["facility"].startswith("Stewart")


def test_the_permalink_keeps_the_period_and_the_record(recs):
    v = PlacesView(map="deaths-facilities", start=dt.date(2025, 1, 20), end=dt.date(2026, 3, 1), death="273")
    q = link.places_to_query(v)
    assert q["from"] == "2025-01-20" and q["to"] == "2026-03-01" and q["death"] == "273"
    assert link.places_from_query(q) == v
    odd = link.places_from_query({"map": "deaths-state", "from": "2026-02-01", "to": "2025-02-01", "death": "x1"})
    assert (odd.start, odd.end, odd.death) == (dt.date(2025, 2, 1), dt.date(2026, 2, 1), "")
    assert death_link_note({"view": "places", "death": "999999"}, recs) != ""
    assert death_link_note({"view": "places", "death": "273"}, recs) == ""


def test_report_links_say_what_they_are(recs):
    ice = DV.record(recs, recs.loc[recs["link_kind"] == "ICE", "row"].iloc[0])
    press = DV.record(recs, recs.loc[recs["link_kind"] == "press", "row"].iloc[0])
    assert DV.report_text(ice) == "ICE's report" and press and "press reporting" in DV.report_text(press)
    assert DV.report_text(press, "es").startswith("información de prensa")


# ---------------------------------------------------------------- the page (Streamlit's AppTest)

def _page(query: dict):
    from tests.test_page import app
    return app(query, panels=False)


def _chart_specs(at) -> str:
    return " ".join(c.proto.spec for c in at.get("plotly_chart"))


def test_the_deaths_map_its_record_view_and_a_facility_s_deaths_on_the_page(recs):
    at = _page({"view": "places", "map": "deaths-facilities", "from": "2025-01-20", "to": "2026-06-30",
                "death": "273"})
    assert at.radio(key="p_map").value == "deaths-facilities"
    assert at.date_input(key="p_period").value == (dt.date(2025, 1, 20), dt.date(2026, 6, 30))
    assert "Deaths in ICE custody by facility" in _chart_specs(at)
    assert any("no entries after 24 January 2026" in i.value for i in at.info)  # the record view says so
    frames = [d.value for d in at.dataframe]
    table = next(f for f in frames if "name" in f.columns and "date of death" in f.columns)
    period = DV.in_period(recs, dt.date(2025, 1, 20), dt.date(2026, 6, 30))
    assert set(table["name"]) == set(period["name"])  # names are shown here, in the record view
    unplaced = next(f for f in frames if "why not on the map" in f.columns)
    assert len(unplaced) and (unplaced["why not on the map"].str.len() > 10).all()
    # the record the link opened: its fields and its link
    rec = DV.record(recs, "273")
    fields = next(f for f in frames if "cause (as ICE printed it)" in f.index)
    assert fields.loc["cause (as ICE printed it)"].iloc[0] == rec["cause"]
    assert fields.loc["name"].iloc[0] == rec["name"]
    assert any(rec["link"].split("//")[1][:20] in c.value.replace("\\", "") for c in at.caption)
    # no name on any chart of the page, hover texts included
    specs = _chart_specs(at)
    assert [n for n in recs["name"] if n and n in specs] == []
    # a facility's deaths (the facility view), each row a record to open
    at.selectbox(key="p_facility").set_value("STWRTGA").run()
    assert not at.exception
    n = int(((DV.with_facilities(recs, P.build(SNAP))["facility_id"] == "STWRTGA") & recs["in_custody"]).sum())
    assert any(t.value.startswith("Deaths in ICE custody at this facility") and t.value.count(f": {n}.")
               for t in at.text)
    fac = next(f for f in (d.value for d in at.dataframe) if "fiscal year" in f.columns and "name" not in f.columns)
    assert len(fac) == n and set(fac["facility (as printed)"]) <= set(recs["facility"])


def test_the_record_view_in_spanish_and_a_link_to_a_record_the_list_lacks():
    at = _page({"view": "places", "map": "deaths-state", "from": "2025-10-01", "to": "2026-03-31", "death": "999999",
                "lang": "es"})
    assert "Muertes bajo custodia de ICE por estado" in _chart_specs(at)
    assert any("no recoge casos posteriores al 24 de enero de 2026" in i.value for i in at.info)
    assert any("999999" in i.value and "ficha" in i.value for i in at.info)  # said, not dropped
    cols = set().union(*(set(d.value.columns) for d in at.dataframe))
    assert {"fecha de la muerte", "nombre", "país de nacionalidad", "¿bajo custodia?"} <= cols
    assert at.date_input(key="p_period").label == "Periodo (fecha de la muerte)"
    from tests.test_page_es import english_in, figure_texts, offenders
    assert offenders(at) == [] and english_in(figure_texts(at)) == []
    # the facility map, a record opened and a facility's deaths, all in Spanish too
    at = _page({"view": "places", "map": "deaths-facilities", "death": "273", "facility": "STWRTGA", "lang": "es"})
    assert offenders(at) == [] and english_in(figure_texts(at)) == []
    shown = {str(c) for d in at.dataframe for c in list(d.value.columns) + list(d.value.index.astype(str))}
    assert {"causa (como la escribió ICE)", "fila en el archivo", "por qué no está en el mapa"} <= shown
    assert not {"cause", "row", "reason", "date"} & shown
    marks = {v for d in at.dataframe if "¿bajo custodia?" in d.value.columns for v in d.value["¿bajo custodia?"]}
    assert marks and marks <= {"bajo custodia", "durante un operativo (fuera de la custodia)"}


# ---------------------------------------------------------------- in a real browser (slow tier)

try:
    from tests.test_e2e import browser, rerun, server  # noqa: F401 (fixtures)
    from tests.test_places_e2e import drawn, offline, open_places  # noqa: F401 (fixtures)
except BaseException as exc:  # the browser modules skip themselves when there is no Chromium
    _NO_BROWSER = str(exc) or "no browser"
else:
    _NO_BROWSER = ""


@pytest.mark.browser
@pytest.mark.skipif(bool(_NO_BROWSER), reason=f"browser tests unavailable: {_NO_BROWSER}")
def test_in_the_browser_a_click_on_the_records_table_opens_a_record(offline, server):  # noqa: F811
    page = offline
    open_places(page, server, "view=places&map=deaths-facilities&from=2025-01-20&to=2026-06-30")
    s = drawn(page, "s => s.points >= 10 && s.title.includes('Deaths in ICE custody by facility')")
    # The period asked for runs past the list's last entry: the title ends on the data's own end (issue 37).
    assert s["land"] > 0 and "20 January 2025 to 24 January 2026" in s["title"]
    table = page.locator(".st-key-p_death_table")
    table.scroll_into_view_if_needed()
    box = table.bounding_box()
    assert page.get_by_text("Record of the death on").count() == 0
    with rerun(page):  # the first row's selection box: under the header row, at the left edge
        page.mouse.click(box["x"] + 16, box["y"] + 35 + 17)
    page.get_by_text("Record of the death on").first.wait_for(timeout=60_000)
    assert "death=" in page.url
    # The record's elements arrive one after another in the same run: wait for its link too (on a loaded machine
    # the text was there before the link, and a count taken at once found none).
    page.get_by_role("link", name="Open ").first.wait_for(timeout=60_000)


def test_a_trends_chart_of_deaths_links_to_that_period_s_records():
    at = _page({"series": "deaths_in_custody.deaths_monthly", "preset": "custom", "start": "2025-01-20",
                "end": "2026-01-31"})
    links = [c.value for c in at.caption if "view=places" in c.value]
    assert len(links) == 1 and "map=deaths-facilities" in links[0]
    assert "from=2025-01-20" in links[0] and "to=2026-01-31" in links[0]
    at = _page({"series": "ice_detention_stats.detained_total"})
    assert not [c.value for c in at.caption if "map=deaths-facilities" in c.value]


def test_a_snapshot_without_the_deaths_list_draws_empty_maps_not_errors(pl):
    import types

    from loaders.memo import Memo
    bare = types.SimpleNamespace(tables={}, memo=Memo(), source_entry=lambda sid: {})
    recs = DV.records(bare)
    assert recs.empty and DV.list_end(recs) is None
    for which in DEATH_MAPS:
        r = render(bare, pl, PlacesView(map=which, start=WHOLE[0], end=WHOLE[1]))
        assert r.figure is not None and r.table["deaths"].sum() == 0
