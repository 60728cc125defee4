"""A static site of the dashboard's key views: ``python -m charts site --out DIR [--views FILE]``.

Streamlit keeps every session in one server process, so a spike of readers on the day a story runs is a bad
fit for the live app. This writes a folder of plain files that any static host or CDN can serve, one page per
view, each drawn by the same code as the page (``views.compose.render``, ``views.places.render``,
``loaders.ledger.whats_new``):

- the interactive chart (plotly.js is written once, as ``assets/plotly.min.js``; no CDN), its alt text, the
  citation, the data dates, PNG/SVG/CSV downloads and a link back to the same view in the live app;
- two embed pages per chart (light and dark) and the responsive ``<iframe>`` snippet for each;
- nothing on any page asks for a file outside the folder: the maps' outlines are ``assets/geo-assets.js``.

Rebuilding from the same snapshot gives the same bytes. What would otherwise change between builds:
- the date printed in figure footers and CSV headers is the snapshot's date (the newest retrieval date in its
  manifest), not the day of the build; ``--date`` or ``SOURCE_DATE_EPOCH`` (the reproducible-builds
  convention) set another;
- Plotly's random div ids are replaced by fixed ones (``chart-<page>``);
- PNGs are re-encoded with no metadata chunks, and the random ids plotly.js writes into SVGs (clip paths,
  gradients) are renumbered in order of appearance.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import pandas as pd
import plotly.graph_objects as go
from PIL import Image
from plotly.offline import get_plotlyjs

from analysis import places as P
from charts import export, templates
from charts.context import load_context
from figures import maps  # imported before the date is fixed in it
from figures.core import source_lines
from figures.labels import localised_label
from loaders import data as cdata
from loaders import ledger
from loaders.errors import LoaderError
from views import places as PV
from views.compose import render
from views.link import places_from_query, places_to_query, query_of, trends_to_query, view_from_link
from wording import i18n

# No live dashboard unless the builder names one (``--live-url``): a published page must never cite or link the
# builder's own machine, as the old default (http://127.0.0.1:8501/) made every page do.
DEFAULT_LIVE_URL = ""
LOOPBACK_HOSTS = {"localhost", "127.0.0.1", "::1", "0.0.0.0"}


# Where a deployment says its own public address, for the page's embed code (docs/deployment.md). The address the
# browser used cannot serve: on the machine that runs the page it is http://localhost:8501/.
PUBLIC_URL_SETTING = "DASHBOARD_PUBLIC_URL"


def public_url_problem(url: str) -> str:
    """Why readers elsewhere cannot open an address ("" when they can): ``"not_http"`` (no http(s) scheme or no
    host) or ``"loopback"`` (this machine's own address). The one check for every address handed to readers:
    the static site's ``--live-url`` and the page's embed code."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("http", "https") or not host:
        return "not_http"
    if host in LOOPBACK_HOSTS or host.startswith("127.") or host.endswith(".localhost"):
        return "loopback"
    return ""


def check_live_url(url: str) -> str:
    """The live dashboard's address as pages will link it ('' for none); a loopback address is refused."""
    if not url:
        return ""
    problem = public_url_problem(url)
    if problem == "not_http":
        raise SiteError(f"--live-url {url!r} is not an http(s) address")
    if problem == "loopback":
        raise SiteError(f"--live-url {url!r} is this machine's own address: readers of the published pages cannot "
                        "open it. Give the public address of the live dashboard, or leave --live-url out (the pages "
                        "then say no live dashboard is linked)")
    return url if url.endswith("/") or "?" in url else url + "/"


def public_url(environ=None) -> tuple[str, str]:
    """(this deployment's public address from ``DASHBOARD_PUBLIC_URL``, why it cannot be used: "" when it can,
    "unset", or a ``public_url_problem``)."""
    env = os.environ if environ is None else environ
    url = (env.get(PUBLIC_URL_SETTING) or "").strip()
    return url, (public_url_problem(url) if url else "unset")


def live_link(live_url: str, query: dict) -> str:
    """The link back to a view in the live dashboard, or '' when the build names none."""
    return live_url + "?" + urlencode(query) if live_url else ""
# The default pages: the headline measures since 20 January 2025 with the page's default events, the Places
# map, and what is new in each source's latest release. Each line is a permalink's query string, the same form
# a --views file takes.
DEFAULT_VIEWS = (
    "series=ddp_arrests_aggregates.weekly_national_digitised,ddp_arrests_aggregates.monthly_national_chart_data"
    "&preset=since-2025-01-20",
    "series=ice_detention_stats.detained_total&preset=since-2025-01-20",
    "series=ice_detention_stats.book_ins_ice&preset=since-2025-01-20",
    "series=ice_detention_stats.removals_fytd|FY2025,ice_detention_stats.removals_fytd|FY2026&preset=since-2025-01-20",
    "series=cbp_encounters.swb_total&preset=since-2025-01-20",
    "view=places&map=state",
    "view=releases",
)
ASPECT = (16, 10)  # the embeds' width:height; the iframe's height follows its width through CSS aspect-ratio


class SiteError(ValueError):
    """A views file or a view that cannot be built; the message names the file and line."""


@dataclass
class Page:
    slug: str
    kind: str  # "trends", "places" or "releases"
    query: dict[str, str]
    title: str = ""
    alt: str = ""
    citation: str = ""
    dates: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    figure: object = None
    csv: bytes = b""
    sentences: list[tuple[str, list[str]]] = field(default_factory=list)
    lang: str = "en"  # the language of the page's own words (trend pages follow it throughout)


# ---------------------------------------------------------------------------------------------- views

def read_views(path: Path) -> list[dict[str, str]]:
    """One permalink a line; blank lines and lines starting with '#' are skipped."""
    try:
        lines = Path(path).read_text("utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise SiteError(f"cannot read the views file {path}: {getattr(e, 'strerror', None) or e}") from None
    views = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        q = query_of(line)
        if not q:
            raise SiteError(f"{path} line {n}: {line.strip()[:80]!r} is not a permalink (no query string)")
        if q.get("view", "trends") not in ("trends", "places", "releases"):
            raise SiteError(f"{path} line {n}: view {q['view']!r} is not one of trends, places, releases")
        views.append(q)
    if not views:
        raise SiteError(f"{path} holds no permalinks")
    return views


def slugify(text: str, most: int = 48) -> str:
    s = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    if len(s) > most:  # cut at a word's end, never inside one ("...-people-i")
        s = s[:most + 1].rsplit("-", 1)[0] if "-" in s[:most + 1] else s[:most]
    return s.rstrip("-") or "view"


# ---------------------------------------------------------------------------------------------- the date

def snapshot_date(snap: cdata.Snapshot) -> dt.date:
    """The newest retrieval date in the manifest: the day the snapshot's newest file was read."""
    days = []
    for entry in snap.manifest.get("sources", {}).values():
        for f in entry.get("files", []):
            for k in ("retrieved",):
                v = str(f.get(k, ""))[:10]
                if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
                    days.append(v)
    return dt.date.fromisoformat(max(days)) if days else dt.date(1970, 1, 1)


def build_date(snap: cdata.Snapshot, given: str | None = None) -> dt.date:
    if given:
        return dt.date.fromisoformat(given)
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        return dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc).date()
    return snapshot_date(snap)


# ---------------------------------------------------------------------------------------------- byte-stable images

# Where plotly.js puts a random six-hex-digit id: the figure's (clip paths, defs, legend) and each trace's uid
# (its group's class). Matched only after these prefixes, so numbers in the data or text are never touched.
_SVG_ID = re.compile(r"(?<![0-9a-zA-Z])(clip|defs-|topdefs-|legend|trace|cb|g)([0-9a-f]{6})(?![0-9a-f])")


_GRADIENT = re.compile(r"(?<![0-9a-zA-Z])(g[0-9]{6}-)([0-9a-f]{1,8})(?![0-9a-f])")


def stable_svg(svg: bytes) -> bytes:
    """plotly.js names clip paths, defs and trace groups after random ids; renumber each distinct id in order
    of first appearance, so two exports of the same figure are the same bytes."""
    text = svg.decode("utf-8")
    mapping: dict[str, str] = {}

    def sub(m: re.Match) -> str:
        return m.group(1) + mapping.setdefault(m.group(2), f"{len(mapping):06d}")
    text = _SVG_ID.sub(sub, text)
    grads: dict[str, str] = {}  # colour-scale gradients: "g<figure id>-<a counter that runs on across figures>"

    def sub_grad(m: re.Match) -> str:
        return m.group(1) + grads.setdefault(m.group(2), f"{len(grads):08d}")
    return _GRADIENT.sub(sub_grad, text).encode("utf-8")


def with_fixed_uids(fig):
    """A copy whose traces carry fixed uids: plotly.js otherwise draws a random one into SVG class names
    (trace groups, colour bars and their axes)."""
    out = go.Figure(fig)
    for i, t in enumerate(out.data):
        t.uid = f"{i:06d}"
    return out


def stable_png(png: bytes) -> bytes:
    """The pixels only: re-encoded with no text, time or colour-profile chunks."""
    img = Image.open(io.BytesIO(png))
    img.load()
    out = io.BytesIO()
    Image.frombytes(img.mode, img.size, img.tobytes()).save(out, format="PNG", optimize=False, compress_level=9)
    return out.getvalue()


# ---------------------------------------------------------------------------------------------- the pages

def _n(v: float, lang: str = "en") -> str:
    if lang != "en":
        return i18n.number(v, lang, decimals=0 if abs(v) >= 100 else 1)
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.1f}"


