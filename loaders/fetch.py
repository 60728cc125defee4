"""Downloading, written once for every source.

Why each piece exists:
- Retries with backoff on 429 and 5xx (urllib3 ``Retry``), because government CDNs throttle and flap.
- Connect and read timeouts on every request, because a request without one can hang forever.
- A byte cap while streaming, and a zip-size guard for XLSX, so a hostile or broken file cannot fill the disk
  or the memory.
- A sniff for HTML, because ice.gov and cbp.gov answer a moved file with a 200 and an HTML page.
- Conditional requests (ETag / Last-Modified from the sidecar of the last download), so polling is cheap.
- A browser-like User-Agent only where a host refuses the default one (ice.gov's CDN).
- Atomic writes: a temporary file in the same folder, fsync, then ``os.replace``; a failed download never
  leaves a half-written file, and never replaces the last good one.
"""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable
from urllib.parse import urljoin, urlparse

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

from .errors import FetchError, LoaderError, excerpt, naming
from .limits import check_zip, read_regular

BROWSER_UA = (
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0 Safari/537.36"
)
PROJECT_UA = "immigration-enforcement-dashboard/1.0 (+https://github.com/; open-source research tool)"
TIMEOUT = (10, 60)  # (connect, read) seconds
RETRY_STATUSES = (429, 500, 502, 503, 504)


def make_session(*, browser_ua: bool = False, retries: int = 3, backoff: float = 0.5) -> requests.Session:
    retry = Retry(
        total=retries + 1,
        connect=retries,
        read=retries,
        status=retries,
        backoff_factor=backoff,
        status_forcelist=RETRY_STATUSES,
        allowed_methods=frozenset({"GET", "HEAD"}),
        respect_retry_after_header=True,
        raise_on_status=False,
    )
    s = requests.Session()
    adapter = HTTPAdapter(max_retries=retry)
    s.mount("https://", adapter)
    s.mount("http://", adapter)
    s.headers["User-Agent"] = BROWSER_UA if browser_ua else PROJECT_UA
    return s


@dataclass
class Fetched:
    path: Path | None  # None when the server said "not modified"
    url: str
    sha256: str
    bytes: int
    retrieved: str
    etag: str = ""
    last_modified: str = ""
    not_modified: bool = False


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()



