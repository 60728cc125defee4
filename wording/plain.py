"""Showing untrusted text (uploaded file names, event titles) in Streamlit elements that render Markdown.

``st.error``, ``st.success``, ``st.caption`` and ``st.markdown`` render Markdown even without
``unsafe_allow_html``: a file named ``![x](https://tracker.example/p.png).csv`` would load an image from
another site, and ``[text](url)`` would become a live link. Escaping every ASCII punctuation mark with a
backslash (CommonMark allows it for all of them) shows the text as typed.

The one Markdown escaper. HTML, SVG and Plotly text go through ``loaders.text.html_text`` and CSV cells
through ``loaders.text.csv_cell`` (one of each for the whole project; see there).
"""
from __future__ import annotations

import re

_PUNCT = re.compile(r"([!-/:-@\[-`{-~])")


def markdown_literal(text) -> str:
    """``text`` as Markdown that renders to exactly those characters, on one line."""
    return _PUNCT.sub(r"\\\1", " ".join(str(text).split()))
