"""The Trends and events tab: series picker, chart options, events controls, the chart and what goes with it
(definitions, events legend, data, revisions when as published), then the downloads."""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from charts import export
from views import data as vdata
from views import trends as vt
from views.compose import Rendered, sources_of
from views.data import RangeGap, View
from views.link import trends_to_query
from wording import i18n
from wording.plain import markdown_literal

from . import context, deaths, exports, state, uploads
from . import lang as plang
from .browser import chart_size, fit_chart_to_screen, phone_layout
from .cache import kept
from .context import Page
from .lang import t


def ref_label(page: Page, ref: str, lang: str | None = None) -> str:
    """A picker label ("title: member") with the title in the reader's language; members are data."""
    lang = lang or plang.lang()
    if lang == "en":
        return page.ref_label(ref)
    sid, _, key = ref.partition("|")
    return i18n.series_text(sid, "title", lang, page.ref_label(sid)) + (f": {key}" if key else "")


def picker_labels(page: Page, lang: str | None = None) -> dict[str, str]:
    """The series picker's label of each option in the reader's language, built once per snapshot and language
    (shared, read-only). Formatting the 291 labels on every run read the language from the session state
    twice per option: 15-30 ms of each change of the date range."""
    return _picker_labels(page, lang or plang.lang())


@kept(4)
def _picker_labels(page: Page, lang: str) -> dict[str, str]:
    return {r: ref_label(page, r, lang) for r in page.options}


def link_notes(view: View) -> list[str]:
    """What was changed in the link as opened; the notes go once the reader changes the view."""
    ss = st.session_state
    query = trends_to_query(view)
    if ss.get("seeded_query") is None:
        ss["seeded_query"] = query
    elif query != ss["seeded_query"]:
        ss["link_notes"] = []
    notes = ss.get("link_notes") or []
    if notes:
        with st.container(key="link_notes"):
            for note in notes:
                st.info(markdown_literal(note))
    return notes


def series_picker(page: Page) -> list[str]:
    """The series; return those chosen."""
    return st.multiselect(t("page.trends.series"), page.options, key="w_series", format_func=picker_labels(page).__getitem__,
                          help=t("page.trends.series_help"))


def range_picker(page: Page) -> str:
    """The date range (a preset, or a custom range) and what the preset counts from; return the preset."""
    lo_bound, hi_bound = page.range_bounds(vdata.today())
    # Buttons, not a drop-down: a drop-down's menu opens on the press and, while the browser was still busy
    # drawing a chart that had just appeared, closed again on the same click (the first click was lost in most
    # tries made within seconds of the chart appearing). A button has no menu to open and close.
    st.segmented_control(t("page.trends.date_range"), list(vt.PRESETS), key="w_preset", required=True,
                         format_func=plang.words("preset", vt.PRESETS), on_change=_custom_from_shown,
                         args=(lo_bound, hi_bound))
    if st.session_state["w_preset"] == "custom":
        st.date_input(t("page.trends.custom_range"), key="w_range", min_value=lo_bound, max_value=hi_bound)
    else:
        preset_caption(page, state.current_view())
    return st.session_state["w_preset"]


def _custom_from_shown(lo_bound: dt.date, hi_bound: dt.date) -> None:
    """A custom range starts as the range the reader was looking at, so it ends at the chosen series' last figure,
    not today (the picker allows up to today; an end past the data only adds empty months)."""
    ss = st.session_state
    shown = ss.get("shown_range")
    if ss.get("w_preset") == "custom" and shown:
        ss["w_range"] = tuple(min(max(d, lo_bound), hi_bound) for d in shown)


def preset_caption(page: Page, view: View) -> str:
    """Say what the date range preset counts from (the chosen series' latest figure, not today) and the dates
    it means; return the text shown ("" when the series have no data)."""
    rng = context.view_facts(page, view)[0]
    if rng is None:
        return ""
    lo, hi, _, last = rng
    st.session_state["shown_range"] = (lo, hi)  # where a custom range starts (``_custom_from_shown``)
    if view.preset == "all":
        text = t("page.trends.preset_all", lo=lo, hi=hi)
    elif view.preset == "since-2025-01-20":
        text = t("page.trends.preset_since", lo=lo, last=last)
    else:
        text = t("page.trends.preset_other", last=last, lo=lo, hi=hi)
    st.caption(text)
    return text


