"""The events timeline: the bundled ``data/events.csv``, a local user file, and uploaded files.

An event is as much a claim as a figure, so every row must be dated, categorised and sourced, and every
file goes through the same checks:

- bytes must be UTF-8 (a leading BOM is accepted because Excel writes one); a cell holding bytes that are
  not UTF-8 is rejected with the byte value and its offset in the file, instead of being guessed at;
- the header must name the required columns; extra columns are ignored;
- ``date`` is a real ISO date (``YYYY-MM-DD``) between 1990 and two years from today; ``date_precision`` is
  ``exact`` or ``approximate``; ``category`` is one of ``CATEGORIES``;
- ``source_url`` is an absolute http(s) URL: ``javascript:``, ``data:`` and relative links would become
  live links on the page and in exports;
- text is bounded (``MAX_LENGTHS``), has no control characters (they break CSV exports and hover boxes) and
  no bidirectional-override characters (they can make a title read differently from what it says);
- a text cell may not start with ``= + - @``: spreadsheets run such cells as formulas. Exports neutralise
  them as well (``neutralise_for_csv``), but an events file is the wrong place for them in the first place;
- the same date and title twice is a duplicate: the later row is rejected, naming the first;
- optional copy columns (``loaders.copies``): ``link_is_copy``, ``original_outlet``, ``original_date``. A link to a
  republished copy or an aggregator's summary says so and names the original outlet; a link to a host known to
  only republish others' reports must be marked as a copy. Files without these columns load with "not a copy".

Markup such as ``<b>`` is *not* rejected: text is data and is shown as plain text everywhere (the chart
escapes it; tables show it literally).

``validate_events`` returns the accepted rows and, for an uploaded file, every rejected row with the row
number a spreadsheet shows (the header is row 1) and the field: nothing is dropped silently. Problems with
the file as a whole (too large, too many rows, no header, broken quoting) raise ``ValidationError``. The
bundled file must be clean: ``read_bundled`` raises on its first bad row.
"""
from __future__ import annotations

import csv
import datetime as dt
import io
import re
import unicodedata
from pathlib import Path
from urllib.parse import urlsplit

import pandas as pd

from . import copies
from .errors import ValidationError

SOURCE = "events"
DATA = Path(__file__).resolve().parent.parent / "data"
BUNDLED = DATA / "events.csv"
USER = DATA / "user_events.csv"  # git-ignored: a reader's own events, merged on load

COLUMNS = ["id", "date", "date_precision", "title", "category", "description", "source_name", "source_url"]
REQUIRED = COLUMNS  # every column must be present; ``id`` and ``description`` may be left blank
OPTIONAL = copies.COPY_COLUMNS  # may be absent (then empty: the link is taken to be the original)
CATEGORIES = {
    "personnel": "Personnel",
    "policy": "Policy",
    "operation": "Operation",
    "legal": "Court / legal",
    "funding": "Funding",
    "statistic-report": "Statistic / data release",
    "political": "Political",
}
PRECISIONS = ("exact", "approximate")
MAX_LENGTHS = {"id": 80, "title": 120, "description": 500, "source_name": 120, "source_url": 500,
               "original_outlet": 120, "link_is_copy": 5, "original_date": 10}
EARLIEST = dt.date(1990, 1, 1)
FUTURE_DAYS = 730
ORIGINS = ("bundled", "user", "upload")
OUTPUT = COLUMNS + list(OPTIONAL) + ["row", "origin"]
REJECTED = ["row", "field", "reason"]

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
_FORMULA_START = ("=", "+", "-", "@")
_OWASP_START = ("=", "+", "-", "@", "\t", "\r", "\n")
# Bidirectional embedding/override/isolate marks: invisible, and able to reorder how a title reads.
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")


