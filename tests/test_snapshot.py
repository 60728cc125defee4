"""The snapshot as one unit: no command, crash or write error loses it, mixes two generations or invents rows.

Each test starts from a small raw folder built here (TRAC's two tables, plus the project's curated reported
figures), so the suite stays quick and runs without ../shared/data.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import responses

from loaders import data as cdata
from loaders import pipeline, snapshot, trac_detention
from loaders.__main__ import main as cli
from loaders.fetch import sidecar_path
from loaders.snapshot import SnapshotError
from tests.conftest import ROOT, record_downloads
from tests.fault_samples import leftovers, snapshot_bytes

TRAC = "trac_detention"


def gen_bytes(data: Path) -> dict[str, bytes]:
    """The files of the current generation, as a reader resolves it."""
    return snapshot_bytes(snapshot.resolve(data))


@pytest.fixture
def built(raw_dir, tmp_path):
    """(data folder, its generation's bytes): a snapshot built from the small raw folder."""
    data = tmp_path / "data"
    pipeline.rebuild(raw_dir, data, allow_missing=True)
    return data, gen_bytes(data)


def rewrite(p: Path, text: str) -> None:
    """Change a raw file and its download record with it (a snapshot is built only from recorded files)."""
    p.write_text(text)
    sidecar_path(p).unlink(missing_ok=True)
    record_downloads(p.parent.parent)


def shrink_population(raw_dir: Path, keep: int = 1) -> None:
    p = raw_dir / TRAC / "pop_agen_table.json"
    rewrite(p, json.dumps(json.loads(p.read_text())[:keep]))


def grow_population(raw_dir: Path) -> None:
    """A later release: one more biweekly record, so the new generation differs from the old one."""
    p = raw_dir / TRAC / "pop_agen_table.json"
    recs = json.loads(p.read_text())
    recs.insert(0, dict(recs[0], date="10/05/2025", ice_all=recs[0]["ice_all"] + 5, total_all=recs[0]["total_all"] + 5,
                        ice_conv=recs[0]["ice_conv"] + 5, total_conv=recs[0]["total_conv"] + 5))
    rewrite(p, json.dumps(recs))


# ---------------------------------------------------------------- nothing deleted that was not asked for

def test_bare_rebuild_of_a_fresh_clone_refuses_and_names_the_sources(tmp_path, raw_dir, capsys):
    """Reproduces the issue: a bare `rebuild` (default --raw, here one holding only TRAC files) deleted 7 of
    8 observation files and exited 0. Now it refuses, names every source without raw files, writes nothing."""
    data = tmp_path / "clone-data"
    shutil.copytree(ROOT / "data" / "snapshot", data / "snapshot")
    before = snapshot_bytes(data)
    assert cli(["rebuild", "--raw", str(raw_dir), "--out", str(data)]) == 1
    err = capsys.readouterr().err
    for sid in ("ice_detention_stats", "ddp_facility_daily", "cbp_encounters", "ohss_khsm", "ohss_monthly_tables",
                "ddp_arrests_aggregates"):
        assert sid in err
    assert "ddp_records" not in err.split("--allow-missing")[0]  # optional: not in the bundled snapshot
    assert "--allow-missing" in err and "left unchanged" in err
    assert snapshot_bytes(data) == before
    # A mistyped --raw is refused as well.
    assert cli(["rebuild", "--raw", str(tmp_path / "no-such-folder"), "--out", str(data)]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert snapshot_bytes(data) == before


def test_allow_missing_keeps_the_other_sources_rows(tmp_path, raw_dir):
    data = tmp_path / "data"
    shutil.copytree(ROOT / "data" / "snapshot", data / "snapshot")
    committed = snapshot_bytes(data / "snapshot")
    pipeline.rebuild(raw_dir, data, allow_missing=True, allow_shrink=True)
    after = snapshot_bytes(data / "snapshot")
    for rel, b in committed.items():
        if rel.startswith(("observations/", "tables/")) and TRAC not in rel and "reported_figures" not in rel:
            assert after[rel] == b, f"{rel} changed although its source had no raw files"
    man = json.loads(after["manifest.json"])
    assert man["sources"]["ice_detention_stats"] == json.loads(committed["manifest.json"])["sources"]["ice_detention_stats"]
    assert snapshot.verify(data) == []


def test_a_raw_file_missing_from_the_folder_is_refused(built, raw_dir):
    data, before = built
    (raw_dir / TRAC / "book_in_agen_program_table.json").unlink()
    with pytest.raises(SnapshotError, match="book_in_agen_program_table.json") as e:
        pipeline.rebuild(raw_dir, data, [TRAC])
    assert "--allow-missing" in str(e.value)
    assert gen_bytes(data) == before
    # Told to, it keeps that file's rows rather than dropping them.
    pipeline.rebuild(raw_dir, data, [TRAC], allow_missing=True)
    obs = pipeline.load_source_observations(data, TRAC)
    assert (obs["file"] == "book_in_agen_program_table.json").sum() > 0
    old = json.loads(before["manifest.json"])["sources"][TRAC]
    assert json.loads(gen_bytes(data)["manifest.json"])["sources"][TRAC]["rows"] == old["rows"]


def test_a_release_that_shrinks_a_source_is_refused_unless_told(built, raw_dir, capsys):
    data, before = built
    shrink_population(raw_dir)
    assert cli(["rebuild", "--raw", str(raw_dir), "--out", str(data), "--allow-missing"]) == 1
    err = capsys.readouterr().err
    assert "shrinks 1 source(s) by more than 10%" in err and TRAC in err and "--allow-shrink" in err
    assert gen_bytes(data) == before
    assert cli(["rebuild", "--raw", str(raw_dir), "--out", str(data), "--allow-missing", "--allow-shrink"]) == 0
    assert gen_bytes(data) != before


@responses.activate
def test_update_refuses_a_shrinking_release(built, raw_dir, tmp_path, trac_book_ins_json):
    data, before = built
    # Every table comes back (the two the snapshot lacks with one record each: an empty list is refused as a
    # damaged file, which is not what this test is about), but the population table with only one of its records.
    atd = b'[{"aor": "", "atd_technology": "Total", "count_num": 5, "download_date": "07/11/2026", "family_unit": "All"}]'
    facilities = b'[{"name": "X", "type_detailed": "", "count": " 1,000", "download_date": "07/09/2026"}]'
    for u in trac_detention.SOURCE.download_urls:
        body = (json.dumps(json.loads((raw_dir / TRAC / "pop_agen_table.json").read_text())[:1]).encode()
                if "pop_agen" in u else trac_book_ins_json if "book_in" in u else atd if "atd" in u else facilities)
        responses.get(u, body=body)
    with pytest.raises(SnapshotError, match="shrinks 1 source"):
        pipeline.update([TRAC], data, tmp_path / "cache")
    assert gen_bytes(data) == before


def test_out_refuses_a_folder_that_is_not_a_snapshot(tmp_path, raw_dir, capsys):
    other = tmp_path / "my-documents"
    other.mkdir()
    (other / "thesis.txt").write_text("years of work")
    (other / "observations").mkdir()
    (other / "observations" / "mine.csv").write_text("a,b\n")
    assert cli(["rebuild", "--raw", str(raw_dir), "--out", str(other), "--allow-missing"]) == 1
    err = capsys.readouterr().err
    assert "not empty and holds no snapshot" in err and "thesis.txt" in err
    assert sorted(p.name for p in other.rglob("*")) == ["mine.csv", "observations", "thesis.txt"]
    # Pointing --out at a generation folder itself is refused too (it would nest a snapshot inside it).
    data = tmp_path / "data"
    pipeline.rebuild(raw_dir, data, allow_missing=True)
    assert cli(["rebuild", "--raw", str(raw_dir), "--out", str(data / "snapshot"), "--allow-missing"]) == 1
    assert "pass its parent" in capsys.readouterr().err


# ---------------------------------------------------------------- verify, status and readers see damage

def test_manifest_lists_every_file_and_verify_passes(built):
    data, files = built
    man = json.loads(files["manifest.json"])
    assert set(man["snapshot_files"]) == set(files) - {"manifest.json"}
    assert {"observations/trac_detention.csv", "series.csv", "quality_flags.csv"} <= set(man["snapshot_files"])
    assert set(man["curated_files"]) == {"events.csv", "reported_figures.csv"}
    assert snapshot.verify(data) == []
    assert cli(["verify", "--data", str(data)]) == 0


def test_the_committed_snapshot_verifies():
    assert snapshot.verify(ROOT / "data") == []


@pytest.mark.parametrize("damage", ["flip", "truncate", "delete", "stray", "table"])
def test_verify_names_each_damaged_file(built, capsys, damage):
    data, _ = built
    gen = data / "snapshot"
    obs = gen / "observations" / "trac_detention.csv"
    if damage == "flip":
        b = bytearray(obs.read_bytes())
        b[-5] ^= 1
        obs.write_bytes(bytes(b))
        want = "observations/trac_detention.csv: sha256"
    elif damage == "truncate":
        obs.write_bytes(obs.read_bytes()[:-40])
        want = "observations/trac_detention.csv:"
    elif damage == "delete":
        obs.unlink()
        want = "observations/trac_detention.csv: missing"
    elif damage == "stray":
        (gen / "observations" / "other.csv").write_text("series,key\n")
        want = "observations/other.csv: not listed"
    else:
        (gen / "series.csv").unlink()
        want = "series.csv: missing"
    assert cli(["verify", "--data", str(data)]) == 1
    err = capsys.readouterr().err
    assert want in err and "problem(s)" in err
    if damage != "stray" and damage != "table":
        # status does not invent the manifest's row count for a source whose file is damaged
        assert cli(["status", "--data", str(data)]) == 1
        out, err = capsys.readouterr()
        line = next(ln for ln in out.splitlines() if ln.strip().startswith(TRAC))
        assert "damaged" in line and str(json.loads((gen / "manifest.json").read_text())["sources"][TRAC]["rows"]) not in line
        assert "damaged" in err and "Traceback" not in err
        # and the page refuses to draw from it rather than show a mix
        with pytest.raises(SnapshotError, match="trac_detention.csv"):
            cdata.load_snapshot(data)


@pytest.mark.parametrize("text, want", [
    ('{"sources": {', "not valid JSON"),
    ("[]", "has no 'sources' object"),
    (None, "field 'latest_release' is '2025-13-45', not a YYYY-MM-DD date"),
    (None, "field 'rows' is 'many', not a count"),
])
def test_status_with_a_corrupt_manifest_is_one_clear_line(built, capsys, text, want):
    data, _ = built
    mpath = data / "snapshot" / "manifest.json"
    if text is None:
        man = json.loads(mpath.read_text())
        if "latest_release" in want:
            man["sources"][TRAC]["latest_release"] = "2025-13-45"
        else:
            man["sources"][TRAC]["rows"] = "many"
        text = json.dumps(man)
    mpath.write_text(text)
    for cmd in (["status"], ["verify"]):
        assert cli([*cmd, "--data", str(data)]) == 1
        err = capsys.readouterr().err
        assert want in err and "Traceback" not in err and str(mpath) in err
        assert len([ln for ln in err.splitlines() if ln.startswith("error:")]) == 1


# ---------------------------------------------------------------- one unit: write errors and crashes

def test_a_write_error_midway_leaves_the_old_generation_and_no_leftovers(built, raw_dir, monkeypatch):
    data, before = built
    grow_population(raw_dir)
    real_add, calls = snapshot.Generation.add, []

    def failing_add(self, rel, blob):
        calls.append(rel)
        if len(calls) == 2:
            raise OSError(30, "Read-only file system", rel)
        return real_add(self, rel, blob)

    monkeypatch.setattr(snapshot.Generation, "add", failing_add)
    assert cli(["rebuild", "--raw", str(raw_dir), "--out", str(data), "--allow-missing"]) == 1
    assert gen_bytes(data) == before
    assert leftovers(data) == [] and not list(data.glob(".snapshot-*"))


@pytest.mark.parametrize("can_exchange", [True, False])
def test_at_every_step_of_a_write_a_reader_sees_the_old_or_the_new_snapshot(built, raw_dir, tmp_path, monkeypatch,
                                                                            can_exchange):
    """Every file system step of a write is intercepted; at each, the generation a reader resolves must be whole
    and equal to the old or the new one (this is what a kill at that instant leaves). Both switch methods."""
    data, old = built
    grow_population(raw_dir)
    ref = tmp_path / "ref"
    pipeline.rebuild(raw_dir, ref, allow_missing=True)
    new = gen_bytes(ref)
    assert new != old
    seen = []

    def check(step):
        state = gen_bytes(data)
        assert state in (old, new), f"mixed snapshot at step {step}"
        assert [p for p in snapshot.verify(data) if "changed since" not in p] == [], step
        seen.append("new" if state == new else "old")

    def wrap(fn, step):
        def inner(*a, **k):
            check(step)
            out = fn(*a, **k)
            check(step + " (after)")
            return out
        return inner

    monkeypatch.setattr(snapshot.Generation, "add", wrap(snapshot.Generation.add, "add"))
    monkeypatch.setattr(snapshot.os, "rename", wrap(os.rename, "rename"))
    monkeypatch.setattr(snapshot, "_fsync_dir", wrap(snapshot._fsync_dir, "fsync"))
    monkeypatch.setattr(snapshot.shutil, "rmtree", wrap(shutil.rmtree, "rmtree"))
    exch = snapshot.exchange if can_exchange else (lambda a, b: False)
    monkeypatch.setattr(snapshot, "exchange", wrap(exch, "exchange"))
    pipeline.rebuild(raw_dir, data, allow_missing=True)
    monkeypatch.undo()
    assert gen_bytes(data) == new and seen[0] == "old" and seen[-1] == "new" and len(seen) >= 12
    assert not list(data.glob(".snapshot-*"))


def test_leftovers_of_a_killed_run_are_cleaned_by_the_next(built, raw_dir):
    data, before = built
    (data / ".snapshot-new-999999-dead").mkdir()
    (data / ".snapshot-new-999999-dead" / "series.csv").write_text("half")
    (data / "snapshot" / "observations" / ".trac_detention.csv.abc.part").write_text("half")
    (data / ".manifest.json.x.part").write_text("half")
    assert snapshot.verify(data) != []  # the stray .part inside the generation is reported
    pipeline.rebuild(raw_dir, data, allow_missing=True)
    assert not list(data.glob(".snapshot-*")) and leftovers(data) == []
    assert gen_bytes(data) == before and snapshot.verify(data) == []


def test_an_interrupted_two_rename_switch_is_read_and_repaired(built, raw_dir):
    """Without RENAME_EXCHANGE the switch is two renames; cut between them, the old generation is used."""
    data, before = built
    os.rename(data / "snapshot", data / ".snapshot-old-999999-cut")
    assert gen_bytes(data) == before and snapshot.verify(data) == []
    assert len(cdata.load_snapshot(data).obs) > 0
    snapshot.cleanup(data)
    assert (data / "snapshot").is_dir() and gen_bytes(data) == before


def test_a_flat_snapshot_of_an_earlier_version_is_read_and_migrated(built, raw_dir, tmp_path):
    data, before = built
    flat = tmp_path / "flat"
    shutil.copytree(data / "snapshot", flat)
    shutil.rmtree(flat / "curated")  # the curated events travelled inside only from the generations on
    man = json.loads((flat / "manifest.json").read_text())
    del man["snapshot_files"], man["curated_files"]
    (flat / "manifest.json").write_text(json.dumps(man))
    assert len(cdata.load_snapshot(flat).obs) == man["sources"][TRAC]["rows"] + man["sources"]["reported_figures"]["rows"]
    assert "lists no checksums" in snapshot.verify(flat)[0]
    pipeline.rebuild(raw_dir, flat, allow_missing=True)
    assert sorted(p.name for p in flat.iterdir() if not p.name.startswith(".")) == ["snapshot"]
    assert gen_bytes(flat) == before


def test_readers_retry_when_a_switch_happens_mid_read(built, raw_dir, tmp_path, monkeypatch):
    """A reader that opened the old generation and finds it deleted under it reads again and gets the new one."""
    data, old = built
    grow_population(raw_dir)
    real, done = snapshot._read_at, []

    def switch_during_read(dir_fd, rel):
        if rel.startswith("observations/") and not done:
            done.append(1)
            pipeline.rebuild(raw_dir, data, allow_missing=True)  # switches, then deletes the old generation
        return real(dir_fd, rel)

    monkeypatch.setattr(snapshot, "_read_at", switch_during_read)
    gen, man, files = snapshot.read_generation(data)
    assert done and files["observations/trac_detention.csv"] == gen_bytes(data)["observations/trac_detention.csv"]
    assert man["snapshot_files"] == json.loads(gen_bytes(data)["manifest.json"])["snapshot_files"]


KILLS = 8


@pytest.mark.slow
def test_kill_9_at_random_moments_leaves_the_old_or_the_new_snapshot(built, raw_dir, tmp_path):
    """A real `python -m loaders rebuild` killed with SIGKILL at seeded random moments: after each kill
    `verify` passes and the snapshot is byte for byte the old one or the new one; the next run cleans up."""
    data, old = built
    grow_population(raw_dir)
    ref = tmp_path / "ref"
    pipeline.rebuild(raw_dir, ref, allow_missing=True)
    new = gen_bytes(ref)
    cmd = [sys.executable, "-m", "loaders", "rebuild", "--raw", str(raw_dir), "--out", str(data), "--allow-missing"]
    rng = random.Random(14)
    outcomes = []
    for i in range(KILLS):
        state_before = gen_bytes(data)
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if i % 2 == 0:
            time.sleep(rng.uniform(0.2, 2.5))  # anywhere in the run, start-up included
        else:
            # aimed at the write: once the new generation's folder appears, plus a random delay
            deadline = time.monotonic() + 30
            while not list(data.glob(".snapshot-new-*")) and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.0005)
            time.sleep(rng.uniform(0, 0.4))  # the write phase (files, fsyncs, switch) lasts a few tenths
        proc.kill()
        proc.wait(timeout=30)
        state = gen_bytes(data)
        assert state in (old, new), f"kill {i}: mixed snapshot"
        assert state in (state_before, new)
        assert [p for p in snapshot.verify(data) if "changed since" not in p] == [], f"kill {i}"
        outcomes.append("new" if state == new else "old")
        if state == new:  # start the next round from the old snapshot again
            shutil.rmtree(data / "snapshot")
            shutil.copytree(snapshot.resolve(tmp_path / "old-copy") if (tmp_path / "old-copy").exists()
                            else _write_old(tmp_path, old), data / "snapshot")
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert gen_bytes(data) == new and not list(data.glob(".snapshot-*")) and leftovers(data) == []
    assert snapshot.verify(data) == []


def _write_old(tmp_path: Path, files: dict[str, bytes]) -> Path:
    d = tmp_path / "old-copy" / "snapshot"
    for rel, b in files.items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_bytes(b)
    return d


def test_errors_start_on_their_own_line_after_a_progress_bar(raw_dir, tmp_path, capsys):
    """The error used to be printed on the progress bar's line; the bar is now closed first (tqdm, stderr)."""
    rewrite(raw_dir / TRAC / "pop_agen_table.json", '[{"date": "31/31/2025"}]')
    assert cli(["rebuild", "--raw", str(raw_dir), "--out", str(tmp_path / "out"), "--allow-missing"]) == 1
    out, err = capsys.readouterr()
    assert "parsing" in err and out == ""  # the bar went to stderr
    at = err.index("error:")
    assert at > 0 and err[at - 1] == "\n", repr(err[max(0, at - 80):at + 20])


@responses.activate
def test_update_refuses_to_merge_into_a_damaged_snapshot(built, tmp_path, trac_population_json, trac_book_ins_json):
    """With an observations file gone, a merge would have kept the manifest's file list and written only the
    new rows: the source's other rows silently dropped. The damage is refused instead, naming the file."""
    data, _ = built
    (data / "snapshot" / "observations" / "trac_detention.csv").unlink()
    before = snapshot_bytes(data)
    for u in trac_detention.SOURCE.download_urls:
        responses.get(u, body=trac_population_json if "pop_agen" in u else trac_book_ins_json)
    with pytest.raises(SnapshotError, match="trac_detention.csv: missing"):
        pipeline.update([TRAC], data, tmp_path / "cache")
    assert snapshot_bytes(data) == before


def test_a_bad_curated_event_stops_the_rebuild_naming_its_row_and_keeps_the_snapshot(built, raw_dir, tmp_path,
                                                                                     monkeypatch):
    data, before = built
    curated = tmp_path / "curated"
    shutil.copytree(pipeline.DATA, curated, ignore=shutil.ignore_patterns("snapshot", "user_events.csv"))
    lines = (curated / "events.csv").read_text("utf-8").splitlines(keepends=True)
    lines[3] = lines[3].replace("https://", "ftp://", 1)
    (curated / "events.csv").write_text("".join(lines), "utf-8")
    monkeypatch.setattr(pipeline, "DATA", curated)
    with pytest.raises(Exception, match=r"row 4, field source_url"):
        pipeline.rebuild(raw_dir, data, allow_missing=True)
    assert gen_bytes(data) == before and snapshot.verify(data) == []