def trend_alt(r) -> str:
    """A sentence or two a screen reader can say: what is drawn, over which dates, the last value of each line,
    and how many events are marked. The figure's own alt text, where it has one, is used instead."""
    parts = []
    for p in r.prepared:
        f = p.frame.dropna(subset=["value"])
        if f.empty:
            parts.append(f"{p.label}: no data in this range")
            continue
        last = f.iloc[-1]
        parts.append(f"{p.label} ({p.unit}), {len(f)} points; the last, for the period ending "
                     f"{last['end'].date().isoformat()}, is {_n(float(last['value']))}")
    n_ev = 0 if r.events is None else len(r.events)
    ev = f" {n_ev} events are numbered on the chart and listed below it." if n_ev else ""
    return (f"Line chart from {r.lo.isoformat()} to {r.hi.isoformat()}. " + "; ".join(parts) + "." + ev)


def trend_page(snap, events, reported, q: dict, day: dt.date, live_url: str) -> Page:
    view, notes = view_from_link(q, snap, events=events, today=day)
    lang = view.lang
    if not view.series:
        raise SiteError(f"no drawable series in {urlencode(q)!r}; see data/series.csv for ids")
    r = render(snap, view, events=events, reported=reported, generated_on=day)
    if r.figure is None or r.table.empty:
        raise SiteError(f"no data for {urlencode(q)!r} between {r.lo} and {r.hi}")
    query = trends_to_query(view)
    link = live_link(live_url, query)
    title = r.title  # kept by the figure as typed (figures.core), never read back out of its HTML
    dates = []
    for p in r.prepared:
        f = p.frame
        label = localised_label(p, lang)
        rel = f["release"].dropna() if "release" in f else pd.Series(dtype="datetime64[ns]")
        txt = (i18n.t("site.data_from", lang, label=label, start=f['date'].min().date().isoformat(),
                      end=f['end'].max().date().isoformat())
               if len(f) else i18n.t("site.no_data", lang, label=label))
        if len(rel):
            txt += i18n.t("site.latest_release", lang, date=rel.max().date().isoformat())
        else:
            txt += i18n.t("site.no_release_date", lang)
        dates.append(txt)
    cite = export.citation(snap, r.prepared, url=link, retrieved=day, lang=lang)
    # The page's CSV: what the chart draws, the reported figures beside it and the events in view (the figure's
    # footer says the events are listed under the chart and in the CSV download).
    csv = export.to_csv(export.export_table(r), sources=source_lines(snap, r.prepared, lang) + r.notes, title=title,
                        generated_on=day, lang=lang, citation_text=cite if lang != "en" else "")
    events = export.event_lines(r)
    return Page("", "trends", query, title=title, alt=getattr(r, "alt", "") or trend_alt(r),
                citation=cite, dates=dates, notes=notes, figure=r.figure, csv=csv, lang=lang,
                sentences=[(i18n.t("site.events_head", lang), events)] if events else [])


