"""Command-line export of the page's charts: ``python -m charts export ...``.

A view is given either as a permalink's query string (copied from the page's address bar) or with options;
options given explicitly override the query string. The figure is built by the same code as the page.
"""
from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import stat
import sys
from pathlib import Path

from analysis.view import View
from charts import export, places_export, site
from charts.context import load_context
from figures.core import source_lines
from figures.layout import EXPORT_SIZES, SIZES
from loaders import clock
from loaders import data as cdata
from loaders.errors import LoaderError
from views.compose import render
from views.link import query_of, trends_from_query, view_from_link
from wording import i18n


def query_from_args(args) -> dict[str, str]:
    """The view's query parameters: the permalink's, with options given explicitly on top."""
    q = {}
    if args.query:
        q = query_of(args.query)
    for name in ("series", "preset", "start", "end", "granularity", "rolling", "index_at", "index_event", "as_of",
                 "categories", "event_text"):
        val = getattr(args, name, None)
        if val not in (None, ""):
            q[name] = val
    if args.start or args.end:
        q["preset"] = "custom"
    for flag in ("per_day", "log", "fiscal_axis", "band"):
        if getattr(args, flag):
            q[flag] = "1"
    if args.no_events:
        q["events"] = "0"
    if args.no_reported:
        q["reported"] = "0"
    if getattr(args, "lang", None):
        q["lang"] = args.lang
    if getattr(args, "separators", None):
        q["sep"] = args.separators
    return q


def view_from_args(args) -> View:
    return trends_from_query(query_from_args(args))


def output_problem(out: Path, lang: str = "en") -> str | None:
    """Why ``out`` cannot be written, found before any work is done; None when it looks writable."""
    if out.is_dir():
        return i18n.t("cli.out_is_folder", lang, out=out, example=out / "chart.png")
    parent = out.parent
    for folder in [parent, *parent.parents]:
        if folder.exists():
            if not folder.is_dir():
                return i18n.t("cli.out_parent_is_file", lang, out=out, folder=folder)
            break
    if out.exists() and not out.is_file() and not stat.S_ISCHR(out.stat().st_mode):
        return i18n.t("cli.out_not_regular", lang, out=out)
    return None


def write_output(out: Path, payload: bytes) -> None:
    """Write ``payload`` to ``out`` (``export.write_file``: atomic for a regular file)."""
    export.write_file(out, payload)


def size_notes(r, size, fmt: str, lang: str) -> list[str]:
    """What an image cannot do at its size (``export.fit_note``): a compact image that does not fit its size's
    height limit even with everything that gives way given way is drawn taller, and the command says so rather
    than hand over a card that is not one."""
    note = "" if fmt == "csv" else export.fit_note(r, lang)
    return [note] if note else []


