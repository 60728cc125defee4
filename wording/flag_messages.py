"""The integrity checks' findings in the reader's language.

``loaders/ice_checks.py`` writes each finding's reason in English into ``quality_flags.csv``, which stays
English: it is data that scripts read. A Spanish page, note or export renders the same finding from a catalogue
template (``locales/*.toml``, ``flag_message.*``) filled with the fields read back out of the English message:
each pattern below mirrors one of the checks' sentences, so the numbers, dates and files are the finding's own.
A message no pattern reads (a check added later) is shown as written, said to be in English, never dropped.
"""
from __future__ import annotations

import re

from wording import i18n

_D = r"\d{4}-\d{2}-\d{2}"
_N = r"-?[\d,]+(?:\.\d+)?(?:e[+-]?\d+)?"

# One death record named by file, row, date and facility (``loaders.deaths_in_custody``), before its finding.
_ROW = rf"^(?P<file>\S+) row (?P<row>\d+) \((?P<date>{_D}), (?P<facility>.*?)\): "

# A row a parser left out (``ice_tables.sieve``): its sheet, table, row label and date, before the reason.
_CELL = rf"^sheet (?P<sheet>'.*?') table (?P<table>'[^']+') row (?P<row>.+?) \((?P<date>{_D})\): "
# A facility row left out (``ice_detention_stats._read_facilities``): its sheet, row number and name.
_FACILITY = r"^sheet (?P<sheet>'.*?') table 'facilities' row (?P<row>\d+) \((?P<name>.+?)\): "

