"""Readers' own events: the local file's lock, merge and limits, the deployment setting, and the text checks
that keep invisible or look-alike text out of every events file (issue 14, items 3 and 11)."""
from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys
import textwrap
import threading

import pandas as pd
import pytest

from loaders import events as lev
from loaders.errors import ValidationError
from tests.conftest import ROOT, open_trend_panels
from tests.test_events import TODAY, events_file, row


def rows_frame(prefix: str, n: int, start: int = 0) -> pd.DataFrame:
    """``n`` valid, distinct events (blank ids, as most readers' files have), validated as an upload."""
    content = events_file(*(row(date=f"2025-{1 + (i % 12):02d}-{1 + (i % 28):02d}", title=f"{prefix} event {i}")
                            for i in range(start, start + n)))
    acc, rej = lev.validate_events(content, "upload.csv", max_rows=max(n, 1), origin="upload", today=TODAY)
    assert rej.empty and len(acc) == n
    return acc


def saved_titles(path) -> list[str]:
    acc, rej = lev.validate_events(path.read_bytes(), path.name, origin="user")
    assert rej.empty, rej.to_dict("records")
    return acc["title"].tolist()


# ----------------------------------------------------------------------------------- lock and merge

@pytest.mark.slow
def test_three_threads_saving_40_rows_each_keep_all_120(tmp_path):
    """The lost update of issue 14: without the lock, three threads kept 46 of 120 rows."""
    path = tmp_path / "user_events.csv"
    barrier = threading.Barrier(3)
    errors: list[BaseException] = []

    def saver(name: str) -> None:
        frame = rows_frame(name, 40)
        barrier.wait()
        try:
            for i in range(40):  # one save per row: 120 read-modify-write cycles racing for the file
                lev.save_user_events(frame.iloc[[i]], path, timeout=60)
        except BaseException as exc:  # reported below; a thread's exception is otherwise lost
            errors.append(exc)

    threads = [threading.Thread(target=saver, args=(n,)) for n in ("alpha", "beta", "gamma")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    titles = saved_titles(path)
    assert len(titles) == 120 == len(set(titles))
    assert not list(tmp_path.glob("*.part"))


SAVER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {root!r})
    from loaders import events as lev
    from tests.test_user_events import rows_frame
    name, path, go = sys.argv[1], sys.argv[2], sys.argv[3]
    frame = rows_frame(name, 40)
    import pathlib
    while not pathlib.Path(go).exists():  # start together
        time.sleep(0.005)
    for i in range(40):
        lev.save_user_events(frame.iloc[[i]], path, timeout=60)
