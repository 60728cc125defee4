"""A figure as PNG or SVG bytes, drawn by Kaleido in the system's Chrome or Chromium.

Starting a browser per image costs 4-5 s here; Kaleido's sync server keeps one alive (about 0.3 s an image).
Its result queue is shared between callers, so images are drawn one at a time under a lock, or one session
could receive another's image.

In the figures layer because the maps' images (``figures.maps.to_image``) go through the same one browser as
the charts' exports (``charts.export``, which reads these names from here): a figure module never imports the
outputs above it.
"""
from __future__ import annotations

import os
import shutil
import sys
import threading
import warnings
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio

# Plotly's locales other than English, bundled (static/locales/PROVENANCE.md): registered in every exported
# HTML page and in the headless browser that draws PNG and SVG, so dates on a Spanish chart read "Ene 2025"
# with no network request. A figure picks its locale with config={"locale": ...}.
LOCALE_FILES = {"es": os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "static", "locales",
                                   "plotly-locale-es.js")}
# Makes the figure's config.locale the one Plotly.toImage draws with (it ignores the figure's config).
KALEIDO_LOCALE = os.path.join(os.path.dirname(LOCALE_FILES["es"]), "kaleido-locale.js")
_LOCK = threading.Lock()
_SERVER_STARTED = False


class ExportUnavailable(RuntimeError):
    """Image export needs Chrome or Chromium, and none was found."""


def find_browser() -> str | None:
    path = os.environ.get("BROWSER_PATH")
    if path and os.path.exists(path):
        return path
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def to_image(fig: go.Figure, fmt: str = "png", *, width: int = 1200, height: int | None = None, scale: float = 1,
             lang: str = "en") -> bytes:
    """PNG or SVG bytes, reusing one browser across calls. ``lang`` picks Plotly's locale (date axes)."""
    global _SERVER_STARTED
    if fmt not in ("png", "svg"):
        raise ValueError("format must be png or svg")
    browser = find_browser()
    if not browser:
        raise ExportUnavailable("Image export needs Chrome or Chromium. Install one (on Debian or Ubuntu: "
                                "`sudo apt-get install chromium`) or set BROWSER_PATH; CSV and HTML exports "
                                "work without it.")
    os.environ.setdefault("BROWSER_PATH", browser)
    # kaleido's logging helper (logistro) parses sys.argv when imported, and stops the program on options it
    # finds ambiguous: `python -m charts export --log` died with "ambiguous option: --log". Hide our arguments.
    argv, sys.argv = sys.argv, sys.argv[:1]
    try:
        import kaleido
    finally:
        sys.argv = argv
    h = height or int(fig.layout.height or 600)
    with _LOCK:
        if not _SERVER_STARTED:
            # The page the browser draws in: plotly.js from plotly.py's package and the bundled locales; no
            # MathJax (kaleido's default loads it from a CDN, and no figure here uses TeX).
            scripts = [*LOCALE_FILES.values(), KALEIDO_LOCALE]
            page = kaleido.PageGenerator(mathjax=False, others=[(Path(f).as_uri(), "utf-8") for f in scripts])
            kaleido.start_sync_server(page_generator=page, silence_warnings=True)
            _SERVER_STARTED = True
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "kopts ignored when using a server": expected
            # fig.to_image sends no config; kaleido passes the figure's own "config" to the page, where
            # static/locales/kaleido-locale.js applies its locale. English goes the same way (see above), so a
            # Spanish image never leaves its locale behind for the next one.
            return _calc(kaleido, fig, fmt, width, h, scale, lang or "en")


def _calc(kaleido, fig: go.Figure, fmt: str, width: int, height: int, scale: float, lang: str) -> bytes:
    spec = fig.to_plotly_json()
    spec["config"] = {"locale": lang}
    # Kaleido's request parser keeps only data and layout, so the locale also rides in layout.meta (a free
    # field Plotly does not draw) for static/locales/kaleido-locale.js to read. The figure itself is unchanged.
    meta = spec["layout"].get("meta")
    spec["layout"] = dict(spec["layout"], meta=dict(meta if isinstance(meta, dict) else {}, locale=lang))
    # As fig.to_image does: the maps' outlines come from the loopback server set in pio.defaults.topojson.
    return kaleido.calc_fig_sync(spec, opts=dict(format=fmt, width=width, height=height, scale=scale),
                                 topojson=pio.defaults.topojson)