def breakdown_picker(page: Page) -> list[str]:
    """Members of the big breakdowns (facilities, states, ...); return those on the chart."""
    if not page.big_breakdowns:
        return []
    snap, ss = page.snap, st.session_state
    box = state.lazy_expander(t("page.trends.breakdowns"), "x_breakdowns")
    if not box.open:
        return list(ss["w_extra"])
    with box:
        b_sid = st.selectbox(t("page.trends.breakdown_series"), page.big_breakdowns,
                             format_func=lambda s: ref_label(page, s), key="w_big_sid")
        picked = st.multiselect(t("page.trends.breakdown_members", breakdown=snap.info(b_sid)['breakdown'].capitalize()),
                                snap.keys(b_sid), max_selections=8, key="w_big_keys")
        if st.button(t("page.trends.add_to_chart"), key="w_big_add"):
            ss["w_extra"] = list(dict.fromkeys(list(ss["w_extra"]) + [f"{b_sid}|{k}" for k in picked]))[:12]
            st.rerun()
        if ss["w_extra"]:
            st.multiselect(t("page.trends.members_on_chart"), ss["w_extra"], key="w_extra",
                           format_func=lambda r: ref_label(page, r))
    return list(ss["w_extra"])


def granularity_note(page: Page, view: View) -> str:
    """Next to the frequency control: the chosen series that it leaves at their own frequency, and why
    (``views.trends.granularity_kept``); "" when it regroups every one of them."""
    kept = []
    for ref, freq in vt.granularity_kept(page.snap, view):
        freq = t(f"frequency.{freq}") if i18n.has(f"frequency.{freq}", plang.lang()) else freq
        kept.append(t("page.trends.gran_kept_item", label=ref_label(page, ref), frequency=freq))
    return t(f"page.trends.gran_kept_{view.granularity}", names="; ".join(kept)) if kept else ""


def chart_options(page: Page, events: pd.DataFrame) -> None:
    """Granularity, per day, rolling average, index, log scale, fiscal axis, as published, reported figures."""
    ss = st.session_state
    box = state.lazy_expander(t("page.trends.chart_options"), "x_options")
    if not box.open:
        return
    with box:
        o1, o2, o3 = st.columns(3)
        with o1:
            st.radio(t("page.trends.granularity"), list(vt.GRANULARITIES), key="w_gran",
                     format_func=plang.words("granularity", vt.GRANULARITIES), horizontal=True)
            note = granularity_note(page, state.current_view())
            if note:
                st.caption(note)
            st.checkbox(t("page.trends.per_day"), key="w_perday", help=t("page.trends.per_day_help"))
            st.radio(t("page.trends.rolling"), list(vt.ROLLING), key="w_roll", format_func=plang.words("rolling", vt.ROLLING),
                     horizontal=True)
        with o2:
            st.checkbox(t("page.trends.index_on"), key="w_index_on")
            if ss["w_index_on"]:
                st.date_input(t("page.trends.index_date"), key="w_index_at")
                if events is not None and len(events):
                    ev_ids = [""] + events.sort_values("date")["id"].astype(str).tolist()
                    shown = i18n.translated_events(events, plang.lang())
                    labels = {str(r.id): f"{pd.Timestamp(r.date).date()} {r.title}" for r in shown.itertuples()}
                    st.selectbox(t("page.trends.index_event"), ev_ids, key="w_index_event",
                                 format_func=lambda e: t("page.trends.use_date") if e == "" else labels.get(e, e))
            st.checkbox(t("page.trends.log"), key="w_log")
            st.checkbox(t("page.trends.fiscal"), key="w_fiscal", help=t("page.trends.fiscal_help"))
        with o3:
            st.checkbox(t("page.trends.as_of_on"), key="w_asof_on", help=t("page.trends.as_of_help"))
            if ss["w_asof_on"]:
                st.date_input(t("page.trends.as_of"), key="w_asof")
            st.checkbox(t("page.trends.reported"), key="w_reported", help=t("page.trends.reported_help"))
            st.checkbox(t("page.trends.band"), key="w_band", help=t("page.trends.band_help"))


