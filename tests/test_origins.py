"""Every raw file has a recorded origin that matches its bytes, and a snapshot is never built without one."""
from __future__ import annotations

import json

import pytest

from analysis.view import View, prepare
from figures.core import file_origins_line, source_lines
from loaders import data as cdata
from loaders import origins, pipeline, registry
from loaders.errors import LoaderError
from tests.conftest import ROOT, record_downloads

MANIFEST = json.loads((ROOT / "data" / "snapshot" / "manifest.json").read_text())


def _entries():
    return [(sid, f) for sid, e in MANIFEST["sources"].items() for f in e.get("files", [])]


def test_every_file_in_the_committed_manifest_has_an_origin_with_a_url():
    assert len(_entries()) >= 20
    for sid, f in _entries():
        o = f.get("origin")
        assert o, f"{sid}/{f['name']} has no origin"
        for field in ("producer", "title", "official_url", "read_as", "licence"):
            assert o.get(field), f"{sid}/{f['name']}: origin lacks {field}"
        if o["read_as"] == "project":
            assert (ROOT / o["official_url"]).is_file()
        else:
            assert o["official_url"].startswith("https://"), f["name"]
            assert (o["sha256"], o["bytes"]) == (f["sha256"], f["bytes"])
            assert o["date_accessed"] and f["retrieved"], f"{f['name']}: no retrieval date"
        assert f["url"], f"{sid}/{f['name']} has an empty URL"
    archived = [f for _, f in _entries() if f["origin"]["read_as"] == "archive"]
    assert archived and all(f["origin"]["archive_url"].startswith("https://web.archive.org/") or
                            "not recorded" in f["origin"]["note"] for f in archived)


def test_the_origins_table_is_complete_and_consistent():
    rows = origins.table()
    assert len(rows) == len({(r["source_id"], r["file"]) for r in rows})
    for r in rows:
        assert r["read_as"] in origins.READ_AS
        if r["read_as"] in ("mirror", "archive"):
            assert r["read_url"].startswith("https://"), r["file"]
        if r["read_as"] == "archive":
            assert "archive" in origins.read_note(r)


@pytest.mark.shared
def test_every_file_a_source_reads_in_shared_data_has_an_origin_matching_its_bytes(shared_data):
    n = 0
    for sid, src in registry.SOURCES.items():
        for p in pipeline.find_raw_files(src, shared_data):
            o = origins.origin_for(sid, p, p.read_bytes())  # raises on a missing origin or a checksum mismatch
            assert o["official_url"]
            n += 1
    assert n >= 27


def test_a_file_with_no_origin_is_refused_with_its_name(tmp_path):
    raw = tmp_path / "raw"
    shared_layout = raw / "trac-detention"
    shared_layout.mkdir(parents=True)
    from tests.fault_samples import trac_detention_sample
    name, body = trac_detention_sample()
    # The shared layout's pop_agen_table.json has a recorded origin, but for other bytes: refused.
    (shared_layout / "pop_agen_table.json").write_bytes(body)
    with pytest.raises(LoaderError, match=r"pop_agen_table\.json\].*bytes differ"):
        pipeline.rebuild(raw, tmp_path / "snap", ["trac_detention"])
    assert not (tmp_path / "snap" / "snapshot" / "manifest.json").exists()
    # A file nobody recorded, in the cache layout and without a download record: refused, named.
    (shared_layout / "pop_agen_table.json").unlink()
    # a small CBP file in the real layout (tests/test_cbp_encounters.py builds it), so this runs without ../shared
    from tests.test_cbp_encounters import swb_file
    cbp_name, cbp_body = "sbo-encounters-fy22-fy25-aug.csv", swb_file(2024, 2025, "AUG")
    unknown = "sbo-encounters-fy22-fy25-jul.csv"
    assert cbp_name != unknown
    (raw / "cbp_encounters").mkdir()
    (raw / "cbp_encounters" / unknown).write_bytes(cbp_body)
    with pytest.raises(LoaderError, match=rf"file {unknown}\] no origin recorded"):
        pipeline.rebuild(raw, tmp_path / "snap", ["cbp_encounters"])
    assert not (tmp_path / "snap" / "snapshot" / "manifest.json").exists()
    cache = raw / "trac_detention"
    cache.mkdir()
    (cache / "pop_agen_table.json").write_bytes(body)
    # With the record a download leaves it builds, and the manifest carries its origin.
    record_downloads(raw)
    pipeline.rebuild(raw, tmp_path / "snap", ["trac_detention", "cbp_encounters"])
    man = json.loads((tmp_path / "snap" / "snapshot" / "manifest.json").read_text())
    f = man["sources"]["trac_detention"]["files"][0]
    assert f["origin"]["official_url"] == f["url"] == "https://tracreports.org/immigration/detentionstats/pop_agen_table.json"
    assert f["origin"]["read_as"] == "official" and f["retrieved"].startswith("2026-01-01")


def test_a_changed_download_no_longer_matches_its_record(tmp_path):
    p = tmp_path / "trac_detention" / "x.json"
    p.parent.mkdir()
    p.write_bytes(b"[]")
    record_downloads(tmp_path)
    origins.origin_for("trac_detention", p, b"[]")
    with pytest.raises(LoaderError, match=r"file x\.json\] the bytes differ from the download"):
        origins.origin_for("trac_detention", p, b"[1]")


