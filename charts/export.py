"""Exports that carry their sources: PNG, SVG, offline HTML, CSV of exactly what is displayed, the full
dataset, and a citation.

Images go through kaleido with the system's Chrome or Chromium, one browser kept alive for every image
(``figures.image``, where the maps' images are drawn too; its names are read here as ``export.to_image``,
``export.find_browser``, ``export.ExportUnavailable`` and ``export.LOCALE_FILES``).
"""
from __future__ import annotations

import datetime as dt
import io
import json
import re
import stat
import unicodedata
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from charts import templates
from figures.events import event_categories, number_events

# The image export's names, read as export.<name> by the command line, the page and the site.
from figures.image import KALEIDO_LOCALE, LOCALE_FILES, ExportUnavailable, find_browser, to_image  # noqa: F401
from figures.labels import display_label
from figures.layout import EXPORT_SIZES, height_limit, size_of
from loaders import clock
from loaders.data import load_snapshot
from loaders.fetch import atomic_write
from loaders.reported_figures import ID as REPORTED_ID
from loaders.reported_figures import METRICS, default_kind
from loaders.text import csv_cell, csv_frame, html_text
from wording import i18n
from wording.citation import no_link_note

DASHBOARD = "US immigration enforcement: trends and events (open-source dashboard)"


def locale_script(lang: str) -> str:
    """The JavaScript that registers Plotly's locale for ``lang`` ("" for English, which is built in)."""
    if lang == "en" or not lang:
        return ""
    with open(LOCALE_FILES[lang], encoding="utf-8") as fh:
        return fh.read()


def plotly_locale(lang: str) -> dict:
    """Plotly's locale for ``lang`` as data ({"dictionary": ..., "format": ...}), read from the bundled file, for
    Plotly's ``config.locales``: a page that cannot run the locale script (Streamlit's charts) passes it with the
    figure instead. {} for English."""
    if lang in (None, "", "en"):
        return {}
    text = locale_script(lang)
    m = re.search(r"var locale=(\{.*\});", text, re.S)
    if not m:
        raise ValueError(f"{LOCALE_FILES[lang]}: no 'var locale={{...}};' in the locale file")
    js = m[1]
    # The file is a JavaScript object literal: bare keys and \xNN escapes. Quote the keys that are bare words
    # and turn the escapes into JSON's, outside the strings' own text.
    out, i, in_str = [], 0, False
    while i < len(js):
        c = js[i]
        if in_str:
            if c == "\\" and js[i + 1] == "x":
                out.append("\\u00" + js[i + 2:i + 4])
                i += 4
                continue
            if c == "\\":
                out.append(js[i:i + 2])
                i += 2
                continue
            in_str = c != '"'
            out.append(c)
        elif c == '"':
            in_str = True
            out.append(c)
        else:
            word = re.match(r"[A-Za-z_$][\w$]*(?=:)", js[i:])
            if word and (not out or out[-1] in "{,"):
                out.append(f'"{word[0]}"')
                i += len(word[0])
                continue
            out.append(c)
        i += 1
    loc = json.loads("".join(out))
    return {"dictionary": loc.get("dictionary", {}), "format": loc.get("format", {})}


def plotly_config(lang: str = "en", **extra) -> dict:
    """A Plotly config for a chart in ``lang``: its locale named and its definition carried along."""
    config = dict(extra)
    if lang not in (None, "", "en"):
        config["locale"] = lang
        config["locales"] = {lang: plotly_locale(lang)}
    return config


def to_html(fig: go.Figure, alt: str = "", title: str = "", lang: str = "en", details: list[str] | None = None) -> bytes:
    """A standalone page that works offline: plotly.js is embedded, nothing is loaded from a CDN. The page has
    a <title>, and the chart a role="img" container named by the alt text, which is also printed under it.
    In a language other than English the page says so (<html lang>) and carries Plotly's locale inline.
    The page is charts/templates/export_chart.html."""
    config: dict[str, bool | str] = {"displaylogo": False}
    if lang not in (None, "", "en"):
        config["locale"] = lang
    chart = fig.to_html(include_plotlyjs=True, full_html=False, config=config)
    script = locale_script(lang)
    if script:
        # Plotly's markup is plotly.js, then the chart's div and the script that draws it: the locale is
        # registered between the two (after plotly.js, before the chart is drawn).
        at = chart.find('<div id="')
        chart = chart[:at] + f"<script>{script}</script>" + chart[at:] if at >= 0 else chart
    description = i18n.t("export.description", lang, alt=alt) if alt else ""
    return templates.render("export_chart.html", chart=chart, lang=lang if script else "", title=title, alt=alt,
                            description=description, details=details or []).encode("utf-8")