def chart(page: Page, view: View, events: pd.DataFrame, *, explained: bool = False) -> Rendered | None:
    """Draw the chart for the view; return what was rendered, or None when there is nothing to draw
    (``explained``: a notice above already says why the range is empty)."""
    if not view.series:
        st.info(t("page.trends.choose_series"))
        return None
    try:
        # built once per view, day and size (a phone's width: page.browser), shared by sessions
        r = context.rendered(page, view, events, size=chart_size())
    except ValueError as e:  # more series or units than one chart can draw distinctly: the reason, not a chart
        st.warning(str(e))
        return None
    if r.figure is None or r.table.empty:
        if not explained:
            st.info(t("page.trends.no_figures", lo=r.lo, hi=r.hi))
        return None
    # No camera button: the page's chart leaves the event list to the table below; the downloads under
    # it are laid out for their size and list every event inside the image.
    # In Spanish the chart carries Plotly's Spanish locale as data (config.locales): Streamlit's own plotly.js
    # draws it, where no locale script can be loaded.
    st.plotly_chart(fit_chart_to_screen(r.figure), width="stretch", key="trend_chart", alt=r.alt, config=export.plotly_config(
        view.lang, displaylogo=False, modeBarButtonsToRemove=["toImage"]))
    if r.totals_figure is not None and r.totals_figure is not r.figure:
        st.plotly_chart(r.totals_figure, width="stretch", key="totals_chart",
                        config=export.plotly_config(view.lang, displaylogo=False))
    deaths.records_link(r)  # a deaths series drawn: its records are one click away, on the Places tab
    return r


def events_table_columns(columns) -> dict:
    """Each column of the events table under a reader's label (never the field name), the link clickable."""
    cfg = {c: st.column_config.Column(t(f"page.events_table.{c}")) for c in columns
           if i18n.has(f"page.events_table.{c}", plang.lang())}
    if "source_url" in cfg:
        cfg["source_url"] = st.column_config.LinkColumn(t("page.events_table.source_url"))
    return cfg


def latest_decimals(r: Rendered, latest) -> int:
    """The decimals the latest point is written with: its table's (``Prepared.decimals``, the CSV's), so a value
    per day under 1 (deaths in custody: 0.146 a day) is not written as 0."""
    got = next((p.decimals for p in r.prepared if p.series_id == latest["series"] and p.key == latest["key"]), None)
    return int(got or 0)


def chart_notes(page: Page, r: Rendered) -> None:
    """Under the chart: data date and sources, each series' definition, the events legend, the data."""
    latest = r.table.sort_values("end").iloc[-1]
    lang = r.view.lang
    label = vt.series_labels(r, lang)
    st.text(t("page.trends.data_to", end=latest['end'], value=plang.number(latest['value'], latest_decimals(r, latest)),
              unit=i18n.unit(str(latest['unit']), lang),
              label=label.get(f"{latest['series']}|{latest['key']}", latest['label'])) + "\n"
            + "\n".join(sources_of(page.snap, r)))
    for i, p in enumerate(r.prepared):
        # Built when opened, like the expanders below: a definition is read by few, on demand.
        pop = st.popover(t("page.trends.what_is", label=vt.series_label(p, lang)), key=f"x_what_{i}",
                         on_change="rerun")
        if pop.open:
            with pop:
                st.text(i18n.localise_numbers(i18n.series_text(p.series_id, "definition", lang,
                                                                page.snap.info(p.series_id)["definition"]), plang.sep()))
    if r.events is not None and len(r.events):
        # The numbered markers carry their titles on hover; the table with the sources is one click away (a
        # dataframe is the heaviest element to draw, the first one on a page most of all).
        box = state.lazy_expander(t("page.trends.events_list"), "x_events_legend")
        if box.open:
            with box, st.container(key="events_legend"):
                table = r.memo(f"events_table_{lang}", lambda: vt.events_reader_table(r.events, lang))
                st.dataframe(table, hide_index=True, column_config=events_table_columns(table.columns))
                def events_bytes(ev=r.events) -> bytes:  # built when clicked
                    return vt.events_file(ev, lang)

                st.download_button(t("page.trends.events_csv"), data=events_bytes,
                                   file_name=f"{export.file_word('events', lang)}.csv", mime="text/csv",
                                   on_click="ignore", key="dl_events")
    box = state.lazy_expander(t("page.trends.data_behind"), "x_data")
    if box.open:
        with box:
            st.dataframe(r.table, hide_index=True)


