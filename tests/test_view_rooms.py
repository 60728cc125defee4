"""The rooms' view functions (issue 41): the page lays out what ``views`` composes and imports nothing from the
layers below the views. Small inputs built here; no snapshot, no browser."""
from __future__ import annotations

import ast
import datetime as dt
from pathlib import Path

import pandas as pd

from analysis.status import Status
from loaders import events as lev
from tests.conftest import ROOT
from tests.test_events import TODAY, events_file, row
from views import data as vdata
from views import events as ve
from views import releases as vr
from views import sources as vs

BELOW_THE_VIEWS = ("analysis", "figures", "loaders")


def page_imports(path: Path) -> list[str]:
    """Every module a file imports, at the top or inside a function."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
    return found


def test_the_page_imports_nothing_below_the_view_layer():
    files = sorted((ROOT / "page").glob("*.py")) + [ROOT / "dashboard.py"]
    bad = [f"{f.relative_to(ROOT)}: {m}" for f in files for m in page_imports(f)
           if m.split(".")[0] in BELOW_THE_VIEWS]
    assert not bad, bad


def test_the_forbidden_contract_names_the_page_and_the_layers_below_the_views():
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = text.split('source_modules = ["page"]', 1)
    assert len(block) == 2, "no import-linter contract with the page as its source"
    assert block[1].lstrip().startswith('forbidden_modules = ["analysis", "figures", "loaders"]')


def _status(status: str, evidence=(), continues=()) -> Status:
    return Status(source="src", title="A source", publisher="P", last_release_held=dt.date(2026, 1, 5),
                  last_release_known=dt.date(2026, 2, 9), cadence="monthly", cadence_days=31, days_since=10,
                  days_overdue=None, status=status, in_snapshot=True, evidence=list(evidence),
                  continues=list(continues))


def test_a_stopped_source_is_explained_with_its_evidence_and_where_its_figures_continue():
    ev = {"key": "none", "statement": "The agency said it stopped.", "source": "https://example.org/a", "verified": False}
    cont = {"series": "x.y", "title": "Other series", "data_through": "2026-03-01", "key": "none", "note": "Same count."}
    rows = [_status("publication stopped", [ev], [cont]), _status("on schedule", [ev]), _status("no release")]
    notes = vr.stopped_notes(rows, "en")
    assert len(notes) == 1  # on schedule: nothing to explain; no release without evidence: nothing to show
    heading, lines = notes[0]
    assert heading.startswith("A source: ")
    assert "The agency said it stopped." in lines[0] and "https://example.org/a" in lines[0]
    assert lines[-1].startswith("- Other series (") and lines[-1].endswith("Same count.")
    assert vr.stopped_notes(rows, "es")[0][1][-1].endswith("Same count.")


def test_a_cards_status_line_names_the_last_release_and_the_one_held_when_they_differ():
    line = vr.card_status([_status("on schedule")], "src", "en")
    assert "2026-02-09" in line and "2026-01-05" in line
    assert vr.card_status([_status("on schedule")], "other", "en") == ""


def test_the_ledger_opens_on_ice_detention_statistics_when_it_has_them():
    table = pd.DataFrame({"source": ["trac", "trac", "ice_detention_stats", "cbp"]})
    assert vr.ledger_sources(table) == (["trac", "ice_detention_stats", "cbp"], 1)
    assert vr.ledger_sources(table[table["source"] != "ice_detention_stats"]) == (["trac", "cbp"], 0)


def test_a_views_citation_gets_whats_new_only_when_there_is_news():
    assert vr.with_whats_new("Cite me.", "", "en") == "Cite me."
    got = vr.with_whats_new("Cite me.", "News.", "es")
    assert got.startswith("Cite me.\n") and got.endswith("News.") and len(got) > len("Cite me.\nNews.")


def test_the_sources_tables_speak_the_readers_language_and_keep_the_data_english():
    notes = pd.DataFrame({"problem": ["a"], "what the dashboard does": ["b"]})
    assert vs.problems(notes, "en") is notes
    es_table = vs.problems(notes, "es")
    assert list(es_table.columns) != list(notes.columns) and len(es_table) > 1
    flags = pd.DataFrame({"flag": ["gap"], "message": ["a gap"]})
    assert vs.flags_explained(flags, "en") is flags
    explained = vs.flags_explained(flags, "es")
    assert list(explained.columns[:2]) == ["flag", "message"] and len(explained.columns) == 3


def test_the_other_presets_are_every_preset_but_custom_and_the_views_own():
    view = vdata.View(series=["a.b"], preset="since-2025", start=dt.date(2025, 2, 1), end=dt.date(2025, 3, 1))
    others = vdata.other_presets(view)
    names = [name for name, _ in others]
    assert "custom" not in names and view.preset not in names and names
    assert all(v.preset == name and v.start is None and v.end is None and v.series == ["a.b"] for name, v in others)


def test_an_upload_the_validator_cannot_read_comes_back_with_its_reason():
    check = ve.check_upload(b"\x00\x01 not a csv", "bad.csv", None)
    assert check.result is None and check.refused and "bad.csv" in check.refused


def test_an_upload_that_reads_is_checked_row_by_row():
    content = events_file(row(date="2025-03-04", title="A reader's event"), row(date="2025-03-05", title=""))
    check = ve.check_upload(content, "mine.csv", None)
    assert check.refused == "" and len(check.result.accepted) == 1 and len(check.result.rejected) == 1


def test_saving_reports_saved_refused_or_failed_without_raising(tmp_path):
    acc, _ = lev.validate_events(events_file(row(date="2025-03-04", title="Kept")), "u.csv", origin="upload",
                                 today=TODAY)
    setting = lev.UserEventsSetting(path=tmp_path / "user_events.csv", save=True)
    saved = ve.save_events(acc, setting, None)
    assert (saved.outcome, saved.added, saved.total) == ("saved", 1, 1)
    folder = tmp_path / "a_folder.csv"
    folder.mkdir()
    failed = ve.save_events(acc, lev.UserEventsSetting(path=folder, save=True), None)
    assert failed.outcome in ("refused", "failed") and failed.why and str(tmp_path) not in failed.why
