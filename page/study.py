"""The Event study tab: mean per day in windows before and after a date or event, and a year earlier."""
from __future__ import annotations

import datetime as dt

import pandas as pd
import streamlit as st

from charts import export
from charts.study_export import study_csv
from views import data as vdata
from views import event_study as es
from views.link import DEFAULT_STUDY_DAYS
from wording import i18n

from . import lang as plang
from . import state
from .cache import kept
from .context import Page
from .lang import t
from .trends import ref_label


# The study's numbers and figure are pure functions of their inputs and the snapshot; cached (read-only) so a
# rerun caused by another control does not recompute them (40-70 ms a rerun).
@kept(64)
def study_numbers(snap, ref: str, on: dt.date, window: int, vintage: str = "latest"):
    return es.study_numbers(snap, ref, on, window, vintage)


@kept(32)
def study_figure(snap, ref: str, on: dt.date, window: int, **kw):
    return es.study_figure(snap, ref, on, window, **kw)


@kept(64)
def full_range_sources(snap, ref: str, lang: str = "en") -> tuple[str, ...]:
    return es.full_range_sources(snap, ref, lang)


def study_controls(page: Page, events: pd.DataFrame) -> tuple[str, str, int, dt.date, str]:
    """Series, event (or date) and window; return (series, event choice, days, date, the date's label)."""
    ss = st.session_state
    choices, labels = es.event_choices(events)
    # Defaults go into session state before the widgets exist (a widget given both a default and a state
    # value warns on the page); values from the address bar were put there when the page opened.
    if ss.get("w_study_series") not in page.options:
        ss["w_study_series"] = ss["w_series"][0] if ss["w_series"] and ss["w_series"][0] in page.options else page.options[0]
    if ss.get("w_study_event") not in choices:
        ss["w_study_event"] = es.default_event(events) or es.DATE_CHOICE
    ss.setdefault("w_study_days", DEFAULT_STUDY_DAYS)
    ss.setdefault("w_study_date", es.default_date(events))
    s1, s2, s3 = st.columns([3, 3, 1])
    if plang.lang() != "en" and events is not None and len(events):
        shown = i18n.translated_events(events, plang.lang())
        labels = {**labels, **{str(r.id): f"{pd.Timestamp(r.date).date()} {r.title}" for r in shown.itertuples()}}
    ref = s1.selectbox(t("page.study.series"), page.options, key="w_study_series",
                       format_func=lambda r: ref_label(page, r))
    choice = s2.selectbox(t("page.study.event"), choices, key="w_study_event",
                          format_func=lambda e: t("page.study.a_date") if e == es.DATE_CHOICE else labels.get(e, e))
    window = int(s3.number_input(t("page.study.days"), min_value=7, max_value=365, step=1, key="w_study_days"))
    ss.setdefault("w_study_vintage", "latest")
    st.radio(t("page.study.vintage"), list(es.VINTAGES), key="w_study_vintage", horizontal=True,
             format_func=lambda v: t(f"page.study.vintage_{v}"), help=t("page.study.vintage_help"))
    if choice == es.DATE_CHOICE:
        on = st.date_input(t("page.study.date"), key="w_study_date")
        return ref, choice, window, on, f"{on}"
    return ref, choice, window, es.event_date(events, choice), labels[choice]


def study_metrics(res: es.Study) -> None:
    w = res.window_in(plang.lang())
    m1, m2, m3 = st.columns(3)
    # Every number through the reader's locale ("+110,6" beside "75.000", never "+110.6").
    text = es.study_numbers_text(res, plang.lang(), plang.sep())
    m1.metric(t("page.study.mean_before", window=w), text["before"])
    m2.metric(t("page.study.mean_from", window=w) if res.unit == "days" else t("page.study.mean_after", window=w),
              text["after"], delta=text["change"], delta_color="off")
    if text["year_change"] is not None:
        m3.metric(t("page.study.year_earlier"), text["year_change"], delta=text["year_change_pct"], delta_color="off")
    st.caption(res.note_in(plang.lang()))
    st.dataframe(es.study_table_text(res, plang.lang(), plang.sep()), hide_index=True)