def chart_payload(snap, r, fmt: str, *, wide: bool, lang: str, today: dt.date) -> bytes:
    """The file's bytes: the image, or the CSV (long, or ``wide``) with its sources, citation and export date."""
    cite = export.citation(snap, r.prepared, retrieved=today, lang=lang) if lang != "en" else ""
    if fmt == "csv" and wide:
        return export.wide_csv(r, sources=source_lines(snap, r.prepared, lang), title=r.title, lang=lang,
                               citation_text=cite, generated_on=today)
    if fmt == "csv":
        return export.to_csv(export.export_table(r), sources=source_lines(snap, r.prepared, lang) + r.notes,
                             title=r.title, lang=lang, citation_text=cite, generated_on=today)
    return export.export_figure(r, fmt)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m charts", description="Export the dashboard's charts.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("export", help="write one chart (png, svg, html) or its data (csv) to a file",
                        description="Write one chart (png, svg, html) or its data (csv) to a file. Its dates (how "
                                    "late each source drawn is, 'generated on', the CSV's export date) count from "
                                    "today, or from the day DASHBOARD_TODAY=YYYY-MM-DD names, as the page's do.")
    ex.add_argument("--query", help="a permalink or its query string, e.g. 'series=...&preset=all'")
    ex.add_argument("--series", help="comma-separated series ids (id or id|key); see data/snapshot/series.csv")
    ex.add_argument("--preset", help="since-2025-01-20, last-90-days, fiscal-ytd, calendar-year, all, custom")
    ex.add_argument("--start", help="first date (YYYY-MM-DD); implies a custom range")
    ex.add_argument("--end", help="last date (YYYY-MM-DD)")
    ex.add_argument("--granularity", help="native, weekly or monthly")
    ex.add_argument("--rolling", help="0, 7 or 30 (days; daily series only)")
    ex.add_argument("--per-day", dest="per_day", action="store_true", help="show period totals per day")
    ex.add_argument("--index-at", dest="index_at", help="index = 100 at this date")
    ex.add_argument("--index-event", dest="index_event", help="index = 100 at this event id")
    ex.add_argument("--as-of", dest="as_of", help="as published on this date")
    ex.add_argument("--log", action="store_true", help="log scale")
    ex.add_argument("--fiscal-axis", dest="fiscal_axis", action="store_true", help="fiscal-year axis labels")
    ex.add_argument("--band", action="store_true",
                    help="shade the revision band: for each period, the range of the figures every release "
                         "printed for it (with --as-of, releases out by then)")
    ex.add_argument("--categories", help="event categories to show, comma-separated")
    ex.add_argument("--event-text", dest="event_text", help="show only events whose text contains this")
    ex.add_argument("--no-events", action="store_true", help="leave events off")
    ex.add_argument("--no-reported", action="store_true", help="leave reported figures off")
    ex.add_argument("--view", choices=["trends", "places"], help="which part of the page (default: trends)")
    ex.add_argument("--map", help="places view: state, facilities, field-offices, deaths-state, deaths-facilities, "
                                  "facility or state-history (deaths maps: --start/--end give the period)")
    ex.add_argument("--release", help="places view: <ice|sheet|trac>:YYYY-MM-DD (default: latest ICE workbook)")
    ex.add_argument("--per-capita", dest="per_capita", action="store_true", help="places view: per 100,000 residents")
    ex.add_argument("--facility", help="places view: facility code (or name-only id) for --map facility")
    ex.add_argument("--state", help="places view: two-letter state for --map state-history")
    ex.add_argument("--format", choices=["png", "svg", "html", "csv"], help="default: from the output's extension")
    ex.add_argument("--size", choices=list(EXPORT_SIZES), default="full",
                    help="article (680 px wide, no text under 12 px but 11 px in a busy view's legend and notes), "
                         "social (1080 px square card) or full (1200 px; the default); an image its view is too "
                         "busy for is drawn taller, and a note on stderr says so")
    ex.add_argument("--width", type=int, default=None, help="override the size's width in pixels")
    ex.add_argument("--wide", action="store_true",
                    help="CSV only: one date column and one column per series (for Datawrapper or Flourish)")
    ex.add_argument("--out", required=True, help="output file")
    ex.add_argument("--data", default=str(cdata.DATA), help="snapshot folder (default: data/)")
    ex.add_argument("--lang", choices=list(i18n.LANGS), help="language of every text in the export (default: "
                    "the link's lang, else en); CSV column names and dates stay machine-readable")
    ex.add_argument("--separators", choices=list(i18n.SEPARATORS), metavar="MARK",
                    help="thousands mark of numbers: ',' (75,000, the default) or '.' (75.000; the decimal mark "
                         "is then ',')")
    si = sub.add_parser("site", help="write a static site of key views (HTML pages, downloads, embeds)")
    si.add_argument("--out", required=True, help="output folder (replaced as a whole)")
    si.add_argument("--views", help="file of permalinks, one a line (default: the headline views, places, releases)")
    si.add_argument("--live-url", dest="live_url", default="",
                    help="the live dashboard's public address, for each page's link back to its view (default: "
                         "none; the pages then say no live dashboard is linked; a loopback address is refused)")
    si.add_argument("--site-url", dest="site_url", default="",
                    help="where the site will be served, for the embed snippets (default: relative links)")
    si.add_argument("--date", help="build date printed on the pages (default: the snapshot's date)")
    si.add_argument("--no-images", dest="no_images", action="store_true", help="skip PNG and SVG downloads")
    si.add_argument("--data", default=str(cdata.DATA), help="snapshot folder (default: data/)")
    si.add_argument("--lang", choices=list(i18n.LANGS), default="en", help="language of the site's pages and downloads")
    si.add_argument("--separators", choices=list(i18n.SEPARATORS), default=None, metavar="MARK",
                    help="thousands mark of numbers: ',' (the default) or '.'")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.cmd == "site":
        return site.main(args)

    out = Path(args.out)
    # The language of what the user reads here: --lang, else the link's.
    lang = args.lang or trends_from_query(query_from_args(args)).lang

    def error(key: str, **fields) -> None:
        print(i18n.t("cli.error", lang, message=i18n.t(key, lang, **fields) if key else fields["text"]),
              file=sys.stderr)

    fmt = args.format or out.suffix.lstrip(".").lower()
    if fmt not in ("png", "svg", "html", "csv"):
        error("cli.unknown_format", name=repr(out.name))
        return 2
    problem = output_problem(out, lang)
    if problem:  # before drawing anything: a PNG takes seconds to render
        error("", text=problem)
        return 2
    try:  # the page's day (DASHBOARD_TODAY, else today): the figures' age, "generated on", the CSV's export date
        today = clock.today()
    except ValueError as e:
        error("", text=str(e))
        return 2
    pq = query_of(args.query or "")
    if args.view == "places" or (args.view is None and pq.get("view") == "places"):
        for name in ("map", "release", "facility", "state"):
            if getattr(args, name, None):
                pq[name] = getattr(args, name)
        if args.per_capita:
            pq["per"] = "100k"
        for name, key in (("start", "from"), ("end", "to")):  # the deaths maps' period
            if getattr(args, name, None):
                pq[key] = getattr(args, name)
        sep = getattr(args, "separators", None) or trends_from_query(query_from_args(args)).sep or None
        return places_export.export(Path(args.data), pq, fmt, out, width=args.width, lang=lang, separators=sep,
                                    today=today)
    try:
        snap, events, reported = load_context(Path(args.data), lang)
    except (OSError, ValueError, KeyError, LoaderError) as e:  # a broken events.csv is a LoaderError
        error("cli.cannot_read_snapshot", data=args.data, reason=" ".join(str(e).split()))
        return 1
    # The same check as the page's: what the link asks for and cannot be drawn is adjusted and said.
    view, notes = view_from_link(query_from_args(args), snap, events=events)
    for note in notes:
        print(i18n.t("cli.note", lang, message=note), file=sys.stderr)
    if not view.series:
        asked = query_from_args(args).get("series", "")
        error("cli.unknown_series", asked=asked or i18n.t("cli.none_given", lang))
        return 2
    size = SIZES[args.size]
    if args.width:
        size = dataclasses.replace(size, width=args.width)
    try:
        r = render(snap, view, events=events, reported=reported, size=size, generated_on=today)
    except ValueError as e:  # a view the chart cannot draw honestly (too many series or units): say why
        error("", text=str(e))
        return 2
    if r.figure is None or r.table.empty:
        error("cli.no_data", lo=r.lo, hi=r.hi)
        return 1
    for note in size_notes(r, size, fmt, lang):
        print(i18n.t("cli.note", lang, message=note), file=sys.stderr)
    try:
        payload = chart_payload(snap, r, fmt, wide=args.wide, lang=lang, today=today)
    except export.ExportUnavailable as e:
        error("", text=i18n.t("export.needs_browser", lang) if lang != "en" else str(e))
        return 1
    try:
        write_output(out, payload)
    except OSError as e:
        error("cli.cannot_write", out=out, reason=e.strerror or e)
        return 1
    shape = i18n.t("cli.shape", lang, width=int(r.figure.layout.width), height=int(r.figure.layout.height),
                   size=size.name) if fmt != "csv" else ""
    print(i18n.t("cli.wrote", lang, out=out, size=i18n.number(len(payload), lang, view.sep), lo=r.lo, hi=r.hi,
                 points=len(r.table), shape=shape))
    print(i18n.t("cli.alt", lang, alt=r.alt))
    return 0


if __name__ == "__main__":
    sys.exit(main())
