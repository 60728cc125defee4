"""What the page asks of the reader's browser: how wide the screen is (the chart is laid out for a phone's
width; a few styles keep a narrow screen readable), that Enter in a date field applies the date, and that a page
whose server process went away loads itself again from the one it reconnected to.

Plotly lays out a figure's title, legend and footer for the width it is built for and never wraps them: the
page chart built for 1,100 px and drawn in a 358 px column had its title and legend cut at the right and the
legend's extra rows over the event markers. The browser says how wide it is (a small component with no visible
part); below ``NARROW_PX`` the chart is built for that width (``chart_size``).
"""
from __future__ import annotations

import html
import re
import textwrap
import uuid

import streamlit as st

from views.compose import ChartSize, size_with

# Streamlit stacks columns below 640 px; the same width decides the phone layout here.
NARROW_PX = 640
# Widths are reported in steps of this many pixels, so the charts built (and kept) for phones are few.
STEP_PX = 20

# The reader's window width, reported when the page opens and again when it crosses a step (a rotated phone);
# never on a wide screen's resizes, which would only rerun the page for nothing.
_JS = f"""
export default function(component) {{
  const {{ setStateValue, setTriggerValue, data }} = component;
  const told = (data && typeof data === 'object') ? data : {{}};
  // The server process that drew this run. Another one than drew the page before: the page's own server went
  // away (a replica died, or the server restarted) and this one has none of its session. Load the page again:
  // the address holds the view, and a fresh load leaves no widget or fragment of the old session behind. A
  // freshly loaded page knows no server yet, so this cannot reload twice in a row; a rerun on the same server
  // never reloads.
  const server = String(told.server || '');
  if (server && window.__pageServer && server !== window.__pageServer) {{
    window.__pageServer = '';
    window.location.reload();
    return;
  }}
  if (server) window.__pageServer = server;
  // After a lost connection Streamlit asks the server it reconnected to for a run only when the page's last run
  // was a fragment's: an untouched page asks for none, so a new server would never draw this component to say
  // who it is, and the reader's next change reached a fragment that server does not have (nothing happened).
  // On every reconnection this asks for a run, naming the server that drew the page; that run tells which
  // server answers (above), and on a new server it stops there (width() in page/browser.py). The connection
  // state is read where Streamlit's front end marks it on the app's root (data-test-connection-state, in every
  // build); tests/test_proxy.py and tests/test_page_browser.py fail if a Streamlit upgrade moves it.
  window.__pageReconnected = () => setTriggerValue('reconnected', window.__pageServer || '');
  if (!window.__pageConnectionWatch) {{
    const app = document.querySelector('[data-testid="stApp"]');
    if (app) {{
      window.__pageConnectionWatch = true;
      let lost = false;
      new MutationObserver(() => {{
        const state = app.getAttribute('data-test-connection-state');
        if (state === 'CONNECTED') {{
          if (lost) {{ lost = false; window.__pageReconnected(); }}
        }} else if (state) {{
          lost = true;
        }}
      }}).observe(app, {{attributes: true, attributeFilter: ['data-test-connection-state']}});
    }}
  }}
  // What the server already knows (0: a wide screen, or nothing said yet): a wide screen never reruns the page.
  window.__pageWidthKnown = Number(told.width || 0);
  const measure = () => {{
    const w = window.innerWidth;
    return w < {NARROW_PX} ? Math.floor(w / {STEP_PX}) * {STEP_PX} : 0;
  }};
  const send = () => {{
    const w = measure();
    if (w !== window.__pageWidthKnown) {{
      window.__pageWidthKnown = window.__pageWidthSent = w;
      setStateValue('width', w);
    }}
  }};
  send();
  // A date field (the custom range, the index and as-published dates) applied a typed date only on a click
  // outside it: a reader typed a date, pressed Enter and saw no change. Streamlit's field applies the typed
  // value on Escape (its own key handler), so Enter is passed on to it as Escape.
  if (!window.__dateEnterApplies) {{
    window.__dateEnterApplies = true;
    document.addEventListener('keydown', (e) => {{
      const field = e.key === 'Enter' && !e.isComposing && e.target && e.target.closest
                    && e.target.closest('[data-testid="stDateInputField"]');
      if (!field) return;
      e.preventDefault();
      e.stopPropagation();
      e.target.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Escape', code: 'Escape', bubbles: true, cancelable: true}}));
    }}, true);
  }}
  if (!window.__pageWidthWatch) {{
    window.__pageWidthWatch = true;
    let timer = null;
    window.addEventListener('resize', () => {{ clearTimeout(timer); timer = setTimeout(send, 300); }});
  }}
}}
"""

