"""Deaths in ICE custody on the Places tab (Streamlit): the period of the deaths maps, the deaths not drawn with the
reason, the record view (the one place names and causes are shown) and a facility's deaths. Counts, matches and
notes come from ``views.deaths`` and ``views.places``; this module lays them out. Data-derived text goes
through plain-text elements (st.text, st.dataframe, captions passed through ``markdown_literal``)."""
from __future__ import annotations

import datetime as dt
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from views import data as vdata
from views import deaths as vd
from wording import i18n
from wording.plain import markdown_literal

from . import state

# The record view's columns, in order: names and causes appear here and in one opened record, nowhere else.
TABLE_COLUMNS = ["date", "name", "age", "sex", "country", "facility", "location", "custody", "row"]
FACILITY_COLUMNS = ["date", "fiscal_year", "facility", "location", "facility_type", "custody", "row"]
RECORD_FIELDS = ["date", "fiscal_year", "name", "age", "sex", "country", "facility", "location", "facility_type",
                 "cause", "custody", "period"]
EARLIEST = dt.date(2003, 10, 1)


def _lang() -> str:
    return st.session_state.get("w_lang", "en")


def _t(key: str, **fields) -> str:
    return i18n.t(f"deaths.{key}", _lang(), **fields)


def shown(table: pd.DataFrame) -> pd.DataFrame:
    """Column names in words (deaths.col.*) in the reader's language; the English page keeps the machine names
    for the counts tables, as the Places tables do, but the record view always speaks in words."""
    lang = _lang()
    if "custody" in table.columns:
        table = table.assign(custody=table["custody"].map(lambda v: custody_text(v, lang)))
    return table.rename(columns={c: i18n.t(f"deaths.col.{c}", lang) for c in table.columns
                                 if i18n.has(f"deaths.col.{c}", lang)})


def custody_text(value: str, lang: str) -> str:
    """The record table's custody mark ("in custody", "enforcement action") in words, in the reader's language."""
    return i18n.t(f"deaths.custody.{value}", lang) if i18n.has(f"deaths.custody.{value}", lang) else value


def page_range(page_snap) -> tuple[dt.date, dt.date]:
    """The page's date range (the one the Trends tab draws), or 20 January 2025 to today when the page has none."""
    today = vdata.today()
    try:  # the page's view lives in the trends widgets' session state
        return vd.page_period(page_snap, state.current_view(), today)
    except (KeyError, AttributeError, TypeError):
        return vd.page_period(page_snap, None, today)


def period_input(snap, disabled: bool) -> tuple[dt.date, dt.date]:
    """The deaths maps' period: seeded from the link's from/to, else from the page's date range, which it follows
    whenever that range changes (a change made here stays until then)."""
    ss = st.session_state
    rng = page_range(snap)
    if ss.get("p_period_page") != rng:
        if ss.get("p_period_page") is not None or "p_period" not in ss:
            ss["p_period"] = rng
        ss["p_period_page"] = rng
    lo, hi = EARLIEST, max(vdata.today(), rng[1])
    cur = ss.get("p_period")
    if not (isinstance(cur, (tuple, list)) and len(cur) == 2):
        cur = rng
    ss["p_period"] = tuple(min(max(d, lo), hi) for d in cur)
    st.date_input(_t("period"), key="p_period", min_value=lo, max_value=hi, help=_t("period_help"),
                  disabled=disabled, format="YYYY-MM-DD")
    got = ss.get("p_period")
    if isinstance(got, (tuple, list)) and len(got) == 2:
        ss["p_period_last"] = tuple(got)
        return tuple(got)
    return tuple(ss.get("p_period_last") or rng)  # half-chosen (one date picked): keep the last whole period


def _pick(event, table: pd.DataFrame, key: str) -> None:
    """A row selected in a table of deaths opens its record (``p_death``), once per new selection."""
    rows = (getattr(event, "selection", None) or {}).get("rows", []) if event is not None else []
    chosen = str(table.iloc[rows[0]]["row"]) if rows and rows[0] < len(table) else ""
    ss = st.session_state
    if chosen and chosen != ss.get(f"{key}_last"):
        ss["p_death"] = chosen
        # The address bar was written at the top of this run, before the pick: the record's link is added now.
        if st.query_params.get("view") == "places":
            st.query_params["death"] = chosen
    ss[f"{key}_last"] = chosen