""")


@pytest.mark.slow
def test_three_processes_saving_40_rows_each_keep_all_120(tmp_path):
    path = tmp_path / "user_events.csv"
    go = tmp_path / "go"
    script = SAVER.format(root=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-c", script, name, str(path), str(go)], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for name in ("alpha", "beta", "gamma")]
    go.touch()
    for p in procs:
        out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err
    titles = saved_titles(path)
    assert len(titles) == 120 == len(set(titles))


def test_a_save_keeps_the_rows_already_there_and_skips_repeats(tmp_path):
    path = tmp_path / "user_events.csv"
    first = lev.save_user_events(rows_frame("a", 3), path)
    assert (first.added, first.repeated, first.total) == (3, 0, 3)
    again = lev.save_user_events(pd.concat([rows_frame("a", 3), rows_frame("b", 2)], ignore_index=True), path)
    assert (again.added, again.repeated, again.total) == (2, 3, 5)
    assert sorted(saved_titles(path)) == sorted([f"a event {i}" for i in range(3)] + ["b event 0", "b event 1"])


def test_rows_that_repeat_a_bundled_event_are_not_saved(tmp_path):
    bundled = lev.read_bundled()
    first = bundled.iloc[0]
    upload, rej = lev.validate_events(events_file(
        row(date=first["date"].strftime("%Y-%m-%d"), title=first["title"].upper(), category=first["category"]),
        row(title="Mine only")), "u.csv", today=TODAY)
    assert rej.empty
    path = tmp_path / "user_events.csv"
    res = lev.save_user_events(upload, path, bundled=bundled)
    assert (res.added, res.repeated) == (1, 1)
    assert saved_titles(path) == ["Mine only"]
    # ...so the next load has nothing to refuse.
    merged, refused = lev.load_events_checked(lev.BUNDLED, path)
    assert refused.empty and "Mine only" in set(merged["title"])


def test_a_busy_lock_refuses_with_a_clear_message_and_writes_nothing(tmp_path):
    from filelock import FileLock
    path = tmp_path / "user_events.csv"
    lev.save_user_events(rows_frame("a", 2), path)
    before = path.read_bytes()
    with FileLock(str(path) + ".lock"):
        result: list = []
        t = threading.Thread(target=lambda: result.append(_refusal(lambda: lev.save_user_events(
            rows_frame("b", 1), path, timeout=0.2))))
        t.start()
        t.join(10)
    assert "another save to the local events file is still running" in result[0]
    assert path.read_bytes() == before


def _refusal(call) -> str:
    with pytest.raises(lev.SaveRefused) as err:
        call()
    return str(err.value)


# ----------------------------------------------------------------------------------------- limits

def test_three_saves_of_200_then_a_fourth_are_refused_before_the_limit_is_crossed(tmp_path):
    """Issue 14: three saves of 200 rows made a 600-row file that every later load refused and the fourth save
    crashed on. Now the third save is refused whole (the file would hold 600), and the file still loads."""
    path = tmp_path / "user_events.csv"
    assert lev.save_user_events(rows_frame("one", 200), path).total == 200
    assert lev.save_user_events(rows_frame("two", 200), path).total == 400
    before = path.read_bytes()
    msg = _refusal(lambda: lev.save_user_events(rows_frame("three", 200), path))
    assert "would make the local events file 600 rows; the limit is 500 (it holds 400). Nothing was saved." in msg
    assert path.read_bytes() == before
    merged, refused = lev.load_events_checked(lev.BUNDLED, path)
    assert refused.empty and (merged["origin"] == "user").sum() == 400
    # What still fits is taken.
    assert lev.save_user_events(rows_frame("three", 100), path).total == 500
    assert "limit is 500" in _refusal(lambda: lev.save_user_events(rows_frame("four", 1), path))


def test_the_byte_limit_is_checked_before_writing(tmp_path):
    path = tmp_path / "user_events.csv"
    frame = rows_frame("a", 20)
    msg = _refusal(lambda: lev.save_user_events(frame, path, max_bytes=1500))
    assert "bytes; the limit is 1,500. Nothing was saved." in msg
    assert not path.exists()


def test_a_local_file_already_over_the_limit_is_reported_and_never_rewritten(tmp_path):
    path = tmp_path / "user_events.csv"
    path.write_bytes(events_file(*(row(title=f"Old {i}") for i in range(501))))
    before = path.read_bytes()
    merged, refused = lev.load_events_checked(lev.BUNDLED, path)
    assert (merged["origin"] == "bundled").all()
    assert refused[["row", "field"]].values.tolist() == [[0, "(file)"]]
    assert "501 event rows; the limit is 500" in refused["reason"].iloc[0]
    msg = _refusal(lambda: lev.save_user_events(rows_frame("new", 1), path))
    assert "cannot be read" in msg and "501 event rows; the limit is 500" in msg and "Nothing was saved" in msg
    assert path.read_bytes() == before


def test_a_local_file_with_refused_rows_is_not_rewritten(tmp_path):
    path = tmp_path / "user_events.csv"
    path.write_bytes(events_file(row(title="Fine"), row(title="Broken", date="2025-02-30")))
    before = path.read_bytes()
    msg = _refusal(lambda: lev.save_user_events(rows_frame("new", 1), path))
    assert "1 row(s) that cannot be loaded (row 3)" in msg and "so that saving does not drop them" in msg
    assert path.read_bytes() == before


def test_unvalidated_rows_are_never_written(tmp_path):
    bad = rows_frame("a", 1).assign(title="=cmd|' /C calc'!A0")
    path = tmp_path / "user_events.csv"
    msg = _refusal(lambda: lev.save_user_events(bad, path))
    assert "do not pass the checks" in msg and "formula" in msg
    assert not path.exists()


@pytest.mark.parametrize("make", ["dir", "fifo"])
def test_a_local_file_that_is_not_a_regular_file_is_reported_not_read(tmp_path, make):
    import os
    path = tmp_path / "user_events.csv"
    os.mkfifo(path) if make == "fifo" else path.mkdir()  # a FIFO would block the page forever if opened
    merged, refused = lev.load_events_checked(lev.BUNDLED, path)
    assert len(merged) == len(lev.read_bundled())
    assert "not a regular file" in refused["reason"].iloc[0]
    assert "not a regular file" in _refusal(lambda: lev.save_user_events(rows_frame("a", 1), path))


def test_messages_never_name_the_server_folder(tmp_path):
    path = tmp_path / "deep" / "user_events.csv"
    path.parent.mkdir()
    path.write_bytes(events_file(*(row(title=f"Old {i}") for i in range(501))))
    _, refused = lev.load_events_checked(lev.BUNDLED, path)
    msg = _refusal(lambda: lev.save_user_events(rows_frame("new", 1), path))
    for text in [msg, *refused.astype(str).to_numpy().ravel()]:
        assert str(tmp_path) not in text


# ---------------------------------------------------------------------------------- the setting

@pytest.mark.parametrize("env, save, words", [
    ({}, True, ""),
    ({"DASHBOARD_EVENTS_SAVE": "1"}, True, ""),
    ({"DASHBOARD_EVENTS_SAVE": "0"}, False, "turned off on this deployment"),
    ({"DASHBOARD_EVENTS_SAVE": "off"}, False, "turned off on this deployment"),
    ({"DASHBOARD_PUBLIC": "1"}, False, "public deployment"),
    ({"DASHBOARD_PUBLIC": "1", "DASHBOARD_EVENTS_SAVE": "1"}, False, "public deployment"),
    ({"DASHBOARD_PUBLIC": "0"}, True, ""),
    ({"DASHBOARD_EVENTS_SAVE": "maybe"}, False, "not understood"),
])
def test_the_setting_turns_saving_on_and_off(env, save, words):
    s = lev.user_events_setting(env)
    assert s.save is save and words in s.why_not
    assert s.path == lev.USER


def test_the_setting_moves_the_file_per_deployment(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert lev.user_events_setting({"DASHBOARD_EVENTS_FILE": "site-a/events.csv"}).path == \
        tmp_path / "site-a" / "events.csv"
    assert lev.user_events_setting({"DASHBOARD_EVENTS_FILE": str(tmp_path / "b.csv")}).path == tmp_path / "b.csv"


# ------------------------------------------------------------------------------------ text checks

@pytest.mark.parametrize("text, kind, code", [
    ("Zero\u200bwidth", "invisible character", "U+200B"),
    ("Word\u200djoiner", "invisible character", "U+200D"),
    ("BOM\ufeffinside", "invisible character", "U+FEFF"),
    ("Soft\u00adhyphen", "invisible character", "U+00AD"),
    ("Arabic letter mark \u061c", "bidirectional-control character", "U+061C"),
    ("abc\u202edcba", "bidirectional-control character", "U+202E"),
    ("isolate \u2067x\u2069", "bidirectional-control character", "U+2067"),
    ("left-to-right \u200e mark", "bidirectional-control character", "U+200E"),
    ("Tag \U000e0041\U000e0042", "tag character", "U+E0041"),
    ("Line\u2028separator", "line or paragraph separator", "U+2028"),
    ("Para\u2029separator", "line or paragraph separator", "U+2029"),
    ("Hangul filler \u3164", "invisible character", "U+3164"),
    ("Private \ue000 use", "private-use character", "U+E000"),
    ("Bell\x07", "control character", "U+0007"),
])
@pytest.mark.parametrize("field", ["title", "description", "source_name"])
def test_invisible_bidi_and_tag_characters_are_refused_naming_row_and_field(text, kind, code, field):
    acc, rej = lev.validate_events(events_file(row(title="Good"), row(**{field: text})), "u.csv", today=TODAY)
    assert acc["title"].tolist() == ["Good"]
    hit = rej[(rej["row"] == 3) & (rej["field"] == field)]
    assert len(hit) == 1, rej.to_dict("records")
    reason = hit["reason"].iloc[0]
    assert f"contains {kind} {code}" in reason and "at character" in reason


def test_ordinary_non_ascii_text_is_accepted():
    text = "Café in São Paulo; Ñandú, Zürich, Ελλάδα, 東京, emoji \u2764\ufe0f, non-breaking\u00a0space"
    acc, rej = lev.validate_events(events_file(row(title=text[:120], description=text)), "u.csv", today=TODAY)
    assert rej.empty and len(acc) == 1


def test_a_bundled_title_plus_a_zero_width_space_is_caught_as_a_duplicate():
    bundled = lev.read_bundled()
    first = bundled.iloc[0]
    date = first["date"].strftime("%Y-%m-%d")
    # In one file: the copy is refused for the character and named as a duplicate.
    content = events_file(row(date=date, title=first["title"], category=first["category"]),
                          row(date=date, title=first["title"] + "\u200b", category=first["category"]))
    _, rej = lev.validate_events(content, "u.csv", today=TODAY)
    reasons = dict(zip(rej["field"] + "@" + rej["row"].astype(str), rej["reason"]))
    assert "duplicate of row 2" in reasons["title@3"] or any("duplicate of row 2" in r for r in rej["reason"])
    assert any("invisible character U+200B" in r for r in rej["reason"])
    # Against the bundled file, whatever path the row came by (an older local file, another tool):
    sneaky = bundled.iloc[[0]].assign(title=first["title"] + "\u200b", id="sneaky", origin="user")
    _, dupes = lev.merge_events(bundled, sneaky)
    assert dupes["field"].tolist() == ["title"] and "same date and title as bundled event" in dupes["reason"].iloc[0]


def test_titles_are_compared_after_nfkc_normalisation():
    bundled = lev.read_bundled()
    first = bundled.iloc[0]
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in first["title"])  # full-width forms
    assert wide != first["title"]
    upload, rej = lev.validate_events(events_file(
        row(date=first["date"].strftime("%Y-%m-%d"), title=wide[:120], category=first["category"])),
        "u.csv", today=TODAY)
    assert rej.empty  # full-width letters are visible: accepted as text...
    res = lev.check_upload(events_file(row(date=first["date"].strftime("%Y-%m-%d"), title=wide[:120],
                                           category=first["category"])), "u.csv", bundled)
    assert res.accepted.empty  # ...and recognised as the bundled event they copy
    assert "same date and title as bundled event" in res.rejected["reason"].iloc[0]


def test_text_is_stored_in_nfc():
    acc, _ = lev.validate_events(events_file(row(title="Cafe\u0301 raid")), "u.csv", today=TODAY)
    assert acc["title"].iloc[0] == "Caf\u00e9 raid"


@pytest.mark.parametrize("url, words", [
    ("https://exa\u200bmple.org/page", "invisible character U+200B"),
    ("https://example.org\u2060/page", "invisible character U+2060"),
    ("https://ex\u202eample.org/", "bidirectional-control character U+202E"),
    ("https://\uff45\uff58\uff41\uff4d\uff50\uff4c\uff45.org/", "not a valid international domain name"),
    ("https://exa_mple..org/", "not a plain host name"),
    ("https://-bad-.org/", "not a plain host name"),
    ("https://xn--zz.org/", "not valid punycode"),
    ("https://user@evil.example/", "user name before '@'"),
    ("https://apnews.com@evil.example/x", "user name before '@'"),
    ("https://example.org:99999/", "port"),
    ("https://[::zz]/", "IPv6 address"),
])
def test_url_hosts_must_be_plain(url, words):
    _, rej = lev.validate_events(events_file(row(source_url=url)), "u.csv", today=TODAY)
    hit = rej[rej["field"] == "source_url"]
    assert len(hit) == 1 and words in hit["reason"].iloc[0], rej.to_dict("records")


@pytest.mark.parametrize("url", [
    "https://www.apnews.com/article/x?id=1#top",
    "http://example.org:8080/a",
    "https://bücher.example/",          # a valid international name
    "https://xn--bcher-kva.example/",    # the same in punycode
    "https://8.8.8.8/report.pdf",  # a public address (loopback and private ones are refused: test_intake.py)
    "https://[2606:4700:4700::1111]/",
    "https://www.dhs.gov./news",
])
def test_plain_and_international_hosts_are_accepted(url):
    acc, rej = lev.validate_events(events_file(row(source_url=url)), "u.csv", today=TODAY)
    assert rej.empty, rej.to_dict("records")
    assert acc["source_url"].iloc[0] == url


def test_the_bundled_file_passes_the_text_checks():
    # Every bundled row is checked on load; this fails if a new check would refuse the project's own file.
    assert len(lev.read_bundled()) > 60


def test_file_level_errors_of_an_upload_still_raise():
    with pytest.raises(ValidationError, match="201 event rows; the limit is 200"):
        lev.check_upload(events_file(*(row(title=f"E {i}") for i in range(201))), "u.csv", None)


def test_check_upload_splits_new_rows_from_repeats_and_refusals():
    bundled = lev.read_bundled()
    first = bundled.iloc[0]
    res = lev.check_upload(events_file(
        row(title="Mine", date="2025-04-01"),
        row(title="Bad", date="2025-02-30"),
        row(date=first["date"].strftime("%Y-%m-%d"), title=first["title"], category=first["category"])),
        "mine.csv", bundled)
    assert res.accepted["title"].tolist() == ["Mine"]
    assert res.rejected["row"].tolist() == [3, 4]
    assert len(res.events) == len(bundled) + 1
    assert dt.date(2025, 4, 1) in set(res.events["date"].dt.date)


# ------------------------------------------------------------------------------------------ the page

def page(monkeypatch, tmp_path, **env):
    """The page under AppTest with this deployment's events setting (read from the environment on each run)."""
    from streamlit.testing.v1 import AppTest
    for k in ("DASHBOARD_EVENTS_FILE", "DASHBOARD_EVENTS_SAVE", "DASHBOARD_PUBLIC"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    at = AppTest.from_file(str(ROOT / "dashboard.py"), default_timeout=60)
    at.query_params["categories"] = "all"
    open_trend_panels(at)
    at.run()
    assert not at.exception, at.exception
    return at


def local_refused(at) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if list(d.value.columns) == ["file", "row", "field", "reason"])


