"""The project's own error types.

Every failure a user can cause or meet (a bad download, a changed layout, a bad row) surfaces as a
``LoaderError`` subclass whose message names the source, the file and what failed. Code that calls a
parser may rely on this: anything else escaping a parser is a bug.
"""
from __future__ import annotations

import re

EXCERPT = 80  # characters of a cell an error message may quote
MAX_MESSAGE = 600  # characters of a whole message: a parser quoting a 300 MB cell must not flood stderr
_QUOTED = re.compile(r"'[^'\n]{%d,}'?|\"[^\"\n]{%d,}\"?" % (EXCERPT + 1, EXCERPT + 1))


def excerpt(value, n: int = EXCERPT) -> str:
    """``repr`` of a cell or text, cut to ``n`` characters with the full length said."""
    r = repr(value) if not isinstance(value, str) else repr(value)
    return r if len(r) <= n else r[: n - 1] + "…" + f" ({len(r):,} characters)"


def _bounded(message: str) -> str:
    """Long quoted strings cut to excerpts, and the whole message to ``MAX_MESSAGE``, whoever wrote it."""
    message = str(message)
    if len(message) <= EXCERPT:
        return message
    message = _QUOTED.sub(lambda m: m.group(0)[:EXCERPT] + "…" + m.group(0)[0] + f" ({len(m.group(0)):,} characters)",
                          message)
    return message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + f"… (message cut at {MAX_MESSAGE} characters)"


class LoaderError(Exception):
    """Base class: something about a source's data could not be fetched, parsed or validated."""

    def __init__(self, message: str, *, source: str | None = None, file: str | None = None):
        self.source = source
        self.file = file
        message = _bounded(message)
        where = ", ".join(p for p in (f"source {source}" if source else "", f"file {file}" if file else "") if p)
        super().__init__(f"[{where}] {message}" if where else message)


class FetchError(LoaderError):
    """A download failed: HTTP error after retries, timeout, size cap, HTML served instead of the file..."""


class ParseError(LoaderError):
    """A raw file did not have the layout its parser expects (missing sheet, table, column, bad value)."""


class ValidationError(LoaderError):
    """A parsed frame broke the tidy-shape rules; nothing was written."""


class LockedError(LoaderError):
    """Another update is already writing the snapshot."""
