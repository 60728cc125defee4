"""The page: overview, trends against events, event study, sources and methods.

It reads the processed snapshot through a cache, keeps the view in the URL, and calls the builders in
``charts``. It never downloads and never parses a spreadsheet (refresh with ``python -m loaders update``).
Data-derived text is shown with plain-text elements only, never as HTML.
"""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from charts import data as cdata
from charts import export, methods
from charts.compose import render
from charts.figures import build_study_figure, source_lines
from charts.overview import headlines
from charts.plain import markdown_literal
from charts.figures import EXPORT_SIZES, SIZES
from charts.study import carry_days, study, study_window_series
from charts.view import GRANULARITIES, PRESETS, ROLLING, View, data_bounds, view_from_link
from loaders import events as lev
from loaders import origins, tidy

st.set_page_config(page_title="US immigration enforcement: trends and events", layout="wide")
DATA = cdata.DATA


# ---------------------------------------------------------------- cached data (read-only, shared by sessions)

@st.cache_resource(show_spinner=False)
def snapshot() -> cdata.Snapshot:
    # cache_resource hands every session the same object; cache_data would copy the frames on every rerun.
    return cdata.load_snapshot(DATA)


# Where this deployment keeps readers' saved events and whether it saves at all (DASHBOARD_EVENTS_FILE,
# DASHBOARD_EVENTS_SAVE, DASHBOARD_PUBLIC: see loaders.events.user_events_setting). Read on every run: cheap.
EVENTS_SETTING = lev.user_events_setting()


