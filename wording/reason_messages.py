"""Why an uploaded (or local) events row was not taken, in the reader's language.

``loaders/events.py`` (and ``loaders/copies.py`` for a copied link's columns) writes each reason in English (the rejected
rows are data: the CSV a script reads and the
error a command prints stay English). The page in another language renders a reason from the catalogue's
sentence for its kind (``locales/*.toml``, ``reason.*``), filled with the fields read back out of the English;
each pattern mirrors one of the validator's sentences. A reason no pattern reads is shown as written and said
to be in English.
"""
from __future__ import annotations

import re

import pandas as pd

from wording import i18n

_V = r"(?P<value>'.*'|\".*\")"  # loaders.events._show: the value quoted as Python's repr does

PATTERNS: list[tuple[str, re.Pattern]] = [(k, re.compile(p)) for k, p in (
    ("fields", r"^has (?P<n>\d+) fields; the header has (?P<header>\d+)$"),
    ("not_bool", rf"^{_V} is not true or false \(or blank\)$"),
    ("one_default", r"^only one event can be the event study's default; row (?P<row>\d+) already is$"),
    ("duplicate", r"^duplicate of row (?P<row>\d+) \(same date and title\)$"),
    ("id_used", r"^id (?P<id>'.*') already used on row (?P<row>\d+)$"),
    ("same_as_other", r"^same date and title as (?P<origin>\w+) event on row (?P<row>\d+)$"),
    ("id_used_other", r"^id (?P<id>'.*') already used by (?P<origin>\w+) event on row (?P<row>\d+)$"),
    ("too_long", r"^(?P<n>\d+) characters; the limit is (?P<limit>\d+)$"),
    ("formula", r"^starts with (?P<value>'.'|\".\"), which spreadsheets treat as a formula$"),
    ("id_chars", r"^use letters, digits, '\.', '_' and '-' only$"),
    ("not_one_of", rf"^{_V} is not one of (?P<options>[\w, -]+)$"),
    ("empty", r"^empty$"),
    ("no_source", r"^empty: every event needs a source$"),
    ("not_iso", rf"^{_V} is not an ISO date \(YYYY-MM-DD\)$"),
    ("not_real_date", r"^(?P<value>\d{4}-\d{2}-\d{2}) is not a real calendar date$"),
    ("before", r"^(?P<value>\d{4}-\d{2}-\d{2}) is before (?P<earliest>\d{4}-\d{2}-\d{2})$"),
    ("future", r"^(?P<value>\d{4}-\d{2}-\d{2}) is more than (?P<days>\d+) days in the future$"),
    ("no_link", r"^empty: every event needs a source link$"),
    ("spaces", r"^contains spaces$"),
    ("bad_url", r"^not a valid URL \((?P<why>.*)\)$"),
    ("scheme", rf"^scheme {_V} not allowed; use an http\(s\) link$"),
    ("no_host", r"^no host name$"),
    ("user_name", r"^has a user name before '@', which can disguise the real host; link to the page itself$"),
    ("port", rf"^{_V} has a port that is not a number from 0 to 65535$"),
    # The citation columns (loaders.copies.check_copy_fields): link_status, original_outlet, original_date, read_at,
    # and an older file's link_is_copy.
    ("not_yes_no", rf"^{_V} is not yes or no$"),
    ("not_status", rf"^{_V} is not 'original' or 'not found'$"),
    ("no_outlet", r"^empty: a row without the original's address must name its outlet \(or (?P<unknown>'.*'|\".*\") "
                  r"when the copy does not say\)$"),
    ("never_source", r"^never shown as a source \((?P<host>[^:\s]+): (?P<why>.*)\): cite the original's own address, "
                     r"or leave (?P<field>\w+) empty with link_status 'not found' and keep this address in read_at$"),
    ("url_not_empty", r"^must be empty when link_status is 'not found' \(the original's address was not established\); "
                      r"a copy's address goes in read_at$"),
    ("read_at_same", r"^the same address as the source: read_at is only for a copy$"),
    ("not_ymd", rf"^{_V} is not a YYYY-MM-DD date$"),
    ("before_start", r"^(?P<value>\d{4}-\d{2}-\d{2}) is before (?P<earliest>\d{4}-\d{2}-\d{2}), the start of what "
                     r"it reports$"),
    ("invisible", r"^contains (?P<kind>[\w -]+?) (?P<code>U\+[0-9A-F]{4,6})(?: \((?P<name>[^)]*)\))? at character "
                  r"(?P<at>\d+)$"),
)]

# The kinds of character ``loaders.events._invisible`` names, in the reader's language.
CHAR_KINDS = {"control character": "control", "bidirectional-control character": "bidi", "tag character": "tag",
              "line or paragraph separator": "separator", "invisible character": "invisible",
              "private-use character": "private", "unassigned code point": "unassigned"}


def explain(reason: str, lang: str = "en") -> str:
    if i18n.check_lang(lang) == "en":
        return reason
    for key, pat in PATTERNS:
        m = pat.match(reason or "")
        if m:
            fields = {k: (v or "") for k, v in m.groupdict().items()}
            if key == "invisible":
                kind = CHAR_KINDS.get(fields["kind"])
                if kind is None:
                    break
                fields["kind"] = i18n.t(f"reason.char_{kind}", lang)
                fields["name"] = f" ({fields['name']})" if fields["name"] else ""
            if "origin" in fields:
                fields["origin"] = i18n.t(f"reason.origin_{fields['origin']}", lang) \
                    if i18n.has(f"reason.origin_{fields['origin']}", lang) else fields["origin"]
            return i18n.t(f"reason.{key}", lang, **fields)
    return i18n.t("reason.unread", lang, reason=reason)


def rejected_in(rejected: pd.DataFrame, lang: str = "en") -> pd.DataFrame:
    """The rejected rows as the page shows them: in English as they are; otherwise with the headers and each
    reason in ``lang`` (the field names stay the file's column names)."""
    if i18n.check_lang(lang) == "en" or "reason" not in rejected:
        return rejected
    out = rejected.assign(reason=[explain(r, lang) for r in rejected["reason"]])
    return out.rename(columns={c: i18n.t(f"reason.col_{c}", lang) for c in out.columns
                               if i18n.has(f"reason.col_{c}", lang)})
