"""Where every raw file came from, recorded as data and checked against the bytes.

A figure is only as traceable as its file. Many files this project reads were not downloaded from the
publisher: they are byte copies in other repositories (mirrors), Wayback Machine captures, reconstructions of
a recorded payload, values digitised from a chart, or transcriptions. ``origins.csv`` (beside this module)
records each one, after OWID's origin sidecars: producer, title, the official URL, how the bytes were read
(``read_as``: official, mirror, archive, producer, reconstruction, digitised, transcription, project), the URL
actually read and the archive capture when it was a copy, the date of that copy, the publication date, the
date this project's copy was taken, the licence, and the sha256 and size of the bytes.

``origin_for(source_id, path, content)`` returns the origin of one file:
- a file downloaded by ``update`` has a fetch sidecar (``<name>.meta.json``): its origin is that download (the
  official URL, read directly, on the recorded date), provided the sidecar is a well-formed record
  (``fetch.read_sidecar``), its sha256 and size match the bytes, and its URL is https on one of the source's
  declared hosts and ends in the file's name (``_check_download_host``; a source without hosts takes none);
- any other file must have a row in ``origins.csv`` whose ``source_id`` and ``file`` match (``fnmatch`` patterns
  allowed, ``*`` for "any source"); when the row gives sha256 and bytes they must match the content, so a
  changed file cannot keep an old file's origin;
- otherwise, or on a mismatch, a ``LoaderError`` names the file: no snapshot is built from a file of unknown
  origin.
"""
from __future__ import annotations

import csv
import functools
import hashlib
import io
from fnmatch import fnmatchcase
from pathlib import Path
from urllib.parse import unquote, urlsplit

from . import registry
from .errors import LoaderError
from .fetch import read_sidecar

PATH = Path(__file__).with_name("origins.csv")
COLUMNS = ["source_id", "file", "producer", "title", "official_url", "read_as", "read_url", "archive_url",
           "copy_as_of", "date_published", "date_accessed", "licence", "sha256", "bytes", "note"]
READ_AS = {
    "official": "downloaded from the official URL",
    "mirror": "read from a byte copy in another repository",
    "archive": "read from an archive copy (web archive capture)",
    "producer": "read from the producer's own repository",
    "reconstruction": "rebuilt from another copy's stored text, not a byte download",
    "digitised": "values read off a published chart",
    "transcription": "values transcribed from a published page or file",
    "project": "curated in this repository",
}
REQUIRED = ("source_id", "file", "producer", "title", "official_url", "read_as", "licence")