def as_of_revisions(page: Page, r: Rendered, as_of: dt.date) -> pd.DataFrame:
    """The revisions published after the as-of date to the series drawn; return them."""
    rev = vt.revisions_after(page.snap, r, as_of)
    st.subheader(t("page.trends.revisions_after", date=as_of))
    if len(rev):
        st.dataframe(rev, hide_index=True)
    else:
        st.text(t("page.trends.no_revisions"))
    return rev


def not_versioned_note(page: Page, view: View) -> list[str]:
    """In an as-published view, name the chosen series that record no release dates (left out); return them."""
    left_out = vt.not_versioned(page.snap, view)
    if left_out:
        names = "; ".join(ref_label(page, ref) for ref in left_out)
        st.info(t("page.trends.not_versioned", date=view.as_of, names=names))
    return left_out


def _show_range(lo: dt.date, hi: dt.date) -> None:
    st.session_state.update({"w_preset": "custom", "w_range": (lo, hi)})


def range_gap_notice(page: Page, view: View) -> RangeGap | None:
    """Name the chosen series with no figures in the range, when their data start or end, and offer a button
    that sets the range where they have data; return what was found."""
    gap = context.view_facts(page, view)[1]
    if gap is None:
        return None
    lo_bound, hi_bound = page.range_bounds(vdata.today())
    lo, hi = max(gap.suggest[0], lo_bound), min(gap.suggest[1], hi_bound)
    with st.container(key="range_gap"):
        st.info(markdown_literal(gap.message))
        st.button(t("page.trends.show_range", lo=lo, hi=hi), key="w_range_fix", on_click=_show_range, args=(lo, hi))
    return gap


@st.fragment
def trends_panel(page: Page) -> View:
    """The trends tab. A fragment: a change to one of its controls reruns only this panel, not the headlines
    (the other tabs are not built while this one is open). The date range and what it changes are a fragment
    inside it (``range_and_chart``): a new range, the change readers make most, reruns only that part. Returns
    the view drawn."""
    # A fragment run also forgets the values of the widgets it does not draw (those in closed expanders).
    state.keep_widgets(state.PANEL_WIDGETS)
    events = context.session_events(page)
    # On a phone the controls go under the chart (drawn first, into a place after it): the series picker, the
    # options and the events sections took the first 600 px of the screen.
    chart_box = st.container() if phone_layout() else None
    uploads.local_events_report(page)
    series_picker(page)
    breakdown_picker(page)
    chart_options(page, events)
    events = uploads.events_controls(page, events)
    if chart_box is None:
        return range_and_chart(page, events)
    with chart_box:
        return range_and_chart(page, events)


@st.fragment
def range_and_chart(page: Page, events: pd.DataFrame) -> View:
    """The date range, the chart and everything drawn from it (notes, events table, data, exports). Its own
    fragment: changing the range resent every control above as well (the series picker's 291 options, the
    events controls), and the browser redrew them; ``events`` are those in force after the controls above,
    which rerun this part whenever they change."""
    state.keep_widgets(state.RANGE_WIDGETS)
    link_notes(state.current_view())
    range_picker(page)
    view = state.current_view()
    state.sync_url(view)
    not_versioned_note(page, view)
    gap = range_gap_notice(page, view) if view.series else None
    r = chart(page, view, events, explained=gap is not None)
    if r is not None:
        chart_notes(page, r)
        if view.as_of:
            as_of_revisions(page, r, view.as_of)
        exports.downloads(page, r, events, trends_to_query(view))
        # last: the other presets are built while the reader reads this one
        context.prefetch(page, view, events, size=chart_size())
    return view
