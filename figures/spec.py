"""A figure before it is laid out: the Plotly traces and layout, plus what ``figures.core.finish`` needs to lay
them out for one size (the title and subtitle to wrap, the footer lines, how many panels, the strip above
them). None of it is drawn as it stands, and none of it reaches Plotly: ``finish`` turns it into a Plotly dict.

A spec is frozen. The functions that add to one (``figures.core.add_layer``, ``figures.blackouts.add_blackouts``)
return a new spec (``dataclasses.replace``) and leave the one they were given as it was, so a caller can keep a
spec and lay it out again, or add another layer to it, without finding it changed.

Its own module because the builders (``figures.core``) and the layers (``figures.blackouts``) both read it,
and the builders import the layers.
"""
from __future__ import annotations

from dataclasses import dataclass

from figures.layout import Size


@dataclass(frozen=True)
class FigureSpec:
    data: tuple[dict, ...]  # Plotly traces; a layer's go on the overlay axis (figures.layout.OVERLAY_REF)
    layout: dict  # Plotly layout keys; ``finish`` adds the margins, heights and domains to a copy
    size: Size
    title: str  # plain text, wrapped by ``finish`` for the size
    subtitle: str
    # Sources, then notes, then the generated-on line (always last: a layer's notes go before it).
    footer: tuple[str, ...]
    panels: int  # stacked panels, one unit each
    x_title: str = ""  # a title under the x axis takes a line of the bottom margin
    top_strip: float = 0  # px above the panels for the event markers
    height: float | None = None  # the panels' height asked for, px (None: the size's)
    # Notes of spans with no release (figures.blackouts), each with ``_span`` (its first and last day): laid
    # in rows of their own above the event markers by ``finish`` (figures.layout.stack_notes).
    strip_notes: tuple[dict, ...] = ()
    # Labels of points in the panels (reported figures, targets), each with ``x`` (ISO date), ``y`` (value),
    # ``panel`` and ``text``: placed by ``finish`` beside their point where they cross no other label, marker or
    # event line (figures.layout.place_labels).
    point_labels: tuple[dict, ...] = ()
    unlabelled: int = 0  # reported figures whose label found no room (said in the footer)
    lang: str = "en"  # the language of the figure's words (the footer's line on unlabelled figures)
    # Footer lines and the shorter lines that replace them when the laid-out figure is taller than its size
    # allows (figures.core._with_events): what gives way before the plot and the lines that must stay.
    shorter: tuple[tuple[str, str], ...] = ()
    # Then, when the figure with its shorter lines would still run past its size's height limit (a square card
    # that grew), the notes' shortest forms: what their markers mean without the detail the CSV and HTML carry.
    tighter: tuple[tuple[str, str], ...] = ()
    # Past that, what else gives way (figures.core.giving_way): the legend laid out in columns, then the legend and
    # the footer in a smaller font (None: the size's own), then the notes (every footer line after the first
    # ``sources``, before the generated-on line) left to the full-size image and the CSV in one line.
    legend_columns: bool = False
    text_font: int | None = None
    sources: int = 0
    # The last step: the notes (the footer's, the spans' above the plot, the lines on events and labels left off)
    # given way to one line that says where they are.
    notes_elsewhere: bool = False