def page_text(at) -> str:
    return " ".join(str(e.value) for kind in ("warning", "error", "success", "info", "caption", "text")
                    for e in getattr(at, kind))


def test_a_fresh_session_lists_the_rows_of_the_local_file_that_were_not_loaded(monkeypatch, tmp_path):
    local = tmp_path / "site" / "events.csv"
    local.parent.mkdir()
    local.write_bytes(events_file(row(title="My own event", date="2025-04-01"),
                                  row(title="Broken date", date="2025-02-30"),
                                  row(title="Sneaky\u200b title", date="2025-04-02")))
    at = page(monkeypatch, tmp_path, DASHBOARD_EVENTS_FILE=str(local))
    warning = next(w.value for w in at.warning if "local events file" in w.value)
    assert "2 rows" in warning and "were not loaded" in warning
    refused = local_refused(at)
    assert refused[["row", "field"]].values.tolist() == [[3, "date"], [4, "title"]]
    assert "invisible character U+200B" in refused["reason"].iloc[1]
    legend = next(d.value for d in at.dataframe if "number" in d.value.columns)
    assert "My own event" in set(legend["title"])  # the good row is loaded all the same
    assert str(tmp_path) not in page_text(at) + refused.to_string()


def test_a_local_file_over_the_row_limit_is_reported_not_silently_dropped(monkeypatch, tmp_path):
    local = tmp_path / "events.csv"
    local.write_bytes(events_file(*(row(title=f"Old {i}") for i in range(600))))
    at = page(monkeypatch, tmp_path, DASHBOARD_EVENTS_FILE=str(local))
    refused = local_refused(at)
    assert refused["row"].tolist() == [0] and "600 event rows; the limit is 500" in refused["reason"].iloc[0]


