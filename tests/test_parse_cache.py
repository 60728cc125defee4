"""The rebuild's cache of parses (loaders/parse_cache.py, issue 39): a file is parsed once per bytes, name and parser
version; the snapshot is byte for byte the same with and without the cache; an entry that cannot be trusted
(cut off, altered, another version's, not a zip) is ignored and the file parsed again."""
import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest

from loaders import ice_detention_stats as ice
from loaders import parse_cache, pipeline, registry
from tests.conftest import record_downloads
from tests.ice_workbook_factory import Release, build

D = dt.date
SRC = ice.SOURCE


def releases() -> list[Release]:
    return [Release("FY25_detentionStats02272025.xlsx", 2025, D(2025, 2, 18), D(2025, 2, 22), ice=22622,
                    cbp=21137, docket=D(2025, 2, 23)),
            Release("FY25_detentionStats03142025.xlsx", 2025, D(2025, 3, 3), D(2025, 3, 8), ice=23000, cbp=21000),
            Release("FY25_detentionStats03262025.xlsx", 2025, D(2025, 3, 17), D(2025, 3, 22), ice=23500,
                    cbp=20500)]


@pytest.fixture
def raw(tmp_path) -> Path:
    folder = tmp_path / "raw" / "ice_detention_stats"
    folder.mkdir(parents=True)
    for r in releases():
        (folder / r.name).write_bytes(build(r))
    record_downloads(folder)
    return tmp_path / "raw"


def snapshot_bytes(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted((out / "snapshot").rglob("*")) if p.is_file()}


@pytest.fixture
def parses(monkeypatch) -> list[str]:
    """The names of the files the parser really reads (not served from the cache)."""
    seen: list[str] = []
    real = pipeline._parse_raw

    def counting(source, content, name):
        seen.append(name)
        return real(source, content, name)
    monkeypatch.setattr(pipeline, "_parse_raw", counting)
    return seen


def test_the_snapshot_is_the_same_bytes_with_and_without_the_cache(raw, tmp_path, parses):
    plain, cold, warm = tmp_path / "plain", tmp_path / "cold", tmp_path / "warm"
    cache = tmp_path / "cache"
    pipeline.rebuild(raw, plain, ["ice_detention_stats"])
    assert len(parses) == 3
    pipeline.rebuild(raw, cold, ["ice_detention_stats"], cache_dir=cache)
    assert len(parses) == 6 and len(list((cache / SRC.id).glob("*.zip"))) == 3
    pipeline.rebuild(raw, warm, ["ice_detention_stats"], cache_dir=cache)
    assert len(parses) == 6  # nothing parsed again
    want = snapshot_bytes(plain)
    assert want and snapshot_bytes(cold) == want and snapshot_bytes(warm) == want
    # one new file: only it is parsed
    new = Release("FY25_detentionStats05092025.xlsx", 2025, D(2025, 4, 14), D(2025, 4, 19), ice=24000, cbp=20000)
    (raw / "ice_detention_stats" / new.name).write_bytes(build(new))
    record_downloads(raw / "ice_detention_stats")
    pipeline.rebuild(raw, warm, ["ice_detention_stats"], cache_dir=cache)
    assert parses[6:] == [new.name]
    pipeline.rebuild(raw, plain, ["ice_detention_stats"])
    assert snapshot_bytes(warm) == snapshot_bytes(plain)


@pytest.mark.parametrize("damage", ["cut", "flip", "garbage", "empty"])
def test_a_damaged_entry_is_ignored_and_rebuilt(raw, tmp_path, parses, damage):
    cache = tmp_path / "cache"
    pipeline.rebuild(raw, tmp_path / "a", ["ice_detention_stats"], cache_dir=cache)
    entry = sorted((cache / SRC.id).glob("*.zip"))[0]
    data = entry.read_bytes()
    entry.write_bytes({"cut": data[: len(data) // 2],
                       "flip": data[:200] + bytes([data[200] ^ 0xFF]) + data[201:],
                       "garbage": b"not a zip at all",
                       "empty": b""}[damage])
    del parses[:]
    pipeline.rebuild(raw, tmp_path / "b", ["ice_detention_stats"], cache_dir=cache)
    assert len(parses) == 1  # the damaged one, parsed again
    assert snapshot_bytes(tmp_path / "b") == snapshot_bytes(tmp_path / "a")
    assert parse_cache._read(entry, entry.stem) is not None  # written again, whole


def test_an_entry_is_only_for_its_parser_version_bytes_and_name(tmp_path):
    cache = parse_cache.ParseCache(tmp_path)
    rel = releases()[0]
    content = build(rel)
    parsed = pipeline._frames_of(SRC, pipeline._parse_raw(SRC, content, rel.name), rel.name)
    cache.put(SRC, content, rel.name, parsed)
    assert cache.get(SRC, content, rel.name) is not None
    bumped = replace(SRC, parser_version=SRC.parser_version + "-next")
    assert cache.get(bumped, content, rel.name) is None  # the parser changed: parsed again
    assert cache.get(SRC, content, "FY25_detentionStats02282025.xlsx") is None  # another name, another release
    assert cache.get(SRC, content + b"\0", rel.name) is None  # other bytes
    # an entry moved under another key's name is not that key's
    key = cache.key(SRC, content, rel.name)
    other = cache.key(SRC, content, "x.xlsx")
    assert key and other
    (tmp_path / SRC.id / f"{key}.zip").rename(tmp_path / SRC.id / f"{other}.zip")
    assert cache.get(SRC, content, "x.xlsx") is None
    # a source that declares no parser version is never kept
    unversioned = replace(SRC, parser_version="")
    cache.put(unversioned, content, rel.name, parsed)
    assert cache.key(unversioned, content, rel.name) is None and cache.get(unversioned, content, rel.name) is None


def test_every_source_that_declares_a_version_declares_text():
    for src in registry.SOURCES.values():
        assert isinstance(src.parser_version, str)
    assert SRC.parser_version == ice.PARSER_VERSION != ""


def test_the_command_line_keeps_parses_beside_the_snapshot_and_can_leave_them(raw, tmp_path):
    from loaders import __main__ as cli
    out = tmp_path / "out"
    assert cli.main(["rebuild", "--raw", str(raw), "--out", str(out), "ice_detention_stats"]) == 0
    assert len(list((out / "raw-cache" / SRC.id).glob("*.zip"))) == 3
    out2 = tmp_path / "out2"
    assert cli.main(["rebuild", "--raw", str(raw), "--out", str(out2), "--no-cache", "ice_detention_stats"]) == 0
    assert not (out2 / "raw-cache").exists()
    assert snapshot_bytes(out2) == snapshot_bytes(out)
    # a folder holding only the kept parses (a rebuild that failed after parsing) is still a place to write
    out3 = tmp_path / "out3"
    (out3 / "raw-cache").mkdir(parents=True)
    assert cli.main(["rebuild", "--raw", str(raw), "--out", str(out3), "ice_detention_stats"]) == 0
    assert snapshot_bytes(out3) == snapshot_bytes(out)