def svg_with_alt(svg: bytes, title: str, alt: str) -> bytes:
    """Put <title> and <desc> first inside the SVG root (what screen readers and image tools read), and name
    them with aria-labelledby."""
    text = svg.decode("utf-8")
    i = text.index("<svg")
    j = text.index(">", i)
    head = text[i:j]
    if "role=" not in head:
        head += ' role="img" aria-labelledby="chart-title chart-desc"'
    inner = f'<title id="chart-title">{html_text(title)}</title><desc id="chart-desc">{html_text(alt)}</desc>'
    return (text[:i] + head + ">" + inner + text[j + 1:]).encode("utf-8")


def export_figure(r, fmt: str) -> bytes:
    """A rendered view (``charts.compose.Rendered``) as PNG, SVG or HTML at the size it was rendered for; the
    SVG and HTML carry the title and the alt text."""
    sz = size_of(r.size)
    fig = r.figure
    lang = getattr(r.view, "lang", "en")
    if fmt == "html":
        return to_html(fig, alt=r.alt, title=r.title, lang=lang, details=html_details(r))
    img = to_image(fig, fmt, width=sz.width, height=int(fig.layout.height), scale=sz.scale if fmt == "png" else 1,
                   lang=lang)
    return svg_with_alt(img, r.title, r.alt) if fmt == "svg" else img


def fit_note(r, lang: str = "en") -> str:
    """What a rendered image cannot do at its size, in ``lang``: "" when it fits its size's height limit; else
    that it does not fit even with everything that gives way given way (``figures.core._with_events``), its
    height and what to change. Said where the image is downloaded (the page's download area) and by ``python -m
    charts export``; the image is drawn taller, never cut."""
    sz = size_of(r.size)
    if r.figure is None or r.figure.layout.height is None:
        return ""
    height, limit = int(r.figure.layout.height), height_limit(sz)
    if height <= limit + 1:
        return ""
    return i18n.t("export.over_height", lang, size=i18n.t("export.file.size_" + sz.name, lang), height=height,
                  limit=int(limit))


def html_details(r) -> list[str]:
    """What an HTML export prints under its chart besides the alt text: every source line in full and every
    event in view with its date, title and source. A small figure's footer names the sources in a line and
    numbers the events; the words it leaves out are here (and in the CSVs)."""
    meta = r.figure.layout.meta if r.figure is not None else None
    out = list((meta or {}).get("source_lines", [])) if isinstance(meta, dict) else []
    return out + event_lines(r)


def event_lines(r) -> list[str]:
    """Every event in view, one line each with its number, date, title and source (the HTML export and the
    static site print them under the chart)."""
    lang = getattr(r.view, "lang", "en")
    if r.events is None or not len(r.events):
        return []
    return [i18n.t("export.event_line", lang, number=e.label, date=f"{pd.Timestamp(e.date):%Y-%m-%d}", title=e.title,
                   source=e.source_name) for e in number_events(r.events).itertuples(index=False)]


def export_table(r) -> pd.DataFrame:
    """What a rendered view draws, one row per value: the series points (kind "series"), the reported figures
    drawn beside them (kind "reported": the period they cover, who reported them and the link in ``source``),
    period totals (kind "period total") and the events in view (kind "event"). The columns are the view's table's
    (``r.table``: with the revision band on, its five band columns after ``source``) with ``kind`` first and
    ``note`` last; a reported figure or an event leaves the columns it has no value for blank (``with_rows``)."""
    table = r.table.copy()
    totals = {p.ref for p in (r.totals or [])}
    table.insert(0, "kind", ["period total" if (s + ("|" + k if k else "")) in totals else "series"
                             for s, k in zip(table["series"], table["key"])])
    table["note"] = ""
    if r.reported is not None and len(r.reported):
        rep = r.reported
        rows = pd.DataFrame({
            "kind": "reported", "series": REPORTED_ID + "." + rep["metric"].astype(str), "key": "",
            # The reported series' own title ("Book-ins into ICE detention per day, as reported"), in the view's
            # language: "Reported: ice book ins per day", made from the id, was English in every CSV.
            "label": [reported_title(m, r.view.lang) for m in rep["metric"].astype(str)],
            "unit": rep["unit"].astype(str), "date": rep["period_start"].dt.date.astype(str),
            "end": rep["period_end"].dt.date.astype(str), "value": rep["value"].astype(float).to_numpy(),
            "release": "", "flag": "reported;" + rep["source_quality"].astype(str),
            # The original's own address, or that it was not found and how to cite it; never read_at (a copy).
            "source": [source_line(r) for r in rep.itertuples(index=False)],
            # What the figure is and whether it is verified, in the row itself: a CSV has no marker styles.
            "note": [reported_note(r) for r in rep.itertuples(index=False)],
        })
        table = with_rows(table, rows)
    if r.events is not None and len(r.events):
        table = with_rows(table, event_rows(r.events))
    return table