def places_page(snap, q: dict, day: dt.date, live_url: str) -> Page:
    """A Places view (a map or a facility's history); in the link's language (``lang=``, English otherwise)."""
    lang = str(q["lang"]) if q.get("lang") in i18n.LANGS else "en"
    pl = P.build(snap)
    view = places_from_query(q)
    r = PV.render(snap, pl, view, lang, today=day)  # the maps' "generated" line and a deaths map's open end
    if r.figure is None:
        raise SiteError(f"places view {urlencode(q)!r}: {r.problem}")
    query = {**places_to_query(view), **({"lang": lang} if lang != "en" else {})}
    link = live_link(live_url, query)
    rel = view.release or PV.default_release(pl)
    src, when = P.parse_release_key(rel) if rel else ("", "")
    # the release in words for the reader ("ICE's release of 2026-04-09 ..."), never its link code "ice:2026-04-09"
    rel_words = _release_words(pl, src, when, lang) if rel else ""
    alt = getattr(r, "alt", "")
    if not alt:
        t = r.table
        if view.map == "state" and "detained_adp" in t:
            top = t.sort_values("detained_adp", ascending=False).head(3)
            alt = i18n.t("site.places_alt_state", lang, title=r.title[:1].lower() + r.title[1:], release=rel_words, top="; ".join(
                f"{row.state_name} {_n(float(row.detained_adp), lang)}" for row in top.itertuples()))
        else:
            alt = i18n.t("site.places_alt_other", lang, title=r.title, release=rel_words, rows=len(t))
    cite = " ".join(r.sources) + " " + i18n.t("export.citation_compiled", lang, dashboard=export.dashboard_name(lang),
                                              url=f", {link}" if link else "", date=day.isoformat())
    csv = export.to_csv(r.table, sources=r.sources, title=r.title, generated_on=day, lang=lang,
                        citation_text=cite if lang != "en" else "")
    dates = [i18n.t("site.places_release_shown", lang, source=src, date=when)]
    return Page("", "places", query, title=r.title, alt=alt, citation=cite, dates=dates, figure=r.figure, csv=csv,
                lang=lang)