@st.cache_resource(show_spinner=False)
def checked_events(user_path: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    # (bundled + local events, rows of the local file that were not loaded); cleared after a save.
    return lev.load_events_checked(DATA / "events.csv", user_path)


def bundled_events() -> pd.DataFrame:
    return checked_events(str(EVENTS_SETTING.path))[0]


@st.cache_resource(show_spinner=False)
def reported_figures() -> pd.DataFrame | None:
    try:
        from loaders.reported_figures import load_reported
    except ImportError:
        return None
    path = DATA / "reported_figures.csv"
    return load_reported(path) if path.exists() else None


snap = snapshot()
ids = snap.series_ids()
st.title("US immigration enforcement: trends and events")
if not ids:
    st.error("The data snapshot is empty. Run `make rebuild` (from ../shared/data) or `python -m loaders update`.")
    st.stop()

def with_uploaded(uploaded: pd.DataFrame | None) -> pd.DataFrame:
    base = bundled_events()
    if uploaded is None or uploaded.empty:
        return base
    return lev.merge_events(base, uploaded)[0]


events = with_uploaded(st.session_state.get("uploaded_events"))
reported = reported_figures()


# ---------------------------------------------------------------- the view <-> widgets <-> URL

def ref_label(ref: str) -> str:
    sid, _, key = ref.partition("|")
    title = TITLES[sid] if sid in TITLES else snap.info(sid)["title"]
    return title + (f": {key}" if key else "")


def series_options() -> list[str]:
    opts = []
    for sid in ids:
        if sid.startswith("reported_figures."):
            continue  # claims, not series: drawn as period markers beside the series they speak to
        info = snap.info(sid)
        keys = snap.keys(sid)
        if not info["breakdown"] or keys == [""]:
            opts.append(sid)
        elif len(keys) <= 15:
            opts += [f"{sid}|{k}" for k in keys]
    return opts


@st.cache_resource(show_spinner=False)
def series_index() -> tuple[dict[str, str], list[str], list[str]]:
    # Pure functions of the snapshot, computed once rather than on every rerun (read-only, like the snapshot):
    # formatting several hundred picker labels through the catalogue cost 30-50 ms a rerun.
    titles = {sid: snap.info(sid)["title"] for sid in ids}
    big = [sid for sid in ids if snap.info(sid)["breakdown"] and len(snap.keys(sid)) > 15]
    return titles, series_options(), big


TITLES, OPTIONS, BIG_BREAKDOWNS = series_index()

@st.cache_resource(show_spinner=False, max_entries=2)
def range_bounds(today: dt.date) -> tuple[dt.date, dt.date]:
    return data_bounds(snap, today)


# The event study's settings live in the address bar beside the view: ?study=<series>&study_event=<id>
# &study_days=30&study_date=YYYY-MM-DD (the date only when no event is chosen).
STUDY_PARAMS = {"study": "w_study_series", "study_event": "w_study_event", "study_days": "w_study_days",
                "study_date": "w_study_date"}


def seed_study_from_url(q: dict) -> None:
    ss = st.session_state
    if q.get("study") in OPTIONS:
        ss["w_study_series"] = q["study"]
    if q.get("study_event"):
        ss["w_study_event"] = str(q["study_event"])[:200]
    try:
        if q.get("study_days"):
            ss["w_study_days"] = min(365, max(7, int(q["study_days"])))
        if q.get("study_date"):
            ss["w_study_date"] = dt.date.fromisoformat(q["study_date"])
            ss.setdefault("w_study_event", "(a date)")
    except ValueError:
        pass  # a malformed value falls back to the default, as the view's parameters do


def study_query() -> dict[str, str]:
    ss = st.session_state
    q = {}
    if ss.get("w_study_series"):
        q["study"] = ss["w_study_series"]
    ev = ss.get("w_study_event")
    if ev and ev != "(a date)":
        q["study_event"] = ev
    elif ev == "(a date)" and ss.get("w_study_date"):
        q["study_event"], q["study_date"] = "(a date)", ss["w_study_date"].isoformat()
    if ss.get("w_study_days") and int(ss["w_study_days"]) != 30:
        q["study_days"] = str(int(ss["w_study_days"]))
    return q


def sync_url(view: View) -> None:
    st.query_params.from_dict({**view.to_query(), **study_query()})


if "view_seeded" not in st.session_state:
    # The link is checked once, by the same code as `python -m charts export --query`: whatever it says, the
    # page renders, and every change made to it is listed above the chart.
    link = st.query_params.to_dict()
    v0, link_notes = view_from_link(link, snap, events=events, today=dt.date.today())
    if not v0.series:
        v0.series = [r for r in View().series if r in OPTIONS] or OPTIONS[:1]
        if link.get("series"):
            link_notes.append("None of the link's series can be drawn; showing the default series.")
    st.session_state["link_notes"] = link_notes
    st.session_state.update({
        "w_series": [r for r in v0.series if r in OPTIONS],
        "w_extra": [r for r in v0.series if r not in OPTIONS],
        "w_preset": v0.preset,
        # Clamped like the link's own dates: the picker refuses (raises on) a value outside its bounds.
        "w_range": tuple(min(max(d, range_bounds(dt.date.today())[0]), range_bounds(dt.date.today())[1])
                         for d in (v0.start or dt.date(2025, 1, 20), v0.end or dt.date.today())),
        "w_gran": v0.granularity, "w_perday": v0.per_day, "w_roll": v0.rolling,
        "w_index_on": bool(v0.index_at or v0.index_event), "w_index_at": v0.index_at or dt.date(2025, 1, 20),
        "w_index_event": v0.index_event, "w_log": v0.log, "w_fiscal": v0.fiscal_axis,
        "w_asof_on": v0.as_of is not None, "w_asof": v0.as_of or dt.date.today(),
        "w_events": v0.events, "w_cats": v0.categories, "w_evtext": v0.event_text, "w_reported": v0.reported,
    })
    seed_study_from_url(st.query_params.to_dict())
    st.session_state["view_seeded"] = True
    st.session_state["seeded_query"] = None  # set by the first run of the trends panel

# Streamlit forgets a widget's value when a run does not draw it, and the lazy tabs draw one tab a run:
# writing each value back makes it ordinary session state that outlives a visit to another tab.
KEPT_WIDGETS = ("w_series", "w_extra", "w_preset", "w_range", "w_gran", "w_perday", "w_roll", "w_index_on",
                "w_index_at", "w_index_event", "w_log", "w_fiscal", "w_asof_on", "w_asof", "w_events", "w_cats",
                "w_evtext", "w_reported", "w_big_sid", "w_big_keys", "w_study_series", "w_study_event",
                "w_study_days", "w_study_date", "w_export_size", "w_study_size")
for _k in KEPT_WIDGETS:
    if _k in st.session_state:
        st.session_state[_k] = st.session_state[_k]


def current_view() -> View:
    s = st.session_state
    preset = s["w_preset"]
    rng = s["w_range"] if isinstance(s["w_range"], (tuple, list)) and len(s["w_range"]) == 2 else (None, None)
    index_event = s["w_index_event"] if s["w_index_on"] and s["w_index_event"] else ""
    return View(
        series=list(s["w_series"]) + list(s["w_extra"]),
        preset=preset, start=rng[0] if preset == "custom" else None, end=rng[1] if preset == "custom" else None,
        granularity=s["w_gran"], per_day=s["w_perday"], rolling=s["w_roll"],
        index_at=s["w_index_at"] if s["w_index_on"] and not index_event else None, index_event=index_event,
        log=s["w_log"], fiscal_axis=s["w_fiscal"], as_of=s["w_asof"] if s["w_asof_on"] else None,
        events=s["w_events"], categories=list(s["w_cats"]), event_text=s["w_evtext"], reported=s["w_reported"],
    )


# ---------------------------------------------------------------- headline figures

@st.cache_resource(show_spinner=False, max_entries=2)
def headline_figures(today: dt.date) -> list:
    # Depends only on the snapshot and the day (overdue badges): 30-40 ms saved on every rerun.
    return headlines(snap, today)


def show_headlines() -> None:
    hs = headline_figures(dt.date.today())
    per_row = 3
    for i, h in enumerate(hs):
        if i % per_row == 0:
            cols = st.columns(per_row)
        with cols[i % per_row].container(border=True):
            # The delta is the like-for-like comparison the card names (previous snapshot, previous full month,
            # same point of the previous fiscal year, same month a year earlier), never a mix of windows.
            delta = f"{h.change:+,.0f} {h.comparison}" if h.change is not None else None
            st.metric(h.label, "n/a" if h.value is None else f"{h.value:,.0f}", delta=delta, delta_color="off",
                      help=h.definition)
            st.caption(f"{h.statement}. Scope: {h.scope}." + ("" if h.change is not None else f" {h.comparison[:1].upper()}{h.comparison[1:]}.")
                       + f" Data date {h.data_date}; {h.release_note}. Source: {h.publisher} ({h.title}).")
            from releases_view import card_status  # the source's publication status (Releases tab)
            st.caption(card_status(snap, h.source))
            if h.fixed_file:
                st.badge(f"Fixed file, not updated; data {h.age_days} days old", color="gray",
                         help="This series comes from a file that is never refreshed; newer figures may exist elsewhere.")
            elif h.overdue_days:
                st.badge(f"Overdue by {h.overdue_days} days; data {h.age_days} days old", color="orange",
                         help="Later than the source's usual release cadence; newer figures may exist.")
            elif h.age_days is not None:
                st.badge(f"Data {h.age_days} days old", color="gray")


show_headlines()
# Lazy tabs: only the open tab is built and sent to the browser; switching tabs reruns the page.
tab_trends, tab_study, tab_places, tab_sources, tab_releases = st.tabs(
    ["Trends and events", "Event study", "Places", "Sources and methods", "Releases"], key="tab", on_change="rerun",
    default="Places" if st.query_params.get("view") == "places" else None)

# ---------------------------------------------------------------- trends

@st.fragment
def trends_panel() -> None:
    """The trends tab. A fragment: a change to one of its controls reruns only this panel, not the headlines
    (the other tabs are not built while this one is open)."""
    global events
    local_refused = checked_events(str(EVENTS_SETTING.path))[1]
    if len(local_refused):
        # A fresh session must say why some of the reader's own events are missing, not just leave them out.
        with st.container(key="local_events_report"):
            st.warning(f"{local_refused['row'].nunique()} row(s) of the local events file "
                       f"{markdown_literal(EVENTS_SETTING.path.name)} were not loaded (row numbers as in a "
                       "spreadsheet, header = row 1; row 0 is the file as a whole). The other events are shown.")
            st.dataframe(local_refused, hide_index=True, key="w_local_refused")
    # The notes describe the link as opened: once the reader changes the view they no longer apply.
    query = current_view().to_query()
    if st.session_state.get("seeded_query") is None:
        st.session_state["seeded_query"] = query
    elif query != st.session_state["seeded_query"]:
        st.session_state["link_notes"] = []
    notes = st.session_state.get("link_notes") or []
    if notes:
        with st.container(key="link_notes"):
            for note in notes:
                st.info(markdown_literal(note))
    c1, c2 = st.columns([3, 2])
    with c1:
        st.multiselect("Series", OPTIONS, key="w_series", format_func=ref_label,
                       help="Each series says what it counts: arrests are not book-ins, ICE is not CBP.")
    with c2:
        st.selectbox("Date range", list(PRESETS), key="w_preset", format_func=PRESETS.get)
        if st.session_state["w_preset"] == "custom":
            lo_bound, hi_bound = range_bounds(dt.date.today())
            st.date_input("Custom range", key="w_range", min_value=lo_bound, max_value=hi_bound)
    if BIG_BREAKDOWNS:
        with st.expander("Breakdowns with many members (facilities, states, field offices, countries)"):
            b_sid = st.selectbox("Series with a breakdown", BIG_BREAKDOWNS, format_func=lambda s: snap.info(s)["title"],
                                 key="w_big_sid")
            picked = st.multiselect(f"{snap.info(b_sid)['breakdown'].capitalize()} (up to 8)", snap.keys(b_sid),
                                    max_selections=8, key="w_big_keys")
            if st.button("Add to chart", key="w_big_add"):
                st.session_state["w_extra"] = list(dict.fromkeys(list(st.session_state["w_extra"]) +
                                                                 [f"{b_sid}|{k}" for k in picked]))[:12]
                st.rerun()
            if st.session_state["w_extra"]:
                st.multiselect("Breakdown members on the chart", st.session_state["w_extra"], key="w_extra",
                               format_func=ref_label)
    with st.expander("Chart options", expanded=False):
        o1, o2, o3 = st.columns(3)
        with o1:
            st.radio("Granularity", list(GRANULARITIES), key="w_gran", format_func=GRANULARITIES.get, horizontal=True)
            st.checkbox("Show period totals per day", key="w_perday",
                        help="Monthly or weekly totals divided by the days each period covers.")
            st.radio("Rolling average", list(ROLLING), key="w_roll", format_func=ROLLING.get, horizontal=True)
        with o2:
            st.checkbox("Index = 100 at a date or event", key="w_index_on")
            if st.session_state["w_index_on"]:
                st.date_input("Index date", key="w_index_at")
                if events is not None and len(events):
                    ev_ids = [""] + events.sort_values("date")["id"].astype(str).tolist()
                    labels = {str(r.id): f"{pd.Timestamp(r.date).date()} {r.title}" for r in events.itertuples()}
                    st.selectbox("...or at an event", ev_ids, key="w_index_event",
                                 format_func=lambda e: "(use the date)" if e == "" else labels.get(e, e))
            st.checkbox("Log scale", key="w_log")
            st.checkbox("Fiscal-year axis labels", key="w_fiscal", help="US fiscal years start on 1 October.")
        with o3:
            st.checkbox("As published on a date", key="w_asof_on",
                        help="Only releases out by that date; later revisions are listed below the chart.")
            if st.session_state["w_asof_on"]:
                st.date_input("Published on or before", key="w_asof")
            st.checkbox("Show reported figures", key="w_reported",
                        help="Figures stated by officials or the press, drawn as dashed period markers.")
    with st.expander("Events on the chart", expanded=False):
        e1, e2 = st.columns([2, 3])
        with e1:
            st.checkbox("Show events", key="w_events")
        cats = sorted(events["category"].unique()) if events is not None and len(events) else []
        with e2:
            st.multiselect("Categories (none = all)", cats, key="w_cats")
        st.text_input("Only events whose title or description contains", key="w_evtext", max_chars=80)
        st.caption(f"Add your own events (CSV with columns date, date_precision, title, category, description, "
                   f"source_name, source_url; at most {lev.UPLOAD_MAX_ROWS} rows and "
                   f"{lev.UPLOAD_MAX_BYTES // 1000} KB). Rows are checked one by one.")
        up = st.file_uploader("Your events file", type=["csv"], key="w_upload")
        if up is not None:
            upload_panel(up)
        elif st.session_state.pop("uploaded_events", None) is not None:
            # The file was removed from the uploader: its events leave the chart on this run, not the next.
            events = bundled_events()

    view = current_view()
    sync_url(view)
    if not view.series:
        st.info("Choose at least one series above.")
        return
    try:
        r = render(snap, view, events=events, reported=reported)
    except ValueError as e:  # more series or units than one chart can draw distinctly: the reason, not a chart
        st.warning(str(e))
        return
    if r.figure is None or r.table.empty:
        st.info(f"No figures for these series between {r.lo} and {r.hi}. Widen the date range or pick another series.")
    else:
        # No camera button: the page's chart leaves the event list to the table below; the downloads under
        # it are laid out for their size and list every event inside the image.
        st.plotly_chart(r.figure, width="stretch", key="trend_chart", alt=r.alt, config={
            "displaylogo": False, "modeBarButtonsToRemove": ["toImage"]})
        if r.totals_figure is not None and r.totals_figure is not r.figure:
            st.plotly_chart(r.totals_figure, width="stretch", key="totals_chart", config={"displaylogo": False})
        latest = r.table.sort_values("end").iloc[-1]
        st.text(f"Data to {latest['end']} (latest point: {latest['value']:,.0f} {latest['unit']}, "
                f"{latest['label']}).\n" + "\n".join(source_lines(snap, r.prepared)))
        for p in r.prepared:
            with st.popover(f"What is: {p.label[:70]}"):
                st.text(snap.info(p.series_id)["definition"])
        if r.events is not None and len(r.events):
            from charts.events import events_csv, events_legend_table
            with st.container(key="events_legend"):
                st.subheader("Events on the chart")
                st.dataframe(events_legend_table(r.events), hide_index=True,
                             column_config={"source_url": st.column_config.LinkColumn("source link")})
                st.download_button("Events in view (CSV with citations)", data=lambda ev=r.events: events_csv(ev),
                                   file_name="events.csv", mime="text/csv", on_click="ignore", key="dl_events")
        with st.expander("Data behind the chart", expanded=False):
            st.dataframe(r.table, hide_index=True)
        if view.as_of:
            after = snap.obs[snap.obs["series"].isin([p.series_id for p in r.prepared]) &
                             (snap.obs["release"] > pd.Timestamp(view.as_of))]
            before = snap.obs[snap.obs["series"].isin([p.series_id for p in r.prepared]) &
                              (snap.obs["release"] <= pd.Timestamp(view.as_of))]
            as_str = pd.concat([before, after]).assign(
                date=lambda d: d["date"].dt.date.astype(str), end=lambda d: d["end"].dt.date.astype(str),
                release=lambda d: d["release"].dt.date.astype(str))
            rev = tidy.revisions(as_str)
            rev = rev[rev["release"] > view.as_of.isoformat()]
            st.subheader(f"Revisions published after {view.as_of}")
            st.dataframe(rev, hide_index=True) if len(rev) else st.text("No later revisions to these periods.")

        st.subheader("Export")
        export_panel(r, events)
        f1, f2 = st.columns(2)
        f1.download_button("Full dataset (CSV, zip, with manifest)", data=lambda: export.full_dataset_zip(DATA, "csv"),
                           file_name="immigration-enforcement-data-csv.zip", mime="application/zip",
                           on_click="ignore", key="dl_full_csv")
        f2.download_button("Full dataset (Parquet, zip, with manifest)",
                           data=lambda: export.full_dataset_zip(DATA, "parquet"),
                           file_name="immigration-enforcement-data-parquet.zip", mime="application/zip",
                           on_click="ignore", key="dl_full_parquet")
        st.text("Citation for this view:")
        from releases_view import citation_with_whats_new  # each source's latest release in sentences
        st.code(citation_with_whats_new(snap, export.citation(snap, r.prepared), [p.source for p in r.prepared]),
                language=None, wrap_lines=True)
        with st.expander("Embed this view (responsive frame; light or dark)"):
            # The live app in a frame whose height follows its width; for many readers, embed the static site's
            # page instead (python -m charts site: the same frames, served by any static host).
            from charts.site import live_embeds
            for theme, code in live_embeds(str(getattr(st.context, "url", "") or ""), view.to_query()).items():
                st.text(f"{theme.title()} version:")
                st.code(code, language="html", wrap_lines=True)


def upload_panel(up) -> None:
    """Check an uploaded events file, report every row not taken, offer to keep the rest (when allowed)."""
    global events
    try:
        res = lev.check_upload(up.getvalue(), up.name, bundled_events())
    except Exception as e:  # the validator's own error for a file it cannot read at all
        from loaders.errors import LoaderError
        # Anything else is a fault of the page, and its text may name server internals: not shown.
        why = (markdown_literal(e) if isinstance(e, LoaderError)
               else "it could not be checked (an error in the dashboard, not in your file); nothing was kept")
        st.error(f"Could not read {markdown_literal(up.name)}: {why}")
        return
    st.session_state["uploaded_events"] = res.accepted
    events = res.events
    with st.container(key="upload_report"):
        saved = f" {res.already_saved} already in the local events file;" if res.already_saved else ""
        st.success(f"{len(res.accepted)} event(s) accepted from {markdown_literal(up.name)};{saved} "
                   f"{len(res.rejected)} row(s) rejected.")
        if len(res.rejected):
            st.text("Rejected rows (row numbers as in a spreadsheet, header = row 1):")
            st.dataframe(res.rejected, hide_index=True, key="w_upload_rejected")
    if not len(res.accepted):
        return
    if not EVENTS_SETTING.save:
        st.caption(markdown_literal(EVENTS_SETTING.why_not) + " The events stay on the chart for this visit.")
        return
    if st.button("Keep these events in the local events file", key="w_upload_save"):
        try:
            done = lev.save_user_events(res.accepted, EVENTS_SETTING.path, bundled=bundled_events())
        except lev.SaveRefused as e:  # limits, a busy lock, a local file that would lose rows: nothing written
            st.error(f"Not saved: {markdown_literal(e.args[0].split('] ', 1)[-1])}")
            return
        except OSError as e:
            st.error(f"Not saved: the local events file could not be written ({markdown_literal(e.strerror or e)}).")
            return
        checked_events.clear()
        st.success(f"Saved {done.added} new event(s) to the local events file ({done.total} in all); they load "
                   "with the bundled events from now on.")


def export_panel(r, events) -> None:
    """Downloads of the chart at a chosen size (built when clicked), its data, and the alt text to copy."""
    src_lines = source_lines(snap, r.prepared)
    size = st.radio("Image size", list(EXPORT_SIZES), key="w_export_size", horizontal=True,
                    format_func=lambda k: f"{k}: {SIZES[k].description}")
    stem = export.file_stem(r)

    def sized(fmt: str, view=r.view, ev=events, size=size) -> bytes:
        return export.export_figure(render(snap, view, events=ev, reported=reported, size=size), fmt)

    d1, d2, d3, d4, d5 = st.columns(5)
    d1.download_button("CSV of the data shown", key="dl_csv", mime="text/csv", on_click="ignore",
                       data=lambda t=r.export_table(), s=src_lines, ti=r.title: export.to_csv(t, sources=s, title=ti),
                       file_name=f"{stem}.csv")
    d2.download_button("Wide CSV (Datawrapper, Flourish)", key="dl_wide", mime="text/csv", on_click="ignore",
                       data=lambda rr=r: export.wide_csv(rr), file_name=f"{stem}-wide.csv")
    d3.download_button("Interactive HTML (works offline)", data=lambda: sized("html"),
                       file_name=f"{stem}-{size}.html", mime="text/html", on_click="ignore", key="dl_html")
    if export.find_browser():
        d4.download_button("PNG image", data=lambda: sized("png"), file_name=f"{stem}-{size}.png",
                           mime="image/png", on_click="ignore", key="dl_png")
        d5.download_button("SVG image", data=lambda: sized("svg"), file_name=f"{stem}-{size}.svg",
                           mime="image/svg+xml", on_click="ignore", key="dl_svg")
    else:
        d4.warning("PNG and SVG need Chrome or Chromium (on Debian/Ubuntu: `sudo apt-get install chromium`). "
                   "CSV and HTML work without it.")
    st.caption("The CSV holds every point drawn and the reported figures drawn (kind 'reported', with who "
               "reported them and the link); the wide CSV has one date column and one column per series.")
    st.text("Alt text for this chart (also inside the SVG and HTML):")
    st.code(r.alt, language=None, wrap_lines=True)


with tab_trends:
    if tab_trends.open is not False:
        trends_panel()


# ---------------------------------------------------------------- event study
# The study's numbers and figure are pure functions of their inputs and the snapshot; cached (read-only) so a
# rerun caused by another control does not recompute them (40-70 ms a rerun).

@st.cache_resource(show_spinner=False, max_entries=64)
def study_numbers(study_sid: str, study_date: dt.date, window: int):
    sid, _, key = study_sid.partition("|")
    info = snap.info(sid)
    flow = cdata.is_flow(info)
    rows = cdata.series_rows(snap, sid, key)
    # Weekly and monthly series are compared in whole periods, others in days (charts.study.study).
    res = study(rows, study_date, window, flow=flow, max_carry_days=carry_days(info["frequency"]))
    return flow, rows["date"].min(), rows["end"].max(), res


@st.cache_resource(show_spinner=False, max_entries=32)
def study_figure(study_sid: str, study_date: dt.date, window: int, *, title: str, subtitle: str, unit: str,
                 sources: tuple[str, ...], today: dt.date, size: str = "page"):
    sid, _, key = study_sid.partition("|")
    flow, _, _, res = study_numbers(study_sid, study_date, window)
    win, x_title = study_window_series(cdata.series_rows(snap, sid, key), study_date, window, flow=flow,
                                       max_carry_days=carry_days(snap.info(sid)["frequency"]))
    return build_study_figure(win, title=title, subtitle=subtitle, unit=unit, sources=list(sources),
                              generated_on=today, size=size, x_title=x_title, notes=[res.note]), win


@st.cache_resource(show_spinner=False, max_entries=64)
def full_range_sources(study_sid: str) -> tuple[str, ...]:
    return tuple(source_lines(snap, render(snap, View(series=[study_sid], preset='all')).prepared))


def study_panel() -> None:
    st.caption("Mean per day in a window before and after a date, and the same windows a year earlier. "
               "This describes what happened around the date; it does not show that the event caused it.")
    ss = st.session_state
    ev_choices = ["(a date)"]
    ev_labels = {}
    if events is not None and len(events):
        for row in events.sort_values("date").itertuples():
            ev_choices.append(str(row.id))
            ev_labels[str(row.id)] = f"{pd.Timestamp(row.date).date()} {row.title}"
    # Defaults go into session state before the widgets exist (a widget given both a default and a state
    # value warns on the page); values from the address bar were put there when the page opened.
    if ss.get("w_study_series") not in OPTIONS:
        ss["w_study_series"] = ss["w_series"][0] if ss["w_series"] and ss["w_series"][0] in OPTIONS else OPTIONS[0]
    if ss.get("w_study_event") not in ev_choices:
        ss["w_study_event"] = next((e for e, lab in ev_labels.items() if "Hott" in lab or "reassign" in lab.lower()),
                                  ev_choices[0])
    ss.setdefault("w_study_days", 30)
    ss.setdefault("w_study_date", dt.date(2025, 2, 11))
    s1, s2, s3 = st.columns([3, 3, 1])
    study_sid = s1.selectbox("Series", OPTIONS, key="w_study_series", format_func=ref_label)
    study_ev = s2.selectbox("Event", ev_choices, key="w_study_event", format_func=lambda e: ev_labels.get(e, e))
    window = s3.number_input("Days", min_value=7, max_value=365, step=1, key="w_study_days")
    if study_ev == "(a date)":
        study_date = st.date_input("Date", key="w_study_date")
        study_title = f"{study_date}"
    else:
        study_date = pd.Timestamp(events.loc[events["id"].astype(str) == study_ev, "date"].iloc[0]).date()
        study_title = ev_labels[study_ev]
    sync_url(current_view())
    sid, _, key = study_sid.partition("|")
    info = snap.info(sid)
    flow, first_date, last_date, res = study_numbers(study_sid, study_date, int(window))
    unit = info["unit"] + (" per day" if flow else "")
    if res.before.mean_per_day is None or res.after.mean_per_day is None:
        what = "whole " + res.unit if res.unit != "days" else f"data within {window} days"
        st.info(f"This series has no data on one side of {study_date} ({what}); it runs {first_date.date()} to "
                f"{last_date.date()}. {res.note}")
        return
    w = res.window_label
    m1, m2, m3 = st.columns(3)
    m1.metric(f"Mean per day, {w} before", f"{res.before.mean_per_day:,.1f}")
    m2.metric(f"Mean per day, {w} from the date" if res.unit == "days" else f"Mean per day, {w} after",
              f"{res.after.mean_per_day:,.1f}",
              delta=f"{res.change:+,.1f} ({res.change_pct:+.1f}%)" if res.change_pct is not None else None,
              delta_color="off")
    if res.year_earlier_change is not None:
        m3.metric("Same windows a year earlier: change", f"{res.year_earlier_change:+,.1f}",
                  delta=f"{res.year_earlier_change_pct:+.1f}%" if res.year_earlier_change_pct is not None else None,
                  delta_color="off")
    st.caption(res.note)
    table = res.table()
    st.dataframe(table, hide_index=True, column_config={
        c: st.column_config.NumberColumn(format="%.1f") for c in
        ("mean per day before", "mean per day after", "change", "change %")})
    sources = full_range_sources(study_sid)
    fig_kw = dict(title=f"{ref_label(study_sid)} around {study_title}",
                  subtitle=f"{w} before and after {study_date}, and the same windows a year earlier ({unit})",
                  unit=unit, sources=sources, today=dt.date.today())
    fig, win = study_figure(study_sid, study_date, int(window), **fig_kw)
    st.plotly_chart(fig, width="stretch", key="study_chart", config={"displaylogo": False},
                    alt=f"Event study: {fig_kw['title']}. {res.note} Mean per day before "
                        f"{res.before.mean_per_day:,.1f}, after {res.after.mean_per_day:,.1f}.")
    st.caption("Descriptive, not causal: many things change at once, and monthly data spread evenly over "
               "their days hide what happened within a month.")
    size = st.radio("Image size", list(EXPORT_SIZES), key="w_study_size", horizontal=True,
                    format_func=lambda k: f"{k}: {SIZES[k].description}")
    stem = export.slug(f"event study {fig_kw['title']} {w}")
    e1, e2, e3 = st.columns(3)

    def study_csv() -> bytes:
        head = [fig_kw["title"], res.note] + [
            f"{row['comparison']}: {row['before']} mean per day {row['mean per day before']:,.2f}; "
            f"{row['after']} mean per day {row['mean per day after']:,.2f}"
            for row in table.to_dict("records") if row["mean per day before"] is not None
            and row["mean per day after"] is not None] + list(sources)
        data = win.assign(date=win["date"].dt.date.astype(str)).rename(columns={"days_from_date": "offset"})
        return export.to_csv(data, sources=head[1:], title=head[0])

    e1.download_button("Study data (CSV)", data=study_csv, file_name=f"{stem}.csv", mime="text/csv",
                       on_click="ignore", key="dl_study_csv")
    if export.find_browser():
        def img(fmt: str, size=size) -> bytes:
            f = study_figure(study_sid, study_date, int(window), **fig_kw, size=size)[0]
            out = export.to_image(f, fmt, width=SIZES[size].width, height=int(f.layout.height),
                                  scale=SIZES[size].scale if fmt == "png" else 1)
            return export.svg_with_alt(out, fig_kw["title"], res.note) if fmt == "svg" else out
        e2.download_button("Study PNG", data=lambda: img("png"), file_name=f"{stem}-{size}.png", mime="image/png",
                           on_click="ignore", key="dl_study_png")
        e3.download_button("Study SVG", data=lambda: img("svg"), file_name=f"{stem}-{size}.svg",
                           mime="image/svg+xml", on_click="ignore", key="dl_study_svg")


with tab_study:
    if tab_study.open:
        study_panel()

# ---------------------------------------------------------------- places (states, field offices, facilities)

with tab_places:
    if tab_places.open:
        from charts.places_page import places_panel
        places_panel(snap)

# ---------------------------------------------------------------- sources and methods

@st.cache_resource(show_spinner=False)
def sources_tables() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    # Built once from the snapshot (read-only), not on every rerun.
    rows = []
    for sid_, e in snap.manifest.get("sources", {}).items():
        for f in e.get("files", []):
            o = f.get("origin") or {}
            rows.append({"source": sid_, "publisher": e.get("publisher"), "file": f["name"], "release": f.get("release"),
                         "data to": f.get("data_date"), "retrieved": f.get("retrieved") or "not recorded",
                         "sha256": f["sha256"], "licence": f.get("licence"), "rows": f.get("rows"),
                         "url": o.get("official_url") or f.get("url"),
                         # How the bytes were read when not from the official URL (an archive copy, a mirror).
                         "read": origins.READ_AS.get(o.get("read_as", ""), ""), "read from": o.get("read_url") or None,
                         "archive copy": o.get("archive_url") or None})
    catalogue = snap.catalogue.reset_index()[["id", "title", "metric", "agency", "breakdown", "unit", "frequency",
                                              "definition", "source"]]
    from charts.ledger import catalogue_presence  # say so where a listed series has no data in the snapshot
    catalogue.insert(2, "data in this snapshot", catalogue_presence(snap)["data"].to_numpy())
    notes = pd.DataFrame(methods.QUALITY_NOTES, columns=["problem", "what the dashboard does"])
    return pd.DataFrame(rows), catalogue, notes


def sources_panel() -> None:
    files_table, catalogue_table, notes_table = sources_tables()
    st.subheader("Sources and files")
    st.dataframe(files_table, hide_index=True, column_config={"url": st.column_config.LinkColumn("official url"),
                                                             "read from": st.column_config.LinkColumn("read from"),
                                                             "archive copy": st.column_config.LinkColumn("archive copy")})
    st.subheader("Publication status")  # built in releases_view; the Releases tab has the evidence in full
    from releases_view import status_dataframe
    st.dataframe(status_dataframe(snap), hide_index=True)
    st.subheader("Series definitions")
    st.dataframe(catalogue_table, hide_index=True)
    st.subheader("What the words mean")
    for head, body in methods.DEFINITIONS:
        st.markdown(f"**{head}.** {body}")
    st.subheader("Where sources measure the same thing")
    st.dataframe(pd.DataFrame(methods.COMPARISONS, columns=["measure", "how the sources differ"]), hide_index=True)
    st.subheader("Known data-quality problems and what the dashboard does")
    st.dataframe(notes_table, hide_index=True)
    if len(snap.flags):
        st.text(f"Integrity checks flagged {len(snap.flags)} item(s) in the current snapshot:")
        st.dataframe(snap.flags, hide_index=True)


with tab_sources:
    if tab_sources.open:
        sources_panel()

with tab_releases:
    if tab_releases.open:
        from releases_view import releases_panel
        releases_panel(snap)
