"""Command line: ``python -m loaders {list,status,verify,update,rebuild,parse,releases,export-data}``."""
from __future__ import annotations

import argparse
import datetime as dt
import sys
from pathlib import Path

from . import clock, export_data, freshness, limits, pipeline, registry, releases, snapshot
from . import data as cdata
from .errors import LoaderError, os_message


def build_parser() -> argparse.ArgumentParser:
    """The command line's parser: ``main`` runs it, and the tests compare its ``--help`` with the README's."""
    ap = argparse.ArgumentParser(prog="python -m loaders", description="Fetch, parse and check the dashboard's data.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list source ids and titles")
    st = sub.add_parser("status", help="what the snapshot holds and how old each source is against its cadence",
                        description="What the snapshot holds and how old each source is against its cadence, "
                                    "counted from today, or from the day DASHBOARD_TODAY=YYYY-MM-DD names, as the "
                                    "page counts.")
    st.add_argument("--data", default=str(pipeline.DATA), help="snapshot folder (default: data/)")
    ve = sub.add_parser("verify", help="check every file of the snapshot against the sizes and sha256 in its manifest")
    ve.add_argument("--data", default=str(pipeline.DATA), help="snapshot folder (default: data/)")
    up = sub.add_parser("update",
                        help="download, parse, validate and write the named sources (default: every downloadable source)")
    up.add_argument("sources", nargs="*",
                    help="source ids (default: every source with a download address; the others are kept as they are)")
    up.add_argument("--data", default=str(pipeline.DATA), help="snapshot folder (default: data/)")
    up.add_argument("--raw", default=str(pipeline.RAW), help="download cache (default: data/raw/, git-ignored)")
    up.add_argument("--allow-shrink", action="store_true",
                    help=f"accept a release with over {pipeline.SHRINK_LIMIT * 100:.0f}%% fewer rows for a source "
                         "than the snapshot")
    rb = sub.add_parser("rebuild", help="regenerate the snapshot from a folder of raw files")
    rb.add_argument("--raw", default=str(pipeline.RAW), help="folder of raw files (e.g. ../shared/data)")
    rb.add_argument("--out", default=str(pipeline.DATA), help="where to write the snapshot (default: data/)")
    rb.add_argument("sources", nargs="*", help="only these sources (default: all, and the manifest is rewritten)")
    rb.add_argument("--allow-missing", action="store_true",
                    help="keep the current rows of sources and files that have no raw file (default: refuse)")
    rb.add_argument("--allow-shrink", action="store_true",
                    help=f"accept a source with over {pipeline.SHRINK_LIMIT * 100:.0f}%% fewer rows than the snapshot")
    rb.add_argument("--cache", default=None,
                    help="folder of earlier parses and results, reused while the raw files and the code that made "
                         "them are unchanged (default: raw-cache/ inside --out, git-ignored for data/)")
    rb.add_argument("--no-cache", action="store_true", help="parse every raw file again and keep no parses")
    rb.add_argument("--curated-only", action="store_true",
                    help="rebuild only the files curated in this project (data/events.csv, "
                         "data/reported_figures.csv) and keep every other source's rows; needs no raw folder")
    rl = sub.add_parser("releases", help="the release ledger: every release, its data dates, key figures and changes")
    rl.add_argument("source", nargs="?", help="one source id (default: every versioned source)")
    rl.add_argument("--format", choices=("text", "csv"), default="text", help="text for reading (default) or csv")
    rl.add_argument("--latest", action="store_true", help="only the latest release's summary, per source, with its "
                    "publication status on the page's day (DASHBOARD_TODAY=YYYY-MM-DD, else today)")
    rl.add_argument("--revisions", action="store_true",
                    help="instead of the ledger: the figures each release revised, and every revised period with "
                         "the range of its figures, its first and its last revising release (csv: the periods)")
    rl.add_argument("--data", default=str(pipeline.DATA), help="snapshot folder (default: data/)")
    pa = sub.add_parser("parse", help="parse one raw file and print its validated tidy rows as CSV")
    pa.add_argument("source", help="the source id whose parser reads the file (see `list`)")
    pa.add_argument("file", help="the raw file to check")
    ex = sub.add_parser("export-data", help="write the snapshot as Parquet, a Frictionless datapackage.json and a "
                                            "DuckDB file for researchers (docs/data.md)")
    ex.add_argument("--out", required=True, help="folder to write (new, empty, or an earlier export, which is replaced)")
    ex.add_argument("--data", default=str(pipeline.DATA), help="snapshot folder (default: data/)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _run(args)
    except (LoaderError, KeyError, OSError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else os_message(e) if isinstance(e, OSError) else e
        print(f"error: {msg}", file=sys.stderr)
        if args.cmd in ("update", "rebuild"):
            print("the snapshot was left unchanged.", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted; the snapshot is the old one or the new one, never a mix.", file=sys.stderr)
        return 130


def _today() -> dt.date | None:
    """The page's day (DASHBOARD_TODAY, else today); None, said on stderr, when the variable is no date."""
    try:
        return clock.today()
    except ValueError as bad:
        print(f"error: {bad}", file=sys.stderr)
        return None


def _status(args) -> int:
    """``status``: each source's holdings and age, counted from the page's day (DASHBOARD_TODAY, else today)."""
    today = _today()
    if today is None:
        return 2
    table = pipeline.status(Path(args.data), today)
    held = (table["status"] == "held").any() and not (table["status"] == "damaged").any()
    table = freshness.command_status(table, cdata.load_snapshot(args.data) if held else None, today)
    print(table.to_string(index=False))
    if (table["status"] == "damaged").any():
        print(f"error: the snapshot in {args.data} is damaged; run `python -m loaders verify --data "
              f"{args.data}` for every problem, then restore or rebuild it", file=sys.stderr)
        return 1
    return 0


def _run(args) -> int:
    if args.cmd == "list":
        for sid, src in registry.SOURCES.items():
            print(f"{sid}\t{src.title}")
    elif args.cmd == "status":
        return _status(args)
    elif args.cmd == "verify":
        problems = snapshot.verify(Path(args.data))
        for p in problems:
            print(f"error: {p}", file=sys.stderr)
        if problems:
            print(f"{len(problems)} problem(s) in {snapshot.resolve(Path(args.data))}", file=sys.stderr)
            return 1
        man = snapshot.read_manifest(Path(args.data))
        print(f"ok: {len(man.get('snapshot_files', {})) + 1} files in {snapshot.resolve(Path(args.data))} match "
              "the manifest")
    elif args.cmd == "update":
        ids = args.sources or [sid for sid, src in registry.SOURCES.items() if src.downloadable]
        for sid in ids:
            registry.get(sid)
        if not args.sources:  # every source that can be downloaded; the others are kept as the snapshot has them
            kept = sorted(sid for sid, src in registry.SOURCES.items() if not src.downloadable)
            print(f"not downloaded (no download address; kept as the snapshot holds them): {', '.join(kept)}")
        summary = pipeline.update(ids, Path(args.data), Path(args.raw), progress=True, allow_shrink=args.allow_shrink)
        for sid, what in summary.items():
            print(f"{sid}: {what}")
    elif args.cmd == "rebuild":
        if args.curated_only:
            if args.sources:
                raise LoaderError("--curated-only rebuilds the curated files only; leave out the source ids")
            raw, ids = None, pipeline.curated_sources()
        else:
            raw, ids = Path(args.raw), args.sources or None
        cache = None if args.no_cache else Path(args.cache) if args.cache else Path(args.out) / "raw-cache"
        counts = pipeline.rebuild(raw, Path(args.out), ids, progress=True, allow_missing=args.allow_missing,
                                  allow_shrink=args.allow_shrink, cache_dir=cache)
        if not counts:
            print(f"error: no raw files for any source under {args.raw}", file=sys.stderr)
            return 1
        for sid, n in counts.items():
            print(f"{sid}: {n} rows")
        for sid, e in snapshot.read_manifest(Path(args.out))["sources"].items():
            if sid not in counts:
                why = "not curated here" if args.curated_only else "no raw files"
                print(f"{sid}: {why}; its {e.get('rows', 0)} rows were kept as they were")
    elif args.cmd == "releases":
        today = _today()  # --latest says each source's status on the page's day
        if today is None:
            return 2
        sys.stdout.write(releases.run(args.source, Path(args.data), args.format, args.latest, today=today,
                                      revisions=args.revisions))
    elif args.cmd == "parse":
        src = registry.get(args.source)
        path = Path(args.file)
        content = limits.read_regular(path, src.max_bytes, source=src.id)
        df = pipeline.parse_bytes(src, content, path.name)
        sys.stdout.write(pipeline.csv_text(df))
    elif args.cmd == "export-data":
        summary = export_data.export(Path(args.data), Path(args.out))
        for name, (rows, size) in summary.items():
            what = "resources" if name == export_data.DATAPACKAGE else "tables" if name == export_data.DUCKDB_NAME else "rows"
            print(f"{name}\t{rows} {what}\t{size:,} bytes")
        print(f"wrote {len(summary)} files to {args.out}; see docs/data.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