# The page's own styles (never data): the headline cards three to a row on a desktop; on a narrow screen a
# smaller title with less space above it, and the five cards side by side in one row the reader swipes through,
# each most of the screen wide (stacked, they pushed the chart about 3,200 px down). Applied through the width
# helper's component (mounted into the page, not a shadow root), in a container that takes no room.
CSS = f"""
[class*="st-key-page_helper"] {{ display: none; }}
.st-key-headline_cards > div {{ flex: 1 1 30%; min-width: 16rem; }}
@media (max-width: {NARROW_PX}px) {{
  [data-testid="stMainBlockContainer"] {{ padding-top: 2.5rem; }}
  h1 {{ font-size: 1.6rem !important; line-height: 1.25 !important; padding-bottom: 0.25rem !important; }}
  .st-key-headline_cards {{ flex-wrap: nowrap !important; overflow-x: auto; scroll-snap-type: x mandatory;
                           padding-bottom: 0.4rem; }}
  .st-key-headline_cards > div {{ flex: 0 0 85%; min-width: 0; scroll-snap-align: start; }}
}}
"""

# This server process, told to the browser at each run: a page drawn by one process and reconnected to another
# (its replica died, or the server restarted) loads itself again (see _JS).
SERVER = uuid.uuid4().hex

_component = None


def _viewport():
    global _component
    if _component is None:
        _component = st.components.v2.component("page_browser", js=_JS, css=CSS, isolate_styles=False)
    return _component


def width() -> int:
    """The reader's window width in pixels when it is narrower than ``NARROW_PX`` (in steps of ``STEP_PX``);
    0 on a wide screen, and before the browser has said (the first run of a session, Streamlit's test client).

    It also tells the browser which server process drew the run (``SERVER``). A run the browser asked for
    after reconnecting, naming another process, is a page drawn by a server that went away: the browser
    reloads the page on seeing this run's ``SERVER``, so the rest of the run is not built (``st.stop``)."""
    reconnected = None
    try:
        with st.container(key="page_helper_width"):
            known = int(st.session_state.get("page_width_px", 0) or 0)
            res = _viewport()(key="page_width", data={"width": known, "server": SERVER}, default={"width": 0},
                              height=0, on_width_change=lambda: None, on_reconnected_change=lambda: None)
        w = int(getattr(res, "width", 0) or 0)
        reconnected = getattr(res, "reconnected", None)
    except Exception:  # noqa: BLE001 (no browser to ask, as under the test client: the page as on a wide screen)
        w = int(st.session_state.get("page_width_px", 0) or 0)
    st.session_state["page_width_px"] = w
    if drawn_elsewhere(reconnected):
        st.stop()
    return w


def drawn_elsewhere(reconnected: object) -> bool:
    """Whether a reconnected browser's page was drawn by another server process than this one: ``reconnected``
    is the process the browser names after a lost connection (None when it did not just reconnect)."""
    return isinstance(reconnected, str) and bool(reconnected) and reconnected != SERVER


def phone_column(width_px: int | None = None) -> int | None:
    """The width of the column a narrow screen draws the page in (the window less Streamlit's side padding), from
    ``width_px`` or the width the browser reported; None on a wide screen, or before the browser has said."""
    w = st.session_state.get("page_width_px", 0) if width_px is None else width_px
    if not w or w >= NARROW_PX:
        return None
    return max(280, int(w) - 32)


def phone_layout(width_px: int | None = None) -> bool:
    """Whether the page is laid out for a phone: what sat above the trend chart (the language choice, the
    headline cards, the series and chart controls, 1,100 px of them on a 390 x 844 phone) is folded into an
    expander or drawn under the chart, so the chart's plot starts within the first screen."""
    return phone_column(width_px) is not None


