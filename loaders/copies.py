"""Links that point at a copy of a report, not at the report itself.

Many curated rows (``data/events.csv``, ``data/reported_figures.csv``) could only be read on a republishing site,
an RSS mirror or an aggregator's summary, because that is where the research found them. A reader who follows
such a link must know it is a copy and whose work it copies. Both curated files therefore carry three optional
columns (files without them still load; the defaults say "not a copy"):

- ``link_is_copy``: ``yes`` when the linked page is a copy or a summary of someone else's report, ``no`` (or
  empty) when it is the original or the official page;
- ``original_outlet``: who published the original (required when the link is a copy). ``unknown`` is allowed
  and means the copy does not say whose report it repeats;
- ``original_date``: the original's publication date (YYYY-MM-DD) when the research knows it, else empty.

``COPY_HOSTS`` lists the hosts the research found to be mirrors, republishers or aggregators: a row linking one
of them must be marked as a copy, so a new row cannot quietly present a copy as the original.
"""
from __future__ import annotations

import datetime as dt
import re
from urllib.parse import urlsplit

COPY_COLUMNS = ("link_is_copy", "original_outlet", "original_date")
UNKNOWN_OUTLET = "unknown"
_YES = {"yes", "true", "1"}
_NO = {"", "no", "false", "0"}

# Hosts that only republish, mirror or summarise other outlets' reports (seen in the research notes).
COPY_HOSTS = frozenset({
    "rss.newsmax.com", "www.amren.com", "bjsstore.shop", "libfails.co", "saluranwarta.com", "mixedtimes.com",
    "cms.prod.nypr.digital", "www.daily8.com", "www.orangeandbluepress.com", "www.brownstoneworldwide.com",
    "www.primepathimmigrations.com", "cyptea.com", "www.inkl.com", "www.devdiscourse.com", "1375.topnews.com",
    "networktoday.org", "admin.afn.net", "www.ursaclimb.com", "www.ecofer.net", "dnyuz.com", "newsblog.sbs",
    "www.independentsentinel.com", "fullyawaremind.com", "www.usbordernews.com", "conservativenewsbriefing.com",
    "newspub.live", "oafnation.com", "mestios.com", "wallstreetpublication.com", "particle.news",
    "nationalconservativemovement.com", "m.americanhertiageco.com",
    "arutzshevatuzarapost.substack.com", "ground.news", "readtrends.com", "pano.news", "news.hanna-ai.com",
    "evrimagaci.org", "www.newser.com", "ncja.org", "longform.social",
})


def host(url: str) -> str:
    try:
        return (urlsplit(url).hostname or "").lower()
    except ValueError:
        return ""


def check_copy_fields(row: dict, url: str, *, has_columns: bool, earliest: str | None = None) -> list[tuple[str, str]]:
    """Problems with one row's copy columns, as (field, reason). ``has_columns`` is False for a file written
    without the optional columns: then only the defaults apply and nothing is required."""
    if not has_columns:
        return []
    problems: list[tuple[str, str]] = []
    flag = str(row.get("link_is_copy", "")).strip().lower()
    outlet = str(row.get("original_outlet", "")).strip()
    date = str(row.get("original_date", "")).strip()
    if flag not in _YES | _NO:
        problems.append(("link_is_copy", f"{flag[:20]!r} is not yes or no"))
        return problems
    is_copy = flag in _YES
    if is_copy and not outlet:
        problems.append(("original_outlet", "empty: a copied link must name the original outlet "
                                            f"(or {UNKNOWN_OUTLET!r} when the copy does not say)"))
    if not is_copy and host(url) in COPY_HOSTS:
        problems.append(("link_is_copy", f"{host(url)} republishes or summarises other outlets' reports: "
                                         "mark the link as a copy (yes) and name the original outlet"))
    if date:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
            problems.append(("original_date", f"{date[:20]!r} is not a YYYY-MM-DD date"))
        else:
            try:
                dt.date.fromisoformat(date)
            except ValueError:
                problems.append(("original_date", f"{date} is not a real calendar date"))
            else:
                if earliest and date < earliest:
                    problems.append(("original_date", f"{date} is before {earliest}, the start of what it reports"))
    return problems


def is_copy(value) -> bool:
    return str(value or "").strip().lower() in _YES


def describe_link(url: str, link_is_copy, original_outlet: str = "", original_date: str = "") -> str:
    """Words for a link: '' for an original; 'copy on <host> of <outlet>, <date>' for a copy."""
    if not is_copy(link_is_copy):
        return ""
    outlet = (original_outlet or "").strip()
    of = "" if not outlet or outlet == UNKNOWN_OUTLET else f" of {outlet}"
    when = f", {original_date}" if original_date else ""
    note = "" if of else " (original not named)"
    return f"copy on {host(url) or 'another site'}{of}{when}{note}"
