"""Plain-words notes for the Sources and methods page: what each kind of figure is, and the known problems
in the data with what the dashboard does about each. Kept here, as data, so the page stays thin and the
README can point to one place."""

import tomllib

from wording.i18n import LOCALES, CatalogueError, check_lang

DEFINITIONS = (
    ("Arrests are not book-ins",
     "An ICE administrative arrest is counted when ERO takes someone into custody on an immigration charge. A "
     "book-in is counted when someone enters an ICE detention facility. Many arrests lead to a book-in, but "
     "not all (some people are released or removed quickly), and some book-ins follow arrests by other "
     "agencies. ICE's biweekly workbooks publish book-ins, not arrests."),
    ("ICE is not CBP",
     "People in ICE detention were arrested either by ICE inside the country or by CBP (Border Patrol or the "
     "Office of Field Operations) at or near the border. Series say which arresting agency they count."),
    ("Removals are not returns",
     "A removal is a compelled departure under an order, with legal consequences for re-entry. A return is a "
     "departure without an order. DHS tables that publish both are kept as separate series."),
    ("A daily population is not a count of people",
     "Average daily population (ADP) is the mean number held per day over a period; a snapshot is the number "
     "held on one day. Neither counts how many different people passed through."),
    ("Events are not people",
     "Markers on the chart are dated events, not figures. A change after an event is a coincidence in time; "
     "the event study says so."),
)

QUALITY_NOTES = (
    ("ICE's 2025-02-27 release swapped the ICE and CBP columns of the currently-detained table",
     "The integrity check compares consecutive releases and flags an ICE/CBP swap pattern wherever it "
     "appears; flagged points are marked on the chart and listed below. Values are not altered."),
    ("ICE's 2025-02-14 release kept an old data date in its header",
     "Each release's header date is compared with its data pull date; a mismatch is flagged 'stale-header'."),
    ("ICE's 2025-07-17 release: facility figures do not add up to the national total",
     "Facility averages are summed and compared with the national figure; a large gap is flagged."),
    ("The month holding the data pull date is partial",
     "Such months are flagged 'partial' and drawn with an open circle; per-day values divide by the days "
     "actually covered, not the whole month."),
    ("Months not yet reached appear as zeros in ICE's workbooks and as nulls in TRAC's tables",
     "They are treated as missing, never as zero."),
    ("TRAC's book-in table has no September 2024 row",
     "The gap is kept: the line breaks there rather than inventing a value."),
    ("Figures change between releases until the fiscal year is locked",
     "Every release is kept. The default view takes each period from the latest release; 'as published on' "
     "shows what a reader saw on a given date, and the revisions table lists every change."),
    ("DHS rounds its monthly tables to the nearest 10",
     "Series from those tables say so in their definitions and carry the 'rounded' flag."),
    ("Some arrest series were read off published charts",
     "Values digitised from a figure are flagged 'digitised' and labelled so; they are checked against "
     "independent series where periods overlap."),
    ("Reported figures are claims, not data",
     "Figures from officials and the press are drawn as dashed period markers, never joined to official "
     "series, each with who reported it and a source-quality tier."),
    ("Events and reported figures cite the original, never a copy",
     "A row's link is the original publisher's own page. Where only a republished copy or an aggregator's "
     "summary could be read, that copy is kept for checking but never shown as the source; if the original's "
     "address was not found, the row says there is no link and cites the outlet, title and date."),
)

# Where two sources measure the same thing: how they differ, so a reader can put them side by side.
COMPARISONS = (
    ("People detained: ICE workbook, TRAC, DDP",
     "ICE's workbook gives the headcount on its data-pull date. TRAC republishes the same numbers dated a few "
     "days later (its snapshot date). DDP's daily counts are sums over facilities of people held, from ICE's "
     "records; they track ICE's snapshots within about half a percent."),
    ("ICE arrests vs ICE book-ins",
     "DDP's arrest series count administrative arrests from ICE's records (after dropping repeat records). "
     "ICE's workbooks and TRAC count initial book-ins into detention after an ICE arrest: fewer than arrests "
     "when people are released or removed without detention, and including pick-ups from jails."),
    ("ERO arrests: DHS monthly tables vs DDP",
     "DHS's monthly tables give ERO administrative arrests rounded to 10 through August 2024; DDP's counts come "
     "from later FOIA releases of record-level data and run to 2026. Where both exist they agree within a few "
     "percent."),
    ("Border encounters: CBP vs DHS",
     "CBP publishes exact monthly encounters and revises them until the fiscal year closes; DHS's tables round "
     "to 10 and may carry an earlier or later pull, so they differ by a few encounters."),
)


def texts(name: str, lang: str = "en") -> tuple[tuple[str, str], ...]:
    """``DEFINITIONS``, ``QUALITY_NOTES`` or ``COMPARISONS`` in ``lang``: the English above, or the Spanish of
    ``locales/methods.es.toml`` (same order, each entry naming the English title it translates; a mismatch is
    an error naming the entry, so a new English note cannot go out untranslated)."""
    english = globals()[name]
    if lang == "en":
        return english

    path = LOCALES / f"methods.{check_lang(lang)}.toml"
    with open(path, "rb") as fh:
        rows = tomllib.load(fh).get(name, [])
    if [r.get("en") for r in rows] != [t for t, _ in english]:
        raise CatalogueError(f"{path}: the {name} entries do not match wording/methods.py {name} one for one")
    return tuple((r["title"], r["text"]) for r in rows)
