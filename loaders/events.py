"""The events timeline: the bundled ``data/events.csv``, a local user file, and uploaded files.

An event is as much a claim as a figure, so every row must be dated, categorised and sourced, and every
file goes through the same checks:

- bytes must be UTF-8 (a leading BOM is accepted because Excel writes one); a cell holding bytes that are
  not UTF-8 is rejected with the byte value and its offset in the file, instead of being guessed at;
- the header must name the required columns (all of ``COLUMNS`` but ``id``: a missing or blank id is made from
  the date and title); extra columns are ignored;
- ``date`` is a real ISO date (``YYYY-MM-DD``) between 1990 and two years from today; ``date_precision`` is
  ``exact`` or ``approximate``; ``category`` is one of ``CATEGORIES``;
- ``source_url`` is an absolute http(s) URL: ``javascript:``, ``data:`` and relative links would become
  live links on the page and in exports;
- text is bounded (``MAX_LENGTHS``) and holds no character a reader cannot see: control characters (they
  break CSV exports and hover boxes), bidirectional marks and overrides such as U+061C or U+202E (they can
  make a title read differently from what it says), zero-width and other invisible format characters, tag
  characters, line/paragraph separators U+2028/U+2029, private-use and unassigned code points. The message
  names the code point and its position, so the row can be fixed in any editor;
- ``source_url``'s host is a plain host name: ASCII letters, digits, ``-`` and ``.``, or a valid
  internationalised (IDNA 2008) name, or an IP address; no user name before an ``@`` (which can disguise
  the real host);
- a text cell may not start with ``= + - @`` (``loaders.text.FORMULA_START``; tab, CR and LF are refused as
  control characters first): spreadsheets run such cells as formulas. Exports neutralise them as well
  (``loaders.text.csv_cell``), but an events file is the wrong place for them in the first place;
- the same date and title twice is a duplicate: the later row is rejected, naming the first. Titles are
  compared after NFKC normalisation, case folding, dropping invisible characters and collapsing spaces, so
  a full-width or zero-width-padded copy of a title is still the same title. Text is stored in NFC (the
  canonical form: the same characters, never a different reading).
- optional citation columns (``loaders.copies``): ``link_status``, ``original_outlet``, ``original_title``,
  ``original_date``, ``read_at``. ``source_url`` is the original's own address; a copy the text was read at goes
  in ``read_at`` and is never shown as the source. A ``source_url`` on a host that only republishes others'
  reports (``loaders/never_source_hosts.csv``) is refused; where the original's address is not known,
  ``source_url`` is empty, ``link_status`` is ``not found`` and the row names the original's outlet, title and
  date. Files without these columns load with "the link is the original".

Markup such as ``<b>`` is *not* rejected: text is data and is shown as plain text everywhere (the chart
escapes it; tables show it literally).

``validate_events`` returns the accepted rows and, for an uploaded file, every rejected row with the row
number a spreadsheet shows (the header is row 1) and the field: nothing is dropped silently. Problems with
the file as a whole (too large, too many rows, no header, broken quoting) raise ``ValidationError``. The
bundled file must be clean: ``read_bundled`` raises on its first bad row.

The reader's local file (``user_events.csv`` by default; see ``user_events_setting`` for the environment
variables that move it or turn saving off) is loaded by ``load_events_checked``, which returns its refused rows
beside the events so the page can list them. ``save_user_events`` adds rows to it under a file lock
(``filelock``: portable), re-reading the file inside the lock so concurrent saves from several sessions or
processes all keep their rows, and checks the result against the same limits the loader applies before it
writes anything: a save that would make the file unloadable is refused with ``SaveRefused``, and the file is
left as it was. Messages name files by their base name only: they are shown in a browser, and a server path
is nobody's business there.
"""
from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import ipaddress
import os
import re
import stat
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

import idna
import pandas as pd
from filelock import FileLock, Timeout

from . import copies
from .errors import ValidationError
from .fetch import atomic_write
from .text import FORMULA_START

SOURCE = "events"
DATA = Path(__file__).resolve().parent.parent / "data"
BUNDLED = DATA / "events.csv"
USER = DATA / "user_events.csv"  # git-ignored: a reader's own events, merged on load

COLUMNS = ["id", "date", "date_precision", "title", "category", "description", "source_name", "source_url"]
# Every column but ``id`` must be present (``description`` may be left blank); a missing or blank ``id`` is made
# from the date and title (``auto_id``), as the page and the README tell uploaders.
REQUIRED = [c for c in COLUMNS if c != "id"]
OPTIONAL = copies.COPY_COLUMNS  # may be absent (then empty: the link is taken to be the original)
# Read when present (an older file's copy marker, ``loaders.copies.normalise``), never written.
_READ_ALSO = (copies.LEGACY_COLUMN,)
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
               "original_outlet": 120, "original_title": 300, "original_date": 10, "link_status": 10, "read_at": 500,
               copies.LEGACY_COLUMN: 5}
