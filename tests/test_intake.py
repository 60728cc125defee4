"""Issue 32: errors that name their file and keep their advice, the reader's events file read afresh and
damaged only where it is damaged, saving and links on a network, Places links with unknown ids."""
from __future__ import annotations

import csv
import errno
import io
import os
import re

import pytest

from loaders import errors
from loaders.__main__ import main as cli
from tests.conftest import record_downloads
from tests.fault_samples import trac_detention_sample

# ---------------------------------------------------------------- every error names its file, advice kept

@pytest.mark.parametrize("code, advice", [(errno.ENOSPC, "the disk is full"), (errno.EIO, "input/output error")])
def test_a_full_disk_or_an_io_error_names_the_file_and_what_to_do(tmp_path, monkeypatch, capsys, code, advice):
    """Before: ``error: [Errno 28] No space left on device``, no file, no advice."""
    raw = tmp_path / "raw" / "trac_detention"
    raw.mkdir(parents=True)
    name, body = trac_detention_sample()
    (raw / name).write_bytes(body)
    record_downloads(tmp_path / "raw")

    def full(fd):
        raise OSError(code, os.strerror(code))
    monkeypatch.setattr(os, "fsync", full)
    out = tmp_path / "out"
    assert cli(["rebuild", "--raw", str(tmp_path / "raw"), "--out", str(out), "trac_detention"]) == 1
    err = capsys.readouterr().err
    assert str(out) in err and os.strerror(code) in err and advice in err, err
    assert "the snapshot was left unchanged" in err and "Traceback" not in err


def test_an_apostrophe_is_not_a_quote_and_a_long_message_keeps_its_advice():
    """"...saved without c…' (161 characters)": the apostrophe of "source's" opened a 'quote' that was cut."""
    msg = ("the download recorded beside it names 'https://example.org/x.csv', which is not on this source's "
           "declared hosts (www.cbp.gov): download it again with `python -m loaders update`")
    assert str(errors.LoaderError(msg, file="x.csv")).endswith("download it again with `python -m loaders update`")
    long = "what failed: " + "detail " * 200 + "; fix it by doing this"
    out = errors._bounded(long)
    assert len(out) <= errors.MAX_MESSAGE + 60 and out.endswith("; fix it by doing this") and "characters cut" in out
    # a real long quoted cell is still cut to an excerpt
    assert "x" * 100 not in errors._bounded("bad value '" + "x" * 5000 + "' in row 3")


@pytest.mark.parametrize("encoding, looks", [("utf-16", "UTF-16 (little-endian)"), ("utf-16-be", "UTF-16 (big-endian)"),
                                             ("utf-32", "UTF-32")])
def test_an_upload_in_another_encoding_is_told_to_save_as_utf8(encoding, looks):
    """Before: "missing column(s) ... found '\\udcff\\udcfei\\x00d\\x00'"."""
    from loaders import events
    from loaders.errors import ValidationError
    text = ",".join(events.COLUMNS) + "\n2024-01-01,2024-01-01,exact,T,policy,,S,https://www.ice.gov/x\n"
    with pytest.raises(ValidationError, match=rf"file up\.csv\] the file is not UTF-8: it looks like {re.escape(looks)}.*"
                                              r"Save it as UTF-8"):
        events.check_upload(text.encode(encoding), "up.csv", None)


# ---------------------------------------------------------------- the local events file: damage costs only its rows

def _good_file(n: int = 128) -> bytes:
    from loaders import events
    rows = "".join(f"ev{i},2025-{i % 12 + 1:02d}-{i % 28 + 1:02d},exact,Title {i},policy,,Src,https://www.ice.gov/n{i}\n"
                   for i in range(n))
    return (",".join(events.COLUMNS) + "\n" + rows).encode()


def test_random_bytes_appended_cost_only_the_lines_they_touch():
    """Before: all 128 good events left the chart and the page said "1 row(s) ... were not loaded"."""
    import random

    from loaders import events
    rnd = random.Random(32)
    for _ in range(5):
        junk = _good_file() + bytes(rnd.randrange(256) for _ in range(2000))
        accepted, rejected = events.validate_events(junk, "user_events.csv", origin="user")
        assert len(accepted) == 128 and len(rejected) >= 1
        assert (rejected["row"] > 129).all()  # every refused row is a junk line, each one named


def test_one_unclosed_quote_costs_one_row_and_says_which():
    from loaders import events
    lines = _good_file().decode().splitlines(keepends=True)
    lines[5] = lines[5].replace("Title", '"Title', 1)
    accepted, rejected = events.validate_events("".join(lines).encode(), "user_events.csv", origin="user")
    assert len(accepted) == 127
    assert rejected[["row", "field"]].values.tolist() == [[6, "(row)"]]
    assert "line 6 could not be read as CSV" in rejected["reason"].iloc[0]


def test_a_local_file_lost_whole_says_how_many_events_in_words(tmp_path):
    from loaders import events
    p = tmp_path / "user_events.csv"
    p.write_bytes(b'"' + _good_file())  # the header itself cannot be read
    _, refused = events.load_events_checked(user_path=p, bundled=events._frame([]))
    assert refused["row"].tolist() == [0] and "none of its 128 event line(s) were loaded" in refused["reason"].iloc[0]


