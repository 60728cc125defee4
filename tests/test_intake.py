"""Issue 32: errors that name their file and keep their advice, the reader's events file read afresh and
damaged only where it is damaged, saving and links on a network, Places links with unknown ids."""
from __future__ import annotations

import errno
import re
import os

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