def atomic_write(path: Path, data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` so that a reader sees the old file or the whole new one, never
    part of it: a temporary file in the same folder, fsync, then ``os.replace``."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with naming(path):
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix="." + path.name + ".", suffix=".part")
    try:
        with naming(path), os.fdopen(fd, "wb") as f:  # a full disk names the file it struck
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes 0600; snapshot files are meant to be readable
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def sidecar_path(path: Path) -> Path:
    return path.with_name(path.name + ".meta.json")


# The download record ``fetch`` writes beside a file: its fields and their kinds. A record is a few hundred
# bytes; anything over this cap is not one.
SIDECAR_FIELDS = {"url": str, "retrieved": str, "sha256": str, "bytes": int, "etag": str, "last_modified": str}
SIDECAR_REQUIRED = ("url", "retrieved", "sha256", "bytes")
MAX_SIDECAR_BYTES = 16_384


def read_sidecar(path: Path, *, source: str | None = None) -> dict:
    """The download record beside ``path`` (``<name>.meta.json``), checked; ``{}`` when there is none.

    Read as any raw file is (a regular file only, opened without blocking, at most ``MAX_SIDECAR_BYTES``), then
    checked field by field: a FIFO there hung ``rebuild``, a link to ``/dev/zero`` ran out of memory after
    3.5 GB, and ``[1,2]`` or ``"bytes": "abc"`` ended in a traceback. Anything wrong raises a ``LoaderError``
    naming the record and the field."""
    p = sidecar_path(Path(path))
    if not os.path.lexists(p):
        return {}
    raw = read_regular(p, MAX_SIDECAR_BYTES, source=source)
    try:
        rec = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise LoaderError(f"the download record is not JSON ({excerpt(str(e))})", source=source, file=p.name) from None
    return check_sidecar(rec, source=source, file=p.name)


def check_sidecar(rec, *, source: str | None, file: str) -> dict:
    """``rec`` if it has the download record's fields with their kinds (see ``SIDECAR_FIELDS``)."""
    if not isinstance(rec, dict):
        raise LoaderError(f"the download record is a JSON {type(rec).__name__}, not an object of "
                          f"{', '.join(SIDECAR_FIELDS)}", source=source, file=file)
    problem = _sidecar_field_problem(rec) or _sidecar_value_problem(rec)
    if problem:
        field, why = problem
        raise LoaderError(f"download record field {field!r}: {why}", source=source, file=file)
    return rec


def _sidecar_field_problem(rec: dict) -> tuple[str, str] | None:
    """The first field that is not a download record's, is missing, or is not of its kind."""
    for k in rec:
        if k not in SIDECAR_FIELDS:
            return excerpt(k), "not a field of a download record"
    for k in SIDECAR_REQUIRED:
        if k not in rec:
            return k, "missing"
    for k, kind in SIDECAR_FIELDS.items():
        v = rec.get(k, "")
        if not isinstance(v, kind) or isinstance(v, bool):
            return k, f"{excerpt(v)} is not {'a whole number' if kind is int else 'text'}"
    return None


def _sidecar_value_problem(rec: dict) -> tuple[str, str] | None:
    """A size below zero, a checksum that is not a sha256, a retrieval time that is not ISO 8601 with a zone."""
    if rec["bytes"] < 0:
        return "bytes", f"{rec['bytes']} is negative"
    if not re.fullmatch(r"[0-9a-f]{64}", rec["sha256"]):
        return "sha256", f"{excerpt(rec['sha256'])} is not a sha256 (64 hex digits)"
    try:
        when = dt.datetime.fromisoformat(rec["retrieved"])
    except ValueError:
        return "retrieved", f"{excerpt(rec['retrieved'])} is not a date and time (ISO 8601)"
    if when.tzinfo is None:
        return "retrieved", f"{excerpt(rec['retrieved'])} has no time zone"
    return None


def looks_like_html(head: bytes) -> bool:
    h = head[:1024].lstrip().lower()
    return h.startswith(b"<!doctype html") or h.startswith(b"<html") or b"<html" in h[:512] or b"<head" in h[:512]


def check_kind(head: bytes, kind: str, *, source: str, name: str) -> None:
    """Reject a body that is plainly not the expected kind of file (e.g. an HTML error page)."""
    if not head:
        raise FetchError("the server sent an empty file", source=source, file=name)
    if looks_like_html(head) and kind != "html":
        raise FetchError("the server sent an HTML page instead of the file (moved or blocked?)", source=source, file=name)
    if kind == "xlsx" and not head.startswith(b"PK\x03\x04"):
        raise FetchError("expected an XLSX (zip) file; the body does not start like one", source=source, file=name)
    if kind == "parquet" and not head.startswith(b"PAR1"):
        raise FetchError("expected a Parquet file; the body does not start like one", source=source, file=name)
    if kind == "json" and head.lstrip()[:1] not in (b"[", b"{"):
        raise FetchError("expected JSON; the body does not start like JSON", source=source, file=name)


def check_url(url: str, allowed_hosts: tuple[str, ...], *, source: str) -> None:
    u = urlparse(url)
    if u.scheme != "https":
        raise FetchError(f"refusing non-https URL {url}", source=source)
    if allowed_hosts and u.hostname not in allowed_hosts:
        raise FetchError(f"refusing URL on undeclared host {u.hostname!r} (allowed: {', '.join(allowed_hosts)})", source=source)


def fetch(url: str, dest: Path, *, source: str, kind: str, session: requests.Session | None = None,
          max_bytes: int = 50_000_000, allowed_hosts: tuple[str, ...] = (), timeout=TIMEOUT,
          conditional: bool = True, previous: Path | None = None) -> Fetched:
    """Download ``url`` to ``dest`` atomically, with a sidecar of provenance next to it.

    On any failure ``dest`` and its sidecar are left exactly as they were and a ``FetchError`` is raised.
    ``previous`` is the last good copy whose ETag/Last-Modified make the request conditional (default:
    ``dest``); ``update`` downloads into a staging folder and keeps the last good copy until the new one parsed.
    """
    dest = Path(dest)
    name = dest.name
    check_url(url, allowed_hosts, source=source)
    session = session or make_session()
    old = _last_record(Path(previous) if previous else dest, conditional=conditional, source=source)
    headers = _conditional_headers(old)
    retrieved = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()
    try:
        resp = session.get(url, headers=headers, timeout=timeout, stream=True)
    except requests.exceptions.RequestException as e:
        raise FetchError(f"could not download {url}: {type(e).__name__}: {e}", source=source, file=name) from None
    with resp:
        if resp.status_code == 304 and old:
            return Fetched(None, url, old.get("sha256", ""), old.get("bytes", 0), retrieved,
                           old.get("etag", ""), old.get("last_modified", ""), not_modified=True)
        if resp.status_code != 200:
            raise FetchError(f"HTTP {resp.status_code} for {url} (after retries)", source=source, file=name)
        data = _read_body(resp, url, max_bytes=max_bytes, source=source, name=name)
        check_kind(data[:2048], kind, source=source, name=name)
        if kind == "xlsx" or data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):  # by content: a bomb may have any name
            check_zip(data, source=source, name=name)
        meta = Fetched(dest, url, sha256_bytes(data), len(data), retrieved,
                       resp.headers.get("ETag", ""), resp.headers.get("Last-Modified", ""))
    atomic_write(dest, data)
    atomic_write(sidecar_path(dest), json.dumps({
        "url": url, "retrieved": retrieved, "sha256": meta.sha256, "bytes": meta.bytes,
        "etag": meta.etag, "last_modified": meta.last_modified}, indent=2, sort_keys=True) + "\n")
    return meta


def _last_record(prev: Path, *, conditional: bool, source: str) -> dict:
    """The download record of the last good copy, when the request is to be conditional; {} without one."""
    try:  # a bad record only loses the conditional request
        return read_sidecar(prev, source=source) if (conditional and prev.exists()) else {}
    except LoaderError:
        return {}


def _conditional_headers(old: dict) -> dict[str, str]:
    """The headers that let the server answer 304 when the file has not changed since ``old`` was read."""
    headers = {}
    if old.get("etag"):
        headers["If-None-Match"] = old["etag"]
    if old.get("last_modified"):
        headers["If-Modified-Since"] = old["last_modified"]
    return headers


def _read_body(resp: requests.Response, url: str, *, max_bytes: int, source: str, name: str) -> bytes:
    """A 200 response's body, refused over the size cap (declared or read), broken off, or shorter than declared."""
    declared = resp.headers.get("Content-Length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise FetchError(f"file is {int(declared):,} bytes, over the {max_bytes:,}-byte cap", source=source, file=name)
    buf = bytearray()
    try:
        for chunk in resp.iter_content(1 << 16):
            buf.extend(chunk)
            if len(buf) > max_bytes:
                raise FetchError(f"download exceeded the {max_bytes:,}-byte cap", source=source, file=name)
    except requests.exceptions.RequestException as e:
        raise FetchError(f"download of {url} broke off: {type(e).__name__}: {e}", source=source, file=name) from None
    if declared and declared.isdigit() and len(buf) != int(declared):
        raise FetchError(f"truncated download: got {len(buf):,} of {int(declared):,} bytes", source=source, file=name)
    return bytes(buf)


def linked_files(html: str, base_url: str, href_re: re.Pattern,
                 name_ok: Callable[[str], bool] = lambda name: True) -> list[str]:
    """Absolute URLs of the files a landing page links to, in page order without repeats: each link ``href_re``
    captures (group 1) whose file name ``name_ok`` accepts, joined to ``base_url``, spaces escaped."""
    urls: list[str] = []
    for href in href_re.findall(html):
        if name_ok(href.rsplit("/", 1)[-1]):
            u = urljoin(base_url, href.strip().replace(" ", "%20"))
            if u not in urls:
                urls.append(u)
    return urls


def read_page(session: requests.Session, url: str, *, source: str, timeout=TIMEOUT) -> str:
    """A landing page's HTML, for sources whose file names change with each release and must be read from it.

    Failures are a ``FetchError`` naming the page; the caller decides which links on it are the files.
    """
    try:
        resp = session.get(url, timeout=timeout)
    except requests.exceptions.RequestException as e:
        raise FetchError(f"could not read the landing page {url}: {type(e).__name__}: {e}", source=source) from None
    if resp.status_code != 200:
        raise FetchError(f"HTTP {resp.status_code} for the landing page {url}", source=source)
    return resp.text
