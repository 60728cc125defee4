"""Shared download code, through a mocked HTTP layer (``responses``); nothing here touches the network."""
import json
import os

import pytest
import responses
from responses.registries import OrderedRegistry

from loaders.errors import FetchError, ParseError
from loaders.fetch import atomic_write, check_zip, fetch, make_session, sidecar_path
from tests.conftest import ROOT

URL = "https://example.gov/files/table.json"
BODY = b'[{"a": 1}]'


def quick_session(**kw):
    return make_session(backoff=0, **kw)


def leftovers(d):
    return [p.name for p in d.iterdir() if p.name.endswith(".part")]


@responses.activate(registry=OrderedRegistry)
def test_retries_5xx_then_succeeds(tmp_path):
    responses.get(URL, status=503)
    responses.get(URL, status=429)
    responses.get(URL, body=BODY, status=200)
    got = fetch(URL, tmp_path / "t.json", source="s", kind="json", session=quick_session())
    assert got.path.read_bytes() == BODY
    assert len(responses.calls) == 3
    meta = json.loads(sidecar_path(tmp_path / "t.json").read_text())
    assert meta["url"] == URL and meta["sha256"] == got.sha256 and meta["bytes"] == len(BODY)


@responses.activate
def test_gives_up_after_retries_with_clear_error(tmp_path):
    responses.get(URL, status=502)
    with pytest.raises(FetchError, match=r"HTTP 502 .*after retries"):
        fetch(URL, tmp_path / "t.json", source="s", kind="json", session=quick_session())
    assert len(responses.calls) == 4  # first try + 3 retries
    assert not (tmp_path / "t.json").exists() and leftovers(tmp_path) == []


@responses.activate
def test_404_is_not_retried(tmp_path):
    responses.get(URL, status=404)
    with pytest.raises(FetchError, match="HTTP 404"):
        fetch(URL, tmp_path / "t.json", source="s", kind="json", session=quick_session())
    assert len(responses.calls) == 1


@responses.activate
def test_html_instead_of_file_rejected_and_last_good_kept(tmp_path):
    dest = tmp_path / "t.json"
    dest.write_bytes(BODY)
    responses.get(URL, body=b"<!DOCTYPE html><html><body>Page moved</body></html>", status=200)
    with pytest.raises(FetchError, match="HTML page instead of the file"):
        fetch(URL, dest, source="s", kind="json", session=quick_session())
    assert dest.read_bytes() == BODY and leftovers(tmp_path) == []


@responses.activate
def test_size_cap(tmp_path):
    responses.get(URL, body=b"[" + b"1," * 1000 + b"1]", status=200)
    with pytest.raises(FetchError, match="cap"):
        fetch(URL, tmp_path / "t.json", source="s", kind="json", session=quick_session(), max_bytes=100)
    assert not (tmp_path / "t.json").exists()


@responses.activate
def test_truncated_body(tmp_path):
    responses.get(URL, body=BODY, status=200, headers={"Content-Length": "100"}, auto_calculate_content_length=False)
    with pytest.raises(FetchError):
        fetch(URL, tmp_path / "t.json", source="s", kind="json", session=quick_session())
    assert not (tmp_path / "t.json").exists() and leftovers(tmp_path) == []


@responses.activate
def test_empty_body(tmp_path):
    responses.get(URL, body=b"", status=200)
    with pytest.raises(FetchError, match="empty"):
        fetch(URL, tmp_path / "t.json", source="s", kind="json", session=quick_session())


@responses.activate
def test_conditional_request_304_keeps_file(tmp_path):
    responses.get(URL, body=BODY, status=200, headers={"ETag": '"v1"', "Last-Modified": "Mon, 01 Sep 2025 00:00:00 GMT"})
    dest = tmp_path / "t.json"
    fetch(URL, dest, source="s", kind="json", session=quick_session())
    responses.replace(responses.GET, URL, status=304)
    got = fetch(URL, dest, source="s", kind="json", session=quick_session())
    assert got.not_modified and dest.read_bytes() == BODY
    sent = responses.calls[-1].request.headers
    assert sent["If-None-Match"] == '"v1"' and "If-Modified-Since" in sent


