"""What every ``python -m charts`` command and the static site read first: the snapshot, with the events and
the reported figures that travel inside it (and the local events file of the default snapshot).

Its own module because the command line (``charts.__main__``) and the site builder (``charts.site``),
which the command line runs, both start from it.
"""
from __future__ import annotations

import sys
from pathlib import Path

from loaders import data as cdata
from loaders import events as lev
from wording import i18n


def load_context(data_dir: Path, lang: str = "en"):
    snap = cdata.load_snapshot(data_dir)
    events = None
    # The bundled events and the reported figures travel inside the snapshot, as the rebuild checked them. A
    # snapshot built before they did draws none, and says so: a chart must never lose them without a word.
    if snap.events is not None:
        # The page's local events file: the deployment's (DASHBOARD_EVENTS_FILE) for the default snapshot.
        default_data = data_dir.resolve() == cdata.DATA.resolve()
        user = lev.user_events_setting().path if default_data else data_dir / "user_events.csv"
        events, refused = lev.load_events_checked(user_path=user, bundled=snap.events)
        for r in refused.itertuples():
            print(i18n.t("cli.note", lang, message=i18n.t("cli.events_refused", lang, file=r.file, row=r.row,
                                                          field=r.field, reason=r.reason)), file=sys.stderr)
    else:
        print(i18n.t("cli.note", lang, message=i18n.t("cli.no_events", lang, path=data_dir)), file=sys.stderr)
    if snap.reported is None:
        print(i18n.t("cli.note", lang, message=i18n.t("cli.no_reported", lang, path=data_dir)), file=sys.stderr)
    return snap, events, snap.reported
