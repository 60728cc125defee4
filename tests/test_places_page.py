"""The Places tab under Streamlit's AppTest: controls, the permalink, facility and state views."""
import json

from tests.test_page import app, open_tab


def charts(at) -> dict:
    return {c.proto.id.split("-")[-1] if c.proto.id else "": json.loads(c.proto.spec) for c in at.get("plotly_chart")}


def titles(at) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def test_places_tab_draws_the_state_map_and_follows_its_controls():
    at = open_tab(app(), "Places")
    assert any("by state" in t for t in titles(at))
    assert at.query_params["view"] == ["places"] or at.query_params["view"] == "places"
    at.toggle(key="p_per").set_value(True).run()
    assert not at.exception
    assert any("per 100,000 residents" in t for t in titles(at))
    at.radio(key="p_map").set_value("facilities").run()
    assert any("facilities, sized by" in t for t in titles(at))
    spec = [json.loads(c.proto.spec) for c in at.get("plotly_chart")][0]
    assert json.loads(at.get("plotly_chart")[0].proto.config)["topojsonURL"] == "app/static/maps/"
    assert spec["layout"]["geo"]["projection"]["type"] == "albers usa"


def test_facility_and_state_views():
    at = open_tab(app(), "Places")
    at.selectbox(key="p_facility").set_value("JENADLA").run()
    assert not at.exception
    assert any("(JENADLA)" in t for t in titles(at))
    at.selectbox(key="p_state").set_value("TX").run()
    assert not at.exception
    assert any("in Texas" in t for t in titles(at))
    frames = [d.value for d in at.dataframe]
    arrests = [f for f in frames if "caveat" in f.columns]
    assert arrests and (arrests[0]["arrests"] > 0).all()
    assert any("imputed" in c.value for c in at.caption)


def test_permalink_opens_the_places_view():
    at = app({"view": "places", "map": "field-offices", "release": "trac:2026-07-09"})
    assert not at.exception
    assert any("field office" in t for t in titles(at))
    assert at.selectbox(key="p_release").value == "trac:2026-07-09"


def test_facility_search_matches_what_it_says():
    # Issue #16: the picker's fuzzy filter matched "Krome" to four facilities, KARNES CO among them.
    at = open_tab(app(), "Places")
    at.text_input(key="p_facility_q").input("Krome").run()
    assert not at.exception
    options = at.selectbox(key="p_facility").options
    assert options and all("KROME" in o.upper() for o in options), options
    assert not any("KARNES" in o.upper() for o in options)
    assert any("3 of" in c.value and "match" in c.value for c in at.caption)
    at.selectbox(key="p_facility").set_value("KRO").run()
    assert any("(KRO)" in t for t in titles(at))


def test_every_map_keeps_its_title_as_typed_beside_the_figure():
    # File names and alt text take the title as typed, kept by the figure (charts.maps._title), not recovered
    # by stripping tags out of its escaped HTML title (which turned "&amp;" back by hand).
    import plotly.graph_objects as go

    from figures import maps
    fig = go.Figure()
    maps._title(fig, 'Krome & "North" <Service> Processing', "sub")
    assert fig._title_plain == 'Krome & "North" <Service> Processing'
    assert "&amp;" in fig.layout.title.text and "<Service>" not in fig.layout.title.text