def unplaced_list(unplaced: pd.DataFrame) -> None:
    """The deaths of the period the facility map could not draw, each with the reason."""
    if len(unplaced):
        st.text(i18n.plural("deaths.unplaced", len(unplaced), _lang()))
        st.dataframe(shown(unplaced), hide_index=True)


def record_view(recs: pd.DataFrame, start: dt.date, end: dt.date) -> None:
    """The searchable table of the period's deaths and the record opened from it (or from a link)."""
    ss = st.session_state
    st.subheader(_t("records"))
    st.caption(_t("records_intro"))
    notes = vd.coverage_notes(recs, start, end, _lang())
    for note in notes:
        st.info(note)
    st.toggle(_t("with_enforcement"), key="p_death_enf")
    period = vd.period_records(recs, start, end, bool(ss.get("p_death_enf")))
    query = st.text_input(_t("search"), key="p_death_q", max_chars=80)
    found = vd.search(period, query)
    if query.strip():
        st.caption(_t("matches", found=len(found), total=len(period), query=markdown_literal(query.strip()))
                   if len(found) else _t("no_match", query=markdown_literal(query.strip())))
    table = found[TABLE_COLUMNS].reset_index(drop=True)
    ev = st.dataframe(shown(table), hide_index=True, on_select="rerun", selection_mode="single-row",
                      key="p_death_table")
    _pick(ev, table, "p_death_table")
    rec = vd.record(recs, ss.get("p_death") or "")
    if rec is not None:
        record_panel(rec)


def record_panel(rec: dict) -> None:
    """One death's record: every field as printed, and the link to ICE's report or the press reporting."""
    lang = _lang()
    st.markdown("**" + markdown_literal(_t("record", date=i18n.date(rec["day"], lang, "long"))) + "**")
    if rec["custody"] != "in custody":
        st.warning(_t("not_custody"))
    fields = pd.Series({i18n.t(f"deaths.col.{f}", lang): custody_text(rec[f], lang) if f == "custody" else str(rec[f])
                        for f in RECORD_FIELDS},
                       name=i18n.t("places.value", lang))
    st.dataframe(fields.to_frame(), width="stretch")
    what = vd.report_text(rec, lang)
    link = str(rec["link"])
    if link.startswith("https://"):
        st.link_button(_t("open_link", what=what), link)
        st.caption(markdown_literal(link))
    else:
        st.text(_t("no_link", link=link or "-"))
    st.caption(markdown_literal(_t("row_note", row=rec["row"], file=rec["file"], period=rec["period"])))


def facility_deaths(recs: pd.DataFrame, pl, facility_id: str) -> None:
    """The deaths the list puts at one facility, each opening its record."""
    d = vd.at_facility(recs, pl, facility_id)
    if not len(d):
        st.text(_t("none_at_facility"))
        return
    st.text(_t("at_facility", n=int((d["custody"] == "in custody").sum())))
    table = d[FACILITY_COLUMNS].reset_index(drop=True)
    ev = st.dataframe(shown(table), hide_index=True, on_select="rerun", selection_mode="single-row",
                      key="p_fac_deaths")
    _pick(ev, table, "p_fac_deaths")
    rec = vd.record(recs, st.session_state.get("p_death") or "")
    if rec is not None and rec["row"] in set(table["row"]):
        record_panel(rec)


def records_link(r) -> None:
    """Under a trends chart that draws a deaths series: one link to the same period's deaths on the Places tab,
    where each death's record opens (names and causes are there, never on the chart)."""
    if not vd.draws_deaths(r):
        return
    q = {"view": "places", "map": "deaths-facilities", "from": r.lo.isoformat(), "to": r.hi.isoformat()}
    if _lang() != "en":
        q["lang"] = _lang()
    st.caption(_t("records_link", url="?" + urlencode(q)))
