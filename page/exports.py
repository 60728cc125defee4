"""Downloads under the chart: the chart at a chosen size (built when clicked), its data, the full dataset,
the citation and the embed code."""
from __future__ import annotations

import streamlit as st

from charts import export
from charts.site import PUBLIC_URL_SETTING, live_embeds, public_url
from page.releases_view import citation_with_whats_new
from views.compose import Rendered, sources_of
from wording.plain import markdown_literal

from . import state
from .context import DATA, Page, rendered
from .lang import t


def chart_downloads(page: Page, r: Rendered, events) -> str:
    """The chart's own downloads and its alt text; return the image size chosen."""
    snap = page.snap
    lang = r.view.lang
    src_lines = sources_of(snap, r)
    size = st.radio(t("page.exports.image_size"), list(export.IMAGE_SIZES), key="w_export_size", horizontal=True,
                    format_func=lambda k: t("page.exports.size_choice", size=t("export.file.size_" + k),
                                                         description=t("size." + k)))
    stem = export.file_stem(r)
    sized_word = export.file_word("size_" + size, lang)

    def sized(fmt: str, view=r.view, ev=events, size=size) -> bytes:
        return export.export_figure(rendered(page, view, ev, size), fmt)

    # A view too busy for the size (many series in four panels) is drawn taller than the size allows, never cut:
    # said here, before the reader downloads it, with what to change (fewer series, another size).
    note = export.fit_note(rendered(page, r.view, events, size), lang)
    if note:
        st.warning(note)

    # One row that wraps, each button as wide as its label: in five equal columns the longer labels were cut
    # ("Wide CSV (Datawrapper, Flo..."), more so in Spanish and on a phone.
    row = st.container(horizontal=True, gap="small", key="export_buttons")
    cite = export.citation(snap, r.prepared, lang=lang) if lang != "en" else ""

    def csv_bytes(rr=r, s=src_lines, ti=r.title) -> bytes:  # the table is built when clicked
        return export.to_csv(export.export_table(rr), sources=list(s) + rr.notes, title=ti, lang=lang, citation_text=cite)

    row.download_button(t("page.exports.csv"), key="dl_csv", mime="text/csv", on_click="ignore", data=csv_bytes,
                       file_name=f"{stem}.csv")
    def wide_bytes(rr=r, s=src_lines, ti=r.title) -> bytes:  # built when clicked
        return export.wide_csv(rr, sources=list(s), title=ti, lang=lang, citation_text=cite)

    row.download_button(t("page.exports.wide"), key="dl_wide", mime="text/csv", on_click="ignore", data=wide_bytes,
                       file_name=f"{stem}-{export.file_word('wide', lang)}.csv")
    row.download_button(t("page.exports.html"), data=lambda: sized("html"),
                       file_name=f"{stem}-{sized_word}.html", mime="text/html", on_click="ignore", key="dl_html")
    if export.find_browser():
        row.download_button(t("page.exports.png"), data=lambda: sized("png"), file_name=f"{stem}-{sized_word}.png",
                           mime="image/png", on_click="ignore", key="dl_png")
        row.download_button(t("page.exports.svg"), data=lambda: sized("svg"), file_name=f"{stem}-{sized_word}.svg",
                           mime="image/svg+xml", on_click="ignore", key="dl_svg")
    else:
        row.warning(t("page.exports.needs_browser"))
    st.caption(t("page.exports.csv_caption"))
    st.text(t("page.exports.alt"))
    st.code(r.alt, language=None, wrap_lines=True)
    return size


def dataset_downloads(lang: str = "en") -> None:
    name = export.file_word("dataset", lang)
    row = st.container(horizontal=True, gap="small", key="dataset_buttons")
    row.download_button(t("page.exports.full_csv"), data=lambda: export.full_dataset_zip(DATA, "csv"),
                       file_name=f"{name}-csv.zip", mime="application/zip",
                       on_click="ignore", key="dl_full_csv")
    row.download_button(t("page.exports.full_parquet"),
                       data=lambda: export.full_dataset_zip(DATA, "parquet"),
                       file_name=f"{name}-parquet.zip", mime="application/zip",
                       on_click="ignore", key="dl_full_parquet")


def citation(page: Page, r: Rendered) -> str:
    """Show the citation for the view (each source's latest release in sentences); return it."""
    lang = r.view.lang
    text = citation_with_whats_new(page.snap, export.citation(page.snap, r.prepared, lang=lang),
                                   [p.source for p in r.prepared], lang=lang)
    st.text(t("page.exports.citation"))
    st.code(text, language=None, wrap_lines=True)
    return text


def embed_codes(query: dict) -> dict[str, str]:
    """The embed code, light and dark; return it by theme."""
    # Under a heading, not in an expander of its own: the exports are one already (expanders do not nest well).
    # The live app in a frame whose height follows its width; for many readers, embed the static site's page
    # instead (python -m charts site: the same frames, served by any static host).
    with st.container(key="embed_codes"):
        st.text(t("page.exports.embed"))
        # The deployment's configured public address, never the one this browser used (on the machine that runs
        # the page it is localhost, which no reader of a pasted frame can open).
        url, why = public_url()
        if why:
            st.info(markdown_literal(t(f"page.exports.embed_url_{why}", setting=PUBLIC_URL_SETTING, url=url)))
            return {}
        codes = live_embeds(url, query)
        for theme, code in codes.items():
            st.text(t(f"page.exports.version_{theme}"))
            st.code(code, language="html", wrap_lines=True)
    return codes


def downloads(page: Page, r: Rendered, events, query: dict) -> bool:
    """The exports, in an expander built only while it is open (about twenty elements that every change of the
    view resent and the browser redrew); return whether it was open."""
    box = state.lazy_expander(t("page.exports.heading_all"), "x_exports")
    if not box.open:
        return False
    with box:
        chart_downloads(page, r, events)
        dataset_downloads(r.view.lang)
        citation(page, r)
        embed_codes(query)
    return True
