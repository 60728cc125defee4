"""Rebuild, update, status and parse: the snapshot is deterministic and never half-written."""
import json
import subprocess
import sys

import pytest
import responses

from loaders import pipeline, trac_detention
from loaders.__main__ import main as cli
from tests.conftest import ROOT


def snapshot_bytes(d):
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file() and p.name != ".update.lock"}


def test_rebuild_twice_is_byte_identical(raw_dir, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    pipeline.rebuild(raw_dir, a, allow_missing=True)
    pipeline.rebuild(raw_dir, b, allow_missing=True)
    sa, sb = snapshot_bytes(a), snapshot_bytes(b)
    assert sa == sb and "snapshot/manifest.json" in sa and "snapshot/observations/trac_detention.csv" in sa
    man = json.loads(sa["snapshot/manifest.json"])
    files = {f["name"]: f for f in man["sources"]["trac_detention"]["files"]}
    assert files["pop_agen_table.json"]["rows"] > 0 and len(files["pop_agen_table.json"]["sha256"]) == 64
    assert files["pop_agen_table.json"]["url"].startswith("https://tracreports.org/")


@pytest.mark.shared
def test_bundled_snapshot_reproduces_from_shared(shared_data, tmp_path):
    """The committed data/ is exactly what the loaders make from the real files."""
    out = tmp_path / "snap"
    pipeline.rebuild(shared_data, out)
    built = snapshot_bytes(out / "snapshot")
    committed = snapshot_bytes(ROOT / "data" / "snapshot")
    assert built.keys() == committed.keys()
    diff = [k for k in built if built[k] != committed[k]]
    assert diff == [], f"rebuild differs from the committed snapshot in {diff}; run `make rebuild` and commit"


def test_bad_file_leaves_snapshot_untouched(raw_dir, tmp_path):
    out = tmp_path / "snap"
    pipeline.rebuild(raw_dir, out, allow_missing=True)
    before = snapshot_bytes(out)
    (raw_dir / "trac_detention" / "pop_agen_table.json").write_text(
        '[{"date": "31/31/2025", "ice_all": 1, "cbp_all": 1, "total_all": 2}]')
    with pytest.raises(Exception, match="pop_agen_table.json"):
        pipeline.rebuild(raw_dir, out, allow_missing=True)
    assert snapshot_bytes(out) == before
    assert not list(out.rglob("*.part"))


def test_rows_validated_once_per_rebuild_still_name_their_file(raw_dir, tmp_path, monkeypatch):
    """A source's files are validated in one pass (``parse_files``), not file by file: a bad row the parser let
    through must still stop the rebuild with the file and the row named, and nothing written."""
    import dataclasses

    from loaders import registry
    src = registry.get("trac_detention")

    def parse(content, name):
        df = src.parse(content, name)
        if name == "pop_agen_table.json":
            df.loc[1, "value"] = -5.0  # a figure no check in the parser looks at
        return df
    out = tmp_path / "snap"
    pipeline.rebuild(raw_dir, out, allow_missing=True)
    before = snapshot_bytes(out)
    monkeypatch.setitem(registry.SOURCES, src.id, dataclasses.replace(src, parse=parse))
    with pytest.raises(pipeline.LoaderError, match=r"file 'pop_agen_table.json' row 2 field 'value': negative"):
        pipeline.rebuild(raw_dir, out, allow_missing=True)
    assert snapshot_bytes(out) == before


@responses.activate
def test_update_downloads_parses_and_merges(tmp_path, trac_population_json, trac_book_ins_json):
    for u in trac_detention.SOURCE.download_urls:
        atd = b'[{"aor": "", "atd_technology": "Total", "count_num": 5, "download_date": "07/11/2026", "family_unit": "All"}]'
        facilities = b'[{"name": "X", "type_detailed": "", "count": " 1,000", "download_date": "07/09/2026"}]'
        body = (trac_population_json if "pop_agen" in u else trac_book_ins_json if "book_in" in u
                else atd if "atd" in u else facilities)
        responses.get(u, body=body, headers={"ETag": '"1"'})
    data, raw = tmp_path / "data", tmp_path / "raw"
    summary = pipeline.update(["trac_detention"], data, raw)
    assert "4 new file(s)" in summary["trac_detention"]
    man = json.loads((data / "snapshot" / "manifest.json").read_text())
    f = {x["name"]: x for x in man["sources"]["trac_detention"]["files"]}
    assert f["pop_agen_table.json"]["retrieved"] and f["pop_agen_table.json"]["url"].endswith("pop_agen_table.json")
    before = snapshot_bytes(data)
    # A second run: the server says "not modified" and the snapshot stays as it was.
    for u in trac_detention.SOURCE.download_urls:
        responses.replace(responses.GET, u, status=304)
    assert pipeline.update(["trac_detention"], data, raw) == {"trac_detention": "not modified"}
    assert snapshot_bytes(data) == before


@responses.activate
def test_failed_update_keeps_last_good(tmp_path, raw_dir):
    data = tmp_path / "data"
    pipeline.rebuild(raw_dir, data, allow_missing=True)
    before = snapshot_bytes(data)
    for u in trac_detention.SOURCE.download_urls:
        responses.get(u, body=b"<html><body>Service unavailable</body></html>")
    rc = cli(["update", "trac_detention", "--data", str(data), "--raw", str(tmp_path / "cache")])
    assert rc == 1
    assert snapshot_bytes(data) == before


def test_lock_refuses_a_second_writer(tmp_path, raw_dir):
    from loaders.errors import LockedError
    with pipeline.update_lock(tmp_path / "data"), pytest.raises(LockedError, match="already writing"):
        pipeline.rebuild(raw_dir, tmp_path / "data", allow_missing=True)


def test_status_reports_age_against_cadence(raw_dir, tmp_path):
    import datetime as dt
    pipeline.rebuild(raw_dir, tmp_path / "data", allow_missing=True)
    from loaders import data as cdata
    from loaders import freshness
    snap = cdata.load_snapshot(tmp_path / "data")
    st = freshness.command_status(pipeline.status(tmp_path / "data", today=dt.date(2026, 7, 20)), snap,
                                  dt.date(2026, 7, 20)).set_index("source")
    assert st.loc["trac_detention", "status"] == "ok" and st.loc["trac_detention", "age_days"] == 9
    st = freshness.command_status(pipeline.status(tmp_path / "data", today=dt.date(2026, 11, 29)), snap,
                                  dt.date(2026, 11, 29)).set_index("source")
    assert st.loc["trac_detention", "status"].startswith("overdue")


def test_cli_list_parse_and_errors(raw_dir, capsys, tmp_path):
    assert cli(["list"]) == 0
    assert "trac_detention\t" in capsys.readouterr().out
    assert cli(["parse", "trac_detention", str(raw_dir / "trac_detention" / "pop_agen_table.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("series,key,date,end,value,release,flag,file\n") and "trac_detention.detained_total,,2025-09-21" in out
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    assert cli(["parse", "trac_detention", str(bad)]) == 1
    assert "not valid JSON" in capsys.readouterr().err
    assert cli(["parse", "no_such_source", str(bad)]) == 1
    assert "unknown source" in capsys.readouterr().err


def test_cli_runs_as_module(raw_dir, tmp_path):
    r = subprocess.run([sys.executable, "-m", "loaders", "rebuild", "--raw", str(raw_dir), "--out", str(tmp_path / "o"),
                        "--allow-missing"],
                       cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "trac_detention:" in r.stdout


def test_every_field_a_source_declares_is_read():
    """A declaration nobody reads misleads whoever fills it in (``Source.kind`` was set by five sources and read
    nowhere: every update already replaces a file's rows by a new file of the same name). Each field of
    ``Source`` must be read as an attribute of a source (``src.x``, ``source.x``, ``registry.get(i).x``...)
    somewhere in the project's code outside its declaration."""
    import dataclasses
    import re

    from loaders.base import Source
    root = ROOT
    code = "\n".join(p.read_text() for d in ("loaders", "views", "charts") for p in sorted((root / d).glob("*.py"))
                     if p.name != "base.py")
    code += "\n".join(p.read_text() for p in sorted(root.glob("*.py")))
    unread = [f.name for f in dataclasses.fields(Source)
              if not re.search(rf"\b(src|source|SOURCE|s|\))\.{f.name}\b", code)]
    assert unread == [], f"Source fields set but never read: {unread}"


