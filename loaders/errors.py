"""The project's own error types.

Every failure a user can cause or meet (a bad download, a changed layout, a bad row) surfaces as a
``LoaderError`` subclass whose message names the source, the file and what failed. Code that calls a
parser may rely on this: anything else escaping a parser is a bug.
"""
from __future__ import annotations

import contextlib
import errno
import re

EXCERPT = 80  # characters of a cell an error message may quote
MAX_MESSAGE = 600  # characters of a whole message: a parser quoting a 300 MB cell must not flood stderr
# A quote opens a quoted string only where no letter or digit comes before it: the apostrophe of "source's" or
# "don't" is not a quote, and treating it as one cut messages before their advice (issue 32).
_QUOTED = re.compile(r"(?<!\w)'[^'\n]{%d,}'?|(?<!\w)\"[^\"\n]{%d,}\"?" % (EXCERPT + 1, EXCERPT + 1))
TAIL = 200  # characters kept from the end of a message cut to MAX_MESSAGE: the advice is at the end


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
    if len(message) <= MAX_MESSAGE:
        return message
    # the head says what failed and the tail what to do: the middle goes
    cut = len(message) - (MAX_MESSAGE - TAIL)
    return message[:MAX_MESSAGE - 2 * TAIL] + f" … ({cut:,} characters cut) … " + message[-TAIL:]


@contextlib.contextmanager
def naming(path):
    """An ``OSError`` raised inside names ``path`` when it named no file: a full disk used to print only
    "[Errno 28] No space left on device", not which file could not be written."""
    try:
        yield
    except OSError as e:
        if e.filename is None:
            e.filename = str(path)
        raise


_OS_ADVICE = {
    errno.ENOSPC: "the disk is full: free some space there and run the command again",
    errno.EDQUOT: "the disk quota is used up: free some space there and run the command again",
    errno.EIO: "the disk reported an input/output error: check the disk (or copy the files elsewhere) and run "
               "the command again",
    errno.EROFS: "the folder is on a read-only file system: write the snapshot somewhere writable",
    errno.EACCES: "permission denied: check who owns the folder, or write somewhere you may",
    errno.EPERM: "permission denied: check who owns the folder, or write somewhere you may",
}


def os_message(e: OSError) -> str:
    """A system error as one line naming the file (or saying none was named) and what to do."""
    where = str(e.filename) if e.filename is not None else "(no file named by the system)"
    what = e.strerror or str(e)
    code = errno.errorcode.get(e.errno or 0, "")
    advice = _OS_ADVICE.get(e.errno or 0, "")
    return f"{where}: {what}" + (f" ({code})" if code else "") + (f"; {advice}" if advice else "")


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