@responses.activate
def test_browser_user_agent_only_where_declared(tmp_path):
    responses.get(URL, body=BODY)
    fetch(URL, tmp_path / "a.json", source="s", kind="json", session=quick_session(browser_ua=True))
    fetch(URL, tmp_path / "b.json", source="s", kind="json", session=quick_session())
    assert "Mozilla/5.0" in responses.calls[0].request.headers["User-Agent"]
    assert "Mozilla" not in responses.calls[1].request.headers["User-Agent"]


def test_refuses_http_and_undeclared_hosts(tmp_path):
    with pytest.raises(FetchError, match="non-https"):
        fetch("http://example.gov/x.json", tmp_path / "x.json", source="s", kind="json")
    with pytest.raises(FetchError, match="undeclared host"):
        fetch("https://evil.example/x.json", tmp_path / "x.json", source="s", kind="json", allowed_hosts=("example.gov",))


@responses.activate
def test_xlsx_must_be_a_zip(tmp_path):
    responses.get("https://example.gov/f.xlsx", body=b"not a zip at all", status=200)
    with pytest.raises(FetchError, match="XLSX"):
        fetch("https://example.gov/f.xlsx", tmp_path / "f.xlsx", source="s", kind="xlsx", session=quick_session())


def test_zip_bomb_guard():
    import io
    import zipfile
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/worksheets/sheet1.xml", b"0" * 30_000_000)
    with pytest.raises(ParseError, match="compression ratio|expand"):
        check_zip(buf.getvalue(), source="s", name="bomb.xlsx", max_total=20_000_000)
    with pytest.raises(ParseError, match="compression ratio"):
        check_zip(buf.getvalue(), source="s", name="bomb.xlsx")


def test_atomic_write_replaces_and_leaves_no_temp(tmp_path):
    p = tmp_path / "a.csv"
    atomic_write(p, b"one")
    atomic_write(p, b"two")
    assert p.read_bytes() == b"two" and leftovers(tmp_path) == []


def test_atomic_write_failure_keeps_old(tmp_path, monkeypatch):
    p = tmp_path / "a.csv"
    p.write_bytes(b"good")

    def boom(*a, **k):
        raise OSError("disk full")
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write(p, b"bad")
    assert p.read_bytes() == b"good" and leftovers(tmp_path) == []


def test_atomic_write_takes_text_as_utf8_and_is_the_loaders_only_atomic_writer(tmp_path):
    """One atomic write (issue 28: two existed, one for bytes and one for text)."""
    import ast
    p = tmp_path / "a.json"
    atomic_write(p, "café")
    assert p.read_bytes() == "café".encode("utf-8")
    writers = sorted(f"{f.stem}.{n.name}" for f in (ROOT / "loaders").glob("*.py")
                     for n in ast.walk(ast.parse(f.read_text("utf-8")))
                     if isinstance(n, ast.FunctionDef) and "atomic" in n.name)
    assert writers == ["fetch.atomic_write"]


def test_linked_files_joins_filters_and_dedupes_a_landing_pages_links():
    """The one landing-page link reader (issue 28: written three times, for CBP, KHSM and OHSS's monthly tables)."""
    import ast
    import re

    from loaders.fetch import linked_files
    html = ('<a href="/files/a.csv">A</a> <a href=\'b.csv?x=1\'>B</a> <a href="/files/a.csv">again</a>'
            '<a href="/files/KHSM Encounters.csv">spaces</a> <a href="notes.pdf">pdf</a>')
    href = re.compile(r"""href\s*=\s*["']([^"'#?]+\.csv)(?:\?[^"']*)?["']""", re.I)
    assert linked_files(html, "https://x.gov/data/page.html", href) == [
        "https://x.gov/files/a.csv", "https://x.gov/data/b.csv", "https://x.gov/files/KHSM%20Encounters.csv"]
    assert linked_files(html, "https://x.gov/", href, lambda name: name.startswith("b")) == ["https://x.gov/b.csv"]
    copies = [f.stem for f in (ROOT / "loaders").glob("*.py")
              for n in ast.walk(ast.parse(f.read_text("utf-8")))
              if isinstance(n, ast.FunctionDef) and n.name in ("find_file_links", "linked_files")]
    assert copies == ["fetch"]


def test_reported_figures_and_events_share_the_one_link_check():
    """One URL validator, the stricter one (issue 28): a user name before '@' disguises the real host."""
    from loaders import events, reported_figures
    assert reported_figures.link_problems is events.link_problems
    assert not hasattr(events, "_check_url")
    assert events.link_problems("https://trusted.gov@evil.example/x")