def validate_events(content: bytes, name: str, *, max_rows: int = 500, max_bytes: int = 256_000,
                    origin: str = "upload", today: dt.date | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Check an events CSV; return (accepted rows, rejected rows with ``row``, ``field``, ``reason``).

    Raises ``ValidationError`` only for problems with the file as a whole.
    """
    content = bytes(content)
    if len(content) > max_bytes:
        raise ValidationError(f"file is {len(content):,} bytes; the limit is {max_bytes:,}", source=SOURCE, file=name)
    text, bad_bytes = _decode(content)
    if not text.strip():
        raise ValidationError("file is empty: expected a header row naming " + ", ".join(COLUMNS),
                              source=SOURCE, file=name)
    records = _read_records(text, name)
    header = [h.strip().lower() for h in records[0]]
    bad_iter = iter(bad_bytes)
    _skip_bad_bytes(records[0], bad_iter)
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise ValidationError(f"row 1 (header): missing column(s) {', '.join(missing)}; found "
                              f"{', '.join(repr(h) for h in header[:12])}", source=SOURCE, file=name)
    dupe_cols = sorted({h for h in header if header.count(h) > 1 and h in COLUMNS})
    if dupe_cols:
        raise ValidationError(f"row 1 (header): column(s) named twice: {', '.join(dupe_cols)}", source=SOURCE, file=name)
    body = [(i + 2, r) for i, r in enumerate(records[1:]) if any(c.strip() for c in r)]
    if len(body) > max_rows:
        raise ValidationError(f"{len(body):,} event rows; the limit is {max_rows:,}", source=SOURCE, file=name)

    today = today or dt.date.today()
    latest = today + dt.timedelta(days=FUTURE_DAYS)
    pos = {c: header.index(c) for c in COLUMNS + [c for c in OPTIONAL if c in header]}
    has_copy_columns = all(c in header for c in OPTIONAL)
    accepted: list[dict] = []
    rejected: list[dict] = []
    seen_ids: dict[str, int] = {}
    seen_keys: dict[tuple[str, str], int] = {}
    for row_no, rec in body:
        problems: list[tuple[str, str]] = []
        encoded = _encoding_problems(rec, header, bad_iter)
        if len(rec) != len(header):
            problems.append(("(row)", f"has {len(rec)} fields; the header has {len(header)}"))
        if encoded:
            problems.extend(encoded)
        if problems:
            rejected += [{"row": row_no, "field": f, "reason": r} for f, r in problems]
            continue
        ev = {c: rec[pos[c]].strip() for c in COLUMNS}
        ev.update({c: (rec[pos[c]].strip() if c in pos else "") for c in OPTIONAL})
        problems = _check_row(ev, latest)
        if not problems:
            exact = ev["date_precision"].lower() == "exact"
            problems = copies.check_copy_fields(ev, ev["source_url"], has_columns=has_copy_columns,
                                                earliest=ev["date"] if exact else None)
        if not problems:
            if not ev["id"]:
                ev["id"] = f"{origin}-{row_no}"
            key = (ev["date"], _title_key(ev["title"]))
            if ev["id"] in seen_ids:
                problems.append(("id", f"id {ev['id']!r} already used on row {seen_ids[ev['id']]}"))
            elif key in seen_keys:
                problems.append(("title", f"duplicate of row {seen_keys[key]} (same date and title)"))
        if problems:
            rejected += [{"row": row_no, "field": f, "reason": r} for f, r in problems]
            continue
        seen_ids[ev["id"]] = row_no
        seen_keys[(ev["date"], _title_key(ev["title"]))] = row_no
        ev["date_precision"] = ev["date_precision"].lower()
        ev["category"] = ev["category"].lower()
        ev["link_is_copy"] = "yes" if copies.is_copy(ev["link_is_copy"]) else "no"
        accepted.append({**ev, "row": row_no, "origin": origin})
    return _frame(accepted), pd.DataFrame(rejected, columns=REJECTED).astype({"row": "int64"})


def read_bundled(path: Path | str = BUNDLED, **kw) -> pd.DataFrame:
    """The curated file shipped with the project: every row must pass, or this raises naming row and field."""
    path = Path(path)
    accepted, rejected = validate_events(path.read_bytes(), str(path), origin="bundled", **kw)
    if len(rejected):
        first = rejected.iloc[0]
        more = f" ({len(rejected) - 1} more problem(s))" if len(rejected) > 1 else ""
        raise ValidationError(f"row {first['row']}, field {first['field']}: {first['reason']}{more}",
                              source=SOURCE, file=str(path))
    return accepted


def load_events(bundled_path: Path | str = BUNDLED, user_path: Path | str | None = None) -> pd.DataFrame:
    """The bundled events plus a reader's local file, one frame with an ``origin`` column.

    ``user_path=None`` means ``user_events.csv`` beside the bundled file, when it exists. A problem in the user
    file never hides the bundled events: its rejected rows (and a file-level error, as row 0) are listed in
    ``result.attrs["rejected"]`` with a ``file`` column, like user rows that repeat a bundled event.
    """
    bundled = read_bundled(bundled_path)
    user_path = Path(user_path) if user_path is not None else Path(bundled_path).with_name("user_events.csv")
    frames, problems = [bundled], []
    if user_path.is_file():
        try:
            user, rejected = validate_events(user_path.read_bytes(), str(user_path), origin="user")
        except ValidationError as exc:
            user, rejected = _frame([]), pd.DataFrame([{"row": 0, "field": "(file)", "reason": str(exc)}])
        frames.append(user)
        problems.append(rejected.assign(file=str(user_path)))
    merged, dupes = merge_events(*frames)
    problems.append(dupes.assign(file=str(user_path)))
    merged.attrs["rejected"] = pd.concat([p for p in problems if len(p)] or [pd.DataFrame(columns=REJECTED)],
                                         ignore_index=True).reindex(columns=["file"] + REJECTED)
    return merged


def merge_events(*frames: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Stack validated frames in priority order; a later event with an earlier one's date and title, or id, is
    returned as rejected (``row`` is its row in its own file) rather than shown twice."""
    frames = [f for f in frames if f is not None and len(f)]
    if not frames:
        return _frame([]), pd.DataFrame(columns=REJECTED + ["origin"])
    allrows = pd.concat(frames, ignore_index=True)
    key = allrows["date"].dt.strftime("%Y-%m-%d") + "\x00" + allrows["title"].map(_title_key)
    dup_key = key.duplicated(keep="first")
    dup_id = allrows["id"].duplicated(keep="first") & ~dup_key
    first_key = dict(zip(key[~dup_key], allrows.index[~dup_key]))
    first_id_mask = ~allrows["id"].duplicated(keep="first")
    first_id = dict(zip(allrows["id"][first_id_mask], allrows.index[first_id_mask]))
    rejected = []
    for i in allrows.index[dup_key | dup_id]:
        r = allrows.loc[i]
        j = first_key[key[i]] if dup_key[i] else first_id[r["id"]]
        what = "same date and title as" if dup_key[i] else f"id {r['id']!r} already used by"
        rejected.append({"row": int(r["row"]), "field": "title" if dup_key[i] else "id",
                         "reason": f"{what} {allrows.loc[j, 'origin']} event on row {allrows.loc[j, 'row']}",
                         "origin": r["origin"]})
    kept = allrows[~(dup_key | dup_id)].sort_values(["date", "id"], kind="mergesort").reset_index(drop=True)
    return kept, pd.DataFrame(rejected, columns=REJECTED + ["origin"])


def neutralise_for_csv(text):
    """OWASP CSV-injection defence: a text cell starting with = + - @ tab CR or LF gets a leading ``'`` so a
    spreadsheet shows it instead of running it. Non-text values pass through unchanged."""
    if isinstance(text, str) and text.startswith(_OWASP_START):
        return "'" + text
    return text


# ---------------------------------------------------------------------------------------------------------


def _decode(content: bytes) -> tuple[str, list[tuple[int, int]]]:
    """Decode UTF-8, keeping undecodable bytes as lone surrogates (which valid UTF-8 can never produce) so the
    cells holding them can be rejected; return the text and [(offset, byte)] of each bad byte, in order."""
    if content.startswith(b"\xef\xbb\xbf"):
        content, base = content[3:], 3
    else:
        base = 0
    try:
        return content.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    bad: list[tuple[int, int]] = []
    pos = 0
    while pos < len(content):
        try:
            content[pos:].decode("utf-8")
            break
        except UnicodeDecodeError as exc:
            for k in range(pos + exc.start, pos + exc.end):
                bad.append((base + k, content[k]))
            pos += exc.end
    return content.decode("utf-8", errors="surrogateescape"), bad


def _read_records(text: str, name: str) -> list[list[str]]:
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        records = list(reader)
    except csv.Error as exc:
        raise ValidationError(f"not a readable CSV near line {reader.line_num}: {exc}", source=SOURCE, file=name) from None
    if not records or not any(c.strip() for c in records[0]):
        raise ValidationError("no header row: the first line must name the columns " + ", ".join(COLUMNS),
                              source=SOURCE, file=name)
    return records


def _skip_bad_bytes(cells: list[str], bad_iter) -> None:
    for c in cells:
        for _ in range(sum(1 for ch in c if "\udc80" <= ch <= "\udcff")):
            next(bad_iter, None)


def _encoding_problems(rec: list[str], header: list[str], bad_iter) -> list[tuple[str, str]]:
    out = []
    for i, c in enumerate(rec):
        n = sum(1 for ch in c if "\udc80" <= ch <= "\udcff")
        if n:
            hits = [next(bad_iter, (None, None)) for _ in range(n)]
            off, byte = hits[0]
            where = f"byte 0x{byte:02x} at offset {off}" if off is not None else "a byte"
            field = header[i] if i < len(header) else f"(column {i + 1})"
            out.append((field, f"not UTF-8 text: {where}" + (f" and {n - 1} more" if n > 1 else "")
                        + "; save the file as UTF-8"))
    return out


def _check_row(ev: dict, latest: dt.date) -> list[tuple[str, str]]:
    problems: list[tuple[str, str]] = []
    for field, value in ev.items():
        limit = MAX_LENGTHS.get(field)
        if limit and len(value) > limit:
            problems.append((field, f"{len(value)} characters; the limit is {limit}"))
        bad = next((ch for ch in value if unicodedata.category(ch) == "Cc" or ch in _BIDI), None)
        if bad is not None:
            problems.append((field, f"contains control character U+{ord(bad):04X}"))
        elif field != "source_url" and value.startswith(_FORMULA_START):
            problems.append((field, f"starts with {value[0]!r}, which spreadsheets treat as a formula"))
    if ev["id"] and not _ID.fullmatch(ev["id"]):
        problems.append(("id", "use letters, digits, '.', '_' and '-' only"))
    problems += _check_date(ev["date"], latest)
    if ev["date_precision"].lower() not in PRECISIONS:
        problems.append(("date_precision", f"{_show(ev['date_precision'])} is not one of {', '.join(PRECISIONS)}"))
    if not ev["title"]:
        problems.append(("title", "empty"))
    if ev["category"].lower() not in CATEGORIES:
        problems.append(("category", f"{_show(ev['category'])} is not one of {', '.join(CATEGORIES)}"))
    if not ev["source_name"]:
        problems.append(("source_name", "empty: every event needs a source"))
    problems += _check_url(ev["source_url"])
    return problems


def _check_date(value: str, latest: dt.date) -> list[tuple[str, str]]:
    if not _ISO.fullmatch(value):
        return [("date", f"{_show(value)} is not an ISO date (YYYY-MM-DD)")]
    try:
        d = dt.date.fromisoformat(value)
    except ValueError:
        return [("date", f"{value} is not a real calendar date")]
    if d < EARLIEST:
        return [("date", f"{value} is before {EARLIEST.isoformat()}")]
    if d > latest:
        return [("date", f"{value} is more than {FUTURE_DAYS} days in the future")]
    return []


def _check_url(value: str) -> list[tuple[str, str]]:
    if not value:
        return [("source_url", "empty: every event needs a source link")]
    if any(ch.isspace() for ch in value):
        return [("source_url", "contains spaces")]
    try:
        parts = urlsplit(value)
    except ValueError as exc:
        return [("source_url", f"not a valid URL ({exc})")]
    if parts.scheme.lower() not in ("http", "https"):
        return [("source_url", f"scheme {_show(parts.scheme + ':')} not allowed; use an http(s) link")]
    if not parts.netloc or not parts.hostname:
        return [("source_url", "no host name")]
    return []


def _title_key(title: str) -> str:
    return " ".join(title.casefold().split())


def _show(value: str) -> str:
    return repr(value[:40] + ("…" if len(value) > 40 else ""))


def _frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=OUTPUT)
    df = df.astype({c: "object" for c in COLUMNS + list(OPTIONAL) if c != "date"})
    df["date"] = pd.to_datetime(df["date"], format="%Y-%m-%d")
    df["row"] = df["row"].astype("int64")
    df["origin"] = df["origin"].astype("object")
    return df


def save_user_events(new: pd.DataFrame, path: Path | str = USER) -> Path:
    """Add validated events to the reader's local events file (git-ignored), keeping what was there.

    The file is rewritten atomically; rows already present (same date and title, or id) are not repeated.
    """
    from .fetch import atomic_write_text
    path = Path(path)
    old = validate_events(path.read_bytes(), str(path), origin="user")[0] if path.is_file() else None
    kept, _ = merge_events(old, new.assign(origin="user"))
    out = kept[COLUMNS + list(OPTIONAL)].copy()
    out["date"] = out["date"].dt.strftime("%Y-%m-%d")
    atomic_write_text(path, out.to_csv(index=False, lineterminator="\n"))
    return path