def study_downloads(page: Page, ref: str, on: dt.date, window: int, res: es.Study, win: pd.DataFrame,
                    fig_kw: dict) -> str:
    """The study's CSV and images; return the image size chosen."""
    size = st.radio(t("page.exports.image_size"), list(export.IMAGE_SIZES), key="w_study_size", horizontal=True,
                    format_func=lambda k: t("page.exports.size_choice", size=t("export.file.size_" + k),
                                                         description=t("size." + k)))
    stem = export.slug(f"{t('export.file.study')} {fig_kw['title']} {res.window_in(plang.lang())}")
    sized_word = export.file_word("size_" + size, plang.lang())
    e1, e2, e3 = st.columns(3)
    sources = tuple(fig_kw["sources"]) + tuple(es.vintage_note(fig_kw.get("vintage", "latest"), plang.lang()))
    e1.download_button(t("page.study.csv"), data=lambda: study_csv(fig_kw["title"], res, win, sources,
                                                                 plang.lang(), plang.sep()),
                       file_name=f"{stem}.csv", mime="text/csv", on_click="ignore", key="dl_study_csv")
    if export.find_browser():
        def img(fmt: str, size=size) -> bytes:
            f = study_figure(page.snap, ref, on, window, **fig_kw, size=size, lang=plang.lang(), sep=plang.sep())[0]
            width, scale = export.image_dimensions(size, fmt)
            out = export.to_image(f, fmt, width=width, height=int(f.layout.height), scale=scale, lang=plang.lang())
            return export.svg_with_alt(out, fig_kw["title"], res.note_in(plang.lang())) if fmt == "svg" else out
        e2.download_button(t("page.study.png"), data=lambda: img("png"), file_name=f"{stem}-{sized_word}.png", mime="image/png",
                           on_click="ignore", key="dl_study_png")
        e3.download_button(t("page.study.svg"), data=lambda: img("svg"), file_name=f"{stem}-{sized_word}.svg",
                           mime="image/svg+xml", on_click="ignore", key="dl_study_svg")
    return size


def study_panel(page: Page, events: pd.DataFrame) -> es.Study:
    """The tab; return the study shown."""
    st.caption(t("page.study.intro"))
    ref, _, window, on, on_label = study_controls(page, events)
    state.sync_url(state.current_view())
    info = page.snap.info(ref.partition("|")[0])
    vintage = st.session_state.get("w_study_vintage", "latest")
    flow, first_date, last_date, res = study_numbers(page.snap, ref, on, window, vintage)
    lang = plang.lang()
    unit = i18n.unit(info["unit"] + (" per day" if flow else ""), lang)
    if res.before.mean_per_day is None or res.after.mean_per_day is None:
        what = (t("page.study.whole", unit=t(f"study.unit_{res.unit}")) if res.unit != "days"
                else t("page.study.within", n=window))
        st.info(t("page.study.no_side", date=on, what=what, first=first_date.date(), last=last_date.date(),
                  note=res.note_in(lang)))
        return res
    study_metrics(res)
    w = res.window_in(lang)
    fig_kw = dict(title=t("page.study.fig_title", label=ref_label(page, ref), on=on_label),
                  subtitle=t("page.study.fig_subtitle", window=w, date=on, unit=unit),
                  unit=unit, sources=full_range_sources(page.snap, ref, lang), today=vdata.today(), vintage=vintage)
    fig, win = study_figure(page.snap, ref, on, window, **fig_kw, lang=lang, sep=plang.sep())
    st.plotly_chart(fig, width="stretch", key="study_chart", config=export.plotly_config(lang, displaylogo=False),
                    alt=t("page.study.alt", title=fig_kw['title'], note=res.note_in(lang),
                          before=plang.number(res.before.mean_per_day, 1), after=plang.number(res.after.mean_per_day, 1)))
    st.caption(t("page.study.not_causal"))
    study_downloads(page, ref, on, window, res, win, fig_kw)
    return res