# (flag, template key, pattern). The order matters only where one sentence starts like another.
PATTERNS: list[tuple[str, str, re.Pattern]] = [(f, k, re.compile(p)) for f, k, p in (
    ("sum-mismatch", "sum_total", rf"^(?P<base>\w+): ICE (?P<ice>{_N}) \+ CBP (?P<cbp>{_N}) != total (?P<total>{_N})$"),
    ("sum-mismatch", "sum_criminality",
     rf"^(?P<base>\w+) (?P<who>ICE\+CBP|ICE|CBP): criminality rows sum to (?P<parts>{_N}), total says (?P<total>{_N})$"),
    ("decreased", "decreased",
     rf"^(?P<sid>\w+) fell from (?P<before>{_N}) \(data date (?P<date>{_D}), release (?P<release>{_D})\) "
     rf"to (?P<after>{_N})$"),
    ("transposed", "swap_mix",
     rf"^ICE/CBP detained (?P<a>{_N}/{_N}) in release (?P<ra>{_D}) and (?P<b>{_N}/{_N}) in (?P<rb>{_D}) swap; "
     r"this release's ICE column has the criminality mix of CBP arrests$"),
    ("transposed", "swap_either",
     rf"^ICE/CBP detained (?P<a>{_N}/{_N}) in release (?P<ra>{_D}) and (?P<b>{_N}/{_N}) in (?P<rb>{_D}) swap; "
     r"one of the two has ICE and CBP transposed$"),
    ("transposed", "inverted_mix",
     r"^ICE column has a smaller convicted share \((?P<ice>[\d.]+%)\) than CBP's \((?P<cbp>[\d.]+%)\): "
     r"ICE and CBP look transposed$"),
    ("facility-mismatch", "facility_docket",
     rf"^facility FYTD ADPs sum to (?P<fac>{_N}), (?P<ratio>[\d.]+%) of the national FYTD ADP (?P<nat>{_N}) "
     rf"\(expected (?P<lo>\d+%)-(?P<hi>\d+%)\); (?P<det>{_N}) detained on the docket date$"),
    ("facility-mismatch", "facility",
     rf"^facility FYTD ADPs sum to (?P<fac>{_N}), (?P<ratio>[\d.]+%) of the national FYTD ADP (?P<nat>{_N}) "
     r"\(expected (?P<lo>\d+%)-(?P<hi>\d+%)\)$"),
    ("fy-adp-mismatch", "fy_adp_hint",
     rf"^(?P<who>ICE\+CBP|ICE|CBP) FY Overall ADP printed (?P<printed>{_N}), but the monthly ADPs weighted by the "
     rf"days each month covers \(the last month counted (?P<start>{_D}) to (?P<end>{_D})\) give (?P<got>{_N}); "
     rf"the printed figure fits if the last month ran (?P<n>\d+) days, to (?P<implied>{_D}), not to {_D}$"),
    ("fy-adp-mismatch", "fy_adp",
     rf"^(?P<who>ICE\+CBP|ICE|CBP) FY Overall ADP printed (?P<printed>{_N}), but the monthly ADPs weighted by the "
     rf"days each month covers \(the last month counted (?P<start>{_D}) to (?P<end>{_D})\) give (?P<got>{_N})$"),
    ("stale-release", "stale_release",
     rf"^the release dated (?P<release>{_D}) holds detention tables that run only to (?P<through>{_D}), "
     r"(?P<gap>\d+) days earlier \(a regular release is 0-7 days after its data\): its figures are older than its "
     r"date says$"),
    ("repeated", "repeated",
     rf"^its headcount \(ICE (?P<ice>{_N}), CBP (?P<cbp>{_N})\) and (?P<fy>\S+) removals \((?P<removals>{_N})\) "
     rf"are exactly those of the earlier release (?P<prev>{_D}) \((?P<file>[^)]*)\): it repeats that release's "
     r"figures rather than adding new ones$"),
    ("stale-header", "header_rows", r"^(?P<n>\d+) rows: the file's header date disagrees with its own data$"),
    ("stale-header", "header_repeat",
     rf"^release (?P<release>{_D}) repeats the IIDS data date (?P<date>{_D}) of release (?P<prev>{_D}) but its "
     rf"figures changed \(detained ICE (?P<before>{_N}) -> (?P<after>{_N})\)$"),
    ("listed-twice", "listed_twice",
     rf"^(?P<facility>.+) is listed (?P<n>\d+) times on the release's facility list with different figures "
     rf"\(FYTD ADP (?P<figures>{_N}(?:, {_N})*)\); every listing is kept as printed and counted in the facility sum$"),
    ("reposted", "reposted",
     r"^byte for byte the same file as (?P<first>\S+) \(sha256 (?P<sha>[0-9a-f]+)…\): read once, as that release, "
     r"and not counted as a release of its own$"),
    ("not-ice-link", "death_link",
     _ROW + r"report link (?P<link>.+) is not an https URL on www\.ice\.gov, and the row's Period "
            r"\((?P<period>[^)]*)\) does not say it comes from press reporting$"),
    ("outside-period", "death_period",
     _ROW + rf"dated (?P<day>{_D}) \(FY(?P<fy>\d{{4}})\), outside the span its Period '(?P<period>[^']*)' stands "
            rf"for \((?P<start>{_D}) to (?P<end>{_D})\)$"),
    ("future-date", "death_future",
     _ROW + rf"dated (?P<day>{_D}), after the day this snapshot was built \((?P<today>{_D})\)$"),
    ("duplicate-record", "death_duplicate", _ROW + r"the same person and date as row (?P<first>\d+) of the same file$"),
    ("unknown-facility", "death_facility",
     _ROW + r"facility (?P<name>.+) is in none of the facility lists held, by name \((?P<lists>[^()]*)\)$"),
    ("table-unread", "table_unread",
     r"^table (?P<table>'[^']+') \((?P<where>[^)]*)\) not read: (?P<detail>.+); the release is kept with its other "
     r"tables and this table's series have no rows from it$"),
    ("corrected", "bond_swap_corrected",
     rf"^(?P<month>\d{{4}}-\d{{2}}): printed 'Total' (?P<total>{_N}) and 'with Bond Posted' (?P<posted>{_N}), share "
     rf"(?P<share>{_N}) = (?P=posted) / (?P=total): the two count rows' labels are swapped \(the share row proves "
     rf"it\); corrected to total (?P=posted), bond posted (?P=total), share (?P<new_share>{_N})$"),
    ("out-of-range", "range_fraction", rf"^(?P<value>{_N}) is a fraction outside 0-1 \(its series declares a fraction\)$"),
    ("out-of-range", "range_count",
     rf"^(?P<value>{_N}) is not a whole count of at least 0 \(its series declares a count\)$"),
    ("out-of-range", "range_part",
     rf"^(?P<value>{_N}) is above its total (?P<total>{_N}) \((?P<total_series>[\w.]+), (?P<total_value>{_N})\)$"),
    ("out-of-range", "range_share",
     rf"^(?P<value>{_N}) is not the ratio of its parts: (?P<part>{_N}) / (?P<whole>{_N}) = (?P<ratio>{_N})$"),
    ("stub-column", "stub_column",
     rf"^table (?P<table>'[^']+'): the (?P<month>\d{{4}}-\d{{2}}) column lies past the table's data-through date "
     rf"(?P<through>{_D}) \(its footnote\) and was dropped \((?P<n>\d+) figures, e\.g\. (?P<example>{_N})\)$"),
    ("column-unread", "column_unplaced",
     r"^table (?P<table>'[^']+') \(sheet (?P<sheet>'.*?')\): column (?P<column>'.*?') \((?P<cell>[A-Z]+\d+)\) is not a "
     r"column this table is read by; its figures are left out and the rest of the table kept$"),
    ("column-unread", "column_missing",
     r"^table (?P<table>'[^']+') \(sheet (?P<sheet>'.*?')\): no fiscal-year column \((?P<column>'.*?')\) in header "
     r"row (?P<row>\d+); the table's fiscal-year-to-date figures have no row from this release and the rest of the "
     r"table is kept$"),
    ("row-dropped", "row_negative", _CELL + rf"figure (?P<value>{_N}) is negative, which no count, average or share can "
                                            r"be; the row is left out and the rest of the release kept$"),
    ("row-dropped", "row_not_number", _CELL + r"figure (?P<value>\S+) is not a finite number in the range a figure can "
                                              r"take; the row is left out and the rest of the release kept$"),
    ("row-dropped", "row_not_whole", _CELL + rf"figure (?P<value>{_N}) is not a whole number, and its series counts "
                                             r"people or events; the row is left out and the rest of the release kept$"),
    ("row-dropped", "row_repeat", _CELL + rf"printed (?P<n>\d+) times with the same figure (?P<value>{_N}); kept once$"),
    ("row-dropped", "row_conflict",
     _CELL + rf"printed (?P<n>\d+) times with different figures \((?P<figures>{_N}(?:, {_N})*)\); the row is left out, "
             r"as no figure of them can be told to be the right one$"),
    ("row-dropped", "facility_text",
     _FACILITY + r"its Level A-D cells hold text that is not a number \((?P<cells>.*)\); the row is left out and the "
                 r"rest of the release kept$"),
    ("row-dropped", "facility_negative",
     _FACILITY + rf"a Level A-D cell is negative \((?P<values>{_N}(?:, {_N})*)\); the row is left out and the rest of "
                 r"the release kept$"),
    ("name-date-overruled", "name_date",
     rf"^file name date '(?P<digits>\d+)' is no date inside fiscal year (?P<fy>\d{{4}})'s release window: the release "
     rf"is dated (?P<release>{_D}) from the workbook itself \((?P<source>[^)]*)\), the earliest day it can have been "
     r"published, not a known publication date$"),
    ("year-from-contents", "year_from_contents",
     r"^the file name says FY(?P<named>\d{4}), but its Detention and Facilities sheets hold FY(?P<fy>\d{4}) "
     r"\((?P<sheets>.*)\): the workbook is read as a FY(?P=fy) release$"),
    ("other-year-footnote", "other_year_footnote",
     rf"^the Footnotes sheet dates the (?P<tables>\w+) tables (?P<date>{_D}), outside fiscal year (?P<fy>\d{{4}}): "
     r"another year's footnote, not used; those tables take another date of the release$"),
    ("stale-header", "header_days",
     rf"^IIDS data date (?P<date>{_D}) is (?P<days>\d+) days before the release date (?P<release>{_D}) "
     r"\(usually 5-14\)$"),
)]

