"""The rebuild's cache of parses (loaders/parse_cache.py, issue 39): a file is parsed once per bytes, name and the
code its parse runs; the snapshot is byte for byte the same with and without the cache; an entry that cannot be trusted
(cut off, altered, another code's, not a zip) is ignored and the file parsed again."""
import datetime as dt
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from loaders import ice_detention_stats as ice
from loaders import parse_cache, pipeline, registry, stored
from loaders.errors import ValidationError
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


@pytest.mark.parametrize("kind, damage", [("parse", "cut"), ("parse", "flip"), ("parse", "garbage"), ("parse", "empty"),
                                          ("part", "cut"), ("part", "flip")])  # (a part is read as a parse is)
def test_a_damaged_entry_is_ignored_and_rebuilt(raw, tmp_path, parses, damage, kind):
    cache = tmp_path / "cache"
    pipeline.rebuild(raw, tmp_path / "a", ["ice_detention_stats"], cache_dir=cache)
    entry = sorted((cache / SRC.id / ("" if kind == "parse" else "parts")).glob("*.zip"))[0]
    data = entry.read_bytes()
    entry.write_bytes({"cut": data[: len(data) // 2],
                       "flip": data[:200] + bytes([data[200] ^ 0xFF]) + data[201:],
                       "garbage": b"not a zip at all",
                       "empty": b""}[damage])
    del parses[:]
    shutil.rmtree(cache / SRC.id / "results")  # the source's kept result would spare every part and parse
    if kind == "parse":
        shutil.rmtree(cache / SRC.id / "parts")  # and the files' parts every parse
    pipeline.rebuild(raw, tmp_path / "b", ["ice_detention_stats"], cache_dir=cache)
    # a damaged parse: that file parsed again; a damaged part: made again from the file's kept parse
    assert len(parses) == (1 if kind == "parse" else 0)
    assert snapshot_bytes(tmp_path / "b") == snapshot_bytes(tmp_path / "a")
    assert parse_cache._read(entry, entry.stem) is not None  # written again, whole


def test_an_entry_is_only_for_its_code_bytes_and_name(tmp_path):
    cache = parse_cache.ParseCache(tmp_path)
    rel = releases()[0]
    content = build(rel)
    parsed = pipeline._frames_of(SRC, pipeline._parse_raw(SRC, content, rel.name), rel.name)
    cache.put(SRC, content, rel.name, parsed)
    assert cache.get(SRC, content, rel.name) is not None
    assert cache.get(SRC, content, "FY25_detentionStats02282025.xlsx") is None  # another name, another release
    assert cache.get(SRC, content + b"\0", rel.name) is None  # other bytes
    # an entry moved under another key's name is not that key's
    key = cache.key(SRC, content, rel.name)
    other = cache.key(SRC, content, "x.xlsx")
    assert key and other
    (tmp_path / SRC.id / f"{key}.zip").rename(tmp_path / SRC.id / f"{other}.zip")
    assert cache.get(SRC, content, "x.xlsx") is None
    # a source that does not ask for its work to be kept is never kept
    plain = replace(SRC, cache_parses=False)
    cache.put(plain, content, rel.name, parsed)
    assert cache.key(plain, content, rel.name) is None and cache.get(plain, content, rel.name) is None
    assert cache.result_key(plain, [(rel.name, "0" * 64, None)]) is None


def test_the_parse_key_follows_the_code_the_parse_runs_and_nothing_else(tmp_path, monkeypatch):
    """One mechanism, no number to bump: the digest covers the source's module and the loaders modules it imports
    (and the two that run a parser), so an edit there makes a new key and an edit to an unrelated module does not."""
    closure = parse_cache.import_closure("ice_detention_stats")
    assert {"ice_detention_stats", "ice_tables", "ice_checks", "workbook", "parsing", "tidy"} <= set(closure)
    assert not {"deaths_in_custody", "snapshot", "events", "cbp_encounters"} & set(closure)
    copy = tmp_path / "loaders"  # a copy of the loaders folder, edited file by file
    copy.mkdir()
    for p in parse_cache.HERE.iterdir():
        if p.is_file():
            (copy / p.name).write_bytes(p.read_bytes())
    monkeypatch.setattr(parse_cache, "HERE", copy)
    cache = parse_cache.ParseCache(tmp_path / "c")

    def keys() -> tuple:
        parse_cache.parse_digest.cache_clear()
        parse_cache.result_digest.cache_clear()
        return cache.key(SRC, b"bytes", "a.xlsx"), cache.result_key(SRC, [("a.xlsx", "0" * 64, None)])
    try:
        parse0, _ = keys()
        for unrelated in ("snapshot.py", "deaths_in_custody.py", "events.py"):
            results_before = keys()[1]
            (copy / unrelated).write_text((copy / unrelated).read_text() + "\n# edited\n")
            parse, result = keys()
            assert parse == parse0, unrelated
            assert result != results_before, unrelated  # a result runs all of loaders (checks, writing)
        for used in ("ice_tables.py", "workbook.py", "pipeline.py"):
            before = keys()[0]
            (copy / used).write_text((copy / used).read_text() + "\n# edited\n")
            assert keys()[0] != before, used
    finally:
        monkeypatch.undo()
        parse_cache.parse_digest.cache_clear()
        parse_cache.result_digest.cache_clear()


def test_a_source_result_is_reused_whole_and_made_again_when_an_input_changes(raw, tmp_path, parses, monkeypatch):
    """A warm rebuild takes the source's checked rows, findings and formatted CSV from its kept result: nothing
    is parsed, validated or checked; a changed download record is another key, and the result is made again."""
    cache = tmp_path / "cache"
    pipeline.rebuild(raw, tmp_path / "a", ["ice_detention_stats"], cache_dir=cache)
    assert len(list((cache / SRC.id / "results").glob("*.zip"))) == 1
    calls = {"file": 0, "across": 0}  # the checks of one file's rows, and those across files

    def counting(kind, real):
        return lambda obs: calls.__setitem__(kind, calls[kind] + 1) or real(obs)
    monkeypatch.setitem(registry.SOURCES, SRC.id, replace(SRC, check_file=counting("file", SRC.check_file),
                                                          check_across=counting("across", SRC.check_across)))
    del parses[:]
    pipeline.rebuild(raw, tmp_path / "b", ["ice_detention_stats"], cache_dir=cache)
    assert parses == [] and calls == {"file": 0, "across": 0}
    assert snapshot_bytes(tmp_path / "b") == snapshot_bytes(tmp_path / "a")
    # one file's download record changes (retrieved again a month later): made again from the files' kept parts
    # (a part holds what a file's own rows give, which its download record does not change)
    side = sorted((raw / "ice_detention_stats").glob("*.meta.json"))[0]
    rec = json.loads(side.read_text())
    rec["retrieved"] = "2026-02-01T00:00:00+00:00"
    side.write_text(json.dumps(rec))
    pipeline.rebuild(raw, tmp_path / "c", ["ice_detention_stats"], cache_dir=cache)
    assert parses == [] and calls == {"file": 0, "across": 1}
    assert len(list((cache / SRC.id / "results").glob("*.zip"))) == 2
    pipeline.rebuild(raw, tmp_path / "plain", ["ice_detention_stats"])
    assert snapshot_bytes(tmp_path / "c") == snapshot_bytes(tmp_path / "plain") != snapshot_bytes(tmp_path / "a")
    # another origins table (a file's manifest entry carries its row): made again too
    from loaders import origins
    table = tmp_path / "origins.csv"
    table.write_bytes(Path(origins.PATH).read_bytes() + b"\n")
    monkeypatch.setattr(origins, "PATH", table)
    origins._table.cache_clear()
    pipeline.rebuild(raw, tmp_path / "d", ["ice_detention_stats"], cache_dir=cache)
    origins._table.cache_clear()
    assert calls == {"file": 0, "across": 2}  # (the plain rebuild runs the source's whole check)
    assert len(list((cache / SRC.id / "results").glob("*.zip"))) == 3  # c, plain, d


def test_a_kept_result_reads_back_as_what_it_was_made_from(raw, tmp_path, monkeypatch):
    made = []
    real = parse_cache.ParseCache.put_result
    monkeypatch.setattr(parse_cache.ParseCache, "put_result", lambda self, *a: made.append(a) or real(self, *a))
    cache = parse_cache.ParseCache(tmp_path / "cache")
    pipeline.rebuild(raw, tmp_path / "a", ["ice_detention_stats"], cache_dir=cache.folder)
    (_src, _key, obs0, flags0, files0, tables0, stored0), = made
    entry = next((cache.folder / SRC.id / "results").glob("*.zip"))
    got = cache.get_result(SRC, entry.stem)
    assert got is not None
    obs, flags, files, tables, stored_as = got
    assert stored_as == stored0 == stored.stored_text(obs)  # the rows as the snapshot stores them, and their facts
    assert (tmp_path / "a" / "snapshot" / "observations" / f"{SRC.id}.csv").read_text() == stored_as.text
    manifest = json.loads((tmp_path / "a" / "snapshot" / "manifest.json").read_text())["sources"][SRC.id]
    assert (manifest["rows"], manifest["date_min"], manifest["date_max"]) == tuple(stored_as[1:])
    pd.testing.assert_frame_equal(obs, obs0)
    pd.testing.assert_frame_equal(flags, flags0)
    assert tables.keys() == tables0.keys()
    for t in tables:
        pd.testing.assert_frame_equal(tables[t], tables0[t])
    assert files == files0 and [f["name"] for f in files] == [r.name for r in releases()]
    assert cache.get_result(SRC, "0" * 64) is None  # another key
    data = entry.read_bytes()
    entry.write_bytes(data[:len(data) // 2])  # cut off
    assert cache.get_result(SRC, entry.stem) is None


def test_the_ice_source_keeps_its_work():
    assert SRC.cache_parses is True
    assert not any(hasattr(s, "parser_version") for s in registry.SOURCES.values())


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


def test_values_are_written_as_whole_numbers_or_python_reprs():
    """``format_values`` formats only the values that are not whole with repr (a rebuild's hot path); the text
    is the same rule as before: whole finite values below 2**53 as integers, every other value as repr."""
    values = [3.0, -0.0, 0.1 + 0.2, 1e308, float("nan"), float("inf"), -float("inf"), 2.0**53, 2.0**53 + 2, 1e-300,
              123456.5]
    got = stored.format_values(pd.Series(values, index=range(10, 21))).tolist()
    assert got == ["3", "0", "0.30000000000000004", "1e+308", "nan", "inf", "-inf", "9007199254740992.0",
                   "9007199254740994.0", "1e-300", "123456.5"]


def test_a_result_put_together_from_parts_is_the_whole_path_s_bytes_whatever_changed(tmp_path, parses):
    """Parts (loaders/parts.py) against the rebuild without a cache, through a file added in the middle of the
    history, one replaced and one taken away. The added file makes kept files' rows findings of the comparisons
    across releases (``decreased``, ``repeated``): their marks, and so their stored lines, are made again."""
    folder = tmp_path / "raw" / "ice_detention_stats"
    folder.mkdir(parents=True)
    first = Release("FY25_detentionStats02272025.xlsx", 2025, D(2025, 2, 18), D(2025, 2, 22), ice=22622, cbp=21137,
                    removals=95474)
    middle = Release("FY25_detentionStats03142025.xlsx", 2025, D(2025, 3, 3), D(2025, 3, 8), ice=23000, cbp=21000,
                     removals=90000)
    last = Release("FY25_detentionStats03262025.xlsx", 2025, D(2025, 3, 17), D(2025, 3, 22), ice=23000, cbp=21000,
                   removals=90000)  # the middle release's figures again
    cache = tmp_path / "cache"
    made: dict[str, bytes] = {}  # a workbook built once keeps its bytes (a new build is new bytes: its zip's times)

    def both(step: str, files: list[Release]) -> str:
        for p in folder.iterdir():
            p.unlink()
        for r in files:
            (folder / r.name).write_bytes(made.setdefault(repr(r), build(r)))
        record_downloads(folder)
        pipeline.rebuild(tmp_path / "raw", tmp_path / f"{step}-kept", ["ice_detention_stats"], cache_dir=cache)
        pipeline.rebuild(tmp_path / "raw", tmp_path / f"{step}-plain", ["ice_detention_stats"])
        got = snapshot_bytes(tmp_path / f"{step}-kept")
        assert got == snapshot_bytes(tmp_path / f"{step}-plain"), step
        return (tmp_path / f"{step}-kept" / "snapshot" / "quality_flags.csv").read_text()

    flags = both("two", [first, last])
    assert "repeated" not in flags and ",decreased," in flags
    del parses[:]
    flags = both("added", [first, middle, last])  # the kept last release now repeats the new middle one
    assert parses == [middle.name, first.name, middle.name, last.name]  # with the cache only the new file, then all
    assert ",repeated," in flags
    rows = (tmp_path / "added-kept" / "snapshot" / "observations" / "ice_detention_stats.csv").read_text()
    assert any("repeated" in line and last.name in line for line in rows.splitlines())
    both("replaced", [first, replace(middle, ice=23100), last])
    both("removed", [middle, last])


def test_a_row_that_fails_validation_is_named_the_same_with_and_without_the_cache(raw, tmp_path, monkeypatch):
    """A part is made only from valid rows; a bad row stops the rebuild with the words of the rebuild without the
    cache (the file, and the row counted within that file), and nothing is kept for it."""
    real = pipeline._parse_raw
    bad = releases()[1].name

    def with_a_bad_row(source, content, name):
        parsed = pipeline._frames_of(source, real(source, content, name), name)
        if name == bad:
            obs = parsed.obs.copy()
            obs.loc[3, "value"] = -5.0  # negative: refused by tidy.validate
            parsed = replace(parsed, obs=obs)
        return parsed
    monkeypatch.setattr(pipeline, "_parse_raw", with_a_bad_row)
    said = []
    for cache in (None, tmp_path / "cache"):
        with pytest.raises(ValidationError) as e:
            pipeline.rebuild(raw, tmp_path / f"out-{cache is None}", ["ice_detention_stats"], cache_dir=cache)
        said.append(str(e.value))
    assert said[0] == said[1] and bad in said[0] and "row 4 field 'value'" in said[0], said
    assert not list((tmp_path / "cache" / SRC.id / "parts").glob("*.zip"))  # no part of a source that failed