def _release_words(pl, source: str, release: str, lang: str) -> str:
    hit = pl.releases[(pl.releases["source"] == source) & (pl.releases["release"] == release)]
    return P.release_text(source, release, hit["date"].iloc[0] if len(hit) else release, lang)


def releases_page(snap, day: dt.date, live_url: str, lang: str = "en") -> Page:
    sentences, dates = [], []
    for src, sents in ledger.whats_new_all(snap, lang).items():
        entry = snap.source_entry(src)
        name = f"{entry.get('publisher', src)}: {entry.get('title', src)}"
        sentences.append((name, [s.text for s in sents]))
        dates.append(i18n.t("site.latest_release_of", lang, name=name, date=sents[0].release.date().isoformat()))
    compiled = i18n.t("export.citation_compiled", lang, dashboard=export.dashboard_name(lang),
                      url=f", {live_url}" if live_url else "",
                      date=day.isoformat())
    query = {"view": "releases", **({"lang": lang} if lang != "en" else {})}
    return Page("", "releases", query, title=i18n.t("site.releases_title", lang),
                alt="", citation=ledger.citation_text(snap, lang=lang) + "\n" + compiled, dates=dates,
                sentences=sentences, lang=lang)


# ---------------------------------------------------------------------------------------------- HTML
# The pages are Jinja2 templates (charts/templates/site_*.html, autoescaped); these functions gather what each
# shows. The frame (its style and Content-Security-Policy) is charts/templates/site_base.html.

def _chart_div(fig, div_id: str, lang: str = "en") -> str:
    # The figures are laid out for an export size (a fixed pixel width); on a page or in an embed the chart
    # must follow its column instead, so the fixed width is dropped (the height and margins stay).
    fig = go.Figure(fig)
    fig.update_layout(width=None, autosize=True)
    config: dict[str, bool | str] = {"displaylogo": False, "responsive": True}
    if lang != "en":
        config["locale"] = lang  # registered by assets/plotly-locale-<lang>.js, loaded after plotly.js
    return fig.to_html(full_html=False, include_plotlyjs=False, div_id=div_id, default_width="100%", config=config)


def dark(fig):
    """The same figure on a dark background (for embeds in dark pages); the data and text are unchanged."""
    d = go.Figure(fig)
    d.update_layout(paper_bgcolor="#111418", plot_bgcolor="#111418", font_color="#e8e8e8")
    d.update_xaxes(gridcolor="#333", linecolor="#777", zerolinecolor="#444")
    d.update_yaxes(gridcolor="#333", linecolor="#777", zerolinecolor="#444")
    for a in d.layout.annotations or ():
        if a.font is not None and a.font.color and str(a.font.color).lower() in ("#444", "#333", "#555", "#666", "black"):
            a.font.color = "#cfcfcf"
    if d.layout.geo:
        d.update_geos(bgcolor="#111418", lakecolor="#111418")
    return d


