"""The headline cards as the page shows them: which figures, and each card's sentence and age as Markdown that
shows exactly their characters (the figure in bold, a late source in orange). The figures themselves are
``analysis.overview``'s; this module turns them into the cards' text so the page only lays them out."""
from __future__ import annotations

import datetime as dt

from analysis import overview
from wording.plain import markdown_literal

Card = overview.Headline
"""One headline card's facts (figure, period, scope, release, age): the page reads its fields to draw the card
and its popover, so the type is part of the view layer's interface."""


def cards(snap, today: dt.date, lang: str = "en", sep: str = ",") -> list[Card]:
    """The cards above the rooms, in order, worded in ``lang`` with the separators ``sep``."""
    return overview.headlines(snap, today, lang, sep)


def card_sentence(h: Card) -> str:
    """The card's sentence as Markdown that shows exactly its characters, the figure in bold."""
    text = markdown_literal(h.quote)
    figure = markdown_literal(h.figure)
    return text.replace(figure, f"**{figure}**", 1) if figure and figure in text else text


def age_caption(h: Card) -> str:
    """The card's age as one caption: the data date and age in grey; an overdue source or a newer release not
    held in orange (once only in the popover, they went unseen). One element, not one a line: each element's
    gap pushed the chart below a phone's first scroll."""
    lines = [markdown_literal(line) if i == 0 and h.data_date is not None else f":orange[{markdown_literal(line)}]"
             for i, line in enumerate(h.age)]
    return "  \n".join(lines)
