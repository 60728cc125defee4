"""Untrusted text (series, facility and file names, event titles, uploaded rows) written safely: the project's
one CSV-formula rule and one HTML escaper, here so that the loaders (which refuse formula cells in events
files) and the charts (which write CSV, HTML, SVG and Plotly text) follow the same rules.

- ``FORMULA_START`` / ``csv_cell`` / ``csv_frame``: a CSV cell a spreadsheet would run as a formula (starting ``= + - @``,
  tab, CR or LF; OWASP's list) gets a leading ``'``. A bare CR becomes a line feed first: a CSV writer need
  not quote a cell for it, a spreadsheet would start a new row there, and a "=..." after it would be a formula
  again. Non-text values (numbers, so negative numbers too) pass through unchanged.
- ``html_text``: HTML, SVG/XML and Plotly's text (titles, legends, hover boxes, annotations). ``& < > " '``
  become entities; the quotes become *numeric* entities (``&#34;`` ``&#39;``) because Plotly converts numeric
  entities but shows ``&quot;`` as typed, so one rule is right in element text, in attributes and in figures.

Markdown for Streamlit has its own escaper, ``charts.plain.markdown_literal``. ``tests/test_security.py``
fails when a second copy of any of them appears.
"""
from __future__ import annotations

import math

FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")
_HTML = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;"})


def csv_cell(value):
    """``value`` as a CSV cell a spreadsheet shows instead of running (see the module docstring)."""
    if isinstance(value, str):
        if "\r" in value:
            value = value.replace("\r\n", "\n").replace("\r", "\n")
        if value.startswith(FORMULA_START):
            return "'" + value
    return value


def csv_frame(df):
    """A copy of the data frame ``df`` with every text cell and column name through ``csv_cell``: what every CSV
    written for people goes through (the charts' exports, ``python -m loaders releases --format csv``)."""
    import pandas as pd
    out = df.copy()
    out.columns = [csv_cell(c) for c in out.columns]  # wide exports name columns after data (facility names)
    for c in out.columns:
        if out[c].dtype == object or pd.api.types.is_string_dtype(out[c]):
            out[c] = out[c].map(csv_cell)
    return out


def html_text(text) -> str:
    """``text`` as HTML (or SVG, or Plotly text) that shows exactly those characters; None and NaN show as ""."""
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return ""
    return str(text).translate(_HTML)