def embed_snippet(src: str, title: str) -> str:
    w, h = ASPECT
    return templates.render("embed_snippet.html", src=src, title=title, width=w, height=h)


def live_embeds(app_url: str, query: dict[str, str]) -> dict[str, str]:
    """Embed code for a view of the live app: Streamlit's own ``embed=true`` (no menu or header) with its
    ``embed_options`` light or dark theme, in the same responsive frame as the static embeds. An address readers
    cannot open (this machine's own, as the static-site builder refuses too) is a ``SiteError``."""
    problem = public_url_problem(app_url)
    if problem:
        raise SiteError(f"embed code for {app_url!r}: "
                        + ("not an http(s) address" if problem == "not_http" else
                           "this machine's own address, which readers of the page it is pasted into cannot open"))
    base = app_url.split("?", 1)[0].split("#", 1)[0]
    out = {}
    for theme in ("light", "dark"):
        q = urlencode({**query, "embed": "true", "embed_options": f"{theme}_theme"})
        out[theme] = embed_snippet(f"{base}?{q}", "US immigration enforcement chart (live dashboard)")
    return out


def _site_words(lang: str):
    """The site's messages (``site.*`` in the catalogue) in ``lang``, for a template's ``t("key", ...)``."""
    def t(key, **fields):
        return i18n.t("site." + key, lang, **fields)
    return t


def embed_html(page: Page, fig, theme: str, scripts: list[str], live_link: str) -> str:
    bg, fg = ("#111418", "#e8e8e8") if theme == "dark" else ("#ffffff", "#1a1a1a")
    return templates.render("site_embed.html", lang=page.lang, title=page.title, scripts=scripts, page=page,
                            chart=_chart_div(fig, f"chart-{page.slug}-{theme}", page.lang), live_link=live_link,
                            bg=bg, fg=fg, link_colour="#8cc8ff" if theme == "dark" else "#0b5c99",
                            t=_site_words(page.lang))


def page_html(page: Page, scripts: list[str], images: dict[str, str], live_link: str, site_url: str,
              day: dt.date) -> str:
    chart = None if page.figure is None else _chart_div(page.figure, "chart-" + page.slug, page.lang)
    downloads = [(key, images[key]) for key in ("png", "svg", "csv") if key in images]
    missing = [k.upper() for k in ("png", "svg") if page.figure is not None and k not in images]
    embeds = [(theme, embed_snippet(f"{site_url}{page.slug}.embed-{theme}.html", page.title))
              for theme in ("light", "dark")] if chart is not None else []
    return templates.render("site_page.html", lang=page.lang, title=page.title, scripts=scripts, page=page,
                            chart=chart, downloads=downloads, missing=missing, embeds=embeds, live_link=live_link,
                            day=day, t=_site_words(page.lang))


def index_html(pages: list[Page], day: dt.date, live_url: str, lang: str = "en") -> str:
    name = export.dashboard_name(lang)
    return templates.render("site_index.html", lang=lang, title=name, scripts=[], pages=pages, day=day,
                            live_url=live_url, t=_site_words(lang))


# ---------------------------------------------------------------------------------------------- build