def reported_title(metric: str, lang: str = "en") -> str:
    """The title of the reported-figures series of ``metric`` (``loaders.reported_figures.METRICS``) in ``lang``."""
    english = METRICS[metric][2] if metric in METRICS else metric.replace("_", " ")
    return i18n.series_text(f"{REPORTED_ID}.{metric}", "title", lang, english)


def with_rows(table: pd.DataFrame, rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` of another kind (reported figures, events) under ``table``, in the table's columns and order. A
    column the rows have no value for is left blank: no number in a number column (the band's ``band_low``), an
    empty text elsewhere; the view decides which columns there are (the band's only when it is on), so no kind of
    row has to know them. A column of the rows that the table lacks is refused, never dropped without a word."""
    extra = [c for c in rows.columns if c not in table.columns]
    if extra:
        kinds = sorted(set(rows["kind"])) if "kind" in rows else []
        raise ValueError(f"export table: rows of kind {kinds} have column(s) {extra} "
                         f"that the table ({', '.join(table.columns)}) lacks")
    blank = {c: np.nan if pd.api.types.is_float_dtype(table[c]) else "" for c in table.columns if c not in rows}
    return pd.concat([table, rows.assign(**blank)[list(table.columns)]], ignore_index=True)


def event_rows(events: pd.DataFrame) -> pd.DataFrame:
    """The events in view as rows of the export table (kind "event"): ``key`` is the number the chart gives
    the event ("6", "U1" for a reader's own), ``label`` its title, ``date`` and ``end`` its day, ``flag`` its
    category, ``source`` the outlet and its link, and ``note`` the category in words, whether the date is
    approximate and, when the original's address was not found, what to cite. A compact image draws only the
    events its key can list; the CSV carries every event in view."""
    ev = number_events(events)
    recs = ev.to_dict("records")
    return pd.DataFrame({
        "kind": "event", "series": "events", "key": ev["label"].astype(str), "label": ev["title"].astype(str),
        "unit": "", "date": [f"{pd.Timestamp(d):%Y-%m-%d}" for d in ev["date"]],
        "end": [f"{pd.Timestamp(d):%Y-%m-%d}" for d in ev["date"]], "value": np.nan, "release": "",
        "flag": ev["category"].astype(str),
        "source": [" ".join(x for x in (_plain(e.get("source_name")), _plain(e.get("source_url"))) if x) for e in recs],
        "note": [event_note(e) for e in recs],
    })


def _plain(value) -> str:
    return "" if value is None or (isinstance(value, float) and pd.isna(value)) else str(value)


def event_note(e) -> str:
    """An event row's note: "personnel", "approximate date", "reader's own event", and what to cite when the
    original's address was not found."""
    parts = [event_categories.get(e["category"], str(e["category"]))]
    if e.get("date_precision") == "approximate":
        parts.append("approximate date")
    if e.get("own"):
        parts.append("reader's own event")
    # The original's address, or, when it was not found, the sentence that says so and what to cite.
    missing = no_link_note(e, "en")
    if missing:
        parts.append(missing)
    return "; ".join(parts)


def source_line(r) -> str:
    """A reported figure's source for the CSV: who reported it and the original's address, or, when that
    address was not found, the sentence that says so with the outlet, title and date to cite."""
    url = "" if r.url is None or (isinstance(r.url, float) and r.url != r.url) else str(r.url).strip()
    return " ".join(x for x in (str(r.reported_by), url or no_link_note(r, "en")) if x)


def reported_note(r) -> str:
    """A reported figure's CSV note: its kind (a bound with its side), "unverified" when it is, then its own
    note, e.g. "bound: fewer than; syndicated copy; Book-ins into detention, not arrests: ..."."""
    kind = str(getattr(r, "kind", "") or "") or default_kind(str(r.metric), str(r.unit))[0]
    bound = str(getattr(r, "bound", "") or "") or (default_kind(str(r.metric), str(r.unit))[1] if kind == "bound" else "")
    what = f"{kind}: {BOUND_WORDS[bound]}" if kind == "bound" else kind
    return "; ".join(x for x in (what, str(r.source_quality), str(r.note)) if x)


BOUND_WORDS = {"upper": "fewer than", "lower": "more than"}


def wide_csv(r, *, sources: list[str] | None = None, title: str = "", generated_on: dt.date | None = None,
             lang: str = "en", citation_text: str = "") -> bytes:
    """One date column and one column per series (its label and unit), for Datawrapper or Flourish; blank where
    a series has no value on a date. Its leading '#' comment lines are the long CSV's (title, ``sources`` and the
    chart's notes, the citation, the export date): the data must not travel without its source. When pasting
    into a tool that reads every line as data, skip the lines that start with '#' (Datawrapper: delete them in
    its table, or paste from the first line that does not start with '#')."""
    frames = []
    for p in r.series:
        f = p.frame
        col = f"{display_label(p)} ({p.unit})"
        values = f["value"].to_numpy()
        if getattr(p, "decimals", None) is not None:
            values = values.round(p.decimals)
        frames.append(pd.Series(values, index=f["date"].dt.date.astype(str), name=col))
    if not frames:
        frames = [pd.Series([float(p.frame["value"].iloc[0])], index=[p.key or p.label], name=p.unit)
                  for p in (r.totals or [])]
        wide = pd.concat(frames, axis=0).rename("value").rename_axis("member").reset_index()
    else:
        wide = pd.concat([s[~s.index.duplicated(keep="last")] for s in frames], axis=1).sort_index()
        wide = wide.rename_axis("date").reset_index()
    head = csv_head(title=title, sources=list(sources or []) + list(getattr(r, "notes", []) or []),
                    generated_on=generated_on, lang=lang, citation_text=citation_text)
    body = plain_numbers(safe_frame(wide)).to_csv(index=False, lineterminator="\n")
    return (head + body).encode("utf-8")


def plain_numbers(df: pd.DataFrame) -> pd.DataFrame:
    """Float columns as text a reader expects: a whole number without ".0" (a count stays "1408"), any other
    value in its shortest exact form (201.1, not 201.09999999999999), a gap blank."""
    out = df.copy()
    for c in out.columns:
        if pd.api.types.is_float_dtype(out[c]):
            v = out[c].to_numpy(dtype="float64")
            whole = np.isfinite(v) & (np.abs(v) < 1e15) & (v == np.round(v))
            out[c] = [("" if not np.isfinite(x) else str(int(x)) if w else repr(float(x))) for x, w in zip(v, whole)]
    return out


def slug(text: str) -> str:
    """Text as a file name: lower-case words joined by "-", 200 characters at most (file systems allow 255).
    Accented letters keep their base letter ("día" -> "dia", "ñ" -> "n"): split from their marks by Unicode's
    compatibility decomposition, the marks dropped (before, "arrestos por día" became "arrestos-por-d-a")."""
    plain = "".join(c for c in unicodedata.normalize("NFKD", str(text)) if not unicodedata.combining(c))
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")[:200].rstrip("-") or "chart"


def file_stem(r, size: str = "") -> str:
    """The full title and range as a file name in the view's language ("ice-arrests-per-day-2-series-2025-01-20-
    to-2026-07-31"; "arrestos-por-dia-de-ice-2-series-del-2025-01-20-al-2026-07-31"), not cut short at 60
    characters as before; ``size``: an export size's word in the file name ("article", "articulo")."""
    lang = getattr(r.view, "lang", "en")
    return slug(f"{r.title} {i18n.date_range(r.lo, r.hi, lang)}" + (f" {file_word('size_' + size, lang)}" if size else ""))


def file_word(what: str, lang: str = "en") -> str:
    """A word of a download's file name in ``lang`` ("wide", "events", "size_article"...), as a slug."""
    return slug(i18n.t("export.file." + what, lang))


def safe_frame(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every text cell a spreadsheet would run as a formula guarded (``loaders.text.csv_frame``)."""
    return csv_frame(df)


def to_csv(df: pd.DataFrame, *, sources: list[str], title: str = "", generated_on: dt.date | None = None,
           lang: str = "en", citation_text: str = "") -> bytes:
    """UTF-8 CSV with '#' comment lines naming the view and its sources, then the rows. In another language the
    comment lines (title, sources, citation) are translated; the column names, codes and ISO dates are not:
    they are for machines. Whole numbers are written without ".0" (``plain_numbers``)."""
    if "kind" in df and (df["kind"] == "event").any():
        # Where the events are, said before the rows: a reader who skips '#' lines still meets them as rows.
        sources = list(sources) + [i18n.plural("export.csv_events", int((df["kind"] == "event").sum()), lang)]
    head = csv_head(title=title, sources=sources, generated_on=generated_on, lang=lang, citation_text=citation_text)
    body = plain_numbers(safe_frame(df)).to_csv(index=False, lineterminator="\n")
    return (head + body).encode("utf-8")


def csv_head(*, title: str, sources: list[str], generated_on: dt.date | None, lang: str, citation_text: str) -> str:
    """The '#' comment lines every CSV of a chart starts with: title, sources and notes, citation, export date."""
    head = [f"# {csv_cell(title)}"] if title else []
    head += [f"# {csv_cell(s)}" for s in sources]
    if citation_text:
        head.append(f"# {csv_cell(i18n.t('export.citation_head', lang, citation=citation_text))}")
    if lang != "en":
        head.append(f"# {i18n.t('export.csv_language', lang)}")
    when = (generated_on or clock.today()).isoformat()
    head.append(f"# {i18n.t('export.csv_exported', lang, date=when, dashboard=dashboard_name(lang))}")
    return "\n".join(h.replace("\n", " ") for h in head) + "\n"


def dashboard_name(lang: str = "en") -> str:
    return DASHBOARD if lang == "en" else i18n.t("export.dashboard", lang)


def citation(snap, prepared, *, url: str = "", retrieved: dt.date | None = None, lang: str = "en") -> str:
    """Plain-text citation for the view: each source with its release, then the dashboard. Publishers and
    titles are cited as published; the connecting words are in ``lang``."""
    parts = []
    for sid in dict.fromkeys(p.source for p in prepared):
        e = snap.source_entry(sid)
        rel = [p.frame["release"].max() for p in prepared if p.source == sid and len(p.frame)
               and p.frame["release"].notna().any()]
        rel_txt = i18n.t("export.citation_release", lang, date=max(rel).date().isoformat()) if rel else ""
        parts.append(i18n.t("export.citation_source", lang, publisher=e.get("publisher", sid),
                            title=e.get("title", sid), release=rel_txt, url=e.get("landing_page", "")))
    when = (retrieved or clock.today()).isoformat()
    parts.append(i18n.t("export.citation_compiled", lang, dashboard=dashboard_name(lang), url=f", {url}" if url else "",
                        date=when))
    return " ".join(parts)


def full_dataset_zip(data_dir, fmt: str = "csv") -> bytes:
    """Every observation of the snapshot (CSV or Parquet) with the manifest and the catalogue."""
    snap = load_snapshot(data_dir)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        obs = snap.obs.copy()
        for c in ("date", "end", "release"):
            obs[c] = obs[c].dt.date.astype(str).replace("NaT", "")
        if fmt == "parquet":
            b = io.BytesIO()
            obs.to_parquet(b, index=False)
            z.writestr("observations.parquet", b.getvalue())
        else:
            z.writestr("observations.csv", safe_frame(obs).to_csv(index=False, lineterminator="\n"))
        z.writestr("series.csv", safe_frame(snap.catalogue.reset_index()).to_csv(index=False, lineterminator="\n"))
        z.writestr("manifest.json", json.dumps(snap.manifest, indent=2, sort_keys=True))
        if len(snap.flags):
            z.writestr("quality_flags.csv", safe_frame(snap.flags).to_csv(index=False, lineterminator="\n"))
    return buf.getvalue()


def write_file(out: Path | str, payload: bytes) -> None:
    """Write an export to ``out``, for every export command: a regular file is replaced atomically (a failed
    write, on a full disk say, leaves the old file, or none, never half a chart); a character device such as
    /dev/stdout is written directly. An ``OSError`` names ``out``; the caller says it in one line."""
    out = Path(out)
    if out.exists() and stat.S_ISCHR(out.stat().st_mode):
        with open(out, "wb") as fh:
            fh.write(payload)
        return
    atomic_write(out, payload)


IMAGE_SIZES: tuple[str, ...] = EXPORT_SIZES
"""The sizes a reader can download a chart image at, in the order the page offers them: the page's size pickers
list them, so the names are part of the outputs' interface."""


def image_dimensions(size: str, fmt: str) -> tuple[int, float]:
    """(width in CSS pixels, pixel scale) of a downloaded image at ``size``: only a PNG's pixels are scaled."""
    s = size_of(size)
    return s.width, (s.scale if fmt == "png" else 1)
