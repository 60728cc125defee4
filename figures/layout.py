"""What a figure is laid out for: its sizes (the page, an article column, a social card, the full image) and
the full-height overlay axis that events and shaded spans are drawn on.

Its own module because the figure builders (``figures.core``) and the layers drawn on the overlay
(``figures.events``) both need these names, and the builders import the layers.
"""
from __future__ import annotations

from dataclasses import dataclass

OVERLAY_AXIS = "yaxis9"  # the full-height overlay (events, shaded spans); panels use yaxis..yaxis4
OVERLAY_REF = "y9"


@dataclass(frozen=True)
class Size:
    """One export size. Font sizes are CSS pixels at ``width``; ``scale`` only multiplies the pixels of a PNG."""
    name: str
    width: int
    scale: float
    font: int  # ticks, legend, footer (the smallest text on the figure)
    title: int
    plot_height: int  # the panels' area, before the title, legend and footer
    square: bool = False
    list_events: bool = True  # the page lists events in a table under the chart instead
    description: str = ""


SIZES = {
    "page": Size("page", 1100, 1, 12, 19, 460, list_events=False, description="the page's chart"),
    "full": Size("full", 1200, 1, 13, 20, 470, description="1200 px wide, the full-size image"),
    "article": Size("article", 680, 2, 12, 16, 340,
                    description="680 px wide for an article column (no text under 12 px; PNG at 2x)"),
    "social": Size("social", 1080, 1, 22, 32, 420, square=True,
                   description="1080 x 1080 social card (taller only when the events list needs it)"),
}
EXPORT_SIZES = ("article", "social", "full")


def size_of(size) -> Size:
    if isinstance(size, Size):
        return size
    try:
        return SIZES[size or "page"]
    except KeyError:
        raise ValueError(f"unknown size {size!r}; use one of {', '.join(SIZES)}") from None
