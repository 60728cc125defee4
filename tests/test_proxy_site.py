"""The static site served by the same nginx as the live app (deploy/nginx.conf with ``--site``): each page and
asset answered from disk at /site/ with its content type, caching headers and gzip, while every other path still
goes to the replicas exactly as before.

The nginx tests run Debian's nginx in the foreground with its own prefix in the test's tmp folder, on a free
loopback port, in front of a stand-in replica (a small HTTP server in this process that says who answered), and
stop it by its own process id; every wait is bounded. One test builds a small site in the real layout (pages at
the top, plotly.js and the maps' outlines under assets/); the other builds the real one with
``python -m charts site`` and fetches every script each page loads.
"""
from __future__ import annotations

import contextlib
import gzip
import hashlib
import http.client
import http.server
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, stop_process

sys.path.insert(0, str(ROOT / "deploy"))
from nginx_conf import main as conf_main  # noqa: E402
from nginx_conf import render  # noqa: E402

NGINX = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
needs_nginx = pytest.mark.skipif(not NGINX, reason="no nginx on PATH or at /usr/sbin/nginx (on Debian/Ubuntu: "
                                                   "apt-get install nginx; `make test` installs it when run as root)")
REPLICA_BODY = b"answered by the stand-in replica\n" * 100  # over gzip_min_length: gzip would apply if it were on


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def between_limits_and_app(text: str) -> str:
    """The server block's text between its body limits and the app's ``location /``: where the site goes."""
    start = text.index("client_body_buffer_size 2m;\n") + len("client_body_buffer_size 2m;\n")
    return text[start:text.index("        location / {")]


# ------------------------------------------------------------------------------------- the configuration text

def test_without_a_site_the_configuration_has_no_site_locations_and_the_app_part_is_unchanged(tmp_path):
    plain = render("127.0.0.1:8080", ["127.0.0.1:8601", "127.0.0.1:8602"], tmp_path / "rt")
    with_site = render("127.0.0.1:8080", ["127.0.0.1:8601", "127.0.0.1:8602"], tmp_path / "rt",
                       site=tmp_path / "site")
    assert "/site" not in plain.split("server {", 1)[1] and "@SITE" not in plain
    assert f"alias {(tmp_path / 'site').resolve()}/;" in with_site
    assert f"alias {(tmp_path / 'site').resolve()}/assets/;" in with_site
    # The site's locations are the only difference: take them out and the two texts are the same.
    assert between_limits_and_app(plain) == "\n"
    block = between_limits_and_app(with_site)
    assert "location ^~ /site/ {" in block and "proxy_pass" not in block
    assert with_site.replace(block, "\n", 1) == plain
    assert "location / {" in plain and plain.count("proxy_pass http://dashboard;") == 1


@pytest.mark.parametrize("bad", ["my site", "a;b", "x{y}", "it's", "$home", "a#b"])
def test_a_site_folder_nginx_would_misread_is_refused(tmp_path, bad):
    with pytest.raises(ValueError, match="site folder"):
        render("127.0.0.1:8080", ["127.0.0.1:8601"], tmp_path / "rt", site=tmp_path / bad)
    assert conf_main(["--listen", "127.0.0.1:8080", "--replica", "127.0.0.1:8601", "--runtime",
                      str(tmp_path / "rt"), "--site", str(tmp_path / bad)]) == 2


# ------------------------------------------------------------------------------------------ nginx on loopback