def upload(at, content: bytes, name: str = "mine.csv"):
    at.file_uploader(key="w_upload").set_value((name, content, "text/csv"))
    at.run()
    assert not at.exception, at.exception
    return at


def test_saving_from_the_page_writes_the_configured_file_and_shows_no_path(monkeypatch, tmp_path):
    local = tmp_path / "deployment-a.csv"
    at = page(monkeypatch, tmp_path, DASHBOARD_EVENTS_FILE=str(local))
    upload(at, events_file(row(title="Kept by the page", date="2025-05-05")))
    at.button(key="w_upload_save").click()
    at.run()
    assert not at.exception, at.exception
    assert saved_titles(local) == ["Kept by the page"]
    msg = next(s.value for s in at.success if s.value.startswith("Saved"))
    assert "Saved 1 new event" in msg and str(tmp_path) not in page_text(at)
    assert (tmp_path / "deployment-a.csv.lock").exists()  # the lock lives beside the deployment's file
    # Uploading the same file again: nothing new, and not "rejected" either.
    upload(at, events_file(row(title="Kept by the page", date="2025-05-05")), "again.csv")
    assert any("0 events accepted from again.csv; 1 already in the local events file; 0 rows rejected"
               in s.value.replace("\\", "") for s in at.success)


def test_a_save_over_the_limit_is_refused_on_the_page_not_a_crash(monkeypatch, tmp_path):
    local = tmp_path / "events.csv"
    lev.save_user_events(rows_frame("old", 200), local)
    lev.save_user_events(rows_frame("older", 200), local)
    before = local.read_bytes()
    at = page(monkeypatch, tmp_path, DASHBOARD_EVENTS_FILE=str(local))
    upload(at, events_file(*(row(title=f"New {i}", date="2025-06-01") for i in range(150))))
    at.button(key="w_upload_save").click()
    at.run()
    assert not at.exception, at.exception
    err = next(e.value for e in at.error if e.value.startswith("Not saved"))
    assert "550 rows; the limit is 500" in err.replace("\\", "")
    assert local.read_bytes() == before


