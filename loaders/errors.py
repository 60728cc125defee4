"""The project's own error types.

Every failure a user can cause or meet (a bad download, a changed layout, a bad row) surfaces as a
``LoaderError`` subclass whose message names the source, the file and what failed. Code that calls a
parser may rely on this: anything else escaping a parser is a bug.
"""
from __future__ import annotations


class LoaderError(Exception):
    """Base class: something about a source's data could not be fetched, parsed or validated."""

    def __init__(self, message: str, *, source: str | None = None, file: str | None = None):
        self.source = source
        self.file = file
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