def test_source_lines_show_official_urls_and_say_when_read_from_an_archive_copy():
    snap = cdata.load_snapshot()
    entry = snap.source_entry("ice_detention_stats")
    archived = [f["name"] for f in entry["files"] if f["origin"]["read_as"] == "archive"]
    line = file_origins_line(entry, set(archived[:1]))
    assert line.startswith("Official file: https://www.ice.gov/doclib/detention/") and "read from an archive copy" in line
    prepared, _, _ = prepare(snap, View(series=["ice_detention_stats.detained_total"], preset="all"))
    lines = source_lines(snap, prepared)
    assert any(ln.startswith("Official files: https://www.ice.gov/doclib/detention/") and "archive copy" in ln
               for ln in lines), lines


# ---------------------------------------------------------------- issue 32: the origin is checked before parsing

def _counting_parser(monkeypatch, sid):
    """The source's parser, counting its calls: the origin check must act before it is reached."""
    import dataclasses
    calls = []
    src = registry.get(sid)

    def parse(content, name=""):
        calls.append(name)
        return src.parse(content, name)
    monkeypatch.setitem(registry.SOURCES, sid, dataclasses.replace(src, parse=parse))
    return calls


def test_rebuild_refuses_a_file_of_unknown_origin_before_parsing_it(tmp_path, monkeypatch):
    from tests.test_cbp_encounters import swb_file  # a small CBP file in the real layout: runs without ../shared
    body = swb_file(2024, 2025, "AUG")
    raw = tmp_path / "raw"
    (raw / "cbp_encounters").mkdir(parents=True)
    (raw / "cbp_encounters" / "sbo-encounters-unrecorded.csv").write_bytes(body)
    calls = _counting_parser(monkeypatch, "cbp_encounters")
    with pytest.raises(LoaderError, match=r"file sbo-encounters-unrecorded\.csv\] no origin recorded"):
        pipeline.rebuild(raw, tmp_path / "snap", ["cbp_encounters"])
    assert calls == []  # before: the file was parsed in full, then refused


@pytest.mark.parametrize("url, why", [
    ("https://evil.example/sbo-encounters.csv", "not an https URL on this source's declared hosts"),
    ("http://www.cbp.gov/sbo-encounters.csv", "not an https URL"),
    ("https://www.cbp.gov@evil.example/x.csv", "declared hosts"),
])
def test_a_download_record_is_checked_against_the_declared_hosts_before_parsing(tmp_path, monkeypatch, url, why):
    """``update`` parses what it downloaded through the same ``build_source``: its download record must name a
    host the source declares, and the bytes must match it, before the parser is reached."""
    from tests.test_cbp_encounters import swb_file  # a small CBP file in the real layout: runs without ../shared
    body = swb_file(2024, 2025, "AUG")
    p = tmp_path / "cbp_encounters" / "sbo-encounters-x.csv"
    p.parent.mkdir()
    p.write_bytes(body)
    record_downloads(tmp_path)
    side = p.with_name(p.name + ".meta.json")
    meta = json.loads(side.read_text())
    side.write_text(json.dumps({**meta, "url": url}))
    calls = _counting_parser(monkeypatch, "cbp_encounters")
    with pytest.raises(LoaderError, match=rf"file sbo-encounters-x\.csv\] .*{why}"):
        pipeline.build_source(registry.get("cbp_encounters"), [p])
    assert calls == []
    # the bytes changed after the download was recorded: refused before parsing as well
    side.write_text(json.dumps(meta))
    p.write_bytes(body + b"\n")
    with pytest.raises(LoaderError, match="bytes differ from the download"):
        pipeline.build_source(registry.get("cbp_encounters"), [p])
    assert calls == []
    p.write_bytes(body)
    obs, entries, _ = pipeline.build_source(registry.get("cbp_encounters"), [p])
    assert len(obs) and calls == ["sbo-encounters-x.csv"] and entries[0]["origin"]["read_as"] == "official"


def test_a_name_with_several_recorded_versions_takes_the_row_whose_bytes_match(tmp_path):
    """A test's stand-in recorded ahead of the real file of the same name made the real file refused in the same
    test session (the first row of the name decided): the row whose bytes match decides, and bytes matching no
    row are still refused."""
    import csv
    import hashlib

    from loaders.errors import LoaderError
    a, b = b"first version\n", b"second version, republished\n"
    table = tmp_path / "origins.csv"
    with table.open("w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=origins.COLUMNS, lineterminator="\n")
        w.writeheader()
        for body, note in ((a, "one"), (b, "two")):
            w.writerow({**dict.fromkeys(origins.COLUMNS, ""), "source_id": "census", "file": "x.csv", "producer": "p",
                        "title": "t", "official_url": "https://example.org/x.csv", "read_as": "official",
                        "licence": "l", "sha256": hashlib.sha256(body).hexdigest(), "bytes": str(len(body)),
                        "note": note})
    raw = tmp_path / "x.csv"
    assert origins.origin_for("census", raw, a, table_path=table)["note"] == "one"
    assert origins.origin_for("census", raw, b, table_path=table)["note"] == "two"
    with pytest.raises(LoaderError, match="the bytes differ"):
        origins.origin_for("census", raw, b"neither\n", table_path=table)