@pytest.mark.parametrize("env, words", [({"DASHBOARD_PUBLIC": "1"}, "public deployment"),
                                        ({"DASHBOARD_EVENTS_SAVE": "0"}, "turned off on this deployment")])
def test_a_deployment_can_turn_saving_off(monkeypatch, tmp_path, env, words):
    local = tmp_path / "events.csv"
    at = page(monkeypatch, tmp_path, DASHBOARD_EVENTS_FILE=str(local), **env)
    upload(at, events_file(row(title="Only for this visit", date="2025-05-05")))
    assert not [b for b in at.button if b.key == "w_upload_save"]
    assert words in page_text(at).replace("\\", "")
    legend = next(d.value for d in at.dataframe if "number" in d.value.columns)
    assert "Only for this visit" in set(legend["title"])
    assert not local.exists()


def chart_event_titles(at) -> list[str]:
    fig = next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if "trend_chart" in (c.proto.id or ""))
    return [h for t in fig["data"] if t.get("name") == "Events" for h in t["hovertext"]]


def test_an_uploaded_file_stays_on_the_chart_through_a_visit_to_another_room(monkeypatch, tmp_path):
    # The uploader is drawn only in the trends room; a visit to another room made Streamlit forget the file, and
    # on the way back the empty uploader was taken for a removal: the reader's events left the chart unasked.
    at = page(monkeypatch, tmp_path, DASHBOARD_EVENTS_FILE=str(tmp_path / "events.csv"))
    upload(at, events_file(row(title="Mine through the visit", date="2025-05-05")))
    assert any("Mine through the visit" in h for h in chart_event_titles(at))
    at.session_state["tab"] = "study"
    at.run()
    assert not at.exception, at.exception
    at.session_state["tab"] = "trends"
    at.run()
    assert not at.exception, at.exception
    assert any("Mine through the visit" in h for h in chart_event_titles(at))
    # The events section says the file's events are still drawn, and removing them takes them off the chart.
    kept = next(c.value.replace("\\", "") for c in at.caption if "still on the chart" in c.value)
    assert "mine.csv" in kept and "1 event" in kept
    at.button(key="w_upload_forget").click()
    at.run()
    assert not at.exception, at.exception
    assert not any("Mine through the visit" in h for h in chart_event_titles(at))


