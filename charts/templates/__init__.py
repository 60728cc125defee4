"""The HTML the outputs write, as Jinja2 templates (the ``*.html`` files beside this one): the static site's
pages, embeds and embed snippets (``charts.site``), the HTML export of a chart (``charts.export.to_html``) and of
a map (``charts.places_export.map_html``).

Every value is escaped by the template (``autoescape``: ``& < > " '`` become ``&amp; &lt; &gt; &#34; &#39;``,
the same entities as ``loaders.text.html_text``), so a title, an alt text, an event's words or a link cannot
become markup. The few values that are markup on purpose (Plotly's chart, the bundled scripts) are marked
``|safe`` in one place each, with the reason beside it. A field a template names but is not given is an error
(``StrictUndefined``), never an empty string on a published page. ``trim_blocks``/``lstrip_blocks`` let the
templates put tags on lines of their own without writing those lines into the pages; a tag ending ``+%}`` keeps
the line break after it. A value of None (or NaN) shows as "", as ``html_text`` shows it.
"""
from __future__ import annotations

import math

from jinja2 import Environment, PackageLoader, StrictUndefined


def _finalize(value):
    """None and NaN print as nothing (the rule ``loaders.text.html_text`` follows), never as "None"/"nan"."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value


ENV = Environment(loader=PackageLoader("charts", "templates"), autoescape=True, undefined=StrictUndefined,
                  trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True, finalize=_finalize)


def render(name: str, /, **context) -> str:
    """The template ``name`` (a file in this folder) filled with ``context``."""
    return ENV.get_template(name).render(**context)
