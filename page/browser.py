"""What the page asks of the reader's browser: how wide the screen is (the chart is laid out for a phone's
width; a few styles keep a narrow screen readable), and that Enter in a date field applies the date.

Plotly lays out a figure's title, legend and footer for the width it is built for and never wraps them: the
page chart built for 1,100 px and drawn in a 358 px column had its title and legend cut at the right and the
legend's extra rows over the event markers. The browser says how wide it is (a small component with no visible
part); below ``NARROW_PX`` the chart is built for that width (``chart_size``).
"""
from __future__ import annotations

from dataclasses import replace

import streamlit as st

from figures.layout import Size, size_of

# Streamlit stacks columns below 640 px; the same width decides the phone layout here.
NARROW_PX = 640
# Widths are reported in steps of this many pixels, so the charts built (and kept) for phones are few.
STEP_PX = 20

# The reader's window width, reported when the page opens and again when it crosses a step (a rotated phone);
# never on a wide screen's resizes, which would only rerun the page for nothing.
_JS = f"""
export default function(component) {{
  const {{ setStateValue }} = component;
  const measure = () => {{
    const w = window.innerWidth;
    return w < {NARROW_PX} ? Math.floor(w / {STEP_PX}) * {STEP_PX} : 0;
  }};
  const send = () => {{
    const w = measure();
    if (window.__pageWidthSent !== w) {{ window.__pageWidthSent = w; setStateValue('width', w); }}
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

# Narrow screens: a smaller title and less space above it, so the cards and the chart come sooner.
CSS = f"""<style>
@media (max-width: {NARROW_PX}px) {{
  [data-testid="stMainBlockContainer"] {{ padding-top: 2.5rem; }}
  h1 {{ font-size: 1.6rem !important; line-height: 1.25 !important; padding-bottom: 0.25rem !important; }}
}}
</style>"""

_component = None


def _viewport():
    global _component
    if _component is None:
        _component = st.components.v2.component("page_browser", js=_JS)
    return _component


def width() -> int:
    """The reader's window width in pixels when it is narrower than ``NARROW_PX`` (in steps of ``STEP_PX``);
    0 on a wide screen, and before the browser has said (the first run of a session, Streamlit's test client)."""
    st.html(CSS)
    try:
        res = _viewport()(key="page_width", default={"width": 0}, height=0, on_width_change=lambda: None)
        w = int(getattr(res, "width", 0) or 0)
    except Exception:  # noqa: BLE001 (no browser to ask, as under the test client: the page as on a wide screen)
        w = int(st.session_state.get("page_width_px", 0) or 0)
    st.session_state["page_width_px"] = w
    return w


def chart_size(width_px: int | None = None) -> str | Size:
    """The size the page's trend chart is built for: "page" on a wide screen; on a phone the page size narrowed
    to the column the chart is drawn in (the window less Streamlit's side padding), with a shorter plot."""
    w = st.session_state.get("page_width_px", 0) if width_px is None else width_px
    if not w or w >= NARROW_PX:
        return "page"
    column = max(280, int(w) - 32)
    return replace(size_of("page"), name="phone", width=column, plot_height=360,
                   description="the page's chart on a phone")
