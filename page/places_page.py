"""The Places tab of the page (Streamlit): maps by state and facility, field offices, a facility's history and
a state's view. Figures come from ``views.places.render``, the same function the command-line export uses;
this module only lays them out, keeps the view in the address bar and offers the downloads.
Data-derived text goes through plain-text elements (st.text, st.dataframe, captions of our own words)."""
from __future__ import annotations

import streamlit as st

from charts import export
from charts.places_export import PAGE_CONFIG, map_html, map_image
from page import browser
from views import data as vdata
from views import places as vp
from views.link import places_from_query, places_to_query
from views.places import DEATH_MAPS, PlacesView, death_link_note, default_release, link_notes, map_label, render
from wording import i18n
from wording.plain import markdown_literal

from . import deaths as pdeaths
from .cache import kept

MAP_CHOICES = ("state", "facilities", "field-offices", "deaths-state", "deaths-facilities")


def _lang() -> str:
    # The page's language (page/lang.py keeps it in session state as w_lang); English outside the page.
    return st.session_state.get("w_lang", "en")


def _sep() -> str:
    # The page's thousands mark (page/lang.py keeps it as w_sep); "," outside the page.
    return st.session_state.get("w_sep", ",")


def _t(key: str, **fields) -> str:
    return i18n.t(f"places.{key}", _lang(), **fields)


@kept(4)
def _places_data(snap):
    # Built once per snapshot (about 3 s): the join depends only on the snapshot, which is read-only.
    return vp.places_data(snap)


# A map takes 40-70 ms to build and the tab reruns on every choice in it (a record opened, a search typed, a
# facility picked): each view is built once a day and kept, as the trend chart's renders are (the day: a deaths
# map's period without an end runs to today).
@kept(32)
def _render(snap, pl, view: PlacesView, lang: str, sep: str, day=None):
    return render(snap, pl, view, lang, sep, today=day)


def _drawn(snap, pl, view: PlacesView, lang: str, sep: str):
    return _render(snap, pl, view, lang, sep, vdata.today())


@kept(16)
def _deaths_not_drawn(snap, pl, start, end, lang: str):
    # the facility map's deaths that are not drawn, each with the reason (what its render counted)
    return vp.deaths_not_drawn(snap, pl, start, end, lang)


def places_data(snap):
    # The spinner is ours, in the reader's language (a cache decorator's text is fixed when the module loads).
    with st.spinner(_t("joining")):
        return _places_data(snap)


def shown(table, lang: str | None = None):
    """A table as the page shows it: on a page in another language its column names (or, for one facility's
    row, its index) in words (places.col.*); the English page and the CSV downloads keep the machine-readable
    names."""
    lang = lang or _lang()
    if lang == "en":
        return table
    name = {c: i18n.t(f"places.col.{c}", lang) for c in (table.columns if hasattr(table, "columns") else table.index)
            if i18n.has(f"places.col.{c}", lang)}
    return table.rename(columns=name) if hasattr(table, "columns") else table.rename(index=name)


def _downloads(r, slug: str, key: str) -> None:
    c = st.columns(4)
    c[0].download_button("PNG", data=lambda: map_image(r.figure, "png"), file_name=f"{slug}.png",
                         mime="image/png", on_click="ignore", key=f"{key}_png")
    c[1].download_button("SVG", data=lambda: map_image(r.figure, "svg"), file_name=f"{slug}.svg",
                         mime="image/svg+xml", on_click="ignore", key=f"{key}_svg")
    c[2].download_button(_t("html"), data=lambda: map_html(r.figure), file_name=f"{slug}.html",
                         mime="text/html", on_click="ignore", key=f"{key}_html")
    c[3].download_button(_t("csv"), data=lambda: export.to_csv(r.table, sources=r.sources, title=r.title, lang=_lang()),
                         file_name=f"{slug}.csv", mime="text/csv", on_click="ignore", key=f"{key}_csv")


def _seed(pl, snap) -> None:
    if "places_seeded" in st.session_state:
        return
    q = st.query_params.to_dict()
    v = places_from_query(q) if q.get("view") == "places" else PlacesView()
    st.session_state["places_link_notes"] = link_notes(q, pl, _lang()) + [
        n for n in [death_link_note(q, vp.death_records(snap), _lang())] if n]
    if v.start and v.end:  # the link's period wins over the page's date range until that range changes
        st.session_state["p_period"] = (v.start, v.end)
    st.session_state["p_death"] = v.death or None
    st.session_state.update({"p_map": v.map if v.map in MAP_CHOICES else "state",
                             "p_release": v.release or default_release(pl), "p_per": v.per_capita,
                             "p_facility": v.facility or None, "p_state": v.state or None, "places_seeded": True})