def chart_size(width_px: int | None = None) -> str | ChartSize:
    """The size the page's trend chart is built for: "page" on a wide screen; on a phone the page size narrowed
    to the column the chart is drawn in (the window less Streamlit's side padding), with a shorter plot."""
    column = phone_column(width_px)
    if column is None:
        return "page"
    # The plot starts within the first screen: the legend goes under it with the footer, Plotly's toolbar gets a
    # band of its own above the title, and at most one event per EVENT_PX of plot is drawn (the rest are named
    # in the footer and listed in the table under the chart).
    return size_with("page", name="phone", width=column, plot_height=360, legend_below=True,
                     toolbar_px=TOOLBAR_PX, event_px=EVENT_PX, description="the page's chart on a phone")


TOOLBAR_PX = 30  # Plotly's toolbar: 26 px of buttons and its 2 px offset
EVENT_PX = 32  # a phone's plot (about 280 px) draws at most 8 events, a marker's width and more apart


# ---------------------------------------------------------------- figures laid out for a wide screen

_TAGGED = re.compile(r"((?:<[a-z]+[^>]*>)*)(.*?)((?:</[a-z]+>)*)", re.S)
_CHAR_EM = 0.56  # average glyph width in em of Plotly's fonts, as figures.core counts it
_NOTE_EM = 0.52  # plain prose in notes runs a little narrower (figures.core wraps its footer with it)


def _wrap_html(text: str, chars: int) -> str:
    """Plotly text (lines joined by <br>, each maybe wrapped in tags such as <b> or <sup>) rewrapped to ``chars``
    characters a line, each new line in its line's tags."""
    out = []
    for seg in text.split("<br>"):
        m = _TAGGED.fullmatch(seg)
        assert m is not None  # the pattern matches any text: tags are optional
        opening, inner, closing = m.groups()
        out += [opening + line + closing
                for line in textwrap.wrap(inner, max(8, chars), break_on_hyphens=False) or [inner]]
    return "<br>".join(out)


def fit_to_screen(fig, width_px: int | None = None):
    """A figure built for a wide screen (the Places maps), with its title and paper-anchored notes rewrapped to a
    phone's width and its margins grown for the extra lines, so nothing runs off the right edge or over the
    note beside it; the figure itself (shared, cached) is left as it is. On a wide screen: ``fig`` unchanged."""
    width = phone_column(width_px)
    if width is None:
        return fig
    spec = fig.to_dict()
    lay = spec["layout"]
    base = ((lay.get("font") or {}).get("size") or 12)
    margin = dict(lay.get("margin") or {})
    # Unset margins are Streamlit's theme's, a few pixels: the page draws these figures with it.
    left, right = margin.get("l", 10), margin.get("r", 10)
    grow_top = title_h = 0.0
    title = lay.get("title") or {}
    if title.get("text"):
        size = (title.get("font") or {}).get("size") or base * 1.4
        x = title.get("x", 0.5) if title.get("xanchor") == "left" else 0.0
        before = title["text"].count("<br>")
        title["text"] = _wrap_html(title["text"], int((width * (1 - x) - 12) / (size * _CHAR_EM)))
        grow_top = (title["text"].count("<br>") - before) * size * 1.3
        title_h = (title["text"].count("<br>") + 1) * size * 1.3
    grow_bottom = _fit_notes(lay, width, left, right, base)
    margin["t"] = margin.get("t", 100) + grow_top
    margin["b"] = margin.get("b", 80) + grow_bottom
    lay["margin"] = margin
    lay["height"] = (lay.get("height") or 450) + grow_top + grow_bottom
    if grow_top:
        # Placed by its last line: Plotly lifts a title of several lines anchored at its top off the figure.
        title.update(yref="container", y=1 - (12 + title_h) / lay["height"], yanchor="bottom")
    return spec


def _fit_notes(lay: dict, width: int, left: float, right: float, base: float, shift: float = 0.0) -> float:
    """Rewrap the figure's paper-anchored notes to the room each has at ``width`` px (to the figure's right edge,
    or to the next note on the same line); return how much taller the notes under the plot became, in px.
    ``shift``: px the notes under the plot move down (a legend above them grew)."""
    plot_w = max(100, width - left - right)
    grow_bottom = 0.0
    notes = [a for a in lay.get("annotations") or [] if a.get("text") and a.get("xref", "paper") == "paper"]
    for a in notes:
        size = (a.get("font") or {}).get("size") or base
        x, y = a.get("x", 0.5), a.get("y", 0.5)
        at = left + x * plot_w
        edge = width - 4
        for b in notes:  # a note further along the same line ends this one's room
            if b is not a and abs(b.get("y", 0.5) - y) < 0.03 and b.get("x", 0.5) > x:
                edge = min(edge, left + b.get("x", 0.5) * plot_w - 6)
        anchor = a.get("xanchor", "auto")
        if anchor == "auto":  # Plotly's own rule for a paper-anchored note
            anchor = "left" if x < 1 / 3 else "right" if x > 2 / 3 else "center"
        room = at if anchor == "right" else 2 * min(at, width - at) if anchor == "center" else edge - at
        before = a["text"].count("<br>")
        a["text"] = _wrap_html(a["text"], int(room / (size * _NOTE_EM)))
        added = (a["text"].count("<br>") - before) * size * 1.35
        if y <= 0 and a.get("yanchor") == "top":
            grow_bottom = max(grow_bottom, added)
            if shift:
                a["yshift"] = (a.get("yshift") or 0) - shift
    return grow_bottom