class _Replica(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(REPLICA_BODY)))
        self.end_headers()
        self.wfile.write(REPLICA_BODY)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def proxy_in_front_of(site: Path, tmp_path: Path):
    """nginx rendered with ``site`` in front of a stand-in replica; yields (host, port)."""
    replica = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Replica)
    thread = threading.Thread(target=replica.serve_forever, daemon=True)
    thread.start()
    runtime = tmp_path / "nginx"
    runtime.mkdir()
    port = free_port()
    conf = runtime / "nginx.conf"
    conf.write_text(render(f"127.0.0.1:{port}", [f"127.0.0.1:{replica.server_address[1]}"], runtime, site=site))
    log = open(runtime / "stderr.log", "wb")  # noqa: SIM115 (a running server's log, closed when it stops)
    proc = subprocess.Popen([NGINX, "-p", str(runtime), "-c", str(conf), "-e", str(runtime / "error.log"),
                             "-g", "daemon off;"], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nginx did not start: {(runtime / 'stderr.log').read_text()[-2000:]}")
            time.sleep(0.1)
        yield "127.0.0.1", port
    finally:
        if proc.poll() is None:
            stop_process(proc)
        log.close()
        replica.shutdown()
        replica.server_close()


def get(addr, path: str, **headers) -> tuple[int, http.client.HTTPMessage, bytes]:
    conn = http.client.HTTPConnection(*addr, timeout=20)
    try:
        conn.request("GET", path, headers=headers)
        r = conn.getresponse()
        return r.status, r.headers, r.read()
    finally:
        conn.close()


@pytest.fixture
def site_root():
    """A folder nginx's workers can read: run as root, nginx drops them to ``nobody``, who cannot enter pytest's
    tmp folders (mode 0700). A folder of our own in the temporary directory, readable by all, removed after."""
    root = Path(tempfile.mkdtemp(prefix="proxy-site-"))
    root.chmod(0o755)
    try:
        yield root / "site"
    finally:
        shutil.rmtree(root, ignore_errors=True)


def small_site(root: Path) -> Path:
    """A few files in the layout ``python -m charts site`` writes (index, numbered pages and their downloads,
    the two shared scripts under assets/)."""
    (root / "assets").mkdir(parents=True)
    page = ('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>ICE arrests per day</title>'
            '<script src="assets/plotly.min.js"></script></head><body><p>Arrests by ICE, per day, by the date '
            'of the arrest.</p>' + "<p>filler so that gzip applies</p>" * 60 + "</body></html>")
    (root / "index.html").write_text('<!doctype html><a href="01-ice-arrests-per-day.html">ICE arrests</a>' * 40)
    (root / "01-ice-arrests-per-day.html").write_text(page)
    (root / "01-ice-arrests-per-day.csv").write_text("date,arrests\n" + "2025-01-20,1000\n" * 200)
    (root / "01-ice-arrests-per-day.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg">'
                                                     + "<g></g>" * 300 + "</svg>")
    (root / "01-ice-arrests-per-day.png").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(3000))
    (root / "assets" / "plotly.min.js").write_text("/* plotly.js stand-in */ var Plotly = {};\n" * 200)
    (root / "assets" / "geo-assets.js").write_text("window.geo = {};\n" * 200)
    return root


def precompress(path: Path, content: bytes | None = None) -> bytes:
    """Write ``path``.gz as `gzip -k -9 -n` would (or of other ``content``: a stale copy); return its bytes."""
    data = gzip.compress(path.read_bytes() if content is None else content, compresslevel=9, mtime=0)
    path.with_name(path.name + ".gz").write_bytes(data)
    return data