# ----------------------------------------------------------------------------------- numbering (issue 26)

def _with_upload(*lines: str):
    from loaders.events import check_upload
    bundled = lev.load_events()
    return bundled, check_upload(events_file(*lines), "mine.csv", bundled)


def test_an_upload_never_renumbers_the_dashboards_events():
    """Issue 26: an uploaded event dated before the demotion moved it from 6 to 7."""
    from analysis.view import View
    from loaders.data import load_snapshot
    from views.compose import render
    snap = load_snapshot()
    bundled, res = _with_upload(row(title="Newsroom event B", date="2025-02-01"),
                                row(title="Newsroom event A", date="2025-01-25"))
    assert len(res.accepted) == 2
    before = render(snap, View(), events=bundled).events
    after = render(snap, View(), events=res.events).events
    labels = dict(zip(before["id"], before["label"]))
    hott = next(i for i in labels if "hott" in i)
    assert labels[hott] == "6"
    kept = after[~after["own"]]
    assert dict(zip(kept["id"], kept["label"])) == labels  # every curated event keeps its number
    own = after[after["own"]]
    assert own["title"].tolist() == ["Newsroom event A", "Newsroom event B"] and own["label"].tolist() == ["U1", "U2"]


def test_the_readers_events_are_marked_in_marker_hover_key_table_and_csv():
    from figures import events as cev
    from wording import i18n
    _, res = _with_upload(row(title="Newsroom event A", date="2025-01-25"))
    view = cev.filter_events(res.events, "2025-01-01", "2025-03-31")
    for size, lang in (("article", "en"), ("page", "es"), ("full", "en")):
        layer = cev.event_layers(view, lo="2025-01-01", hi="2025-03-31", size=size, lang=lang)
        marker = layer["traces"][-1]
        at = next(i for i, g in enumerate(marker["customdata"]) if "U1" in g)
        assert "U1" in marker["text"][at]
        assert html_unescape(i18n.t("events.own_hover", lang)) in html_unescape(marker["hovertext"][at])
        notes = " ".join(layer["notes"])
        assert i18n.t("events.own_note", lang, n=1) in notes
        if size == "full":  # the key listed in full-size images (an article's compact key gives the numbers only)
            # with its source outlet, as every event in a printed key (issue 38)
            assert "U1 2025-01-25 Newsroom event A (Agency) (reader's own)" in notes
    table = cev.events_legend_table(view)
    assert table.loc[table["title"] == "Newsroom event A", "number"].tolist() == ["U1"]
    assert "U1" not in table.loc[table["title"] != "Newsroom event A", "number"].tolist()
    back = pd.read_csv(__import__("io").BytesIO(cev.events_csv(view)), comment="#", dtype=str, keep_default_na=False)
    assert back.loc[back["number"] == "U1", ["title", "origin"]].values.tolist() == [["Newsroom event A", "upload"]]


def test_a_marker_holding_only_the_readers_events_is_a_square():
    from figures import events as cev
    _, res = _with_upload(row(title="Far from the rest", date="2019-06-15"))
    view = cev.filter_events(res.events, "2019-01-01", "2019-12-31")
    marker = cev.event_layers(view, lo="2019-01-01", hi="2019-12-31", size="full")["traces"][-1]
    shapes = dict(zip(marker["text"], marker["marker"]["symbol"]))
    assert shapes["U1"] == "square" and all(s == "circle" for t, s in shapes.items() if "U" not in t)


def html_unescape(text: str) -> str:
    import html
    return html.unescape(text)