def build_site(out: Path, data_dir: Path = cdata.DATA, views: list[dict] | None = None, *,
               live_url: str = DEFAULT_LIVE_URL, site_url: str = "", date: str | None = None,
               images: bool = True, log=print, lang: str = "en", separators: str | None = None) -> list[Page]:
    """Write the site into ``out`` (replaced as a whole: built beside it, then moved in). With ``lang`` other
    than English every trend page, its CSV, citation, images and embeds are in that language (a view's own
    ``lang=`` in the views file wins); places and releases pages too (a view's own ``lang=`` wins)."""
    if site_url and not site_url.endswith("/"):
        site_url += "/"
    live_url = check_live_url(live_url)
    snap, events, reported = load_context(Path(data_dir))
    day = build_date(snap, date)
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SiteError(f"--out {out} is a file; give a folder")
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        assets = stage / "assets"
        assets.mkdir()
        (assets / "plotly.min.js").write_text(get_plotlyjs(), "utf-8")
        locale_js = export.locale_script(lang)
        if locale_js:
            (assets / f"plotly-locale-{lang}.js").write_text(locale_js, "utf-8")
        pages: list[Page] = []
        seen: set[str] = set()
        (assets / "geo-assets.js").write_text(maps.geo_assets_script() + "\n", "utf-8")
        for i, q in enumerate(views or [query_of(v) for v in DEFAULT_VIEWS], 1):
            kind = q.get("view", "trends")
            if lang != "en" or separators:
                q = {**q, **({"lang": lang} if lang != "en" and "lang" not in q else {}),
                     **({"sep": separators} if separators and "sep" not in q else {})}
            try:
                if kind == "places":
                    page = places_page(snap, q, day, live_url)
                elif kind == "releases":
                    page = releases_page(snap, day, live_url, q.get("lang", "en") if q.get("lang") in i18n.LANGS
                                         else "en")
                else:
                    page = trend_page(snap, events, reported, q, day, live_url)
            except SiteError as e:
                if views:  # a view the user asked for: the build fails, naming it
                    raise
                log(f"note: default view {i} left out: {e}")  # a snapshot without that source
                continue
            page.slug = f"{i:02d}-{slugify(page.title)}"
            if page.slug in seen:
                page.slug += "-" + hashlib.sha256(urlencode(page.query).encode()).hexdigest()[:6]
            seen.add(page.slug)
            scripts = [] if page.figure is None else (
                ["assets/plotly.min.js"] + (["assets/geo-assets.js"] if kind == "places" else [])
                + ([f"assets/plotly-locale-{page.lang}.js"] if page.lang != "en" and export.locale_script(page.lang)
                   else []))
            files: dict[str, str] = {}
            if page.csv:
                (stage / f"{page.slug}.csv").write_bytes(page.csv)
                files["csv"] = f"{page.slug}.csv"
            if page.figure is not None and images and export.find_browser():
                fixed = with_fixed_uids(page.figure)
                for fmt in ("png", "svg"):
                    try:
                        raw = (maps.to_image(fixed, fmt) if kind == "places"
                               else export.to_image(fixed, fmt, lang=page.lang))
                    except export.ExportUnavailable:
                        continue
                    data = stable_png(raw) if fmt == "png" else stable_svg(raw)
                    (stage / f"{page.slug}.{fmt}").write_bytes(data)
                    files[fmt] = f"{page.slug}.{fmt}"
            link = live_link(live_url, page.query)
            (stage / f"{page.slug}.html").write_text(page_html(page, scripts, files, link, site_url, day),
                                                     "utf-8")
            if page.figure is not None:
                for theme in ("light", "dark"):
                    fig = page.figure if theme == "light" else dark(page.figure)
                    (stage / f"{page.slug}.embed-{theme}.html").write_text(
                        embed_html(page, fig, theme, scripts, link), "utf-8")
                    (stage / f"{page.slug}.embed-{theme}.txt").write_text(
                        embed_snippet(f"{site_url}{page.slug}.embed-{theme}.html", page.title) + "\n", "utf-8")
            pages.append(page)
            log(f"page {page.slug}.html ({', '.join(sorted(files)) or 'no downloads'})")
        (stage / "index.html").write_text(index_html(pages, day, live_url, lang), "utf-8")
        (stage / "site.json").write_text(json.dumps(
            {"built_on": day.isoformat(), "live_url": live_url, "site_url": site_url,
             "pages": [{"slug": p.slug, "title": p.title, "query": p.query} for p in pages]},
            indent=1, sort_keys=True) + "\n", "utf-8")
        for p in stage.rglob("*"):
            os.chmod(p, 0o755 if p.is_dir() else 0o644)  # mkdtemp's 0700 would keep a web server out
        os.chmod(stage, 0o755)
        if out.exists():
            old = out.with_name(f".{out.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            out.rename(old)
            stage.rename(out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            stage.rename(out)
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    return pages


def main(args) -> int:
    if args.date:
        try:
            dt.date.fromisoformat(args.date)
        except ValueError:
            print(f"error: --date {args.date!r} is not a date (YYYY-MM-DD)", file=sys.stderr)
            return 2
    try:
        views = read_views(Path(args.views)) if args.views else None
        pages = build_site(Path(args.out), Path(args.data), views, live_url=args.live_url, site_url=args.site_url,
                           date=args.date, images=not args.no_images,
                           log=lambda m: print(m, file=sys.stderr), lang=getattr(args, "lang", "en") or "en",
                           separators=getattr(args, "separators", None))
    except SiteError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (OSError, KeyError, LoaderError) as e:
        print(f"error: cannot build the site: {' '.join(str(e).split())}", file=sys.stderr)
        return 1
    print(f"wrote {len(pages)} pages to {args.out}")
    return 0