@pytest.mark.slow
@needs_nginx
def test_nginx_serves_the_site_with_types_caching_and_gzip_and_still_proxies_the_app(tmp_path, site_root):
    site = small_site(site_root)
    geo_gz = precompress(site / "assets" / "geo-assets.js")
    precompress(site / "01-ice-arrests-per-day.html", b"<p>a stale page: 1 arrest</p>" * 50)
    with proxy_in_front_of(site, tmp_path) as addr:
        # A page: HTML in UTF-8, gzipped for a browser that accepts it, kept 5 minutes, then revalidated.
        status, h, body = get(addr, "/site/01-ice-arrests-per-day.html", **{"Accept-Encoding": "gzip"})
        assert status == 200
        assert h["Content-Type"] == "text/html; charset=utf-8"
        assert h["Cache-Control"] == "public, max-age=300"
        assert h["Content-Encoding"] == "gzip" and "Accept-Encoding" in (h["Vary"] or "")
        assert gzip.decompress(body) == (site / "01-ice-arrests-per-day.html").read_bytes()
        assert h["X-Content-Type-Options"] == "nosniff" and h["ETag"] and h["Last-Modified"]
        assert not h.get_all("Set-Cookie")  # the app's affinity cookie is for the app only
        # Revalidation after the 5 minutes: an unchanged page costs a 304 and no body.
        status, h304, body = get(addr, "/site/01-ice-arrests-per-day.html", **{"If-None-Match": h["ETag"]})
        assert (status, body) == (304, b"") and h304["Cache-Control"] == "public, max-age=300"
        # A client that does not accept gzip gets the bytes on disk.
        status, h, body = get(addr, "/site/01-ice-arrests-per-day.html")
        assert status == 200 and h["Content-Encoding"] is None
        assert body == (site / "01-ice-arrests-per-day.html").read_bytes()

        # The script the page loads: JavaScript, gzipped, kept an hour.
        status, h, body = get(addr, "/site/assets/plotly.min.js", **{"Accept-Encoding": "gzip"})
        assert status == 200 and h["Content-Type"] == "application/javascript; charset=utf-8"
        assert h["Cache-Control"] == "public, max-age=3600" and h["Content-Encoding"] == "gzip"
        assert gzip.decompress(body) == (site / "assets" / "plotly.min.js").read_bytes()
        # A script compressed once after the build (gzip_static) is sent as that file, with the same headers.
        status, h, body = get(addr, "/site/assets/geo-assets.js", **{"Accept-Encoding": "gzip"})
        assert (status, h["Content-Encoding"], h["Cache-Control"]) == (200, "gzip", "public, max-age=3600")
        assert h["Content-Type"] == "application/javascript; charset=utf-8" and body == geo_gz
        # A page's .gz is never used (its figures change from one build to the next): the page itself is sent.
        status, h, body = get(addr, "/site/01-ice-arrests-per-day.html", **{"Accept-Encoding": "gzip"})
        assert gzip.decompress(body) == (site / "01-ice-arrests-per-day.html").read_bytes()

        # Downloads: CSV and SVG as text (gzipped), PNG as it is; the folder's index at /site/ and at /site.
        for name, ctype, zipped in [("01-ice-arrests-per-day.csv", "text/csv; charset=utf-8", True),
                                    ("01-ice-arrests-per-day.svg", "image/svg+xml; charset=utf-8", True),
                                    ("01-ice-arrests-per-day.png", "image/png", False)]:
            status, h, body = get(addr, f"/site/{name}", **{"Accept-Encoding": "gzip"})
            assert (status, h["Content-Type"], h["Cache-Control"]) == (200, ctype, "public, max-age=300"), name
            assert (h["Content-Encoding"] == "gzip") is zipped, name
            assert (gzip.decompress(body) if zipped else body) == (site / name).read_bytes(), name
        status, h, body = get(addr, "/site/")
        assert status == 200 and body == (site / "index.html").read_bytes()
        status, h, _ = get(addr, "/site")
        assert status == 301 and h["Location"] == "/site/"

        # What is not in the folder is not found, and such an answer is not cached; nothing outside it leaks.
        status, h, _ = get(addr, "/site/02-missing.html")
        assert status == 404 and h["Cache-Control"] is None
        (site.parent / "secret.txt").write_text("outside the site")
        for path in ("/site/../secret.txt", "/site/..%2fsecret.txt", "/site/assets/../../secret.txt"):
            status, _, body = get(addr, path)
            assert b"outside the site" not in body, path

        # Every other path still goes to the replica, as before: no site headers, no gzip, the affinity cookie.
        status, h, body = get(addr, "/", **{"Accept-Encoding": "gzip"})
        assert status == 200 and body == REPLICA_BODY
        assert h["Cache-Control"] is None and h["Content-Encoding"] is None
        assert any(c.startswith("dash_route=") for c in h.get_all("Set-Cookie") or [])
        status, _, body = get(addr, "/sitemap.xml")  # a prefix of the site's path, but not under /site/
        assert status == 200 and body == REPLICA_BODY


@pytest.mark.slow
@needs_nginx
def test_every_script_of_every_page_of_the_built_site_comes_through_the_proxy(tmp_path, site_root):
    site = site_root
    r = subprocess.run([sys.executable, "-m", "charts", "site", "--out", str(site), "--no-images"], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    pages = sorted(p for p in site.glob("[0-9][0-9]-*.html") if ".embed-" not in p.name)
    assert pages
    with proxy_in_front_of(site, tmp_path) as addr:
        seen = {}
        for page in pages:
            status, h, body = get(addr, f"/site/{page.name}", **{"Accept-Encoding": "gzip"})
            assert status == 200 and h["Content-Type"] == "text/html; charset=utf-8", page.name
            assert h["Cache-Control"] == "public, max-age=300" and h["Content-Encoding"] == "gzip", page.name
            html = gzip.decompress(body)
            assert html == page.read_bytes(), page.name
            srcs = re.findall(rb'<script[^>]*\ssrc="([^"]+)"', html)  # the releases page has no chart: none
            for src in srcs:
                src = src.decode()
                if src in seen:
                    continue
                assert not re.match(r"^[a-z]+:|^//", src), f"{page.name} loads {src} from elsewhere"
                status, h, body = get(addr, f"/site/{src}", **{"Accept-Encoding": "gzip"})
                assert status == 200 and h["Content-Type"] == "application/javascript; charset=utf-8", src
                assert h["Content-Encoding"] == "gzip", src
                data = gzip.decompress(body)
                assert hashlib.sha256(data).digest() == hashlib.sha256((site / src).read_bytes()).digest(), src
                assert h["Cache-Control"] == ("public, max-age=3600" if src.startswith("assets/")
                                              else "public, max-age=300"), src
                seen[src] = (len(body), len(data))
    assert "assets/plotly.min.js" in seen
    sent, on_disk = seen["assets/plotly.min.js"]
    assert sent < on_disk / 2, f"plotly.js sent as {sent:,} bytes of {on_disk:,}: not compressed enough"