# Words a message carries as codes, named in the reader's language: the check's table and agency.
_BASES = {"detained", "book_ins", "adp"}


def parse(flag: str, message: str) -> tuple[str, dict[str, str]] | None:
    """The template key and fields of a finding's English message, or None if no pattern reads it."""
    for f, key, pat in PATTERNS:
        if f == flag:
            m = pat.match(message or "")
            if m:
                return key, m.groupdict()
    return None


# A field that is a number as the checks print it ("51,234", "48,123.45", "91.2%", "38000/9000", "1.2e+06").
_NUMBER_FIELD = re.compile(rf"^{_N}%?(?:/{_N})?$")
_SWAP = str.maketrans({",": ".", ".": ","})


def explain(flag: str, message: str, lang: str = "en", separators: str = ",") -> str:
    """The finding in ``lang``: the English message itself in English; in another language the catalogue's
    sentence with the message's own figures, or the English said to be English when no pattern reads it.
    With ``separators`` "." its numbers are written "51.234" and "91,2%" (the checks print "51,234", "91.2%")."""
    sep = i18n.check_separators(separators, lang)
    if i18n.check_lang(lang) == "en":
        return message if sep == "," else i18n.localise_numbers(message, sep)
    found = parse(flag, message)
    if found is None:
        return i18n.t("flag_message.unread", lang, message=message)
    key, fields = found
    if sep == ".":
        # Only the figures: dates, releases and file names keep their dots and dashes.
        fields = {k: v.translate(_SWAP) if v and _NUMBER_FIELD.match(v) else v for k, v in fields.items()}
    if "base" in fields:
        fields["base"] = i18n.t(f"flag_message.base_{fields['base']}", lang) if fields["base"] in _BASES \
            else fields["base"]
    if "who" in fields:
        fields["who"] = i18n.t("flag_message.who_both", lang) if fields["who"] == "ICE+CBP" else fields["who"]
    if "sid" in fields:
        sid = fields["sid"]
        fields["sid"] = i18n.series_text(f"ice_detention_stats.{sid}", "title", lang, sid) or sid
    return i18n.t(f"flag_message.{key}", lang, **fields)