@functools.lru_cache(maxsize=4)
def _table(path: str) -> tuple[dict, ...]:
    text = Path(path).read_text("utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows or list(rows[0]) != COLUMNS:
        raise LoaderError(f"origins table must have the columns {COLUMNS}", file=Path(path).name)
    for i, r in enumerate(rows, start=2):
        for c in REQUIRED:
            if not r[c].strip():
                raise LoaderError(f"row {i} field {c!r}: empty", file=Path(path).name)
        if r["read_as"] not in READ_AS:
            raise LoaderError(f"row {i} field 'read_as': {r['read_as']!r} is not one of {sorted(READ_AS)}",
                              file=Path(path).name)
        if r["read_as"] != "project" and not r["official_url"].startswith(("https://", "http://")):
            raise LoaderError(f"row {i} field 'official_url': {r['official_url']!r} is not an http(s) URL",
                              file=Path(path).name)
        if r["read_as"] != "project" and not (r["sha256"] and r["bytes"]):
            raise LoaderError(f"row {i}: sha256 and bytes are required for a file not curated here",
                              file=Path(path).name)
    return tuple(rows)


def table(path: Path | str = PATH) -> list[dict]:
    return [dict(r) for r in _table(str(path))]


def origin_for(source_id: str, path: Path | str, content: bytes, *, table_path: Path | str | None = None,
               digest: str | None = None) -> dict:
    """The recorded origin of one raw file (see the module notes); raises ``LoaderError`` naming the file.
    ``table_path``: the origins table (default ``PATH``, looked up at each call); ``digest``: the bytes' sha256
    when the caller has it already."""
    path = Path(path)
    table_path = table_path or PATH
    digest, size = digest or hashlib.sha256(content).hexdigest(), len(content)
    side = read_sidecar(path, source=source_id)
    if side:
        if side.get("sha256") != digest or int(side.get("bytes") or -1) != size:
            raise LoaderError(f"the bytes differ from the download recorded beside it (sha256 {digest[:12]}…, "
                              f"{size:,} bytes; recorded {str(side.get('sha256'))[:12]}…, {side.get('bytes')} bytes)",
                              source=source_id, file=path.name)
        src = registry.SOURCES.get(source_id)
        _check_download_host(side, src, source_id, path.name)
        return {"producer": getattr(src, "publisher", ""), "title": getattr(src, "title", ""),
                "official_url": side.get("url", ""), "read_as": "official", "read_url": side.get("url", ""),
                "archive_url": "", "copy_as_of": "", "date_published": "",
                "date_accessed": str(side.get("retrieved") or "")[:10], "licence": getattr(src, "licence", ""),
                "sha256": digest, "bytes": size, "note": ""}
    # One name may have several recorded versions (a file republished under its name, or a test's stand-in beside
    # the real one): the first row of the name whose bytes match decides; a row with no checksum (a pattern)
    # matches any bytes. Only when no row of the name matches are the bytes refused, against the first.
    differs = None
    for r in _table(str(table_path)):
        if not (fnmatchcase(source_id, r["source_id"]) and fnmatchcase(path.name, r["file"])):
            continue
        if r["sha256"] and (r["sha256"] != digest or int(r["bytes"]) != size):
            differs = differs or r
            continue
        out = {k: r[k] for k in COLUMNS if k not in ("source_id", "file")}
        out.update(sha256=digest, bytes=size)
        return out
    if differs is not None:
        raise LoaderError(f"the bytes differ from the file whose origin is recorded in {Path(table_path).name} "
                          f"(sha256 {digest[:12]}…, {size:,} bytes; recorded {differs['sha256'][:12]}…, "
                          f"{int(differs['bytes']):,} bytes): record the new file's origin", source=source_id,
                          file=path.name)
    raise LoaderError(f"no origin recorded for this file: add it to loaders/{Path(table_path).name} (producer, "
                      "official URL, how it was read) or download it with `python -m loaders update`",
                      source=source_id, file=path.name)


def _check_download_host(side: dict, src, source_id: str, name: str) -> None:
    """A download record stands in for the origin only when it names an https URL, without credentials, on one
    of the hosts the source declares (``allowed_hosts``, the same list ``fetch`` downloads from), whose last
    path segment is this file's name (``update`` names a download so): a record written by hand, or left by a
    redirect to another host, is no better than no record. A source that declares no host downloads nothing:
    its files' origins are rows of ``origins.csv``, and a record beside one is refused (it could name any URL,
    which exports would then print as the official file)."""
    hosts = tuple(getattr(src, "allowed_hosts", ()) or ())
    url = str(side.get("url") or "")
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        parts, host = None, None
    if not hosts:
        raise LoaderError(f"a download record names {url[:120]!r}, but this source declares no download host: "
                          "record the file's origin in loaders/origins.csv and remove the record",
                          source=source_id, file=name)
    if parts is None or parts.scheme != "https" or host not in hosts or "@" in parts.netloc:
        raise LoaderError(f"the download recorded beside it names {url[:120]!r}, which is not an https URL on this "
                          f"source's declared hosts ({', '.join(hosts)}): download it again with `python -m loaders "
                          "update`, or record its origin in loaders/origins.csv", source=source_id, file=name)
    last = parts.path.rsplit("/", 1)[-1]
    if name not in (last, unquote(last)):
        raise LoaderError(f"the download recorded beside it names {url[:120]!r}, a file named {last[:60]!r}, not "
                          "this file: download it again with `python -m loaders update`, or record its origin in "
                          "loaders/origins.csv", source=source_id, file=name)


def read_note(origin: dict) -> str:
    """A short phrase for source lines: '' when read from the official URL, else how it was read."""
    kind = origin.get("read_as", "")
    if kind in ("", "official", "project"):
        return ""
    return READ_AS[kind]