def test_the_page_reads_the_local_file_again_when_it_changes(monkeypatch, tmp_path):
    """Cached by path alone, fresh sessions drew the old markers after the file was overwritten, never showed a
    row added by hand, and kept "not loaded" after a repair, until a restart."""
    from tests.test_user_events import page
    local = tmp_path / "events.csv"
    local.write_bytes(b'"' + _good_file(3))  # corrupt when first read
    at = page(monkeypatch, tmp_path, DASHBOARD_EVENTS_FILE=str(local))
    assert any("local events file" in w.value for w in at.warning)
    local.write_bytes(_good_file(3))  # repaired
    at = page(monkeypatch, tmp_path, DASHBOARD_EVENTS_FILE=str(local))
    legend = next(d.value for d in at.dataframe if "number" in d.value.columns)
    assert {"Title 1", "Title 2"} <= set(legend["title"])
    assert not any("local events file" in w.value for w in at.warning)
    local.write_bytes(_good_file(3).replace(b"Title 2", b"Hand 02"))  # a row edited by hand: same size
    at = page(monkeypatch, tmp_path, DASHBOARD_EVENTS_FILE=str(local))
    legend = next(d.value for d in at.dataframe if "number" in d.value.columns)
    assert "Hand 02" in set(legend["title"]) and "Title 2" not in set(legend["title"])


# ---------------------------------------------------------------- saving on a network, and the one link check

@pytest.mark.parametrize("address, env, save", [
    ("127.0.0.1", {}, True), ("::1", {}, True), ("localhost", {}, True),
    ("0.0.0.0", {}, False), ("", {}, False), ("192.168.1.5", {}, False), ("dashboard.example.org", {}, False),
    ("0.0.0.0", {"DASHBOARD_EVENTS_SAVE": "1"}, True),  # asked for
    ("127.0.0.1", {"DASHBOARD_EVENTS_SAVE": "0"}, False),
])
def test_saving_is_off_unless_asked_for_when_the_server_listens_beyond_loopback(address, env, save):
    """Before: with --server.address 0.0.0.0 one session's saved upload (a phishing title and link) was drawn for
    every other reader."""
    from loaders import events
    s = events.user_events_setting(env, server_address=address)
    assert s.save is save
    if not save and not env:
        assert "DASHBOARD_EVENTS_SAVE=1" in s.why_not


def test_the_page_offers_no_save_on_a_network_address(monkeypatch, tmp_path):
    from streamlit import config

    from tests.test_events import events_file, row
    from tests.test_user_events import page, page_text, upload
    before = config.get_option("server.address")
    config.set_option("server.address", "0.0.0.0")
    try:
        at = page(monkeypatch, tmp_path, DASHBOARD_EVENTS_FILE=str(tmp_path / "e.csv"))
        upload(at, events_file(row(title="Mine", date="2025-04-01")))
        assert not [b for b in at.button if b.key == "w_upload_save"]
        assert "can be reached from other computers" in page_text(at)
    finally:
        config.set_option("server.address", before)


@pytest.mark.parametrize("url, words", [
    ("https://127.0.0.1/x", "loopback, private or reserved"),
    ("https://[::1]/x", "loopback, private or reserved"),
    ("https://10.1.2.3/x", "loopback, private or reserved"),
    ("https://192.168.0.10/x", "loopback, private or reserved"),
    ("https://2130706433/x", "not a valid IPv4 address"),
    ("https://localhost:8501/x", "names this computer"),
    ("https://\u0440\u0430ypal.com/x", "mixes Cyrillic and Latin"),
    ("https://xn--ypal-43d9g.com/x", "mixes Cyrillic and Latin"),
])
def test_uploaded_links_to_loopback_private_or_look_alike_hosts_are_refused(url, words):
    from loaders import events
    from tests.test_events import TODAY, events_file, row
    _, rej = events.validate_events(events_file(row(source_url=url)), "u.csv", today=TODAY)
    hit = rej[rej["field"] == "source_url"]
    assert len(hit) == 1 and words in hit["reason"].iloc[0], rej.to_dict("records")


@pytest.mark.parametrize("url, words", [("https://trusted.gov@evil.example/x", "user name before '@'"),
                                        ("https://127.0.0.1/x", "loopback"),
                                        ("https://\u0440\u0430ypal.com/x", "mixes Cyrillic and Latin")])
def test_reported_figures_use_the_same_link_check(url, words):
    """Their own pattern accepted https://trusted.gov@evil.example/x."""
    from pathlib import Path

    from loaders import pipeline, registry
    from loaders.errors import LoaderError
    from tests.conftest import ROOT
    text = (ROOT / "data" / "reported_figures.csv").read_text("utf-8")
    # The first address in the url column (a copy read, in read_at, goes through the same check under its name).
    first = next(r["url"] for r in csv.DictReader(io.StringIO(text)) if r["url"].startswith("https://"))
    assert text.index(first) == text.index("," + first + ",") + 1  # the url cell, not a read_at holding it
    bad = text.replace(first, url, 1)
    with pytest.raises(LoaderError, match=rf"file reported_figures\.csv\] row \d+ field 'url': .*{words}"):
        pipeline.parse_bytes(registry.get("reported_figures"), bad.encode(), Path("reported_figures.csv").name)


# ---------------------------------------------------------------- Places links with unknown ids get a note

def test_a_places_link_with_an_unknown_facility_or_state_says_so():
    """Before: dropped without a word (a trend link's unknown series gets a note)."""
    from tests.test_page import app
    at = app({"view": "places", "map": "state", "facility": "NO-SUCH-PLACE", "state": "ZZ"})
    assert not at.exception
    notes = " ".join(i.value for i in at.info).replace("\\", "")  # shown as literal text (escaped markdown)
    assert "unknown facility 'NO-SUCH-PLACE' in the link" in notes and "unknown state 'ZZ' in the link" in notes
    at.radio(key="p_map").set_value("facilities").run()  # the notes go once the reader changes the view
    assert "unknown facility" not in " ".join(i.value for i in at.info)
    good = app({"view": "places", "map": "state", "state": "TX"})
    assert "unknown" not in " ".join(i.value for i in good.info)