def fit_chart_to_screen(fig, width_px: int | None = None):
    """The trend chart on a phone: built for the phone's width already (``chart_size``), but a legend entry wider
    than the screen (a long series title) is wrapped onto lines of its own and the figure grown above the plot to
    hold them (Plotly never wraps an entry: it ran off the right edge); a target's label sits at its line's
    right end, wrapped to the plot; a word longer than a note's line (a file's URL) is broken. A copy: the
    figure itself is shared. On a wide screen: ``fig`` unchanged."""
    width = phone_column(width_px)
    if width is None:
        return fig
    spec = fig.to_dict()
    lay = spec["layout"]
    base = (lay.get("font") or {}).get("size") or 12
    font = ((lay.get("legend") or {}).get("font") or {}).get("size") or base
    margin = dict(lay.get("margin") or {})
    left, right = margin.get("l", 80), margin.get("r", 24)
    entry = int((width - left - 50) / (font * _CHAR_EM))
    extra_lines, named = 0, set()
    for t in spec["data"]:
        name = t.get("name") or ""
        if t.get("showlegend") is False or not name or "<br>" in name or len(html.unescape(name)) <= entry:
            continue
        wrapped = "<br>".join(textwrap.wrap(name, entry, break_long_words=False)) or name
        if name not in named:  # one legend entry per name
            extra_lines += wrapped.count("<br>")
            named.add(name)
        t["name"] = wrapped
    label_chars = int((width - left - right - 10) / (font * _CHAR_EM))
    for t in spec["data"]:
        texts = t.get("text")
        if t.get("legendgroup") != "reported_targets" or not isinstance(texts, (list, tuple)):
            continue
        placed = []
        for i in range(0, len(texts), 3):  # one target per (start, end, gap)
            trip = list(texts[i:i + 3])
            label = next((x for x in trip if x), "")
            placed += (["", _wrap_html(label, label_chars) if label else "", ""])[:len(trip)]
        t["text"] = placed
        vertical = "bottom" if str(t.get("textposition") or "").startswith("bottom") else "top"
        t["textposition"] = vertical + " left"  # ends at the line's right end: it cannot run past the plot
    legend = lay.get("legend") or {}
    # A legend laid out under the plot (a phone's size: figures.layout.Size.legend_below) grows downwards.
    old_h = lay.get("height") or 450
    below = (legend.get("yref") == "container" and isinstance(legend.get("y"), (int, float))
             and legend["y"] * old_h < old_h - margin.get("t", 100))  # its top is under the plot's
    grow_legend = extra_lines * font * 1.3
    grow_top = 0.0 if below else grow_legend
    old_footer = lay["legend"]["y"] * old_h if below else 0.0  # px from the figure's bottom to the legend's top
    grow_bottom = _fit_notes(lay, width, left, right, base, shift=grow_legend if below else 0.0)
    new_h = old_h + grow_top + grow_bottom + (grow_legend if below else 0.0)
    for part in ("title", "legend"):  # placed from the top in the figure's own units: kept where they were
        box = lay.get(part) or {}
        if box.get("yref") == "container" and isinstance(box.get("y"), (int, float)):
            box["y"] = (old_footer + grow_bottom + grow_legend) / new_h if part == "legend" and below \
                else 1 - (1 - box["y"]) * old_h / new_h
    margin["t"] = margin.get("t", 100) + grow_top
    margin["b"] = margin.get("b", 80) + grow_bottom + (grow_legend if below else 0.0)
    lay["margin"], lay["height"] = margin, new_h
    return spec