EARLIEST = dt.date(1990, 1, 1)
FUTURE_DAYS = 730
# Where a row came from: the project's file, the reader's local file, or a file uploaded on the page. The page
# and the save step tell rows apart by it (only "user" rows are rewritten on a save), so a mistyped origin would
# make rows vanish from a save without a word: validate_events refuses any other value.
ORIGINS = ("bundled", "user", "upload")
# ``study_default`` (optional, true on at most one row of a file): the event the Event study tab opens on. Data,
# not a title match in the page; a file without the column has no default.
STUDY_DEFAULT = "study_default"
OUTPUT = COLUMNS + list(OPTIONAL) + [STUDY_DEFAULT, "row", "origin"]
REJECTED = ["row", "field", "reason"]
# Limits. The local file is read with the same limits it is saved under, so a save can never produce a file
# the next load refuses; an upload is smaller so that one upload cannot fill the local file on its own.
USER_MAX_ROWS = 500
USER_MAX_BYTES = 256_000
UPLOAD_MAX_ROWS = 200
UPLOAD_MAX_BYTES = 256_000
LOCK_TIMEOUT = 10.0  # seconds a save waits for another save to finish
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")
# Bidirectional marks, embeddings, overrides and isolates (including the Arabic letter mark U+061C):
# invisible, and able to reorder how a title reads.
_BIDI = set("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# Letters that draw nothing (Hangul fillers, the braille blank): not format characters, yet just as invisible.
_BLANK_LETTERS = set("\u115f\u1160\u3164\uffa0\u2800")
# Variation selectors U+FE00..U+FE0F pick an emoji or text glyph for the character before them; they are
# part of ordinary text (e.g. a heart emoji) and are allowed. The supplementary ones (U+E0100..) are not.
_HOST_LABEL = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")


def validate_events(content: bytes, name: str, *, max_rows: int = USER_MAX_ROWS, max_bytes: int = USER_MAX_BYTES,
                    origin: str = "upload", today: dt.date | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Check an events CSV; return (accepted rows, rejected rows with ``row``, ``field``, ``reason``).

    Raises ``ValidationError`` only for problems with the file as a whole.
    """
    if origin not in ORIGINS:
        raise ValueError(f"origin {origin!r} is not one of {ORIGINS}")
    header, body, bad_iter = _read_file(bytes(content), name, max_rows=max_rows, max_bytes=max_bytes)
    latest = (today or dt.date.today()) + dt.timedelta(days=FUTURE_DAYS)
    rows = _RowCheck(header, bad_iter, latest, origin)
    accepted: list[dict] = []
    rejected: list[dict] = []
    for row_no, rec in body:
        ev, problems = rows.check(row_no, rec)
        if problems:
            rejected += [{"row": row_no, "field": f, "reason": r} for f, r in problems]
        else:
            accepted.append(ev)
    return _frame(accepted), pd.DataFrame(rejected, columns=REJECTED).astype({"row": "int64"})


def _read_file(content: bytes, name: str, *, max_rows: int, max_bytes: int) -> tuple[list[str], list, Iterator]:
    """An events file's header (lower case), its rows that hold anything as (row number, cells or ``_Damaged``),
    and the (offset, byte) of each byte that is not UTF-8 after the header's. Raises ``ValidationError`` for the
    file as a whole: too large, not UTF-8, empty, unreadable, a header that lacks or repeats columns, too many
    rows."""
    if len(content) > max_bytes:
        raise ValidationError(f"file is {len(content):,} bytes; the limit is {max_bytes:,}", source=SOURCE, file=name)
    other = _other_encoding(content)
    if other:
        raise ValidationError(f"the file is not UTF-8: it looks like {other}. Save it as UTF-8 (in Excel: Save As, "
                              "\"CSV UTF-8\"; in other programs choose the UTF-8 encoding) and upload it again",
                              source=SOURCE, file=name)
    text, bad_bytes = _decode(content)
    if not text.strip():
        raise ValidationError("file is empty: expected a header row naming " + ", ".join(COLUMNS),
                              source=SOURCE, file=name)
    records = _read_records(text, name)
    header = [h.strip().lower() for h in records[0]]
    bad_iter = iter(bad_bytes)
    _skip_bad_bytes(records[0], bad_iter)
    _check_header(header, name)
    body = [(i + 2, r) for i, r in enumerate(records[1:]) if isinstance(r, _Damaged) or any(c.strip() for c in r)]
    if len(body) > max_rows:
        raise ValidationError(f"{len(body):,} event rows; the limit is {max_rows:,}", source=SOURCE, file=name)
    return header, body, bad_iter


def _check_header(header: list[str], name: str) -> None:
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise ValidationError(f"row 1 (header): missing column(s) {', '.join(missing)}; found "
                              f"{', '.join(repr(h) for h in header[:12])}", source=SOURCE, file=name)
    dupe_cols = sorted({h for h in header if header.count(h) > 1 and h in COLUMNS})
    if dupe_cols:
        raise ValidationError(f"row 1 (header): column(s) named twice: {', '.join(dupe_cols)}", source=SOURCE, file=name)


class _RowCheck:
    """The checks of one file's rows, in file order, and what they remember from row to row: the ids, the dates
    and titles of the rows accepted so far, and the row that is the event study's default."""

    def __init__(self, header: list[str], bad_iter: Iterator, latest: dt.date, origin: str):
        self.header = header
        self.bad_iter = bad_iter  # the undecodable bytes, consumed row by row to keep each one's offset
        self.latest = latest
        self.origin = origin
        self.pos = {c: header.index(c) for c in COLUMNS + list(OPTIONAL) + list(_READ_ALSO) if c in header}
        self.has_copy_columns = any(c in header for c in OPTIONAL + _READ_ALSO)
        self.seen_ids: dict[str, int] = {}
        self.seen_keys: dict[tuple[str, str], int] = {}
        self.default_row: int | None = None

    def check(self, row_no: int, rec: list[str] | _Damaged) -> tuple[dict, list[tuple[str, str]]]:
        """One row: (the accepted event, []) or ({}, its problems as (field, reason))."""
        if isinstance(rec, _Damaged):
            return {}, self._skip_damaged(rec)
        problems = self._record_problems(rec)
        if problems:
            return {}, problems
        ev = {c: (unicodedata.normalize("NFC", rec[self.pos[c]].strip()) if c in self.pos else "")
              for c in COLUMNS + list(OPTIONAL) + list(_READ_ALSO)}
        flag = rec[self.header.index(STUDY_DEFAULT)].strip().lower() if STUDY_DEFAULT in self.header else ""
        ev, problems = self._cell_problems(ev, flag)
        # A repeat is reported even when the row has other problems: a title padded with a zero-width space
        # is refused for the character and named as the copy it is.
        key = (ev["date"], _title_key(ev["title"]))
        problems += self._repeat_problems(ev, key, checked=not problems)
        if problems:
            return {}, problems
        return self._accept(row_no, ev, key, flag), []

    def _skip_damaged(self, rec: _Damaged) -> list[tuple[str, str]]:
        """A stretch the CSV reader could not read: it costs only its own lines (and its undecodable bytes)."""
        for _ in range(rec.bad_bytes):
            next(self.bad_iter, None)
        return [("(row)", rec.reason)]

    def _record_problems(self, rec: list[str]) -> list[tuple[str, str]]:
        """A row with another number of fields than the header, or cells holding bytes that are not UTF-8."""
        encoded = _encoding_problems(rec, self.header, self.bad_iter)
        problems = []
        if len(rec) != len(self.header):
            problems.append(("(row)", f"has {len(rec)} fields; the header has {len(self.header)}"))
        return problems + encoded

    def _cell_problems(self, ev: dict, flag: str) -> tuple[dict, list[tuple[str, str]]]:
        """The cells' own problems, the link's, the study default's, and (only on a row clean so far) the
        citation columns'; with the row as ``copies.normalise`` reads its copy marker."""
        problems = _check_row(ev, self.latest)  # the cells as written (lengths, characters), before the defaults
        ev = copies.normalise(ev, "source_url")
        if not any(f == "source_url" for f, _ in problems):  # one reason per link is enough
            problems += _check_link(ev)
        problems += self._default_problems(flag)
        if not problems:
            exact = ev["date_precision"].lower() == "exact"
            problems = copies.check_copy_fields(ev, ev["source_url"], has_columns=self.has_copy_columns,
                                                earliest=ev["date"] if exact else None, link_check=link_problems)
        return ev, problems

    def _default_problems(self, flag: str) -> list[tuple[str, str]]:
        if flag not in ("",) + _TRUE + _FALSE:
            return [(STUDY_DEFAULT, f"{_show(flag)} is not true or false (or blank)")]
        if flag in _TRUE and self.default_row is not None:
            return [(STUDY_DEFAULT, f"only one event can be the event study's default; row {self.default_row} "
                                    "already is")]
        return []

    def _repeat_problems(self, ev: dict, key: tuple[str, str], *, checked: bool) -> list[tuple[str, str]]:
        """The same date and title as an accepted row; on a row ``checked`` clean, the same id as one (a row
        without an id is given its made-up one here, as only a clean row needs it)."""
        if ev["title"] and key in self.seen_keys:
            return [("title", f"duplicate of row {self.seen_keys[key]} (same date and title)")]
        if not checked:
            return []
        if not ev["id"]:
            ev["id"] = auto_id(self.origin, ev["date"], ev["title"])
        if ev["id"] in self.seen_ids:
            return [("id", f"id {ev['id']!r} already used on row {self.seen_ids[ev['id']]}")]
        return []

    def _accept(self, row_no: int, ev: dict, key: tuple[str, str], flag: str) -> dict:
        """The accepted row as returned (lower-case precision and category), remembered for the rows after it."""
        self.seen_ids[ev["id"]] = row_no
        self.seen_keys[key] = row_no
        ev["date_precision"] = ev["date_precision"].lower()
        ev["category"] = ev["category"].lower()
        is_default = flag in _TRUE
        if is_default:
            self.default_row = row_no
        return {**ev, STUDY_DEFAULT: is_default, "row": row_no, "origin": self.origin}


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


SNAPSHOT_FILE = "curated/events.csv"  # the bundled events as the rebuild validated them, inside the snapshot


def snapshot_csv(events: pd.DataFrame) -> str:
    """The validated bundled events as the snapshot stores them (ISO dates, ``study_default`` true/false), so
    the page and the exports read them from the generation they draw, checked once by the rebuild."""
    out = events.drop(columns=["origin"]).assign(date=events["date"].dt.strftime("%Y-%m-%d"),
                                                  **{STUDY_DEFAULT: events[STUDY_DEFAULT].map({True: "true", False: "false"})})
    return out.to_csv(index=False, lineterminator="\n")


def from_snapshot(content: bytes) -> pd.DataFrame:
    """The bundled events from a snapshot's ``curated/events.csv`` (written by ``snapshot_csv`` from rows that
    passed ``read_bundled``): typed again, not validated again."""
    df = pd.read_csv(io.BytesIO(content), dtype=str, keep_default_na=False)
    missing = [c for c in OUTPUT if c not in df.columns and c != "origin"]
    if missing:
        raise ValidationError(f"the snapshot's events lack column(s) {', '.join(missing)}; rebuild the snapshot",
                              source=SOURCE, file=SNAPSHOT_FILE)
    rows = df.assign(origin="bundled", **{STUDY_DEFAULT: df[STUDY_DEFAULT] == "true"}).to_dict("records")
    return _frame([{**r, "row": int(r["row"])} for r in rows])


def load_events_checked(bundled_path: Path | str = BUNDLED, user_path: Path | str | None = None,
                        *, bundled: pd.DataFrame | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The bundled events plus a reader's local file: ``(events, refused)``.

    ``events`` is one frame with an ``origin`` column. ``refused`` lists every row of the local file that was
    not loaded (columns ``file``, ``row``, ``field``, ``reason``; ``file`` is the base name only): rows the
    checks refuse, rows that repeat a bundled event, and a problem with the file as a whole as row 0, field
    ``(file)``. A problem in the local file never hides the bundled events. ``user_path=None`` means
    ``user_events.csv`` beside the bundled file.
    """
    # ``bundled``: the events already validated (the snapshot's copy); otherwise the file is read and checked.
    bundled = read_bundled(bundled_path) if bundled is None else bundled
    user_path = Path(user_path) if user_path is not None else Path(bundled_path).with_name("user_events.csv")
    frames, problems = [bundled], []
    label = user_path.name
    user = None
    try:
        content = _read_local(user_path, USER_MAX_BYTES)
    except ValidationError as exc:
        problems.append(pd.DataFrame([{"row": 0, "field": "(file)", "reason": exc.args[0]}]))
        content = None
    if content is not None:
        try:
            user, rejected = validate_events(content, label, origin="user")
        except ValidationError as exc:
            # the whole file is lost: say how much, in words, so that "1 row" is never all a reader is told
            lines = max(len([ln for ln in content.split(b"\n") if ln.strip()]) - 1, 0)
            rejected = pd.DataFrame([{"row": 0, "field": "(file)", "reason": f"{exc}; none of its {lines:,} event "
                                      "line(s) were loaded"}])
        problems.append(rejected)
    if user is not None:
        frames.append(user)
    merged, dupes = merge_events(*frames)
    problems.append(dupes.drop(columns=["origin"]))
    refused = pd.concat([p for p in problems if len(p)] or [pd.DataFrame(columns=REJECTED)], ignore_index=True)
    refused = refused.assign(file=label).reindex(columns=["file"] + REJECTED)
    return merged, refused.astype({"row": "int64"})


def load_events(bundled_path: Path | str = BUNDLED, user_path: Path | str | None = None) -> pd.DataFrame:
    """``load_events_checked`` without the refused rows (for callers that only draw the events)."""
    return load_events_checked(bundled_path, user_path)[0]


@dataclass
class UploadResult:
    """An uploaded events file after the checks: ``accepted`` are its new rows, ``rejected`` every row not
    taken with the reason (including repeats of bundled events), ``already_saved`` how many rows the local
    events file already holds (not new, not wrong either), ``events`` what the chart shows."""
    accepted: pd.DataFrame
    rejected: pd.DataFrame
    already_saved: int
    events: pd.DataFrame


def check_upload(content: bytes, name: str, existing: pd.DataFrame | None) -> UploadResult:
    """Validate an uploaded file (the upload limits) and merge it after ``existing`` (bundled and local
    events); raises ``ValidationError`` for a file it cannot read at all."""
    accepted, rejected = validate_events(content, name, max_rows=UPLOAD_MAX_ROWS, max_bytes=UPLOAD_MAX_BYTES,
                                         origin="upload")
    existing = existing if existing is not None else _frame([])
    is_user = existing["origin"] == "user"
    _, repeats = merge_events(existing[~is_user], accepted)  # repeats of the bundled events: rejected
    fresh = accepted[~accepted["row"].isin(repeats["row"])]
    _, saved = merge_events(existing[is_user], fresh)  # rows saved earlier: neither new nor wrong
    fresh = fresh[~fresh["row"].isin(saved["row"])].reset_index(drop=True)
    rejected = pd.concat([rejected, repeats.drop(columns=["origin"])], ignore_index=True).astype({"row": "int64"})
    return UploadResult(fresh, rejected.sort_values("row", kind="mergesort").reset_index(drop=True), len(saved),
                        merge_events(existing, fresh)[0])


def merge_events(*frames: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Stack validated frames in priority order; a later event with an earlier one's date and title, or id, is
    returned as rejected (``row`` is its row in its own file) rather than shown twice."""
    given = [f for f in frames if f is not None and len(f)]
    if not given:
        return _frame([]), pd.DataFrame(columns=REJECTED + ["origin"])
    allrows = pd.concat(given, ignore_index=True)
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


# ---------------------------------------------------------------------------------------------------------


_BOMS = ((b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"), (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
         (b"\xff\xfe", "UTF-16 (little-endian)"), (b"\xfe\xff", "UTF-16 (big-endian)"))


def _other_encoding(content: bytes) -> str | None:
    """The encoding a file that is not UTF-8 looks like, when it plainly is another one: a UTF-16 or UTF-32 byte
    order mark, or (without one) a NUL byte beside every ASCII letter. Read as UTF-8 such a file gave a header of
    '\\udcff\\udcfei\\x00d\\x00' and a message about missing columns instead of "save it as UTF-8"."""
    for bom, what in _BOMS:
        if content.startswith(bom):
            return what
    head = content[:4096]
    if len(head) >= 4 and head.count(0) * 3 >= len(head):
        even, odd = head[0::2].count(0), head[1::2].count(0)
        return "UTF-16 (big-endian)" if even > odd else "UTF-16 (little-endian)"
    return None


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


class _Damaged(NamedTuple):
    """Lines of the file the CSV reader could not read (``_read_records``): one refused row."""
    reason: str
    bad_bytes: int  # undecodable bytes in those lines, to keep the offsets of later ones right


MAX_DAMAGED = 50  # unreadable stretches read past, one at a time, before the rest of a file is given up


def _feed(lines: list[str], at: list[int]):
    """The lines from ``at[0]`` on, one at a time, keeping ``at[0]`` at the index of the next line (so the reader
    of the lines knows where a damaged stretch began)."""
    while at[0] < len(lines):
        at[0] += 1
        yield lines[at[0] - 1]


def _read_records(text: str, name: str) -> list:
    """The file's records; a stretch the CSV reader cannot read (an unclosed quote, a NUL byte, appended junk)
    becomes a ``_Damaged`` entry for the line it starts on, and reading starts again on the next line.

    Why: one unclosed quote, or 2,000 random bytes appended, made the whole local events file unreadable and
    its 128 good events left the chart (issue 32). A file whose header cannot be read is still refused whole.
    After ``MAX_DAMAGED`` such stretches the rest of the file is one entry that says how many lines it holds.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln + "\n" for ln in lines]
    records: list = []
    pos, damaged = 0, 0
    while pos < len(lines):
        at = [pos]

        reader = csv.reader(_feed(lines, at), strict=True)
        start = pos
        try:
            for rec in reader:
                records.append(rec)
                start = at[0]
            break
        except csv.Error as exc:
            if not records:
                raise ValidationError(f"not a readable CSV near line {start + 1}: {exc}", source=SOURCE,
                                      file=name) from None
            damaged += 1
            if damaged > MAX_DAMAGED:
                rest = lines[start:]
                offset = sum(len(ln.encode("utf-8", "surrogateescape")) for ln in lines[:start])
                records.append(_Damaged(f"the rest of the file could not be read as CSV: {len(rest):,} line(s) from "
                                        f"line {start + 1} (byte {offset:,}) on were not loaded",
                                        _surrogates("".join(rest))))
                break
            records.append(_Damaged(f"line {start + 1} could not be read as CSV ({exc}); only this line was "
                                    "left out, reading went on with the next one", _surrogates(lines[start])))
            pos = start + 1
    if not records or not any(c.strip() for c in records[0]):
        raise ValidationError("no header row: the first line must name the columns " + ", ".join(COLUMNS),
                              source=SOURCE, file=name)
    return records


def _surrogates(text: str) -> int:
    return sum(1 for ch in text if "\udc80" <= ch <= "\udcff")


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
        bad = _invisible(value)
        if bad:
            problems.append((field, bad))
        elif field not in ("source_url", "read_at") and value.startswith(FORMULA_START):
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
    return problems


def _check_link(ev: dict) -> list[tuple[str, str]]:
    """The source link of a normalised row: a plain public link, unless the row says the original's address was
    not found and gives none (``loaders.copies``), which ``check_copy_fields`` then holds to its other rules."""
    if copies.is_not_found(ev["link_status"]) and not ev["source_url"]:
        return []
    return link_problems(ev["source_url"])


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


def link_problems(value: str) -> list[tuple[str, str]]:
    """The project's one check of a link a reader will be shown (events, reported figures): [] when it is a plain
    public http(s) link, else the reasons (``source_url``, why)."""
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
    if "@" in parts.netloc:
        return [("source_url", "has a user name before '@', which can disguise the real host; link to the page "
                               "itself")]
    try:
        _ = parts.port  # reading it checks it: urllib raises ValueError for a port that is not a number
    except ValueError:
        return [("source_url", f"{_show(parts.netloc)} has a port that is not a number from 0 to 65535")]
    problem = _host_problem(parts.hostname, bracketed="[" in parts.netloc)
    return [("source_url", problem)] if problem else []


def _host_problem(host: str, *, bracketed: bool) -> str | None:
    """Why a URL's host is not a plain public host name, or None.

    Beyond the shape of the name (issue 32): a loopback, private, link-local or otherwise non-public address
    (``127.0.0.1``, ``[::1]``, ``10.x``, ``192.168.x``, ``localhost``) points a reader's browser at their own
    machine or network, not at a source; a name whose letters mix scripts (Latin with Cyrillic or Greek: the
    look-alike of a known domain) reads as another host than it is."""
    if bracketed:
        return _ipv6_problem(host)
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if labels and labels[-1].isdigit():  # a dotted or bare number: an address, however it is written
        return _ipv4_problem(host)
    if labels[-1].lower() in ("localhost", "local", "internal", "lan", "home"):
        return f"host {_show(host)} names this computer or a local network, not a public page"
    if host.isascii():
        return _ascii_name_problem(host, labels)
    return _international_name_problem(host, labels)


def _ipv6_problem(host: str) -> str | None:
    try:
        ip = ipaddress.IPv6Address(host)
    except ValueError:
        return f"host {_show(host)} is not a valid IPv6 address"
    return _address_problem(ip)


def _ipv4_problem(host: str) -> str | None:
    try:
        return _address_problem(ipaddress.IPv4Address(host.rstrip(".")))
    except ValueError:
        return f"host {_show(host)} is not a valid IPv4 address"


def _ascii_name_problem(host: str, labels: list[str]) -> str | None:
    """An ASCII host name: each part letters, digits and '-', and a punycode part valid and in one script."""
    for label in labels:
        if not _HOST_LABEL.fullmatch(label):
            return (f"host {_show(host)} is not a plain host name (letters, digits, '-' and '.', "
                    f"each part 1-63 characters)")
        if label.startswith("xn--"):
            problem = _punycode_problem(host, label)
            if problem:
                return problem
    return None


def _punycode_problem(host: str, label: str) -> str | None:
    try:
        decoded = idna.decode(label)
    except (idna.IDNAError, UnicodeError, ValueError):
        return f"host {_show(host)} has a part {_show(label)} that is not valid punycode"
    mixed = _mixed_scripts(decoded)
    return f"host {_show(host)} ({decoded}) mixes {mixed} letters, as look-alike names do" if mixed else None


def _international_name_problem(host: str, labels: list[str]) -> str | None:
    """A host name in other letters: valid IDNA 2008, and each part in one script."""
    try:
        idna.encode(host, uts46=False)  # IDNA 2008 as registries apply it: no mapping, nothing ignored
    except (idna.IDNAError, UnicodeError, ValueError) as exc:
        return f"host {_show(host)} is not a valid international domain name ({exc})"
    for label in labels:
        mixed = _mixed_scripts(label)
        if mixed:
            return f"host {_show(host)} mixes {mixed} letters, as look-alike names do"
    return None


def _address_problem(ip) -> str | None:
    if ip.is_global:
        return None
    return f"host {ip} is a loopback, private or reserved address, not a public page"


# Scripts that are written together in one name (Japanese mixes Han and kana; Korean, Han and Hangul).
_SCRIPTS_TOGETHER = ({"CJK", "HIRAGANA", "KATAKANA"}, {"CJK", "HANGUL"})


def _mixed_scripts(label: str) -> str:
    """'Latin and Cyrillic' when a host label's letters come from more than one script, else ''."""
    scripts = set()
    for ch in label:
        if ch.isalpha():
            name = unicodedata.name(ch, "")
            scripts.add(name.split(" ")[0] if name else "UNKNOWN")
    if len(scripts) <= 1 or any(scripts <= ok for ok in _SCRIPTS_TOGETHER):
        return ""
    return " and ".join(sorted(x.title() for x in scripts))


def _invisible(value: str) -> str | None:
    """Describe the first character of ``value`` a reader would not see, or None."""
    for i, ch in enumerate(value):
        kind = _char_kind(ch)
        if kind:
            name = unicodedata.name(ch, "")
            return f"contains {kind} U+{ord(ch):04X}{f' ({name})' if name else ''} at character {i + 1}"
    return None


def _char_kind(ch: str) -> str | None:
    cat = unicodedata.category(ch)
    if cat == "Cc":
        return "control character"
    if ch in _BIDI:
        return "bidirectional-control character"
    if "\U000e0000" <= ch <= "\U000e007f":
        return "tag character"
    if cat in ("Zl", "Zp"):
        return "line or paragraph separator"
    if cat == "Cf" or ch in _BLANK_LETTERS or "\U000e0100" <= ch <= "\U000e01ef":
        return "invisible character"
    if cat == "Co":
        return "private-use character"
    if cat == "Cn":
        return "unassigned code point"
    return None


def _title_key(title: str) -> str:
    """What makes two titles the same title: NFKC (full-width and compatibility forms fold to their plain
    letters), case folding, no invisible characters, runs of spaces collapsed."""
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", str(title)).casefold())
    text = "".join(ch for ch in text if not _char_kind(ch) or ch.isspace())
    return " ".join(text.split())


def auto_id(origin: str, date: str, title: str) -> str:
    """An id for a row that has none, from its date and title: stable across files and saves, so two uploads'
    unnamed rows never take each other's id (a row number would)."""
    digest = hashlib.sha256(_title_key(title).encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{origin}-{date}-{digest}"


def _show(value: str) -> str:
    return repr(value[:40] + ("…" if len(value) > 40 else ""))


def _frame(rows: list[dict]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=OUTPUT)
    df = df.astype({c: "object" for c in COLUMNS + list(OPTIONAL) if c != "date"})
    df["date"] = pd.to_datetime(df["date"], format="%Y-%m-%d")
    df["row"] = df["row"].astype("int64")
    df[STUDY_DEFAULT] = df[STUDY_DEFAULT].fillna(False).astype(bool)
    df["origin"] = df["origin"].astype("object")
    return df


# ------------------------------------------------------------------------------------- the local user file


class SaveRefused(ValidationError):
    """Saving events to the local file was refused; the file was left exactly as it was. The message is
    written for the page: it never holds a server path."""


@dataclass(frozen=True)
class UserEventsSetting:
    """Where this deployment keeps readers' saved events, and whether the page may save at all."""
    path: Path
    save: bool
    why_not: str = ""  # for the page, when ``save`` is False


_UNKNOWN = object()


def listens_beyond_loopback(address) -> bool:
    """Whether a server bound to ``address`` (Streamlit's ``server.address``) can be reached from other computers.
    Unset means every interface (Streamlit's default), so it counts as beyond loopback."""
    a = str(address or "").strip().strip("[]")
    if not a:
        return True
    if a.lower() == "localhost":
        return False
    try:
        return not ipaddress.ip_address(a).is_loopback
    except ValueError:
        return True  # a host name: whatever it resolves to, it is not known to be this computer only


def user_events_setting(environ=None, *, server_address=_UNKNOWN) -> UserEventsSetting:
    """Read the deployment's setting from the environment.

    - ``DASHBOARD_EVENTS_FILE=path``: the local events file (default ``data/user_events.csv``); a relative path
      is taken from the folder the server was started in. Give each deployment its own.
    - ``DASHBOARD_EVENTS_SAVE=0``: the page loads the file but never writes it; ``1`` allows it. Unset, saving is
      on only when the server listens on loopback alone (``server_address``, Streamlit's ``server.address``, e.g.
      ``make run``'s 127.0.0.1): on a network, one reader's saved events (titles, links) would be drawn for every
      other reader, so that must be asked for (issue 32).
    - ``DASHBOARD_PUBLIC=1``: a public deployment; implies no saving, whatever ``DASHBOARD_EVENTS_SAVE`` says.

    A value that is not understood turns saving off (the safe reading) and says so.
    """
    env = os.environ if environ is None else environ
    raw_path = (env.get("DASHBOARD_EVENTS_FILE") or "").strip()
    path = Path(raw_path).expanduser().absolute() if raw_path else USER
    public = (env.get("DASHBOARD_PUBLIC") or "").strip().lower()
    asked = (env.get("DASHBOARD_EVENTS_SAVE") or "").strip().lower()
    save = asked or "1"
    if public and public not in _FALSE:
        return UserEventsSetting(path, False, "Saving events is turned off on this public deployment.")
    if not asked and server_address is not _UNKNOWN and listens_beyond_loopback(server_address):
        return UserEventsSetting(path, False, "Saving events is off: this server can be reached from other computers, "
                                              "and saved events are shown to every reader. Whoever runs it can set "
                                              "DASHBOARD_EVENTS_SAVE=1 to allow it.")
    if save in _FALSE:
        return UserEventsSetting(path, False, "Saving events is turned off on this deployment.")
    if save not in _TRUE:
        return UserEventsSetting(path, False, "Saving events is turned off: this deployment's setting for it "
                                              "is not understood.")
    return UserEventsSetting(path, True)


@dataclass(frozen=True)
class SaveResult:
    added: int     # rows written that were not in the file before
    repeated: int  # rows left out because the file or the bundled events already hold them
    total: int     # rows in the file after the save


def save_user_events(new: pd.DataFrame, path: Path | str = USER, *, bundled: pd.DataFrame | None = None,
                     max_rows: int = USER_MAX_ROWS, max_bytes: int = USER_MAX_BYTES,
                     timeout: float = LOCK_TIMEOUT) -> SaveResult:
    """Add validated events to the local events file, keeping every row already there.

    Under an exclusive file lock (``<file>.lock``, so saves from any number of sessions, threads or processes
    take turns) it re-reads the file, leaves out rows it or ``bundled`` already hold (same date and title, or
    id), checks the result against ``max_rows`` / ``max_bytes`` and the loader's own checks, and replaces the
    file atomically. Raises ``SaveRefused`` (file untouched) when the lock is busy for ``timeout`` seconds, when
    the file on disk has rows the loader refuses (rewriting it would drop them), or when the result would break
    a limit.
    """
    path = Path(path)
    label = path.name
    lock = FileLock(str(path) + ".lock", timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise SaveRefused("another save to the local events file is still running; try again in a moment. "
                          "Nothing was saved.", source=SOURCE, file=label) from None
    except OSError as exc:
        raise SaveRefused(f"the local events file cannot be locked ({exc.strerror or exc}). Nothing was saved.",
                          source=SOURCE, file=label) from None
    try:
        old = _frame([])
        content = _read_local(path, max_bytes, during_save=True)
        if content is not None:
            try:
                old, rejected = validate_events(content, label, origin="user", max_rows=max_rows,
                                                max_bytes=max_bytes)
            except ValidationError as exc:
                raise SaveRefused(f"the local events file cannot be read ({exc.args[0]}); fix or remove it first. "
                                  "Nothing was saved.", source=SOURCE, file=label) from None
            if len(rejected):
                rows = ", ".join(str(r) for r in sorted(set(rejected["row"]))[:10])
                raise SaveRefused(f"the local events file has {rejected['row'].nunique()} row(s) that cannot be "
                                  f"loaded (row {rows}); fix or remove them first, so that saving does not drop "
                                  "them. Nothing was saved.", source=SOURCE, file=label)
        fresh = new.reindex(columns=COLUMNS + list(OPTIONAL), fill_value="").assign(row=0, origin="new")
        known = [f for f in (bundled, old) if f is not None and len(f)]
        merged, dupes = merge_events(*known, fresh)
        added = merged[merged["origin"] == "new"]
        total = len(old) + len(added)
        if total > max_rows:
            raise SaveRefused(f"saving {len(added)} more event(s) would make the local events file {total:,} rows; "
                              f"the limit is {max_rows:,} (it holds {len(old):,}). Nothing was saved.",
                              source=SOURCE, file=label)
        out = pd.concat([old, added], ignore_index=True).sort_values(["date", "id"], kind="mergesort")
        out = (out.reindex(columns=COLUMNS + list(OPTIONAL), fill_value="")
               .assign(date=lambda d: d["date"].dt.strftime("%Y-%m-%d")))
        data = out.to_csv(index=False, lineterminator="\n").encode("utf-8")
        if len(data) > max_bytes:
            raise SaveRefused(f"saving would make the local events file {len(data):,} bytes; the limit is "
                              f"{max_bytes:,}. Nothing was saved.", source=SOURCE, file=label)
        # The file must load back whole: a row the loader would refuse is never written.
        back, refused = validate_events(data, label, origin="user", max_rows=max_rows, max_bytes=max_bytes)
        if len(refused) or len(back) != total:
            first = refused.iloc[0] if len(refused) else None
            why = f": row {first['row']}, {first['field']}: {first['reason']}" if first is not None else ""
            raise SaveRefused(f"the events to save do not pass the checks{why}. Nothing was saved.",
                              source=SOURCE, file=label)
        atomic_write(path, data)
        return SaveResult(added=len(added), repeated=len(dupes), total=total)
    finally:
        lock.release()


def _read_local(path: Path, max_bytes: int, *, during_save: bool = False) -> bytes | None:
    """The local file's bytes, or None when there is none. Only a regular file is read (a FIFO would hang the
    page, a device never end), and never more than ``max_bytes`` + 1 bytes. Errors name the file by its base
    name and say what to do."""
    label = path.name
    error = SaveRefused if during_save else ValidationError
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise error(f"the local events file cannot be read ({exc.strerror or exc})", source=SOURCE,
                    file=label) from None
    if not stat.S_ISREG(st.st_mode):
        raise error("the local events file is not a regular file", source=SOURCE, file=label)
    try:
        with open(path, "rb") as fh:
            content = fh.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"the local events file cannot be read ({exc.strerror or exc})", source=SOURCE,
                    file=label) from None
    if len(content) > max_bytes:
        raise error(f"file is over {max_bytes:,} bytes, the limit", source=SOURCE, file=label)
    return content