def places_panel(snap) -> None:
    pl = places_data(snap)
    lang = _lang()
    _seed(pl, snap)
    for k in ("p_map", "p_release", "p_per", "p_facility", "p_state", "p_period", "p_period_page", "p_death",
              "p_death_enf"):  # kept across visits to other tabs
        if k in st.session_state:
            st.session_state[k] = st.session_state[k]
    labels = vp.release_labels(pl, lang)
    if st.session_state.get("p_release") not in labels:
        st.session_state["p_release"] = default_release(pl)
    c1, c2, c3 = st.columns([2, 3, 1])
    c1.radio(_t("show"), list(MAP_CHOICES), key="p_map", format_func=lambda m: map_label(m, lang), horizontal=False)
    deaths_map = st.session_state["p_map"] in DEATH_MAPS
    with c2:
        st.selectbox(_t("as_of"), list(labels), key="p_release", format_func=labels.__getitem__, help=_t("as_of_help"),
                     disabled=deaths_map)
        start, end = pdeaths.period_input(snap, disabled=not deaths_map)
    c3.toggle(_t("per_100k"), key="p_per", disabled=st.session_state["p_map"] != "state")
    ss = st.session_state
    view = PlacesView(map=ss["p_map"], release=ss["p_release"], per_capita=ss["p_per"] and ss["p_map"] == "state",
                      facility=ss.get("p_facility") or "", state=ss.get("p_state") or "",
                      start=start if deaths_map else None, end=end if deaths_map else None,
                      death=ss.get("p_death") or "")
    st.query_params.from_dict(places_to_query(view))
    # What the link asked for that is not there, said until the reader changes the view (as a trend link's notes).
    if ss.get("places_seeded_query") is None:
        ss["places_seeded_query"] = places_to_query(view)
    elif places_to_query(view) != ss["places_seeded_query"]:
        ss["places_link_notes"] = []
    for note in ss.get("places_link_notes") or []:
        st.info(markdown_literal(note))
    r = _drawn(snap, pl, PlacesView(map=view.map, release=view.release, per_capita=view.per_capita, start=view.start,
                                    end=view.end), lang, _sep())
    clickable = view.map in ("facilities", "deaths-facilities")
    sel = st.plotly_chart(browser.fit_to_screen(r.figure), width="stretch", config=PAGE_CONFIG, key="places_map",
                          on_select="rerun" if clickable else "ignore", selection_mode="points")
    picked = [p.get("customdata") for p in (getattr(sel, "selection", None) or {}).get("points", [])
              if p.get("customdata")] if clickable else []
    if picked and picked[0] != ss.get("p_facility"):
        ss["p_facility"] = picked[0]  # the facility selectbox below is drawn after this, so it shows the pick
    st.caption(vp.map_caption(view, lang))
    if deaths_map:
        slug = f"places-{view.map}-{start.isoformat()}-{end.isoformat()}"
    else:
        slug = f"places-{view.map}-{view.release.replace(':', '-')}"
    _downloads(r, slug, "p_main")
    with st.expander(_t("table"), expanded=view.map != "state"):
        st.dataframe(pdeaths.shown(r.table) if deaths_map and lang != "en" else shown(r.table), hide_index=True)
    if deaths_map:
        recs = vp.death_records(snap)
        if view.map == "deaths-facilities":
            pdeaths.unplaced_list(_deaths_not_drawn(snap, pl, start, end, lang))
        pdeaths.record_view(recs, start, end)
    if view.map == "facilities":
        missing = r.table[r.table["lat"].isna()]
        if len(missing):
            st.text(_t("not_on_map", n=len(missing)))
            st.dataframe(shown(missing[["name", "city", "state", "detained_adp", "notes"]]), hide_index=True)

    st.subheader(_t("a_facility"))
    fac, names = vp.facility_choices(pl, _t("no_code"))
    if ss.get("p_facility") not in names:
        ss["p_facility"] = None
    # The search is ours (every word in the name, city, state or code), not the picker's fuzzy filter.
    query = st.text_input(_t("search"), key="p_facility_q", max_chars=80)
    found = vp.search_facilities(fac, query)
    opts = list(found["facility_id"])
    if ss.get("p_facility") and ss["p_facility"] not in opts:
        opts.insert(0, ss["p_facility"])  # a facility clicked on the map stays picked whatever the search
    if query.strip():
        st.caption(_t("matches", found=len(found), total=len(fac), query=markdown_literal(query.strip()))
                   if len(found) else _t("no_match", query=markdown_literal(query.strip())))
    st.selectbox(_t("facility"), opts, key="p_facility", format_func=names.__getitem__, placeholder=_t("pick_facility"))
    if ss.get("p_facility"):
        fr = _drawn(snap, pl, PlacesView(map="facility", facility=ss["p_facility"]), lang, _sep())
        row = fac.set_index("facility_id").loc[ss["p_facility"]]
        st.plotly_chart(fr.figure, width="stretch", config=PAGE_CONFIG, key="places_facility")
        st.dataframe(shown(row[["code", "names", "type", "address", "city", "state", "county", "field_office",
                          "first_ice_release", "last_ice_release", "ice_releases", "in_ice", "in_trac", "in_ddp",
                          "in_registry", "notes"]]).rename(_t("value")).to_frame(), width="stretch")
        _downloads(fr, f"facility-{ss['p_facility']}".replace(":", "-").replace("|", "-"), "p_fac")
        pdeaths.facility_deaths(vp.death_records(snap), pl, ss["p_facility"])

    st.subheader(_t("a_state"))
    states = vp.state_choices(pl)
    st.selectbox(_t("state"), states, key="p_state", placeholder=_t("pick_state"),
                 format_func=vp.state_name)
    if ss.get("p_state"):
        sr = _drawn(snap, pl, PlacesView(map="state-history", state=ss["p_state"]), lang, _sep())
        st.plotly_chart(sr.figure, width="stretch", config=PAGE_CONFIG, key="places_state")
        _downloads(sr, f"state-{ss['p_state']}", "p_state_dl")
        st.text(_t("in_state", state=vp.state_name(ss["p_state"])))
        st.dataframe(shown(vp.state_facilities(pl, view.release, ss["p_state"]))
                     .rename(columns={"value": _t("people_adp")}), hide_index=True)
        arr = vp.state_arrests(snap, ss["p_state"], lang)
        st.text(_t("arrests_in_state"))
        if len(arr):
            st.dataframe(shown(arr), hide_index=True)
        else:
            st.text(_t("no_arrests"))
        st.caption(vp.arrests_caveat(lang))
