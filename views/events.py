"""The events a chart can draw, as the page offers them: the bundled events and the reader's local file (with the
rows refused and why), a file uploaded for the visit (checked row by row), saving its rows when the deployment
allows, and the categories' names for the picker. The checks and the file are the data side's
(``loaders.events``, read through the module so a test can replace one of its functions); this module turns
their outcomes into what the page shows."""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from figures.events import category_label
from loaders import data as cdata
from loaders import events as lev
from loaders.errors import LoaderError

from .data import Snapshot

EventsSetting = lev.UserEventsSetting
"""Where this deployment keeps readers' saved events and whether it saves at all: the page holds it (and says
why not), so the type is part of the view layer's interface."""


def events_setting(server_address) -> EventsSetting:
    """This deployment's events setting (its environment, and whether the server listens beyond this computer)."""
    return lev.user_events_setting(server_address=server_address)


def bundled_events(snap: Snapshot) -> pd.DataFrame:
    """The events the snapshot carries (checked by the rebuild that wrote it)."""
    if snap.events is None:
        raise cdata.SnapshotError("this snapshot holds no events (built before they travelled inside it): run "
                                  "`python -m loaders rebuild`")
    return snap.events


def checked_events(snap: Snapshot, user_path: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the bundled events and the local file's, the rows of the local file that were not loaded)."""
    return lev.load_events_checked(user_path=user_path, bundled=bundled_events(snap))


def with_uploaded(base: pd.DataFrame, uploaded: pd.DataFrame) -> pd.DataFrame:
    """The events in force: ``base`` then the rows of an uploaded file (a repeat of an earlier event left out)."""
    return lev.merge_events(base, uploaded)[0]


def upload_limits() -> dict[str, int]:
    """The upload's limits as the page words them: rows, and size in kB."""
    return {"rows": lev.UPLOAD_MAX_ROWS, "kb": lev.UPLOAD_MAX_BYTES // 1000}


def category_format(lang: str):
    """How the category picker shows a category: English shows the codes as before, another language names."""
    return (lambda c: category_label(c, lang)) if lang != "en" else str


@dataclass(frozen=True)
class UploadCheck:
    """An uploaded file after the checks: ``result`` (``loaders.events.UploadResult``), or None with the
    validator's own one-line reason (``refused``) when it could not read the file at all."""
    result: lev.UploadResult | None
    refused: str = ""


def check_upload(content: bytes, name: str, existing: pd.DataFrame) -> UploadCheck:
    """Check an uploaded events file against the events in force. Any fault other than the validator's refusal
    is raised: it is the page's, and its text may name server internals."""
    try:
        return UploadCheck(lev.check_upload(content, name, existing))
    except LoaderError as e:
        return UploadCheck(None, str(e))


@dataclass(frozen=True)
class Saved:
    """What saving uploaded rows to the local events file did: ``added`` of ``total`` rows now held, or why
    nothing was written: ``refused`` (limits, a busy lock, rows that would be lost) or ``failed`` (the disk),
    with the reason in ``why``."""
    outcome: str  # "saved", "refused" or "failed"
    added: int = 0
    total: int = 0
    why: str = ""


def save_events(accepted: pd.DataFrame, setting: EventsSetting, existing: pd.DataFrame) -> Saved:
    """Keep the uploaded rows ``accepted`` in the local events file of ``setting``; nothing is written when refused."""
    try:
        done = lev.save_user_events(accepted, setting.path, bundled=existing)
    except lev.SaveRefused as e:
        return Saved("refused", why=e.args[0].split('] ', 1)[-1])
    except OSError as e:
        return Saved("failed", why=str(e.strerror or e))
    return Saved("saved", done.added, done.total)
